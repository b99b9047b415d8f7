// The service's fixed vocabularies and formats, in one place for the contract, the CLI's checks
// and the emulator. No imports: command specs load this at start-up.

/** Fiat currencies the service holds accounts in (ISO 4217). */
export const FIAT_CURRENCIES = ['USD', 'EUR', 'GBP', 'NGN', 'KES', 'GHS', 'ZAR', 'JPY', 'CAD', 'KWD'] as const;
/** Crypto assets for wallets and payment links. */
export const ASSETS = ['BTC', 'ETH', 'USDC', 'USDT'] as const;
export const NETWORKS = ['bitcoin', 'ethereum', 'polygon', 'tron'] as const;
/** Which networks carry which asset. */
export const NETWORKS_BY_ASSET: Readonly<Record<(typeof ASSETS)[number], readonly (typeof NETWORKS)[number][]>> = {
  BTC: ['bitcoin'],
  ETH: ['ethereum'],
  USDC: ['ethereum', 'polygon'],
  USDT: ['ethereum', 'tron'],
};
/** Customer types and genders the service knows; others are taken too, but not one a letter or two from these (a typo). */
export const CUSTOMER_TYPES = ['individual', 'business'] as const;
export const GENDERS = ['male', 'female', 'non_binary', 'undisclosed'] as const;
/** E.164: + then 8 to 15 digits, no leading zero. */
export const PHONE_PATTERN = '^\\+[1-9][0-9]{7,14}$';
/** ISO 3166-2 shape: country, dash, 1 to 3 letters or digits. */
export const STATE_PATTERN = '^([A-Z]{2})-[A-Z0-9]{1,3}$';

/** Any object id: a lower-case type prefix and its underscore (OBJECT_KINDS), then 24 lower-case letters or digits. */
export const ID_SHAPE = /^[a-z]{1,10}_[0-9a-z]{24}$/;

/** Whether `v` is an id (ID_SHAPE); of one of the prefixes, when they are given (`cus_`, `acc_|ea_`). */
export function isId(v: unknown, prefix?: string): v is string {
  if (typeof v !== 'string' || !ID_SHAPE.test(v)) return false;
  if (prefix === undefined) return true;
  const of = (p: string) => v.length === p.length + 24 && v.startsWith(p);
  return prefix.includes('|') ? prefix.split('|').some(of) : of(prefix);
}

/**
 * The service's objects by their `object` name: the prefix of their ids (an id is the prefix and
 * 24 lower-case letters or digits, ID_SHAPE in validate.ts) and, for those with routes of their
 * own, the path they live under (`cards/{card_id}`, `cards/{card_id}/freeze`). Checked against
 * the contract by test/contract/creates.test.ts.
 */
export const OBJECT_KINDS = {
  customer: { prefix: 'cus_', path: 'customers' },
  kyc_verification: { prefix: 'kyc_' },
  kyc_document: { prefix: 'doc_' },
  account: { prefix: 'acc_', path: 'accounts' },
  external_account: { prefix: 'ea_', path: 'external-accounts' },
  transfer: { prefix: 'tr_', path: 'transfers' },
  card: { prefix: 'card_', path: 'cards' },
  collection: { prefix: 'col_', path: 'collections' },
  payment_link: { prefix: 'plink_', path: 'payment-links' },
  wallet: { prefix: 'wal_', path: 'wallets' },
  fx_quote: { prefix: 'fxq_', path: 'fx/quotes' },
  fx_trade: { prefix: 'fxt_' },
  transaction: { prefix: 'txn_' },
  event: { prefix: 'evt_', path: 'webhooks/events' },
} as const satisfies Readonly<Record<string, { prefix: string; path?: string }>>;
export type ObjectKind = keyof typeof OBJECT_KINDS;
/** The objects with routes of their own. */
export type RoutedKind = { [K in ObjectKind]: (typeof OBJECT_KINDS)[K] extends { path: string } ? K : never }[ObjectKind];
/** Where an object with routes of its own lives (`card` → `cards`). */
export const pathOf = (kind: RoutedKind): string => (OBJECT_KINDS[kind] as { path: string }).path;
