// pay payment-links: a URL a payer opens to pay crypto into a wallet.
import { CREATED_RANGE, CREATED_RANGE_CHECK, type GroupSpec } from '../../cmdutil/spec.js';
import { ASSETS } from '../../shared/domain.js';
import { operationHelp } from '../../shared/rules.js';

const PLINK_ID = { name: '<id>', description: 'payment link id (plink_…)', idPrefix: 'plink_' };
const PLINK_SHOWN = [
  { header: 'AMOUNT', path: 'amount', kind: 'money', currencyPath: 'asset' },
  { header: 'STATUS', path: 'status', kind: 'status' },
  { header: 'EXPIRES', path: 'expires_at', kind: 'time' },
] as const;
const EX_PLINK = 'plink_0123456789abcdefghijklmn';

export const paymentLinks: GroupSpec = {
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
      method: 'POST',
      path: 'payment-links',
      kind: 'create',
      creates: 'plink_',
      body: true,
      flags: [
        {
          flags: '--wallet <id>',
          field: 'wallet_id',
          kind: 'id',
          idPrefix: 'wal_',
          description: 'wallet that receives the payment (wal_…)',
          required: true,
        },
        {
          flags: '--amount <amount>',
          field: 'amount',
          kind: 'amount',
          currencyFrom: 'asset',
          currencyField: 'asset',
          description: 'amount of the asset, e.g. 0.015',
          required: true,
        },
        { flags: '--asset <asset>', field: 'asset', kind: 'currency', choices: ASSETS, description: 'crypto asset', required: true },
        { flags: '--description <text>', field: 'description', description: 'shown to the payer' },
        {
          flags: '--expires-at <time>',
          field: 'expires_at',
          kind: 'timestamp',
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
      method: 'GET',
      path: 'payment-links',
      kind: 'list',
      flags: [
        { flags: '--wallet <id>', query: 'wallet_id', kind: 'id', idPrefix: 'wal_', description: 'only links into this wallet' },
        {
          flags: '--status <status>',
          query: 'status',
          kind: 'enum',
          choices: ['active', 'disabled', 'expired', 'paid'],
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
      method: 'GET',
      path: 'payment-links/{payment_link_id}',
      kind: 'get',
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
      method: 'POST',
      path: 'payment-links/{payment_link_id}/disable',
      kind: 'action',
      jsonShape: 'the PaymentLink object with status "disabled"',
    },
  ],
};
