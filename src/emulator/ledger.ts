// The double-entry ledger. Every entry's postings sum to zero per currency; customer-visible
// postings (to an account or wallet) are also `transaction` records, system postings
// (`clearing:<cur>`, `external:<cur>`, `fx:<cur>` per scope) are not. An entry is `pending`,
// then `posted` or `voided` as a whole.
// Balances (minor units, BigInt), per account or wallet:
//   available = posted postings + pending debits (money on its way out is not spendable)
//   pending   = net of pending postings (incoming positive, outgoing negative)
// balance_after of a transaction = the available balance right after it counted (debits when
// created, credits when posted).
// No balance may outgrow the contract's Amount (15 digits before the point): post() refuses
// (422 out_of_range, before changing anything) a credit that could take a holder's available
// balance past it once every pending credit lands (posted + pending credits + this credit).
// Every other figure shown is bounded by that one.
import { exponent, fits, fromMinor, MAX_WHOLE_DIGITS, toMinor } from './money.js';
import { validationProblem } from './problems.js';
import type { RecordServices } from './services.js';
import type { Account, Balance, LedgerEntry, Rec, Transaction, TxnStatus, Tx, Wallet } from './types.js';

interface Agg {
  posted: bigint;
  pendingDebit: bigint;
  pendingNet: bigint;
  pendingCredit: bigint;
  pendingCount: number;
}

export interface Line {
  /** acc_…, wal_…, or a system account: clearing, external, fx. */
  account: string;
  currency: string;
  /** Signed minor units: positive credits, negative debits. */
  amount: bigint;
}

export interface PostSpec {
  type: Transaction['type'];
  status: 'pending' | 'posted';
  source: { object: string; id: string };
  description: string | null;
  lines: Line[];
  /** The request field a refused credit is reported on (default `amount`). */
  field?: string;
}

const isHolder = (account: string): boolean => account.startsWith('acc_') || account.startsWith('wal_');
const signed = (t: Transaction): bigint => {
  const v = toMinor(t.amount, exponent(t.currency));
  return t.direction === 'credit' ? v : -v;
};

export class Ledger {
  private readonly agg = new Map<string, Agg>();

  constructor(private readonly app: RecordServices) {
    app.store.hook('transaction', (prev, rec) => {
      if (prev) this.count(prev as Transaction, -1);
      this.count(rec.obj as Transaction, 1);
    });
  }

  private count(t: Transaction, sign: 1 | -1): void {
    const holder = t.account_id ?? t.wallet_id;
    if (!holder || t.status === 'voided') return;
    let a = this.agg.get(holder);
    if (!a) this.agg.set(holder, (a = { posted: 0n, pendingDebit: 0n, pendingNet: 0n, pendingCredit: 0n, pendingCount: 0 }));
    const v = sign === 1 ? signed(t) : -signed(t);
    if (t.status === 'posted') a.posted += v;
    else {
      a.pendingNet += v;
      if (t.direction === 'debit') a.pendingDebit += v;
      else a.pendingCredit += v;
      a.pendingCount += sign;
    }
  }

  available(holder: string): bigint {
    const a = this.agg.get(holder);
    return a ? a.posted + a.pendingDebit : 0n;
  }

  /** True when nothing is pending and the available balance is zero. */
  isEmpty(holder: string): boolean {
    const a = this.agg.get(holder);
    return !a || (a.posted + a.pendingDebit === 0n && a.pendingNet === 0n && a.pendingCount === 0);
  }

  balance(holder: string, currency: string): Balance {
    const a = this.agg.get(holder);
    const exp = exponent(currency);
    return { available: fromMinor(a ? a.posted + a.pendingDebit : 0n, exp), pending: fromMinor(a?.pendingNet ?? 0n, exp), currency };
  }

  /** The highest available balance a holder can reach: everything posted plus every pending credit. */
  private ceiling(holder: string): bigint {
    const a = this.agg.get(holder);
    return a ? a.posted + a.pendingCredit : 0n;
  }

  /**
   * Records an entry and its customer-visible transactions; refreshes the balances shown on
   * accounts and wallets. Throws 422 out_of_range (changing nothing) when a credit could take a
   * balance past the largest amount.
   */
  post(tx: Tx, scope: string, spec: PostSpec): Rec<LedgerEntry> {
    const sums = new Map<string, bigint>();
    for (const l of spec.lines) sums.set(l.currency, (sums.get(l.currency) ?? 0n) + l.amount);
    for (const [cur, sum] of sums) if (sum !== 0n) throw new Error(`unbalanced ledger entry: ${cur} sums to ${sum}`);
    const credits = new Map<string, bigint>();
    for (const l of spec.lines) {
      if (!isHolder(l.account) || l.amount <= 0n) continue;
      const reach = (credits.get(l.account) ?? this.ceiling(l.account)) + l.amount;
      credits.set(l.account, reach);
      if (!fits(reach, exponent(l.currency))) {
        throw validationProblem([
          {
            field: spec.field ?? 'amount',
            code: 'out_of_range',
            message: `would take the balance of ${l.account} over ${MAX_WHOLE_DIGITS} digits before the decimal point (the largest amount)`,
          },
        ]);
      }
    }

    const { store } = this.app;
    const entry = this.app.create<LedgerEntry>(scope, 'ent_', 'ledger_entry', {
      type: spec.type,
      status: spec.status,
      source: spec.source,
      postings: [],
    });
    const postings = entry.postings;
    const touched = new Set<string>();
    for (const l of spec.lines) {
      const exp = exponent(l.currency);
      let transactionId: string | null = null;
      if (isHolder(l.account)) {
        const before = this.available(l.account);
        const counts = l.amount < 0n || spec.status === 'posted';
        const t = this.app.create<Transaction>(scope, 'txn_', 'transaction', {
          account_id: l.account.startsWith('acc_') ? l.account : null,
          wallet_id: l.account.startsWith('wal_') ? l.account : null,
          entry_id: entry.id,
          type: spec.type,
          direction: l.amount < 0n ? 'debit' : 'credit',
          amount: fromMinor(l.amount < 0n ? -l.amount : l.amount, exp),
          currency: l.currency,
          status: spec.status,
          balance_after: fromMinor(counts ? before + l.amount : before, exp),
          description: spec.description,
          source: spec.source,
        });
        store.put(tx, 'transaction', scope, t);
        transactionId = t.id;
        touched.add(l.account);
      }
      postings.push({ account: l.account, currency: l.currency, amount: fromMinor(l.amount, exp), transaction_id: transactionId });
    }
    const rec = store.put(tx, 'ledger_entry', scope, entry);
    for (const holder of touched) this.refresh(tx, scope, holder);
    return rec;
  }

  /** Moves a pending entry to posted or voided, with its transactions. */
  settle(tx: Tx, scope: string, entryId: string, status: Exclude<TxnStatus, 'pending'>): void {
    const { store } = this.app;
    const entry = store.get<LedgerEntry>('ledger_entry', scope, entryId);
    if (!entry || entry.obj.status !== 'pending') return;
    const now = this.app.clock.stamp();
    const touched = new Set<string>();
    for (const p of entry.obj.postings) {
      if (!p.transaction_id) continue;
      const rec = store.get<Transaction>('transaction', scope, p.transaction_id);
      if (!rec) continue;
      const t = rec.obj;
      const holder = (t.account_id ?? t.wallet_id)!;
      const next: Transaction = { ...t, status, updated_at: new Date(now).toISOString() };
      if (status === 'posted' && t.direction === 'credit') {
        next.balance_after = fromMinor(this.available(holder) + toMinor(t.amount, exponent(t.currency)), exponent(t.currency));
      }
      store.put(tx, 'transaction', scope, next);
      touched.add(holder);
    }
    store.put(tx, 'ledger_entry', scope, { ...entry.obj, status, updated_at: new Date(now).toISOString() });
    for (const holder of touched) this.refresh(tx, scope, holder);
  }

  /** Copies the ledger's balance onto the account or wallet object. */
  private refresh(tx: Tx, scope: string, holder: string): void {
    const kind = holder.startsWith('acc_') ? 'account' : 'wallet';
    const rec = this.app.store.get<Account | Wallet>(kind, scope, holder);
    if (!rec) return;
    const balance = this.balance(holder, rec.obj.balance.currency);
    const now = new Date(this.app.clock.stamp()).toISOString();
    this.app.store.put(tx, kind, scope, { ...rec.obj, balance, updated_at: now });
  }

  clear(): void {
    this.agg.clear();
  }
}
