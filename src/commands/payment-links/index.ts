// pay payment-links: a URL a payer opens to pay crypto into a wallet.
import type { GroupSpec } from '../../cmdutil/spec.js';
import { STATUS_FILTER, columns, groupObject, resourceGroup } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';

const PLINK = groupObject('payment link', 'plink_', 'AMOUNT amount money @asset, STATUS status status, EXPIRES expires_at time');

export const paymentLinks: GroupSpec = resourceGroup(OPERATIONS, PLINK, {
  summary: 'Create and manage crypto payment links into a wallet',
  examples: [
    'pay payment-links create --wallet wal_0123456789abcdefghijklmn --amount 49.99 --asset USDC --json',
    'pay payment-links disable plink_0123456789abcdefghijklmn',
  ],
  description: 'A link is active until it is paid, disabled, or passes its expiry.',
  columns: columns(
    'ID id 1, WALLET wallet_id 7, AMOUNT amount 2 money @asset, STATUS status 3 status, URL url 4 id, EXPIRES expires_at 5 time, CREATED created_at 6 time',
  ),
  verbs: [
    PLINK.create({
      summary: 'Create a payment link for an amount of a crypto asset',
      about: "The amount has at most the asset's decimals (BTC 8, ETH 18, USDC 6, USDT 6).",
      examples: [
        'pay payment-links create --wallet wal_0123456789abcdefghijklmn --amount 0.015 --asset BTC',
        'pay payment-links create --wallet wal_0123456789abcdefghijklmn --amount 49.99 --asset USDC --description "Pro plan" --expires-at 2030-01-31T12:00:00Z --json',
      ],
      flags: [
        { flags: '--wallet <id>', field: 'wallet_id', description: 'wallet that receives the payment (wal_…)' },
        {
          flags: '--amount <amount>',
          field: 'amount',
          currencyFrom: 'asset',
          currencyField: 'asset',
          description: 'amount of the asset, e.g. 0.015',
        },
        { flags: '--asset <asset>', field: 'asset', description: 'crypto asset' },
        { flags: '--description <text>', field: 'description', description: 'shown to the payer' },
        { flags: '--expires-at <time>', field: 'expires_at', description: 'expiry as an RFC 3339 time, e.g. 2030-01-31T12:00:00Z' },
      ],
      jsonShape: 'the created PaymentLink object ({id: "plink_…", wallet_id, amount, asset, url, status, expires_at, …})',
    }),
    PLINK.list(
      ['pay payment-links list --wallet wal_0123456789abcdefghijklmn --status active --json'],
      [{ flags: '--wallet <id>', query: 'wallet_id', description: 'only links into this wallet' }, STATUS_FILTER],
    ),
    PLINK.get('Show one payment link', [
      `pay payment-links get ${PLINK.example}`,
      `pay payment-links get ${PLINK.example} --fields url,status --json`,
    ]),
    {
      name: 'disable',
      arg: PLINK.arg('active payment links', ['active']),
      summary: 'Disable an active payment link (it can no longer be paid)',
      examples: [`pay payment-links disable ${PLINK.example}`, `pay payment-links disable ${PLINK.example} --live --yes`],
      operationId: 'disablePaymentLink',
      jsonShape: 'the PaymentLink object with status "disabled"',
    },
  ],
});
