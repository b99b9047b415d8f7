// The double-entry ledger: collections fund accounts, transfers and FX trades move money, every
// entry balances to zero per currency (system accounts included), transactions show balance_after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exponent, toMinor } from '../../src/emulator/money.js';
import { admin, client, enabledCustomer, fundedAccounts, start, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;

beforeAll(async () => {
  emu = await start({ settleAfterMs: 1000 });
  api = client(emu);
});
afterAll(() => emu.stop());

interface Entry {
  id: string;
  status: string;
  postings: Array<{ account: string; currency: string; amount: string; transaction_id: string | null }>;
}

/** Every entry sums to zero per currency, and all posted postings together sum to zero per currency. */
async function checkLedger(): Promise<{ entries: Entry[]; balances: Record<string, string> }> {
  const l = (await admin(emu, 'GET', 'ledger')).body as { entries: Entry[]; unbalanced: string[]; posted_balances: Record<string, string> };
  expect(l.unbalanced).toEqual([]);
  const total: Record<string, bigint> = {};
  for (const e of l.entries) {
    const sums: Record<string, bigint> = {};
    for (const p of e.postings) {
      const v = toMinor(p.amount, exponent(p.currency));
      sums[p.currency] = (sums[p.currency] ?? 0n) + v;
      if (e.status === 'posted') total[p.currency] = (total[p.currency] ?? 0n) + v;
    }
    for (const s of Object.values(sums)) expect(s).toBe(0n);
  }
  for (const s of Object.values(total)) expect(s).toBe(0n);
  return { entries: l.entries, balances: l.posted_balances };
}

const balance = async (id: string) => (await api('GET', `accounts/${id}`)).body.balance;

describe('ledger', () => {
  it('a collection funds an account: pending first, then available once it settles', async () => {
    const customer = await enabledCustomer(emu, api);
    const acc = (await api('POST', 'accounts', { customer_id: customer, currency: 'USD' })).body.id;
    const col = await api('POST', 'collections', { account_id: acc, amount: '250.00', currency: 'USD', method: 'bank_transfer' });
    expect(col.body.status).toBe('pending');
    expect(await balance(acc)).toEqual({ available: '0.00', pending: '250.00', currency: 'USD' });
    emu.admin.advance(2);
    expect((await api('GET', `collections/${col.body.id}`)).body.status).toBe('succeeded');
    expect(await balance(acc)).toEqual({ available: '250.00', pending: '0.00', currency: 'USD' });
    const txns = (await api('GET', `transactions?account_id=${acc}`)).body.data;
    expect(txns).toHaveLength(1);
    expect(txns[0]).toMatchObject({
      type: 'collection',
      direction: 'credit',
      amount: '250.00',
      status: 'posted',
      balance_after: '250.00',
      source: { object: 'collection', id: col.body.id },
    });
    await checkLedger();
  });

  it('transfers, an external payout and an FX trade all balance to zero per currency', async () => {
    const { customer, accounts } = await fundedAccounts(emu, api, { USD: '1000.00', EUR: '0' });
    const usd2 = (await api('POST', 'accounts', { customer_id: customer, currency: 'USD' })).body.id;
    const ea = await api('POST', 'external-accounts', {
      customer_id: customer,
      account_holder_name: 'Ada Lovelace',
      bank_name: 'Bank',
      account_number: '12345678',
      routing_number: '021000021',
      country: 'US',
      currency: 'USD',
    });
    expect(ea.body).toMatchObject({ account_number_last4: '5678', status: 'active' });
    expect(JSON.stringify(ea.body)).not.toContain('12345678');

    const t1 = await api('POST', 'transfers', { source_account_id: accounts.USD, destination_id: usd2, amount: '125.50', currency: 'USD' });
    expect(t1.status).toBe(201);
    expect(await balance(accounts.USD!)).toEqual({ available: '874.50', pending: '-125.50', currency: 'USD' });
    expect(await balance(usd2)).toEqual({ available: '0.00', pending: '125.50', currency: 'USD' });
    const t2 = await api('POST', 'transfers', {
      source_account_id: accounts.USD,
      destination_id: ea.body.id,
      amount: '100.00',
      currency: 'USD',
      reference: 'INV-1',
    });
    expect(t2.body.destination_type).toBe('external_account');
    const q = await api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '200.00' });
    expect(q.body).toMatchObject({ source_amount: '200.00', fee: '1.00', rate: '0.92', target_amount: '183.08', status: 'open' });
    const trade = await api('POST', 'fx/trades', { quote_id: q.body.id, source_account_id: accounts.USD, target_account_id: accounts.EUR });
    expect(trade.status).toBe(201);
    expect(trade.body).toMatchObject({ status: 'completed', source_amount: '200.00', target_amount: '183.08' });
    emu.admin.advance(2);

    expect((await api('GET', `transfers/${t1.body.id}`)).body.status).toBe('completed');
    expect(await balance(accounts.USD!)).toEqual({ available: '574.50', pending: '0.00', currency: 'USD' });
    expect(await balance(usd2)).toEqual({ available: '125.50', pending: '0.00', currency: 'USD' });
    expect(await balance(accounts.EUR!)).toEqual({ available: '183.08', pending: '0.00', currency: 'EUR' });

    const { balances } = await checkLedger();
    expect(balances['external:USD|USD']).toBe('-1150.00'); // 250 + 1000 collected in, 100 paid out
    expect(balances['clearing:USD|USD']).toBe('0.00');
    expect(balances['fx:USD|USD']).toBe('200.00');
    expect(balances['fx:EUR|EUR']).toBe('-183.08');

    // Newest first, with the running balance after each posting.
    const txns = (await api('GET', `transactions?account_id=${accounts.USD}`)).body.data;
    expect(
      txns.map((t: { type: string; direction: string; amount: string; balance_after: string }) => [
        t.type,
        t.direction,
        t.amount,
        t.balance_after,
      ]),
    ).toEqual([
      ['fx_trade', 'debit', '200.00', '574.50'],
      ['transfer', 'debit', '100.00', '774.50'],
      ['transfer', 'debit', '125.50', '874.50'],
      ['collection', 'credit', '1000.00', '1000.00'],
    ]);
    const types = (await api('GET', `transactions?account_id=${accounts.USD}&type=transfer&status=posted`)).body.data;
    expect(types).toHaveLength(2);
    const single = await api('GET', `transactions/${txns[0].id}`);
    expect(single.body).toEqual(txns[0]);
  });

  it('insufficient funds is 422 and moves nothing; currency mismatch is 422', async () => {
    const { customer, accounts } = await fundedAccounts(emu, api, { USD: '10.00' });
    const other = (await api('POST', 'accounts', { customer_id: customer, currency: 'USD' })).body.id;
    const eur = (await api('POST', 'accounts', { customer_id: customer, currency: 'EUR' })).body.id;
    const r = await api('POST', 'transfers', { source_account_id: accounts.USD, destination_id: other, amount: '10.01', currency: 'USD' });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('insufficient_funds');
    expect(await balance(accounts.USD!)).toEqual({ available: '10.00', pending: '0.00', currency: 'USD' });
    const m = await api('POST', 'transfers', { source_account_id: accounts.USD, destination_id: eur, amount: '1.00', currency: 'USD' });
    expect(m.body.code).toBe('currency_mismatch');
    const q = await api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', target_amount: '100.00' });
    expect(q.body.target_amount).toBe('100.00');
    const t = await api('POST', 'fx/trades', { quote_id: q.body.id, source_account_id: accounts.USD, target_account_id: eur });
    expect(t.body.code).toBe('insufficient_funds');
    // Pending money is not spendable: a pending incoming transfer does not fund another one.
    await api('POST', 'transfers', { source_account_id: accounts.USD, destination_id: other, amount: '10.00', currency: 'USD' });
    expect(
      (await api('POST', 'transfers', { source_account_id: other, destination_id: accounts.USD, amount: '1.00', currency: 'USD' })).body
        .code,
    ).toBe('insufficient_funds');
    await checkLedger();
  });

  it('amounts are exact decimal strings checked against the currency exponent', async () => {
    const { accounts } = await fundedAccounts(emu, api, { JPY: '1000', KWD: '1.005' });
    expect(await balance(accounts.KWD!)).toEqual({ available: '1.005', pending: '0.000', currency: 'KWD' });
    for (const [amount, currency] of [
      ['1.5', 'JPY'],
      ['0.0001', 'KWD'],
      ['10', 'USD'],
      [10, 'USD'],
      ['-1', 'USD'],
      ['0.00', 'USD'],
      ['1e3', 'USD'],
    ] as const) {
      const r = await api('POST', 'collections', { account_id: accounts.JPY, amount, currency, method: 'card' });
      expect(r.status, `${amount} ${currency}`).toBe(422);
    }
    // 0.1 + 0.2 is 0.3 here.
    const { accounts: a } = await fundedAccounts(emu, api, { USD: '0.10' });
    await api('POST', 'collections', { account_id: a.USD, amount: '0.20', currency: 'USD', method: 'card' });
    emu.admin.advance(2);
    expect((await balance(a.USD!)).available).toBe('0.30');
  });

  it('closing an account needs it empty (409 account_not_empty), then 409 invalid_state', async () => {
    const { customer, accounts } = await fundedAccounts(emu, api, { USD: '5.00' });
    const r = await api('POST', `accounts/${accounts.USD}/close`);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('account_not_empty');
    const empty = (await api('POST', 'accounts', { customer_id: customer, currency: 'USD' })).body.id;
    const closed = await api('POST', `accounts/${empty}/close`);
    expect(closed.body.status).toBe('closed');
    expect((await api('POST', `accounts/${empty}/close`)).body.code).toBe('invalid_state');
    const into = await api('POST', 'transfers', {
      source_account_id: accounts.USD,
      destination_id: empty,
      amount: '1.00',
      currency: 'USD',
    });
    expect(into.status).toBe(409);
  });
});
