// What a verb can take from its contract operation (src/api/openapi.ts), per group (the
// operation's tag): method, path, the verb's kind, the id prefix a create answers, whether
// x-tenant-id is required, whether it takes a body, and for each body field (dotted path), query
// parameter and path parameter: required, kind, choices, id prefix. `npm run generate`
// (src/scripts/generated.ts) writes them to src/commands/<group>/operations.ts, which the group's
// spec reads (src/cmdutil/spec.ts `fromContract`): no contract is read when pay runs.
import { HTTP_METHODS } from '../api/contract/operations.js';
import type { HttpMethod } from '../api/contract/types.js';
import { openapi, type OpenApiDocument, type OperationObject, type ParameterObject, type Schema } from '../api/openapi.js';
import { DECIMAL_PATTERN } from '../api/contract/schemas-shared.js';
import { PHONE_PATTERN, STATE_PATTERN } from '../shared/domain.js';
import { EMAIL_PATTERN, TIME_FILTER_PATTERN } from '../shared/patterns.js';
import type { FlagKind, OperationFacts, ParamFacts, VerbKind } from '../cmdutil/spec.js';

type Resolved = { schema: Schema; ref?: string };

function resolve(doc: OpenApiDocument, s: unknown): Resolved {
  let schema = s as Schema;
  let ref: string | undefined;
  for (;;) {
    const r = (schema as { $ref?: string }).$ref;
    if (typeof r === 'string') {
      const m = /^#\/components\/(schemas|parameters)\/(.+)$/.exec(r);
      if (!m) throw new Error(`operation-facts: unknown $ref ${r}`);
      ref = m[2];
      schema = (m[1] === 'schemas' ? doc.components.schemas[m[2]!] : doc.components.parameters[m[2]!]) as Schema;
      continue;
    }
    // A nullable value (`anyOf: [x, {type: null}]`): the value's facts.
    const any = schema.anyOf as Schema[] | undefined;
    if (Array.isArray(any) && any.length === 2 && any.some((x) => x.type === 'null')) {
      schema = any.find((x) => x.type !== 'null')!;
      continue;
    }
    return { schema, ref };
  }
}

const ID = /^\^([a-z]+_)\[0-9a-z\]\{24\}\$$/;
/** `^(acc|ea)_[0-9a-z]{24}$`: one of several prefixes. */
const IDS = /^\^\(([a-z]+(?:\|[a-z]+)+)\)_\[0-9a-z\]\{24\}\$$/;

/** The id prefix (`acc_`, or `acc_|ea_` for one of several) a string schema's pattern allows. */
function idPrefixOf(doc: OpenApiDocument, schema: Schema): string | undefined {
  const one = typeof schema.pattern === 'string' ? ID.exec(schema.pattern)?.[1] : undefined;
  if (one) return one;
  const several = typeof schema.pattern === 'string' ? IDS.exec(schema.pattern)?.[1] : undefined;
  if (several)
    return several
      .split('|')
      .map((p) => `${p}_`)
      .join('|');
  const alts = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (!Array.isArray(alts)) return undefined;
  const prefixes = alts.map((a) => idPrefixOf(doc, resolve(doc, a).schema));
  return prefixes.every((p) => p !== undefined) ? prefixes.join('|') : undefined;
}

/** Kinds the contract's named schemas stand for. */
const KIND_OF_REF: Readonly<Record<string, FlagKind>> = {
  Currency: 'currency',
  Amount: 'amount',
  PositiveAmount: 'amount',
  CountryCode: 'country',
  Asset: 'currency',
};
/** Named enums whose values a flag offers as its choices (a fiat currency is checked by its kind alone). */
const CHOICES_OF_REF = new Set(['Asset']);
/** Kinds the contract's shared patterns stand for. */
const KIND_OF_PATTERN: ReadonlyArray<readonly [string, FlagKind]> = [
  [STATE_PATTERN, 'state'],
  [PHONE_PATTERN, 'phone'],
  [DECIMAL_PATTERN, 'decimal'],
  [EMAIL_PATTERN, 'email'],
];

function factsOf(doc: OpenApiDocument, raw: unknown, required: boolean): ParamFacts {
  let { schema, ref } = resolve(doc, raw);
  // A list of values (`symbols=EUR,GBP`): each value's facts.
  if (schema.type === 'array' && schema.items) ({ schema, ref } = resolve(doc, schema.items));
  // The created_at bounds of a list: an RFC 3339 time or a date.
  const alts = schema.anyOf as Schema[] | undefined;
  if (Array.isArray(alts) && alts.some((a) => a.pattern === TIME_FILTER_PATTERN))
    return { ...(required ? { required } : {}), kind: 'datetime' };
  const facts: { -readonly [K in keyof ParamFacts]: ParamFacts[K] } = {};
  if (required) facts.required = true;
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined);
  const values = Array.isArray(schema.enum) ? (schema.enum as unknown[]).filter((v): v is string => typeof v === 'string') : undefined;
  const prefix = type === 'string' || type === undefined ? idPrefixOf(doc, schema) : undefined;
  const byPattern = KIND_OF_PATTERN.find(([p]) => p === schema.pattern)?.[1];
  if (ref && KIND_OF_REF[ref]) {
    facts.kind = KIND_OF_REF[ref];
    if (values && CHOICES_OF_REF.has(ref)) facts.choices = values;
  } else if (byPattern) facts.kind = byPattern;
  else if (values && values.length > 0) {
    facts.kind = 'enum';
    facts.choices = values;
  } else if (prefix) {
    facts.kind = 'id';
    facts.idPrefix = prefix;
  } else if (type === 'integer') facts.kind = 'int';
  else if (type === 'boolean') facts.kind = 'bool';
  else if (schema.format === 'date') facts.kind = 'date';
  else if (schema.format === 'date-time') facts.kind = 'timestamp';
  else if (schema.format === 'uri') facts.kind = 'url';
  else if (schema.format === 'email') facts.kind = 'email';
  return facts;
}

/** Body fields by dotted path (`address.city`), nested objects walked; required only when each level is. */
function bodyFacts(doc: OpenApiDocument, raw: unknown, prefix: string, parentRequired: boolean, out: Record<string, ParamFacts>): void {
  const { schema } = resolve(doc, raw);
  const props = schema.properties as Record<string, unknown> | undefined;
  if (!props) return;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  for (const [name, sub] of Object.entries(props)) {
    const path = `${prefix}${name}`;
    const isRequired = parentRequired && required.has(name);
    const inner = resolve(doc, sub).schema;
    if (inner.type === 'object' || (Array.isArray(inner.type) && inner.type.includes('object')) || inner.properties) {
      bodyFacts(doc, sub, `${path}.`, isRequired, out);
      continue;
    }
    out[path] = factsOf(doc, sub, isRequired);
  }
}

const VERB_KIND: Readonly<Record<string, VerbKind>> = { post: 'action', patch: 'update', delete: 'delete' };

function operationFacts(doc: OpenApiDocument, method: HttpMethod, path: string, op: OperationObject): OperationFacts {
  const params = (op.parameters ?? []).map((p) => resolve(doc, p).schema as unknown as ParameterObject);
  const success = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
  const pathParams: Record<string, ParamFacts> = {};
  const query: Record<string, ParamFacts> = {};
  let tenant = false;
  for (const p of params) {
    // A path parameter is required by being one (its flag says so in help without a mark).
    if (p.in === 'path') pathParams[p.name] = factsOf(doc, p.schema, false);
    else if (p.in === 'query' && p.name !== 'limit' && p.name !== 'cursor') query[p.name] = factsOf(doc, p.schema, p.required === true);
    else if (p.in === 'header' && p.name === 'x-tenant-id' && p.required) tenant = true;
  }
  const bodySchema = op.requestBody?.content['application/json']?.schema;
  const body: Record<string, ParamFacts> = {};
  if (bodySchema && op.requestBody?.required) bodyFacts(doc, bodySchema, '', true, body);
  let kind: VerbKind =
    method === 'get' ? (success === '200' && params.some((p) => p.name === 'cursor') ? 'list' : 'get') : VERB_KIND[method]!;
  let creates: string | undefined;
  if (method === 'post' && success === '201') {
    kind = 'create';
    const answer = resolve(
      doc,
      op.responses[success] &&
        (op.responses[success] as { content?: Record<string, { schema: unknown }> }).content?.['application/json']?.schema,
    ).schema;
    const id = (answer.properties as Record<string, unknown> | undefined)?.id;
    creates = id ? idPrefixOf(doc, resolve(doc, id).schema) : undefined;
  }
  // A parameter the contract says nothing of for a flag (free text) is left out.
  const said = (all: Record<string, ParamFacts>) => Object.fromEntries(Object.entries(all).filter(([, f]) => Object.keys(f).length > 0));
  for (const all of [pathParams, query, body]) {
    const kept = said(all);
    for (const k of Object.keys(all)) if (!(k in kept)) delete all[k];
  }
  return {
    method: method.toUpperCase() as OperationFacts['method'],
    path: path.replace(/^\//, ''),
    kind,
    ...(creates ? { creates } : {}),
    ...(tenant ? { requireTenant: true } : {}),
    ...(op.requestBody?.required ? { body: true } : {}),
    ...(Object.keys(pathParams).length ? { pathParams } : {}),
    ...(Object.keys(query).length ? { query } : {}),
    ...(Object.keys(body).length ? { fields: body } : {}),
  };
}

/** Every operation of the contract's paths, by tag and then operationId, in document order. */
export function operationsByTag(doc: OpenApiDocument = openapi): Map<string, Map<string, OperationFacts>> {
  const out = new Map<string, Map<string, OperationFacts>>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags[0]!;
      if (!out.has(tag)) out.set(tag, new Map());
      out.get(tag)!.set(op.operationId, operationFacts(doc, method, path, op));
    }
  }
  return out;
}

/** A value as TypeScript source: an array equal to a shared enum by its name there, else a literal. */
function source(value: unknown, enums: ReadonlyMap<string, string>, used: Set<string>, indent: string): string {
  if (Array.isArray(value)) {
    const name = enums.get(JSON.stringify(value));
    if (name) {
      used.add(name);
      return name;
    }
    return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`);
    const flat = entries.every(([, v]) => !v || typeof v !== 'object' || Array.isArray(v));
    if (entries.length === 0) return '{}';
    if (flat) return `{ ${entries.map(([k, v]) => `${key(k)}: ${source(v, enums, used, indent)}`).join(', ')} }`;
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${source(v, enums, used, inner)},`).join('\n')}\n${indent}}`;
  }
  return typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(value);
}

/**
 * src/commands/<group>/operations.ts for each group (the contract's tags): its operations' facts,
 * the choices written as the shared enum of the same values (`enums`: name → values, from
 * src/shared/enums.ts) where there is one.
 */
export function operationFiles(enums: Readonly<Record<string, unknown>>, doc: OpenApiDocument = openapi): Record<string, string> {
  const byValues = new Map<string, string>();
  for (const [name, value] of Object.entries(enums)) if (Array.isArray(value)) byValues.set(JSON.stringify(value), name);
  const files: Record<string, string> = {};
  for (const [tag, ops] of operationsByTag(doc)) {
    const used = new Set<string>();
    const body = [...ops].map(([id, facts]) => `  ${id}: ${source(facts, byValues, used, '  ')},`);
    files[`src/commands/${tag}/operations.ts`] = [
      '// GENERATED by `npm run generate` from the contract (src/api/openapi.ts, read by',
      `// src/scripts/operation-facts.ts): do not edit. What the ${tag} operations say of their verbs:`,
      "// method, path, kind, and each parameter's required, kind, choices and id prefix. Data only (start-up path).",
      "import type { OperationFacts } from '../../cmdutil/spec.js';",
      ...(used.size ? [`import { ${[...used].sort().join(', ')} } from '../../shared/enums.js';`] : []),
      '',
      'export const OPERATIONS = {',
      ...body,
      '} as const satisfies Record<string, OperationFacts>;',
      '',
    ].join('\n');
  }
  return files;
}
