// Operations of payment links, wallets, FX, transactions and webhook events.
import { PAYMENT_LINK_STATUSES, TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../shared/enums.js';
import { FIAT_CURRENCIES } from '../../shared/domain.js';
import { action, create, enumFilter, idFilter, listAndGet, schemaFilter, TIME_FILTERS, type OpSpec } from './operations.js';
import {
  EVENT_EXAMPLE,
  EVENT_RESENT_EXAMPLE,
  EVENT_WITH_ATTEMPTS_EXAMPLE,
  FX_QUOTE_CREATE_EXAMPLE,
  FX_QUOTE_EXAMPLE,
  FX_RATES_EXAMPLE,
  FX_TRADE_CREATE_EXAMPLE,
  FX_TRADE_EXAMPLE,
  page,
  PAYMENT_LINK_CREATE_EXAMPLE,
  PAYMENT_LINK_EXAMPLE,
  TRANSACTION_EXAMPLE,
  WALLET_CREATE_EXAMPLE,
  WALLET_EXAMPLE,
} from './examples.js';
import { queryParam } from './parameters.js';
import { DELIVERY_STATUSES, EVENT_TYPES } from '../../shared/events.js';

export const ledgerPaths: Array<readonly [string, OpSpec]> = [
  create({
    path: 'payment-links',
    id: 'createPaymentLink',
    tag: 'payment-links',
    summary: 'Create a payment link',
    description:
      'Creates a shareable link to pay `amount` of `asset` into a wallet. States: `active` → `disabled` (action) | `expired` (the clock ' +
      'passes `expires_at`) | `paid`; the others are final. Emits `payment_link.created`.',
    body: 'PaymentLinkCreate',
    result: 'PaymentLink',
    requestExample: PAYMENT_LINK_CREATE_EXAMPLE,
    responseExample: PAYMENT_LINK_EXAMPLE,
  }),
  ...listAndGet({
    path: 'payment-links',
    tag: 'payment-links',
    schema: 'PaymentLink',
    noun: 'payment link',
    plural: 'payment links',
    param: 'PaymentLinkId',
    listId: 'listPaymentLinks',
    getId: 'getPaymentLink',
    example: PAYMENT_LINK_EXAMPLE,
    filters: [idFilter('wallet_id', 'wal_', 'wallet'), enumFilter('status', PAYMENT_LINK_STATUSES)],
  }),
  action({
    path: 'payment-links',
    verb: 'disable',
    id: 'disablePaymentLink',
    tag: 'payment-links',
    summary: 'Disable a payment link',
    description: '`active` → `disabled`; any other state → 409 `invalid_state`. Emits `payment_link.disabled`.',
    result: 'PaymentLink',
    param: 'PaymentLinkId',
    responseExample: { ...PAYMENT_LINK_EXAMPLE, updated_at: '2026-01-15T09:31:00.000Z', status: 'disabled' },
  }),

  create({
    path: 'wallets',
    id: 'createWallet',
    tag: 'wallets',
    summary: 'Create a crypto wallet',
    description:
      'Creates a wallet for a customer. Asset/network pairs: BTC/bitcoin, ETH/ethereum, USDC/ethereum|polygon, USDT/ethereum|tron. Emits `wallet.created`.',
    body: 'WalletCreate',
    result: 'Wallet',
    requestExample: WALLET_CREATE_EXAMPLE,
    responseExample: WALLET_EXAMPLE,
  }),
  ...listAndGet({
    path: 'wallets',
    tag: 'wallets',
    schema: 'Wallet',
    noun: 'wallet',
    plural: 'wallets',
    param: 'WalletId',
    listId: 'listWallets',
    getId: 'getWallet',
    example: WALLET_EXAMPLE,
    filters: [idFilter('customer_id', 'cus_', 'customer'), schemaFilter('asset', 'Asset')],
  }),

  [
    '/fx/rates',
    {
      id: 'getFxRates',
      tag: 'fx',
      kind: 'read',
      summary: 'Get exchange rates',
      description: 'Current rates from `base` to each currency (all supported ones, or `symbols`). Rates are decimal strings.',
      result: 'FxRates',
      responseExample: FX_RATES_EXAMPLE,
      query: [
        { ...schemaFilter('base', 'Currency'), description: 'Base currency (default USD).' },
        queryParam('symbols', 'Comma-separated currency codes to include, each a supported `Currency` (default: all supported).', {
          type: 'string',
          pattern: `^(?:${FIAT_CURRENCIES.join('|')})(?:,(?:${FIAT_CURRENCIES.join('|')}))*$`,
          examples: ['EUR,GBP'],
        }),
      ],
    },
  ],
  create({
    path: 'fx/quotes',
    id: 'createFxQuote',
    tag: 'fx',
    summary: 'Get an FX quote',
    description:
      'Locks a rate for 60 seconds. Give exactly one of `source_amount` and `target_amount`. States: `open` → `used` (traded) | `expired`.',
    body: 'FxQuoteCreate',
    result: 'FxQuote',
    requestExample: FX_QUOTE_CREATE_EXAMPLE,
    responseExample: FX_QUOTE_EXAMPLE,
  }),
  [
    '/fx/quotes/{quote_id}',
    {
      id: 'getFxQuote',
      tag: 'fx',
      kind: 'get',
      summary: 'Get an FX quote',
      description: 'One quote by id, with its current status.',
      result: 'FxQuote',
      pathParams: ['QuoteId'],
      responseExample: FX_QUOTE_EXAMPLE,
    },
  ],
  create({
    path: 'fx/trades',
    id: 'createFxTrade',
    tag: 'fx',
    summary: 'Execute an FX trade',
    description:
      'Executes an open quote: debits `source_amount` from the source account, credits `target_amount` to the target account. ' +
      "Expired → 409 `quote_expired`; already used → 409 `quote_used`; account currencies differ from the quote's → 422 `currency_mismatch`; " +
      'balance too low → 422 `insufficient_funds`. Emits `fx_trade.completed`.',
    body: 'FxTradeCreate',
    result: 'FxTrade',
    requestExample: FX_TRADE_CREATE_EXAMPLE,
    responseExample: FX_TRADE_EXAMPLE,
  }),
  ...listAndGet({
    path: 'fx/trades',
    tag: 'fx',
    schema: 'FxTrade',
    noun: 'FX trade',
    plural: 'FX trades',
    param: 'TradeId',
    listId: 'listFxTrades',
    getId: 'getFxTrade',
    example: FX_TRADE_EXAMPLE,
    filters: [{ ...idFilter('account_id', 'acc_', 'account'), description: 'Only trades debiting or crediting this account.' }],
  }),

  ...listAndGet({
    path: 'transactions',
    tag: 'transactions',
    schema: 'Transaction',
    noun: 'transaction',
    plural: 'transactions',
    param: 'TransactionId',
    listId: 'listTransactions',
    getId: 'getTransaction',
    example: TRANSACTION_EXAMPLE,
    filters: [
      idFilter('account_id', 'acc_', 'account'),
      idFilter('wallet_id', 'wal_', 'wallet'),
      enumFilter('type', TRANSACTION_TYPES, 'transaction type'),
      enumFilter('status', TRANSACTION_STATUSES),
    ],
    listNote: 'One transaction per ledger posting to a customer-visible account or wallet.',
  }),

  [
    '/webhooks/events',
    {
      id: 'listWebhookEvents',
      tag: 'webhooks',
      kind: 'list',
      summary: 'List webhook events',
      description:
        'The delivery history: events, newest first, each with its delivery state. `object_id` picks the events about one object ' +
        '(whose `data.object.id` it is; for a `feature_status`, which has no id, its `customer_id`).',
      result: 'EventList',
      responseExample: page(EVENT_EXAMPLE),
      query: [
        enumFilter('type', EVENT_TYPES, 'event type'),
        enumFilter('status', DELIVERY_STATUSES, 'delivery status'),
        queryParam('object_id', 'Only the events about this object: its id (`tr_…`, `cus_…`, …).', {
          type: 'string',
          pattern: '^[a-z]{1,10}_[0-9a-z]{24}$',
          examples: ['tr_0123456789abcdefghijklmn'],
        }),
        ...TIME_FILTERS,
      ],
    },
  ],
  [
    '/webhooks/events/{event_id}',
    {
      id: 'getWebhookEvent',
      tag: 'webhooks',
      kind: 'get',
      summary: 'Get a webhook event',
      description: 'One event with its payload, delivery state and every delivery attempt.',
      result: 'EventWithAttempts',
      pathParams: ['EventId'],
      responseExample: EVENT_WITH_ATTEMPTS_EXAMPLE,
    },
  ],
  [
    '/webhooks/events/{event_id}/resend',
    {
      id: 'resendWebhookEvent',
      tag: 'webhooks',
      kind: 'accepted',
      summary: 'Resend a webhook event',
      description: 'Queues the event for delivery again (its delivery goes back to `pending`); answers 202 with the event.',
      result: 'Event',
      pathParams: ['EventId'],
      responseExample: EVENT_RESENT_EXAMPLE,
    },
  ],
];
