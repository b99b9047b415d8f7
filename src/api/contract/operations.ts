// Builds operations from short specs: the standard parameters (tenant, idempotency key, paging,
// path ids), the success response with its headers, and the error responses each kind can give.
import { DATE_PATTERN, TIME_FILTER_PATTERN } from '../../shared/patterns.js';
import { schemaRef } from './common.js';
import { page } from './examples.js';
import { ID_PARAMS, headerRef, paramRef, queryParam } from './parameters.js';
import { PROBLEM_BY_STATUS } from './responses.js';
import { rulesNote } from './rules.js';
import type { HttpMethod, OperationObject, ParameterObject, PathItemObject, Ref, ResponseObject, Schema } from './types.js';

/** create: POST → 201; action: POST → 200; accepted: POST → 202; list/get/read: GET; update: PATCH; delete: DELETE → 200. */
export type OpKind = 'create' | 'action' | 'accepted' | 'list' | 'get' | 'read' | 'update' | 'delete';

export interface OpSpec {
  id: string;
  tag: string;
  summary: string;
  description: string;
  kind: OpKind;
  /** Schema name of the success body. */
  result: string;
  /** Schema name of the request body (create/update/POST with fields); actions default to the optional EmptyBody. */
  body?: string;
  /** Path parameter component names, in path order. */
  pathParams?: readonly string[];
  /** List filters and other query parameters. */
  query?: readonly ParameterObject[];
  /** Error statuses besides those the kind implies (e.g. 404 for an id in the body). */
  errors?: readonly number[];
  tenantRequired?: boolean;
  /** Deprecated operation: responses carry Deprecation and Link to the successor. */
  deprecated?: boolean;
  /** The request body's example (every operation with a body has one; EmptyBody's is `{}`). */
  requestExample?: unknown;
  /** The success answer's example (every operation has one). */
  responseExample?: unknown;
}

const METHOD: Record<OpKind, HttpMethod> = {
  create: 'post',
  action: 'post',
  accepted: 'post',
  list: 'get',
  get: 'get',
  read: 'get',
  update: 'patch',
  delete: 'delete',
};
const SUCCESS: Record<OpKind, number> = {
  create: 201,
  action: 200,
  accepted: 202,
  list: 200,
  get: 200,
  read: 200,
  update: 200,
  delete: 200,
};
const ALWAYS = [400, 401, 403, 429, 500, 503];
const BY_METHOD: Record<HttpMethod, number[]> = { get: [], post: [409, 413, 415, 422], patch: [413, 415, 422], delete: [409] };

/** The methods operations use, in the conventional order of a path's operations. */
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'post', 'patch', 'delete'];

export const methodOf = (kind: OpKind): HttpMethod => METHOD[kind];

function parametersOf(spec: OpSpec, method: HttpMethod): Array<ParameterObject | Ref> {
  return [
    ...(spec.pathParams ?? []).map(paramRef),
    paramRef(spec.tenantRequired ? 'TenantIdRequired' : 'TenantId'),
    ...(method === 'post' ? [paramRef('IdempotencyKey')] : []),
    ...(spec.kind === 'list' ? [paramRef('Limit'), paramRef('Cursor')] : []),
    ...(spec.query ?? []),
  ];
}

function successOf(spec: OpSpec, method: HttpMethod): ResponseObject {
  const headers: Record<string, Ref> = { 'Request-Id': headerRef('Request-Id') };
  if (method === 'post') headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  if (spec.deprecated) Object.assign(headers, { Deprecation: headerRef('Deprecation'), Link: headerRef('Link') });
  const noun = spec.result.replace(/List$/, '');
  const what: Record<OpKind, string> = {
    create: `Created: the new ${noun}.`,
    action: `The ${noun} after the change.`,
    accepted: `Accepted: the ${noun}, queued again for delivery.`,
    list: `A page of ${noun} objects (list envelope).`,
    get: `The ${noun}.`,
    read: `The ${noun}.`,
    update: `The updated ${noun}.`,
    delete: `The ${noun}, now removed.`,
  };
  return {
    description: what[spec.kind],
    headers,
    content: { 'application/json': { schema: schemaRef(spec.result), ...(spec.responseExample ? { example: spec.responseExample } : {}) } },
  };
}

function errorStatuses(spec: OpSpec, method: HttpMethod): number[] {
  const statuses = new Set([...ALWAYS, ...BY_METHOD[method], ...(spec.errors ?? [])]);
  if ((spec.pathParams ?? []).length > 0) statuses.add(404);
  return [...statuses].sort((a, b) => a - b);
}

export function operation(spec: OpSpec): OperationObject {
  const method = METHOD[spec.kind];
  const responses: Record<string, ResponseObject | Ref> = { [String(SUCCESS[spec.kind])]: successOf(spec, method) };
  for (const status of errorStatuses(spec, method)) {
    const name = PROBLEM_BY_STATUS[status];
    if (!name) throw new Error(`no shared problem response for ${status} (${spec.id})`);
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  const bodyName = spec.body ?? (method === 'post' ? 'EmptyBody' : undefined);
  const requestExample = spec.requestExample ?? (bodyName === 'EmptyBody' ? {} : undefined);
  return {
    operationId: spec.id,
    summary: spec.summary,
    // An operation the business rules gate says so, from the one table (src/shared/rules.ts).
    description: `${spec.description}${rulesNote(spec.id)}`,
    tags: [spec.tag],
    ...(spec.deprecated ? { deprecated: true } : {}),
    parameters: parametersOf(spec, method),
    ...(bodyName
      ? {
          requestBody: {
            description: spec.body ? `The ${spec.body} fields.` : 'No body is needed; an empty JSON object is accepted.',
            required: Boolean(spec.body),
            content: {
              'application/json': { schema: schemaRef(bodyName), ...(requestExample !== undefined ? { example: requestExample } : {}) },
            },
          },
        }
      : {}),
    responses,
  };
}

/** Groups operations by path: `[path, spec]` pairs → the `paths` object. */
export function pathsFrom(entries: ReadonlyArray<readonly [string, OpSpec]>): Record<string, PathItemObject> {
  const paths: Record<string, Record<string, OperationObject>> = {};
  for (const [path, spec] of entries) {
    const item = (paths[path] ??= {});
    const method = METHOD[spec.kind];
    if (item[method]) throw new Error(`duplicate operation ${method.toUpperCase()} ${path}`);
    item[method] = operation(spec);
  }
  // Methods in the conventional order (get, post, patch, delete), whatever the order of the specs.
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [path, Object.fromEntries(HTTP_METHODS.filter((m) => item[m]).map((m) => [m, item[m]]))]),
  );
}

/** A query filter on an id (`customer_id=cus_…`). */
export const idFilter = (name: string, prefix: string, noun: string): ParameterObject =>
  queryParam(name, `Only those of this ${noun}.`, { type: 'string', pattern: `^${prefix}[0-9a-z]{24}$` });

/** A query filter on one of some values. */
export const enumFilter = (name: string, values: readonly string[], what = name): ParameterObject =>
  queryParam(name, `Only those with this ${what}.`, { type: 'string', enum: [...values] });

/** A query filter on a schema. */
export const schemaFilter = (name: string, schema: string, what = name): ParameterObject =>
  queryParam(name, `Only those with this ${what}.`, schemaRef(schema));

const dateOrTime = (bound: string): Schema => ({
  anyOf: [
    { type: 'string', pattern: TIME_FILTER_PATTERN },
    { type: 'string', format: 'date', pattern: DATE_PATTERN },
  ],
  description: `${bound} (RFC 3339 time, the seconds optional, or YYYY-MM-DD date, midnight UTC; from 1800-01-01 on).`,
});

/**
 * The created_at range every list of objects takes (one convention, the transactions' one):
 * `from` inclusive, `to` exclusive. A malformed value → 400 `invalid_parameter`.
 */
export const TIME_FILTERS: readonly ParameterObject[] = [
  queryParam('from', 'Only those created at or after this time.', dateOrTime('Inclusive lower bound of `created_at`')),
  queryParam('to', 'Only those created before this time.', dateOrTime('Exclusive upper bound of `created_at`')),
];

/** Standard list and get operations of a resource (the list takes TIME_FILTERS after `filters`). */
export function listAndGet(o: {
  path: string;
  tag: string;
  schema: string;
  noun: string;
  plural: string;
  param: string;
  listId: string;
  getId: string;
  filters: readonly ParameterObject[];
  listNote?: string;
  /** One item as the API returns it: the get answer's example, and the list page's only item. */
  example?: unknown;
}): Array<readonly [string, OpSpec]> {
  return [
    [
      `/${o.path}`,
      {
        id: o.listId,
        tag: o.tag,
        kind: 'list',
        summary: `List ${o.plural}`,
        description: `Pages of ${o.plural}, newest first. ${o.listNote ?? ''}`.trim(),
        result: `${o.schema}List`,
        query: [...o.filters, ...TIME_FILTERS],
        ...(o.example === undefined ? {} : { responseExample: page(o.example) }),
      },
    ],
    [
      `/${o.path}/{${paramName(o.param)}}`,
      {
        id: o.getId,
        tag: o.tag,
        kind: 'get',
        summary: `Get a ${o.noun}`,
        description: `One ${o.noun} by id.`,
        result: o.schema,
        pathParams: [o.param],
        ...(o.example === undefined ? {} : { responseExample: o.example }),
      },
    ],
  ];
}

const PARAM_NAMES: Record<string, string> = Object.fromEntries(ID_PARAMS.map(([component, name]) => [component, name]));

/** The path template name of an id parameter component (`CustomerId` → `customer_id`). */
export function paramName(component: string): string {
  const name = PARAM_NAMES[component];
  if (!name) throw new Error(`unknown id parameter ${component}`);
  return name;
}

/** A state-change action without a body: `POST /<path>/{id}/<verb>` → 200 the object. */
export function action(o: {
  path: string;
  verb: string;
  id: string;
  tag: string;
  summary: string;
  description: string;
  result: string;
  param: string;
  /** The object after the action. */
  responseExample?: unknown;
}): readonly [string, OpSpec] {
  return [
    `/${o.path}/{${paramName(o.param)}}/${o.verb}`,
    {
      id: o.id,
      tag: o.tag,
      kind: 'action',
      summary: o.summary,
      description: o.description,
      result: o.result,
      pathParams: [o.param],
      responseExample: o.responseExample,
    },
  ];
}

/** A create operation: `POST /<path>` → 201; ids in the body that do not exist are 404. */
export function create(o: {
  path: string;
  id: string;
  tag: string;
  summary: string;
  description: string;
  body: string;
  result: string;
  requestExample?: unknown;
  responseExample?: unknown;
}): readonly [string, OpSpec] {
  return [`/${o.path}`, { ...o, kind: 'create', errors: [404] }];
}
