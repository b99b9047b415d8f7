// The contract's examples as requests: for every operation, its method, its path with each path
// parameter's example filled in, its request body example (where it takes a body) and its success
// answer's example. The emulator sweep (examples-live.test.ts) sends them with the example ids
// replaced by real ones; the Prism mock recipe (readme-recipes.test.ts) sends them as they are.
import type { OpenApiDocument, ParameterObject, ResponseObject } from '../../src/api/contract/types.js';
import { allOperations, resolve, successStatus } from './contract-helpers.js';

export interface ExampleRequest {
  operationId: string;
  method: string;
  /** The path template (`/customers/{customer_id}`). */
  template: string;
  /** The path with every parameter's example, relative to /v1 (`/customers/cus_0123…`). */
  path: string;
  /** The request body's example; undefined when the operation takes no body. */
  body: unknown;
  /** The success status (`201`). */
  status: string;
  /** The success answer's example. */
  response: unknown;
}

/** A path parameter's example: its own `example`, else its schema's first `examples` entry. */
function parameterExample(p: ParameterObject): string | undefined {
  const value = p.example ?? (Array.isArray(p.schema.examples) ? (p.schema.examples as unknown[])[0] : undefined);
  return typeof value === 'string' ? value : undefined;
}

/** Every operation of the document as an example request; throws naming what is missing. */
export function exampleRequests(doc?: OpenApiDocument): ExampleRequest[] {
  const out: ExampleRequest[] = [];
  const missing: string[] = [];
  for (const { method, path: template, operation } of allOperations(doc)) {
    const id = operation.operationId;
    const params = (operation.parameters ?? []).map((p) => resolve<ParameterObject>(p, doc));
    const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const p = params.find((x) => x.in === 'path' && x.name === name);
      const value = p ? parameterExample(p) : undefined;
      if (value === undefined) missing.push(`${id}: no example for the path parameter ${name}`);
      return encodeURIComponent(value ?? name);
    });
    const media = operation.requestBody?.content['application/json'];
    if (media && media.example === undefined) missing.push(`${id}: no request body example`);
    const status = successStatus(operation);
    const success = resolve<ResponseObject>(operation.responses[status]!, doc);
    const response = success.content?.['application/json']?.example;
    if (response === undefined) missing.push(`${id}: no example for its ${status} answer`);
    out.push({ operationId: id, method: method.toUpperCase(), template, path, body: media?.example, status, response });
  }
  if (missing.length > 0) throw new Error(`the contract lacks examples:\n${missing.join('\n')}`);
  return out;
}

/** A copy of `value` with every string that is a key of `ids` replaced by its value (at any depth). */
export function substituteIds<T>(value: T, ids: ReadonlyMap<string, string>): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return ids.get(v) ?? v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Every example id (`<prefix><24 chars>`) a value mentions, at any depth. */
export function exampleIdsIn(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(/\b[a-z]+_[0-9a-z]{24}\b/g)) found.add(m[0]);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return [...found];
}
