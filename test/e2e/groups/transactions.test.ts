// pay transactions against the emulator: the postings behind collections, transfers (posted,
// voided, pending), FX trades and a paid payment link; every filter (--account, --wallet, --type,
// --status, --from/--to) returns exactly the right rows; each balance equals its transactions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  account,
  enabledCustomer,
  ID,
  json,
  keyValues,
  ndjson,
  type Obj,
  ok,
  startWorld,
  table,
  TABLE_TIME,
  TRANSACTION_HEADERS,
  tsv,
  usageError,
  type World,
} from './helpers.js';

let w: World;
let a: string; // USD: funded, sends transfers and an FX trade
let b: string; // USD: receives transfers
let e: string; // EUR: receives the FX trade
let wal: string; // USDC: a paid payment link
let t1: string; // emulator time between phase 1 and phase 2 (RFC 3339)
let startDay: string; // YYYY-MM-DD of phase 1
const src: Record<string, string> = {};

const emulatorNow = async (): Promise<string> => ((await (await fetch(`${w.emu.url}/__emulator/clock`)).json()) as { now: string }).now;
const exp: Record<string, number> = { USD: 2, EUR: 2, USDC: 6 };
const minor = (s: string, cur: string): bigint => {
  const [i, f = ''] = s.split('.');
  const n = exp[cur]!;
  return BigInt(i!) * 10n ** BigInt(n) + BigInt((f + '0'.repeat(n)).slice(0, n) || '0');
};
const signed = (t: Obj): bigint => (t.direction === 'credit' ? 1n : -1n) * minor(t.amount, t.currency);

beforeAll(async () => {
  w = await startWorld();
  const cus = await enabledCustomer(w); // the business rules: KYC approved, features active
  [a, b, e] = await Promise.all([account(w, cus), account(w, cus), account(w, cus, 'EUR')]);
  wal = (await w.api('POST', 'wallets', { customer_id: cus, asset: 'USDC', network: 'polygon' })).id;
  startDay = (await emulatorNow()).slice(0, 10);
  // Phase 1: funding, two transfers that complete, one that fails (.13: voided).
  src.collection = (await w.api('POST', 'collections', { account_id: a, amount: '500.00', currency: 'USD', method: 'card' })).id;
  await w.settle();
  src.t10 = (await w.api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '10.00', currency: 'USD' })).id;
  src.t20 = (await w.api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '20.00', currency: 'USD' })).id;
  src.t113 = (await w.api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '1.13', currency: 'USD' })).id;
  await w.settle();
  await w.settle(3600);
  t1 = await emulatorNow();
  await w.settle(1);
  // Phase 2, an hour later: a completed transfer, an FX trade, a paid link, and a transfer left pending.
  src.t30 = (await w.api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '30.00', currency: 'USD' })).id;
  await w.settle();
  const q = await w.api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '100.00' });
  src.fx = (await w.api('POST', 'fx/trades', { quote_id: q.id, source_account_id: a, target_account_id: e })).id;
  src.fxTarget = q.target_amount;
  const link = await w.api('POST', 'payment-links', { wallet_id: wal, amount: '12.5', asset: 'USDC' });
  expect((await fetch(`${w.emu.url}/__emulator/payment-links/${link.id}/pay`, { method: 'POST' })).status).toBe(200);
  src.link = link.id;
  src.t5 = (await w.api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '5.00', currency: 'USD' })).id;
});
afterAll(() => w?.stop());

const sources = (rows: Obj[]): string[] => rows.map((t) => t.source.id as string);

describe('pay transactions', () => {
  let all: Obj[];

  it('list --account --all (json, three pages of 3): every posting of the account, newest first', async () => {
    const m = w.mark();
    all = json(await w.pay(['transactions', 'list', '--account', a, '--all', '--limit', '3', '--json'])) as unknown as Obj[];
    expect(sources(all)).toEqual([src.t5, src.fx, src.t30, src.t113, src.t20, src.t10, src.collection]);
    for (const t of all) {
      expect(t).toMatchObject({ object: 'transaction', account_id: a, wallet_id: null, currency: 'USD' });
      expect(t.id).toMatch(ID('txn_'));
      expect(t.entry_id).toEqual(expect.any(String));
    }
    const by = Object.fromEntries(all.map((t) => [t.source.id, t]));
    expect(by[src.collection!]).toMatchObject({
      type: 'collection',
      direction: 'credit',
      amount: '500.00',
      status: 'posted',
      balance_after: '500.00',
    });
    expect(by[src.t10!]).toMatchObject({ type: 'transfer', direction: 'debit', amount: '10.00', status: 'posted' });
    expect(by[src.t113!]).toMatchObject({ type: 'transfer', direction: 'debit', amount: '1.13', status: 'voided' });
    expect(by[src.fx!]).toMatchObject({ type: 'fx_trade', direction: 'debit', amount: '100.00', status: 'posted' });
    expect(by[src.t5!]).toMatchObject({ type: 'transfer', direction: 'debit', amount: '5.00', status: 'pending' });
    const pages = w.since(m, 'GET', '/v1/transactions');
    expect(pages.map((r) => r.query.cursor === undefined)).toEqual([true, false, false]);
    for (const r of pages) expect(r.query).toMatchObject({ account_id: a, limit: '3' });
  });

  it('--type and --status filters, alone and together', async () => {
    const m = w.mark();
    const [col, voided, pending, fx, postedTransfers] = await Promise.all([
      w.pay(['transactions', 'list', '--account', a, '--type', 'collection', '--json']),
      w.pay(['transactions', 'list', '--account', a, '--type', 'transfer', '--status', 'voided', '--json']),
      w.pay(['transactions', 'list', '--status', 'pending', '--json']),
      w.pay(['transactions', 'list', '--type', 'fx_trade', '--json']),
      w.pay(['transactions', 'list', '--account', b, '--type', 'transfer', '--status', 'posted', '--json']),
    ]);
    expect(sources(json(col) as unknown as Obj[])).toEqual([src.collection]);
    expect(sources(json(voided) as unknown as Obj[])).toEqual([src.t113]);
    // pending: the 5.00 debit on a and its credit on b
    const p = json(pending) as unknown as Obj[];
    expect(p.map((t) => [t.account_id, t.direction, t.amount]).sort()).toEqual(
      [
        [a, 'debit', '5.00'],
        [b, 'credit', '5.00'],
      ].sort(),
    );
    const f = json(fx) as unknown as Obj[];
    expect(f.map((t) => [t.account_id, t.direction, t.amount, t.currency]).sort()).toEqual(
      [
        [a, 'debit', '100.00', 'USD'],
        [e, 'credit', src.fxTarget, 'EUR'],
      ].sort(),
    );
    expect(new Set(f.map((t) => t.entry_id)).size).toBe(1);
    expect(sources(json(postedTransfers) as unknown as Obj[])).toEqual([src.t30, src.t20, src.t10]);
    expect(w.since(m, 'GET', '/v1/transactions').map((r) => r.query)).toEqual(
      expect.arrayContaining([
        { limit: '20', account_id: a, type: 'transfer', status: 'voided' },
        { limit: '20', status: 'pending' },
      ]),
    );
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('--from / --to (RFC 3339 and dates; --to exclusive) split the two phases', async () => {
    const next = new Date(Date.parse(t1) + 86_400_000 * 2).toISOString().slice(0, 10);
    const m = w.mark();
    const [after, before, days, empty] = await Promise.all([
      w.pay(['transactions', 'list', '--account', a, '--from', t1, '--json']),
      w.pay(['transactions', 'list', '--account', a, '--to', t1, '--json']),
      w.pay(['transactions', 'list', '--account', a, '--from', startDay, '--to', next, '--json']),
      w.pay(['transactions', 'list', '--account', a, '--to', startDay]),
    ]);
    expect(sources(json(after) as unknown as Obj[])).toEqual([src.t5, src.fx, src.t30]);
    expect(sources(json(before) as unknown as Obj[])).toEqual([src.t113, src.t20, src.t10, src.collection]);
    expect(json(days)).toHaveLength(7);
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([0, '', 'No transactions found.\n']);
    expect(w.since(m, 'GET', '/v1/transactions').map((r) => r.query)).toEqual(
      expect.arrayContaining([
        { limit: '20', account_id: a, from: t1 },
        { limit: '20', account_id: a, to: t1 },
        { limit: '20', account_id: a, from: startDay, to: next },
      ]),
    );
  });

  it('--wallet: the paid link credited the wallet', async () => {
    const [t] = ndjson(await w.pay(['transactions', 'list', '--wallet', wal, '-o', 'ndjson']));
    expect(t).toMatchObject({
      account_id: null,
      wallet_id: wal,
      direction: 'credit',
      amount: '12.500000',
      currency: 'USDC',
      status: 'posted',
      source: { id: src.link },
    });
  });

  it('every balance equals its transactions: available = posted + pending debits, pending = net pending', async () => {
    const holders: Array<[string, string]> = [
      [a, 'accounts'],
      [b, 'accounts'],
      [e, 'accounts'],
      [wal, 'wallets'],
    ];
    const [runs, got] = await Promise.all([
      Promise.all(
        holders.map(([id, kind]) =>
          w.pay(['transactions', 'list', kind === 'wallets' ? '--wallet' : '--account', id, '--all', '-o', 'ndjson']),
        ),
      ),
      Promise.all(holders.map(([id, kind]) => w.api('GET', `${kind}/${id}`))),
    ]);
    for (let i = 0; i < holders.length; i++) {
      const txns = ndjson(runs[i]!);
      const holder = got[i]!;
      const cur = holder.balance.currency as string;
      let posted = 0n;
      let pendingDebit = 0n;
      let pendingNet = 0n;
      for (const t of txns) {
        expect(t.currency).toBe(cur);
        if (t.status === 'posted') posted += signed(t);
        if (t.status === 'pending') {
          pendingNet += signed(t);
          if (t.direction === 'debit') pendingDebit += signed(t);
        }
      }
      expect([holders[i]![0], minor(holder.balance.available, cur), minor(holder.balance.pending, cur)]).toEqual([
        holders[i]![0],
        posted + pendingDebit,
        pendingNet,
      ]);
    }
    // The figures themselves: a = 500 − 10 − 20 − 30 − 100 − 5 (held), b = 10 + 20 + 30 (+5 pending).
    expect(got[0]!.balance).toMatchObject({ available: '335.00', pending: '-5.00' });
    expect(got[1]!.balance).toMatchObject({ available: '60.00', pending: '5.00' });
    // And the whole ledger, system accounts included, balances per entry.
    const ledger = (await (await fetch(`${w.emu.url}/__emulator/ledger`)).json()) as { unbalanced: string[] };
    expect(ledger.unbalanced).toEqual([]);
  });

  it('formats: tsv header and columns, table with money and currency, get as json and table', async () => {
    const collection = all.find((t) => t.source.id === src.collection)!;
    const [t, tb, g, gt] = await Promise.all([
      w.pay(['transactions', 'list', '--account', a]),
      w.pay(['transactions', 'list', '--account', a, '-o', 'table']),
      w.pay(['transactions', 'get', collection.id, '--json']),
      w.pay(['transactions', 'get', collection.id, '-o', 'table']),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual([
      'id',
      'account_id',
      'wallet_id',
      'type',
      'direction',
      'amount',
      'balance_after',
      'status',
      'source.id',
      'created_at',
      'description',
    ]);
    expect(s.rows).toHaveLength(7);
    expect(s.rows[6]).toEqual({
      id: collection.id,
      account_id: a,
      wallet_id: '',
      type: 'collection',
      direction: 'credit',
      amount: '500.00',
      balance_after: '500.00',
      status: 'posted',
      'source.id': src.collection,
      created_at: collection.created_at,
      description: '',
    });
    const tbl = table(tb);
    expect(tbl.header).toEqual(TRANSACTION_HEADERS);
    expect(tbl.rows[6]).toEqual([
      collection.id,
      a,
      '-',
      'collection',
      'credit',
      '500.00 USD',
      '500.00 USD',
      'posted',
      src.collection,
      expect.stringMatching(TABLE_TIME),
      // The collection was made without a description.
      '-',
    ]);
    expect(tbl.rows[0]?.slice(3, 8)).toEqual(['transfer', 'debit', '5.00 USD', expect.stringMatching(/^\d+\.\d{2} USD$/), 'pending']);
    expect(json(g)).toEqual(collection);
    const kv = keyValues(gt);
    expect([kv.get('amount'), kv.get('balance_after'), kv.get('source.id')]).toEqual(['500.00 USD', '500.00 USD', src.collection]);
    expect(
      ok(
        await w.pay(['transactions', 'list', '--account', a, '--type', 'fx_trade', '--no-header', '--fields', 'amount,currency,source.id']),
      ),
    ).toBe(`100.00\tUSD\t${src.fx}\n`);
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('usage errors send nothing: --from after --to, an unknown type, a date that is not one', async () => {
    const m = w.mark();
    const [order, type, date] = await Promise.all([
      w.pay(['transactions', 'list', '--from', '2026-02-01', '--to', '2026-01-01']),
      w.pay(['transactions', 'list', '--type', 'refund']),
      w.pay(['transactions', 'list', '--from', 'yesterday']),
    ]);
    usageError(order, /^error: --from must be before --to$/);
    usageError(
      type,
      /^error: option '--type <type>' argument 'refund' is invalid. Allowed choices are transfer, collection, fx_trade, reversal.$/,
    );
    usageError(
      date,
      /^error: --from "yesterday" must be a date \(YYYY-MM-DD\), an RFC 3339 time \(.*\) or a duration back from now \(90s, 30m, 2h, 7d, 2w, 1h30m\)/,
    );
    expect(w.since(m)).toEqual([]);
  });
});
