// Keys and shapes from untrusted input: the one check every reader of user data runs on what it
// parsed (bulk rows, --data, seed files, config files: parseJson / checkShape), and the one setter
// for dotted paths (CSV columns, -F, flags: setPath). A key `__proto__`, `constructor` or
// `prototype` at any depth, a key longer than MAX_KEY_CHARS or nesting deeper than MAX_DEPTH is a
// UsageError naming where and the key path; no value from input is ever assigned through an
// inherited property, so nothing reaches Object.prototype or another row.
import { UsageError } from './errors.js';

/** Keys that name (or lead to) an object's prototype: never a field of the API, refused everywhere. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/** Objects and arrays nested in one another: an API body needs a handful; recursion stays far from the stack's end. */
export const MAX_DEPTH = 32;
/** The longest key (characters): API field names are short. */
export const MAX_KEY_CHARS = 256;

/** Where a shape check failed: the key path (`address.__proto__`, `items[3].x`) and why. */
export interface ShapeProblem {
  path: string;
  problem: string;
}

/** Why `key` cannot be a key, or undefined. */
export function keyProblem(key: string): string | undefined {
  if (FORBIDDEN_KEYS.has(key)) return `"${key}" is not allowed as a key (__proto__, constructor and prototype never name a field)`;
  if (key.length > MAX_KEY_CHARS) return `a key of ${key.length} characters (at most ${MAX_KEY_CHARS})`;
  return undefined;
}

/** One key for a message: plain names as they are, anything else quoted, escaped and cut short. */
function segment(key: string): string {
  if (/^[A-Za-z0-9_$-]{1,64}$/.test(key)) return key;
  const cut = key.length > 40 ? `${key.slice(0, 40)}…` : key;
  return JSON.stringify(cut).replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A key path for a message: `a.b`, `a[2].c`, from the root's prefix (`` or a name). */
export function joinPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${segment(key)}` : segment(key);
}

/**
 * The first problem in a parsed value, walking it without recursion (a value nested a million
 * deep, or a YAML alias cycle, stops at MAX_DEPTH): a forbidden or over-long key, too deep, or
 * an object that is not plain JSON (a YAML !!binary's buffer).
 * `prefix` starts the paths (e.g. `customers.alice`).
 */
export function shapeProblem(value: unknown, prefix = '', maxDepth = MAX_DEPTH): ShapeProblem | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Array<{ v: object; path: string; depth: number }> = [{ v: value, path: prefix, depth: 1 }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { v, path, depth } = top;
    if (depth > maxDepth) return { path: path || '(top level)', problem: `nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const x: unknown = v[i];
        if (x !== null && typeof x === 'object') stack.push({ v: x, path: joinPath(path, i), depth: depth + 1 });
      }
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null)
      return { path: path || '(top level)', problem: 'not a JSON value (binary data? a date?)' };
    // Own keys only, symbols too (a parser never makes one; a caller's object might).
    for (const key of Reflect.ownKeys(v)) {
      if (typeof key !== 'string') return { path: path || '(top level)', problem: 'a symbol key' };
      const problem = keyProblem(key);
      if (problem) return { path: joinPath(path, key), problem };
      const x: unknown = (v as Record<string, unknown>)[key];
      if (x !== null && typeof x === 'object') stack.push({ v: x, path: joinPath(path, key), depth: depth + 1 });
    }
  }
  return undefined;
}

/** The message for a problem found in input from `where` (`--data @f.json`, `rows.ndjson: line 3`). */
export function shapeMessage(where: string, p: ShapeProblem): string {
  const path = p.path.length > 160 ? `…${p.path.slice(-160)}` : p.path;
  return `${where}: key ${path}: ${p.problem}`;
}

/** Throws a UsageError (exit 2) naming `where` and the key path when `value` has a bad key or shape. */
export function checkShape(value: unknown, where: string, prefix = ''): void {
  const p = shapeProblem(value, prefix);
  if (p) throw new UsageError(shapeMessage(where, p));
}

/**
 * JSON text from a user (a file, an argument, stdin) → its value, checked by checkShape.
 * Malformed text is a UsageError `<where> is not valid JSON: <the parser's words>`.
 */
export function parseJson(text: string, where: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${where} is not valid JSON: ${(err as Error).message.replace(/\s+/g, ' ').slice(0, 160)}`);
  }
  checkShape(value, where);
  return value;
}

/**
 * Sets `value` at a dotted path (`address.city`) or a list of keys, making plain objects on the way
 * (an intermediate value that is not a plain object of its own is replaced). Every key is checked
 * first: a forbidden or over-long key, or a path deeper than MAX_DEPTH, is a UsageError naming
 * `where` and the path, and nothing is set. Only own properties are followed, never an inherited one.
 */
export function setPath(obj: Record<string, unknown>, path: string | readonly string[], value: unknown, where = 'key'): void {
  const parts = typeof path === 'string' ? path.split('.') : path;
  // The path up to the key at fault, as the shape messages show it.
  const upTo = (n: number) => parts.slice(0, n + 1).reduce((acc: string, k) => joinPath(acc, k), '');
  if (parts.length > MAX_DEPTH) throw new UsageError(`${where} ${upTo(MAX_DEPTH)}: nested deeper than ${MAX_DEPTH} levels`);
  parts.forEach((p, i) => {
    const problem = keyProblem(p);
    if (problem) throw new UsageError(`${where} ${upTo(i)}: ${problem}`);
  });
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    const next = Object.hasOwn(cur, p) ? cur[p] : undefined;
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      const made: Record<string, unknown> = {};
      define(cur, p, made);
      cur = made;
    } else cur = next as Record<string, unknown>;
  }
  define(cur, parts[parts.length - 1]!, value);
}

/**
 * An own data property. A plain assignment: the key was checked, and the one accessor a plain
 * object inherits is `__proto__`, which is refused (Object.defineProperty is 14 times slower, and
 * a CSV of a million rows sets ten million cells).
 */
function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  obj[key] = value;
}
