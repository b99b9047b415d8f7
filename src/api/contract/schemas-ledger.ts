// Payment links, wallets, FX, transactions and webhook events.
import {
  FX_QUOTE_STATUSES,
  PAYMENT_LINK_STATUSES,
  TRANSACTION_DIRECTIONS,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
} from '../../shared/enums.js';
import { DATE_TIME_PATTERN } from '../../shared/patterns.js';
import { enumOf, idOf, listOf, nullable, objectOf, requestBody, resource, schemaRef, text, timestamp, view } from './common.js';
import { ASSETS, NETWORKS, NETWORKS_BY_ASSET, optionalText } from './schemas-shared.js';
import type { Schema } from './types.js';
import { DELIVERY_STATUSES, EVENT_TYPES } from '../../shared/events.js';

/** Schemas an event's `data.object` can be. */
const EVENT_OBJECTS = [
  'Customer',
  'KycVerification',
  'FeatureStatus',
  'Account',
  'ExternalAccount',
  'Transfer',
  'Card',
  'Collection',
  'PaymentLink',
  'Wallet',
  'FxTrade',
];

const walletId = idOf('wal_', 'The wallet.');
const paymentLinkFields = {
  wallet_id: idOf('wal_', 'The wallet that receives the payment.'),
  amount: schemaRef('PositiveAmount'),
  asset: schemaRef('Asset', "Must equal the wallet's asset."),
  description: text('Free text shown to the payer.', 500),
  expires_at: { ...timestamp('When the link expires (RFC 3339, in the future).'), pattern: DATE_TIME_PATTERN },
};

const walletFields = {
  customer_id: idOf('cus_', 'The owner.'),
  asset: schemaRef('Asset'),
  network: enumOf([...NETWORKS], 'Network; pairs: BTC/bitcoin, ETH/ethereum, USDC/ethereum|polygon, USDT/ethereum|tron.'),
  label: text('A label for people.', 100),
};

/** One `if asset = X then network ∈ …` per asset. */
const assetNetworkPairs = ASSETS.map((asset) => ({
  if: { properties: { asset: { const: asset } }, required: ['asset'] },
  // additionalProperties: true: Redocly checks examples against a subschema without it as closed (DESIGN.md "Tool conventions").
  then: { properties: { network: { enum: [...NETWORKS_BY_ASSET[asset]] } }, additionalProperties: true },
}));

const fxAmounts = {
  rate: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'Target units per source unit, as a decimal string.' },
  source_amount: schemaRef('Amount', 'Amount debited, in `source_currency`.'),
  target_amount: schemaRef('Amount', 'Amount credited, in `target_currency`.'),
  source_currency: schemaRef('Currency'),
  target_currency: schemaRef('Currency'),
};

const deliveryAttempt = objectOf(
  {
    id: idOf('whd_', 'Delivery attempt id.'),
    attempted_at: timestamp('When the POST was sent.'),
    response_code: nullable(
      { type: 'integer', minimum: 100, maximum: 599 },
      'HTTP status the endpoint answered; null when there was no answer.',
    ),
    duration_ms: { type: 'integer', minimum: 0, description: 'How long the attempt took.' },
    error: nullable({ type: 'string' }, 'Connection error or timeout, if any.'),
    url: { type: 'string', format: 'uri', description: 'Where it was sent.' },
  },
  ['id', 'attempted_at', 'response_code', 'duration_ms', 'error', 'url'],
  { description: 'One delivery attempt of an event.' },
);

const eventFields = {
  type: enumOf(EVENT_TYPES, 'What happened.'),
  data: objectOf(
    { object: { anyOf: EVENT_OBJECTS.map((name) => schemaRef(name)), description: 'The resource as it is after the change.' } },
    ['object'],
    { description: 'The event payload.' },
  ),
};

export const ledgerSchemas: Record<string, Schema> = {
  PaymentLinkCreate: requestBody('A shareable crypto payment link.', paymentLinkFields, ['wallet_id', 'amount', 'asset']),
  PaymentLink: resource({
    object: 'payment_link',
    prefix: 'plink_',
    description:
      'A payment link. States: `active` → `disabled` (action) | `expired` (the clock passes `expires_at`) | `paid`; the others are final.',
    properties: {
      ...paymentLinkFields,
      amount: schemaRef('Amount'),
      description: optionalText('Free text shown to the payer.', 500),
      expires_at: nullable(paymentLinkFields.expires_at),
      url: { type: 'string', format: 'uri', description: 'The link to share with the payer.' },
      status: enumOf(PAYMENT_LINK_STATUSES, 'Payment link state.'),
    },
    required: ['wallet_id', 'amount', 'asset', 'url', 'status'],
  }),
  PaymentLinkList: listOf('PaymentLink', 'payment links'),

  WalletCreate: requestBody(
    'A crypto wallet. The network must suit the asset, else 422 `validation_error`.',
    walletFields,
    ['customer_id', 'asset', 'network'],
    {
      allOf: assetNetworkPairs,
    },
  ),
  Wallet: resource({
    object: 'wallet',
    prefix: 'wal_',
    description: 'A crypto wallet. Status is always `active`.',
    properties: {
      ...walletFields,
      label: nullable(walletFields.label),
      address: text('The on-chain deposit address.', 128),
      balance: schemaRef('Balance'),
      status: enumOf(['active'], 'Wallet state.'),
    },
    required: ['customer_id', 'asset', 'network', 'address', 'balance', 'status'],
  }),
  WalletList: listOf('Wallet', 'wallets'),

  FxRates: view(
    'fx_rates',
    'Exchange rates from one base currency.',
    {
      base: schemaRef('Currency'),
      rates: {
        type: 'object',
        propertyNames: { pattern: '^[A-Z]{3,5}$' },
        additionalProperties: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' },
        description: 'Units of each currency per 1 `base`, as decimal strings (`{"EUR": "0.92"}`).',
      },
      as_of: timestamp('When the rates were taken.'),
    },
    ['base', 'rates', 'as_of'],
  ),
  FxQuoteCreate: requestBody(
    'Ask for a quote. Give exactly one of `source_amount` and `target_amount`; `target_currency` must differ from `source_currency` (else 422 `validation_error`).',
    {
      source_currency: schemaRef('Currency'),
      target_currency: schemaRef('Currency'),
      source_amount: schemaRef('PositiveAmount', 'Amount to sell.'),
      target_amount: schemaRef('PositiveAmount', 'Amount to buy.'),
    },
    ['source_currency', 'target_currency'],
    { oneOf: [{ required: ['source_amount'] }, { required: ['target_amount'] }] },
  ),
  FxQuote: resource({
    object: 'fx_quote',
    prefix: 'fxq_',
    description: 'A locked rate, valid for 60 seconds. States: `open` → `used` (traded) | `expired` (past `expires_at`).',
    properties: {
      ...fxAmounts,
      fee: schemaRef('Amount', 'Fee, in `source_currency`.'),
      expires_at: timestamp('60 seconds after creation.'),
      status: enumOf(FX_QUOTE_STATUSES, 'Quote state.'),
    },
    required: ['source_currency', 'target_currency', 'rate', 'source_amount', 'target_amount', 'fee', 'expires_at', 'status'],
  }),
  FxTradeCreate: requestBody(
    'Execute a quote between two accounts. Expired → 409 `quote_expired`; already traded → 409 `quote_used`; account currencies ' +
      'not matching the quote → 422 `currency_mismatch`; balance too low → 422 `insufficient_funds`.',
    {
      quote_id: idOf('fxq_', 'The quote to execute.'),
      source_account_id: idOf('acc_', 'Account in `source_currency`, debited.'),
      target_account_id: idOf('acc_', 'Account in `target_currency`, credited.'),
    },
    ['quote_id', 'source_account_id', 'target_account_id'],
  ),
  FxTrade: resource({
    object: 'fx_trade',
    prefix: 'fxt_',
    mutable: false,
    description: 'An executed currency exchange. Status is always `completed`.',
    properties: {
      quote_id: idOf('fxq_', 'The quote executed.'),
      source_account_id: idOf('acc_', 'Account debited.'),
      target_account_id: idOf('acc_', 'Account credited.'),
      ...fxAmounts,
      status: enumOf(['completed'], 'Trade state.'),
    },
    required: [
      'quote_id',
      'source_account_id',
      'target_account_id',
      'source_currency',
      'target_currency',
      'rate',
      'source_amount',
      'target_amount',
      'status',
    ],
  }),
  FxTradeList: listOf('FxTrade', 'FX trades'),

  Transaction: resource({
    object: 'transaction',
    prefix: 'txn_',
    description:
      'One ledger posting to a customer-visible account or wallet. Every ledger entry (`entry_id`) balances to zero across all its ' +
      'postings, system accounts (clearing, external, fx per currency) included; system postings are not listed.',
    properties: {
      account_id: nullable(idOf('acc_', 'The account posted to.')),
      wallet_id: nullable(walletId),
      entry_id: { type: 'string', minLength: 1, description: 'The ledger entry this posting belongs to.' },
      type: enumOf(TRANSACTION_TYPES, 'What caused it.'),
      direction: enumOf(TRANSACTION_DIRECTIONS, 'Money in (credit) or out (debit).'),
      amount: schemaRef('Amount', 'Always positive; `direction` gives the sign.'),
      currency: schemaRef('CurrencyOrAsset'),
      status: enumOf(TRANSACTION_STATUSES, 'Posting state.'),
      balance_after: schemaRef('SignedAmount', 'Balance of the account or wallet after this posting.'),
      description: nullable({ type: 'string' }, 'Free text.'),
      source: objectOf(
        {
          object: { type: 'string', description: 'Type of the causing object (`transfer`, `collection`, `fx_trade`).' },
          id: { type: 'string', description: 'Its id.' },
        },
        ['object', 'id'],
        { description: 'The object that caused the posting.' },
      ),
    },
    required: [
      'account_id',
      'wallet_id',
      'entry_id',
      'type',
      'direction',
      'amount',
      'currency',
      'status',
      'balance_after',
      'description',
      'source',
    ],
  }),
  TransactionList: listOf('Transaction', 'transactions'),

  EventDelivery: objectOf(
    {
      status: enumOf(
        DELIVERY_STATUSES,
        'Delivery state: `pending` → `delivered` | `failed` (retries exhausted); `disabled` when no webhook URL is set.',
      ),
      attempts: { type: 'integer', minimum: 0, description: 'Number of attempts so far.' },
      last_response_code: nullable({ type: 'integer', minimum: 100, maximum: 599 }, 'HTTP status of the last attempt.'),
      last_attempt_at: nullable(timestamp('When the last attempt was made.')),
      next_attempt_at: nullable(
        timestamp(
          'When the next attempt is due (retries at 5 s, 30 s, 2 min, 10 min); `null` while `pending` when none is scheduled: no webhook URL is set, and the event is delivered once one is.',
        ),
      ),
    },
    ['status', 'attempts', 'last_response_code', 'last_attempt_at', 'next_attempt_at'],
    { description: 'Delivery state of an event to the webhook URL.' },
  ),
  Event: resource({
    object: 'event',
    prefix: 'evt_',
    mutable: false,
    description: 'A webhook event: something that happened, and how its delivery went.',
    properties: { ...eventFields, delivery: schemaRef('EventDelivery') },
    required: ['type', 'data', 'delivery'],
  }),
  EventWithAttempts: {
    allOf: [
      schemaRef('Event'),
      objectOf({ attempts: { type: 'array', items: deliveryAttempt, description: 'Every delivery attempt, oldest first.' } }, ['attempts']),
    ],
    description: 'An event with its delivery attempts.',
  },
  EventList: listOf('Event', 'events'),
  WebhookPayload: objectOf(
    { id: idOf('evt_', 'The event id (also the `webhook-id` header).'), created_at: timestamp('When the event happened.'), ...eventFields },
    ['id', 'type', 'created_at', 'data'],
    { description: 'The body POSTed to the webhook URL.' },
  ),
};
