// Schemas shared across resources: money, currencies, countries, addresses, balances,
// problem details (RFC 9457) and the empty body of action operations.
import { ASSETS, FIAT_CURRENCIES, STATE_PATTERN } from '../../shared/domain.js';
import { COUNTRY_CODES } from '../../shared/iso.js';
import { FREE_TEXT_PATTERN } from '../../shared/patterns.js';
import { FEATURE_KEYS, KYC_STATUSES, RULE_KEYS } from '../../shared/rules.js';

export { ASSETS, NETWORKS, NETWORKS_BY_ASSET, PHONE_PATTERN } from '../../shared/domain.js';
import { enumOf, nullable, objectOf, requestBody, schemaRef, text } from './common.js';
import type { Schema } from './types.js';

/** Decimal string: no sign, no leading zeros, up to 15 integer digits and 18 decimals. */
export const DECIMAL_PATTERN = '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,18})?$';

const PRECISION =
  "Decimals allowed = the currency's exponent (USD 2, JPY 0, KWD 3, BTC 8, ETH 18, USDC 6, USDT 6); more is a 422 `validation_error`. " +
  "At most 15 digits before the point, in requests and answers alike: a request whose result would need more (an FX quote's other side, a balance a credit would take past it) is a 422 `validation_error` with an `out_of_range` field error.";

export const sharedSchemas: Record<string, Schema> = {
  Amount: {
    type: 'string',
    pattern: DECIMAL_PATTERN,
    description: `A money amount as a decimal string ("10.50"), never a JSON number. ${PRECISION}`,
    examples: ['10.50'],
  },
  PositiveAmount: {
    type: 'string',
    pattern: DECIMAL_PATTERN,
    not: { pattern: '^0(\\.0+)?$' },
    description: `A money amount greater than zero, as a decimal string ("10.50"). ${PRECISION}`,
    examples: ['10.50'],
  },
  SignedAmount: {
    type: 'string',
    pattern: '^-?(0|[1-9][0-9]{0,14})(\\.[0-9]{1,18})?$',
    description: 'A balance as a decimal string; the only money value that may carry a minus sign.',
    examples: ['125.00'],
  },
  Currency: enumOf(FIAT_CURRENCIES, 'A supported fiat currency (upper-case ISO 4217 code).'),
  Asset: enumOf(ASSETS, 'A supported crypto asset.'),
  CurrencyOrAsset: {
    anyOf: [schemaRef('Currency'), schemaRef('Asset')],
    description: 'A fiat currency (ISO 4217) or a crypto asset code.',
  },
  CountryCode: {
    type: 'string',
    enum: [...COUNTRY_CODES].sort(),
    description: 'An officially assigned ISO 3166-1 alpha-2 country code (upper case).',
  },
  Address: objectOf(
    {
      address_line1: text('Street line.'),
      city: text('City name.', 100),
      country: schemaRef('CountryCode'),
      postal_code: { type: 'string', minLength: 1, maxLength: 20, pattern: FREE_TEXT_PATTERN, description: 'Postal code.' },
      state: {
        type: 'string',
        pattern: STATE_PATTERN,
        description: 'ISO 3166-2 subdivision code `<country>-<subdivision>` (`US-CA`); its first two letters must equal `country`.',
      },
    },
    ['address_line1', 'city', 'country', 'postal_code'],
    { description: "A postal address (the seed spec's address object). Replaced whole on update.", closed: true },
  ),
  Balance: objectOf(
    {
      available: schemaRef('SignedAmount', 'Spendable now.'),
      pending: schemaRef('SignedAmount', 'Held by pending operations, not yet spendable.'),
      currency: schemaRef('CurrencyOrAsset'),
    },
    ['available', 'pending', 'currency'],
    { description: 'Balance of an account or wallet.' },
  ),
  ProblemFieldError: objectOf(
    {
      field: text('Dotted path of the offending field (`address.country`), or the query parameter name.'),
      code: { type: 'string', description: 'Machine code: `required`, `invalid`, `unknown_field`, `too_long`, ...', examples: ['invalid'] },
      message: { type: 'string', description: 'What is wrong, for people.' },
      customer_id: {
        type: 'string',
        pattern: '^cus_[0-9a-z]{24}$',
        description: 'A refusal of the business rules (`kyc_required`, `feature_not_active`): the customer this requirement is about.',
        examples: ['cus_0123456789abcdefghijklmn'],
      },
      kyc_status: enumOf(KYC_STATUSES, "A refusal of the business rules: that customer's `kyc_status`."),
      customer_country: {
        type: 'string',
        pattern: '^[A-Z]{2}$',
        description: "A refusal of the business rules: that customer's `address.country` (where a KYC document is usually from).",
        examples: ['GB'],
      },
      feature: enumOf(FEATURE_KEYS, 'A `feature_not_active` entry: the feature to activate.'),
    },
    ['field', 'code', 'message'],
    { description: 'One invalid field.' },
  ),
  Problem: objectOf(
    {
      type: { type: 'string', format: 'uri', description: 'Problem type URI: `https://pay.dev/problems/<code>`.' },
      title: { type: 'string', description: 'Short summary of the problem type.' },
      status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code.' },
      detail: { type: 'string', description: 'Explanation of this occurrence.' },
      code: {
        type: 'string',
        description: 'Machine-readable error code (see the responses of each status for the known codes).',
        examples: ['validation_error'],
      },
      request_id: { type: 'string', description: 'The `Request-Id` of the response.', examples: ['req_0123456789abcdefghijklmn'] },
      errors: {
        type: 'array',
        items: schemaRef('ProblemFieldError'),
        description:
          'Per-field errors (422 `validation_error`, 400 `invalid_parameter`; 422 `kyc_required` and `feature_not_active`: one entry per broken requirement, in the order to fix them, on the body field that named the customer, each naming that customer).',
      },
      customer_id: {
        type: 'string',
        pattern: '^cus_[0-9a-z]{24}$',
        description:
          'A refusal of the business rules (`kyc_required`, `feature_not_active`, `feature_not_eligible`): the customer of its first entry; a 409 `account_not_empty`: the holder, when their KYC was rejected (nothing moves out until a new verification).',
        examples: ['cus_0123456789abcdefghijklmn'],
      },
      kyc_status: enumOf(KYC_STATUSES, "A refusal of the business rules: that customer's `kyc_status` when it was refused."),
      customer_country: {
        type: 'string',
        pattern: '^[A-Z]{2}$',
        description:
          "A refusal of the business rules, or a 409 `account_not_empty` whose holder's KYC was rejected: that customer's `address.country`.",
        examples: ['GB'],
      },
      feature: enumOf(FEATURE_KEYS, 'A refusal of the business rules: the feature the action needs.'),
      rule: enumOf(RULE_KEYS, 'A refusal of the business rules: which rule (src/api/DESIGN.md, "Business rules").'),
    },
    ['type', 'title', 'status', 'code', 'request_id'],
    { description: 'RFC 9457 problem details, sent as `application/problem+json` with every 4xx and 5xx.' },
  ),
  EmptyBody: requestBody('Actions take no body; an empty JSON object is accepted.', {}, [], { maxProperties: 0 }),
};

/** An optional nullable free-text field as responses carry it. */
export const optionalText = (description: string, maxLength = 200): Schema => nullable(text(description, maxLength));
