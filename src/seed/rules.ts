// What the business rules (src/shared/rules.ts) make a seed entry wait for: a card, a wallet, a
// payment link or a payout after its customer's last KYC entry (which then waits until the
// verification is decided; a customer's KYC entries run one after another, in file order, each
// after the one before it is decided) and after the features entries that activate what it needs; a
// collection or an FX trade after its customer's collections or fx entry; a feature that needs an
// approved KYC after the customer's last KYC entry. The customer is found through the entry's
// references (a transfer's source account's customer), so a file written the way the API reads
// needs no depends_on for it. What cannot be told from the file (a literal id of another
// customer) is not ordered: depends_on does it.
import { isId, OBJECT_KINDS } from '../shared/domain.js';
import { featureDef, RULES, type RuleKey } from '../shared/rules.js';
import type { Entry, Kind } from './file.js';

/** The rules each kind's create is gated by (a transfer's depend on its destination: see rulesOfEntry). */
const GATED: Partial<Record<Kind, readonly RuleKey[]>> = {
  cards: ['cards.issue'],
  wallets: ['wallets.create'],
  payment_links: ['payment_links.create'],
  collections: ['collections.create'],
  fx_trades: ['fx.trade'],
};

/** Fields that name the customer an entry acts for, directly or through another entry. */
const CUSTOMER_FIELDS = ['customer_id', 'account_id', 'source_account_id', 'wallet_id'] as const;
const WHOLE_REF = /^\$\{([a-z_]+)\.([A-Za-z0-9_-]+)(?:\.([A-Za-z0-9_.]+))?\}$/;

/** The customer an entry acts for: `customers.<name>` or a literal customer id; undefined when the file does not say. */
export function customerOf(e: Entry, byRef: ReadonlyMap<string, Entry>, seen: Set<string> = new Set()): string | undefined {
  if (e.kind === 'customers') return e.ref;
  seen.add(e.ref);
  for (const f of CUSTOMER_FIELDS) {
    const v = e.body[f];
    if (typeof v !== 'string') continue;
    const m = WHOLE_REF.exec(v);
    if (!m) {
      if (f === 'customer_id' && isId(v, OBJECT_KINDS.customer.prefix)) return v;
      continue;
    }
    const ref = `${m[1]}.${m[2]}`;
    const field = (m[3] ?? 'id').split('.')[0];
    const target = byRef.get(ref);
    if (!target || seen.has(ref)) continue;
    if (target.kind === 'customers') {
      if (field === 'id') return ref;
    } else if (field === 'id' || field === 'customer_id') {
      const c = customerOf(target, byRef, seen);
      if (c) return c;
    }
  }
  return undefined;
}

/** The rules an entry's create is gated by, as far as the file tells. */
function rulesOfEntry(e: Entry, byRef: ReadonlyMap<string, Entry>): RuleKey[] {
  if (e.kind === 'transfers') {
    const dest = e.body.destination_id;
    const m = typeof dest === 'string' ? WHOLE_REF.exec(dest) : null;
    const external = m ? byRef.get(`${m[1]}.${m[2]}`)?.kind === 'external_accounts' : typeof dest === 'string' && dest.startsWith('ea_');
    return external ? ['transfers.payout', 'transfers.international'] : [];
  }
  return [...(GATED[e.kind] ?? [])];
}

/**
 * Adds to each entry's deps the KYC and features entries of its customer that its rules need, and
 * to each kyc entry the customer's kyc entry before it in the file (never itself, never one that
 * already waits for it: no circle is made).
 */
export function addRuleDeps(entries: Entry[]): void {
  const byRef = new Map(entries.map((e) => [e.ref, e]));
  const customer = new Map(entries.map((e) => [e.ref, customerOf(e, byRef)]));
  const kycOf = (c: string) => entries.filter((x) => x.kind === 'kyc' && customer.get(x.ref) === c);
  const featuresOf = (c: string, feature: string) =>
    entries.filter((x) => x.kind === 'features' && customer.get(x.ref) === c && x.body.feature === feature);
  const waitsFor = (from: Entry, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from.ref];
    while (stack.length > 0) {
      const ref = stack.pop()!;
      if (ref === to) return true;
      if (seen.has(ref)) continue;
      seen.add(ref);
      stack.push(...(byRef.get(ref)?.deps ?? []));
    }
    return false;
  };
  const add = (e: Entry, n: Entry) => {
    if (n.ref !== e.ref && !e.deps.includes(n.ref) && !waitsFor(n, e.ref)) e.deps.push(n.ref);
  };
  // A customer has one current verification, and the API starts another only once it is decided:
  // the customer's kyc entries run one after another, in file order.
  for (const e of entries) {
    if (e.kind !== 'kyc') continue;
    const c = customer.get(e.ref);
    if (!c) continue;
    const mine = kycOf(c);
    const at = mine.indexOf(e);
    if (at > 0) add(e, mine[at - 1]!);
  }
  // The customer's KYC status is its latest verification's: what needs it approved waits for the last kyc entry (and so for all).
  const lastKycOf = (c: string) => kycOf(c).slice(-1);
  for (const e of entries) {
    const c = customer.get(e.ref);
    if (!c) continue;
    const needs: Entry[] = [];
    if (e.kind === 'features') {
      const f = typeof e.body.feature === 'string' ? featureDef(e.body.feature) : undefined;
      if (f?.kyc === 'approved') needs.push(...lastKycOf(c));
    }
    for (const key of rulesOfEntry(e, byRef)) {
      const rule = RULES[key];
      if (rule.kyc === 'approved') needs.push(...lastKycOf(c));
      if (rule.feature) needs.push(...featuresOf(c, rule.feature));
    }
    for (const n of needs) add(e, n);
  }
}
