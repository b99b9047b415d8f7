// Shared types of the emulator: resources as the API returns them, stored records, the
// per-request context handlers see, and routes.
import type { Services } from './services.js';

export type Mode = 'sandbox' | 'live';
export type Json = Record<string, unknown>;

export interface Base {
  id: string;
  object: string;
  livemode: boolean;
  created_at: string;
  updated_at?: string;
}

export interface Address {
  address_line1: string;
  city: string;
  country: string;
  postal_code: string;
  state?: string;
}

export interface Balance {
  available: string;
  pending: string;
  currency: string;
}

export interface Customer extends Base {
  first_name: string;
  last_name: string;
  middle_name: string | null;
  email: string;
  phone: string;
  type: string;
  gender: string | null;
  date_of_birth: string;
  address: Address;
  kyc_status: 'not_started' | 'pending' | 'in_review' | 'approved' | 'rejected';
}

export interface KycDocument extends Base {
  verification_id: string;
  customer_id: string;
  type: string;
  country: string;
  number_last4: string | null;
  file_name: string | null;
  status: 'received' | 'accepted' | 'rejected';
}

export interface KycVerification extends Base {
  customer_id: string;
  level: string;
  status: 'pending' | 'in_review' | 'approved' | 'rejected';
  documents: KycDocument[];
  submitted_at: string | null;
  decided_at: string | null;
  rejection_reason: string | null;
}

export interface Account extends Base {
  customer_id: string;
  currency: string;
  type: string;
  nickname: string | null;
  status: 'active' | 'closed';
  account_number: string;
  balance: Balance;
}

export interface ExternalAccount extends Base {
  customer_id: string;
  account_holder_name: string;
  bank_name: string;
  country: string;
  currency: string;
  account_number_last4: string;
  routing_number: string | null;
  iban_last4: string | null;
  status: 'active' | 'removed';
}

export interface Transfer extends Base {
  source_account_id: string;
  destination_id: string;
  destination_type: 'account' | 'external_account';
  amount: string;
  currency: string;
  description: string | null;
  reference: string | null;
  status: 'pending' | 'completed' | 'failed' | 'cancelled';
  failure_reason: string | null;
  completed_at: string | null;
}

export interface Card extends Base {
  customer_id: string;
  account_id: string;
  type: 'virtual' | 'physical';
  name_on_card: string | null;
  spending_limit: { amount: string; interval: string } | null;
  shipping_address: Address | null;
  brand: 'visa';
  last4: string;
  exp_month: number;
  exp_year: number;
  status: 'inactive' | 'active' | 'frozen' | 'terminated';
}

export interface Collection extends Base {
  account_id: string;
  amount: string;
  currency: string;
  method: string;
  customer_id: string | null;
  description: string | null;
  mobile_money: { phone: string; provider: string } | null;
  status: 'pending' | 'succeeded' | 'failed';
  failure_reason: string | null;
  completed_at: string | null;
}

export interface PaymentLink extends Base {
  wallet_id: string;
  amount: string;
  asset: string;
  description: string | null;
  expires_at: string | null;
  url: string;
  status: 'active' | 'disabled' | 'expired' | 'paid';
}

export interface Wallet extends Base {
  customer_id: string;
  asset: string;
  network: string;
  label: string | null;
  address: string;
  balance: Balance;
  status: 'active';
}

export interface FxQuote extends Base {
  source_currency: string;
  target_currency: string;
  rate: string;
  source_amount: string;
  target_amount: string;
  fee: string;
  expires_at: string;
  status: 'open' | 'used' | 'expired';
}

export interface FxTrade extends Base {
  quote_id: string;
  source_account_id: string;
  target_account_id: string;
  source_currency: string;
  target_currency: string;
  rate: string;
  source_amount: string;
  target_amount: string;
  status: 'completed';
}

export type TxnStatus = 'pending' | 'posted' | 'voided';

export interface Transaction extends Base {
  account_id: string | null;
  wallet_id: string | null;
  entry_id: string;
  type: 'transfer' | 'collection' | 'fx_trade' | 'reversal';
  direction: 'credit' | 'debit';
  amount: string;
  currency: string;
  status: TxnStatus;
  balance_after: string;
  description: string | null;
  source: { object: string; id: string };
}

/** A ledger entry (internal; shown by GET /__emulator/ledger). Postings sum to zero per currency. */
export interface LedgerEntry extends Base {
  type: Transaction['type'];
  status: TxnStatus;
  source: { object: string; id: string };
  postings: Array<{ account: string; currency: string; amount: string; transaction_id: string | null }>;
}

export interface DeliveryAttempt {
  id: string;
  attempted_at: string;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
  url: string;
  /** The first bytes (EXCERPT_BYTES) of what the app answered, as UTF-8 text; null for no body. Absent in attempts made before it was kept. */
  response_excerpt?: string | null;
}

export interface WebhookEvent extends Base {
  type: string;
  data: { object: unknown };
  delivery: {
    status: 'pending' | 'delivered' | 'failed' | 'disabled';
    attempts: number;
    last_response_code: number | null;
    last_attempt_at: string | null;
    next_attempt_at: string | null;
  };
}

/** Kinds of stored records, by `object` name. */
export type Kind =
  | 'customer'
  | 'kyc_verification'
  | 'account'
  | 'external_account'
  | 'transfer'
  | 'card'
  | 'collection'
  | 'payment_link'
  | 'wallet'
  | 'fx_quote'
  | 'fx_trade'
  | 'transaction'
  | 'ledger_entry'
  | 'event';

/** One stored object: its public shape (`obj`), internal fields (`x`), and a cached serialization. */
export interface Rec<T extends Base = Base> {
  kind: Kind;
  id: string;
  scope: string;
  obj: T;
  x: Json | undefined;
  json: string | undefined;
  /** The store's change counter at this record's last put (a snapshot written over several turns refers only to records unchanged since it began). */
  v: number;
}

/** The mutations of one request (or one settlement), committed to the journal together. */
export interface Tx {
  /** Serialized journal ops (empty without persistence). */
  ops: string[];
  /** Run once the ops are durable (webhook scheduling). */
  after: Array<() => void>;
}

export interface Ctx {
  app: Services;
  mode: Mode;
  tenant: string;
  scope: string;
  livemode: boolean;
  params: Record<string, string>;
  query: Map<string, string>;
  body: Json;
  tx: Tx;
}

export interface Reply {
  status: number;
  /** The JSON body, already serialized. */
  json: string;
  /** The record whose JSON `json` is, when it is one (a stored idempotent response then journals a reference to it). */
  rec?: Rec | undefined;
}

/** Query parameter check: an error message, or undefined when fine. */
export type QueryCheck = (value: string) => string | undefined;

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Contract path, `{name}` for parameters. */
  path: string;
  op: string;
  handler: (ctx: Ctx) => Reply;
  /** List operation: accepts limit and cursor. */
  list?: boolean;
  query?: Record<string, QueryCheck>;
  tenantRequired?: boolean;
  /** Deprecated operation: Deprecation and Link headers. */
  successor?: (ctx: Ctx) => string;
}
