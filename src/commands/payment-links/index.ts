// pay payment-links: a URL a payer opens to pay crypto into a wallet.
import { CREATED_RANGE, CREATED_RANGE_CHECK, type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { OPERATIONS } from './operations.js';
import { operationHelp } from '../../shared/rules.js';

const PLINK_ID = { name: '<id>', description: 'payment link id (plink_…)', idPrefix: 'plink_' };
const PLINK_SHOWN = [
  { header: 'AMOUNT', path: 'amount', kind: 'money', currencyPath: 'asset' },
  { header: 'STATUS', path: 'status', kind: 'status' },
  { header: 'EXPIRES', path: 'expires_at', kind: 'time' },
] as const;
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
  columns: [
    { header: 'ID', path: 'id', priority: 1 },
    { header: 'WALLET', path: 'wallet_id', priority: 7 },
    { header: 'AMOUNT', path: 'amount', kind: 'money', currencyPath: 'asset', priority: 2 },
    { header: 'STATUS', path: 'status', kind: 'status', priority: 3 },
    { header: 'URL', path: 'url', kind: 'id', priority: 4 },
    { header: 'EXPIRES', path: 'expires_at', kind: 'time', priority: 5 },
    { header: 'CREATED', path: 'created_at', kind: 'time', priority: 6 },
  ],
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
        {
          flags: '--wallet <id>',
          field: 'wallet_id',
          description: 'wallet that receives the payment (wal_…)',
        },
        {
          flags: '--amount <amount>',
          field: 'amount',
          currencyFrom: 'asset',
          currencyField: 'asset',
          description: 'amount of the asset, e.g. 0.015',
        },
        { flags: '--asset <asset>', field: 'asset', description: 'crypto asset' },
        { flags: '--description <text>', field: 'description', description: 'shown to the payer' },
        {
          flags: '--expires-at <time>',
          field: 'expires_at',
          description: 'expiry as an RFC 3339 time, e.g. 2030-01-31T12:00:00Z',
        },
      ],
      jsonShape: 'the created PaymentLink object ({id: "plink_…", wallet_id, amount, asset, url, status, expires_at, …})',
    },
    {
      name: 'list',
      summary: 'List payment links, newest first',
      examples: ['pay payment-links list', 'pay payment-links list --wallet wal_0123456789abcdefghijklmn --status active --json'],
      operationId: 'listPaymentLinks',
      flags: [
        { flags: '--wallet <id>', query: 'wallet_id', description: 'only links into this wallet' },
        {
          flags: '--status <status>',
          query: 'status',
          description: 'only this status',
        },
        ...CREATED_RANGE,
      ],
      constraints: [CREATED_RANGE_CHECK],
      jsonShape: 'an array of PaymentLink objects',
    },
    {
      name: 'get',
      arg: { ...PLINK_ID, pick: { list: 'payment-links', show: PLINK_SHOWN, what: 'payment links' } },
      summary: 'Show one payment link',
      examples: [`pay payment-links get ${EX_PLINK}`, `pay payment-links get ${EX_PLINK} --fields url,status --json`],
      operationId: 'getPaymentLink',
      jsonShape: 'the PaymentLink object',
    },
    {
      name: 'disable',
      arg: {
        ...PLINK_ID,
        pick: {
          list: 'payment-links',
          query: { status: 'active' },
          where: { status: ['active'] },
          show: PLINK_SHOWN,
          what: 'active payment links',
        },
      },
      summary: 'Disable an active payment link (it can no longer be paid)',
      examples: [`pay payment-links disable ${EX_PLINK}`, `pay payment-links disable ${EX_PLINK} --live --yes`],
      operationId: 'disablePaymentLink',
      jsonShape: 'the PaymentLink object with status "disabled"',
    },
  ],
});
