// The published contract (src/api/openapi.ts): it lints clean with Redocly (run on what `pay
// openapi` prints), its schemas accept and reject the right bodies (ajv), every example fits its
// schema, and it has the operations, parameters, headers and error responses the design notes
// (src/api/DESIGN.md) promise. The other tools run in tools.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT_EXAMPLE, CUSTOMER_CREATE_EXAMPLE, CUSTOMER_EXAMPLE } from '../../src/api/contract/examples.js';
import type { HeaderObject, ParameterObject, ResponseObject, Schema } from '../../src/api/contract/types.js';
import { openapi, openapiJson } from '../../src/api/openapi.js';
import { printedContract } from '../helpers/printed-contract.js';
import { exampleRequests } from './examples-helpers.js';
import {
  allOperations,
  operationById,
  operationFor,
  requestBodySchema,
  resolve,
  successStatus,
  validateAgainst,
} from './contract-helpers.js';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };

/** The operationId table at the end of DESIGN.md: operationId → `METHOD /path`. */
function designTable(): Map<string, string> {
  const md = readFileSync(new URL('src/api/DESIGN.md', root), 'utf8');
  const section = md.slice(md.indexOf('## Operation ids'));
  const table = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !/^[a-z]/.test(cells[1] ?? '') || cells[1] === 'operationId') continue;
    const ids = cells[1]!.split('/').map((s) => s.trim());
    let method = '';
    let previous = '';
    const routes = cells[2]!.split(',').map((raw) => {
      const item = raw.replace(/\([^)]*\)/g, '').trim();
      const m = /^(GET|POST|PATCH|DELETE)\s+(\S+)$/.exec(item);
      if (m) [method, previous] = [m[1]!, m[2]!];
      else previous = `${previous.slice(0, previous.lastIndexOf('/'))}${item.replace(/^…/, '')}`; // `…/unfreeze`
      return `${method} ${previous}`;
    });
    expect(routes, line).toHaveLength(ids.length);
    ids.forEach((id, i) => table.set(id, routes[i]!));
  }
  return table;
}

const DESIGN = designTable();
const params = (op: { parameters?: ReadonlyArray<unknown> }) =>
  (op.parameters ?? []).map((p) => resolve<ParameterObject>(p as ParameterObject));
const header = (op: { parameters?: ReadonlyArray<unknown> }, name: string) =>
  params(op).find((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase());
const responseHeaders = (r: unknown) => Object.keys(resolve<ResponseObject>(r as ResponseObject).headers ?? {});
const schema = (name: string): Schema => openapi.components.schemas[name]!;

describe('lint (Redocly)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pay-openapi-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lints clean with the recommended rules and stricter checks: 0 errors, 0 warnings', () => {
    const file = printedContract().file;
    const config = join(dir, 'redocly.yaml');
    // Recommended, plus rules it leaves as warnings or off, raised to errors. None is disabled.
    writeFileSync(
      config,
      [
        'extends:',
        '  - recommended',
        'rules:',
        ...[
          'operation-4xx-problem-details-rfc7807',
          'operation-4xx-response',
          'operation-description',
          'parameter-description',
          'tag-description',
          'operation-tag-defined',
          'path-http-verbs-order',
          'paths-kebab-case',
          'no-ambiguous-paths',
          'no-unused-components',
          'no-invalid-media-type-examples',
          'no-invalid-parameter-examples',
          'no-invalid-schema-examples',
          'no-required-schema-properties-undefined',
          'no-schema-type-mismatch',
          'no-enum-type-mismatch',
          'component-name-unique',
          'spec-strict-refs',
          'security-defined',
        ].map((rule) => `  ${rule}: error`),
        '',
      ].join('\n'),
    );
    const bin = new URL('node_modules/.bin/redocly', root).pathname;
    const run = spawnSync(bin, ['lint', file, `--config=${config}`, '--format=stylish'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    const problems = output.split('\n').filter((l) => /^\s+\d+:\d+\s+(error|warning)\s/.test(l));
    expect(problems, output).toEqual([]);
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/valid/i);
  }, 120_000);
});

describe('document', () => {
  it('is OpenAPI 3.1.0 at the package version, with both servers and the 14 groups as tags', () => {
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.info.version).toBe(pkg.version);
    expect(String(openapi.info.description)).toMatch(/seed spec fixes/);
    const urls = openapi.servers.map((s) => String(s.url));
    expect(urls).toContain('http://127.0.0.1:8787/v1');
    expect(urls.every((u) => u.endsWith('/v1'))).toBe(true);
    expect(openapi.tags.map((t) => t.name)).toEqual([
      'customers',
      'kyc',
      'kyc-legacy',
      'features',
      'accounts',
      'external-accounts',
      'transfers',
      'cards',
      'collections',
      'payment-links',
      'wallets',
      'fx',
      'transactions',
      'webhooks',
    ]);
  });

  it('round-trips through openapiJson(), which is what pay openapi prints', () => {
    expect(JSON.parse(openapiJson())).toEqual(JSON.parse(JSON.stringify(openapi)));
    expect(printedContract().text).toBe(`${openapiJson()}\n`);
  });

  it('has what the tools need: no jsonSchemaDialect (Prism skips bodies), a contact, no server-variable description', () => {
    const doc = printedContract().doc as unknown as Record<string, any>;
    expect(doc).not.toHaveProperty('jsonSchemaDialect');
    expect(doc.info.contact).toMatchObject({ name: expect.any(String) });
    for (const server of doc.servers) for (const v of Object.values(server.variables ?? {})) expect(v).not.toHaveProperty('description');
  });

  it('describes the signed webhook delivery', () => {
    const deliver = openapi.webhooks.event?.post;
    expect(params(deliver!).map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  });
});

describe('operations', () => {
  const ops = allOperations();

  it('are exactly those of the DESIGN.md operationId table, with its methods and paths', () => {
    expect(DESIGN.size).toBe(52);
    const actual = new Map(ops.map((o) => [o.operation.operationId, `${o.method.toUpperCase()} ${o.path}`]));
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(DESIGN));
  });

  it('answer the statuses of DESIGN.md: create 201, resend 202, everything else 200', () => {
    for (const { method, operation } of ops) {
      const id = operation.operationId;
      const creates = method === 'post' && /^(create|start|submit|legacyKycVerify|legacyKycSubmitDocument)/.test(id);
      const expected = creates ? '201' : id === 'resendWebhookEvent' ? '202' : '200';
      expect(successStatus(operation), id).toBe(expected);
      expect(
        Object.keys(operation.responses).filter((s) => s.startsWith('2')),
        id,
      ).toHaveLength(1);
    }
  });

  it('all need the ApiKey (Api-Key header) security scheme', () => {
    expect(openapi.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Api-Key' });
    for (const { operation } of ops) {
      expect(operation.security ?? openapi.security, operation.operationId).toContainEqual({ ApiKey: [] });
    }
  });

  it('every POST requires Idempotency-Key (1-255 printable ASCII, bare or an RFC 8941 string); no other method takes it', () => {
    for (const { method, operation } of ops) {
      const key = header(operation, 'Idempotency-Key');
      if (method !== 'post') {
        expect(key, operation.operationId).toBeUndefined();
        continue;
      }
      expect(key?.required, operation.operationId).toBe(true);
      expect(key?.schema).toMatchObject({ minLength: 1, maxLength: 512 });
      const pattern = new RegExp(String(key?.schema.pattern));
      expect(pattern.test('6f1c1c1e-7f7e-4a53-9f4b-0b8f3c1d2e4a')).toBe(true);
      expect(pattern.test('"6f1c1c1e-7f7e-4a53-9f4b-0b8f3c1d2e4a"')).toBe(true);
      expect(pattern.test('"a\\"b\\\\c"')).toBe(true);
      expect(pattern.test(`"${'x'.repeat(255)}"`)).toBe(true);
      expect(pattern.test('x'.repeat(256))).toBe(false);
      expect(pattern.test(`"${'x'.repeat(256)}"`)).toBe(false);
      expect(pattern.test('"abc')).toBe(false);
      expect(pattern.test('""')).toBe(false);
      expect(pattern.test('"a\\x"')).toBe(false);
      expect(pattern.test('tab\there')).toBe(false);
    }
  });

  it('x-tenant-id is required on GET /accounts and optional everywhere else', () => {
    for (const { operation } of ops) {
      const tenant = header(operation, 'x-tenant-id');
      expect(tenant?.schema.pattern, operation.operationId).toBe('^[A-Za-z0-9_-]{1,64}$');
      expect(tenant?.required, operation.operationId).toBe(operation.operationId === 'listAccounts');
    }
    expect(header(operationFor('GET', 'accounts')!, 'x-tenant-id')?.required).toBe(true);
  });

  it('every 4xx and 5xx is an RFC 9457 problem (application/problem+json) with Request-Id', () => {
    for (const { operation } of ops) {
      const errors = Object.entries(operation.responses).filter(([s]) => /^[45]/.test(s));
      expect(
        errors.map(([s]) => s),
        operation.operationId,
      ).toEqual(expect.arrayContaining(['400', '401', '403', '429', '500', '503']));
      for (const [status, ref] of errors) {
        const response = resolve<ResponseObject>(ref);
        expect(Object.keys(response.content ?? {}), `${operation.operationId} ${status}`).toEqual(['application/problem+json']);
        expect(response.content!['application/problem+json']!.schema).toEqual({ $ref: '#/components/schemas/Problem' });
        expect(responseHeaders(ref)).toContain('Request-Id');
        if (status === '429' || status === '503') expect(responseHeaders(ref)).toContain('Retry-After');
        if (status === '401') expect(responseHeaders(ref)).toContain('WWW-Authenticate');
      }
    }
  });

  it('writes can fail the way DESIGN.md says: POST 409/413/415/422, PATCH 413/415/422, ids 404', () => {
    for (const { method, operation } of ops) {
      const statuses = Object.keys(operation.responses);
      if (method === 'post') expect(statuses, operation.operationId).toEqual(expect.arrayContaining(['409', '413', '415', '422']));
      if (method === 'patch') expect(statuses, operation.operationId).toEqual(expect.arrayContaining(['413', '415', '422']));
      if (params(operation).some((p) => p.in === 'path')) expect(statuses, operation.operationId).toContain('404');
    }
  });

  it('every response carries Request-Id; POST successes Idempotent-Replayed', () => {
    for (const { method, operation } of ops) {
      const success = operation.responses[successStatus(operation)];
      expect(responseHeaders(success), operation.operationId).toContain('Request-Id');
      if (method === 'post') expect(responseHeaders(success), operation.operationId).toContain('Idempotent-Replayed');
    }
  });

  it('exactly the kyc-legacy operations are deprecated, with Deprecation and Link headers', () => {
    for (const { operation } of ops) {
      const legacy = operation.tags.includes('kyc-legacy');
      expect(Boolean(operation.deprecated), operation.operationId).toBe(legacy);
      const headers = responseHeaders(operation.responses[successStatus(operation)]);
      expect(headers.includes('Deprecation') && headers.includes('Link'), operation.operationId).toBe(legacy);
    }
    const deprecation = openapi.components.headers.Deprecation as HeaderObject;
    expect(new RegExp(String(deprecation.schema.pattern)).test('@1767225600')).toBe(true);
  });

  it('list operations take limit (1-100, default 20) and cursor, and answer a list envelope', () => {
    const lists = ops.filter((o) => o.operation.operationId.startsWith('list'));
    expect(lists).toHaveLength(12);
    for (const { operation } of lists) {
      const query = params(operation).filter((p) => p.in === 'query');
      expect(query.find((p) => p.name === 'limit')?.schema, operation.operationId).toEqual({
        type: 'integer',
        minimum: 1,
        maximum: 100,
        default: 20,
      });
      expect(
        query.find((p) => p.name === 'cursor'),
        operation.operationId,
      ).toBeDefined();
      const body = resolve<Schema>(resolve<ResponseObject>(operation.responses['200']!).content!['application/json']!.schema);
      expect(body.required).toEqual(['object', 'data', 'has_more', 'next_cursor']);
    }
    for (const { operation } of ops.filter((o) => !o.operation.operationId.startsWith('list'))) {
      expect(
        params(operation).some((p) => p.name === 'cursor'),
        operation.operationId,
      ).toBe(false);
    }
  });

  it('path ids are validated with ^<prefix>[0-9a-z]{24}$', () => {
    const prefixes: Record<string, string> = {
      customer_id: 'cus_',
      account_id: 'acc_',
      external_account_id: 'ea_',
      transfer_id: 'tr_',
      card_id: 'card_',
      collection_id: 'col_',
      payment_link_id: 'plink_',
      wallet_id: 'wal_',
      quote_id: 'fxq_',
      trade_id: 'fxt_',
      transaction_id: 'txn_',
      event_id: 'evt_',
    };
    for (const { path, operation } of ops) {
      for (const p of params(operation).filter((x) => x.in === 'path')) {
        expect(path).toContain(`{${p.name}}`);
        if (p.name === 'feature') continue;
        expect(p.schema.pattern, `${operation.operationId} ${p.name}`).toBe(`^${prefixes[p.name]}[0-9a-z]{24}$`);
      }
    }
  });

  it('every request body is closed: unknown fields are a 422', () => {
    for (const { operation } of ops.filter((o) => o.operation.requestBody)) {
      expect(requestBodySchema(operation.operationId)?.additionalProperties, operation.operationId).toBe(false);
    }
  });
});

describe('helpers', () => {
  it('operationFor finds operations by method and path, with or without a leading slash or /v1/', () => {
    expect(operationFor('POST', 'customers')?.operationId).toBe('createCustomer');
    expect(operationFor('get', '/customers/{customer_id}')?.operationId).toBe('getCustomer');
    expect(operationFor('GET', 'v1/customers/{id}/kyc')?.operationId).toBe('getKycVerification');
    expect(operationFor('POST', 'cards/{card_id}/unfreeze')?.operationId).toBe('unfreezeCard');
    expect(operationFor('PUT', 'customers/{customer_id}')).toBeUndefined();
    expect(operationFor('GET', 'nowhere')).toBeUndefined();
  });

  it('requestBodySchema gives the resolved body schema, or undefined for bodiless operations', () => {
    expect(requestBodySchema('createCustomer')).toBe(schema('CustomerCreate'));
    expect(requestBodySchema('getCustomer')).toBeUndefined();
    expect(requestBodySchema('closeAccount')).toBe(schema('EmptyBody'));
    expect(() => operationById('noSuchOperation')).toThrow(/noSuchOperation/);
  });
});

describe('schemas', () => {
  const valid = (id: string, body: unknown) => expect(validateAgainst(id, 'request', undefined, body)).toEqual([]);
  const invalid = (id: string, body: unknown, match: RegExp) => {
    const errors = validateAgainst(id, 'request', undefined, body);
    expect(errors.join('\n')).toMatch(match);
  };
  const { email: _email, ...withoutEmail } = CUSTOMER_CREATE_EXAMPLE;
  const { middle_name: _m, gender: _g, ...minimal } = CUSTOMER_CREATE_EXAMPLE;

  it('CustomerCreate has exactly the seed fields and the required list of DESIGN.md', () => {
    const create = schema('CustomerCreate') as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(create.properties).sort()).toEqual(
      ['first_name', 'last_name', 'middle_name', 'email', 'phone', 'type', 'gender', 'date_of_birth', 'address'].sort(),
    );
    expect([...create.required].sort()).toEqual(['address', 'date_of_birth', 'email', 'first_name', 'last_name', 'phone', 'type']);
    const address = schema('Address') as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(address.properties).sort()).toEqual(['address_line1', 'city', 'country', 'postal_code', 'state']);
    expect([...address.required].sort()).toEqual(['address_line1', 'city', 'country', 'postal_code']);
  });

  it('accepts the seed customer body, with and without its optional fields', () => {
    valid('createCustomer', CUSTOMER_CREATE_EXAMPLE);
    valid('createCustomer', { ...minimal, address: { address_line1: '1 Main St', city: 'Lagos', country: 'NG', postal_code: '100001' } });
    valid('createCustomer', { ...CUSTOMER_CREATE_EXAMPLE, type: 'sole_trader', gender: 'prefer_to_self_describe' });
  });

  it('rejects a customer body that breaks the rules', () => {
    invalid('createCustomer', withoutEmail, /must have required property 'email'/);
    invalid('createCustomer', { ...CUSTOMER_CREATE_EXAMPLE, email: 'not-an-email' }, /\/email must match pattern/);
    invalid('createCustomer', { ...CUSTOMER_CREATE_EXAMPLE, phone: '07700900123' }, /\/phone must match pattern/);
    invalid('createCustomer', { ...CUSTOMER_CREATE_EXAMPLE, phone: '+12' }, /\/phone must match pattern/);
    invalid('createCustomer', { ...CUSTOMER_CREATE_EXAMPLE, date_of_birth: '1990-02-30' }, /\/date_of_birth must match format "date"/);
    invalid(
      'createCustomer',
      { ...CUSTOMER_CREATE_EXAMPLE, address: { ...CUSTOMER_CREATE_EXAMPLE.address, country: 'XX' } },
      /\/address\/country/,
    );
    invalid(
      'createCustomer',
      { ...CUSTOMER_CREATE_EXAMPLE, address: { ...CUSTOMER_CREATE_EXAMPLE.address, state: 'London' } },
      /\/address\/state must match pattern/,
    );
    invalid('createCustomer', { ...CUSTOMER_CREATE_EXAMPLE, nickname: 'Ada' }, /must NOT have additional properties \(nickname\)/);
    invalid('createCustomer', { ...CUSTOMER_CREATE_EXAMPLE, address: '1 Main St, London' }, /\/address must be object/);
    invalid('createCustomer', { ...CUSTOMER_CREATE_EXAMPLE, first_name: '' }, /\/first_name must NOT have fewer than 1 characters/);
  });

  it('CustomerUpdate takes any non-empty subset; the address is replaced whole', () => {
    valid('updateCustomer', { email: 'new@example.com' });
    invalid('updateCustomer', {}, /must NOT have fewer than 1 properties/);
    invalid('updateCustomer', { address: { city: 'Paris' } }, /must have required property 'address_line1'/);
  });

  it('money is a decimal string, positive on requests', () => {
    const transfer = {
      source_account_id: 'acc_0123456789abcdefghijklmn',
      destination_id: 'ea_0123456789abcdefghijklmn',
      amount: '10.50',
      currency: 'USD',
    };
    valid('createTransfer', transfer);
    valid('createTransfer', { ...transfer, amount: '1.13', destination_id: 'acc_abcdefghijklmnopqrstuvwx' });
    invalid('createTransfer', { ...transfer, amount: 10.5 }, /\/amount must be string/);
    invalid('createTransfer', { ...transfer, amount: '0.00' }, /\/amount must NOT be valid/);
    invalid('createTransfer', { ...transfer, amount: '01.00' }, /\/amount must match pattern/);
    invalid('createTransfer', { ...transfer, amount: '-5' }, /\/amount must match pattern/);
    invalid('createTransfer', { ...transfer, currency: 'usd' }, /\/currency must be equal to one of the allowed values/);
    invalid('createTransfer', { ...transfer, destination_id: 'cus_0123456789abcdefghijklmn' }, /\/destination_id must match pattern/);
  });

  it('cross-field rules: physical cards ship, mobile money has details, one FX amount, asset/network pairs', () => {
    const card = { customer_id: 'cus_0123456789abcdefghijklmn', account_id: 'acc_0123456789abcdefghijklmn', type: 'virtual' };
    valid('createCard', card);
    invalid('createCard', { ...card, type: 'physical' }, /must have required property 'shipping_address'/);
    valid('createCard', {
      ...card,
      type: 'physical',
      shipping_address: CUSTOMER_CREATE_EXAMPLE.address,
      spending_limit: { amount: '500', interval: 'monthly' },
    });

    const collection = { account_id: 'acc_0123456789abcdefghijklmn', amount: '25.00', currency: 'KES', method: 'mobile_money' };
    invalid('createCollection', collection, /must have required property 'mobile_money'/);
    valid('createCollection', { ...collection, mobile_money: { phone: '+254712345678', provider: 'mpesa' } });

    const quote = { source_currency: 'USD', target_currency: 'EUR' };
    valid('createFxQuote', { ...quote, source_amount: '100.00' });
    invalid('createFxQuote', { ...quote, source_amount: '100.00', target_amount: '92.00' }, /must match exactly one schema in oneOf/);
    invalid('createFxQuote', quote, /must match exactly one schema in oneOf/);

    const wallet = { customer_id: 'cus_0123456789abcdefghijklmn', asset: 'USDC', network: 'polygon' };
    valid('createWallet', wallet);
    invalid('createWallet', { ...wallet, asset: 'BTC' }, /\/network must be equal to one of the allowed values/);
  });

  it('action bodies are empty; bodiless GETs take none', () => {
    valid('closeAccount', {});
    invalid('closeAccount', { reason: 'x' }, /must NOT have/);
    expect(validateAgainst('getCustomer', 'request', undefined, { a: 1 })).toEqual(['getCustomer takes no request body']);
  });

  it('responses: the examples validate, and a wrong object does not', () => {
    expect(validateAgainst('createCustomer', 'response', 201, CUSTOMER_EXAMPLE)).toEqual([]);
    expect(validateAgainst('getAccount', 'response', undefined, ACCOUNT_EXAMPLE)).toEqual([]);
    expect(
      validateAgainst('listAccounts', 'response', 200, { object: 'list', data: [ACCOUNT_EXAMPLE], has_more: true, next_cursor: 'abc' }),
    ).toEqual([]);
    expect(
      validateAgainst('getAccount', 'response', 200, {
        ...ACCOUNT_EXAMPLE,
        balance: { available: 125, pending: '0', currency: 'USD' },
      }).join(),
    ).toMatch(/available must be string/);
    expect(validateAgainst('getCustomer', 'response', 200, { ...CUSTOMER_EXAMPLE, id: 'acc_0123456789abcdefghijklmn' }).join()).toMatch(
      /\/id must match pattern/,
    );
    expect(validateAgainst('getCustomer', 'response', 418, {})).toEqual(['getCustomer has no 418 response']);
  });

  it('problems: RFC 9457 bodies with code, request_id and per-field errors', () => {
    const problem = {
      type: 'https://pay.dev/problems/validation_error',
      title: 'Validation failed',
      status: 422,
      detail: '2 fields are invalid',
      code: 'validation_error',
      request_id: 'req_0123456789abcdefghijklmn',
      errors: [{ field: 'address.country', code: 'invalid', message: 'must be an ISO 3166-1 alpha-2 code' }],
    };
    expect(validateAgainst('createCustomer', 'response', 422, problem)).toEqual([]);
    expect(validateAgainst('getCustomer', 'response', 404, { ...problem, status: 404, code: 'not_found', errors: undefined })).toEqual([]);
    expect(validateAgainst('listAccounts', 'response', 400, { title: 'Bad request', status: 400 }).join()).toMatch(
      /required property 'code'/,
    );
  });

  it('events: the single-event answer has its attempts; payloads are webhook bodies', () => {
    const event = {
      id: 'evt_0123456789abcdefghijklmn',
      object: 'event',
      livemode: false,
      type: 'customer.created',
      created_at: '2026-01-15T09:30:00.000Z',
      data: { object: CUSTOMER_EXAMPLE },
      delivery: {
        status: 'failed',
        attempts: 1,
        last_response_code: 500,
        last_attempt_at: '2026-01-15T09:30:01.000Z',
        next_attempt_at: null,
      },
    };
    expect(
      validateAgainst('listWebhookEvents', 'response', 200, { object: 'list', data: [event], has_more: false, next_cursor: null }),
    ).toEqual([]);
    const attempt = {
      id: 'whd_0123456789abcdefghijklmn',
      attempted_at: '2026-01-15T09:30:01.000Z',
      response_code: 500,
      duration_ms: 12,
      error: null,
      url: 'https://hooks.example.com/pay',
    };
    expect(validateAgainst('getWebhookEvent', 'response', 200, { ...event, attempts: [attempt] })).toEqual([]);
    expect(validateAgainst('getWebhookEvent', 'response', 200, event).join()).toMatch(/required property 'attempts'/);
    expect(
      validateAgainst('resendWebhookEvent', 'response', 202, { ...event, delivery: { ...event.delivery, status: 'pending' } }),
    ).toEqual([]);
  });

  it('no money field anywhere is a JSON number', () => {
    const walk = (node: unknown, path: string): string[] => {
      if (!node || typeof node !== 'object') return [];
      const found: string[] = [];
      const props = (node as { properties?: Record<string, Schema> }).properties ?? {};
      for (const [name, s] of Object.entries(props)) {
        if (/amount|^available$|^pending$|^fee$|^rate$|balance/.test(name) && ['number', 'integer'].includes(String(s.type)))
          found.push(`${path}.${name}`);
      }
      for (const [k, v] of Object.entries(node)) found.push(...walk(v, `${path}/${k}`));
      return found;
    };
    expect(walk(openapi.components.schemas, '#')).toEqual([]);
  });
});

describe('examples', () => {
  const requests = exampleRequests(printedContract().doc);

  it('every operation has a success example, and a request example where it takes a body', () => {
    // exampleRequests() throws naming each one missing; every POST and PATCH has a body.
    expect(requests).toHaveLength(allOperations().length);
    for (const r of requests) {
      expect(r.response, r.operationId).toBeDefined();
      if (r.method === 'POST' || r.method === 'PATCH') expect(r.body, r.operationId).toBeDefined();
    }
  });

  it('each example fits its schema: request bodies, success answers, problems and the webhook delivery', () => {
    for (const r of requests) {
      if (r.body !== undefined)
        expect(validateAgainst(r.operationId, 'request', undefined, r.body), `${r.operationId} request`).toEqual([]);
      expect(validateAgainst(r.operationId, 'response', r.status, r.response), `${r.operationId} ${r.status}`).toEqual([]);
    }
    for (const { operation } of allOperations()) {
      for (const [status, ref] of Object.entries(operation.responses).filter(([s]) => /^[45]/.test(s))) {
        const media = resolve<ResponseObject>(ref).content!['application/problem+json']!;
        // One example, or several by name (422: validation_error and the refusals of the business rules).
        const examples = media.examples
          ? Object.entries(media.examples).map(([name, e]) => [name, e.value] as const)
          : [['', media.example] as const];
        expect(examples.every(([, e]) => e !== undefined)).toBe(true);
        for (const [name, example] of examples)
          expect(validateAgainst(operation.operationId, 'response', status, example), `${operation.operationId} ${status} ${name}`).toEqual(
            [],
          );
      }
    }
    const delivery = openapi.webhooks.event!.post!.requestBody!.content['application/json']!;
    const payload = resolve<Schema>(delivery.schema);
    expect(payload.required).toEqual(['id', 'type', 'created_at', 'data']);
    expect(
      validateAgainst('getWebhookEvent', 'response', 200, {
        ...(delivery.example as object),
        object: 'event',
        livemode: false,
        delivery: { status: 'delivered', attempts: 1, last_response_code: 200, last_attempt_at: null, next_attempt_at: null },
        attempts: [],
      }),
    ).toEqual([]);
  });

  it('a wrong example would be caught (the check above is not vacuous)', () => {
    const create = requests.find((r) => r.operationId === 'createAccount')!;
    expect(validateAgainst('createAccount', 'request', undefined, { ...(create.body as object), currency: 'usd' }).join()).toMatch(
      /currency/,
    );
    expect(validateAgainst('createAccount', 'response', '201', { ...(create.response as object), balance: '0' }).join()).toMatch(/balance/);
  });

  it('creating an account may leave out its defaulted type: optional in the body, the default on the named schema', () => {
    const create = requestBodySchema('createAccount') as { required: string[]; properties: Record<string, unknown> };
    expect(create.required).not.toContain('type');
    expect(create.properties.type).toEqual({ $ref: '#/components/schemas/AccountType' });
    expect(schema('AccountType')).toMatchObject({ enum: ['checking', 'savings'], default: 'checking' });
    expect(requests.find((r) => r.operationId === 'createAccount')!.body as object).not.toHaveProperty('type');
  });
});
