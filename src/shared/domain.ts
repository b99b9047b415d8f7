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
/** E.164: + then 8 to 15 digits, no leading zero. */
export const PHONE_PATTERN = '^\\+[1-9][0-9]{7,14}$';
/** ISO 3166-2 shape: country, dash, 1 to 3 letters or digits. */
export const STATE_PATTERN = '^([A-Z]{2})-[A-Z0-9]{1,3}$';
