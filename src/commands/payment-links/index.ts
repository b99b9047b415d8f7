// pay payment-links: a URL a payer opens to pay crypto into a wallet.
import { type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { STATUS_FILTER, columns, getVerb, idArg, listVerb, pickOf } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { operationHelp } from '../../shared/rules.js';

const PLINK_SHOWN = 'AMOUNT amount money @asset, STATUS status status, EXPIRES expires_at time';
const EX_PLINK = 'plink_0123456789abcdefghijklmn';

export const paymentLinks: GroupSpec = fromContract(OPERATIONS, {
  name: 'payment-links',
  summary: 'Create and manage crypto payment links into a wallet',
  noun: 'payment link',
  examples: [
    'pay payment-links create --wallet wal_0123456789abcdefghijklmn --amount 49.99 --asset USDC --json',
    'pay payment-links disable plink_0123456789abcdefghijklmn',
  ],
  description: 'A link is active until it is paid, disabled, or passes its expiry.',
  columns: columns(
    'ID id 1, WALLET wallet_id 7, AMOUNT amount 2 money @asset, STATUS status 3 status, URL url 4 id, EXPIRES expires_at 5 time, CREATED created_at 6 time',
  ),
  verbs: [
    {
      name: 'create',
      summary: 'Create a payment link for an amount of a crypto asset',
      description: `The amount has at most the asset's decimals (BTC 8, ETH 18, USDC 6, USDT 6).\n${operationHelp('createPaymentLink')}`,
      examples: [
        'pay payment-links create --wallet wal_0123456789abcdefghijklmn --amount 0.015 --asset BTC',
        'pay payment-links create --wallet wal_0123456789abcdefghijklmn --amount 49.99 --asset USDC --description "Pro plan" --expires-at 2030-01-31T12:00:00Z --json',
      ],
      operationId: 'createPaymentLink',
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
    },
    listVerb(
      'PaymentLink',
      'List payment links, newest first',
      ['pay payment-links list', 'pay payment-links list --wallet wal_0123456789abcdefghijklmn --status active --json'],
      [{ flags: '--wallet <id>', query: 'wallet_id', description: 'only links into this wallet' }, STATUS_FILTER],
    ),
    getVerb(
      'PaymentLink',
      idArg('payment link', 'plink_', pickOf('payment-links', 'payment links', PLINK_SHOWN)),
      'Show one payment link',
      [`pay payment-links get ${EX_PLINK}`, `pay payment-links get ${EX_PLINK} --fields url,status --json`],
    ),
    {
      name: 'disable',
      arg: idArg('payment link', 'plink_', pickOf('payment-links', 'active payment links', PLINK_SHOWN, ['active'])),
      summary: 'Disable an active payment link (it can no longer be paid)',
      examples: [`pay payment-links disable ${EX_PLINK}`, `pay payment-links disable ${EX_PLINK} --live --yes`],
      operationId: 'disablePaymentLink',
      jsonShape: 'the PaymentLink object with status "disabled"',
    },
  ],
});
