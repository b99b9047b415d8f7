// The ledger alone: no App, no server, no socket. A Ledger over an in-memory Store, a fake clock
// and the emulator's own object factory (the narrow RecordServices of services.ts). Postings,
// balances (available = posted + pending debits; pending = net of pending), pending → posted or
// voided, balance_after, the unbalanced-entry refusal and the 15-digit out_of_range refusal; then
// fast-check sequences of credits, transfers, payouts and settlements, with the invariants checked
// after every step against figures recomputed from the stored transactions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/emulator/clock.js';
import { IdGen } from '../../src/emulator/ids.js';
import { Ledger, type Line } from '../../src/emulator/ledger.js';
import { exponent, fromMinor, toMinor } from '../../src/emulator/money.js';
import { newObject, type RecordServices } from '../../src/emulator/services.js';
import { Store } from '../../src/emulator/store.js';
import type { Account, LedgerEntry, Transaction, Tx } from '../../src/emulator/types.js';

const SCOPE = 'sandbox|biz_unit';

function world() {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const store = new Store();
  const clock = new Clock(() => now);
  const ids = new IdGen();
  const services: RecordServices = {
    store,
    clock,
    create: (scope, prefix, object, fields, mutable) => newObject(clock, ids, scope, prefix, object, fields, mutable),
  };
  const ledger = new Ledger(services);
  const tx = (): Tx => ({ ops: [], after: [] });
  const account = (currency: string): string => {
    const a = services.create<Account>(SCOPE, 'acc_', 'account', {
      customer_id: 'cus_unit',
      currency,
      type: 'checking',
      nickname: null,
      status: 'active',
      account_number: '000000000000',
      balance: { available: fromMinor(0n, exponent(currency)), pending: fromMinor(0n, exponent(currency)), currency },
    });
    store.put(tx(), 'account', SCOPE, a);
    return a.id;
  };
  const tick = () => void (now += 1000);
  return { store, ledger, tx, account, tick };
}

type World = ReturnType<typeof world>;

const credit = (acc: string, currency: string, minor: bigint, status: 'pending' | 'posted' = 'pending'): Parameters<Ledger['post']>[2] => ({
  type: 'collection',
  status,
  source: { object: 'collection', id: 'col_unit' },
  description: null,
  lines: [
    { account: acc, currency, amount: minor },
    { account: `clearing:${currency}`, currency, amount: -minor },
  ],
});

const move = (from: string, to: string, currency: string, minor: bigint): Parameters<Ledger['post']>[2] => ({
  type: 'transfer',
  status: 'pending',
  source: { object: 'transfer', id: 'tr_unit' },
  description: null,
  lines: [
    { account: from, currency, amount: -minor },
    { account: to, currency, amount: minor },
  ],
});

/** Available and pending recomputed from the stored transactions, independently of the ledger's aggregates. */
function recomputed(w: World, holder: string): { available: bigint; pending: bigint } {
  let available = 0n;
  let pending = 0n;
  for (const rec of w.store.every('transaction')) {
    const t = rec.obj as Transaction;
    if (t.account_id !== holder && t.wallet_id !== holder) continue;
    const v = toMinor(t.amount, exponent(t.currency)) * (t.direction === 'credit' ? 1n : -1n);
    if (t.status === 'posted') available += v;
    else if (t.status === 'pending') {
      pending += v;
      if (v < 0n) available += v;
    }
  }
  return { available, pending };
}

function checkInvariants(w: World, holders: Array<{ id: string; currency: string }>): void {
  const posted = new Map<string, bigint>();
  for (const rec of w.store.every('ledger_entry')) {
    const e = rec.obj as LedgerEntry;
    const sums = new Map<string, bigint>();
    for (const p of e.postings) {
      const v = toMinor(p.amount, exponent(p.currency));
      sums.set(p.currency, (sums.get(p.currency) ?? 0n) + v);
      if (e.status === 'posted') posted.set(p.currency, (posted.get(p.currency) ?? 0n) + v);
    }
    for (const [cur, sum] of sums) expect(sum, `entry ${e.id} in ${cur}`).toBe(0n);
  }
  for (const [cur, sum] of posted) expect(sum, `all posted postings in ${cur}`).toBe(0n);
  for (const h of holders) {
    const exp = exponent(h.currency);
    const r = recomputed(w, h.id);
    expect(w.ledger.available(h.id)).toBe(r.available);
    const shown = w.ledger.balance(h.id, h.currency);
    expect(shown).toEqual({ available: fromMinor(r.available, exp), pending: fromMinor(r.pending, exp), currency: h.currency });
    // The account object shows what the ledger says.
    expect(w.store.get<Account>('account', SCOPE, h.id)!.obj.balance).toEqual(shown);
  }
}

describe('the ledger, without HTTP', () => {
  it('a pending credit shows as pending, then available once posted, with balance_after', () => {
    const w = world();
    const acc = w.account('USD');
    const entry = w.ledger.post(w.tx(), SCOPE, credit(acc, 'USD', 1000_00n));
    expect(w.ledger.balance(acc, 'USD')).toEqual({ available: '0.00', pending: '1000.00', currency: 'USD' });
    const txn = entry.obj.postings.find((p) => p.account === acc)!.transaction_id!;
    expect(w.store.byId.get(txn)!.obj).toMatchObject({ status: 'pending', direction: 'credit', amount: '1000.00', balance_after: '0.00' });
    w.tick();
    w.ledger.settle(w.tx(), SCOPE, entry.obj.id, 'posted');
    expect(w.ledger.balance(acc, 'USD')).toEqual({ available: '1000.00', pending: '0.00', currency: 'USD' });
    expect(w.store.byId.get(txn)!.obj).toMatchObject({ status: 'posted', balance_after: '1000.00' });
    expect(w.store.get<LedgerEntry>('ledger_entry', SCOPE, entry.obj.id)!.obj.status).toBe('posted');
    checkInvariants(w, [{ id: acc, currency: 'USD' }]);
  });

  it('money on its way out is not available; a voided transfer gives it back', () => {
    const w = world();
    const a = w.account('EUR');
    const b = w.account('EUR');
    w.ledger.post(w.tx(), SCOPE, credit(a, 'EUR', 50_00n, 'posted'));
    const t = w.ledger.post(w.tx(), SCOPE, move(a, b, 'EUR', 20_00n));
    expect(w.ledger.balance(a, 'EUR')).toEqual({ available: '30.00', pending: '-20.00', currency: 'EUR' });
    expect(w.ledger.balance(b, 'EUR')).toEqual({ available: '0.00', pending: '20.00', currency: 'EUR' });
    w.ledger.settle(w.tx(), SCOPE, t.obj.id, 'voided');
    expect(w.ledger.balance(a, 'EUR')).toEqual({ available: '50.00', pending: '0.00', currency: 'EUR' });
    expect(w.ledger.balance(b, 'EUR')).toEqual({ available: '0.00', pending: '0.00', currency: 'EUR' });
    // Settling again changes nothing (only a pending entry settles).
    w.ledger.settle(w.tx(), SCOPE, t.obj.id, 'posted');
    expect(w.ledger.balance(b, 'EUR').available).toBe('0.00');
    checkInvariants(w, [
      { id: a, currency: 'EUR' },
      { id: b, currency: 'EUR' },
    ]);
  });

  it('refuses an entry that does not balance, and changes nothing', () => {
    const w = world();
    const acc = w.account('USD');
    const before = w.store.byId.size;
    const lines: Line[] = [
      { account: acc, currency: 'USD', amount: 100n },
      { account: 'clearing:USD', currency: 'USD', amount: -99n },
    ];
    expect(() => w.ledger.post(w.tx(), SCOPE, { ...credit(acc, 'USD', 100n), lines })).toThrow(/unbalanced ledger entry: USD sums to 1/);
    expect(w.store.byId.size).toBe(before);
  });

  it('refuses (422 out_of_range, nothing changed) a credit that could take a balance past 15 digits', () => {
    const w = world();
    const acc = w.account('USD');
    const max = 10n ** 15n * 100n - 1n; // 999 999 999 999 999.99
    w.ledger.post(w.tx(), SCOPE, credit(acc, 'USD', max - 100n));
    const before = w.store.byId.size;
    // Pending credits count: the ceiling is posted + every pending credit.
    let err: unknown;
    try {
      w.ledger.post(w.tx(), SCOPE, credit(acc, 'USD', 101n));
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ status: 422 });
    expect(JSON.stringify(err)).toContain('out_of_range');
    expect(w.store.byId.size).toBe(before);
    w.ledger.post(w.tx(), SCOPE, credit(acc, 'USD', 100n));
    expect(w.ledger.balance(acc, 'USD').pending).toBe('999999999999999.99');
  });

  it('any sequence of credits, transfers, payouts and settlements keeps every invariant (fast-check)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('credit' as const), to: fc.nat(3), minor: fc.bigInt(1n, 10n ** 9n), posted: fc.boolean() }),
      fc.record({ kind: fc.constant('move' as const), from: fc.nat(3), to: fc.nat(3), minor: fc.bigInt(1n, 10n ** 9n) }),
      fc.record({ kind: fc.constant('payout' as const), from: fc.nat(3), minor: fc.bigInt(1n, 10n ** 9n) }),
      fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), status: fc.constantFrom('posted' as const, 'voided' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => {
        const w = world();
        // Two currencies, one with no decimals: accounts 0-1 in USD, 2-3 in JPY.
        const holders = [
          { id: w.account('USD'), currency: 'USD' },
          { id: w.account('USD'), currency: 'USD' },
          { id: w.account('JPY'), currency: 'JPY' },
          { id: w.account('JPY'), currency: 'JPY' },
        ];
        const pending: string[] = [];
        for (const o of ops) {
          w.tick();
          if (o.kind === 'credit') {
            const h = holders[o.to]!;
            const e = w.ledger.post(w.tx(), SCOPE, credit(h.id, h.currency, o.minor, o.posted ? 'posted' : 'pending'));
            if (!o.posted) pending.push(e.obj.id);
          } else if (o.kind === 'move') {
            const from = holders[o.from]!;
            // Transfers stay within a currency (the resources refuse others before the ledger).
            const to = holders.find((h, i) => i !== o.from && h.currency === from.currency && i === (o.to % 2) + (o.from < 2 ? 0 : 2));
            if (!to || w.ledger.available(from.id) < o.minor) continue;
            pending.push(w.ledger.post(w.tx(), SCOPE, move(from.id, to.id, from.currency, o.minor)).obj.id);
          } else if (o.kind === 'payout') {
            const from = holders[o.from]!;
            if (w.ledger.available(from.id) < o.minor) continue;
            pending.push(w.ledger.post(w.tx(), SCOPE, move(from.id, `external:${from.currency}`, from.currency, o.minor)).obj.id);
          } else if (pending.length > 0) {
            const [id] = pending.splice(o.pick % pending.length, 1);
            w.ledger.settle(w.tx(), SCOPE, id!, o.status);
          }
          checkInvariants(w, holders);
          // A holder never has less than nothing available when only funded moves were made.
          for (const h of holders) expect(w.ledger.available(h.id) >= 0n).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});
