// From flags to request parts, checked before anything is sent: the path (positional and
// `pathParam` flags), the query (list filters), the body (--data under the flags). Every value
// goes through the checker of its FlagKind; a bad one, or a --data value of the wrong JSON type,
// is a UsageError (exit 2). Bodies are built with the safe setter of src/lib/safe-json.ts.
import type { Query } from '../api/client.js';
import { escapeText } from '../io/escape.js';
import { getPath } from '../io/fields.js';
import type { Factory } from '../cmdutil/factory.js';
import { UsageError } from '../lib/errors.js';
import { setPath } from '../lib/safe-json.js';
import {
  checkBirthDate,
  countryCheck,
  checkCurrency,
  canonicalTime,
  checkDateOrTime,
  checkEmail,
  checkId,
  checkInt,
  checkNonEmpty,
  checkPhone,
  checkState,
  checkTimeBound,
  checkUrl,
  parseAmount,
  timeBoundValue,
  type Check,
} from '../shared/validate.js';
import {
  normalCountry,
  normalCurrency,
  normalDate,
  normalEmail,
  normalEnum,
  normalId,
  normalPhone,
  normalState,
  type Normal,
} from '../shared/fields.js';
import { isoTablesLoaded, loadIsoTables, type IsoTables } from '../shared/iso-3166.js';
import { readData } from './data.js';
import { camel, type FlagSpec, type VerbSpec } from '../cmdutil/spec.js';
import { asText } from '../lib/text.js';

type Scalar = string | number | boolean;

export function longFlag(flag: FlagSpec): string {
  return /--[a-z0-9-]+/.exec(flag.flags)?.[0] ?? flag.flags;
}

/** A value the user gave, quoted in a message: cut to 60 characters and escaped (src/io/escape.ts). */
export function printable(s: string): string {
  return escapeText(s.length > 60 ? `${s.slice(0, 60)}…` : s);
}

export function checkIdempotencyKey(key: string): void {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new UsageError('--idempotency-key must be 1 to 255 printable ASCII characters without spaces');
  }
}

/** The positional argument, checked (an id of its prefix, or a plain token). */
export function checkArg(verb: VerbSpec, argValue: string | undefined): string | undefined {
  if (!verb.arg) return undefined;
  const label = verb.arg.name.replace(/[<>[\]]/g, '');
  if (argValue === undefined) throw new UsageError(`missing argument ${verb.arg.name}`);
  if (verb.arg.idPrefix) {
    const problem = checkId(verb.arg.idPrefix)(argValue);
    if (problem) throw new UsageError(`${label} "${printable(argValue)}" ${problem}`);
  } else if (!/^[A-Za-z0-9_-]{1,64}$/.test(argValue)) {
    throw new UsageError(`invalid ${label} "${printable(argValue)}"`);
  }
  return argValue;
}

/**
 * Fills the path: flags with `pathParam` fill their parameter; the positional fills the first
 * parameter left (unless it goes in the body, `arg.field`).
 */
export function fillPath(verb: VerbSpec, argValue: string | undefined, opts: Record<string, unknown> = {}): string {
  let path = verb.path;
  for (const flag of verb.flags ?? []) {
    if (!flag.pathParam) continue;
    const raw = opts[camel(flag.flags)];
    if (raw === undefined) throw new UsageError(`missing required flag ${longFlag(flag)}`);
    path = path.replace(`{${flag.pathParam}}`, encodeURIComponent(String(convert(flag, raw, opts))));
  }
  const arg = checkArg(verb, argValue);
  if (arg !== undefined && !verb.arg?.field) path = path.replace(/\{[^}]+\}/, encodeURIComponent(arg));
  if (/\{[^}]+\}/.test(path)) throw new UsageError(`internal: path ${verb.path} has an unfilled parameter`);
  return path;
}

export function buildListQuery(
  verb: VerbSpec,
  opts: Record<string, unknown>,
  paging = true,
): { query: Query; limit: number | undefined; all: boolean } {
  const query: Query = {};
  // Two names of one filter (transactions: --from and --since) may not both be given.
  const givenBy = new Map<string, string>();
  for (const flag of verb.flags ?? []) {
    if (!flag.query) continue;
    const raw = opts[camel(flag.flags)];
    if (raw === undefined) continue;
    const other = givenBy.get(flag.query);
    if (other !== undefined) throw new UsageError(`${other} and ${longFlag(flag)} are the same filter: pass one of them`);
    givenBy.set(flag.query, longFlag(flag));
    query[flag.query] = convert(flag, raw, opts);
  }
  let limit: number | undefined;
  if (paging && opts.limit !== undefined) {
    const problem = checkInt(1, 1000)(asText(opts.limit));
    if (problem) throw new UsageError(`--limit ${problem}`);
    limit = Number(opts.limit);
  }
  return { query, limit, all: Boolean(opts.all) };
}

/** --data first, then every field flag over it, then the positional when it is a body field. */
export async function buildBody(
  f: Factory,
  verb: VerbSpec,
  opts: Record<string, unknown>,
  argValue?: string,
): Promise<Record<string, unknown>> {
  const body = typeof opts.data === 'string' ? await readData(opts.data, f.io) : {};
  if (typeof opts.data === 'string' || placesGiven(verb, opts)) await loadTablesFor(verb);
  return fillBody(verb, opts, body, argValue);
}

/** A country or state flag of the verb was given. */
function placesGiven(verb: VerbSpec, opts: Record<string, unknown>): boolean {
  return (verb.flags ?? []).some((fl) => (fl.kind === 'state' || fl.kind === 'country') && opts[camel(fl.flags)] !== undefined);
}

/**
 * Loads the ISO 3166 tables when the verb takes a country or a state: fillBody checks states
 * against them, and finds countries by name ("United States") in them.
 */
export async function loadTablesFor(verb: VerbSpec): Promise<void> {
  if ((verb.flags ?? []).some((fl) => fl.kind === 'state' || fl.kind === 'country')) await loadIsoTables();
}

/** The tables a state check needs: loaded before (buildBody, bulk, the prompts), or a bug. */
function tablesNow(): IsoTables {
  const tables = isoTablesLoaded();
  if (!tables) throw new Error('internal: ISO 3166 tables not loaded before a state was checked (loadTablesFor)');
  return tables;
}

/**
 * buildBody after --data is read: `body` is the parsed --data object (or {}); the flags go over
 * it, then defaults, then every --data value is checked. Mutates and returns `body`.
 */
export function fillBody(
  verb: VerbSpec,
  opts: Record<string, unknown>,
  body: Record<string, unknown>,
  argValue?: string,
): Record<string, unknown> {
  for (const flag of verb.flags ?? []) {
    if (!flag.field) continue;
    const raw = opts[camel(flag.flags)];
    if (raw === undefined) continue;
    setPath(body, flag.field, convert(flag, raw, opts, body));
  }
  if (verb.arg?.field && argValue !== undefined) setPath(body, verb.arg.field, checkArg(verb, argValue));
  for (const flag of verb.flags ?? []) {
    if (verb.kind !== 'update' && flag.field && flag.default !== undefined && getPath(body, flag.field) === undefined) {
      setPath(body, flag.field, convert(flag, flag.default, opts, body));
    }
  }
  // Values that came through --data are checked with the same rules as flags, and their JSON type
  // first: a field's value is a string (a JSON null too for an update), its parents are objects.
  for (const flag of verb.flags ?? []) {
    if (!flag.field || opts[camel(flag.flags)] !== undefined) continue;
    const value = dataValue(body, flag.field);
    if (value === undefined || (value === null && verb.kind === 'update')) continue;
    const checked = bodyValue(flag, value, body);
    if (checked.problem) throw new UsageError(`--data: ${flag.field}${checked.problem}`);
    // As a flag would send it: `usa` → `US`, `+1 415 555 0199` → `+14155550199`.
    if (checked.value !== value) setPath(body, flag.field, checked.value);
  }
  return body;
}

/**
 * The fields of `body` the verb has flags for, each checked and normalised as --data is (no
 * defaults, nothing required): the seed plan's field check. Every problem, in flag order, as
 * `field problem`; the body's values are replaced by their canonical form (an amount's by itself).
 */
export function normaliseFields(verb: VerbSpec, body: Record<string, unknown>, skip: (value: unknown) => boolean = () => false): string[] {
  const problems: string[] = [];
  for (const flag of verb.flags ?? []) {
    if (!flag.field) continue;
    let value: unknown;
    try {
      value = dataValue(body, flag.field);
    } catch (err) {
      problems.push((err as Error).message.replace(/^--data: /, ''));
      continue;
    }
    if (value === undefined || skip(value) || (value === null && verb.kind === 'update')) continue;
    const checked = bodyValue(flag, value, body);
    if (checked.problem) problems.push(`${flag.field}${checked.problem}`);
    // An amount stays as written: the service takes 10 and 10.00 alike, and rewriting it would change
    // the entry's content (its Idempotency-Key) and make the plan see an edit of what was applied.
    else if (checked.value !== value && flag.kind !== 'amount' && flag.kind !== 'decimal') setPath(body, flag.field, checked.value);
  }
  return problems;
}

/**
 * What is wrong with a body field's value given as JSON (--data, or `pay trigger --override`): its
 * JSON type, then the flag's own check (an amount against the currency beside it in `body`, a state
 * against its country). Undefined when it is fine; else the message after the field's name
 * (": …" or " must …").
 */
export function bodyValueProblem(flag: FlagSpec, value: unknown, body: Record<string, unknown>): string | undefined {
  return bodyValue(flag, value, body).problem;
}

/** bodyValueProblem, and the value as a flag would send it (normalised by its field kind) when it is fine. */
export function bodyValue(flag: FlagSpec, value: unknown, body: Record<string, unknown>): { problem?: string; value?: unknown } {
  if (flag.kind === 'bool') return typeof value === 'boolean' ? { value } : { problem: ` must be true or false, not ${jsonType(value)}` };
  const text = flag.kind === 'int' && typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') {
    const like = flag.kind === 'amount' || flag.kind === 'decimal' ? 'a decimal string such as "10.50"' : 'a string';
    return { problem: ` must be ${like}, not ${jsonType(value)}` };
  }
  if (flag.kind === 'amount' || flag.kind === 'decimal') {
    const currency = flag.kind === 'amount' ? getPath(body, flag.currencyField ?? siblingField(flag.field ?? '', 'currency')) : undefined;
    if (typeof currency === 'string') {
      const code = normalCurrency(currency).value;
      const n = parseAmount(text, code ?? currency.toUpperCase());
      return n.error ? { problem: `: ${n.error}` } : { value: n.value };
    }
    const problem = checkDecimal(text);
    return problem ? { problem: `: ${problem}` } : { value };
  }
  const normal = normalFor(flag, text, body);
  if (normal) return normal.error !== undefined ? { problem: ` ${normal.error}` } : { value: normal.value };
  const problem = checkerFor(flag, body)?.(text);
  return problem ? { problem: ` ${problem}` } : { value };
}

/**
 * The field kinds people type loosely, normalised by the one validator of their kind
 * (src/shared/fields.ts): what flags, prompts, --data, bulk rows and seed entries all go through.
 * Undefined for a kind checked as it stands (checkerFor).
 */
export function normalFor(flag: FlagSpec, text: string, body?: Record<string, unknown>): Normal | undefined {
  switch (flag.kind) {
    case 'email':
      return normalEmail(text);
    case 'phone':
      return normalPhone(text);
    case 'date':
      return normalDate(text, () => new Date().toISOString().slice(0, 10));
    case 'country':
      return normalCountry(text, isoTablesLoaded());
    case 'state':
      return normalState(text, countryOf(flag, body), tablesNow());
    case 'currency':
      return normalCurrency(text, flag.choices);
    case 'id':
      return flag.idPrefix ? normalId(text, flag.idPrefix) : undefined;
    case 'enum':
      return flag.choices ? normalEnum(text, flag.choices, flag.open ?? false) : undefined;
    default:
      return undefined;
  }
}

export function requireFields(verb: VerbSpec, body: Record<string, unknown>): void {
  const missing = (verb.flags ?? []).filter((fl) => fl.required && fl.field && getPath(body, fl.field) === undefined);
  if (missing.length > 0) {
    throw new UsageError(`missing required ${missing.length === 1 ? 'flag' : 'flags'}: ${missing.map((m) => longFlag(m)).join(', ')}`);
  }
}

/** The one setter for dotted paths (flags, -F, prompts): it refuses forbidden keys and follows own properties only. */
export { setPath };

/**
 * The value at a dotted field of a --data body (undefined when absent); a parent that is there but
 * is not an object (`"address": "x"` for address.city) is a usage error naming it.
 */
function dataValue(body: Record<string, unknown>, field: string): unknown {
  let cur: unknown = body;
  let at = '';
  for (const part of field.split('.')) {
    if (cur === undefined) return undefined;
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur))
      throw new UsageError(`--data: ${at} must be an object, not ${jsonType(cur)}`);
    cur = Object.hasOwn(cur, part) ? (cur as Record<string, unknown>)[part] : undefined;
    at = at ? `${at}.${part}` : part;
  }
  return cur;
}

/** "a JSON number", "a JSON array", … for messages. */
function jsonType(v: unknown): string {
  if (v === null) return 'a JSON null';
  if (Array.isArray(v)) return 'a JSON array';
  return typeof v === 'object' ? 'a JSON object' : `a JSON ${typeof v}`;
}

/** RFC 3339 date-time with a zone. */
export const checkTimestamp: Check = (v) =>
  /^\d{4}-\d{2}-\d{2}[Tt]/.test(v) && !checkDateOrTime(v) ? undefined : 'must be an RFC 3339 time such as 2026-01-31T12:00:00Z';

/** A positive decimal string within the API's amount pattern (up to 18 decimals). */
export const checkDecimal: Check = (v) => {
  if (!/^(0|[1-9][0-9]{0,14})(\.[0-9]{1,18})?$/.test(v)) return 'must be a positive decimal such as 250.00 (no sign, no exponent)';
  return /^[0.]+$/.test(v) ? 'must be greater than zero' : undefined;
};

export function checkerFor(flag: FlagSpec, body?: Record<string, unknown>): Check | undefined {
  switch (flag.kind) {
    case 'email':
      return checkEmail;
    case 'phone':
      return checkPhone;
    case 'date':
      return checkBirthDate();
    case 'datetime':
      return checkTimeBound;
    case 'timestamp':
      return checkTimestamp;
    case 'country':
      return countryCheck(isoTablesLoaded());
    case 'state':
      return checkState(countryOf(flag, body), tablesNow());
    case 'currency':
      return flag.choices ? oneOf(flag.choices) : checkCurrency;
    case 'id':
      return flag.idPrefix ? checkId(flag.idPrefix) : undefined;
    case 'url':
      return checkUrl;
    case 'int':
      return checkInt(0, 1_000_000_000);
    case 'decimal':
      return checkDecimal;
    case 'enum':
      return flag.choices && !flag.open ? oneOf(flag.choices) : checkNonEmpty();
    case 'amount':
    case 'bool':
      return undefined;
    default:
      return checkNonEmpty(500);
  }
}

function oneOf(choices: readonly string[]): Check {
  return (v) => (choices.includes(v) ? undefined : `must be one of ${choices.join(', ')}`);
}

/** The country beside a state field in the body being built (`address.country` for `address.state`), as its code (`usa` → `US`). */
function countryOf(flag: FlagSpec, body: Record<string, unknown> | undefined): string | undefined {
  const country = body ? getPath(body, siblingField(flag.field ?? '', 'country')) : undefined;
  return typeof country === 'string' ? (normalCountry(country, isoTablesLoaded()).value ?? country) : undefined;
}

function siblingField(field: string, name: string): string {
  const i = field.lastIndexOf('.');
  return i < 0 ? name : `${field.slice(0, i)}.${name}`;
}

/** One flag value, checked and normalised (codes upper-cased, amounts canonical, ints numbers). */
export function convert(flag: FlagSpec, raw: unknown, opts: Record<string, unknown>, body?: Record<string, unknown>): Scalar {
  if (flag.kind === 'bool' || typeof raw === 'boolean') return Boolean(raw);
  if (flag.list) {
    const items = String(raw)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0) throw new UsageError(`${longFlag(flag)} needs at least one value`);
    return items.map((item) => convertOne(flag, item, opts, body)).join(',');
  }
  return convertOne(flag, String(raw), opts, body);
}

function convertOne(flag: FlagSpec, raw: string, opts: Record<string, unknown>, body?: Record<string, unknown>): Scalar {
  // An id is taken exactly as typed, as an id argument is: trimming would quietly turn
  // "acc_…\u2028" or "acc_… " into a valid id and send it.
  const value = flag.kind === 'id' ? raw : raw.trim();
  const name = longFlag(flag);
  if (flag.kind === 'amount') {
    const fromFlag = opts[flag.currencyFrom ?? 'currency'];
    const fromBody = body ? getPath(body, flag.currencyField ?? siblingField(flag.field ?? '', 'currency')) : undefined;
    const currency = asText(fromFlag ?? fromBody)
      .trim()
      .toUpperCase();
    const currencyFlag = `--${(flag.currencyFrom ?? 'currency').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (!currency) throw new UsageError(`${name} needs a currency (${currencyFlag})`);
    const bad = checkCurrency(currency);
    if (bad)
      throw new UsageError(
        `${fromFlag !== undefined ? currencyFlag : `--data ${flag.currencyField ?? 'currency'}`} "${printable(currency)}" ${bad}`,
      );
    const parsed = parseAmount(value, currency);
    if (parsed.error) throw new UsageError(`${name}: ${parsed.error}`);
    return parsed.value!;
  }
  const normal = normalFor(flag, value, body);
  if (normal) {
    if (normal.error !== undefined) throw new UsageError(`${name} "${printable(value)}" ${normal.error}`);
    return normal.value;
  }
  const problem = checkerFor(flag, body)?.(value);
  if (problem) throw new UsageError(`${name} "${printable(value)}" ${problem}`);
  if (flag.kind === 'int') return Number(value);
  if (flag.kind === 'datetime') return timeBoundValue(value);
  if (flag.kind === 'timestamp') return canonicalTime(value);
  return value;
}
