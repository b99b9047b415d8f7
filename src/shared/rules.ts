// The business rules, as data: which customer KYC states and which activated features each gated
// action needs. One table for the emulator (it enforces the rules and computes a feature's
// `eligible`/`reasons` from them: src/emulator/resources/rules.ts), the contract (each gated
// operation's description), the commands' help and the hints of refusals. src/api/DESIGN.md
// ("Business rules") is this table in words; test/unit/rules.test.ts keeps the two equal. It imports
// only domain.ts and simulation.ts (which import nothing): command declarations load it at start-up.
import { isId, OBJECT_KINDS } from './domain.js';
import { REJECT_DOCUMENT_SUFFIX } from './simulation.js';

export const KYC_STATUSES = ['not_started', 'pending', 'in_review', 'approved', 'rejected'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

/** What an action needs of a customer's KYC: `approved`, or only `not_rejected` (any state but rejected). */
export type KycNeed = 'approved' | 'not_rejected';

export const FEATURE_KEYS = ['cards', 'collections', 'crypto_wallets', 'payment_links', 'fx', 'international_transfers'] as const;
export type FeatureKey = (typeof FEATURE_KEYS)[number];

export interface FeatureDef {
  key: FeatureKey;
  name: string;
  description: string;
  /** What the customer's KYC must be to activate it, and to use it once active. */
  kyc: KycNeed;
}

/** The product features, in the order `GET /features` lists them. */
export const FEATURES: readonly FeatureDef[] = [
  { key: 'cards', name: 'Cards', description: 'Issue virtual and physical cards.', kyc: 'approved' },
  {
    key: 'collections',
    name: 'Collections',
    description: 'Accept payments into accounts by card, bank transfer and mobile money.',
    kyc: 'not_rejected',
  },
  { key: 'crypto_wallets', name: 'Crypto wallets', description: 'Hold crypto assets in wallets.', kyc: 'approved' },
  { key: 'payment_links', name: 'Payment links', description: 'Share links that collect crypto payments into wallets.', kyc: 'approved' },
  { key: 'fx', name: 'Foreign exchange', description: 'Exchange currencies between accounts (FX trades).', kyc: 'not_rejected' },
  {
    key: 'international_transfers',
    name: 'International transfers',
    description: "Send money to external accounts in another country than the customer's address.",
    kyc: 'approved',
  },
];

export const featureDef = (key: string): FeatureDef | undefined => FEATURES.find((f) => f.key === key);

/** `requires_kyc` of the API's Feature object: its activation and use need KYC approved. */
export const requiresKyc = (f: FeatureDef): boolean => f.kyc === 'approved';

export const RULE_KEYS = [
  'accounts.create',
  'external_accounts.create',
  'transfers.internal',
  'transfers.payout',
  'transfers.international',
  'cards.issue',
  'collections.create',
  'wallets.create',
  'payment_links.create',
  'fx.trade',
] as const;
export type RuleKey = (typeof RULE_KEYS)[number];

export interface Rule {
  key: RuleKey;
  /** What the customer does, after "cannot": `issue a card`. */
  action: string;
  /** The contract operation it gates. */
  operationId: string;
  /** The command that sends it. */
  command: string;
  /** Whose KYC and features count, in words, possessive: `the customer's`. */
  whose: string;
  /** The request body field that names the actor (directly or through an account or wallet): a refusal's `errors[].field`. */
  field: string;
  kyc: KycNeed;
  /** The feature that must be active (its own KYC need is the rule's). */
  feature?: FeatureKey;
  /** When the rule is the one that applies (the kinds of transfer), in words. */
  when?: string;
  /** The same, in a few words for tables: `to ea_… abroad`. */
  short?: string;
  /** Another customer the money reaches (a body field naming their account): their KYC must not be rejected. */
  counterparty?: string;
}

/**
 * The rules. Everything not listed here is never refused by a rule: reading, starting KYC and
 * submitting documents, and what only lowers risk (closing an account, removing an external
 * account, cancelling a transfer, freezing, unfreezing or terminating a card, disabling a link).
 * FX quotes are prices, for no customer: only the trade is gated.
 */
export const RULES: Readonly<Record<RuleKey, Rule>> = {
  'accounts.create': {
    key: 'accounts.create',
    action: 'open an account',
    operationId: 'createAccount',
    command: 'pay accounts create',
    whose: "the customer's",
    field: 'customer_id',
    kyc: 'not_rejected',
  },
  'external_accounts.create': {
    key: 'external_accounts.create',
    action: 'add an external account',
    operationId: 'createExternalAccount',
    command: 'pay external-accounts add',
    whose: "the customer's",
    field: 'customer_id',
    kyc: 'not_rejected',
  },
  'transfers.internal': {
    key: 'transfers.internal',
    action: 'send a transfer between accounts',
    operationId: 'createTransfer',
    command: 'pay transfers send',
    whose: "the source account holder's",
    field: 'source_account_id',
    kyc: 'not_rejected',
    when: 'the destination is an account (acc_…)',
    short: 'to acc_…',
    counterparty: 'destination_id',
  },
  'transfers.payout': {
    key: 'transfers.payout',
    action: 'send money out to an external account',
    operationId: 'createTransfer',
    command: 'pay transfers send',
    whose: "the source account holder's",
    field: 'source_account_id',
    kyc: 'approved',
    when: "the destination is an external account (ea_…) in the holder's country (address.country)",
    short: 'to ea_… at home',
    counterparty: 'destination_id',
  },
  'transfers.international': {
    key: 'transfers.international',
    action: 'send money to an external account abroad',
    operationId: 'createTransfer',
    command: 'pay transfers send',
    whose: "the source account holder's",
    field: 'source_account_id',
    kyc: 'approved',
    feature: 'international_transfers',
    when: "the destination is an external account in another country than the holder's address",
    short: 'to ea_… abroad',
    counterparty: 'destination_id',
  },
  'cards.issue': {
    key: 'cards.issue',
    action: 'issue a card',
    operationId: 'createCard',
    command: 'pay cards issue',
    whose: "the customer's",
    field: 'customer_id',
    kyc: 'approved',
    feature: 'cards',
  },
  'collections.create': {
    key: 'collections.create',
    action: 'collect a payment',
    operationId: 'createCollection',
    command: 'pay collections create',
    whose: "the account holder's",
    field: 'account_id',
    kyc: 'not_rejected',
    feature: 'collections',
  },
  'wallets.create': {
    key: 'wallets.create',
    action: 'create a wallet',
    operationId: 'createWallet',
    command: 'pay wallets create',
    whose: "the customer's",
    field: 'customer_id',
    kyc: 'approved',
    feature: 'crypto_wallets',
  },
  'payment_links.create': {
    key: 'payment_links.create',
    action: 'create a payment link',
    operationId: 'createPaymentLink',
    command: 'pay payment-links create',
    whose: "the wallet holder's",
    field: 'wallet_id',
    kyc: 'approved',
    feature: 'payment_links',
  },
  'fx.trade': {
    key: 'fx.trade',
    action: 'trade FX',
    operationId: 'createFxTrade',
    command: 'pay fx trade',
    whose: "the source account holder's",
    field: 'source_account_id',
    kyc: 'not_rejected',
    feature: 'fx',
    counterparty: 'target_account_id',
  },
};

/** The rules that gate one operation (createTransfer has three: which applies depends on the destination). */
export const rulesOf = (operationId: string): Rule[] => Object.values(RULES).filter((r) => r.operationId === operationId);

/** Whether a KYC state meets a need. */
export const kycAllows = (need: KycNeed, status: string): boolean => (need === 'approved' ? status === 'approved' : status !== 'rejected');

/** Why a KYC state does not meet a need, for people (undefined when it does). */
export function kycReason(need: KycNeed, status: string): string | undefined {
  if (kycAllows(need, status)) return undefined;
  if (status === 'rejected') return need === 'approved' ? 'KYC was rejected; a new verification must be approved' : 'KYC was rejected';
  return `KYC must be approved (kyc_status is ${status})`;
}

/** A rule's requirement in words: "the customer's KYC approved and the cards feature active". */
export function requirement(rule: Rule): string {
  const kyc = rule.kyc === 'approved' ? 'KYC approved' : 'KYC not rejected';
  return `${rule.whose} ${kyc}${rule.feature ? ` and the ${rule.feature} feature active` : ''}`;
}

/**
 * The help line of a command a rule gates, naming what to run:
 * "Needs the customer's KYC approved and the crypto_wallets feature active (pay features activate <customer-id> --feature crypto_wallets)."
 */
export function ruleHelp(rule: Rule): string {
  const how = rule.feature
    ? ` (pay features activate <customer-id> --feature ${rule.feature}${rule.kyc === 'approved' ? ', after pay kyc verify and submit-document' : ''})`
    : rule.kyc === 'approved'
      ? ' (pay kyc verify, then pay kyc submit-document)'
      : '';
  return `${rule.when ? `When ${rule.when}: needs` : 'Needs'} ${requirement(rule)}${how}.`;
}

/** The help of a command: one line per rule of its operation, and the counterparty's, if any. */
export function operationHelp(operationId: string): string {
  const rules = rulesOf(operationId);
  const lines = rules.map(ruleHelp);
  const party = rules.find((r) => r.counterparty);
  if (party) lines.push(`The receiving account's holder must not have KYC rejected. See pay help rules.`);
  else if (rules.length > 0) lines.push('See pay help rules.');
  return lines.join('\n');
}

/** One broken requirement of a refusal, as the hint reads it (checked values only). */
interface Broken {
  code: 'kyc_required' | 'feature_not_active';
  customer: string;
  status: KycStatus | undefined;
  country: string | undefined;
  feature: FeatureKey | undefined;
}

const RULE_CODES = ['kyc_required', 'feature_not_active'] as const;
const customerOf = (v: unknown): string | undefined => (isId(v, OBJECT_KINDS.customer.prefix) ? v : undefined);
const statusOf = (v: unknown): KycStatus | undefined =>
  typeof v === 'string' && (KYC_STATUSES as readonly string[]).includes(v) ? (v as KycStatus) : undefined;
const featureOf = (v: unknown): FeatureKey | undefined => (typeof v === 'string' && featureDef(v) ? (v as FeatureKey) : undefined);
const countryOf = (v: unknown): string | undefined => (typeof v === 'string' && /^[A-Z]{2}$/.test(v) ? v : undefined);

/** What to do about one customer's KYC, by its state (the document's country is the customer's, when known). */
function kycSteps(cus: string, status: KycStatus | undefined, country: string | undefined): string {
  const submit = `pay kyc submit-document ${cus} --type passport --country ${country ?? '<CC>'} --number <number>`;
  if (status === 'pending') return `submit a document: ${submit}; the review decides after it`;
  if (status === 'in_review') return `the review is under way: pay kyc status ${cus} shows when it is decided`;
  if (status === 'rejected') return `the KYC of ${cus} was rejected: start a new verification (pay kyc verify ${cus}) and ${submit}`;
  return `verify the customer: pay kyc verify ${cus}, then ${submit}; the review decides after it`;
}

/**
 * The broken requirements a refusal lists: its `errors[]` entries of the rules' codes, each naming
 * its customer (the emulator's answer); an answer whose entries name no customer is read from its
 * top-level members (one customer: its KYC when the code or an entry says so, then the feature).
 */
function brokenOf(p: Record<string, unknown>): Broken[] {
  const entries = (Array.isArray(p.errors) ? (p.errors as unknown[]) : []).filter(
    (e): e is Record<string, unknown> =>
      typeof e === 'object' && e !== null && (RULE_CODES as readonly unknown[]).includes((e as Record<string, unknown>).code),
  );
  const top = {
    customer: customerOf(p.customer_id) ?? '<customer-id>',
    status: statusOf(p.kyc_status),
    country: countryOf(p.customer_country),
  };
  if (entries.length > 0 && entries.every((e) => customerOf(e.customer_id))) {
    return entries.map((e) => ({
      code: e.code as Broken['code'],
      customer: e.customer_id as string,
      status: statusOf(e.kyc_status),
      country: countryOf(e.customer_country),
      feature: e.code === 'feature_not_active' ? (featureOf(e.feature) ?? featureOf(p.feature)) : undefined,
    }));
  }
  const codes = new Set([p.code, ...entries.map((e) => e.code)]);
  const feature = featureOf(p.feature);
  // Without entries, a kyc_required refusal of a rule with a feature names it to activate after (an older answer).
  const activate = codes.has('feature_not_active') || (entries.length === 0 && p.code === 'kyc_required' && feature !== undefined);
  return [
    ...(codes.has('kyc_required') ? [{ code: 'kyc_required' as const, ...top, feature: undefined }] : []),
    ...(activate ? [{ code: 'feature_not_active' as const, ...top, feature }] : []),
  ];
}

/**
 * What to run about a refusal of the rules (`kyc_required`, `feature_not_active`,
 * `feature_not_eligible`; a 409 `account_not_empty` whose holder's KYC was rejected), from the
 * problem's `errors[]` and extension members: every step, in order (each customer's KYC before its
 * features). The answer is untrusted: a customer id, state, country or feature that is not one of the
 * service's is left out, never printed.
 */
export function refusalHint(p: Record<string, unknown>): string | undefined {
  const cus = customerOf(p.customer_id) ?? '<customer-id>';
  const status = statusOf(p.kyc_status);
  const country = countryOf(p.customer_country);
  switch (p.code) {
    case 'feature_not_eligible':
      return `${kycSteps(cus, status, country)}; then run this again`;
    case 'account_not_empty':
      return status === 'rejected' && cus !== '<customer-id>'
        ? `its holder's KYC was rejected, so no money moves out: start a new verification (pay kyc verify ${cus}), then move the money to another account of theirs (pay transfers send); a payout needs the review approved (pay kyc submit-document ${cus} --type passport --country ${country ?? '<CC>'} --number <number>)`
        : undefined;
    case 'kyc_required':
    case 'feature_not_active':
      break;
    default:
      return undefined;
  }
  const broken = brokenOf(p);
  // Each customer's KYC before its features (an approval-only feature is activated after the review).
  const customers = [...new Set(broken.map((b) => b.customer))];
  const seen = new Set<string>();
  const steps: string[] = [];
  for (const c of customers) {
    const mine = broken.filter((b) => b.customer === c);
    for (const b of [...mine.filter((m) => m.code === 'kyc_required'), ...mine.filter((m) => m.code === 'feature_not_active')]) {
      const step =
        b.code === 'kyc_required'
          ? kycSteps(b.customer, b.status, b.country)
          : `pay features activate ${b.customer} --feature ${b.feature ?? '<feature>'}`;
      if (seen.has(step)) continue;
      seen.add(step);
      steps.push(steps.length === 0 && b.code === 'feature_not_active' ? `activate it: ${step}` : step);
    }
  }
  if (steps.length === 0) return undefined;
  return steps.join('; then ');
}

/** `pay help rules`: the whole table, for people. */
export function rulesText(): string {
  const rows = Object.values(RULES).map((r) => [
    `${r.command}${r.short ? ` ${r.short}` : ''}`,
    `${requirement(r)}${r.counterparty ? ' (*)' : ''}`,
  ]);
  const width = Math.max(...rows.map(([c]) => c!.length)) + 2;
  const features = FEATURES.map((f) => `  ${f.key.padEnd(25)}KYC ${f.kyc === 'approved' ? 'approved' : 'not rejected'}: ${f.description}`);
  // Each paragraph is one line: pay help fits it to the terminal (a line broken here would be
  // broken again there, mid-sentence).
  return [
    'What each command needs of the customer it acts for. The service refuses anything else with 422 kyc_required or feature_not_active (nothing changes), and the error names what to run.',
    '',
    ...rows.map(([c, need]) => `  ${c!.padEnd(width)}${need}`),
    "  (*)  and the receiving account's holder: KYC not rejected. At home: the external account's country is the country of the holder's address; abroad: any other.",
    '',
    'Features (pay features activate <customer-id> --feature <key>; pay features check shows eligible and active):',
    ...features,
    '',
    'KYC: pay kyc verify <customer-id>, then pay kyc submit-document <customer-id> --type passport --country <CC> ' +
      `--number <number>; the review approves it (Sandbox: a document number ending in ${REJECT_DOCUMENT_SUFFIX} is rejected). ` +
      'A customer once approved stays approved (an enhanced upgrade in review or rejected does not take it away). ' +
      'A customer whose KYC was rejected can start a new verification; until then nothing new is made for them ' +
      'and no money moves to or from their accounts: a transfer or collection still pending (or held) when ' +
      'their KYC is rejected fails as it settles, failure_reason kyc_rejected, and the money goes back.',
    '',
    'Never refused by these rules: reading, KYC itself, FX quotes, and what only lowers risk (closing an ' +
      'account, removing an external account, cancelling a transfer, freezing, unfreezing or terminating a ' +
      'card, disabling a payment link).',
    '',
  ].join('\n');
}
