// A small validator for request bodies: closed objects (unknown fields are errors), typed
// fields, per-field errors with dotted paths. Business rules reuse src/shared/validate.ts.
import { CONTROL, DATE_TIME_PATTERN } from '../shared/patterns.js';
import { isoTablesLoaded } from '../shared/iso-3166.js';
import { normalEnum, strict } from '../shared/fields.js';
import { countryCheck, type Check } from '../shared/validate.js';
import { DECIMAL_RE, decimals, exponent } from './money.js';
import { ApiProblem, fieldName, validationProblem, type FieldProblem } from './problems.js';
import type { Json } from './types.js';

export type Rule = (value: unknown, path: string, errors: FieldProblem[]) => void;
export interface Field {
  rule: Rule;
  required?: boolean;
}
export type Shape = Record<string, Field>;

const DATE_TIME = new RegExp(DATE_TIME_PATTERN);

/** The number of code points of a string (a surrogate pair counts once). */
export function codePoints(v: string): number {
  let n = v.length;
  for (let i = 0; i < v.length - 1; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const err = (errors: FieldProblem[], field: string, code: string, message: string): void => void errors.push({ field, code, message });

export interface StrOpts {
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** Message when the pattern fails. */
  hint?: string;
  oneOf?: readonly string[];
  check?: Check;
  /** Allow control characters (never for names). */
  multiline?: boolean;
}

export function str(o: StrOpts = {}): Rule {
  const min = o.min ?? 1;
  const max = o.max ?? 200;
  return (v, path, errors) => {
    if (typeof v !== 'string') return err(errors, path, 'type', 'must be a string');
    if (v.length < min) return err(errors, path, 'invalid', min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
    // Characters as JSON Schema counts them (code points: an emoji is one, not two UTF-16 units).
    if (v.length > max && codePoints(v) > max) return err(errors, path, 'too_long', `must be at most ${max} characters`);
    if (!o.multiline && CONTROL.test(v)) return err(errors, path, 'invalid', 'must not contain control characters');
    // The CLI's enum check (src/shared/fields.ts), canonical form only: `usd` is "must be one of …; did you mean USD?".
    if (o.oneOf && !o.oneOf.includes(v))
      return err(errors, path, 'invalid', strict(normalEnum(v, o.oneOf), v, `must be one of ${o.oneOf.join(', ')}`) ?? '');
    if (o.pattern && !o.pattern.test(v)) return err(errors, path, 'invalid', o.hint ?? `must match ${o.pattern.source}`);
    const problem = o.check?.(v);
    if (problem) err(errors, path, 'invalid', problem);
  };
}

export const oneOf = (values: readonly string[]): Rule => str({ oneOf: values, max: 64 });

export const id = (prefix: string): Rule =>
  str({
    pattern: new RegExp(`^${prefix}[0-9a-z]{24}$`),
    max: 64,
    hint: `must be an id like ${prefix}… (${prefix} then 24 characters of 0-9a-z)`,
  });

/** The CLI's country check (src/shared/fields.ts): the alpha-2 code only, "did you mean US?" for `usa`. */
export const country: Rule = str({ max: 100, check: (v) => countryCheck(isoTablesLoaded())(v) });

/** A positive decimal string; the currency's precision is checked by `precision` once the currency is known. */
export const amount: Rule = (v, path, errors) => {
  if (typeof v !== 'string') return err(errors, path, 'type', 'must be a decimal string like "10.50" (not a JSON number)');
  if (!DECIMAL_RE.test(v))
    return err(errors, path, 'invalid', 'must be a decimal string like "10.50" (digits, optional decimal point, no sign)');
  if (/^0(\.0+)?$/.test(v)) err(errors, path, 'invalid', 'must be greater than zero');
};

/**
 * Checks an already well-formed amount against its currency's (or asset's) exponent; nothing to
 * say when the code is not one of `among` (its own rule reports that).
 */
export function precision(errors: FieldProblem[], path: string, value: unknown, code: unknown, among: readonly string[]): void {
  if (typeof value !== 'string' || typeof code !== 'string' || !among.includes(code) || !DECIMAL_RE.test(value)) return;
  if (errors.some((e) => e.field === path)) return;
  const exp = exponent(code);
  if (decimals(value) > exp) err(errors, path, 'invalid', `${code} allows ${exp === 0 ? 'no decimals' : `at most ${exp} decimal places`}`);
}

/**
 * RFC 3339 date-time (`T` and `Z` in either case, RFC 3339 §5.6) on a real date from 1800 on:
 * the contract's DATE_TIME_PATTERN (src/shared/patterns.ts).
 */
export const dateTime: Rule = str({
  max: 40,
  check: (v) => {
    if (!/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/.test(v))
      return 'must be an RFC 3339 time like 2026-01-31T12:00:00Z';
    if (Number(v.slice(0, 4)) < 1800) return 'must be 1800-01-01 or later';
    return DATE_TIME.test(v) ? undefined : 'must be a real time (a real date, hours 00-23, minutes and seconds 00-59, offset up to ±23:59)';
  },
});

export function object(shape: Shape): Rule {
  return (v, path, errors) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return err(errors, path, 'type', 'must be an object');
    check(v as Json, shape, errors, `${path}.`);
  };
}

const entriesOf = new WeakMap<Shape, Array<[string, Field]>>();

/** Validates a body against a closed shape; returns the errors. */
export function check(body: Json, shape: Shape, errors: FieldProblem[] = [], prefix = ''): FieldProblem[] {
  let entries = entriesOf.get(shape);
  if (!entries) entriesOf.set(shape, (entries = Object.entries(shape)));
  let known = 0;
  for (const [name, field] of entries) {
    const v = body[name];
    if (v === undefined) {
      if (field.required) err(errors, prefix + name, 'required', 'is required');
      continue;
    }
    known++;
    field.rule(v, prefix + name, errors);
  }
  const names = Object.keys(body);
  if (known !== names.length) {
    for (const name of names)
      if (!Object.hasOwn(shape, name)) err(errors, prefix + fieldName(name), 'unknown_field', 'is not a known field');
  }
  return errors;
}

/** Field errors listed in one answer at most (a body of 100,000 unknown fields must not answer, and store, megabytes). */
export const MAX_FIELD_ERRORS = 100;

/** Throws a 422 validation_error when there are errors (the first MAX_FIELD_ERRORS listed). */
export function orThrow(errors: FieldProblem[]): void {
  if (errors.length > MAX_FIELD_ERRORS) {
    throw new ApiProblem(
      422,
      'validation_error',
      `${errors.length} fields are invalid (the first ${MAX_FIELD_ERRORS} are listed)`,
      errors.slice(0, MAX_FIELD_ERRORS),
    );
  }
  if (errors.length > 0) throw validationProblem(errors);
}

export const req = (rule: Rule): Field => ({ rule, required: true });
export const opt = (rule: Rule): Field => ({ rule });

/** Actions take no body (an empty object is fine). */
export function emptyBody(body: Json): void {
  orThrow(check(body, {}));
}
