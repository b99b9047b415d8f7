// A live question shows what is sent (issue 24, item 4, an outside tester's findings). In process
// (test/unit/commands/harness.ts, its fake network), for generated amounts and currencies:
//   1. `pay seed apply`: an amount or currency from `${env.NAME}` is shown as the value sent, a
//      reference to an entry not yet made is named as such; an FX trade shows the amount it buys
//      or sells in that amount's currency, and that the other side is the quote's;
//   2. `pay trigger fx_trade.completed --override fx_quote.target_amount=…`: the amount bought in
//      the target currency, the collection as the quote's source amount plus margin;
//   3. `pay api`: the question names the query string sent;
//   4. `pay fx trade <quote>`: the quote is read and its amounts and currencies are in the question.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CUSTOMER_DEFAULTS } from '../../src/commands/trigger/check.js';
import { fundingFor } from '../../src/commands/trigger/plan.js';
import { startEmulator } from '../../src/emulator/index.js';
import { answerAny, LIVE_KEY, pay, type Recorded } from '../unit/commands/harness.js';
import { count, record } from './helpers.js';
import { answerWhenAsked, fakeTerminal } from '../helpers/terminal.js';

const LIVE = { PAY_API_KEY: LIVE_KEY, PAY_MODE: 'live', PAY_TENANT_ID: 'biz_1' };
const dir = mkdtempSync(join(tmpdir(), 'pay-attack-confirm-shown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const currencies = fc.constantFrom('USD', 'EUR', 'GBP', 'JPY');
const decimals: Record<string, number> = { USD: 2, EUR: 2, GBP: 2, JPY: 0 };
const amountIn = (currency: string) =>
  fc
    .tuple(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 0, max: 10 ** decimals[currency]! - 1 }))
    .map(([whole, frac]) => (decimals[currency] ? `${whole}.${String(frac).padStart(decimals[currency], '0')}` : String(whole)));
const envName = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,11}$/).filter((n) => !/KEY|SECRET|TOKEN|PASS|PAY_/.test(n));

const started = Date.now();
const tally = { tried: 0, passed: 0, leaked: 0 };
afterAll(async () => {
  await record(
    'attack.confirm-shown',
    'A live question shows the values sent: env references resolved, FX currencies right, the query string, the quote read',
    { tried: tally.tried, passed: tally.passed, lost: 0, duplicated: 0, leaked: tally.leaked },
    started,
  );
});

describe('pay seed apply: the question shows the values sent', () => {
  const customer = JSON.stringify({ ...CUSTOMER_DEFAULTS, email: 'bob@example.com' });
  const base = (usd = 'USD', eur = 'EUR') =>
    `customers:\n  bob: ${customer}\naccounts:\n  bob_usd: {customer_id: "\${customers.bob.id}", currency: ${usd}}\n  bob_eur: {customer_id: "\${customers.bob.id}", currency: ${eur}}\n` +
    `kyc:\n  bob: {customer_id: "\${customers.bob.id}", level: basic, documents: [{type: passport, country: US, number: P100077, file_name: b.pdf}]}\n` +
    `features:\n  bob_c: {customer_id: "\${customers.bob.id}", feature: collections}\n  bob_fx: {customer_id: "\${customers.bob.id}", feature: fx}\n`;

  it('an amount and a currency from ${env.NAME}: the value, off a terminal (the hint) and on one (the question, then y sends it)', async () => {
    await fc.assert(
      fc.asyncProperty(
        currencies.chain((c) => fc.tuple(fc.constant(c), amountIn(c))),
        envName,
        fc.boolean(),
        fc.boolean(),
        async ([currency, amount], name, currencyFromEnv, onTerminal) => {
          tally.tried++;
          const file = join(dir, 'env.yaml');
          const cur = currencyFromEnv ? `"\${env.${name}_C}"` : currency;
          writeFileSync(
            file,
            `${base(currency)}collections:\n  fund_bob: {account_id: "\${accounts.bob_usd.id}", amount: "\${env.${name}}", currency: ${cur}, method: card}\n`,
          );
          const env = { ...LIVE, [name]: amount, [`${name}_C`]: currency };
          if (!onTerminal) {
            const r = await pay(['seed', 'apply', file], { env, respond: answerAny, stdin: '' });
            expect(r.code, r.stderr).toBe(2);
            expect(r.stderr).toContain(`collections.fund_bob: moves ${amount} ${currency}`);
            expect(r.stderr).not.toContain('${env.');
            expect(r.requests).toEqual([]);
            tally.leaked += r.requests.length;
          } else {
            const t = fakeTerminal();
            const running = pay(['seed', 'apply', file, '--state', join(dir, `env-${tally.tried}.state.json`)], {
              env,
              respond: answerAny,
              io: t.io,
            });
            const q = (await answerWhenAsked(t, 'y', running)).replace(/\s+/g, ' ');
            expect(q).toContain(`collections.fund_bob: moves ${amount} ${currency}`);
            expect(q).not.toContain('${env.');
            const run = await running;
            expect(run.code, run.stderr).toBe(0);
            const sent = run.requests.filter((x) => x.method === 'POST' && /^\/?(v1\/)?collections$/.test(x.path));
            expect(sent.map((x) => (x.body as Record<string, unknown>).amount)).toEqual([amount]);
          }
          tally.passed++;
        },
      ),
      { numRuns: count(16, 80), seed: 2411 },
    );
  });

  it('an amount that is another entry`s field not yet made is named as such, never shown as ${…}', async () => {
    tally.tried++;
    const file = join(dir, 'ref.yaml');
    writeFileSync(
      file,
      `${base()}collections:\n  a: {account_id: "\${accounts.bob_usd.id}", amount: "10.00", currency: USD, method: card}\n  b: {account_id: "\${accounts.bob_usd.id}", amount: "\${collections.a.amount}", currency: USD, method: card}\n`,
    );
    const r = await pay(['seed', 'apply', file], { env: LIVE, respond: answerAny, stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('collections.b: moves (the amount of collections.a, made first) USD');
    tally.passed++;
  });

  it('an FX trade: the amount in its own currency, the other side the quote`s; never the amount in the other currency', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .tuple(currencies, currencies)
          .filter(([a, b]) => a !== b)
          .chain(([from, to]) => fc.tuple(fc.constant(from), fc.constant(to), fc.boolean(), amountIn(to), amountIn(from))),
        async ([from, to, byTarget, target, source]) => {
          tally.tried++;
          const file = join(dir, 'fx.yaml');
          const amount = byTarget ? `target_amount: "${target}"` : `source_amount: "${source}"`;
          writeFileSync(
            file,
            `${base(from, to)}fx_trades:\n  t: {source_currency: ${from}, target_currency: ${to}, ${amount}, source_account_id: "\${accounts.bob_usd.id}", target_account_id: "\${accounts.bob_eur.id}"}\n`,
          );
          const r = await pay(['seed', 'apply', file], { env: LIVE, respond: answerAny, stdin: '' });
          expect(r.code).toBe(2);
          expect(r.requests).toEqual([]);
          if (byTarget) {
            expect(r.stderr).toContain(`fx_trades.t: buys ${target} ${to} with ${from} (the amount debited is the quote's)`);
            expect(r.stderr).not.toContain(`${target} ${from}`);
          } else {
            expect(r.stderr).toContain(`fx_trades.t: sells ${source} ${from} for ${to} (the amount credited is the quote's)`);
            expect(r.stderr).not.toContain(`${source} ${to}`);
          }
          tally.passed++;
        },
      ),
      { numRuns: count(16, 80), seed: 2412 },
    );
  });
});

describe('pay trigger fx_trade.completed --override fx_quote.target_amount: the amount bought in the target currency (an in-process emulator)', () => {
  it('the question names the target amount in the target currency and the collection as the quote`s source amount rounded up; y sends them', async () => {
    const emu = await startEmulator({ port: 0, settleAfterMs: 20 });
    try {
      const env = { PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.live.secret, PAY_TENANT_ID: emu.tenantId, PAY_MODE: 'live' };
      const get = async (path: string) =>
        (await (
          await fetch(`${emu.baseUrl}${path}`, { headers: { 'api-key': emu.keys.live.secret, 'x-tenant-id': emu.tenantId } })
        ).json()) as Record<string, unknown>;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(['USD', 'EUR'], ['EUR', 'USD'], ['GBP', 'USD'], ['USD', 'GBP']),
          fc
            .tuple(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 99 }))
            .map(([w, c]) => `${w}.${String(c).padStart(2, '0')}`),
          async ([from, to], target) => {
            tally.tried++;
            const t = fakeTerminal();
            const running = pay(
              [
                'trigger',
                'fx_trade.completed',
                '--override',
                `account.currency=${from}`,
                '--override',
                `target_account.currency=${to}`,
                '--override',
                `fx_quote.target_amount=${target}`,
                '--json',
              ],
              { env, io: t.io, loopback: true },
            );
            const q = (await answerWhenAsked(t, 'y', running)).replace(/\s+/g, ' ');
            expect(q).toContain(`${target} ${to} bought with ${from} (the ${from} amount is the quote's)`);
            expect(q).not.toContain(`${target} ${from}`);
            expect(q).toContain(`collection (the quote's source amount, rounded up past the next 100 minor units) ${from}`);
            const run = await running;
            expect(run.code, run.stderr).toBe(0);
            const { created } = JSON.parse(run.stdout) as { created: Array<{ object: string; id: string }> };
            const quote = await get(`fx/quotes/${created.find((c) => c.object === 'fx_quote')!.id}`);
            const collection = await get(`collections/${created.find((c) => c.object === 'collection')!.id}`);
            expect([quote.target_amount, quote.target_currency, quote.source_currency]).toEqual([target, to, from]);
            expect([collection.amount, collection.currency]).toEqual([fundingFor(String(quote.source_amount), from), from]);
            tally.passed++;
          },
        ),
        { numRuns: count(4, 20), seed: 2413 },
      );
    } finally {
      await emu.stop();
    }
  });
});

describe('pay api: the question and the refusal name the URL sent, its query included', () => {
  it('a query in the path (POST) or from -F (DELETE): on a terminal and off one', async () => {
    const param = fc.stringMatching(/^[a-z][a-z_]{0,9}$/);
    const value = fc.stringMatching(/^[A-Za-z0-9.]{1,12}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(param, value), { minLength: 1, maxLength: 4, selector: ([k]) => k }),
        fc.constantFrom('POST', 'DELETE'),
        fc.boolean(),
        async (pairs, method, onTerminal) => {
          tally.tried++;
          const search = pairs.map(([k, v]) => `${k}=${v}`).join('&');
          const argv =
            method === 'POST'
              ? ['api', 'POST', `transfers?${search}`, '-F', 'amount=1.00', '-F', 'currency=USD']
              : ['api', 'DELETE', 'widgets/w_1', ...pairs.flatMap(([k, v]) => ['-F', `${k}=${v}`])];
          const shownUrl = method === 'POST' ? `POST /v1/transfers?${search}` : `DELETE /v1/widgets/w_1?${search}`;
          if (!onTerminal) {
            const r = await pay(argv, { env: LIVE, respond: answerAny, stdin: '' });
            expect(r.code).toBe(2);
            expect(r.requests).toEqual([]);
            expect(r.stderr).toContain(shownUrl);
          } else {
            const t = fakeTerminal();
            const running = pay(argv, { env: LIVE, respond: answerAny, io: t.io });
            // The prompt is wrapped at the terminal's width, inside a word too: compared without the breaks.
            const q = (await answerWhenAsked(t, 'y', running)).replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\s+/g, '');
            expect(q).toContain(shownUrl.replace(/\s+/g, ''));
            const run = await running;
            expect(run.code, run.stderr).toBe(0);
            expect(run.requests).toHaveLength(1);
            const sent = run.requests[0]!;
            expect(`${sent.method} /v1/${sent.path}?${sent.query.toString()}`).toBe(shownUrl);
          }
          tally.passed++;
        },
      ),
      { numRuns: count(16, 80), seed: 2414 },
    );
  });
});

describe('an FX trade: the quote is read on a terminal and its amounts and currencies asked about', () => {
  const quoteOf = (id: string, q: { from: string; to: string; sell: string; buy: string }) => ({
    object: 'fx_quote',
    id,
    source_currency: q.from,
    target_currency: q.to,
    source_amount: q.sell,
    target_amount: q.buy,
    rate: '0.5',
    fee: '0.00',
    status: 'open',
  });
  const quoteArb = fc
    .tuple(currencies, currencies)
    .filter(([a, b]) => a !== b)
    .chain(([from, to]) => fc.record({ from: fc.constant(from), to: fc.constant(to), sell: amountIn(from), buy: amountIn(to) }));
  const idOf = (prefix: string) => fc.stringMatching(/^[0-9a-z]{24}$/).map((s) => `${prefix}${s}`);

  it('pay fx trade <quote>, pay api POST fx/trades, --from-file: on a terminal the quote`s amounts; off one, the amounts are the quote`s and nothing is read', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(idOf('fxq_'), quoteArb), { minLength: 1, maxLength: 3 }),
        fc.constantFrom('verb', 'api', 'file'),
        fc.boolean(),
        async (quotes, how, onTerminal) => {
          tally.tried++;
          const byId = new Map(quotes.map(([id, q]) => [id, quoteOf(id, q)]));
          const respond = (req: Recorded) => {
            const m = /^fx\/quotes\/(fxq_[0-9a-z]+)$/.exec(req.path);
            if (req.method === 'GET' && m) return byId.has(m[1]!) ? { status: 200, body: byId.get(m[1]!) } : { status: 404, body: {} };
            return answerAny(req);
          };
          const [first] = quotes[0]!;
          const file = join(dir, 'trades.ndjson');
          writeFileSync(
            file,
            quotes
              .map(([id]) =>
                JSON.stringify({
                  quote_id: id,
                  source_account_id: 'acc_0123456789abcdefghijklmn',
                  target_account_id: 'acc_abcdefghijklmn0123456789',
                }),
              )
              .join('\n'),
          );
          const argv =
            how === 'verb'
              ? ['fx', 'trade', first, '--from-account', 'acc_0123456789abcdefghijklmn', '--to-account', 'acc_abcdefghijklmn0123456789']
              : how === 'api'
                ? ['api', 'POST', 'fx/trades', '-F', `quote_id=${first}`, '-F', 'source_account_id=acc_a', '-F', 'target_account_id=acc_b']
                : ['fx', 'trade', first, '--from-file', file, '--concurrency', '1'];
          // With --from-file the positional wins over each row's quote_id, as the flags do: one quote read.
          const named = quotes.slice(0, 1);
          if (!onTerminal) {
            const r = await pay(argv, { env: LIVE, respond, stdin: '' });
            expect(r.code).toBe(2);
            expect(r.requests).toEqual([]);
            if (how !== 'file') expect(r.stderr).toContain(`the amounts are quote ${first}'s`);
          } else {
            const t = fakeTerminal();
            const running = pay(argv, { env: LIVE, respond, io: t.io });
            const q = (await answerWhenAsked(t, 'y', running)).replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\s+/g, '');
            for (const [id, x] of named) expect(q).toContain(`quote${id}:sells${x.sell}${x.from}for${x.buy}${x.to}`);
            const run = await running;
            expect(run.code, run.stderr).toBe(0);
            const posts = run.requests.filter((x) => x.method === 'POST');
            expect(posts).toHaveLength(how === 'file' ? quotes.length : 1);
            expect(posts.map((x) => (x.body as Record<string, unknown>).quote_id)).toEqual(posts.map(() => first));
            expect(run.requests.filter((x) => x.method === 'GET').map((x) => x.path)).toEqual(named.map(([id]) => `fx/quotes/${id}`));
          }
          tally.passed++;
        },
      ),
      { numRuns: count(16, 80), seed: 2415 },
    );
  });
});
