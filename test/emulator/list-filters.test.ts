// Every list's filters (src/emulator/resources/routes.ts: a store index answers one, the others
// are tested per record) against a model: for generated combinations of filters (values that are
// there, in another case, or of no object) and page sizes, paging through the filtered list gives
// exactly the objects of the whole list that the filters' meaning keeps, newest first; and a
// cursor works only with the filters it was issued for.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, client, customerBody, fundedAccounts, start, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;
let t = Date.parse('2026-03-01T10:00:00.000Z');

type Obj = Record<string, any>;

async function post(path: string, body?: unknown): Promise<Obj> {
  const r = await api('POST', path, body);
  if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const all = (path: string, query: Record<string, string>, limit: number): Promise<Obj[]> => allPages(api, path, query, limit);

beforeAll(async () => {
  emu = await start({ now: () => t, settleAfterMs: 1000 });
  api = client(emu, { tenant: emu.tenantId });
  const a = await fundedAccounts(emu, api, { USD: '1000.00', EUR: '500.00', GBP: '0' });
  const b = await fundedAccounts(emu, api, { USD: '300.00', EUR: '0' });
  await post('customers', { ...customerBody(7), email: 'Grace@Example.com', type: 'business' });
  await post(`accounts/${a.accounts.GBP}/close`);
  const ext = await post('external-accounts', {
    customer_id: a.customer,
    account_holder_name: 'Ada Lovelace',
    bank_name: 'Bank',
    account_number: '12345678',
    country: 'GB',
    currency: 'USD',
  });
  await post('external-accounts', {
    customer_id: b.customer,
    account_holder_name: 'B',
    bank_name: 'Bank',
    account_number: '87654321',
    country: 'GB',
    currency: 'USD',
  });
  const send = (from: string, to: string, amount: string) =>
    post('transfers', { source_account_id: from, destination_id: to, amount, currency: 'USD' });
  await send(a.accounts.USD!, b.accounts.USD!, '10.00');
  await send(b.accounts.USD!, a.accounts.USD!, '1.13');
  await send(a.accounts.USD!, ext.id, '2.00');
  const cancelled = await send(a.accounts.USD!, b.accounts.USD!, '3.00');
  await post(`transfers/${cancelled.id}/cancel`);
  await post('collections', { account_id: b.accounts.EUR, amount: '1.13', currency: 'EUR', method: 'bank_transfer' });
  await post('collections', {
    account_id: a.accounts.USD,
    amount: '5.00',
    currency: 'USD',
    method: 'mobile_money',
    mobile_money: { phone: '+254700000001', provider: 'mpesa' },
  });
  const physical = {
    type: 'physical',
    shipping_address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA' },
  };
  await post('cards', { customer_id: a.customer, account_id: a.accounts.USD, type: 'virtual' });
  const frozen = await post('cards', { customer_id: a.customer, account_id: a.accounts.EUR, type: 'virtual' });
  await post(`cards/${frozen.id}/freeze`);
  await post('cards', { customer_id: b.customer, account_id: b.accounts.USD, ...physical });
  const w1 = await post('wallets', { customer_id: a.customer, asset: 'USDC', network: 'polygon' });
  await post('wallets', { customer_id: a.customer, asset: 'BTC', network: 'bitcoin' });
  const w3 = await post('wallets', { customer_id: b.customer, asset: 'USDC', network: 'ethereum' });
  await post('payment-links', { wallet_id: w1.id, amount: '5.00', asset: 'USDC' });
  const link = await post('payment-links', { wallet_id: w3.id, amount: '7.00', asset: 'USDC' });
  await post(`payment-links/${link.id}/disable`);
  const quote = await post('fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '20.00' });
  await post('fx/trades', { quote_id: quote.id, source_account_id: a.accounts.USD, target_account_id: b.accounts.EUR });
  const back = await post('fx/quotes', { source_currency: 'USD', target_currency: 'EUR', target_amount: '5.00' });
  await post('fx/trades', { quote_id: back.id, source_account_id: b.accounts.USD, target_account_id: a.accounts.EUR });
  // Settle some of it (transfers, collections, the physical card), then make more that stays pending.
  t += 2000;
  await send(b.accounts.USD!, a.accounts.USD!, '4.00');
  await post('collections', { account_id: a.accounts.EUR, amount: '6.00', currency: 'EUR', method: 'card' });
});
afterAll(() => emu.stop());

const eq = (field: string) => (o: Obj, v: string) => o[field] === v;
const NO_ACC = `acc_${'0'.repeat(24)}`;

/** Each list: its filters, each with what it means for an object and where its candidate values come from. */
const LISTS: Record<string, Record<string, { keeps: (o: Obj, v: string) => boolean; values: (all: Obj[]) => string[] }>> = {
  transfers: {
    account_id: {
      keeps: (o, v) => o.source_account_id === v || (o.destination_type === 'account' && o.destination_id === v),
      values: (xs) => [...xs.map((x) => x.source_account_id), NO_ACC],
    },
    status: { keeps: eq('status'), values: () => ['pending', 'completed', 'failed', 'cancelled'] },
  },
  accounts: {
    customer_id: { keeps: eq('customer_id'), values: (xs) => xs.map((x) => x.customer_id) },
    currency: { keeps: eq('currency'), values: () => ['USD', 'EUR', 'GBP', 'JPY'] },
    status: { keeps: eq('status'), values: () => ['active', 'closed'] },
  },
  'external-accounts': { customer_id: { keeps: eq('customer_id'), values: (xs) => xs.map((x) => x.customer_id) } },
  cards: {
    customer_id: { keeps: eq('customer_id'), values: (xs) => xs.map((x) => x.customer_id) },
    account_id: { keeps: eq('account_id'), values: (xs) => [...xs.map((x) => x.account_id), NO_ACC] },
    status: { keeps: eq('status'), values: () => ['inactive', 'active', 'frozen', 'terminated'] },
    type: { keeps: eq('type'), values: () => ['virtual', 'physical'] },
  },
  collections: {
    account_id: { keeps: eq('account_id'), values: (xs) => xs.map((x) => x.account_id) },
    status: { keeps: eq('status'), values: () => ['pending', 'succeeded', 'failed'] },
    method: { keeps: eq('method'), values: () => ['card', 'bank_transfer', 'mobile_money'] },
  },
  customers: {
    email: {
      keeps: (o, v) => o.email.toLowerCase() === v.toLowerCase(),
      values: (xs) => [...xs.map((x) => x.email), ...xs.map((x) => x.email.toUpperCase()), 'nobody@example.com'],
    },
    type: { keeps: eq('type'), values: () => ['individual', 'business', 'trust'] },
  },
  wallets: {
    customer_id: { keeps: eq('customer_id'), values: (xs) => xs.map((x) => x.customer_id) },
    asset: { keeps: eq('asset'), values: () => ['BTC', 'ETH', 'USDC', 'USDT'] },
  },
  'payment-links': {
    wallet_id: { keeps: eq('wallet_id'), values: (xs) => xs.map((x) => x.wallet_id) },
    status: { keeps: eq('status'), values: () => ['active', 'disabled', 'expired', 'paid'] },
  },
  'fx/trades': {
    account_id: {
      keeps: (o, v) => o.source_account_id === v || o.target_account_id === v,
      values: (xs) => [...xs.map((x) => x.source_account_id), ...xs.map((x) => x.target_account_id), NO_ACC],
    },
  },
  transactions: {
    account_id: { keeps: eq('account_id'), values: (xs) => [...xs.map((x) => x.account_id).filter(Boolean), NO_ACC] },
    wallet_id: { keeps: eq('wallet_id'), values: (xs) => [...xs.map((x) => x.wallet_id).filter(Boolean), `wal_${'0'.repeat(24)}`] },
    type: { keeps: eq('type'), values: () => ['transfer', 'collection', 'fx_trade', 'reversal'] },
    status: { keeps: eq('status'), values: () => ['pending', 'posted', 'voided'] },
  },
  'webhooks/events': {
    type: { keeps: eq('type'), values: (xs) => xs.map((x) => x.type) },
    status: { keeps: (o, v) => o.delivery.status === v, values: (xs) => xs.map((x) => x.delivery.status) },
    object_id: {
      keeps: (o, v) => (o.data.object.id ?? o.data.object.customer_id) === v,
      values: (xs) => xs.map((x) => x.data.object.id ?? x.data.object.customer_id),
    },
  },
};

describe('list filters', () => {
  for (const [path, filters] of Object.entries(LISTS)) {
    it(`${path}: any combination of its filters keeps exactly what they mean, newest first, at any page size; a cursor only with its filters`, async () => {
      const whole = await all(path, {}, 100);
      expect(whole.length).toBeGreaterThan(1);
      const names = Object.keys(filters);
      const pick = Object.fromEntries(
        names.map((n) => [n, fc.option(fc.constantFrom(...new Set(filters[n]!.values(whole))), { nil: undefined })]),
      );
      await fc.assert(
        fc.asyncProperty(fc.record(pick), fc.integer({ min: 1, max: 4 }), async (chosen, limit) => {
          const query = Object.fromEntries(Object.entries(chosen).filter(([, v]) => v !== undefined)) as Record<string, string>;
          const expected = whole.filter((o) => Object.entries(query).every(([n, v]) => filters[n]!.keeps(o, v))).map((o) => o.id);
          expect((await all(path, query, limit)).map((o) => o.id)).toEqual(expected);
          // A cursor of these filters, sent with one of them changed or left out, is refused.
          const first = await api('GET', `${path}?${new URLSearchParams({ ...query, limit: '1' }).toString()}`);
          const given = Object.keys(query);
          if (first.body.has_more && given.length > 0) {
            const { [given[0]!]: _dropped, ...fewer } = query;
            const again = await api(
              'GET',
              `${path}?${new URLSearchParams({ ...fewer, limit: '1', cursor: first.body.next_cursor }).toString()}`,
            );
            expect(again.status).toBe(400);
            expect(again.body.code).toBe('invalid_parameter');
          }
        }),
        { seed: 20261129, numRuns: 40 },
      );
    });
  }
});
