// Helpers for checking code against the published contract (src/api/openapi.ts): find an
// operation by method and path, get its request body schema, and validate bodies with ajv.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openapi } from '../../src/api/openapi.js';
import type {
  HttpMethod,
  MediaTypeObject,
  OpenApiDocument,
  OperationObject,
  ResponseObject,
  Schema,
} from '../../src/api/contract/types.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is module.exports.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const DOC_ID = 'https://pay.dev/openapi.json';
const METHODS: readonly HttpMethod[] = ['get', 'post', 'patch', 'delete'];

export interface LocatedOperation {
  method: HttpMethod;
  /** Path template as in the document (`/customers/{customer_id}`). */
  path: string;
  operation: OperationObject;
}

/** Every operation of the document's `paths` (default: the imported contract), in document order. */
export function allOperations(doc: OpenApiDocument = openapi): LocatedOperation[] {
  const out: LocatedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) out.push({ method, path, operation });
    }
  }
  return out;
}

const normalise = (path: string): string => `/${path.replace(/^\/+/, '').replace(/^v1\//, '').replace(/\/+$/, '')}`;
const shape = (path: string): string => path.replace(/\{[^}]*\}/g, '{}');

/**
 * The operation for a method and a path template relative to /v1/ (`customers/{customer_id}`,
 * with or without the leading slash). Parameter names must match the document's; if they do not,
 * a template with the same shape is accepted (`customers/{id}`). Undefined when there is none.
 */
export function operationFor(method: string, path: string): OperationObject | undefined {
  const m = method.toLowerCase() as HttpMethod;
  const wanted = normalise(path);
  const exact = openapi.paths[wanted]?.[m];
  if (exact) return exact;
  return allOperations().find((o) => o.method === m && shape(o.path) === shape(wanted))?.operation;
}

/** The operation with this operationId; throws when there is none (a typo in a test). */
export function operationById(operationId: string): LocatedOperation {
  const found = allOperations().find((o) => o.operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId} in the contract`);
  return found;
}

/** Follows a local `#/components/...` reference (one level; nested references stay). */
export function resolve<T>(value: T | { $ref: string }, doc: OpenApiDocument = openapi): T {
  if (value && typeof value === 'object' && '$ref' in value && typeof value.$ref === 'string') {
    const parts = value.$ref.replace(/^#\//, '').split('/');
    let node: unknown = doc;
    for (const part of parts) node = (node as Record<string, unknown>)[part];
    if (node === undefined) throw new Error(`unresolved reference ${value.$ref}`);
    return resolve(node as T | { $ref: string }, doc);
  }
  return value as T;
}

const jsonSchemaOf = (media: MediaTypeObject | undefined): Schema | undefined => media?.schema;

/** The request body schema of an operation (resolved from its `$ref`), or undefined when it takes no body. */
export function requestBodySchema(operationId: string): Schema | undefined {
  const schema = jsonSchemaOf(operationById(operationId).operation.requestBody?.content['application/json']);
  return schema ? resolve<Schema>(schema) : undefined;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

function validatorFor(schema: Schema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    if (!ajv) {
      // strict: false because OpenAPI adds keywords ajv does not know (e.g. `example` in media types).
      ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema(structuredClone(openapi), DOC_ID);
    }
    const ref = typeof schema.$ref === 'string' ? schema.$ref : undefined;
    validate = ref?.startsWith('#/')
      ? ajv.compile({ $ref: `${DOC_ID}${ref}` })
      : ajv.compile({ $id: `${DOC_ID}/inline/${validators.size}`, ...schema });
    validators.set(key, validate);
  }
  return validate;
}

/** The 2xx status of an operation (each has exactly one). */
export function successStatus(operation: OperationObject): string {
  const status = Object.keys(operation.responses).find((s) => s.startsWith('2'));
  if (!status) throw new Error(`${operation.operationId} has no 2xx response`);
  return status;
}

/**
 * Validates a body against an operation's request schema, or its response schema for `status`
 * (default: its 2xx). Returns the errors as `<path> <message>` lines; empty when valid.
 */
export function validateAgainst(
  operationId: string,
  kind: 'request' | 'response',
  status: number | string | undefined,
  body: unknown,
): string[] {
  const { operation } = operationById(operationId);
  let schema: Schema | undefined;
  if (kind === 'request') {
    schema = jsonSchemaOf(operation.requestBody?.content['application/json']);
    if (!schema) return body === undefined ? [] : [`${operationId} takes no request body`];
  } else {
    const code = String(status ?? successStatus(operation));
    const response = operation.responses[code];
    if (!response) return [`${operationId} has no ${code} response`];
    const content = resolve<ResponseObject>(response).content ?? {};
    schema = jsonSchemaOf(content['application/json'] ?? content['application/problem+json']);
    if (!schema) return body === undefined ? [] : [`${operationId} ${code} has no body`];
  }
  const validate = validatorFor(schema);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
  );
}

/**
 * The operation a request went to, from its method and its path as sent (`/v1/customers/cus_…`,
 * query string excluded): the template that matches with the fewest parameters, so a literal
 * segment wins over a parameter. Undefined when no operation of the contract has that shape.
 */
export function operationOfRequest(method: string, path: string): LocatedOperation | undefined {
  const m = method.toLowerCase();
  const segments = normalise(path).split('/');
  let best: { op: LocatedOperation; params: number } | undefined;
  for (const op of allOperations()) {
    if (op.method !== m) continue;
    const template = op.path.split('/');
    if (template.length !== segments.length) continue;
    const isParam = template.map((t) => /^\{[^}]+\}$/.test(t));
    const match = template.every((t, i) => (isParam[i] ? segments[i] !== '' : t === segments[i]));
    const params = isParam.filter(Boolean).length;
    if (match && (!best || params < best.params)) best = { op, params };
  }
  return best?.op;
}
