// The emulator answers what the contract publishes: the built binary drives a representative
// run of commands (a customer through KYC, accounts funded by a collection, a transfer, a card,
// a wallet and a payment link, FX, the ledger, webhook events, and a few expected errors) against
// the real emulator through a recording proxy, and every response the emulator gave is checked:
// its status is one the operation declares, its body validates against the contract's schema for
// that status, and it carries Request-Id. Needs dist/ (npm run build).
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, registerSecret, runPay, tempDir, type PayResult } from '../helpers/run-pay.js';
import { customerFlags } from '../helpers/fixtures.js';
import { allOperations, validateAgainst, type LocatedOperation } from './contract-helpers.js';

interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The operation a request went to (method and path against the templates), if any. */
function operationOf(method: string, path: string): LocatedOperation | undefined {
  return allOperations().find((o) => {
    if (o.method.toUpperCase() !== method) return false;
    const source = o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    return new RegExp(`^/v1${source}$`).test(path);
  });
}

/** Everything wrong with one response (empty when it is what the contract says). */
function responseProblems(x: Exchange): string[] {
  const op = operationOf(x.method, x.path);
  if (!op) return [`${x.method} ${x.path} is no operation of the contract`];
  const problems: string[] = [];
  if (!x.headers['request-id']) problems.push('no Request-Id header');
  let body: unknown;
  try {
    body = x.text === '' ? undefined : JSON.parse(x.text);
  } catch {
    return [...problems, `the body is not JSON: ${x.text.slice(0, 120)}`];
  }
  const type = String(x.headers['content-type'] ?? '');
  const expected = x.status >= 400 ? 'application/problem+json' : 'application/json';
  if (body !== undefined && !type.startsWith(expected)) problems.push(`content-type ${type}, expected ${expected}`);
  problems.push(...validateAgainst(op.operation.operationId, 'response', x.status, body));
  return problems.map((p) => `${op.operation.operationId} ${x.status}: ${p}`);
}

let emu: Emulator;
let configDir: string;
/** Every exchange of every run, for the coverage check. */
const exchanges: Exchange[] = [];

/** A proxy to the emulator for one run: records each exchange with the raw response. */
function startProxy(target: string, log: Exchange[]): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', target);
      const upstream = request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (up) => {
        const out: Buffer[] = [];
        up.on('data', (c: Buffer) => out.push(c));
        up.on('end', () => {
          const text = Buffer.concat(out).toString('utf8');
          log.push({ method: req.method ?? '', path: url.pathname, status: up.statusCode ?? 0, headers: up.headers, text });
          const headers = { ...up.headers };
          delete headers['transfer-encoding'];
          delete headers['content-length'];
          delete headers.connection;
          res.writeHead(up.statusCode ?? 502, headers);
          res.end(text);
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

interface Step {
  result: PayResult;
  json: unknown;
  exchanges: Exchange[];
}

/** Runs `pay <args> --json` through its own proxy (so runs can overlap and still tell their exchanges apart). */
async function pay(...args: string[]): Promise<Step> {
  const log: Exchange[] = [];
  const proxy = await startProxy(emu.url, log);
  try {
    const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1/`;
    const env = cleanEnv({
      PAY_CONFIG_DIR: configDir,
      PAY_BASE_URL: base,
      PAY_API_KEY: emu.keys.sandbox.secret,
      PAY_TENANT_ID: emu.tenantId,
      PAY_NO_INPUT: '1',
    });
    const result = await runPay([...args, '--json'], { env });
    exchanges.push(...log);
    let json: unknown;
    try {
      json = result.stdout.trim() ? JSON.parse(result.stdout) : undefined;
    } catch {
      json = undefined;
    }
    return { result, json, exchanges: log };
  } finally {
    await new Promise<void>((r) => {
      proxy.closeAllConnections();
      proxy.close(() => r());
    });
  }
}

/** Runs a command that should succeed; its responses are checked against the contract. */
async function ok(...args: string[]): Promise<Record<string, unknown>> {
  const step = await pay(...args);
  const trace = `pay ${args.join(' ')}\nexit ${step.result.code}\n${step.result.stderr.slice(0, 600)}`;
  expect(step.result.code, trace).toBe(0);
  expect(step.exchanges.length, trace).toBeGreaterThan(0);
  for (const x of step.exchanges)
    expect(responseProblems(x), `${trace}\n${x.method} ${x.path} → ${x.status} ${x.text.slice(0, 300)}`).toEqual([]);
  return step.json as Record<string, unknown>;
}

/** Runs a command that the emulator should refuse with `status`; the problem body is checked too. */
async function refused(status: number, ...args: string[]): Promise<Exchange> {
  const step = await pay(...args);
  const trace = `pay ${args.join(' ')}\nexit ${step.result.code}\n${step.result.stderr.slice(0, 600)}`;
  expect(step.result.code, trace).not.toBe(0);
  const last = step.exchanges.at(-1);
  expect(last?.status, trace).toBe(status);
  for (const x of step.exchanges)
    expect(responseProblems(x), `${trace}\n${x.method} ${x.path} → ${x.status} ${x.text.slice(0, 300)}`).toEqual([]);
  return last!;
}

const ids: Record<string, string> = {};
const idOf = (obj: Record<string, unknown> | undefined, prefix: string): string => {
  const id = obj?.id;
  expect(id).toMatch(new RegExp(`^${prefix}[0-9a-z]{24}$`));
  return id as string;
};

beforeAll(async () => {
  configDir = tempDir('pay-responses-config-');
  // settleAfterMs 0: pending things settle before the next request is answered.
  emu = await startEmulator({ port: 0, settleAfterMs: 0 });
  registerSecret(emu.keys.sandbox.secret, emu.keys.live.secret, emu.webhookSecret);
});

afterAll(async () => {
  await emu?.stop();
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

// One story, in order: later steps use the objects earlier ones created; runs that do not depend
// on each other overlap. About 25 runs: each costs a Node start-up.
describe('every emulator response validates against the contract', () => {
  it('customers create, list, update', async () => {
    const created = await ok('customers', 'create', ...customerFlags({ '--middle-name': 'Augusta', '--gender': 'female' }));
    ids.customer = idOf(created, 'cus_');
    const [list, updated] = await Promise.all([
      ok('customers', 'list', '--type', 'individual'),
      ok('customers', 'update', ids.customer, '--email', 'ada.lovelace@example.com'),
    ]);
    expect(list).toHaveLength(1);
    expect(updated).toMatchObject({ email: 'ada.lovelace@example.com' });
  });

  it('kyc verify, submit-document, status; features activate (needs the approved KYC)', async () => {
    await ok('kyc', 'verify', ids.customer!, '--level', 'basic');
    await ok(
      'kyc',
      'submit-document',
      ids.customer!,
      '--type',
      'passport',
      '--country',
      'GB',
      '--number',
      '123456789',
      '--file-name',
      'passport.pdf',
    );
    // The business rules: what the later steps make needs these features (and cards, the approved KYC).
    const [status, ...features] = await Promise.all([
      ok('kyc', 'status', ids.customer!),
      ...['cards', 'collections', 'crypto_wallets', 'payment_links', 'fx'].map((f) =>
        ok('features', 'activate', ids.customer!, '--feature', f),
      ),
    ]);
    expect(status).toMatchObject({ status: 'approved' });
    for (const feature of features) expect(feature).toMatchObject({ active: true });
  });

  it('accounts and a wallet; a collection funds an account; a payment link; an external account', async () => {
    const [usd, eur, wallet, external] = await Promise.all([
      ok('accounts', 'create', '--customer', ids.customer!, '--currency', 'USD', '--nickname', 'Main'),
      ok('accounts', 'create', '--customer', ids.customer!, '--currency', 'EUR', '--type', 'savings'),
      ok('wallets', 'create', '--customer', ids.customer!, '--asset', 'USDC', '--network', 'polygon'),
      ok(
        'external-accounts',
        'add',
        '--customer',
        ids.customer!,
        '--account-holder-name',
        'Ada Lovelace',
        '--bank-name',
        'Barclays',
        '--account-number',
        '31926819',
        '--iban',
        'GB29NWBK60161331926819',
        '--country',
        'GB',
        '--currency',
        'USD',
      ),
    ]);
    [ids.usd, ids.eur, ids.wallet, ids.external] = [idOf(usd, 'acc_'), idOf(eur, 'acc_'), idOf(wallet, 'wal_'), idOf(external, 'ea_')];
    await Promise.all([
      ok(
        'collections',
        'create',
        '--account',
        ids.usd,
        '--amount',
        '500.00',
        '--currency',
        'USD',
        '--method',
        'card',
        '--description',
        'Top-up',
      ),
      ok(
        'payment-links',
        'create',
        '--wallet',
        ids.wallet,
        '--amount',
        '49.99',
        '--asset',
        'USDC',
        '--description',
        'Pro plan',
        '--expires-at',
        '2030-01-31T12:00:00Z',
      ),
    ]);
    expect(await ok('accounts', 'get', ids.usd)).toMatchObject({ balance: { available: '500.00' } });
  });

  it('transfers send --wait; cards issue and freeze; fx quote and trade', async () => {
    const card = async () => {
      ids.card = idOf(
        await ok(
          'cards',
          'issue',
          '--customer',
          ids.customer!,
          '--account',
          ids.usd!,
          '--type',
          'virtual',
          '--spending-limit',
          '200.00',
          '--spending-interval',
          'monthly',
        ),
        'card_',
      );
      expect(await ok('cards', 'freeze', ids.card)).toMatchObject({ status: 'frozen' });
    };
    const transfer = async () => {
      expect(
        await ok(
          'transfers',
          'send',
          '--from',
          ids.usd!,
          '--to',
          ids.external!,
          '--amount',
          '10.50',
          '--currency',
          'USD',
          '--reference',
          'inv-42',
          '--wait',
          '--wait-timeout',
          '10',
        ),
      ).toMatchObject({ status: 'completed' });
    };
    const trade = async () => {
      const quote = idOf(await ok('fx', 'quote', '--from', 'USD', '--to', 'EUR', '--amount', '20.00'), 'fxq_');
      await ok('fx', 'trade', quote, '--from-account', ids.usd!, '--to-account', ids.eur!);
    };
    await Promise.all([card(), transfer(), trade()]);
  });

  it('transactions list; webhooks list and get', async () => {
    const [txns, events] = (await Promise.all([
      ok('transactions', 'list', '--account', ids.usd!),
      ok('webhooks', 'list'),
    ])) as unknown as Array<Array<{ id: string }>>;
    expect(txns!.length).toBeGreaterThan(0);
    expect(events!.length).toBeGreaterThan(0);
    await ok('webhooks', 'get', events![0]!.id);
  });

  it('errors are problem details the contract declares: 404, 409, 422', async () => {
    await Promise.all([
      refused(404, 'transfers', 'get', 'tr_q7w8e9r0t1y2u3i4o5p6a7s8'),
      // A frozen card cannot be frozen again.
      refused(409, 'cards', 'freeze', ids.card!),
      // More than the balance.
      refused(422, 'transfers', 'send', '--from', ids.eur!, '--to', ids.external!, '--amount', '99999.00', '--currency', 'EUR'),
    ]);
  });

  it('covered a representative share of the contract', () => {
    const called = new Set(exchanges.map((x) => operationOf(x.method, x.path)?.operation.operationId).filter(Boolean));
    expect(called.size).toBeGreaterThanOrEqual(20);
  });

  it('the response check is not vacuous: a wrong type, a missing required field or an undeclared status is reported', () => {
    const created = exchanges.find((x) => x.method === 'POST' && x.path === '/v1/customers' && x.status === 201)!;
    const body = JSON.parse(created.text) as Record<string, unknown>;
    const as = (text: unknown, status = 201): Exchange => ({ ...created, status, text: JSON.stringify(text) });
    expect(responseProblems(created)).toEqual([]);
    expect(responseProblems(as({ ...body, created_at: 1767225600 })).join('\n')).toContain('/created_at');
    const { id: _id, ...withoutId } = body;
    expect(responseProblems(as(withoutId)).join('\n')).toContain('id');
    expect(responseProblems(as(body, 202)).join('\n')).toContain('no 202 response');
    const notFound = exchanges.find((x) => x.status === 404)!;
    const problem = JSON.parse(notFound.text) as Record<string, unknown>;
    const { code: _code, ...withoutCode } = problem;
    expect(responseProblems({ ...notFound, text: JSON.stringify(withoutCode) }).join('\n')).toContain('code');
  });
});
