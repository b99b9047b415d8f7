// The seed file: YAML or JSON, kinds in a fixed order, entries by name, references between them
// (`${customers.alice.id}`) and to the environment (`${env.NAME}`). Its keys and shape are checked
// by src/lib/safe-json.ts (no __proto__/constructor/prototype, no key too long, not too deep), a
// YAML key must be a scalar and every value plain JSON: a usage error naming the file and the place.
import { readUserFile } from '../lib/read-limited.js';
import { UsageError } from '../lib/errors.js';
import { checkShape, keyProblem, MAX_DEPTH, parseJson } from '../lib/safe-json.js';
import { confirmClassOf } from '../shared/confirm.js';
import { FEATURE_KEYS } from '../shared/rules.js';
import { addRuleDeps } from './rules.js';

/**
 * Kinds a seed file may hold, with the operation that creates each, in a sensible order. A KYC
 * entry (`{customer_id, level?, documents?: [{type, country, number?, file_name?}]}`) starts a
 * verification and submits its documents; a features entry (`{customer_id, feature}`) activates a
 * feature: their paths name the customer (src/seed/steps.ts and verify.ts build them).
 */
export const KINDS = {
  customers: { path: 'customers' },
  kyc: { path: 'customers/{customer_id}/kyc' },
  features: { path: 'customers/{customer_id}/features/{feature}/activate' },
  accounts: { path: 'accounts' },
  external_accounts: { path: 'external-accounts' },
  collections: { path: 'collections', operationId: 'createCollection' },
  cards: { path: 'cards' },
  wallets: { path: 'wallets' },
  payment_links: { path: 'payment-links' },
  transfers: { path: 'transfers', operationId: 'createTransfer' },
  fx_trades: { path: 'fx/trades', operationId: 'createFxTrade' },
} as const;
export type Kind = keyof typeof KINDS;

/**
 * Money movements: the kinds whose create operation the one table (src/shared/confirm.ts) says moves
 * money. Nothing undoes them: a live apply asks about them first, and one recorded as done is never
 * made again unasked.
 */
export const MONEY_KINDS: ReadonlySet<Kind> = new Set(
  (Object.keys(KINDS) as Kind[]).filter((k) => {
    const def = KINDS[k];
    return 'operationId' in def && confirmClassOf(def.operationId) === 'moves money';
  }),
);

export interface Entry {
  kind: Kind;
  name: string;
  /** `kind.name`: how other entries and the output refer to it. */
  ref: string;
  /** The body as written (references unresolved). */
  body: Record<string, unknown>;
  /** Other entries this one waits for: its references, plus `depends_on`. */
  deps: string[];
}

/** A seed file describes test data by hand: 16 MiB is far more than any; /dev/zero is refused. */
const MAX_SEED_BYTES = 16 << 20;

/** A reference: `${kind.name}`, `${kind.name.field.path}` or `${env.NAME}`. */
export const REF = /\$\{([a-z_]+)\.([A-Za-z0-9_-]+)(?:\.([A-Za-z0-9_.]+))?\}/g;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** A value that is exactly one reference (its value is known only when the entry is made). */
const REF_ONLY = /^\$\{[a-z_]+\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_.]+)?\}$/;

/** The kind of an entry from its ref (`<kind>.<name>`). */
export const kindOfRef = (ref: string): Kind => ref.slice(0, ref.indexOf('.')) as Kind;

export async function loadSeedFile(path: string): Promise<Entry[]> {
  const read = await readUserFile(path, MAX_SEED_BYTES, {
    tooLarge: `seed file ${path} is larger than 16 MiB; split it into several files`,
    unreadable: (p) => `cannot read seed file ${path} (${p})`,
  });
  const text = read.toString('utf8').replace(/^\uFEFF/, '');
  const doc = /\.json$/i.test(path) ? parseJson(text, path) : await parseYaml(text, path);
  return parseSeed(doc, path);
}

/**
 * YAML text → plain JSON values, or a UsageError naming the file and the line: a syntax error, an
 * unknown tag (`!!js/function`, whose text would be sent as a string), a key that is a list or a
 * mapping, nesting too deep for the parser (a stack overflow inside it) or for checkShape.
 */
async function parseYaml(text: string, path: string): Promise<unknown> {
  const { isCollection, LineCounter, parseDocument, visit } = await import('yaml');
  const lines = new LineCounter();
  const at = (offset: number | undefined): string => {
    if (offset === undefined) return '';
    const pos = lines.linePos(offset);
    return ` (line ${pos.line}, column ${pos.col})`;
  };
  const tooDeep = (offset: number | undefined) => new UsageError(`${path}: nested deeper than ${MAX_DEPTH} levels${at(offset)}`);
  try {
    const doc = parseDocument(text, { lineCounter: lines, logLevel: 'silent', uniqueKeys: true });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem && /Maximum call stack/.test(problem.message)) throw tooDeep(problem.pos[0]);
    if (problem) throw new UsageError(`${path} is not valid YAML: ${problem.message.split('\n')[0]}`);
    visit(doc, {
      Pair(_key, pair) {
        if (isCollection(pair.key))
          throw new UsageError(`${path}: a key that is a list or a mapping${at(pair.key.range?.[0])}; keys are names`);
      },
    });
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (err instanceof RangeError || /Maximum call stack/.test((err as Error).message)) throw tooDeep(undefined);
    throw new UsageError(`${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

export function parseSeed(doc: unknown, where = 'seed file'): Entry[] {
  if (!isObject(doc)) throw new UsageError(`${where}: the top level must be a mapping of kinds (${Object.keys(KINDS).join(', ')})`);
  // Keys, depth, and values that are not plain JSON (a YAML !!binary, an alias cycle): before anything else reads it.
  checkShape(doc, where);
  const entries: Entry[] = [];
  for (const [kind, group] of Object.entries(doc)) {
    if (kind === 'version') continue;
    if (!Object.hasOwn(KINDS, kind)) throw new UsageError(`${where}: unknown kind "${kind}" (known: ${Object.keys(KINDS).join(', ')})`);
    if (!isObject(group)) throw new UsageError(`${where}: ${kind} must be a mapping of names to objects`);
    for (const [name, raw] of Object.entries(group)) {
      if (!NAME.test(name)) throw new UsageError(`${where}: ${kind}.${name}: names are 1-64 letters, digits, "-" or "_"`);
      if (!isObject(raw)) throw new UsageError(`${where}: ${kind}.${name} must be an object`);
      const { depends_on: dependsOn, ...body } = raw;
      const deps = new Set<string>();
      for (const m of JSON.stringify(body).matchAll(REF)) {
        // A reference names keys too (`${customers.alice.address.city}`): the same rule as the file's own.
        const bad = [m[2]!, ...(m[3]?.split('.') ?? [])].find((k) => keyProblem(k));
        if (bad !== undefined) throw new UsageError(`${where}: ${kind}.${name}: reference ${m[0]}: ${keyProblem(bad)}`);
        if (m[1] !== 'env') deps.add(`${m[1]}.${m[2]}`);
      }
      if (dependsOn !== undefined) {
        if (!Array.isArray(dependsOn) || !dependsOn.every((d) => typeof d === 'string')) {
          throw new UsageError(`${where}: ${kind}.${name}.depends_on must be a list like [collections.fund_alice]`);
        }
        for (const d of dependsOn) deps.add(d);
      }
      entries.push({ kind: kind as Kind, name, ref: `${kind}.${name}`, body, deps: [...deps] });
    }
  }
  const refs = new Set(entries.map((e) => e.ref));
  for (const e of entries) {
    for (const d of e.deps) if (!refs.has(d)) throw new UsageError(`${where}: ${e.ref} refers to ${d}, which the file does not define`);
    checkBody(e, where);
  }
  // What the business rules need first (KYC approved, a feature active), from the file's own references.
  addRuleDeps(entries);
  checkAcyclic(entries, where);
  return entries;
}

/** The shape of the kinds whose fields make a path (KYC, features): checked before anything is sent. */
function checkBody(e: Entry, where: string): void {
  const bad = (why: string) => new UsageError(`${where}: ${e.ref}: ${why}`);
  if (e.kind !== 'kyc' && e.kind !== 'features') return;
  if (typeof e.body.customer_id !== 'string') throw bad('customer_id is required (e.g. "${customers.alice.id}")');
  if (e.kind === 'features') {
    const extra = Object.keys(e.body).filter((k) => k !== 'customer_id' && k !== 'feature');
    if (extra.length > 0) throw bad(`a features entry takes customer_id and feature only, not ${extra.join(', ')}`);
    const f = e.body.feature;
    if (typeof f !== 'string' || (!(FEATURE_KEYS as readonly string[]).includes(f) && !REF_ONLY.test(f)))
      throw bad(`feature must be one of ${FEATURE_KEYS.join(', ')}`);
    return;
  }
  const docs = e.body.documents;
  if (docs !== undefined && (!Array.isArray(docs) || !docs.every(isObject) || docs.length > 20))
    throw bad('documents must be a list of at most 20 documents like {type: passport, country: GB, number: "123456789"}');
}

function checkAcyclic(entries: Entry[], where: string): void {
  const byRef = new Map(entries.map((e) => [e.ref, e]));
  const state = new Map<string, 1 | 2>();
  const visit = (ref: string, trail: string[]): void => {
    if (state.get(ref) === 2) return;
    if (state.get(ref) === 1) throw new UsageError(`${where}: circular references: ${[...trail, ref].join(' -> ')}`);
    state.set(ref, 1);
    for (const d of byRef.get(ref)!.deps) visit(d, [...trail, ref]);
    state.set(ref, 2);
  };
  for (const e of entries) visit(e.ref, []);
}

/**
 * Replaces references in a body: `${kind.name}` and `${kind.name.id}` give the created id,
 * `${kind.name.field}` any field of the created object, `${env.NAME}` an environment variable.
 * A string that is exactly one reference takes the referenced value's type.
 */
export function resolve(
  body: unknown,
  created: ReadonlyMap<string, Record<string, unknown>>,
  env: NodeJS.ProcessEnv,
  ref: string,
): unknown {
  const lookup = (kind: string, name: string, field: string | undefined): unknown => {
    if (kind === 'env') {
      const v = env[name];
      if (v === undefined) throw new UsageError(`${ref}: environment variable ${name} is not set`);
      return v;
    }
    const obj = created.get(`${kind}.${name}`);
    if (!obj) throw new UsageError(`${ref}: ${kind}.${name} has not been created`);
    let cur: unknown = obj;
    for (const part of (field ?? 'id').split('.')) cur = isObject(cur) && Object.hasOwn(cur, part) ? cur[part] : undefined;
    if (cur === undefined) throw new UsageError(`${ref}: ${kind}.${name} has no field ${field}`);
    return cur;
  };
  if (typeof body === 'string') {
    const whole = /^\$\{([a-z_]+)\.([A-Za-z0-9_-]+)(?:\.([A-Za-z0-9_.]+))?\}$/.exec(body);
    if (whole) return lookup(whole[1]!, whole[2]!, whole[3]);
    return body.replace(REF, (_m, k: string, n: string, f: string | undefined) => String(lookup(k, n, f)));
  }
  if (Array.isArray(body)) return body.map((v) => resolve(v, created, env, ref));
  if (isObject(body)) return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, resolve(v, created, env, ref)]));
  return body;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON with sorted keys: the same content always gives the same text (and so the same key). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
