// Example bodies used in the document (and by tests): every operation's request body (where it
// takes one) and its success answer, as the emulator would give them. Tests validate each against
// its schema, serve them from Prism's mock, and send every request example to the emulator with
// the example ids replaced by real ones: ids here are `<prefix>` + EXAMPLE_SUFFIX (or
// SECOND_SUFFIX where a body names two objects of one kind).
import { exampleId } from './common.js';

const id = exampleId;
/** A second id of the same kind (the FX trade's target account). */
export const SECOND_SUFFIX = 'abcdefghijklmnopqrstuvwx';
const id2 = (prefix: string): string => `${prefix}${SECOND_SUFFIX}`;

const STAMP = '2026-01-15T09:30:00.000Z';
const LATER = '2026-01-15T09:31:00.000Z';
const common = (prefix: string, object: string, mutable = true) => ({
  id: id(prefix),
  object,
  livemode: false,
  created_at: STAMP,
  ...(mutable ? { updated_at: STAMP } : {}),
});
/** The list envelope around one item, as the last page. */
export const page = (item: unknown) => ({ object: 'list', data: [item], has_more: false, next_cursor: null }) as const;

// Customers, KYC and features.

/** A `POST /customers` body with every seed field. */
export const CUSTOMER_CREATE_EXAMPLE = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  middle_name: 'King',
  email: 'ada@example.com',
  phone: '+447700900123',
  type: 'individual',
  gender: 'female',
  date_of_birth: '1990-12-10',
  address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA', state: 'GB-LND' },
} as const;

export const CUSTOMER_EXAMPLE = {
  ...common('cus_', 'customer'),
  ...CUSTOMER_CREATE_EXAMPLE,
  kyc_status: 'not_started',
} as const;

export const CUSTOMER_UPDATE_EXAMPLE = { email: 'ada.lovelace@example.com' } as const;

const KYC_DOCUMENT_FIELDS = { type: 'passport', country: 'GB', number: '123456789' } as const;
export const KYC_VERIFICATION_CREATE_EXAMPLE = { level: 'basic' } as const;
export const KYC_DOCUMENT_CREATE_EXAMPLE = KYC_DOCUMENT_FIELDS;
/** An upgrade to `enhanced` (a customer approved at `basic` may start only that). */
export const LEGACY_KYC_VERIFY_EXAMPLE = { customer_id: id('cus_'), level: 'enhanced' } as const;
export const LEGACY_KYC_DOCUMENT_CREATE_EXAMPLE = { customer_id: id('cus_'), ...KYC_DOCUMENT_FIELDS } as const;

export const KYC_VERIFICATION_EXAMPLE = {
  ...common('kyc_', 'kyc_verification'),
  customer_id: id('cus_'),
  level: 'basic',
  status: 'pending',
  documents: [],
  submitted_at: null,
  decided_at: null,
  rejection_reason: null,
} as const;

export const KYC_DOCUMENT_EXAMPLE = {
  ...common('doc_', 'kyc_document'),
  verification_id: id('kyc_'),
  customer_id: id('cus_'),
  type: 'passport',
  country: 'GB',
  number_last4: '6789',
  file_name: null,
  status: 'received',
} as const;

/** The verification once its first document is in. */
export const KYC_IN_REVIEW_EXAMPLE = {
  ...KYC_VERIFICATION_EXAMPLE,
  updated_at: LATER,
  status: 'in_review',
  documents: [KYC_DOCUMENT_EXAMPLE],
  submitted_at: STAMP,
} as const;

export const FEATURE_EXAMPLE = {
  object: 'feature',
  key: 'fx',
  name: 'Foreign exchange',
  description: 'Exchange currencies between accounts.',
  requires_kyc: false,
} as const;

export const FEATURE_STATUS_EXAMPLE = {
  object: 'feature_status',
  customer_id: id('cus_'),
  feature: 'fx',
  eligible: true,
  active: false,
  reasons: [],
  activated_at: null,
} as const;

// Accounts, external accounts, transfers, cards, collections.

export const ACCOUNT_CREATE_EXAMPLE = { customer_id: id('cus_'), currency: 'USD', nickname: 'Operating' } as const;

export const ACCOUNT_EXAMPLE = {
  ...common('acc_', 'account'),
  customer_id: id('cus_'),
  currency: 'USD',
  type: 'checking',
  nickname: 'Operating',
  status: 'active',
  account_number: '0123456789',
  balance: { available: '125.00', pending: '0.00', currency: 'USD' },
} as const;

export const ACCOUNT_LIST_EXAMPLE = page(ACCOUNT_EXAMPLE);

const ZERO_BALANCE = { available: '0.00', pending: '0.00', currency: 'USD' } as const;
export const NEW_ACCOUNT_EXAMPLE = { ...ACCOUNT_EXAMPLE, balance: ZERO_BALANCE } as const;
export const CLOSED_ACCOUNT_EXAMPLE = { ...ACCOUNT_EXAMPLE, updated_at: LATER, status: 'closed', balance: ZERO_BALANCE } as const;

export const EXTERNAL_ACCOUNT_CREATE_EXAMPLE = {
  customer_id: id('cus_'),
  account_holder_name: 'Ada Lovelace',
  bank_name: 'Example Bank',
  account_number: '12345678',
  routing_number: '021000021',
  country: 'US',
  currency: 'USD',
} as const;

export const EXTERNAL_ACCOUNT_EXAMPLE = {
  ...common('ea_', 'external_account'),
  customer_id: id('cus_'),
  account_holder_name: 'Ada Lovelace',
  bank_name: 'Example Bank',
  country: 'US',
  currency: 'USD',
  account_number_last4: '5678',
  routing_number: '021000021',
  iban_last4: null,
  status: 'active',
} as const;

export const TRANSFER_CREATE_EXAMPLE = {
  source_account_id: id('acc_'),
  destination_id: id('ea_'),
  amount: '25.00',
  currency: 'USD',
  description: 'Invoice 42',
  reference: 'INV-42',
} as const;

export const TRANSFER_EXAMPLE = {
  ...common('tr_', 'transfer'),
  ...TRANSFER_CREATE_EXAMPLE,
  destination_type: 'external_account',
  status: 'pending',
  failure_reason: null,
  completed_at: null,
} as const;

export const CARD_CREATE_EXAMPLE = {
  customer_id: id('cus_'),
  account_id: id('acc_'),
  type: 'virtual',
  name_on_card: 'ADA LOVELACE',
  spending_limit: { amount: '1000.00', interval: 'monthly' },
} as const;

export const CARD_EXAMPLE = {
  ...common('card_', 'card'),
  ...CARD_CREATE_EXAMPLE,
  shipping_address: null,
  brand: 'visa',
  last4: '4242',
  exp_month: 11,
  exp_year: 2029,
  status: 'active',
} as const;

export const COLLECTION_CREATE_EXAMPLE = {
  account_id: id('acc_'),
  amount: '500.00',
  currency: 'USD',
  method: 'card',
  description: 'Top-up',
} as const;

export const COLLECTION_EXAMPLE = {
  ...common('col_', 'collection'),
  ...COLLECTION_CREATE_EXAMPLE,
  customer_id: null,
  mobile_money: null,
  status: 'pending',
  failure_reason: null,
  completed_at: null,
} as const;

// Payment links, wallets, FX, transactions, webhook events.

export const WALLET_CREATE_EXAMPLE = { customer_id: id('cus_'), asset: 'USDC', network: 'polygon', label: 'Treasury' } as const;

export const WALLET_EXAMPLE = {
  ...common('wal_', 'wallet'),
  ...WALLET_CREATE_EXAMPLE,
  address: '0x42bd2663a9ad1705124482d83b70b46eb8abcdc4',
  balance: { available: '0.000000', pending: '0.000000', currency: 'USDC' },
  status: 'active',
} as const;

export const PAYMENT_LINK_CREATE_EXAMPLE = { wallet_id: id('wal_'), amount: '25.00', asset: 'USDC', description: 'Order 42' } as const;

export const PAYMENT_LINK_EXAMPLE = {
  ...common('plink_', 'payment_link'),
  ...PAYMENT_LINK_CREATE_EXAMPLE,
  expires_at: null,
  url: `https://pay.dev/l/${id('plink_')}`,
  status: 'active',
} as const;

export const FX_RATES_EXAMPLE = { object: 'fx_rates', base: 'USD', rates: { EUR: '0.92', GBP: '0.79' }, as_of: STAMP } as const;

const FX_PAIR = { source_currency: 'USD', target_currency: 'EUR' } as const;

export const FX_QUOTE_CREATE_EXAMPLE = { ...FX_PAIR, source_amount: '100.00' } as const;

const FX_AMOUNTS = { ...FX_PAIR, rate: '0.92', source_amount: '100.00', target_amount: '91.54' } as const;

export const FX_QUOTE_EXAMPLE = {
  ...common('fxq_', 'fx_quote'),
  ...FX_AMOUNTS,
  fee: '0.50',
  expires_at: '2026-01-15T09:31:00.000Z',
  status: 'open',
} as const;

export const FX_TRADE_CREATE_EXAMPLE = { quote_id: id('fxq_'), source_account_id: id('acc_'), target_account_id: id2('acc_') } as const;

export const FX_TRADE_EXAMPLE = {
  ...common('fxt_', 'fx_trade', false),
  ...FX_TRADE_CREATE_EXAMPLE,
  ...FX_AMOUNTS,
  status: 'completed',
} as const;

export const TRANSACTION_EXAMPLE = {
  ...common('txn_', 'transaction'),
  account_id: id('acc_'),
  wallet_id: null,
  entry_id: 'ent_0123456789abcdefghijklmn',
  type: 'collection',
  direction: 'credit',
  amount: '500.00',
  currency: 'USD',
  status: 'posted',
  balance_after: '500.00',
  description: 'Top-up',
  source: { object: 'collection', id: id('col_') },
} as const;

export const EVENT_EXAMPLE = {
  ...common('evt_', 'event', false),
  type: 'customer.created',
  data: { object: CUSTOMER_EXAMPLE },
  delivery: {
    status: 'delivered',
    attempts: 1,
    last_response_code: 200,
    last_attempt_at: '2026-01-15T09:30:01.000Z',
    next_attempt_at: null,
  },
} as const;

export const EVENT_WITH_ATTEMPTS_EXAMPLE = {
  ...EVENT_EXAMPLE,
  attempts: [
    {
      id: id('whd_'),
      attempted_at: '2026-01-15T09:30:01.000Z',
      response_code: 200,
      duration_ms: 12,
      error: null,
      url: 'https://hooks.example.com/pay',
      response_excerpt: '{"received":true}',
    },
  ],
} as const;

/** A resent event: its delivery is pending again. */
export const EVENT_RESENT_EXAMPLE = {
  ...EVENT_EXAMPLE,
  delivery: { ...EVENT_EXAMPLE.delivery, status: 'pending', next_attempt_at: '2026-01-15T09:35:00.000Z' },
} as const;

/** The body POSTed to the webhook URL. */
export const WEBHOOK_PAYLOAD_EXAMPLE = {
  id: EVENT_EXAMPLE.id,
  type: EVENT_EXAMPLE.type,
  created_at: EVENT_EXAMPLE.created_at,
  data: EVENT_EXAMPLE.data,
} as const;
