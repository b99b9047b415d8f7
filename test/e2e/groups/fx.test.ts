// pay fx against the emulator: rates, quote (a rate locked for 60 s) → trade between two accounts,
// a used quote and an expired one (clock advanced 61 s) → exit 5, trades list and get.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  account,
  apiError,
  enabledCustomer,
  expectContractHeaders,
  fund,
  ID,
  json,
  jsonError,
  keyValues,
  ndjson,
  type Obj,
  ok,
  startWorld,
  table,
  TABLE_TIME,
  tsv,
  usageError,
  type World,
} from './helpers.js';

let w: World;
let usd: string;
let eur: string;
let gbp: string;
let quote: Obj;
let trade: Obj;

const cents = (s: string): bigint => {
  const [i, f = ''] = s.split('.');
  return BigInt(i!) * 100n + BigInt((f + '00').slice(0, 2));
};

beforeAll(async () => {
  w = await startWorld();
  const cus = await enabledCustomer(w); // the business rules: KYC approved, features active
  [usd, eur, gbp] = await Promise.all([account(w, cus), account(w, cus, 'EUR'), account(w, cus, 'GBP')]);
  await fund(w, usd, '500.00');
});
afterAll(() => w?.stop());

describe('pay fx', () => {
  it('rates: json, tsv (one record, a column per rate), table (key/value)', async () => {
    const m = w.mark();
    const [j, t, tb] = await Promise.all([
      w.pay(['fx', 'rates', '--json']),
      w.pay(['fx', 'rates', '--base', 'eur', '--symbols', 'USD,gbp']),
      w.pay(['fx', 'rates', '--symbols', 'EUR', '-o', 'table']),
    ]);
    const r = json(j);
    expect(r).toMatchObject({ object: 'fx_rates', base: 'USD', as_of: expect.any(String) });
    for (const v of Object.values(r.rates as Record<string, unknown>)) expect(v).toMatch(/^\d+(\.\d+)?$/);
    expect(Object.keys(r.rates)).toEqual(expect.arrayContaining(['EUR', 'GBP', 'NGN', 'JPY']));
    const s = tsv(t);
    expect(s.header).toEqual(['object', 'base', 'rates.USD', 'rates.GBP', 'as_of']);
    expect(s.rows[0]).toMatchObject({ object: 'fx_rates', base: 'EUR' });
    const kv = keyValues(tb);
    expect([kv.get('base'), kv.get('rates.EUR')]).toEqual(['USD', r.rates.EUR]);
    expect(w.since(m).map((q) => q.query)).toEqual(expect.arrayContaining([{}, { base: 'EUR', symbols: 'USD,GBP' }, { symbols: 'EUR' }]));
  });

  it('quote --json: open for 60 s; the POST names both currencies and the amount to sell', async () => {
    const m = w.mark();
    quote = json(await w.pay(['fx', 'quote', '--from', 'usd', '--to', 'EUR', '--amount', '100', '--json']));
    expect(quote).toMatchObject({
      object: 'fx_quote',
      source_currency: 'USD',
      target_currency: 'EUR',
      source_amount: '100.00',
      status: 'open',
    });
    expect(quote.id).toMatch(ID('fxq_'));
    expect(quote.target_amount).toMatch(/^\d+\.\d{2}$/);
    expect(Date.parse(quote.expires_at) - Date.parse(quote.created_at)).toBe(60_000);
    const reqs = w.since(m);
    expect(reqs.map((q) => [q.method, q.path, q.body])).toEqual([
      ['POST', '/v1/fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '100.00' }],
    ]);
    expectContractHeaders(reqs, w.emu);
  });

  it('get-quote: a table with both amounts in their currencies', async () => {
    const kv = keyValues(await w.pay(['fx', 'get-quote', quote.id, '-o', 'table']));
    expect([kv.get('source_amount'), kv.get('target_amount'), kv.get('status'), kv.get('expires_at')]).toEqual([
      '100.00 USD',
      `${quote.target_amount} EUR`,
      'open',
      expect.stringMatching(TABLE_TIME),
    ]);
  });

  it('trade (tsv): completed; the money moves exactly the quoted amounts; the quote is used', async () => {
    const m = w.mark();
    const s = tsv(await w.pay(['fx', 'trade', quote.id, '--from-account', usd, '--to-account', eur]));
    trade = s.rows[0]!;
    expect(trade).toMatchObject({
      object: 'fx_trade',
      quote_id: quote.id,
      source_account_id: usd,
      target_account_id: eur,
      rate: quote.rate,
      source_amount: '100.00',
      target_amount: quote.target_amount,
      status: 'completed',
    });
    expect(trade.id).toMatch(ID('fxt_'));
    expect(w.since(m).map((q) => [q.method, q.path, q.body])).toEqual([
      ['POST', '/v1/fx/trades', { quote_id: quote.id, source_account_id: usd, target_account_id: eur }],
    ]);
    const [u, e, q] = await Promise.all([
      w.api('GET', `accounts/${usd}`),
      w.api('GET', `accounts/${eur}`),
      w.pay(['fx', 'get-quote', quote.id, '--fields', 'status', '--no-header']),
    ]);
    expect(u.balance.available).toBe('400.00');
    expect(e.balance.available).toBe(quote.target_amount);
    expect(ok(q)).toBe('used\n');
    // The same quote again: quote_used.
    apiError(await w.pay(['fx', 'trade', quote.id, '--from-account', usd, '--to-account', eur]), 5, 409, 'quote_used', true);
  });

  it('an expired quote (clock +61 s) is exit 5 quote_expired, and shows expired', async () => {
    const q = json(await w.pay(['fx', 'quote', '--from', 'USD', '--to', 'GBP', '--target-amount', '50', '--json']));
    expect(q).toMatchObject({ target_amount: '50.00', status: 'open' });
    await w.settle(61);
    expect(jsonError(await w.pay(['fx', 'trade', q.id, '--from-account', usd, '--to-account', gbp, '--json']), 5)).toMatchObject({
      code: 'quote_expired',
      status: 409,
      method: 'POST',
      path: '/v1/fx/trades',
    });
    expect(ok(await w.pay(['fx', 'get-quote', q.id, '--fields', 'status', '--no-header']))).toBe('expired\n');
    expect((await w.api('GET', `accounts/${gbp}`)).balance.available).toBe('0.00');
  });

  it('a trade into an account of the wrong currency is exit 1 currency_mismatch; more than the balance is insufficient_funds', async () => {
    const [q1, q2] = await Promise.all([
      w.api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '10.00' }),
      w.api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '10000.00' }),
    ]);
    const [mismatch, poor] = await Promise.all([
      w.pay(['fx', 'trade', q1.id, '--from-account', usd, '--to-account', gbp]),
      w.pay(['fx', 'trade', q2.id, '--from-account', usd, '--to-account', eur]),
    ]);
    apiError(mismatch, 1, 422, 'currency_mismatch', true);
    apiError(poor, 1, 422, 'insufficient_funds', true);
  });

  it('trades: tsv, table (amounts with currencies), json, ndjson, --account; get-trade', async () => {
    const [t, tb, byAcc, nd, g] = await Promise.all([
      w.pay(['fx', 'trades']),
      w.pay(['fx', 'trades', '-o', 'table']),
      w.pay(['fx', 'trades', '--account', gbp, '--json']),
      w.pay(['fx', 'trades', '--account', eur, '-o', 'ndjson', '--fields', 'id,target_amount']),
      w.pay(['fx', 'get-trade', trade.id, '--json']),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual([
      'id',
      'quote_id',
      'source_account_id',
      'target_account_id',
      'source_amount',
      'target_amount',
      'rate',
      'status',
      'created_at',
    ]);
    expect(s.rows.map((r) => r.id)).toEqual([trade.id]);
    const tbl = table(tb);
    expect(tbl.header).toEqual(['ID', 'QUOTE', 'FROM', 'TO', 'SOLD', 'BOUGHT', 'RATE', 'STATUS', 'CREATED']);
    expect(tbl.rows).toEqual([
      [
        trade.id,
        quote.id,
        usd,
        eur,
        '100.00 USD',
        `${quote.target_amount} EUR`,
        quote.rate,
        'completed',
        expect.stringMatching(TABLE_TIME),
      ],
    ]);
    expect([byAcc.code, byAcc.stdout]).toEqual([0, '[]\n']);
    expect(ndjson(nd)).toEqual([{ id: trade.id, target_amount: quote.target_amount }]);
    expect(json(g)).toMatchObject({ id: trade.id, quote_id: quote.id, status: 'completed' });
    // sold = bought / rate within the fee: the target never exceeds source × rate.
    expect(cents(quote.target_amount) <= (cents('100.00') * cents(quote.rate)) / 100n).toBe(true);
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('usage errors send nothing: both amounts, neither, an unknown currency; unknown quote is exit 4', async () => {
    const m = w.mark();
    const [both, neither, cur, nf] = await Promise.all([
      w.pay(['fx', 'quote', '--from', 'USD', '--to', 'EUR', '--amount', '1', '--target-amount', '1']),
      w.pay(['fx', 'quote', '--from', 'USD', '--to', 'EUR']),
      w.pay(['fx', 'quote', '--from', 'USD', '--to', 'XYZ', '--amount', '1']),
      w.pay(['fx', 'get-quote', 'fxq_000000000000000000000000']),
    ]);
    usageError(both, /^error: pass only one of --amount, --target-amount \(got --amount, --target-amount\)$/);
    usageError(neither, /^error: pass one of --amount, --target-amount$/);
    usageError(cur, /^error: --to "XYZ" must be one of USD, EUR, GBP, NGN, KES, GHS, ZAR, JPY, CAD, KWD$/);
    apiError(nf, 4, 404, 'not_found');
    expect(w.since(m)).toHaveLength(1);
  });
});
