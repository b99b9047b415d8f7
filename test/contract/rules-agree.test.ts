// One rule, said once: for each input the contract tester found the contract and the emulator
// disagreeing on, generated values (fast-check, fixed seed: schema-valid, near misses and hostile
// ones) are judged by the printed contract's schema (ajv) and sent to a real emulator on loopback;
// the two verdicts must be the same, and a refusal must name the field and the real reason. Also
// every operation's answer to an empty-named query parameter and an empty x-tenant-id.
import { request } from 'node:http';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParameterObject } from '../../src/api/contract/types.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { EMAIL_PATTERN } from '../../src/shared/patterns.js';
import { checkEmail } from '../../src/shared/validate.js';
import { printedContract } from '../helpers/printed-contract.js';
import { allOperations } from './contract-helpers.js';
import { SchemaArbitraries, type JsonSchema } from './schema-arbitraries.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const SEED = 4242;
const RUNS = 60;
const { doc } = printedContract();
const DOC_ID = 'https://pay.dev/printed-openapi.json';
const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
ajv.addSchema(structuredClone(doc), DOC_ID);
const arbs = new SchemaArbitraries(doc);

/** Whether the printed contract's schema accepts the value (local `$ref`s resolved in the document). */
function accepts(schema: JsonSchema, value: unknown): boolean {
  const fix = (s: unknown): unknown =>
    Array.isArray(s)
      ? s.map(fix)
      : s && typeof s === 'object'
        ? Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `${DOC_ID}${v}` : fix(v)]))
        : s;
  return ajv.validate(fix(schema) as object, value);
}

const param = (operationId: string, name: string): ParameterObject => {
  const op = allOperations(doc).find((o) => o.operation.operationId === operationId)!;
  const p = (op.operation.parameters ?? []).map((x) => arbs.deref(x as never) as unknown as ParameterObject).find((x) => x.name === name);
  if (!p) throw new Error(`${operationId} has no parameter ${name}`);
  return p;
};
const bodyField = (schemaName: string, field: string): JsonSchema =>
  (doc.components.schemas[schemaName] as { properties: Record<string, JsonSchema> }).properties[field] ??
  (() => {
    throw new Error(`${schemaName} has no ${field}`);
  })();

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(() => emu?.stop());

interface Answer {
  status: number;
  body: any;
}

/** One request as given (raw query string, header values as they are), on a fresh connection. */
function send(method: string, pathAndQuery: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${emu.url}/v1${pathAndQuery}`,
      {
        method,
        headers: {
          'api-key': emu.keys.sandbox.secret,
          ...(text === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

let keys = 0;
const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  send('POST', path, { 'idempotency-key': `agree-${++keys}`, ...headers }, body);

/** The field errors of an answer that name `field`. */
const errorsOn = (a: Answer, field: string): Array<{ message: string }> =>
  ((a.body?.errors ?? []) as Array<{ field: string; message: string }>).filter((e) => e.field === field);

/** Values for a string schema: what it accepts, near misses and hostile strings, and some fixed edges. */
const valuesOf = (schema: JsonSchema, edges: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    arbs.validOf(schema).map(String),
    arbs.invalidString(schema),
    fc.constantFrom(...edges),
    fc.string({ maxLength: 30, unit: 'grapheme-ascii' }),
  );

/** What HTTP carries of a header value (the spaces and tabs around it are not part of it, RFC 9110 §5.5). */
const onTheWire = (v: string): string => v.replace(/^[ \t]+|[ \t]+$/g, '');
/** A value node:http can send at all (no CR, LF, NUL or other control characters but tab). */
const sendable = (v: string): boolean => !/[^\t\x20-\x7e\x80-\xff]/.test(v);

const DATES = [
  '1799-12-31',
  '1800-01-01',
  '1800-02-29',
  '1804-02-29',
  '1900-02-29',
  '2000-02-29',
  '2026-02-29',
  '2026-04-31',
  '0001-01-01',
  '2026-1-01',
];
const TIMES = [
  '1799-12-31T23:59:59Z',
  '1800-01-01T00:00:00Z',
  '2026-01-31T12:00Z',
  '2026-01-31t12:00:00z',
  '2026-01-31T24:00:00Z',
  '2026-01-31T23:59:60Z',
  '2026-01-31T12:00:00+24:00',
  '2026-01-31T12:00:00-23:59',
  '2026-01-31T12:00:00.1234567891Z',
  '2026-01-31 12:00:00Z',
  '2026-02-30T12:00:00Z',
  '2026-01-31T12:00:00+0100',
];
const TEXTS = [
  'a\tb',
  'a\u0000b',
  'a\u007fb',
  'a\u0080b',
  'A\u009b31mB',
  '\u0085',
  'a\u009fb',
  'line\nbreak',
  '\u001b[31mred',
  'é',
  '🙂'.repeat(30),
  'x'.repeat(51),
  '',
  ' ',
];
const EMAILS = [
  'ada@example.com',
  'ada@localhost',
  'ada@ex_ample.com',
  'a..b@example.com',
  '.a@example.com',
  'ada@-x.com',
  'ADA@EXAMPLE.COM',
  `${'a'.repeat(64)}@${'b'.repeat(63)}.com`,
  `a@${'b'.repeat(64)}.com`,
];

describe('the contract and the emulator judge each input alike', () => {
  const query = (operationId: string, path: string, name: string, edges: readonly string[], alsoAllowed?: RegExp) =>
    it(`${operationId} ?${name}=…`, async () => {
      const schema = param(operationId, name).schema as JsonSchema;
      let accepted = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(valuesOf(schema, edges), async (v) => {
          const a = await send('GET', `${path}?${name}=${encodeURIComponent(v)}`, {});
          const own = errorsOn(a, name);
          if (accepts(schema, v)) {
            accepted++;
            // Accepted by the contract: answered, or refused only for what no schema can say (a
            // cursor of the right shape the service did not issue).
            if (own.length > 0 && alsoAllowed && own.every((e) => alsoAllowed.test(e.message))) return;
            if (a.status !== 200)
              throw new Error(
                `${name}=${JSON.stringify(v)}: the contract accepts it, the emulator answered ${a.status} ${JSON.stringify(a.body)}`,
              );
          } else {
            refused++;
            if (a.status !== 400 || own.length !== 1)
              throw new Error(
                `${name}=${JSON.stringify(v)}: the contract refuses it, the emulator answered ${a.status} ${JSON.stringify(a.body)}`,
              );
          }
        }),
        { seed: SEED, numRuns: RUNS },
      );
      expect(accepted).toBeGreaterThan(5);
      expect(refused).toBeGreaterThan(5);
    });

  query('listCustomers', '/customers', 'from', [...DATES, ...TIMES]);
  query('listTransactions', '/transactions', 'to', [...DATES, ...TIMES]);
  query('listCustomers', '/customers', 'type', TEXTS);
  query('listCustomers', '/customers', 'email', EMAILS);
  query(
    'listCustomers',
    '/customers',
    'cursor',
    ['', ' ', 'a b', 'x'.repeat(200), 'x'.repeat(201), 'YWJj', 'a+b/c=', '%00'],
    /not a cursor this service issued/,
  );
  query('getFxRates', '/fx/rates', 'symbols', ['AAA', 'EUR', 'EUR,GBP', 'EUR,,GBP', 'eur', 'EUR,', ',EUR', 'BTC', 'USD,USDC', 'EUR GBP']);

  it('Idempotency-Key: the values HTTP can carry', async () => {
    const schema = param('createCustomer', 'Idempotency-Key').schema as JsonSchema;
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        valuesOf(schema, [
          '   ',
          ' a',
          'a ',
          ' ',
          '\t',
          '"a"',
          '""',
          '"a\\"b"',
          '"a"b',
          'x'.repeat(255),
          'x'.repeat(256),
          'é',
          'a b',
        ]).filter((v) => sendable(v) && (v === onTheWire(v) || onTheWire(v) === '')),
        async (v) => {
          // A key the emulator takes lets the request on to the body ({}): a 422 on its fields.
          const a = await send('POST', '/customers', { 'idempotency-key': v, 'content-type': 'application/json' }, {});
          const keyRefused = a.status === 400 && /idempotency_key/.test(String(a.body?.code));
          if (accepts(schema, v)) {
            accepted++;
            expect(keyRefused, `${JSON.stringify(v)}: ${JSON.stringify(a.body)}`).toBe(false);
          } else {
            refused++;
            expect(keyRefused, `${JSON.stringify(v)}: ${a.status} ${JSON.stringify(a.body)}`).toBe(true);
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    expect(accepted).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  });

  it('x-tenant-id: the values HTTP can carry', async () => {
    const schema = param('listCustomers', 'x-tenant-id').schema as JsonSchema;
    await fc.assert(
      fc.asyncProperty(
        valuesOf(schema, ['', ' ', 'biz_acme', 'a b', 'x'.repeat(64), 'x'.repeat(65), 'é', 'a,b']).filter(
          (v) => sendable(v) && (v === onTheWire(v) || onTheWire(v) === ''),
        ),
        async (v) => {
          const a = await send('GET', '/customers', { 'x-tenant-id': v });
          if (accepts(schema, onTheWire(v))) expect(a.status, JSON.stringify(a.body)).toBe(200);
          else expect([a.status, a.body?.code], JSON.stringify(v)).toEqual([400, 'invalid_tenant']);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  const body = (
    name: string,
    path: string,
    schemaName: string,
    field: string,
    base: Record<string, unknown>,
    edges: readonly string[],
    alsoAllowed?: RegExp,
  ) =>
    it(`${name}: ${field}`, async () => {
      const schema = bodyField(schemaName, field);
      let accepted = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(valuesOf(schema, edges), async (v) => {
          const a = await post(path, { ...base, [field]: v });
          const own = errorsOn(a, field);
          if (accepts(schema, v)) {
            accepted++;
            if (own.length > 0 && !(alsoAllowed && own.every((e) => alsoAllowed.test(e.message))))
              throw new Error(`${field}: ${JSON.stringify(v)}: the contract accepts it, the emulator says ${JSON.stringify(own)}`);
          } else {
            refused++;
            if (own.length !== 1)
              throw new Error(
                `${field}: ${JSON.stringify(v)}: the contract refuses it, the emulator answered ${a.status} ${JSON.stringify(a.body)}`,
              );
          }
        }),
        { seed: SEED, numRuns: RUNS },
      );
      expect(accepted).toBeGreaterThan(5);
      expect(refused).toBeGreaterThan(5);
    });

  // The body is otherwise empty: the emulator lists every field's error, so the field's own verdict shows.
  body('createCustomer', '/customers', 'CustomerCreate', 'first_name', {}, TEXTS);
  body('createCustomer', '/customers', 'CustomerCreate', 'type', {}, TEXTS);
  body('createCustomer', '/customers', 'CustomerCreate', 'email', {}, EMAILS);
  body('createCustomer', '/customers', 'CustomerCreate', 'date_of_birth', {}, DATES, /must not be in the future/);
  body('createPaymentLink', '/payment-links', 'PaymentLinkCreate', 'expires_at', {}, TIMES, /must be in the future/);
  body('createPaymentLink', '/payment-links', 'PaymentLinkCreate', 'description', {}, TEXTS);
});

describe('refusals name the field and the real reason', () => {
  it.each([
    ['/customers?type=a%09b', 'type', 'must not contain control characters'],
    ['/customers?type=a%7Fb', 'type', 'must not contain control characters'],
    ['/customers?type=A%C2%9B31mB', 'type', 'must not contain control characters'],
    ['/customers?type=a%C2%85b', 'type', 'must not contain control characters'],
    ['/customers?type=a%E2%80%A8b', 'type', 'must not contain control characters'],
    ['/customers?type=', 'type', 'must not be empty'],
    [`/customers?type=${'x'.repeat(51)}`, 'type', 'must be at most 50 characters'],
    ['/customers?email=ada%40localhost', 'email', 'must be an e-mail address like ada@example.com'],
    ['/customers?from=1799-12-31', 'from', 'must be 1800-01-01 or later'],
    ['/customers?from=2026-02-30', 'from', 'must be a real calendar date'],
    [
      '/customers?to=2026-01-31T24:00:00Z',
      'to',
      'must be a real time (a real date, hours 00-23, minutes and seconds 00-59, offset up to ±23:59)',
    ],
    ['/customers?cursor=a%20b', 'cursor', 'must be the next_cursor of a previous page: 1-200 letters, digits, "_" or "-"'],
    ['/fx/rates?symbols=AAA', 'symbols', 'must be a comma-separated list of: USD, EUR, GBP, NGN, KES, GHS, ZAR, JPY, CAD, KWD'],
    ['/customers?=1', '(empty name)', 'is not a parameter of this operation'],
    ['/customers?a%09b=1', 'a\\u0009b', 'is not a parameter of this operation'],
  ])('GET %s', async (path, field, message) => {
    const a = await send('GET', path, {});
    expect(a.status).toBe(400);
    expect(a.body.errors).toEqual([{ field, code: 'invalid', message }]);
  });

  it('a C1 control character or U+2028/U+2029 in a body’s free text is refused as C0 is', async () => {
    for (const [field, v] of [
      ['first_name', 'A\u009b31mB'],
      ['last_name', '\u0080'],
      ['first_name', 'a\u0085b'],
      ['last_name', 'a\u2028b'],
      ['first_name', 'a\u2029b'],
      ['type', 'x\u009fy'],
      ['first_name', 'a\u001bb'],
    ] as const) {
      const a = await post('/customers', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', [field]: v });
      expect(errorsOn(a, field), `${field}=${JSON.stringify(v)}: ${a.status} ${JSON.stringify(a.body)}`).toEqual([
        { field, code: 'invalid', message: 'must not contain control characters' },
      ]);
    }
  });

  it('a body field with an empty name is named (empty name)', async () => {
    const a = await post('/customers', { '': 1 });
    expect(errorsOn(a, '(empty name)')).toEqual([{ field: '(empty name)', code: 'unknown_field', message: 'is not a known field' }]);
  });
});

describe('every operation', () => {
  const ops = allOperations(doc);
  const sample = (path: string) => path.replace(/\{feature\}/, 'cards').replace(/\{[^}]+\}/g, 'x_0123456789abcdefghijklmn');

  it.each(ops.map((o) => [o.operation.operationId, o] as const))('%s: an empty-named query parameter is (empty name)', async (_id, o) => {
    const a = await send(
      o.method.toUpperCase(),
      `${sample(o.path)}?=x`,
      { 'idempotency-key': `agree-${++keys}`, 'x-tenant-id': emu.tenantId },
      o.method === 'post' ? {} : undefined,
    );
    expect(a.status).toBe(400);
    expect(a.body.code).toBe('invalid_parameter');
    expect(a.body.errors).toEqual([{ field: '(empty name)', code: 'invalid', message: 'is not a parameter of this operation' }]);
  });

  it.each(ops.map((o) => [o.operation.operationId, o] as const))('%s: an empty x-tenant-id is 400 invalid_tenant', async (_id, o) => {
    const a = await send(
      o.method.toUpperCase(),
      sample(o.path),
      { 'x-tenant-id': '', 'idempotency-key': `agree-${++keys}` },
      o.method === 'post' ? {} : undefined,
    );
    expect([a.status, a.body.code]).toEqual([400, 'invalid_tenant']);
    expect(a.body.detail).toMatch(/^x-tenant-id is empty/);
  });

  it('GET /accounts without x-tenant-id is still 400 missing_tenant', async () => {
    const a = await send('GET', '/accounts', {});
    expect([a.status, a.body.code]).toEqual([400, 'missing_tenant']);
  });
});

describe('EMAIL_PATTERN, the contract’s e-mail rule, is checkEmail’s', () => {
  it('agrees on generated addresses and near misses', () => {
    const re = new RegExp(EMAIL_PATTERN);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.emailAddress(),
          fc.string({ maxLength: 40, unit: fc.constantFrom('a', 'Z', '0', '.', '@', '-', '_', '+', ' ', 'é', '!', '"') }),
          fc.constantFrom(...EMAILS),
        ),
        (v) => {
          if (v.length > 254) return;
          expect(re.test(v), v).toBe(checkEmail(v) === undefined);
        },
      ),
      { seed: SEED, numRuns: 500 },
    );
  });
});

describe('a rule that ties two fields together is in the contract', () => {
  it('every "must differ from" the emulator answers is stated in the printed contract, the same two fields', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const dir = new URL('../../src/emulator/resources/', import.meta.url);
    const rules: Array<[string, string]> = [];
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const text = readFileSync(new URL(name, dir), 'utf8');
      for (const m of text.matchAll(/field: '([a-z_]+)', code: '[a-z_]+', message: 'must differ from ([a-z_]+)'/g))
        rules.push([m[1]!, m[2]!]);
    }
    expect(rules.length).toBeGreaterThanOrEqual(2);
    const printed = JSON.stringify(doc);
    for (const [field, other] of rules) expect(printed, `${field} / ${other}`).toContain(`\`${field}\` must differ from \`${other}\``);
  });
});
