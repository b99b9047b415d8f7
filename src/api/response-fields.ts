// The fields an operation's answer has, read from the published contract (openapi.ts): what
// --fields may name (dotted paths), checked before anything is sent. A list operation's fields
// are those of its items. Nested objects give their own paths (`address`, `address.city`); a map
// (additionalProperties) allows any name below it (`rates.EUR`); arrays are leaves.
// Loaded only when --fields is given.
import { openapi, type OpenApiDocument, type Schema } from './openapi.js';

export interface FieldSet {
  /** Every path, in the contract's order. */
  names: string[];
  /** Paths below which any name is allowed (maps). */
  open: string[];
}

export type Node = Schema & { $ref?: string };

/** A schema (or response) with its `$ref`s followed (at most 8) into the contract's components. */
export function resolve(node: unknown, doc: OpenApiDocument = openapi): Node | undefined {
  let n = node as Node | undefined;
  for (let i = 0; i < 8 && n && typeof n.$ref === 'string'; i++) {
    const [, , kind, name] = n.$ref.split('/');
    const table = (doc.components as unknown as Record<string, Record<string, unknown>>)[kind ?? ''];
    n = table?.[name ?? ''] as Node | undefined;
  }
  return n && typeof n === 'object' ? n : undefined;
}

function collect(node: unknown, prefix: string, set: FieldSet, seen: Set<string>, depth: number): void {
  const n = resolve(node);
  if (!n || depth > 8) return;
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const parts = n[key];
    if (Array.isArray(parts)) for (const p of parts) collect(p, prefix, set, seen, depth + 1);
  }
  const props = n.properties as Record<string, unknown> | undefined;
  if (props && typeof props === 'object') {
    for (const [name, sub] of Object.entries(props)) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (!seen.has(path)) {
        seen.add(path);
        set.names.push(path);
      }
      collect(sub, path, set, seen, depth + 1);
    }
  }
  const extra = n.additionalProperties;
  if (prefix && extra !== undefined && extra !== false && !set.open.includes(prefix)) set.open.push(prefix);
}

/**
 * The schema of an operation's success answer, as the contract writes it: its first 2xx response
 * (a `$ref` to a shared response followed), that response's `application/json` schema, itself
 * not resolved (`{ $ref: '#/components/schemas/Card' }`, which names the object). null when the
 * answer has no JSON body; undefined when the contract has no such operation. The one reading of
 * it: --fields, the replay note's "see it now with" (src/cmdutil/replay.ts) and the contract tests.
 */
export function successSchema(operationId: string, doc: OpenApiDocument = openapi): unknown {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      if (op?.operationId !== operationId) continue;
      const code = Object.keys(op.responses).find((c) => /^2\d\d$/.test(c));
      const res = code ? (resolve(op.responses[code], doc) as { content?: Record<string, { schema?: unknown }> } | undefined) : undefined;
      return res?.content?.['application/json']?.schema ?? null;
    }
  }
  return undefined;
}

/** The `$ref` of an operation's success answer (`#/components/schemas/KycDocument`), when it names one. */
export function successRef(operationId: string, doc: OpenApiDocument = openapi): string | undefined {
  const ref = (successSchema(operationId, doc) as { $ref?: unknown } | null | undefined)?.$ref;
  return typeof ref === 'string' ? ref : undefined;
}

/** The fields of what `operationId` answers (of each item, for a list), or undefined for an unknown operation. */
export function operationFields(operationId: string): FieldSet | undefined {
  const schema = successSchema(operationId);
  if (schema === undefined) return undefined;
  let root = resolve(schema);
  const props = root?.properties as Record<string, unknown> | undefined;
  const data = resolve(props?.data);
  if (props && 'has_more' in props && data?.type === 'array') root = resolve(data.items);
  const set: FieldSet = { names: [], open: [] };
  collect(root, '', set, new Set(), 0);
  return set;
}

/**
 * The fields of a composite answer (VerbSpec.answer): each key, and below it the fields of the
 * operation it holds the answer of (`customer.email`), any name under a map (`*`), nothing under a
 * leaf (null). Undefined when a key names an operation the contract lacks.
 */
export function answerFields(answer: Readonly<Record<string, string | null>>): FieldSet | undefined {
  const set: FieldSet = { names: [], open: [] };
  for (const [key, of] of Object.entries(answer)) {
    set.names.push(key);
    if (of === '*') set.open.push(key);
    else if (of !== null) {
      const inner = operationFields(of);
      if (!inner) return undefined;
      set.names.push(...inner.names.map((n) => `${key}.${n}`));
      set.open.push(...inner.open.map((n) => `${key}.${n}`));
    }
  }
  return set;
}

/** Whether `path` names a field of the set: one of its paths, or a name under a map. */
export function hasField(set: FieldSet, path: string): boolean {
  return set.names.includes(path) || set.open.some((p) => path.startsWith(`${p}.`));
}
