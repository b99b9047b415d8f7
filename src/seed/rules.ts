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
import { featureDef, kycAllows, kycReason, RULES, type RuleKey } from '../shared/rules.js';
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

/**
 * What apply would have the service refuse, as far as the file and the state file tell (sends
 * nothing): per entry, the service's code and words. The currencies of the accounts (and the asset
 * of the wallet) an entry names: the account's entry in the file, else the object the state file
 * records; the customer's KYC and features: a customer the file makes and gives no kyc entry has
 * `not_started`, one recorded has the recorded status; a customer the file makes has only the
 * features its features entries activate. What the file cannot tell (a literal id of another
 * customer, a value known only once made) is not judged.
 */
export function foreseeRefusals(
  entries: readonly Entry[],
  recorded: ReadonlyMap<string, Record<string, unknown>>,
  /** Entries apply makes anew (create, replace): their recorded object says nothing of what they will be. */
  fresh: ReadonlySet<string>,
): Map<string, string> {
  const byRef = new Map(entries.map((e) => [e.ref, e]));
  const out = new Map<string, string>();
  /** The entry a whole reference to an object's id names (`${accounts.usd.id}`). */
  const entryOf = (v: unknown): Entry | undefined => {
    const m = typeof v === 'string' ? WHOLE_REF.exec(v) : null;
    return m && (m[3] ?? 'id') === 'id' ? byRef.get(`${m[1]}.${m[2]}`) : undefined;
  };
  const recordedById = (id: string) => [...recorded.values()].find((o) => o.id === id);
  /** A field of the object `v` names, as it will be after apply: the entry's literal value, else the recorded object's. */
  const fieldOf = (v: unknown, field: string): string | undefined => {
    const e = entryOf(v);
    if (e) {
      const w = e.body[field];
      if (typeof w === 'string') return w.includes('${') ? undefined : w;
      const rec = fresh.has(e.ref) ? undefined : recorded.get(e.ref)?.[field];
      return typeof rec === 'string' ? rec : undefined;
    }
    const rec = typeof v === 'string' && isId(v) ? recordedById(v)?.[field] : undefined;
    return typeof rec === 'string' ? rec : undefined;
  };
  /** How the service names the object `v` names: its id when known (recorded and kept), else its entry. */
  const nameOf = (v: unknown): string => {
    const e = entryOf(v);
    if (!e) return String(v);
    const id = fresh.has(e.ref) ? undefined : recorded.get(e.ref)?.id;
    return typeof id === 'string' ? id : e.ref;
  };
  const literal = (v: unknown): string | undefined => (typeof v === 'string' && !v.includes('${') ? v : undefined);
  for (const e of entries) {
    const b = e.body;
    const why: string[] = [];
    if (e.kind === 'fx_trades') {
      const [src, tgt, sells, buys] = [
        fieldOf(b.source_account_id, 'currency'),
        fieldOf(b.target_account_id, 'currency'),
        literal(b.source_currency),
        literal(b.target_currency),
      ];
      if (src && sells && src !== sells) why.push(`currency_mismatch: the source account holds ${src}; the quote sells ${sells}`);
      else if (tgt && buys && tgt !== buys) why.push(`currency_mismatch: the target account holds ${tgt}; the quote buys ${buys}`);
    } else if (e.kind === 'transfers') {
      const [src, dest, cur] = [fieldOf(b.source_account_id, 'currency'), fieldOf(b.destination_id, 'currency'), literal(b.currency)];
      if (src && cur && src !== cur) why.push(`currency_mismatch: the source account holds ${src}, not ${cur}`);
      else if (dest && cur && dest !== cur) why.push(`currency_mismatch: the destination holds ${dest}, not ${cur}`);
    } else if (e.kind === 'collections') {
      const [held, cur] = [fieldOf(b.account_id, 'currency'), literal(b.currency)];
      if (held && cur && held !== cur) why.push(`currency_mismatch: account ${nameOf(b.account_id)} holds ${held}, not ${cur}`);
    } else if (e.kind === 'payment_links') {
      const [held, asset] = [fieldOf(b.wallet_id, 'asset'), literal(b.asset)];
      if (held && asset && held !== asset) why.push(`currency_mismatch: wallet ${nameOf(b.wallet_id)} holds ${held}, not ${asset}`);
    }
    const rule = ruleRefusal(e, entries, byRef, recorded, fresh);
    if (rule) why.unshift(rule);
    if (why.length > 0) out.set(e.ref, why[0]!);
  }
  return out;
}

/** The KYC or feature refusal of an entry whose customer the file makes or the state file records. */
function ruleRefusal(
  e: Entry,
  entries: readonly Entry[],
  byRef: ReadonlyMap<string, Entry>,
  recorded: ReadonlyMap<string, Record<string, unknown>>,
  fresh: ReadonlySet<string>,
): string | undefined {
  const c = customerOf(e, byRef);
  if (!c || !byRef.has(c)) return undefined;
  const made = fresh.has(c) || !recorded.has(c);
  const hasKyc = entries.some((x) => x.kind === 'kyc' && customerOf(x, byRef) === c);
  // A kyc entry's outcome is the service's to decide: judged only without one.
  const status = hasKyc ? undefined : made ? 'not_started' : recorded.get(c)?.kyc_status;
  const recordedId = recorded.get(c)?.id;
  const id = !made && typeof recordedId === 'string' ? recordedId : c;
  if (e.kind === 'features') {
    const f = typeof e.body.feature === 'string' ? featureDef(e.body.feature) : undefined;
    const reason = f && typeof status === 'string' ? kycReason(f.kyc, status) : undefined;
    return reason && `feature_not_eligible: customer ${id} is not eligible for ${f!.key}: ${reason}`;
  }
  for (const key of rulesOfEntry(e, byRef)) {
    const rule = RULES[key];
    if (rule.when) continue;
    if (typeof status === 'string' && !kycAllows(rule.kyc, status)) return `kyc_required: ${kycReason(rule.kyc, status)}`;
    const activated = entries.some((x) => x.kind === 'features' && customerOf(x, byRef) === c && x.body.feature === rule.feature);
    if (rule.feature && made && !activated) return `feature_not_active: the ${rule.feature} feature is not active for ${id}`;
  }
  return undefined;
}
