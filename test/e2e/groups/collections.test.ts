// pay collections against the emulator: card, bank transfer and mobile money collections, pending
// → succeeded (the account is credited) or failed (the sandbox .13 amount), list filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  account,
  apiError,
  enabledCustomer,
  expectContractHeaders,
  ID,
  json,
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
let cus: string;
let usd: string;
let kes: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld();
  cus = await enabledCustomer(w); // the business rules: KYC approved, features active
  [usd, kes] = await Promise.all([account(w, cus), account(w, cus, 'KES')]);
});
afterAll(() => w?.stop());

describe('pay collections', () => {
  it('create --method card (json): pending; the POST has the fields and an Idempotency-Key', async () => {
    const m = w.mark();
    const c = json(
      await w.pay([
        'collections',
        'create',
        '--account',
        usd,
        '--amount',
        '25',
        '--currency',
        'USD',
        '--method',
        'card',
        '--customer',
        cus,
        '--description',
        'Order 1',
        '--json',
      ]),
    );
    expect(c).toMatchObject({
      object: 'collection',
      account_id: usd,
      amount: '25.00',
      currency: 'USD',
      method: 'card',
      customer_id: cus,
      description: 'Order 1',
      status: 'pending',
      failure_reason: null,
      completed_at: null,
    });
    expect(c.id).toMatch(ID('col_'));
    ids.card = c.id;
    const reqs = w.since(m);
    expect(reqs.map((r) => [r.method, r.path, r.body])).toEqual([
      [
        'POST',
        '/v1/collections',
        { account_id: usd, amount: '25.00', currency: 'USD', method: 'card', customer_id: cus, description: 'Order 1' },
      ],
    ]);
    expectContractHeaders(reqs, w.emu);
  });

  it('create --method mobile_money (tsv) with phone and provider; bank_transfer; a .13 amount', async () => {
    const [mm, bank, bad] = await Promise.all([
      w.pay([
        'collections',
        'create',
        '--account',
        kes,
        '--amount',
        '1500',
        '--currency',
        'KES',
        '--method',
        'mobile_money',
        '--mobile-phone',
        '+254712345678',
        '--mobile-provider',
        'mpesa',
      ]),
      w.pay(['collections', 'create', '--account', usd, '--amount', '100.00', '--currency', 'USD', '--method', 'bank_transfer', '--json']),
      w.pay(['collections', 'create', '--account', usd, '--amount', '7.13', '--currency', 'USD', '--method', 'card', '--json']),
    ]);
    const s = tsv(mm);
    expect(s.rows[0]).toMatchObject({
      method: 'mobile_money',
      amount: '1500.00',
      currency: 'KES',
      'mobile_money.phone': '+254712345678',
      'mobile_money.provider': 'mpesa',
      status: 'pending',
    });
    ids.mm = s.rows[0]!.id!;
    ids.bank = json(bank).id;
    ids.bad = json(bad).id;
  });

  it('settled: succeeded ones credit the account, the .13 one fails (get json, table)', async () => {
    expect((await w.api('GET', `accounts/${usd}`)).balance).toMatchObject({ available: '0.00', pending: '132.13' });
    await w.settle();
    const [card, badJ, badT] = await Promise.all([
      w.pay(['collections', 'get', ids.card!, '--json']),
      w.pay(['collections', 'get', ids.bad!, '--json']),
      w.pay(['collections', 'get', ids.bad!, '-o', 'table']),
    ]);
    expect(json(card)).toMatchObject({ status: 'succeeded', completed_at: expect.any(String), failure_reason: null });
    expect(json(badJ)).toMatchObject({ status: 'failed', failure_reason: expect.any(String) });
    const kv = keyValues(badT);
    expect([kv.get('amount'), kv.get('status'), kv.get('created_at')]).toEqual(['7.13 USD', 'failed', expect.stringMatching(TABLE_TIME)]);
    // The code, then what it means (src/shared/failure-reasons.ts); the JSON keeps the code alone.
    expect(json(badJ).failure_reason).toBe('payment_declined');
    expect(kv.get('failure_reason')).toBe("payment_declined (payer's bank declined it)");
    const [u, k] = await Promise.all([w.api('GET', `accounts/${usd}`), w.api('GET', `accounts/${kes}`)]);
    expect(u.balance).toEqual({ available: '125.00', pending: '0.00', currency: 'USD' });
    expect(k.balance).toEqual({ available: '1500.00', pending: '0.00', currency: 'KES' });
  });

  it('list: tsv, table (money with currency), ndjson; --status, --method, --account filters', async () => {
    const m = w.mark();
    const [t, tb, failed, mobile, byAcc] = await Promise.all([
      w.pay(['collections', 'list']),
      w.pay(['collections', 'list', '-o', 'table']),
      w.pay(['collections', 'list', '--status', 'failed', '--json']),
      w.pay(['collections', 'list', '--method', 'mobile_money', '-o', 'ndjson', '--fields', 'id,amount,currency']),
      w.pay(['collections', 'list', '--account', usd, '--status', 'succeeded', '--no-header', '--fields', 'id,amount']),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual(['id', 'account_id', 'customer_id', 'method', 'amount', 'status', 'failure_reason', 'created_at']);
    expect(new Set(s.rows.map((r) => r.id))).toEqual(new Set(Object.values(ids)));
    expect(s.rows.find((r) => r.id === ids.card)).toMatchObject({
      account_id: usd,
      customer_id: cus,
      method: 'card',
      amount: '25.00',
      status: 'succeeded',
      failure_reason: '',
    });
    const tbl = table(tb);
    expect(tbl.header).toEqual(['ID', 'ACCOUNT', 'CUSTOMER', 'METHOD', 'AMOUNT', 'STATUS', 'FAILURE', 'CREATED']);
    expect(tbl.rows.find((r) => r[0] === ids.mm)).toEqual([
      ids.mm,
      kes,
      '-',
      'mobile_money',
      '1500.00 KES',
      'succeeded',
      '-',
      expect.stringMatching(TABLE_TIME),
    ]);
    expect(tbl.rows.find((r) => r[0] === ids.card)?.[4]).toBe('25.00 USD');
    expect((json(failed) as unknown as Obj[]).map((c) => c.id)).toEqual([ids.bad]);
    expect(ndjson(mobile)).toEqual([{ id: ids.mm, amount: '1500.00', currency: 'KES' }]);
    expect(ok(byAcc).split('\n').filter(Boolean).sort()).toEqual([`${ids.bank}\t100.00`, `${ids.card}\t25.00`].sort());
    expect(w.since(m, 'GET', '/v1/collections').map((r) => r.query)).toEqual(
      expect.arrayContaining([
        { limit: '20', status: 'failed' },
        { limit: '20', method: 'mobile_money' },
        { limit: '20', account_id: usd, status: 'succeeded' },
      ]),
    );
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('usage errors send nothing: mobile money without phone, too many decimals, a bad method; a currency the account does not hold is an API error', async () => {
    const m = w.mark();
    const [noPhone, decimals, badMethod, mismatch, nf] = await Promise.all([
      w.pay(['collections', 'create', '--account', kes, '--amount', '10', '--currency', 'KES', '--method', 'mobile_money']),
      w.pay(['collections', 'create', '--account', usd, '--amount', '1.234', '--currency', 'USD', '--method', 'card']),
      w.pay(['collections', 'create', '--account', usd, '--amount', '1', '--currency', 'USD', '--method', 'cash']),
      w.pay(['collections', 'create', '--account', usd, '--amount', '1', '--currency', 'EUR', '--method', 'card']),
      w.pay(['collections', 'get', 'col_000000000000000000000000']),
    ]);
    usageError(noPhone, /^error: --method mobile_money needs --mobile-phone, --mobile-provider$/);
    usageError(decimals, /^error: --amount: USD allows at most 2 decimals \(got "1.234"\)$/);
    usageError(badMethod, /^error: option '--method <method>' argument 'cash' is invalid/);
    apiError(mismatch, 1, 422, 'currency_mismatch', true);
    apiError(nf, 4, 404, 'not_found');
    expect(
      w
        .since(m)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(['GET /v1/collections/col_000000000000000000000000', 'POST /v1/collections']);
  }, 120_000); // several pay processes: a hang guard, not a timing window
});
