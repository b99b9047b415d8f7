// The published contract (src/api/openapi.ts) and the command tree (src/commands/) agree:
//   1. every operation of the contract's `paths` (not the `webhooks` deliveries, which the service
//      sends and pay only receives) is reachable: a verb of the registered tree names its
//      operationId with the same method and the same path template, parameter names included;
//   2. every verb that calls the API, run as the built binary against a recording server with
//      arguments derived from its flag specs, sends what the contract describes: the method and
//      path of its operation (path values valid for their parameters), only declared query
//      parameters with valid values, the declared headers (Idempotency-Key on POST, x-tenant-id on
//      GET /accounts), and a JSON body that validates against the operation's request schema;
//   3. the checks are not vacuous: a body with an undeclared field, a misspelt field name in a
//      spec, a misspelt query name and a wrong path are all caught.
// Needs dist/ (npm run build).
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParameterObject, ResponseObject, Schema } from '../../src/api/contract/types.js';
import { openapi } from '../../src/api/openapi.js';
import { allGroups } from '../../src/commands/groups.js';
import { specOf } from '../../src/cmdutil/registry.js';
import { camel, type FlagSpec, type GroupSpec, type VerbSpec } from '../../src/cmdutil/spec.js';
import { buildBody, buildListQuery, longFlag } from '../../src/verbs/values.js';
import { getPath } from '../../src/io/fields.js';
import type { Factory } from '../../src/cmdutil/factory.js';
import { buildProgram } from '../../src/commands/tree.js';
import { startRecordingServer, type Recorded, type Scripted } from '../helpers/recording-server.js';
import { cleanEnv, registerSecret, runPay, tempDir, type PayResult } from '../helpers/run-pay.js';
import {
  allOperations,
  operationById,
  operationOfRequest,
  requestBodySchema,
  resolve,
  successStatus,
  validateAgainst,
  type LocatedOperation,
} from './contract-helpers.js';

const KEY = 'sk_test_T7reeC0ntract5ampleKey0123456';
const TENANT = 'biz_1';
/** 24 characters of [0-9a-z], different from the examples' suffix so nothing is copied from them. */
const SUFFIX = 'q7w8e9r0t1y2u3i4o5p6a7s8';
const idFor = (prefix: string) => `${prefix.split('|')[0]}${SUFFIX}`;
const EMPTY_LIST = { object: 'list', data: [], has_more: false, next_cursor: null };
const PARALLEL = 4;

// ---------------------------------------------------------------------------------------------
// The verbs and their operations

interface VerbRef {
  group: GroupSpec;
  verb: VerbSpec;
  name: string;
}
const verbs: VerbRef[] = allGroups.flatMap((group) => group.verbs.map((verb) => ({ group, verb, name: `${group.name} ${verb.name}` })));
const apiVerbs = verbs.filter(({ verb }) => !verb.offline);
const opOf = (verb: VerbSpec): LocatedOperation => operationById(verb.operationId);

// ---------------------------------------------------------------------------------------------
// Argument values derived from flag specs

/** Realistic free text by field or query name (the last segment of a dotted field). */
const TEXT: Record<string, string> = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  middle_name: 'Augusta',
  address_line1: '1 Main St',
  city: 'London',
  postal_code: 'SW1A 1AA',
  number: '123456789',
  file_name: 'passport.pdf',
  nickname: 'Rainy day',
  account_holder_name: 'Ada Lovelace',
  bank_name: 'Barclays',
  account_number: '31926819',
  routing_number: '400515',
  iban: 'GB29NWBK60161331926819',
  description: 'Invoice 42',
  reference: 'inv-42',
  name_on_card: 'ADA LOVELACE',
  label: 'Payouts',
  type: 'individual',
};

/** A value for a flag (true: a boolean flag, given bare). */
function sampleValue(flag: FlagSpec): string | true {
  const key = (flag.field ?? flag.query ?? flag.pathParam ?? '').split('.').pop()!;
  switch (flag.kind) {
    case 'id':
      // An id of its own per flag: two id flags swapped on their way to the request show.
      return `${(flag.idPrefix ?? '').split('|')[0]}${createHash('sha256').update(longFlag(flag)).digest('hex').slice(0, 24)}`;
    case 'enum':
      return flag.choices?.[0] ?? TEXT[key] ?? 'sample';
    case 'email':
      return 'ada@example.com';
    case 'phone':
      return '+447700900123';
    case 'date':
      return '1990-12-10';
    case 'datetime':
      // A date for a lower bound and an RFC 3339 time for an upper one: both accepted forms.
      return key === 'to' ? '2026-02-01T00:00:00Z' : '2026-01-01';
    case 'country':
      return 'GB';
    case 'state':
      return 'GB-LND';
    case 'amount':
      return '10.50';
    case 'currency':
      return flag.choices?.[0] ?? (flag.list ? 'EUR,USD' : 'GBP');
    case 'int':
      return flag.default ?? '5';
    case 'bool':
      return true;
    case 'url':
      return 'https://example.com/hooks';
    case 'timestamp':
      return '2030-01-31T12:00:00Z';
    case 'decimal':
      return '500.00';
    default:
      return TEXT[key] ?? 'Sample text';
  }
}

interface Variant {
  /** Shown after the verb name. */
  label?: string;
  /** Values by long flag (`--to`); true: a bare boolean flag. */
  set?: Record<string, string | true>;
  /** Long flags to leave out. */
  omit?: string[];
  /** The success body to answer (default: an empty list envelope for lists, else an object). */
  respond?: Scripted[];
  /** Extra argv (after the derived flags). */
  extra?: string[];
}

const SHIPPING = ['--address-line1', '--city', '--country', '--postal-code', '--state'];
const MOBILE = ['--mobile-phone', '--mobile-provider'];

/**
 * Where the flags' constraints rule out "every flag at once", the realistic combinations.
 * A verb not listed runs once with every flag it has.
 */
const VARIANTS: Record<string, Variant[]> = {
  // --since/--until are other names of --from/--to: one name of each filter at a time.
  'transactions list': [
    { label: 'by --from and --to', omit: ['--since', '--until'] },
    { label: 'by --since and --until', omit: ['--from', '--to'] },
  ],
  'fx quote': [
    { label: 'selling an amount', set: { '--from': 'USD', '--to': 'EUR' }, omit: ['--target-amount'] },
    { label: 'buying an amount', set: { '--from': 'GBP', '--to': 'NGN', '--target-amount': '500000' }, omit: ['--amount'] },
  ],
  'collections create': [
    { label: 'by card', set: { '--method': 'card', '--currency': 'USD' }, omit: MOBILE },
    {
      label: 'by card, --wait: polled until it settles',
      set: { '--method': 'card', '--currency': 'USD' },
      omit: MOBILE,
      extra: ['--wait', '--wait-timeout', '30'],
      respond: [
        { status: 201, body: { id: idFor('col_'), object: 'collection', status: 'pending' } },
        { status: 200, body: { id: idFor('col_'), object: 'collection', status: 'succeeded' } },
      ],
    },
    {
      label: 'by mobile money',
      set: {
        '--method': 'mobile_money',
        '--currency': 'KES',
        '--amount': '1500',
        '--mobile-phone': '+254712345678',
        '--mobile-provider': 'mpesa',
      },
    },
  ],
  'cards issue': [
    { label: 'virtual with a spending limit', set: { '--type': 'virtual', '--spending-interval': 'monthly' }, omit: SHIPPING },
    {
      label: 'physical with a shipping address',
      set: { '--type': 'physical', '--city': 'Austin', '--country': 'US', '--postal-code': '78701', '--state': 'US-TX' },
      omit: ['--spending-limit', '--spending-interval'],
    },
  ],
  'transfers send': [
    { label: 'to an account' },
    {
      label: 'to an external account, --wait',
      set: { '--to': idFor('ea_') },
      extra: ['--wait', '--wait-timeout', '5'],
      // Completed at once: --wait has nothing to poll.
      respond: [{ status: 201, body: { id: idFor('tr_'), object: 'transfer', status: 'completed', failure_reason: null } }],
    },
  ],
  'kyc submit-document': [
    { label: 'the document' },
    {
      label: '--wait: the verification it joined, polled until decided',
      extra: ['--wait', '--wait-timeout', '30'],
      respond: [
        {
          status: 201,
          body: {
            id: idFor('doc_'),
            object: 'kyc_document',
            verification_id: idFor('kyc_'),
            customer_id: idFor('cus_'),
            status: 'received',
          },
        },
        { status: 200, body: { id: idFor('kyc_'), object: 'kyc_verification', customer_id: idFor('cus_'), status: 'approved' } },
      ],
    },
  ],
  'webhooks resend': [
    { label: 'requeued' },
    {
      label: '--wait: polled until delivered',
      extra: ['--wait', '--wait-timeout', '30'],
      respond: [
        { status: 202, body: { id: idFor('evt_'), object: 'event', type: 'customer.created', delivery: { status: 'pending' } } },
        { status: 200, body: { id: idFor('evt_'), object: 'event', type: 'customer.created', delivery: { status: 'delivered' } } },
      ],
    },
  ],
  'wallets create': [{ label: 'BTC on bitcoin' }, { label: 'USDC on polygon', set: { '--asset': 'USDC', '--network': 'polygon' } }],
  'external-accounts add': [
    { label: 'GB with an IBAN', omit: ['--routing-number'] },
    {
      label: 'US with a routing number',
      set: { '--country': 'US', '--currency': 'USD', '--account-number': '000123456789', '--routing-number': '021000021' },
      omit: ['--iban'],
    },
  ],
  'customers list': [
    { label: 'one page' },
    {
      label: '--all, two pages',
      extra: ['--all'],
      respond: [
        {
          status: 200,
          body: { object: 'list', data: [{ id: idFor('cus_'), object: 'customer' }], has_more: true, next_cursor: 'cur_page2' },
        },
      ],
    },
  ],
};

interface Case {
  ref: VerbRef;
  op: LocatedOperation;
  label: string;
  argv: string[];
  /** The flags given, with their values. */
  given: Array<{ flag: FlagSpec; value: string | true }>;
  argValue: string | undefined;
  respond: Scripted[];
  fallback: Scripted;
}

/** A plausible object for a success answer: the id and `object` of the operation's result schema. */
function objectFor(op: LocatedOperation): Record<string, unknown> {
  if (op.operation.operationId === 'getFxRates')
    return { object: 'fx_rates', base: 'GBP', rates: { EUR: '1.15', USD: '1.27' }, as_of: '2026-01-01T00:00:00.000Z' };
  const response = resolve<ResponseObject>(op.operation.responses[successStatus(op.operation)]!);
  const schema = resolve<Schema>(response.content?.['application/json']?.schema as Schema);
  // An allOf (an event with its attempts) takes the properties of its parts.
  const parts = [schema, ...((schema.allOf ?? []) as Schema[]).map((s) => resolve<Schema>(s))];
  const props = Object.assign({}, ...parts.map((s) => s.properties ?? {})) as Record<string, Schema>;
  const prefix = /^\^([a-z]+_)/.exec(typeof props.id?.pattern === 'string' ? props.id.pattern : '')?.[1] ?? 'obj_';
  const object = typeof props.object?.const === 'string' ? props.object.const : 'object';
  return { id: idFor(prefix), object, livemode: false, status: 'completed', created_at: '2026-01-01T00:00:00.000Z' };
}

function caseFor(ref: VerbRef, variant: Variant = {}): Case {
  const { verb } = ref;
  const op = opOf(verb);
  const argv = [...ref.name.split(' ')];
  const argValue = verb.arg ? idFor(verb.arg.idPrefix ?? '') : undefined;
  if (argValue) argv.push(argValue);
  const given: Case['given'] = [];
  for (const flag of verb.flags ?? []) {
    const name = longFlag(flag);
    if (variant.omit?.includes(name)) continue;
    const value = variant.set?.[name] ?? sampleValue(flag);
    given.push({ flag, value });
    argv.push(...(value === true ? [name] : [name, value]));
  }
  if (verb.kind === 'list') argv.push('--limit', '250');
  argv.push(...(variant.extra ?? []), '--json');
  const status = Number(successStatus(op.operation));
  // A composite verb reads objects and lists: the answer serves as both (an object that is an empty
  // page), about the customer asked for (the overview checks that each answer is that customer's).
  const fallback: Scripted =
    verb.kind === 'list'
      ? { status, body: EMPTY_LIST }
      : { status, body: verb.composite ? { ...objectFor(op), customer_id: idFor('cus_'), ...EMPTY_LIST } : objectFor(op) };
  return {
    ref,
    op,
    label: `${ref.name}${variant.label ? ` (${variant.label})` : ''}`,
    argv,
    given,
    argValue,
    respond: variant.respond ?? [],
    fallback,
  };
}

const cases: Case[] = apiVerbs.flatMap((ref) => (VARIANTS[ref.name] ?? [{}]).map((v) => caseFor(ref, v)));

// ---------------------------------------------------------------------------------------------
// Running the binary, at most PARALLEL at a time, each against its own recording server

interface Outcome {
  result: PayResult;
  requests: Recorded[];
}

let configDir: string;
let active = 0;
const waiting: Array<() => void> = [];
async function limited<T>(task: () => Promise<T>): Promise<T> {
  if (active < PARALLEL) active++;
  else await new Promise<void>((r) => waiting.push(r)); // the finishing task hands its slot over
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else active--;
  }
}

async function runAgainstServer(
  argv: string[],
  respond: Scripted[],
  fallback: Scripted,
  extraEnv: Record<string, string | undefined> = {},
): Promise<Outcome> {
  return limited(async () => {
    const server = await startRecordingServer(fallback);
    server.queue.push(...respond);
    try {
      const env = cleanEnv({
        PAY_CONFIG_DIR: configDir,
        PAY_BASE_URL: server.baseUrl,
        PAY_API_KEY: KEY,
        PAY_TENANT_ID: TENANT,
        PAY_NO_INPUT: '1',
        ...extraEnv,
      });
      const result = await runPay(argv, { env });
      return { result, requests: [...server.requests] };
    } finally {
      await server.close();
    }
  });
}

const outcomes = new Map<Case, Promise<Outcome>>();
function outcome(c: Case): Promise<Outcome> {
  let p = outcomes.get(c);
  if (!p) {
    p = runAgainstServer(c.argv, c.respond, c.fallback);
    outcomes.set(c, p);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// Checking a recorded request against its operation

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const DOC = 'https://pay.dev/tree-test/openapi.json';
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Local `#/…` references made absolute, so a parameter's schema compiles on its own. */
function absolute(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absolute);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC}${v}` : absolute(v)]),
    );
  }
  return value;
}

/** Errors of a parameter value against the parameter's schema (strings coerced to integers where the schema says so). */
function parameterErrors(param: ParameterObject, raw: string): string[] {
  const key = JSON.stringify(param.schema);
  let validate = compiled.get(key);
  if (!validate) {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema(structuredClone(openapi), DOC);
    }
    validate = ajv.compile({ $id: `${DOC}/param/${compiled.size}`, ...(absolute(param.schema) as Schema) });
    compiled.set(key, validate);
  }
  const type = resolve<Schema>(param.schema).type;
  const value = (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${param.in} ${param.name}${e.instancePath} ${e.message ?? e.keyword}`);
}

const parametersOf = (op: LocatedOperation) => (op.operation.parameters ?? []).map((p) => resolve<ParameterObject>(p as ParameterObject));

/** The path parameter values of a recorded path (`/v1/...`) when it matches the template; undefined when not. */
/** Whether a request is the case's own operation (its method and path). */
function ownRequest(c: { op: { method: string; path: string } }, req: { method: string; path: string }): boolean {
  return req.method === c.op.method.toUpperCase() && matchPath(c.op.path, req.path) !== undefined;
}

function matchPath(template: string, recordedPath: string): Record<string, string> | undefined {
  const names: string[] = [];
  const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const m = new RegExp(`^/v1${source}$`).exec(recordedPath);
  if (!m) return undefined;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
}

/** Query parameter names the operation does not declare. */
function undeclaredQuery(op: LocatedOperation, query: Record<string, unknown>): string[] {
  const declared = new Set(
    parametersOf(op)
      .filter((p) => p.in === 'query')
      .map((p) => p.name),
  );
  return Object.keys(query).filter((k) => !declared.has(k));
}

/** Every way a recorded request departs from its operation (empty when it conforms). */
function requestProblems(op: LocatedOperation, req: Recorded): string[] {
  const problems: string[] = [];
  const params = parametersOf(op);
  if (req.method !== op.method.toUpperCase()) problems.push(`method ${req.method}, the contract says ${op.method.toUpperCase()}`);
  const pathValues = matchPath(op.path, req.path);
  if (!pathValues) problems.push(`path ${req.path} does not match ${op.path}`);
  for (const p of params) {
    if (p.in === 'path') {
      const v = pathValues?.[p.name];
      if (v === undefined) problems.push(`path parameter ${p.name} missing`);
      else problems.push(...parameterErrors(p, v));
    } else if (p.in === 'query') {
      const v = req.query[p.name];
      if (v === undefined) {
        if (p.required) problems.push(`required query parameter ${p.name} missing`);
      } else problems.push(...parameterErrors(p, v));
    } else {
      const v = req.headers[p.name.toLowerCase()];
      if (v === undefined) {
        if (p.required) problems.push(`required header ${p.name} missing`);
      } else problems.push(...parameterErrors(p, String(v)));
    }
  }
  for (const q of undeclaredQuery(op, req.query)) problems.push(`query parameter ${q} is not declared by ${op.operation.operationId}`);
  if (req.headers['api-key'] !== KEY) problems.push('Api-Key header missing or not the key');
  if (op.method === 'post' || op.method === 'patch') {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
      problems.push(`content-type ${String(req.headers['content-type'])}`);
    if (req.json === undefined) problems.push(`no JSON body (raw: ${JSON.stringify(req.body.slice(0, 80))})`);
    else problems.push(...validateAgainst(op.operation.operationId, 'request', undefined, req.json).map((e) => `body ${e}`));
  } else if (req.body !== '') {
    problems.push(`a ${req.method} with a body: ${req.body.slice(0, 80)}`);
  }
  return problems;
}

const show = (c: Case, o: Outcome) =>
  `pay ${c.argv.join(' ')}\nexit ${o.result.code}\nstderr: ${o.result.stderr.slice(0, 800)}\nrequests: ${o.requests.map((r) => `${r.method} ${r.path}`).join(', ')}`;

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  const built = await runPay(['--version']);
  if (built.code !== 0) throw new Error(`bin/pay.js does not run (npm run build first?): ${built.stderr.slice(0, 300)}`);
  registerSecret(KEY);
  configDir = tempDir('pay-tree-config-');
});
afterAll(() => {
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

describe('every contract operation is reachable by a command', () => {
  const program = buildProgram();
  const commandOf = (group: string, verb: string): Command | undefined =>
    program.commands.find((c) => c.name() === group)?.commands.find((c) => c.name() === verb);

  it('the contract has the 52 operations the design notes list, and only paths count (not webhook deliveries)', () => {
    expect(allOperations()).toHaveLength(52);
    expect(Object.keys(openapi.webhooks ?? {}).length).toBeGreaterThan(0);
  });

  it.each(allOperations().map((o) => [`${o.method.toUpperCase()} ${o.path} (${o.operation.operationId})`, o] as const))('%s', (_n, o) => {
    const found = apiVerbs.filter(({ verb }) => verb.operationId === o.operation.operationId);
    expect(
      found.map((f) => f.name),
      'a verb names this operationId',
    ).not.toEqual([]);
    for (const { group, verb, name } of found) {
      expect(verb.method, `${name}: method`).toBe(o.method.toUpperCase());
      // Parameter names included: `customers/{customer_id}`, not `customers/{id}`.
      expect(`/${verb.path}`, `${name}: path template`).toBe(o.path);
      const cmd = commandOf(group.name, verb.name);
      expect(cmd, `pay ${name} is registered`).toBeDefined();
      expect(specOf.get(cmd!)?.verb).toBe(verb);
    }
  });

  it.each(apiVerbs.map((v) => [v.name, v] as const))(
    'pay %s names an operation of the contract, with its method and path',
    (_n, { verb }) => {
      const op = opOf(verb);
      expect(`${verb.method} /${verb.path}`).toBe(`${op.method.toUpperCase()} ${op.path}`);
    },
  );

  it('offline verbs name no operation', () => {
    for (const { verb, name } of verbs.filter((v) => v.verb.offline)) expect(verb.operationId, name).toBe('');
  });
});

describe.concurrent('every command sends a request the contract accepts', () => {
  it.each(cases.map((c) => [c.label, c] as const))('pay %s', async (_n, c) => {
    const o = await outcome(c);
    expect(o.result.code, show(c, o)).toBe(0);
    expect(() => JSON.parse(o.result.stdout), `stdout is JSON: ${o.result.stdout.slice(0, 200)}`).not.toThrow();
    expect(o.requests.length, show(c, o)).toBeGreaterThan(0);
    for (const [i, req] of o.requests.entries()) {
      // A composite verb's requests are each checked against the operation they call, and so are
      // the polls of --wait (after the verb's own request).
      // A verb of its own (impl) may read first (features activate reads the feature's status): a
      // GET that is not its operation is checked against the operation it calls.
      const readFirst = c.ref.verb.impl !== undefined && req.method === 'GET' && !ownRequest(c, req);
      const op = c.ref.verb.composite || (c.ref.verb.wait && i > 0) || readFirst ? operationOfRequest(req.method, req.path) : c.op;
      expect(op, `${req.method} ${req.path} is an operation of the contract`).toBeDefined();
      expect(requestProblems(op!, req), `${req.method} ${req.path} ${req.body}`).toEqual([]);
    }

    // A composite verb's own operation is among its requests, in whatever order they went.
    const req = c.ref.verb.composite
      ? o.requests.find((r) => matchPath(c.op.path, r.path))
      : (o.requests.find((r) => ownRequest(c, r)) ?? o.requests[0]);
    expect(req, `${c.op.method.toUpperCase()} ${c.op.path} was sent`).toBeDefined();
    if (c.op.method === 'post') expect(req!.headers['idempotency-key'], 'POST carries an Idempotency-Key').toMatch(/^[\x21-\x7e]{1,255}$/);
    if (c.op.operation.operationId === 'listAccounts') expect(req!.headers['x-tenant-id']).toBe(TENANT);

    // Every flag given reached the request where its spec says: the body field, the query
    // parameter or the path parameter (so a typo in a field name shows as a schema error above).
    const pathValues = matchPath(c.op.path, req!.path)!;
    // With the value given (as the wire carries it: an integer flag as a number in a body, every
    // query value as text).
    for (const { flag, value } of c.given) {
      const text = value === true ? 'true' : value;
      // An amount is written out to its currency's precision ("1500" → "1500.00"): the same number, as a string.
      const sent = flag.field ? getPath(req!.json, flag.field) : undefined;
      if (flag.field && flag.kind === 'amount')
        expect([typeof sent, Number(sent)], `${longFlag(flag)} → body ${flag.field}: ${String(sent)}`).toEqual(['string', Number(value)]);
      else if (flag.field)
        expect(sent, `${longFlag(flag)} → body ${flag.field}`).toEqual(value === true ? true : flag.kind === 'int' ? Number(value) : value);
      if (flag.query) expect(req!.query[flag.query], `${longFlag(flag)} → query ${flag.query}`).toBe(text);
      if (flag.pathParam) expect(pathValues[flag.pathParam], `${longFlag(flag)} → path {${flag.pathParam}}`).toBe(text);
    }
    if (c.ref.verb.arg?.field) expect(getPath(req!.json, c.ref.verb.arg.field)).toBe(c.argValue);
    else if (c.argValue) expect(Object.values(pathValues)).toContain(c.argValue);
  });
});

describe('coverage of the runs', () => {
  it('the runs called every operation of the contract', async () => {
    const done = await Promise.all(cases.map(async (c) => ({ c, o: await outcome(c) })));
    const called = new Set<string>();
    for (const { c, o } of done)
      for (const r of o.requests)
        if (matchPath(c.op.path, r.path) && r.method === c.op.method.toUpperCase()) called.add(c.op.operation.operationId);
    expect(
      allOperations()
        .map((o) => o.operation.operationId)
        .filter((id) => !called.has(id)),
    ).toEqual([]);
  });

  it('every flag of every verb that calls the API was given in some run', () => {
    const missing: string[] = [];
    for (const ref of apiVerbs) {
      const given = new Set(cases.filter((c) => c.ref === ref).flatMap((c) => c.given.map((g) => g.flag)));
      for (const flag of ref.verb.flags ?? []) if (!given.has(flag)) missing.push(`${ref.name} ${longFlag(flag)}`);
    }
    expect(missing).toEqual([]);
  });

  it('--wait polls an operation of the contract: a GET of the object the verb answered (or, for a KYC document, its verification)', async () => {
    const polled = cases.filter((x) => x.label.includes('polled'));
    expect(polled.length).toBe(3);
    for (const c of polled) {
      const o = await outcome(c);
      expect(o.requests.map((r) => r.method)).toEqual([c.op.method.toUpperCase(), 'GET']);
      const id = operationOfRequest('GET', o.requests[1]!.path)?.operation.operationId;
      expect(['getCollection', 'getKycVerification', 'getWebhookEvent']).toContain(id);
    }
  });

  it('list verbs asked for a page size the contract allows and followed the cursor with --all', async () => {
    const c = cases.find((x) => x.label.startsWith('customers list (--all'))!;
    const o = await outcome(c);
    expect(o.requests.map((r) => r.query.cursor)).toEqual([undefined, 'cur_page2']);
    for (const r of o.requests) expect(Number(r.query.limit)).toBeLessThanOrEqual(100);
  });
});

/** The schema of a dotted body field in an operation's request schema (through `$ref`s), or undefined. */
function fieldSchema(operationId: string, field: string): Schema | undefined {
  let node: Schema | undefined = requestBodySchema(operationId);
  for (const part of field.split('.')) {
    const props = node?.properties as Record<string, Schema> | undefined;
    node = props?.[part] === undefined ? undefined : resolve<Schema>(props[part]);
  }
  return node;
}

/** The enum of a schema, looking through `$ref` and one level of anyOf/oneOf (nullable or unions). */
function enumOf(schema: Schema | undefined): string[] | undefined {
  if (!schema) return undefined;
  const s = resolve<Schema>(schema);
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).filter((v): v is string => typeof v === 'string');
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (!alternatives) return undefined;
  const parts = alternatives.map(enumOf);
  if (parts.some((p) => p === undefined && resolve<Schema>(alternatives[parts.indexOf(p)]!).type !== 'null')) return undefined;
  return parts.flatMap((p) => p ?? []);
}

describe('flag choices agree with the contract', () => {
  const withChoices = apiVerbs.flatMap((ref) => (ref.verb.flags ?? []).filter((f) => f.choices).map((flag) => ({ ref, flag })));

  it.each(withChoices.map((x) => [`${x.ref.name} ${longFlag(x.flag)}`, x] as const))(
    'pay %s: every choice is a value the contract accepts',
    (_n, { ref, flag }) => {
      const op = opOf(ref.verb);
      const param = parametersOf(op).find(
        (p) =>
          (flag.query && p.in === 'query' && p.name === flag.query) || (flag.pathParam && p.in === 'path' && p.name === flag.pathParam),
      );
      const schema = flag.field ? fieldSchema(op.operation.operationId, flag.field) : param?.schema;
      expect(schema, `the contract declares ${flag.field ?? flag.query ?? flag.pathParam}`).toBeDefined();
      const check = param ?? ({ name: flag.field!, in: 'query', description: '', schema: schema! } satisfies ParameterObject);
      for (const choice of flag.choices!) expect(parameterErrors(check, choice), `${longFlag(flag)} ${choice}`).toEqual([]);
      // And the other way round: a closed flag offers every value the contract knows.
      const known = enumOf(schema);
      if (known && !flag.open)
        expect([...flag.choices!].sort(), `${longFlag(flag)} offers the contract's values`).toEqual([...known].sort());
    },
  );
});

describe('the checks catch drift (they are not vacuous)', () => {
  const bodyCases = cases.filter((c) => c.op.method === 'post' || c.op.method === 'patch');

  it.each(bodyCases.map((c) => [c.label, c] as const))('pay %s: its body plus an undeclared field fails the schema', async (_n, c) => {
    const o = await outcome(c);
    const body = (o.requests.find((r) => ownRequest(c, r)) ?? o.requests[0])?.json as Record<string, unknown>;
    expect(body).toBeTypeOf('object');
    expect(validateAgainst(c.op.operation.operationId, 'request', undefined, body)).toEqual([]);
    expect(validateAgainst(c.op.operation.operationId, 'request', undefined, { ...body, not_in_the_contract: 'x' }).join('\n')).toContain(
      '(not_in_the_contract)',
    );
  });

  it('a command that sends a field the schema forbids (through --data) is caught, or the command refuses it', async () => {
    const c = cases.find((x) => x.label === 'accounts create')!;
    const o = await runAgainstServer([...c.argv, '--data', '{"colour":"blue"}'], [], c.fallback);
    if (o.requests.length === 0) {
      expect(o.result.code).not.toBe(0);
      return;
    }
    expect(o.requests[0]!.json).toMatchObject({ colour: 'blue' });
    expect(requestProblems(c.op, o.requests[0]!).join('\n')).toContain('(colour)');
  });

  it('a misspelt body field in a verb spec would fail the schema (customers create: address.postcode)', async () => {
    const ref = apiVerbs.find((v) => v.name === 'customers create')!;
    const drifted: VerbSpec = {
      ...ref.verb,
      flags: ref.verb.flags!.map((f) => (f.field === 'address.postal_code' ? { ...f, field: 'address.postcode' } : f)),
    };
    const opts = Object.fromEntries(caseFor(ref).given.map(({ flag, value }) => [camel(flag.flags), value]));
    const good = await buildBody({} as Factory, ref.verb, opts);
    const bad = await buildBody({} as Factory, drifted, opts);
    expect(validateAgainst('createCustomer', 'request', undefined, good)).toEqual([]);
    expect(validateAgainst('createCustomer', 'request', undefined, bad).join('\n')).toMatch(/postcode|postal_code/);
  });

  it('a misspelt top-level body field would fail the schema (accounts create: nick_name)', async () => {
    const ref = apiVerbs.find((v) => v.name === 'accounts create')!;
    const drifted: VerbSpec = {
      ...ref.verb,
      flags: ref.verb.flags!.map((f) => (f.field === 'nickname' ? { ...f, field: 'nick_name' } : f)),
    };
    const opts = Object.fromEntries(caseFor(ref).given.map(({ flag, value }) => [camel(flag.flags), value]));
    expect(validateAgainst('createAccount', 'request', undefined, await buildBody({} as Factory, drifted, opts)).join('\n')).toContain(
      '(nick_name)',
    );
  });

  it('a misspelt query name in a verb spec would be reported (accounts list: customer)', () => {
    const ref = apiVerbs.find((v) => v.name === 'accounts list')!;
    const drifted: VerbSpec = {
      ...ref.verb,
      flags: ref.verb.flags!.map((f) => (f.query === 'customer_id' ? { ...f, query: 'customer' } : f)),
    };
    const opts = Object.fromEntries(caseFor(ref).given.map(({ flag, value }) => [camel(flag.flags), value]));
    const op = opOf(ref.verb);
    expect(undeclaredQuery(op, buildListQuery(ref.verb, opts).query)).toEqual([]);
    expect(undeclaredQuery(op, buildListQuery(drifted, opts).query)).toEqual(['customer']);
  });

  it('wrong method, path, id, query value, missing headers and a number amount are reported', () => {
    const base = (over: Partial<Recorded>): Recorded => ({
      method: 'POST',
      path: '/v1/transfers',
      query: {},
      headers: { 'api-key': KEY, 'content-type': 'application/json', 'idempotency-key': 'k1' },
      body: '',
      json: { source_account_id: idFor('acc_'), destination_id: idFor('ea_'), amount: '10.50', currency: 'USD' },
      ...over,
    });
    const transfer = operationById('createTransfer');
    expect(requestProblems(transfer, base({}))).toEqual([]);
    expect(requestProblems(transfer, base({ method: 'PUT' })).join('\n')).toContain('method PUT');
    expect(requestProblems(transfer, base({ path: '/v1/transfer' })).join('\n')).toContain('does not match');
    expect(requestProblems(transfer, base({ headers: { 'api-key': KEY, 'content-type': 'application/json' } })).join('\n')).toContain(
      'Idempotency-Key missing',
    );
    expect(
      requestProblems(
        transfer,
        base({ json: { source_account_id: idFor('acc_'), destination_id: idFor('ea_'), amount: 10.5, currency: 'USD' } }),
      ).join('\n'),
    ).toContain('/amount');

    const accounts = operationById('listAccounts');
    const list = (over: Partial<Recorded>) =>
      base({ method: 'GET', path: '/v1/accounts', headers: { 'api-key': KEY, 'x-tenant-id': TENANT }, json: undefined, ...over });
    expect(requestProblems(accounts, list({}))).toEqual([]);
    expect(requestProblems(accounts, list({ headers: { 'api-key': KEY } })).join('\n')).toContain('x-tenant-id missing');
    expect(requestProblems(accounts, list({ query: { limit: '250' } })).join('\n')).toContain('query limit');
    expect(requestProblems(accounts, list({ query: { status: 'frozen' } })).join('\n')).toContain('query status');

    const card = operationById('getCard');
    expect(
      requestProblems(card, base({ method: 'GET', path: `/v1/cards/${idFor('card_')}`, headers: { 'api-key': KEY }, json: undefined })),
    ).toEqual([]);
    expect(
      requestProblems(card, base({ method: 'GET', path: `/v1/cards/${idFor('acc_')}`, headers: { 'api-key': KEY }, json: undefined })).join(
        '\n',
      ),
    ).toContain('path card_id');
  });

  it('pay accounts list without a tenant id sends nothing (x-tenant-id is required there)', async () => {
    const c = cases.find((x) => x.label === 'accounts list')!;
    const o = await runAgainstServer(c.argv, [], c.fallback, { PAY_TENANT_ID: undefined });
    expect(o.result.code).not.toBe(0);
    expect(o.requests).toEqual([]);
  });
});

// One at a time, after the runs above: queued behind them on the same PARALLEL slots, concurrent
// dry runs would stretch the wait of every run past its timeout on a busy machine.
describe('--dry-run on every verb that sends POST, PATCH or DELETE', () => {
  const program = buildProgram();
  const writes = cases.filter((c) => c.ref.verb.method !== 'GET');

  it('those verbs take --dry-run, and no GET verb does', () => {
    expect(writes.length).toBeGreaterThan(20);
    for (const { group, verb, name } of verbs) {
      const cmd = program.commands.find((c) => c.name() === group.name)!.commands.find((c) => c.name() === verb.name)!;
      const has = cmd.options.some((o) => o.long === '--dry-run');
      expect(has, `pay ${name} --dry-run`).toBe(verb.method !== 'GET' && !verb.offline);
    }
  });

  it.each(writes.map((c) => [c.label, c] as const))(
    'pay %s --dry-run prints the request the real run sends, and sends nothing',
    async (_n, c) => {
      const real = await outcome(c);
      const dry = await runAgainstServer([...c.argv, '--dry-run'], c.respond, c.fallback);
      expect(dry.result.code, show(c, dry)).toBe(0);
      expect(dry.requests.filter((r) => r.method !== 'GET')).toEqual([]);
      // (The deprecated verbs' warning comes first.)
      expect(dry.result.stderr.replace(/^warning: .* deprecated API.*\n/, '')).toBe('dry run: nothing was sent\n');
      const shown = JSON.parse(dry.result.stdout) as { method: string; url: string; headers: Record<string, string>; body?: unknown };
      const sent = real.requests.find((r) => r.method === c.ref.verb.method)!;
      expect(shown.method).toBe(sent.method);
      expect(new URL(shown.url).pathname).toBe(sent.path);
      expect(shown.body).toEqual(sent.json);
      expect(shown.headers['api-key']).toBe(`sk_test_…${KEY.slice(-4)}`);
      for (const h of ['accept', 'content-type', 'user-agent', 'x-tenant-id']) expect(shown.headers[h], h).toBe(sent.headers[h]);
      expect(shown.headers['idempotency-key'] === undefined, 'an Idempotency-Key on a POST').toBe(sent.method !== 'POST');
    },
  );
});
