// The contract test through Prism's validating proxy: a run of commands that reaches every
// operation of the contract, from the built pay, through Prism, to the emulator. Prism checks each
// request and response against the published contract; any violation fails the test, and so does
// an operation of the contract's `paths` that no request of the run went to (a new operation needs
// a command here). The `webhooks` delivery is the service's request to the user, not pay's: it is
// not in the run.
//
// Prism runs on the contract as `pay openapi` prints it (test/helpers/prism.ts), and validates
// request and response bodies: the last two tests prove each kind of check fires. Between Prism
// and the emulator sits a pass-through that can spoil one answer, for the response check.
//
// Time: the emulator settles pending things SETTLE_S of emulator time after they start, and the
// run moves its clock (admin.advance) where it needs them settled, so a transfer stays pending
// until it is cancelled however slow the machine is. Independent commands run concurrently.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type ReceivedRequest } from '../../src/emulator/index.js';
import { startPrism, type Prism } from '../helpers/prism.js';
import { cleanEnv, registerSecret, runPay } from '../helpers/run-pay.js';
import { until } from '../helpers/wait.js';
import { customerFlags } from '../helpers/fixtures.js';
import { allOperations, operationOfRequest } from './contract-helpers.js';

const SETTLE_S = 600;

let emu: Emulator;
let prism: Prism;
let passThrough: Server;
/** When set, the pass-through answers the next request with this body instead of the emulator's. */
let spoilNext: string | undefined;
let env: Record<string, string>;
/** Every request the emulator received (its own `received` keeps only the last 1000). */
const seen: ReceivedRequest[] = [];

beforeAll(async () => {
  emu = await startEmulator({ port: 0, settleAfterMs: SETTLE_S * 1000 });
  const push = emu.received.push.bind(emu.received);
  emu.received.push = (...items: ReceivedRequest[]) => {
    seen.push(...items);
    return push(...items);
  };
  registerSecret(emu.keys.sandbox.secret, emu.webhookSecret);
  passThrough = createServer((req, res) => {
    if (spoilNext !== undefined) {
      const body = spoilNext;
      spoilNext = undefined;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_0123456789abcdefghijklmn' }).end(body);
      return;
    }
    const up = request(`${emu.url}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => passThrough.listen(0, '127.0.0.1', resolve));
  prism = await startPrism(`http://127.0.0.1:${(passThrough.address() as AddressInfo).port}`);
  env = cleanEnv({ PAY_BASE_URL: prism.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId });
}, 90_000);
afterAll(async () => {
  await prism?.stop();
  await new Promise((resolve) => passThrough?.close(resolve));
  await emu?.stop();
});

// JSON output is read field by field.

type Obj = Record<string, any>;

async function pay(args: string[], expectCode = 0): Promise<Obj> {
  const r = await runPay([...args, '--json'], { env });
  expect(r.code, `pay ${args.join(' ')}\n${r.stderr}`).toBe(expectCode);
  return expectCode === 0 && r.stdout ? (JSON.parse(r.stdout) as Obj) : {};
}

/** pay, for a list: the JSON array it prints. */
const payList = async (args: string[]): Promise<Obj[]> => (await pay(args)) as unknown as Obj[];

const customerArgs = (email: string) => ['customers', 'create', ...customerFlags({ '--email': email })];

describe('pay → Prism (validating proxy) → emulator', () => {
  it('a run over every operation of the contract has no contract violation', async () => {
    const [cus, cus2] = await Promise.all([pay(customerArgs('ada@example.com')), pay(customerArgs('ada2@example.com'))]);

    const [usd, usd2, eur, spare] = await Promise.all([
      pay(['accounts', 'create', '--customer', cus.id, '--currency', 'USD']),
      pay(['accounts', 'create', '--customer', cus.id, '--currency', 'USD']),
      pay(['accounts', 'create', '--customer', cus.id, '--currency', 'EUR']),
      pay(['accounts', 'create', '--customer', cus.id, '--currency', 'GBP']),
      pay(['customers', 'get', cus.id]),
      pay(['customers', 'update', cus.id, '--city', 'Bath'], 2),
      pay([
        'customers',
        'update',
        cus.id,
        '--email',
        'ada@lovelace.example',
        '--address-line1',
        '2 High St',
        '--city',
        'Bath',
        '--country',
        'GB',
        '--postal-code',
        'BA1 1AA',
      ]),
      pay(['customers', 'list', '--limit', '5']),
      pay(['customers', 'get', 'cus_000000000000000000000000'], 4),
      pay(['features', 'list']),
      (async () => {
        await pay(['kyc', 'verify', cus.id]);
        await pay(['kyc', 'submit-document', cus.id, '--type', 'passport', '--country', 'GB', '--number', '123456789']);
        await pay(['kyc', 'status', cus.id]);
      })(),
      // The business rules: the features that need no approved KYC, before the collection and the FX trade.
      (async () => {
        await pay(['features', 'activate', cus.id, '--feature', 'collections']);
        await pay(['features', 'activate', cus.id, '--feature', 'fx']);
      })(),
      (async () => {
        await pay(['kyc-legacy', 'verify', cus2.id]);
        await pay(['kyc-legacy', 'submit-document', cus2.id, '--type', 'passport', '--country', 'GB', '--number', '123456789']);
        await pay(['kyc-legacy', 'status', cus2.id]);
      })(),
    ]);

    // Money in (a pending collection) and the objects the rest of the run uses.
    const [col, ea] = await Promise.all([
      pay(['collections', 'create', '--account', usd.id, '--amount', '500.00', '--currency', 'USD', '--method', 'card']),
      pay([
        'external-accounts',
        'add',
        '--customer',
        cus.id,
        '--account-holder-name',
        'Ada Lovelace',
        '--bank-name',
        'Bank',
        '--account-number',
        '12345678',
        '--country',
        'GB',
        '--currency',
        'USD',
      ]),
      pay(['features', 'check', cus.id, '--feature', 'cards']),
      pay(['accounts', 'list', '--customer', cus.id]),
      pay(['accounts', 'get', usd.id]),
      pay(['accounts', 'close', spare.id]),
    ]);

    // The collection and both KYC reviews settle.
    emu.admin.advance(SETTLE_S);

    // A transfer sent with --wait: settled once pay polls it.
    const polled = (r: ReceivedRequest) => r.method === 'GET' && /^\/v1\/transfers\/tr_/.test(r.path);
    const [tr, , , wal] = await Promise.all([
      pay(['transfers', 'send', '--from', usd.id, '--to', usd2.id, '--amount', '10.00', '--currency', 'USD', '--wait']),
      until('pay transfers send --wait to poll', () => seen.some(polled)).then(() => emu.admin.advance(SETTLE_S)),
      pay(['features', 'activate', cus.id, '--feature', 'cards']),
      // Wallets and links need the approved KYC and their features.
      (async () => {
        await pay(['features', 'activate', cus.id, '--feature', 'crypto_wallets']);
        await pay(['features', 'activate', cus.id, '--feature', 'payment_links']);
        return pay(['wallets', 'create', '--customer', cus.id, '--asset', 'USDC', '--network', 'polygon']);
      })(),
      pay(['collections', 'get', col.id]),
      pay(['collections', 'list', '--account', usd.id]),
      pay(['external-accounts', 'get', ea.id]),
      pay(['external-accounts', 'list', '--customer', cus.id]),
      pay(['wallets', 'list']),
    ]);
    expect(tr.status).toBe('completed');
    await pay(['wallets', 'get', wal.id]);

    // No clock moves from here on: the next transfer stays pending and the quote stays valid.
    await Promise.all([
      (async () => {
        const pending = await pay(['transfers', 'send', '--from', usd.id, '--to', ea.id, '--amount', '20.00', '--currency', 'USD']);
        await pay(['transfers', 'cancel', pending.id]);
        await pay(['transfers', 'get', pending.id]);
      })(),
      pay(['transfers', 'get', tr.id]),
      pay(['transfers', 'list', '--account', usd.id]),
      pay(['transfers', 'send', '--from', usd.id, '--to', ea.id, '--amount', '99999.00', '--currency', 'USD'], 1),
      (async () => {
        const card = await pay(['cards', 'issue', '--customer', cus.id, '--account', usd.id, '--type', 'virtual']);
        await pay(['cards', 'get', card.id]);
        await pay(['cards', 'freeze', card.id]);
        await pay(['cards', 'freeze', card.id], 5);
        await pay(['cards', 'unfreeze', card.id]);
        await pay(['cards', 'list', '--customer', cus.id]);
        await pay(['cards', 'terminate', card.id]);
      })(),
      (async () => {
        const link = await pay(['payment-links', 'create', '--wallet', wal.id, '--amount', '25.00', '--asset', 'USDC']);
        await pay(['payment-links', 'get', link.id]);
        await pay(['payment-links', 'disable', link.id]);
        await pay(['payment-links', 'list']);
      })(),
      (async () => {
        await pay(['fx', 'rates', '--base', 'USD']);
        const quote = await pay(['fx', 'quote', '--from', 'USD', '--to', 'EUR', '--amount', '100.00']);
        await pay(['fx', 'get-quote', quote.id]);
        const trade = await pay(['fx', 'trade', quote.id, '--from-account', usd.id, '--to-account', eur.id]);
        await pay(['fx', 'get-trade', trade.id]);
        await pay(['fx', 'trades']);
      })(),
    ]);

    const [txns, events] = await Promise.all([
      payList(['transactions', 'list', '--account', usd.id]),
      payList(['webhooks', 'list', '--limit', '3']),
    ]);
    await Promise.all([
      pay(['transactions', 'get', txns[0]!.id]),
      pay(['webhooks', 'get', events[0]!.id]),
      pay(['webhooks', 'resend', events[0]!.id]),
      pay(['external-accounts', 'remove', ea.id]),
    ]);

    expect(prism.violations(), prism.log().slice(-3000)).toEqual([]);
    expect(prism.log()).toMatch(/Request received/);

    // Every operation went through the proxy: the requests the emulator received, each matched to
    // the contract's operation by method and path template.
    const unmatched = seen.filter((r) => !operationOfRequest(r.method, r.path)).map((r) => `${r.method} ${r.path}`);
    expect(unmatched, 'requests that match no operation of the contract').toEqual([]);
    const covered = new Set(seen.map((r) => operationOfRequest(r.method, r.path)!.operation.operationId));
    const missing = allOperations()
      .map((o) => o.operation.operationId)
      .filter((id) => !covered.has(id));
    expect(missing, `operations no command of the run reached through Prism: ${missing.join(', ')}`).toEqual([]);
    expect(covered.size).toBe(allOperations().length);
  }, 300_000);

  // Straight to Prism (not through pay, which would refuse these early): with --errors, Prism
  // answers a violation with its own problem, the violations listed in `validation`.
  const direct = (method: string, path: string, body?: unknown) =>
    fetch(`${prism.baseUrl}${path}`, {
      method,
      headers: {
        'Api-Key': emu.keys.sandbox.secret,
        'Idempotency-Key': `k-${Math.random()}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, text: await r.text() }));

  it('Prism does catch a request body the contract forbids (the check above is not vacuous)', async () => {
    const r = await direct('POST', 'customers', { first_name: 'Ada', shoe_size: 42 });
    expect(r.status, r.text).toBe(422);
    expect(r.text).toMatch(/UNPROCESSABLE_ENTITY/);
    expect(r.text).toMatch(/found 'shoe_size'/);
    expect(r.text).toMatch(/required property 'last_name'/);
  }, 60_000);

  it('Prism does catch a response body the contract forbids', async () => {
    spoilNext = JSON.stringify({ object: 'list', data: [{ id: 42, object: 'customer' }], has_more: false, next_cursor: null });
    const r = await direct('GET', 'customers');
    expect(spoilNext).toBeUndefined();
    expect(r.text).toMatch(/VIOLATIONS/);
    expect(r.text).toMatch(/"location":\["response","body","data","0","id"\]/);
  }, 60_000);
});
