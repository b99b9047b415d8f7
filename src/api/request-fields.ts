// The fields an operation's request body takes, read from the published contract (openapi.ts):
// what `pay trigger --override object.path=value` may set, and what JSON type each value has.
// Nested objects give their own fields (`address.city`); anything else is a leaf.
import { openapi } from './openapi.js';
import { resolve, type Node } from './response-fields.js';

/** The properties of an object schema, its allOf parts' included, in the contract's order. */
function propertiesOf(node: Node): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of (node.allOf as unknown[] | undefined) ?? []) {
    const p = resolve(part);
    if (p) Object.assign(out, propertiesOf(p));
  }
  Object.assign(out, (node.properties as Record<string, unknown> | undefined) ?? {});
  return out;
}

/** The request body schema of an operation (resolved), or undefined when it has none. */
export function requestBodySchema(operationId: string): Node | undefined {
  for (const item of Object.values(openapi.paths)) {
    for (const op of Object.values(item)) {
      if (op?.operationId !== operationId) continue;
      const body = resolve(op.requestBody) as { content?: Record<string, { schema?: unknown }> } | undefined;
      return resolve(body?.content?.['application/json']?.schema);
    }
  }
  return undefined;
}

/** What a leaf field takes: its JSON type, and the contract's enum or pattern for strings. */
export interface LeafField {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'any';
  enum?: readonly unknown[];
  pattern?: string;
}

export type FieldLookup =
  | { ok: true; leaf: LeafField }
  /** `at`: the part of the path that exists (`address`, or '' for the top); `valid`: the names there. */
  | { ok: false; at: string; name: string; valid: string[] };

/** A string schema's enum, across anyOf/oneOf branches (CurrencyOrAsset). */
function enumOf(n: Node): unknown[] | undefined {
  if (Array.isArray(n.enum)) return n.enum as unknown[];
  const branches = (n.anyOf ?? n.oneOf) as unknown[] | undefined;
  if (!Array.isArray(branches)) return undefined;
  const all: unknown[] = [];
  for (const b of branches) {
    const e = resolve(b) && enumOf(resolve(b)!);
    if (!e) return undefined;
    all.push(...e);
  }
  return all;
}

function leafOf(n: Node): LeafField {
  const type = typeof n.type === 'string' ? n.type : undefined;
  const e = enumOf(n);
  if (type === 'string' || (type === undefined && e)) {
    return { type: 'string', ...(e ? { enum: e } : {}), ...(typeof n.pattern === 'string' ? { pattern: n.pattern } : {}) };
  }
  if (type === 'number' || type === 'integer' || type === 'boolean' || type === 'object' || type === 'array') return { type };
  // anyOf of strings (a date or a time): a string.
  const branches = (n.anyOf ?? n.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.every((b) => resolve(b)?.type === 'string')) return { type: 'string' };
  return { type: 'any' };
}

/** The top-level fields of an operation's request body, in the contract's order (none when it has no body). */
export function fieldsOf(operationId: string): string[] {
  const node = requestBodySchema(operationId);
  return node ? Object.keys(propertiesOf(node)) : [];
}

/** The field at `path` (segments) of an operation's request body, or where the path stops matching and what was valid there. */
export function bodyField(operationId: string, path: readonly string[]): FieldLookup {
  let node = requestBodySchema(operationId);
  let at = '';
  for (let i = 0; i < path.length; i++) {
    const props = node ? propertiesOf(node) : {};
    const name = path[i]!;
    const sub = Object.hasOwn(props, name) ? resolve(props[name]) : undefined;
    if (!sub) return { ok: false, at, name, valid: Object.keys(props) };
    if (i === path.length - 1) return { ok: true, leaf: leafOf(sub) };
    node = sub;
    at = at ? `${at}.${name}` : name;
  }
  return { ok: false, at, name: '', valid: node ? Object.keys(propertiesOf(node)) : [] };
}
