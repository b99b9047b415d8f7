// The emulator against its own printed contract, by generated requests. For every operation of
// what `pay openapi` prints, fast-check draws requests from the operation's schemas (path and
// query parameters, the tenant and Idempotency-Key headers, the JSON body): schema-valid ones and
// schema-invalid ones (one part broken: a parameter, a header, the key, the body or one of its
// fields), each checked with ajv against the contract before it is sent to a real emulator on
// loopback. A valid request is never a 5xx, never a status the operation does not document, and
// never refused for a rule the contract does not state (a parameter, tenant or key the schema
// admits); an invalid one is always a 4xx problem. Every answer has the content type and headers
// its status documents and a body its schema accepts. Fixed seed, bounded runs.
import { Agent, request } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SUFFIX } from '../../src/api/contract/common.js';
import { SECOND_SUFFIX } from '../../src/api/contract/examples.js';
import type { OperationObject, ParameterObject, ResponseObject } from '../../src/api/contract/types.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FEATURE_KEYS } from '../../src/shared/rules.js';
import { printedContract } from '../helpers/printed-contract.js';
import { allOperations, type LocatedOperation } from './contract-helpers.js';
import { exampleRequests, substituteIds } from './examples-helpers.js';
import { SchemaArbitraries, type JsonSchema } from './schema-arbitraries.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const SEED = 20_261_128;
/** Per operation: valid and invalid requests (the whole file stays well under a minute). */
const VALID_RUNS = 25;
const INVALID_RUNS = 35;
const SETTLE_S = 600;

type Obj = Record<string, any>;
interface Req {
  /** What this request is meant to be, and for an invalid one what is broken in it. */
  kind: string;
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: string;
}
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const { doc } = printedContract();
const operations = allOperations(doc);
const DOC_ID = 'https://pay.dev/printed-openapi.json';

let emu: Emulator;
let arbs: SchemaArbitraries;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const pool = new Map<string, string[]>();
const counts = {
  valid: 0,
  invalid: 0,
  byOperation: new Map<string, { valid: number; invalid: number }>(),
  statuses: new Map<string, number>(),
};

// --- the contract's schemas, compiled once -----------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addSchema(structuredClone(doc), DOC_ID);
const compiled = new Map<string, ValidateFunction>();
function validator(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    const s = typeof schema === 'object' && typeof schema.$ref === 'string' ? { $ref: `${DOC_ID}${schema.$ref}` } : schema;
    v = ajv.compile(typeof s === 'object' ? { $id: `${DOC_ID}/c/${compiled.size}`, ...rewriteRefs(s) } : s);
    compiled.set(key, v);
  }
  return v;
}
/** Inline schemas (parameters) may hold local `$ref`s: make them point into the added document. */
function rewriteRefs(s: unknown): any {
  if (Array.isArray(s)) return s.map(rewriteRefs);
  if (s && typeof s === 'object')
    return Object.fromEntries(
      Object.entries(s).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : rewriteRefs(v),
      ]),
    );
  return s;
}
const accepts = (schema: JsonSchema, value: unknown): boolean => validator(schema)(value) === true;
function why(schema: JsonSchema, value: unknown): string {
  const v = validator(schema);
  return v(value) ? '' : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`).join('; ');
}

const resolveParam = (p: unknown): ParameterObject => {
  const r = (p as { $ref?: string }).$ref;
  return (r ? arbs.deref({ $ref: r }) : p) as ParameterObject;
};
const paramsOf = (op: LocatedOperation): ParameterObject[] => (op.operation.parameters ?? []).map(resolveParam);

/** A query value as the schema judges it: an integer parameter's digits are a number. */
function queryValue(schema: JsonSchema, raw: string): unknown {
  const s = arbs.deref(schema) as Obj;
  return s.type === 'integer' && /^-?[0-9]{1,15}$/.test(raw) ? Number(raw) : raw;
}
/** HTTP drops the spaces and tabs around a field value (RFC 9110 §5.5): the value the server gets. */
const onTheWire = (v: string): string => v.replace(/^[ \t]+|[ \t]+$/g, '');

// --- sending ----------------------------------------------------------------------------------

async function send(r: Req): Promise<Answer> {
  sent++;
  if (r.headers['idempotency-key'] === FRESH_KEY) r.headers['idempotency-key'] = `conformance-${sent}`;
  try {
    return await sendOnce(r);
  } catch (e) {
    // A reset on a reused keep-alive connection: the server's idle timeout closed it as this
    // request went out. Sent once more on a new connection (Node's documented remedy).
    if ((e as { reused?: boolean }).reused) return await sendOnce(r);
    throw e;
  }
}

function sendOnce(r: Req): Promise<Answer> {
  const qs = r.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return new Promise((resolve, reject) => {
    const req = request(
      `${emu.url}/v1${r.path}${qs ? `?${qs}` : ''}`,
      {
        method: r.method,
        agent,
        headers: {
          ...r.headers,
          ...(r.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(r.body) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', (e) => reject(Object.assign(e, { reused: req.reusedSocket && (e as NodeJS.ErrnoException).code === 'ECONNRESET' })));
    req.end(r.body);
  });
}

const describeReq = (r: Req): string =>
  `${r.kind}: ${r.method} /v1${r.path}${r.query.length ? `?${r.query.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join('&')}` : ''} ` +
  `headers ${JSON.stringify(r.headers)}${r.body === undefined ? '' : ` body ${r.body.slice(0, 400)}`}`;

/** What is wrong with an answer to `r` for the operation; empty when it is what the contract documents. */
function answerProblems(op: OperationObject, r: Req, a: Answer): string[] {
  const out: string[] = [];
  const documented = op.responses[String(a.status)];
  if (!documented) return [`status ${a.status} is not documented for ${op.operationId}: ${a.text.slice(0, 300)}`];
  const response = arbs.deref(documented as never) as unknown as ResponseObject;
  if (typeof a.headers['request-id'] !== 'string') out.push('no Request-Id header');
  for (const [name, h] of Object.entries(response.headers ?? {})) {
    const header = arbs.deref(h as never) as Obj;
    if (header.required === true && a.headers[name.toLowerCase()] === undefined && !(name === 'Deprecation' || name === 'Link'))
      out.push(`the ${a.status} answer lacks its required header ${name}`);
  }
  const content = response.content ?? {};
  const [mediaType] = Object.keys(content);
  if (mediaType === undefined) {
    if (a.text !== '') out.push(`the ${a.status} answer has a body where none is documented`);
    return out;
  }
  const type = String(a.headers['content-type'] ?? '');
  if (!type.startsWith(mediaType)) out.push(`content type ${type || '(none)'}, not ${mediaType}`);
  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    return [...out, `the body is not JSON: ${a.text.slice(0, 200)}`];
  }
  const schema = content[mediaType]!.schema as JsonSchema | undefined;
  if (schema && !accepts(schema, body))
    out.push(`the ${a.status} body does not match its schema: ${why(schema, body)}: ${a.text.slice(0, 400)}`);
  void r;
  return out;
}

/** Stands for a key never sent before: send() puts `conformance-<n>` in its place. */
const FRESH_KEY = '\u0000fresh';
let sent = 0;

/**
 * The rules a schema cannot state (they tie one field to another, to the clock or to a table) but
 * the contract states in words: a schema-valid body may be refused (422 `validation_error`) for
 * these and nothing else. Each names where the contract says it.
 */
const RULES_IN_WORDS: readonly RegExp[] = [
  /^must start with the country code [A-Z]{2}- \(got [A-Z0-9]{2}-\)$/, // Address.state: its first two letters equal `country`
  /^is not an ISO 3166-2 subdivision/, // Address.state: an ISO 3166-2 subdivision code
  /^must not be in the future$/, // date_of_birth
  /^must be in the future$/, // PaymentLinkCreate.expires_at
  /^[A-Z]{3,4} allows (no decimals|at most \d+ decimal places)$/, // Amount: decimals = the currency's exponent
  /^must differ from source_currency$/, // FxQuoteCreate
  /^is not one of [a-z_]+(?:, [a-z_]+)*; did you mean [a-z_]+\?$/, // CustomerCreate.type and gender: a near miss of a known value
  /^must differ from source_account_id$/, // TransferCreate, createTransfer
];
/** Codes of field errors the contract documents for results out of range (Amount: `out_of_range`). */
const RESULT_CODES = new Set(['out_of_range']);

/** 400 codes that say a parameter or header the request carried broke a rule. */
const PARAMETER_CODES = new Set([
  'invalid_parameter',
  'invalid_tenant',
  'missing_tenant',
  'invalid_idempotency_key',
  'missing_idempotency_key',
]);

// --- fixtures: objects of every kind, so generated ids can name real ones -----------------------

const harvest = (v: unknown): void => {
  if (Array.isArray(v)) v.forEach(harvest);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'id' && typeof x === 'string') {
        const m = /^([a-z]{1,10}_)[0-9a-z]{24}$/.exec(x);
        if (m) {
          const list = pool.get(m[1]!) ?? [];
          if (!list.includes(x)) list.push(x);
          pool.set(m[1]!, list);
        }
      } else harvest(x);
    }
  }
};

async function fixtures(): Promise<void> {
  const examples = new Map(exampleRequests(doc).map((r) => [r.operationId, r]));
  const idMap = (): Map<string, string> => {
    const m = new Map<string, string>();
    for (const [prefix, ids] of pool) {
      if (ids[0]) m.set(`${prefix}${EXAMPLE_SUFFIX}`, ids[0]);
      if (ids[1]) m.set(`${prefix}${SECOND_SUFFIX}`, ids[1]);
    }
    return m;
  };
  const call = async (method: string, path: string, body?: unknown): Promise<Obj> => {
    const a = await send({
      kind: 'fixture',
      method,
      path,
      query: [],
      headers: {
        'api-key': emu.keys.sandbox.secret,
        'x-tenant-id': emu.tenantId,
        ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (a.text ? JSON.parse(a.text) : {}) as Obj;
    if (a.status < 300) harvest(json);
    return json;
  };
  const example = async (operationId: string): Promise<Obj> => {
    const e = examples.get(operationId)!;
    const ids = idMap();
    return call(
      e.method,
      e.path.replace(/[a-z]+_[0-9a-z]{24}/g, (m) => ids.get(m) ?? m),
      substituteIds(e.body, ids),
    );
  };
  const customer = await example('createCustomer');
  await example('startKycVerification');
  await example('submitKycDocument');
  emu.admin.advance(SETTLE_S);
  for (const f of FEATURE_KEYS) await call('POST', `/customers/${customer.id}/features/${f}/activate`);
  await example('createAccount');
  await call('POST', '/accounts', { customer_id: customer.id, currency: 'EUR' });
  await example('createCollection');
  emu.admin.advance(SETTLE_S);
  for (const id of [
    'createExternalAccount',
    'createTransfer',
    'createCard',
    'createWallet',
    'createPaymentLink',
    'createFxQuote',
    'createFxTrade',
  ])
    await example(id);
  for (const op of operations) if (op.method === 'get' && !op.path.includes('{')) await call('GET', op.path);
}

beforeAll(async () => {
  emu = await startEmulator({ port: 0, settleAfterMs: SETTLE_S * 1000 });
  arbs = new SchemaArbitraries(doc, new Map());
  await fixtures();
  arbs = new SchemaArbitraries(doc, pool);
});
afterAll(async () => {
  agent.destroy();
  await emu?.stop();
  const total = counts.valid + counts.invalid;
  if (total > 0)
    console.info(
      `conformance: ${counts.byOperation.size} operations, ${total} requests (${counts.valid} valid, ${counts.invalid} invalid)`,
    );
  // CONFORMANCE_STATUSES=1: how each operation answered its valid requests (what the run reached).
  if (process.env.CONFORMANCE_STATUSES)
    console.info(
      [...counts.statuses]
        .sort()
        .map(([k, n]) => `${n} ${k}`)
        .join('\n'),
    );
});

// --- requests drawn from an operation's schemas -----------------------------------------------

/** A value the schema accepts, drawn as a string (parameters travel as text). */
function validParam(p: ParameterObject): fc.Arbitrary<string> {
  const schema = p.schema as JsonSchema;
  const edges = p.in === 'header' ? fc.constantFrom(' ', '   ', ' a', 'a ', '\t') : fc.constantFrom('', ' ', '0');
  return fc
    .oneof({ weight: 9, arbitrary: arbs.validOf(schema) }, { weight: 1, arbitrary: edges })
    .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
    .filter((v) => accepts(schema, queryValue(schema, v)));
}

function validRequest(op: LocatedOperation): fc.Arbitrary<Req> {
  const params = paramsOf(op);
  const path = params.filter((p) => p.in === 'path');
  const query = params.filter((p) => p.in === 'query');
  const tenant = params.find((p) => p.name === 'x-tenant-id')!;
  const idem = params.find((p) => p.name === 'Idempotency-Key');
  const bodySchema = op.operation.requestBody?.content['application/json']?.schema as JsonSchema | undefined;
  return fc
    .record({
      path: fc.tuple(...path.map((p) => validParam(p))),
      // Each filter half the time; a cursor one time in eight (a drawn one is not one the service
      // issued, a 400 that the check below lets through, and it hides what the filters do).
      query: fc.tuple(
        ...query.map((p) =>
          p.name === 'cursor'
            ? fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: validParam(p) })
            : fc.option(validParam(p), { nil: undefined, freq: 2 }),
        ),
      ),
      tenant: fc.oneof(
        { weight: 6, arbitrary: fc.constant(emu.tenantId) },
        { weight: 1, arbitrary: validParam(tenant) },
        ...(tenant.required ? [] : [{ weight: 1, arbitrary: fc.constant(undefined) }]),
      ),
      // Mostly a fresh key (FRESH_KEY: one per request sent, else every run would reuse the keys of
      // the previous operation's run, same seed), sometimes one drawn from the key's pattern.
      idem: idem
        ? fc.oneof({ weight: 4, arbitrary: fc.constant(FRESH_KEY) }, { weight: 1, arbitrary: validParam(idem) })
        : fc.constant(undefined),
      body: bodySchema ? arbs.validOf(bodySchema).filter((b) => accepts(bodySchema, b)) : fc.constant(undefined),
    })
    .map(({ path: values, query: qv, tenant: t, idem: k, body }) => {
      let i = 0;
      const headers: Record<string, string> = { 'api-key': emu.keys.sandbox.secret };
      if (t !== undefined) headers['x-tenant-id'] = t;
      if (k !== undefined) headers['idempotency-key'] = k;
      return {
        kind: 'valid',
        method: op.method.toUpperCase(),
        path: op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[i++]!)),
        query: query.flatMap((p, j) => (qv[j] === undefined ? [] : [[p.name, qv[j]] as [string, string]])),
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      };
    });
}

/** A string the parameter's schema refuses, as the server would get it. */
function invalidParam(p: ParameterObject): fc.Arbitrary<string> {
  const schema = p.schema as JsonSchema;
  return arbs
    .invalidString(schema)
    .filter((v) => (p.in === 'header' ? !/[^\t\x20-\x7e\x80-\xff]/.test(v) && v === onTheWire(v) : true))
    .filter((v) => !accepts(schema, queryValue(schema, v)));
}

function invalidRequest(op: LocatedOperation): fc.Arbitrary<Req> {
  const params = paramsOf(op);
  const bodySchema = op.operation.requestBody?.content['application/json']?.schema as JsonSchema | undefined;
  const known = new Set(params.filter((p) => p.in === 'query').map((p) => p.name));
  const ways: fc.Arbitrary<(r: Req) => Req>[] = [
    // A query parameter the operation does not have (an empty name too).
    fc
      .constantFrom('', ' ', 'foo', 'LIMIT', 'limit[]', 'a\tb', 'é', 'x'.repeat(100))
      .filter((k) => !known.has(k))
      .chain((k) =>
        fc.string({ maxLength: 4 }).map((v) => (r: Req) => ({
          ...r,
          kind: `unknown query parameter ${JSON.stringify(k)}`,
          query: [...r.query, [k, v] as [string, string]],
        })),
      ),
    // No key, or not a key of the service.
    fc.constantFrom<string | undefined>(undefined, 'sk_test_nope', emu.keys.sandbox.public).map((key) => (r: Req) => {
      const { 'api-key': _key, ...rest } = r.headers;
      return { ...r, kind: `Api-Key ${JSON.stringify(key ?? null)}`, headers: key === undefined ? rest : { ...rest, 'api-key': key } };
    }),
  ];
  for (const p of params) {
    if (p.in === 'query') {
      ways.push(
        invalidParam(p).map((v) => (r: Req) => ({
          ...r,
          kind: `query ${p.name}=${JSON.stringify(v)}`,
          query: [...r.query.filter(([k]) => k !== p.name), [p.name, v]],
        })),
      );
    } else if (p.in === 'header') {
      const name = p.name.toLowerCase();
      ways.push(
        invalidParam(p).map((v) => (r: Req) => ({
          ...r,
          kind: `header ${p.name}: ${JSON.stringify(v)}`,
          headers: { ...r.headers, [name]: v },
        })),
      );
      if (p.required) {
        ways.push(
          fc.constant((r: Req) => {
            const { [name]: _gone, ...rest } = r.headers;
            return { ...r, kind: `no ${p.name} header`, headers: rest };
          }),
        );
      }
    } else if (p.in === 'path') {
      const at = op.path.split('/').indexOf(`{${p.name}}`);
      ways.push(
        invalidParam(p)
          .filter((v) => v !== '')
          .map((v) => (r: Req) => {
            const segs = r.path.split('/');
            segs[at] = encodeURIComponent(v);
            return { ...r, kind: `path ${p.name}=${JSON.stringify(v)}`, path: segs.join('/') };
          }),
      );
    }
  }
  if (bodySchema) {
    ways.push(
      arbs
        .invalidOf(bodySchema)
        .filter((b) => !accepts(bodySchema, b))
        .map((b) => (r: Req) => ({ ...r, kind: `body ${why(bodySchema, b)}`, body: JSON.stringify(b) })),
    );
    ways.push(
      fc
        .constantFrom('{', '{"a":', 'nul', '[1,]', '\u0000')
        .map((text) => (r: Req) => ({ ...r, kind: `body not JSON ${JSON.stringify(text)}`, body: text })),
    );
  }
  return fc.tuple(validRequest(op), fc.oneof(...ways)).map(([r, breakIt]) => breakIt(r));
}

const tally = (op: OperationObject, kind: 'valid' | 'invalid'): void => {
  counts[kind]++;
  const c = counts.byOperation.get(op.operationId) ?? { valid: 0, invalid: 0 };
  c[kind]++;
  counts.byOperation.set(op.operationId, c);
};

describe('the emulator conforms to its printed contract', () => {
  it('covers every operation', () => {
    expect(operations.length).toBeGreaterThanOrEqual(50);
  });

  describe.each(operations.map((o) => [`${o.operation.operationId} (${o.method.toUpperCase()} ${o.path})`, o] as const))(
    '%s',
    (_name, op) => {
      it('answers schema-valid requests with a documented status and schema, never a 5xx or a refused parameter', async () => {
        await fc.assert(
          fc.asyncProperty(validRequest(op), async (r) => {
            tally(op.operation, 'valid');
            const a = await send(r);
            const key = `${op.operation.operationId} ${a.status}${a.status >= 400 ? ` ${(JSON.parse(a.text) as Obj).code}` : ''}`;
            counts.statuses.set(key, (counts.statuses.get(key) ?? 0) + 1);
            const problems = answerProblems(op.operation, r, a);
            if (a.status >= 500) problems.push(`a ${a.status} for a valid request`);
            if (a.status === 422) {
              const body = JSON.parse(a.text) as Obj;
              if (body.code === 'validation_error') {
                const unstated = ((body.errors ?? []) as Obj[]).filter(
                  (e) => !RESULT_CODES.has(e.code as string) && !RULES_IN_WORDS.some((re) => re.test(e.message as string)),
                );
                if (unstated.length > 0)
                  problems.push(`refused a schema-valid body for a rule the contract does not state: ${JSON.stringify(unstated)}`);
              }
            }
            if (a.status === 400) {
              const body = JSON.parse(a.text) as Obj;
              if (PARAMETER_CODES.has(body.code as string) && !(body.errors as Obj[] | undefined)?.every((e) => e.field === 'cursor'))
                problems.push(`refused a parameter or header the contract admits: ${a.text}`);
            }
            if (problems.length > 0) throw new Error(`${describeReq(r)}\n→ ${a.status}\n${problems.join('\n')}`);
          }),
          { seed: SEED, numRuns: VALID_RUNS, endOnFailure: true },
        );
      });

      it('answers schema-invalid requests with a 4xx problem of a documented status and schema', async () => {
        await fc.assert(
          fc.asyncProperty(invalidRequest(op), async (r) => {
            tally(op.operation, 'invalid');
            const a = await send(r);
            const problems = answerProblems(op.operation, r, a);
            if (a.status < 400 || a.status >= 500) problems.push(`a ${a.status} for an invalid request (not a 4xx)`);
            else if (!String(a.headers['content-type']).startsWith('application/problem+json')) problems.push('not a problem+json');
            if (problems.length > 0) throw new Error(`${describeReq(r)}\n→ ${a.status}\n${problems.join('\n')}`);
          }),
          { seed: SEED, numRuns: INVALID_RUNS, endOnFailure: true },
        );
      });
    },
  );
});
