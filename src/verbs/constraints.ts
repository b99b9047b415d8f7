// Cross-field checks declared by a verb (VerbSpec.constraints), run on the merged body or the
// query before anything is sent; and the way back: an API field error names the flag to fix.
import { getPath } from '../io/fields.js';
import { PayError, UsageError } from '../lib/errors.js';
import type { Constraint, VerbSpec } from '../cmdutil/spec.js';
import { longFlag } from './values.js';

/** The flag that sets a body field or query parameter of this verb (or the positional), if any. */
export function flagFor(verb: VerbSpec, name: string, where: 'body' | 'query' = 'body'): string | undefined {
  const flag = (verb.flags ?? []).find((f) => (where === 'body' ? f.field : f.query) === name || f.pathParam === name);
  if (flag) return longFlag(flag);
  if (verb.arg && (verb.arg.field === name || (where === 'query' && !verb.arg.field && verb.path.includes(`{${name}}`)))) {
    return verb.arg.name;
  }
  // A list's page size: every list verb has --limit (src/cmdutil/registry.ts).
  if (where === 'query' && verb.kind === 'list' && name === 'limit') return '--limit';
  return undefined;
}

function present(values: Record<string, unknown>, name: string): boolean {
  const v = getPath(values, name);
  return v !== undefined && v !== null && v !== '';
}

/** Epoch ms of YYYY-MM-DD (UTC midnight) or an RFC 3339 time. */
function instant(v: unknown): number {
  const s = String(v);
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
}

export function checkConstraints(verb: VerbSpec, values: Record<string, unknown>, where: 'body' | 'query' = 'body'): void {
  const name = (field: string) => flagFor(verb, field, where) ?? (where === 'body' ? `--data ${field}` : field);
  const list = (fields: readonly string[]) => fields.map(name).join(', ');
  for (const c of verb.constraints ?? []) {
    const problem = violation(c, values, name, list);
    if (problem) throw new UsageError(problem);
  }
}

function violation(
  c: Constraint,
  values: Record<string, unknown>,
  name: (field: string) => string,
  list: (fields: readonly string[]) => string,
): string | undefined {
  switch (c.kind) {
    case 'exactlyOne': {
      const given = c.fields.filter((f) => present(values, f));
      if (given.length === 1) return undefined;
      return given.length === 0 ? `pass one of ${list(c.fields)}` : `pass only one of ${list(c.fields)} (got ${list(given)})`;
    }
    case 'together': {
      const given = c.fields.filter((f) => present(values, f));
      if (given.length === 0 || given.length === c.fields.length) return undefined;
      return `${list(given)} also ${given.length === 1 ? 'needs' : 'need'} ${list(c.fields.filter((f) => !given.includes(f)))}`;
    }
    case 'requiredWhen': {
      const v = getPath(values, c.field);
      if (typeof v !== 'string' || !c.values.includes(v)) return undefined;
      const missing = c.require.filter((f) => !present(values, f));
      return missing.length ? `${name(c.field)} ${v} needs ${list(missing)}` : undefined;
    }
    case 'pairs': {
      const a = getPath(values, c.field);
      const b = getPath(values, c.other);
      if (typeof a !== 'string' || typeof b !== 'string') return undefined;
      const allowed = c.allowed[a];
      if (!allowed || allowed.includes(b)) return undefined;
      return `${name(c.field)} ${a} is not available on ${name(c.other)} ${b} (${a} works on ${allowed.join(', ')})`;
    }
    case 'whole': {
      const value = getPath(values, c.object);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      const missing = c.require.filter((f) => !present(values, f));
      if (missing.length === 0) return undefined;
      const given = Object.keys(value)
        .map((k) => `${c.object}.${k}`)
        .filter((f) => present(values, f));
      const what = given.length > 0 ? list(given) : name(c.object);
      return `${what} also ${given.length === 1 ? 'needs' : 'need'} ${list(missing)} (the ${c.object.replace(/_/g, ' ')} is sent whole)`;
    }
    case 'differ': {
      const [a, b] = c.fields;
      if (!present(values, a) || getPath(values, a) !== getPath(values, b)) return undefined;
      return `${name(a)} and ${name(b)} must differ (both are ${String(getPath(values, a))})`;
    }
    case 'before': {
      if (!present(values, c.from) || !present(values, c.to)) return undefined;
      const [from, to] = [instant(getPath(values, c.from)), instant(getPath(values, c.to))];
      return from < to ? undefined : `${name(c.from)} must be before ${name(c.to)}`;
    }
  }
}

/**
 * Names, in each field error of an API answer, the flag of this verb that sets the field
 * (`source_account_id` → `--from`); fields no flag sets point at --data on verbs with a body.
 */
export function attachFlags(err: unknown, verb: VerbSpec, where: 'body' | 'query'): void {
  if (!(err instanceof PayError)) return;
  for (const fe of err.fieldErrors) {
    if (fe.flag) continue;
    const flag = flagFor(verb, fe.field, where) ?? flagFor(verb, fe.field, where === 'body' ? 'query' : 'body');
    if (flag) fe.flag = flag;
    else if (verb.body && where === 'body') fe.flag = '--data';
  }
}
