// Reusable parameters (tenant, idempotency key, paging, path ids) and response headers.
import { FEATURE_KEYS } from '../../shared/rules.js';
import { CURSOR_PATTERN } from '../../shared/patterns.js';
import { idOf } from './common.js';
import type { HeaderObject, ParameterObject, Ref, Schema } from './types.js';

export const paramRef = (name: string): Ref => ({ $ref: `#/components/parameters/${name}` });
export const headerRef = (name: string): Ref => ({ $ref: `#/components/headers/${name}` });

export const TENANT_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
/**
 * A key as a bare token (1-255 printable ASCII, not starting with `"`, no space at either end:
 * HTTP drops those from a field value, RFC 9110 §5.5, so `" a "` arrives as `a` and `"   "` as
 * nothing) or as an RFC 8941 string, the IETF draft's spelling: `"` … `"` around 1-255
 * characters, `"` and `\\` escaped.
 */
export const IDEMPOTENCY_KEY_PATTERN =
  '^(?:[\\x21\\x23-\\x7E](?:[\\x20-\\x7E]{0,253}[\\x21-\\x7E])?|"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\["\\\\]){1,255}")$';

/** Path parameters holding ids: component name, parameter name, id prefix, noun. */
export const ID_PARAMS = [
  ['CustomerId', 'customer_id', 'cus_', 'customer'],
  ['AccountId', 'account_id', 'acc_', 'account'],
  ['ExternalAccountId', 'external_account_id', 'ea_', 'external account'],
  ['TransferId', 'transfer_id', 'tr_', 'transfer'],
  ['CardId', 'card_id', 'card_', 'card'],
  ['CollectionId', 'collection_id', 'col_', 'collection'],
  ['PaymentLinkId', 'payment_link_id', 'plink_', 'payment link'],
  ['WalletId', 'wallet_id', 'wal_', 'wallet'],
  ['QuoteId', 'quote_id', 'fxq_', 'FX quote'],
  ['TradeId', 'trade_id', 'fxt_', 'FX trade'],
  ['TransactionId', 'transaction_id', 'txn_', 'transaction'],
  ['EventId', 'event_id', 'evt_', 'webhook event'],
] as const;

export { FEATURE_KEYS };

const tenant = (required: boolean): ParameterObject => ({
  name: 'x-tenant-id',
  in: 'header',
  required,
  description: required
    ? 'The business (tenant) whose data to use. Required here (the seed spec sends it on `GET /accounts`); missing → 400 `missing_tenant`, empty or malformed → 400 `invalid_tenant`.'
    : "The business (tenant) whose data to use. Optional: without the header the API key's default tenant is used. Empty or malformed → 400 `invalid_tenant`.",
  schema: { type: 'string', pattern: TENANT_PATTERN },
  example: 'biz_acme',
});

/** A query filter (inline parameter). */
export const queryParam = (name: string, description: string, schema: Schema | Ref): ParameterObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

function idParams(): Record<string, ParameterObject> {
  const out: Record<string, ParameterObject> = {};
  for (const [component, name, prefix, noun] of ID_PARAMS) {
    out[component] = {
      name,
      in: 'path',
      required: true,
      description: `The ${noun} id (\`${prefix}…\`). Ids are opaque: anything not matching the pattern, or another tenant's or mode's id, is 404 \`not_found\`.`,
      schema: idOf(prefix, `${noun} id`),
    };
  }
  return out;
}

export const parameters: Record<string, ParameterObject> = {
  TenantId: tenant(false),
  TenantIdRequired: tenant(true),
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    description:
      'Unique key for this write (1-255 printable ASCII characters, no space at either end; a UUID is usual), bare or as an RFC 8941 string as the IETF draft writes it ' +
      '(`"6f1c…"`, with `\\"` and `\\\\` escaped): both spellings are the same key. Missing or empty → 400 `missing_idempotency_key`; malformed → 400 `invalid_idempotency_key`. ' +
      'Same key and same body within 24 hours → the stored response replayed with `Idempotent-Replayed: true`; same key, other body → 422 ' +
      '`idempotency_key_reused`; same key still in flight → 409 `idempotency_request_in_progress`. Keys are scoped by API key and tenant; a 5xx frees the key.',
    schema: { type: 'string', minLength: 1, maxLength: 512, pattern: IDEMPOTENCY_KEY_PATTERN },
    example: '6f1c1c1e-7f7e-4a53-9f4b-0b8f3c1d2e4a',
  },
  Limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Page size, 1 to 100. Out of range → 400 `invalid_parameter`.',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description:
      'Opaque `next_cursor` of the previous page; omit for the first page. A cursor is only valid with the same filters; one the service did not issue → 400 `invalid_parameter`.',
    schema: { type: 'string', minLength: 1, maxLength: 200, pattern: CURSOR_PATTERN },
  },
  Feature: {
    name: 'feature',
    in: 'path',
    required: true,
    description: 'A feature key. An unknown key is 404 `not_found`.',
    schema: { type: 'string', enum: [...FEATURE_KEYS] },
    example: 'fx',
  },
  ...idParams(),
};

export const headers: Record<string, HeaderObject> = {
  'Request-Id': {
    description: 'Identifies this request in logs and support tickets (also `request_id` in problem bodies).',
    required: true,
    schema: { type: 'string', examples: ['req_0123456789abcdefghijklmn'] },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored response of an earlier POST with the same `Idempotency-Key` and body (POST responses only).',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': {
    description: 'On every 401 (RFC 9110): how to authenticate, the `ApiKey` scheme with the key in the `Api-Key` header.',
    required: true,
    schema: { type: 'string', examples: ['ApiKey realm="pay", header="Api-Key"'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0, examples: [2] },
  },
  Deprecation: {
    description:
      'RFC 9745: this operation is deprecated since the given time (`@<unix-seconds>`, what the service sends). `true`, the form of ' +
      "the RFC's earlier drafts, is allowed too: Prism's mock sends it for every deprecated operation whatever the contract says.",
    required: true,
    schema: { type: 'string', pattern: '^(?:@[0-9]+|true)$', examples: ['@1767225600'] },
  },
  Link: {
    description: 'The current operation that replaces this one: `<…/v1/customers/{id}/kyc>; rel="successor-version"`.',
    required: true,
    schema: { type: 'string', examples: ['</v1/customers/cus_0123456789abcdefghijklmn/kyc>; rel="successor-version"'] },
  },
};
