// What a seed apply has to do per entry, from the file and the state file alone (sends nothing):
// create (not in the state), skip (the body it would send equals the one recorded), update (it
// differs only in fields the kind's update operation accepts), replace (anything else). The body
// compared is the resolved one, so an entry that refers to a replaced entry changes with it.
// The state file never holds a value read from the environment: fields made from one (directly or
// through another entry's field) are recorded as a sha256 of their value (recordable()).
import { createHash } from 'node:crypto';
import { UsageError } from '../lib/errors.js';
import { canonical, isObject, REF, resolve, type Entry, type Kind } from './file.js';
import { fateOfOld, noun, UPDATES } from './lifecycle.js';
import { asText } from '../lib/text.js';

export type Action = 'create' | 'skip' | 'update' | 'replace';

/** What the state file records per entry. */
export interface Recorded {
  /** entryHash of the written entry it was last applied from (the base of its Idempotency-Key). */
  hash: string;
  /** The body last sent, references resolved. State files of version 1 lack it. */
  body?: Record<string, unknown>;
  /** The object the API answered. */
  object: Record<string, unknown>;
}

export interface Change {
  ref: string;
  action: Action;
  /** The id of the object the state records (skip, update, replace). */
  id?: string;
  /** Top-level fields that change (update, replace). */
  fields?: string[];
  /** Entries that get a new object and whose new values this entry's body takes. */
  follows?: string[];
  /** Why an update cannot do it (replace). */
  reason?: string;
}

/** The base of an entry's Idempotency-Key: tenant, mode, name and written content. */
export function entryHash(tenant: string, mode: string, e: Entry): string {
  return createHash('sha256')
    .update(`${tenant}\n${mode}\n${e.ref}\n${canonical(e.body)}`)
    .digest('hex')
    .slice(0, 40);
}

/** The Idempotency-Key of an update: the entry and the whole body it brings the object to. */
export function updateKey(tenant: string, mode: string, ref: string, body: Record<string, unknown>): string {
  return `seed_u_${createHash('sha256')
    .update(`${tenant}\n${mode}\n${ref}\nupdate\n${canonical(body)}`)
    .digest('hex')
    .slice(0, 40)}`;
}

/** Entries in an order where every entry comes after those it depends on (file order otherwise). */
function dependencyOrder(entries: readonly Entry[]): Entry[] {
  const byRef = new Map(entries.map((e) => [e.ref, e]));
  const seen = new Set<string>();
  const out: Entry[] = [];
  const visit = (e: Entry): void => {
    if (seen.has(e.ref)) return;
    seen.add(e.ref);
    for (const d of e.deps) visit(byRef.get(d)!);
    out.push(e);
  };
  for (const e of entries) visit(e);
  return out;
}

/**
 * The body an entry would send. `unknown` holds `kind.name` of entries that get a new object and
 * `kind.name.field` of fields an update changes to a value known only once it is made: a top-level
 * field that refers to one of them is `pending` (its value is not known, but it will change).
 */
export function desiredBody(
  e: Entry,
  objects: ReadonlyMap<string, Record<string, unknown>>,
  unknown: ReadonlySet<string>,
  env: NodeJS.ProcessEnv,
): { body: Record<string, unknown>; pending: Map<string, string[]> } {
  const body: Record<string, unknown> = {};
  const pending = new Map<string, string[]>();
  for (const [field, value] of Object.entries(e.body)) {
    const waits = new Set<string>();
    for (const m of JSON.stringify(value).matchAll(REF)) {
      if (m[1] === 'env') continue;
      const ref = `${m[1]}.${m[2]}`;
      if (unknown.has(ref) || unknown.has(`${ref}.${(m[3] ?? 'id').split('.')[0]}`)) waits.add(ref);
    }
    if (waits.size > 0) pending.set(field, [...waits]);
    else body[field] = resolve(value, objects, env, e.ref);
  }
  return { body, pending };
}

/**
 * The body a recorded object was made from: the one recorded, or for a version 1 record whose
 * written entry is unchanged, the entry resolved against the objects recorded beside it.
 */
export function recordedBody(
  e: Entry,
  rec: Recorded,
  tenant: string,
  mode: string,
  recorded: ReadonlyMap<string, Record<string, unknown>>,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> | undefined {
  if (rec.body) return rec.body;
  if (rec.hash !== entryHash(tenant, mode, e)) return undefined;
  try {
    return resolve(e.body, recorded, env, e.ref) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Compares the body an entry would send with the recorded one (without it, with the recorded
 * object's fields: a version 1 state file of an edited entry) and says what apply does.
 */
export function diffEntry(
  e: Entry,
  rec: Recorded,
  body: Record<string, unknown>,
  pending: ReadonlyMap<string, string[]>,
  old: Record<string, unknown> | undefined,
): Change {
  const id = asText(rec.object.id);
  const base = old ?? rec.object;
  const changed = [...Object.keys(body).filter((f) => !(f in base) || !sameValue(body[f], base[f])), ...pending.keys()].sort();
  const removed = old ? Object.keys(old).filter((f) => !(f in body) && !pending.has(f)) : [];
  if (changed.length === 0 && removed.length === 0) return { ref: e.ref, action: 'skip', id };
  const follows = [...new Set([...pending.values()].flat())].sort();
  const change: Change = {
    ref: e.ref,
    action: 'update',
    id,
    fields: [...changed, ...removed].sort(),
    ...(follows.length ? { follows } : {}),
  };
  const u = UPDATES[e.kind];
  const fixed = u ? changed.filter((f) => !u.fields.includes(f)) : changed;
  if (!u) return { ...change, action: 'replace', reason: `${noun(e.kind)} has no update operation` };
  if (removed.length > 0) return { ...change, action: 'replace', reason: `an update cannot remove ${removed.join(', ')}` };
  if (fixed.length > 0) return { ...change, action: 'replace', reason: `an update cannot change ${fixed.join(', ')}` };
  return change;
}

/** Names `${env.NAME}` may read only when given with --allow-env: the API key and anything named like a secret. */
const SECRET_ENV = /^PAY_API_KEY$|(KEY|SECRET|TOKEN|PASSWORD)$/i;

/** Refuses (exit 2, before anything is sent) an entry that reads a secret from the environment without --allow-env NAME. */
export function checkEnvNames(entries: readonly Entry[], allowed: readonly string[]): void {
  for (const e of entries) {
    for (const m of JSON.stringify(e.body).matchAll(REF)) {
      if (m[1] === 'env' && SECRET_ENV.test(m[2]!) && !allowed.includes(m[2]!)) {
        throw new UsageError(`${e.ref}: \${env.${m[2]}} reads a secret from the environment; refused`, {
          hint: `pass --allow-env ${m[2]} if the seed really needs it`,
        });
      }
    }
  }
}

/**
 * Per entry, the top-level fields whose value comes from the environment: written with `${env.…}`,
 * or with a reference to such a field of another entry.
 */
export function envFields(entries: readonly Entry[]): Map<string, Set<string>> {
  const out = new Map(entries.map((e) => [e.ref, new Set<string>()]));
  for (let changed = true; changed;) {
    changed = false;
    for (const e of entries) {
      const mine = out.get(e.ref)!;
      for (const [field, value] of Object.entries(e.body)) {
        if (mine.has(field)) continue;
        for (const m of JSON.stringify(value).matchAll(REF)) {
          const from = m[1] === 'env' || out.get(`${m[1]}.${m[2]}`)?.has((m[3] ?? 'id').split('.')[0]!);
          if (from) {
            mine.add(field);
            changed = true;
            break;
          }
        }
      }
    }
  }
  return out;
}

/**
 * Per entry, the top-level fields the state file records only as a sha256: those from the
 * environment (envFields), and a KYC entry's documents (identity document numbers stay out of the
 * state file; the service itself keeps only their last 4 characters).
 */
export function hashedFields(entries: readonly Entry[]): Map<string, Set<string>> {
  const out = envFields(entries);
  for (const e of entries) if (e.kind === 'kyc' && 'documents' in e.body) out.get(e.ref)!.add('documents');
  return out;
}

/** A recorded stand-in for a value from the environment. */
const isHashed = (v: unknown): boolean => isObject(v) && Object.keys(v).length === 1 && typeof v.sha256 === 'string';
const sha256Of = (v: unknown): { sha256: string } => ({ sha256: createHash('sha256').update(canonical(v)).digest('hex') });

/** Equal values, where a hashed one equals the value it is the hash of (an older record holds the value itself). */
function sameValue(a: unknown, b: unknown): boolean {
  if (isHashed(a) && !isHashed(b)) b = sha256Of(b);
  else if (isHashed(b) && !isHashed(a)) a = sha256Of(a);
  return canonical(a) === canonical(b);
}

/** The body or object as the state file records it: the given fields replaced by a sha256 of their value. */
export function recordable<T extends Record<string, unknown> | undefined>(value: T, fields: ReadonlySet<string> | undefined): T {
  if (!value || !fields || fields.size === 0) return value;
  const out: Record<string, unknown> = { ...value };
  for (const f of fields) {
    if (f in out && !isHashed(out[f])) out[f] = sha256Of(out[f]);
  }
  return out as T;
}

export interface StateView {
  tenant: string;
  mode: string;
  entries: Record<string, Recorded>;
}

/** What apply would do to each entry (in the file's order), from the state file alone. */
export function planChanges(entries: readonly Entry[], state: StateView, env: NodeJS.ProcessEnv): Change[] {
  const fromEnv = hashedFields(entries);
  const recorded = new Map(Object.entries(state.entries).map(([ref, r]) => [ref, r.object]));
  const after = new Map<string, Record<string, unknown>>();
  const unknown = new Set<string>();
  const out = new Map<string, Change>();
  for (const e of dependencyOrder(entries)) {
    const rec = state.entries[e.ref];
    if (!rec) {
      out.set(e.ref, { ref: e.ref, action: 'create' });
      unknown.add(e.ref);
      continue;
    }
    const { body, pending } = desiredBody(e, after, unknown, env);
    const mine = fromEnv.get(e.ref);
    const c = diffEntry(
      e,
      rec,
      recordable(body, mine),
      pending,
      recordable(recordedBody(e, rec, state.tenant, state.mode, recorded, env), mine),
    );
    out.set(e.ref, c);
    if (c.action === 'replace') unknown.add(e.ref);
    // The recorded object holds hashes for values from the environment: the body's are the same values.
    else if (c.action === 'skip')
      after.set(e.ref, { ...rec.object, ...Object.fromEntries([...(mine ?? [])].filter((f) => f in body).map((f) => [f, body[f]])) });
    else {
      // An update keeps the id; the fields it changes take the new values (or become unknown).
      const object = { ...rec.object };
      for (const f of c.fields ?? []) {
        if (pending.has(f)) {
          delete object[f];
          unknown.add(`${e.ref}.${f}`);
        } else object[f] = body[f];
      }
      after.set(e.ref, object);
    }
  }
  return entries.map((e) => out.get(e.ref)!);
}

/** One line on a change, for the plan and the refusal: what changes, why it cannot be updated, and what becomes of the old object. */
export function describe(c: Change, kind: Kind): string {
  if (c.action === 'create' || c.action === 'skip') return '';
  const what = `${(c.fields ?? []).join(', ')} changed${c.follows ? ` (follows ${c.follows.join(', ')})` : ''}`;
  if (c.action === 'update') return what;
  return `${what}; ${c.reason}; the old ${c.id}: ${fateOfOld(kind)}`;
}
