// `pay trigger --override object.field=value`: parsed and checked before anything is sent. The
// object must be one the event's recipe creates, the field one its create operation takes in the
// contract (nested fields by dotted path), every key a safe one (src/lib/safe-json.ts), and the
// value of the field's JSON type (a string as typed; numbers, booleans and objects parsed), inside
// the contract's enum or pattern where it has one. Anything else is exit 2 naming what is valid.
import { bodyField, fieldsOf, type LeafField } from '../../api/request-fields.js';
import { closeNames, didYouMean } from '../../lib/distance.js';
import { UsageError } from '../../lib/errors.js';
import { keyProblem, parseJson, setPath } from '../../lib/safe-json.js';
import { escapeText } from '../../io/escape.js';
import { OBJECT_OPERATIONS, recipeObjects, type ObjectName, type Recipe } from './recipes.js';

export interface Override {
  object: ObjectName;
  /** The field's path in the object's body (`address.city`). */
  path: string[];
  value: unknown;
}

/** The overrides per object. */
export type Overrides = ReadonlyMap<ObjectName, readonly Override[]>;

export const MAX_OVERRIDE_CHARS = 10_000;
const NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** A value quoted in a message: cut to 60 characters, escaped. */
function shown(s: string): string {
  return escapeText(s.length > 60 ? `${s.slice(0, 60)}…` : s);
}

/** Parses every --override for an event's recipe; a UsageError (exit 2) for the first bad one. */
export function parseOverrides(raws: readonly unknown[], eventType: string, recipe: Recipe): Overrides {
  const objects = recipeObjects(recipe);
  const out = new Map<ObjectName, Override[]>();
  const seen = new Set<string>();
  for (const raw of raws) {
    const o = parseOverride(typeof raw === 'string' ? raw : String(raw), eventType, objects);
    const key = `${o.object}.${o.path.join('.')}`;
    // One value per field, and no field inside another one also given (address=… and address.city=…).
    for (const s of seen) {
      if (s === key || s.startsWith(`${key}.`) || key.startsWith(`${s}.`))
        throw new UsageError(`--override ${key} is given more than once${s === key ? '' : ` (with ${s})`}`);
    }
    seen.add(key);
    const list = out.get(o.object) ?? [];
    list.push(o);
    out.set(o.object, list);
  }
  return out;
}

export function parseOverride(raw: string, eventType: string, objects: readonly ObjectName[]): Override {
  if (raw.length > MAX_OVERRIDE_CHARS)
    throw new UsageError(`--override: a value of ${raw.length} characters (at most ${MAX_OVERRIDE_CHARS})`);
  const eq = raw.indexOf('=');
  if (eq < 0) {
    throw new UsageError(`--override "${shown(raw)}" needs the form object.field=value`, {
      hint: `e.g. --override transfer.amount=5.13; pay trigger ${eventType} creates: ${objects.join(', ')}`,
    });
  }
  const pathText = raw.slice(0, eq);
  const text = raw.slice(eq + 1);
  const parts = pathText.split('.');
  for (const p of parts) {
    const problem = keyProblem(p);
    if (problem) throw new UsageError(`--override ${shown(pathText)}: ${problem}`);
    if (!NAME.test(p)) {
      throw new UsageError(
        `--override "${shown(pathText)}": ${p === '' ? 'an empty name' : `"${shown(p)}" is not a field name`} (names are lower-case snake_case, joined by dots: customer.address.city)`,
      );
    }
  }
  const [object, ...path] = parts as [string, ...string[]];
  // One condition, one error: whether pay trigger never creates such an object or this event type does not.
  if (!(objects as readonly string[]).includes(object)) {
    const guess = didYouMean(closeNames(object, objects));
    throw new UsageError(`--override: pay trigger ${eventType} creates no ${shown(object)} (it creates: ${objects.join(', ')})`, {
      ...(guess ? { hint: guess } : {}),
    });
  }
  const name = object as ObjectName;
  if (path.length === 0) {
    throw new UsageError(
      `--override ${name} needs a field: ${name}.<field>=value (fields: ${fieldsOf(OBJECT_OPERATIONS[name]).join(', ')})`,
    );
  }
  const found = bodyField(OBJECT_OPERATIONS[name], path);
  if (!found.ok) {
    const where = found.at ? `${name}.${found.at}` : name;
    if (found.valid.length === 0) throw new UsageError(`--override ${shown(pathText)}: ${where} is a value, not an object with fields`);
    const guess = didYouMean(closeNames(found.name, found.valid).map((name) => `${where}.${name}`));
    throw new UsageError(
      `--override ${shown(pathText)}: ${where} has no field "${shown(found.name)}" (fields: ${found.valid.join(', ')})`,
      {
        ...(guess ? { hint: guess } : {}),
      },
    );
  }
  // An id names an object that exists: pay trigger uses only what it creates itself (its help says
  // so), and a live question built from new objects would not name the existing one it touches.
  const leaf = path[path.length - 1]!;
  if (leaf === 'id' || leaf.endsWith('_id')) {
    throw new UsageError(
      `--override ${name}.${path.join('.')}: pay trigger uses only the objects it creates, never an existing one, so an id cannot be overridden`,
      {
        hint: `the ${name.replace(/_/g, ' ')} gets the id of the ${leaf.replace(/_id$/, '').replace(/_/g, ' ')} this run creates; to act on an existing object use its own command (pay transfers send --from …)`,
      },
    );
  }
  return { object: name, path, value: valueOf(found.leaf, text, `${name}.${path.join('.')}`) };
}

/** The value as the field's JSON type takes it. */
export function valueOf(leaf: LeafField, text: string, where: string): unknown {
  const bad = (what: string) => new UsageError(`--override ${where}: "${shown(text)}" ${what}`);
  switch (leaf.type) {
    case 'string': {
      if (leaf.enum && !leaf.enum.includes(text)) {
        const list = leaf.enum.length > 12 ? `${leaf.enum.slice(0, 12).join(', ')}, …` : leaf.enum.join(', ');
        throw bad(`is not one of ${list}`);
      }
      if (leaf.pattern && !matches(leaf.pattern, text)) throw bad(`does not match the contract's pattern ${leaf.pattern}`);
      return text;
    }
    case 'integer':
    case 'number': {
      const n = /^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?$/.test(text) ? Number(text) : NaN;
      if (!Number.isFinite(n) || (leaf.type === 'integer' && !Number.isInteger(n)))
        throw bad(`is not ${leaf.type === 'integer' ? 'a whole number' : 'a number'}`);
      return n;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw bad('is not true or false');
      return text === 'true';
    default: {
      // An object, an array or a value of any type: JSON, checked like every reader's.
      const value = parseJson(text, `--override ${where}`);
      if (leaf.type === 'object' && (value === null || typeof value !== 'object' || Array.isArray(value)))
        throw bad('is not a JSON object');
      if (leaf.type === 'array' && !Array.isArray(value)) throw bad('is not a JSON array');
      return value;
    }
  }
}

function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    // A pattern JavaScript cannot read: the service checks it.
    return true;
  }
}

/** The body with the object's overrides set over the defaults (the one safe setter). */
export function applyOverrides(body: Record<string, unknown>, overrides: readonly Override[] | undefined): Record<string, unknown> {
  for (const o of overrides ?? []) setPath(body, o.path, o.value, '--override');
  return body;
}

/** The override of one field, if given (`transfer.amount`). */
export function overrideOf(overrides: Overrides, object: ObjectName, path: string): unknown {
  return overrides.get(object)?.find((o) => o.path.join('.') === path)?.value;
}
