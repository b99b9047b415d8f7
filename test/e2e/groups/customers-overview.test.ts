// pay customers overview against the emulator with populated data: a customer with approved KYC,
// two accounts, more transactions than the overview shows, a card, a wallet, and webhook
// deliveries that fail (the webhook URL is a closed port); a second customer whose objects must
// not show. Through a proxy in front of the emulator: a section whose requests fail (the rest
// still prints, exit 1), the bound on requests in flight, and answers about another customer or
// account (each refused, as `customers get` refuses one). A customer with 101 accounts: all shown.
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, customer, enable, fund, json, ok, startWorld, until, type Obj, type World } from './helpers.js';
import { freePort } from '../../helpers/ports.js';

let w: World;
const A: Record<string, string> = {};
const B: Record<string, string> = {};

const transfer = (from: string, to: string, amount: string) =>
  w.api('POST', 'transfers', { source_account_id: from, destination_id: to, amount, currency: 'USD' });

beforeAll(async () => {
  // Deliveries go to a closed port: each fails, and its retries come within a second (then it stays failed).
  w = await startWorld({ webhookUrl: `http://127.0.0.1:${await freePort()}/hooks`, webhookRetryScale: 0.001 });
  A.customer = await customer(w);
  await enable(w, A.customer); // the business rules: KYC approved, features active (cards, wallets)
  A.a1 = await account(w, A.customer);
  A.a2 = await account(w, A.customer);
  for (let i = 0; i < 6; i++) await fund(w, A.a1, `10${i}.00`);
  for (let i = 0; i < 3; i++) await fund(w, A.a2, `2${i}.00`);
  await transfer(A.a1, A.a2, '25.00');
  await transfer(A.a2, A.a1, '5.00');
  await w.settle();
  A.card = (await w.api('POST', 'cards', { customer_id: A.customer, account_id: A.a1, type: 'virtual' })).id;
  A.wallet = (await w.api('POST', 'wallets', { customer_id: A.customer, asset: 'BTC', network: 'bitcoin' })).id;
  B.customer = await customer(w);
  B.account = await account(w, B.customer);
  await fund(w, B.account, '70.00');
  // Every delivery has failed for good (its retries spent).
  await until(
    'every webhook delivery to fail for good',
    async () => (await w.api('GET', 'webhooks/events?status=pending&limit=100')).data.length === 0,
  );
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

/** The API's own view of what the overview should show, read with plain HTTP. */
async function expected(): Promise<{ transactions: Obj[]; failed: Obj[]; ids: Set<string> }> {
  const per = await Promise.all([A.a1, A.a2].map((a) => w.api('GET', `transactions?account_id=${a}&limit=100`)));
  const transactions = per
    .flatMap((p) => p.data as Obj[])
    .sort((x, y) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : x.id < y.id ? 1 : -1));
  const ids = new Set([A.customer!, A.a1!, A.a2!, A.card!, A.wallet!, (await w.api('GET', `customers/${A.customer}/kyc`)).id as string]);
  const events = (await w.api('GET', 'webhooks/events?status=failed&limit=100')).data as Obj[];
  const about = (o: Obj) =>
    ['id', 'customer_id', 'account_id', 'source_account_id', 'destination_id', 'target_account_id', 'wallet_id'].some((k) => ids.has(o[k]));
  return { transactions, failed: events.filter((e) => about(e.data.object)), ids };
}

describe('pay customers overview', () => {
  it('--json: one aggregate object with every section, read with bounded concurrent GETs and nothing else', async () => {
    const mark = w.mark();
    const view = json(await w.pay(['customers', 'overview', A.customer!, '--json']));
    const sent = w.since(mark).map((r) => `${r.method} ${r.path}`);
    const exp = await expected();
    expect(Object.keys(view)).toEqual([
      'customer',
      'kyc',
      'accounts',
      'cards',
      'wallets',
      'transactions',
      'failed_deliveries',
      'more',
      'errors',
    ]);
    expect(view.customer.id).toBe(A.customer);
    expect(view.kyc).toMatchObject({ customer_id: A.customer, status: 'approved' });
    expect(view.accounts.map((a: Obj) => a.id).sort()).toEqual([A.a1, A.a2].sort());
    const a1 = view.accounts.find((a: Obj) => a.id === A.a1);
    // 100+101+…+105 collected, 25.00 sent, 5.00 received.
    expect(a1.balance.available).toBe('595.00');
    expect(view.cards.map((c: Obj) => [c.id, c.status])).toEqual([[A.card, 'active']]);
    expect(view.wallets.map((x: Obj) => x.id)).toEqual([A.wallet]);
    // The 10 newest of the 13 across both accounts, newest first.
    expect(exp.transactions.length).toBe(13);
    expect(view.transactions).toEqual(exp.transactions.slice(0, 10));
    // Failed deliveries about A's objects only (B's customer, account and collection are left out).
    expect(exp.failed.length).toBeGreaterThan(10);
    expect(view.failed_deliveries.map((e: Obj) => e.id)).toEqual(exp.failed.slice(0, 10).map((e) => e.id));
    for (const e of view.failed_deliveries) expect(e.delivery.status).toBe('failed');
    expect(JSON.stringify(view.failed_deliveries)).not.toContain(B.customer);
    expect(JSON.stringify(view.failed_deliveries)).not.toContain(B.account);
    expect(view.more).toEqual({
      customer: [`pay customers get ${A.customer}`],
      kyc: [`pay kyc status ${A.customer}`],
      accounts: [`pay accounts list --customer ${A.customer}`],
      cards: [`pay cards list --customer ${A.customer}`],
      wallets: [`pay wallets list --customer ${A.customer}`],
      transactions: view.accounts.map((a: Obj) => `pay transactions list --account ${a.id}`),
      failed_deliveries: [`pay webhooks get ${view.failed_deliveries[0].id}`, 'pay webhooks list --status failed'],
    });
    expect(view.errors).toEqual([]);
    expect(sent.every((s) => s.startsWith('GET '))).toBe(true);
    expect(sent.sort()).toEqual(
      [
        `GET /v1/customers/${A.customer}`,
        `GET /v1/customers/${A.customer}/kyc`,
        'GET /v1/accounts',
        'GET /v1/cards',
        'GET /v1/wallets',
        'GET /v1/webhooks/events',
        'GET /v1/transactions',
        'GET /v1/transactions',
      ].sort(),
    );
  });

  it('off a terminal: the screen as text, a heading per section, and each "more" command works as printed', async () => {
    const out = ok(await w.pay(['customers', 'overview', A.customer!]));
    expect(out).not.toMatch(/\x1b\[/);
    for (const heading of [
      'Accounts (2)',
      'Cards (1)',
      'Wallets (1)',
      'Last 10 transactions across the accounts (10)',
      'Failed webhook deliveries (10)',
    ])
      expect(out).toContain(`\n${heading}\n`);
    expect(out).toMatch(/^ {2}KYC {6}approved \(level basic, kyc_\w+\)$/m);
    expect(out).toMatch(new RegExp(`^${A.a1}\\s+-\\s+checking\\s+595\\.00 USD\\s+0\\.00 USD\\s+active$`, 'm'));
    const more = [...out.matchAll(/^ {2}more: pay (.+)$/gm)].map((m) => m[1]!.split(' '));
    expect(more.length).toBe(9);
    for (const args of more) {
      const r = await w.pay(args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
    }
  }, 180_000);

  it('an unknown customer is exit 4 with one error line and nothing on stdout; a bad id is exit 2 and sends nothing', async () => {
    const r = await w.pay(['customers', 'overview', 'cus_0123456789abcdefghijklmn']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: HTTP 404 not_found: .*cus_0123456789abcdefghijklmn.*\n$/);
    const mark = w.mark();
    const bad = await w.pay(['customers', 'overview', 'acc_0123456789abcdefghijklmn']);
    expect(bad.code).toBe(2);
    expect(w.since(mark)).toEqual([]);
  });

  it('without a tenant, or asked for TSV: exit 2, nothing sent', async () => {
    const mark = w.mark();
    const noTenant = await w.pay(['customers', 'overview', A.customer!], { env: { PAY_TENANT_ID: undefined } });
    expect(noTenant.code).toBe(2);
    expect(noTenant.stderr).toMatch(/^error: pay customers overview needs a tenant id/);
    const tsv = await w.pay(['customers', 'overview', A.customer!, '-o', 'tsv']);
    expect(tsv.code).toBe(2);
    expect(tsv.stderr).toMatch(/^error: pay customers overview prints a screen/);
    expect(w.since(mark)).toEqual([]);
  });
});

/** A proxy in front of the emulator: `answer` may reply itself; `hold` may delay a request. */
async function proxy(opts: {
  answer?: (req: IncomingMessage, res: ServerResponse) => boolean;
  hold?: (release: () => void) => void;
}): Promise<{ url: string; maxInFlight: () => number; close: () => Promise<void> }> {
  const target = new URL(w.emu.url);
  let inFlight = 0;
  let max = 0;
  const server: Server = createHttpServer((req, res) => {
    inFlight++;
    max = Math.max(max, inFlight);
    res.on('close', () => inFlight--);
    const go = () => {
      if (opts.answer?.(req, res)) return;
      const up = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (opts.hold) opts.hold(go);
    else go();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1/`,
    maxInFlight: () => max,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('pay customers overview: failures and concurrency (through a proxy)', () => {
  it('a section whose requests fail says so, every other section prints, exit 1 naming it', async () => {
    const p = await proxy({
      answer: (req, res) => {
        if (!req.url?.startsWith('/v1/cards')) return false;
        res.writeHead(503, { 'content-type': 'application/problem+json' });
        res.end(
          JSON.stringify({
            status: 503,
            code: 'unavailable',
            title: 'Service unavailable',
            detail: 'cards are down',
            request_id: 'req_cards',
          }),
        );
        return true;
      },
    });
    try {
      const env = { PAY_BASE_URL: p.url, PAY_MAX_RETRIES: '0' };
      const text = await w.pay(['customers', 'overview', A.customer!], { env });
      expect(text.code).toBe(1);
      // The failed deliveries are matched against the customer's objects: without its cards, they cannot be told whole.
      expect(text.stderr).toBe('error: the overview is incomplete: 2 sections failed (cards, failed_deliveries)\n');
      expect(text.stdout).toMatch(/\nCards\n {2}failed: .*cards are down.*\(request req_cards\)\n {2}more: pay cards list --customer /);
      expect(text.stdout).toMatch(
        /\nFailed webhook deliveries\n {2}failed: not loaded: the cards did not load, so the deliveries about them cannot be told\n/,
      );
      for (const heading of ['Accounts (2)', 'Wallets (1)', 'Last 10 transactions across the accounts (10)'])
        expect(text.stdout).toContain(`\n${heading}\n`);

      const asJson = await w.pay(['customers', 'overview', A.customer!, '--json'], { env });
      expect(asJson.code).toBe(1);
      const view = JSON.parse(asJson.stdout) as Obj;
      expect(view.cards).toBeNull();
      expect(view.accounts).toHaveLength(2);
      expect(view.errors).toEqual([
        {
          section: 'cards',
          message: expect.stringContaining('cards are down'),
          code: 'unavailable',
          exit_code: 6,
          request_id: 'req_cards',
        },
        {
          section: 'failed_deliveries',
          message: expect.stringMatching(/^not loaded: the cards did not load/),
          code: 'not_loaded',
          exit_code: 1,
        },
      ]);
      expect(JSON.parse(asJson.stderr)).toMatchObject({ error: { code: 'overview_incomplete' } });
    } finally {
      await p.close();
    }
  });

  it('requests run concurrently, never more than 4 at once', async () => {
    // The first requests are held until 4 are waiting at once, then released together: a looser
    // bound would pass 4 while they wait. Later requests go straight through. No timer releases
    // them early: an overview that never has 4 out at once hangs here until run-pay's hang
    // detector kills it, and fails (exit and maxInFlight) however slow the machine is.
    const waiting: Array<() => void> = [];
    let held = 0;
    const p = await proxy({
      hold: (release) => {
        if (held >= 4) return release();
        held++;
        waiting.push(release);
        if (held === 4) waiting.splice(0).forEach((r) => r());
      },
    });
    try {
      const r = await w.pay(['customers', 'overview', A.customer!, '--json'], { env: { PAY_BASE_URL: p.url } });
      expect(r.code, r.stderr).toBe(0);
      expect(held).toBe(4);
      expect(p.maxInFlight()).toBe(4);
    } finally {
      waiting.splice(0).forEach((r) => r());
      await p.close();
    }
  });
});

describe('pay customers overview: nothing left out, nothing about anyone else', () => {
  it("a customer with 101 accounts: every account, and the oldest one's posted 1,000.00 among the transactions, exit 0", async () => {
    const c = await customer(w);
    await enable(w, c);
    const oldest = await account(w, c);
    await fund(w, oldest, '1000.00');
    const accounts = [oldest];
    for (let i = 0; i < 100; i++) accounts.push(await account(w, c));
    const view = json(await w.pay(['customers', 'overview', c, '--json']));
    expect(view.errors).toEqual([]);
    expect(view.accounts.map((a: Obj) => a.id).sort()).toEqual([...accounts].sort());
    expect(view.transactions.map((t: Obj) => [t.account_id, t.amount, t.status])).toEqual([[oldest, '1000.00', 'posted']]);
    const screen = ok(await w.pay(['customers', 'overview', c]));
    expect(screen).toContain('\nAccounts (101)\n');
    expect(screen).toContain(oldest);
    expect(screen).toMatch(/\nLast 10 transactions across the accounts \(1\)\n.*\n.*1000\.00 USD/);
  }, 120_000);

  // Each section's answer rewritten to be about another customer (or another account): the
  // section fails naming what came back, the others print, exit 1; as `customers get` refuses.
  const rewrites: Array<{ section: string; path: (a: typeof A) => string; swap: (a: typeof A) => [string, string]; shows?: string }> = [
    { section: 'customer', path: (a) => `/v1/customers/${a.customer}`, swap: (a) => [a.customer!, B.customer!] },
    { section: 'kyc', path: (a) => `/v1/customers/${a.customer}/kyc`, swap: (a) => [a.customer!, B.customer!] },
    { section: 'accounts', path: () => '/v1/accounts', swap: (a) => [a.customer!, B.customer!] },
    { section: 'cards', path: () => '/v1/cards', swap: (a) => [a.customer!, B.customer!] },
    { section: 'wallets', path: () => '/v1/wallets', swap: (a) => [a.customer!, B.customer!] },
    { section: 'transactions', path: () => '/v1/transactions', swap: (a) => [a.a1!, B.account!] },
    // Events that are not failed, where failed ones were asked for.
    {
      section: 'failed_deliveries',
      path: () => '/v1/webhooks/events',
      swap: () => ['"status":"failed"', '"status":"pending"'],
      shows: 'delivery status is pending',
    },
  ];
  for (const r of rewrites) {
    it(`an answer about someone else in ${r.section} fails that section, exit 1`, async () => {
      const target = new URL(w.emu.url);
      const [from, to] = r.swap(A);
      const p = await proxy({
        answer: (req, res) => {
          if (new URL(req.url ?? '/', 'http://x').pathname !== r.path(A)) return false;
          const up = httpRequest(
            { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
            (u) => {
              const chunks: Buffer[] = [];
              u.on('data', (d: Buffer) => chunks.push(d));
              u.on('end', () => {
                const text = Buffer.concat(chunks).toString('utf8').split(from).join(to);
                res.writeHead(u.statusCode ?? 502, {
                  'content-type': 'application/json',
                  'content-length': String(Buffer.byteLength(text)),
                });
                res.end(text);
              });
            },
          );
          up.on('error', () => res.destroy());
          req.pipe(up);
          return true;
        },
      });
      try {
        const out = await w.pay(['customers', 'overview', A.customer!, '--json'], { env: { PAY_BASE_URL: p.url, PAY_MAX_RETRIES: '0' } });
        expect(out.code, out.stderr).toBe(1);
        const view = JSON.parse(out.stdout) as Obj;
        expect(view[r.section]).toBeNull();
        const err = (view.errors as Obj[]).find((e) => e.section === r.section);
        expect(err, JSON.stringify(view.errors)).toBeDefined();
        expect(err!.message).toContain(r.shows ?? to);
        expect(err!.exit_code).toBe(1);
        expect(JSON.stringify(view)).not.toMatch(new RegExp(`"(customer_id|account_id|id)": ?"${to}"`));
      } finally {
        await p.close();
      }
    });
  }
});
