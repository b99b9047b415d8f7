// The replay note (contract section 5: a replayed answer adds a note on stderr; stdout is
// unchanged). The client tells the Factory of every answer the service replayed from its
// idempotency store (`Idempotent-Replayed: true`), success or refusal; this says what that means:
// what was printed (or refused) is the stored answer of the first request with that key, the state
// may have changed since, and how to see it now, or, for a refusal, that only a new key tries again.
//
// "See it now with" names a command of the tree that shows the object, found from the tree and
// the contract, not per verb:
//  1. a get verb whose argument is an id of the object's kind (its idPrefix): `pay cards get card_…`;
//  2. a get verb at the request's path or a parent of it, its parameters taken from that path:
//     POST customers/cus_…/kyc → `pay kyc status cus_…`, …/features/f/activate → `pay features check cus_… --feature f`;
//  3. a get verb whose parameters are fields of the answer and whose answer is the same object or
//     holds it (a verification holds its documents): POST kyc/documents → `pay kyc status cus_…`;
//  4. `pay api GET <the object's path>` when the contract has a GET there; else nothing is named.
// Deprecated verbs come last. test/contract/replay-note.test.ts runs every suggestion.
// Loaded when a replay happens.
import type { Replay } from '../api/client.js';
import type { OpenApiDocument } from '../api/openapi.js';
import { escapeText } from '../io/escape.js';
import type { GroupSpec, VerbSpec } from './spec.js';

/** The note for a replayed answer, one line for stderr; `groups`: the whole tree's (Factory.groups). */
export async function replayNote(r: Replay, groups: readonly GroupSpec[]): Promise<string> {
  const key = r.idempotencyKey ?? '-';
  // pay retried this request (a 5xx or a dropped connection after the service had acted): the stored answer is
  // its own earlier attempt's when pay chose the key; nobody reused a key.
  const first =
    r.earlier === 'attempt'
      ? `replayed: an earlier attempt of this command reached the service (pay retried it with the same idempotency key ${key}); this is its answer`
      : r.earlier === 'either'
        ? `replayed: idempotency key ${key} was used before (by an earlier attempt of this command, which pay retried, or an earlier command), so the service answered with what it stored for that first ${r.method}`
        : `replayed: idempotency key ${key} was used before, so the service answered with what it stored for that first ${r.method}`;
  if (r.refusal) {
    return `note: ${escapeText(
      `${first}: ` +
        `a refusal (HTTP ${r.refusal.status}${r.refusal.code ? ` ${r.refusal.code}` : ''}), not a new attempt; the state may have changed since, ` +
        `but this key only replays that answer: a new idempotency key is needed to try again`,
    )}\n`;
  }
  const body = r.body as { id?: unknown } | undefined;
  const id = body && typeof body === 'object' && typeof body.id === 'string' ? body.id : undefined;
  // The contract loads here, not with this module: a bulk run's summary (getById) needs none of it.
  const [{ openapi }, { successRef }] = await Promise.all([import('../api/openapi.js'), import('../api/response-fields.js')]);
  const see = seeItNow(r, groups, openapi, (op) => successRef(op, openapi));
  return `note: ${escapeText(
    `${first}` + `${id !== undefined ? ` (${id})` : ''}; the object may have changed since${see ? `: see it now with ${see}` : ''}`,
  )}\n`;
}

/** A value that can stand in a suggested command as it is (no quoting needed, nothing to escape). */
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,199}$/;

interface Candidate {
  group: GroupSpec;
  verb: VerbSpec;
}

/** Every get verb, those of deprecated groups or verbs last. */
function getVerbs(groups: readonly GroupSpec[]): Candidate[] {
  const all = groups.flatMap((group) => group.verbs.filter((v) => v.kind === 'get' && !v.offline).map((verb) => ({ group, verb })));
  const old = (c: Candidate) => (c.group.deprecated || c.verb.deprecated ? 1 : 0);
  return all.sort((a, b) => old(a) - old(b));
}

/** The path's parameters when `path` (concrete, under the base URL) fits `template`; undefined otherwise. */
function match(template: string, path: string): Record<string, string> | undefined {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const m = /^\{([^}]+)\}$/.exec(t[i]!);
    if (!m) {
      if (t[i] !== p[i]) return undefined;
      continue;
    }
    let value: string;
    try {
      value = decodeURIComponent(p[i]!);
    } catch {
      return undefined;
    }
    if (!PLAIN.test(value)) return undefined;
    params[m[1]!] = value;
  }
  return params;
}

/**
 * The command line of a get verb with its path parameters' values: its pathParam flags, and its
 * argument for the first parameter they leave (as the verb fills its path, src/verbs/values.ts).
 */
function commandFor(c: Candidate, params: Readonly<Record<string, unknown>>): string | undefined {
  const names = [...c.verb.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const words = ['pay', c.group.name, c.verb.name];
  const flags: string[] = [];
  const left = [...names];
  for (const f of c.verb.flags ?? []) {
    if (!f.pathParam) continue;
    const value = params[f.pathParam];
    if (typeof value !== 'string' || !PLAIN.test(value)) return undefined;
    flags.push(/--[a-z0-9-]+/.exec(f.flags)![0], value);
    left.splice(left.indexOf(f.pathParam), 1);
  }
  if (left.length > 1 || (left.length === 1 && (!c.verb.arg || c.verb.arg.field))) return undefined;
  if (left.length === 1) {
    const value = params[left[0]!];
    if (typeof value !== 'string' || !PLAIN.test(value)) return undefined;
    words.push(value);
  }
  return [...words, ...flags].join(' ');
}

/** The request path under the base URL, as templates are written: no leading slash, no query. */
function plainPath(path: string): string {
  return path.split(/[?#]/)[0]!.replace(/^\/+/, '').replace(/\/+$/, '');
}

/** The operationId of `method` at a concrete path, from the contract. */
function operationAt(doc: OpenApiDocument, method: string, path: string): string | undefined {
  for (const [template, item] of Object.entries(doc.paths)) {
    if (!match(plainPath(template), path)) continue;
    const op = (item as Record<string, { operationId?: string } | undefined>)[method.toLowerCase()];
    if (op?.operationId) return op.operationId;
  }
  return undefined;
}

/** Whether the schema `holder` is `ref`, or has a property that is it or an array of it. */
function holds(doc: OpenApiDocument, holder: string | undefined, ref: string): boolean {
  if (!holder) return false;
  if (holder === ref) return true;
  const schema = doc.components.schemas?.[holder.split('/').pop()!] as
    { properties?: Record<string, { $ref?: string; items?: { $ref?: string } }> } | undefined;
  return Object.values(schema?.properties ?? {}).some((p) => p.$ref === ref || p.items?.$ref === ref);
}

/**
 * The command that shows, as it is now, the object a replayed request made or acted on (rules
 * 1-4 above), or undefined when the tree and the contract have none. `successRef`: the schema an
 * operation answers (src/api/response-fields.ts successRef over `doc`).
 */
export function seeItNow(
  r: Pick<Replay, 'method' | 'path' | 'body'>,
  groups: readonly GroupSpec[],
  doc: OpenApiDocument,
  successRef: (operationId: string) => string | undefined,
): string | undefined {
  const gets = getVerbs(groups);
  const body = r.body && typeof r.body === 'object' && !Array.isArray(r.body) ? (r.body as Record<string, unknown>) : {};
  const id = typeof body.id === 'string' ? body.id : undefined;
  // 1. By the object's id.
  if (id !== undefined) {
    const byId = getById(id, groups);
    if (byId) return byId;
  }
  // 2. At the request's path, or a parent of it.
  const path = plainPath(r.path);
  const parts = path.split('/');
  for (let n = parts.length; n > 0; n--) {
    const at = parts.slice(0, n).join('/');
    for (const c of gets) {
      const params = match(c.verb.path, at);
      const cmd = params && commandFor(c, params);
      if (cmd) return cmd;
    }
  }
  // 3. A get verb whose parameters the answer names, answering the same object or one that holds it.
  const made = operationAt(doc, r.method, path);
  const ref = made ? successRef(made) : undefined;
  if (ref) {
    for (const c of gets) {
      if (!holds(doc, successRef(c.verb.operationId), ref)) continue;
      const cmd = commandFor(c, body);
      if (cmd) return cmd;
    }
  }
  // 4. The object's own path, where the contract has a GET.
  if (id !== undefined && PLAIN.test(id)) {
    const own = objectPath(path, id);
    if (operationAt(doc, 'GET', own)) return `pay api GET ${own}`;
  }
  return undefined;
}

/** `pay <group> get <id>`: the get verb whose argument is an id of this kind, if the tree has one. */
export function getById(id: string, groups: readonly GroupSpec[]): string | undefined {
  if (!PLAIN.test(id)) return undefined;
  for (const c of getVerbs(groups)) {
    const prefixes = c.verb.arg?.idPrefix?.split('|') ?? [];
    if (c.verb.arg?.field || !prefixes.some((p) => id.startsWith(p))) continue;
    const names = [...c.verb.path.matchAll(/\{([^}]+)\}/g)];
    if (names.length === 1 && !(c.verb.flags ?? []).some((f) => f.pathParam)) return `pay ${c.group.name} ${c.verb.name} ${id}`;
  }
  return undefined;
}

/** The path of the object a POST made or acted on: `customers` + id → `customers/<id>`; `cards/<id>/freeze` → `cards/<id>`. */
function objectPath(path: string, id: string): string {
  const parts = path.split('/').filter(Boolean);
  const at = parts.indexOf(id);
  return at >= 0 ? parts.slice(0, at + 1).join('/') : [...parts, id].join('/');
}
