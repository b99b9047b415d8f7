// Accounts, external accounts, transfers, cards and collections (fiat money).
import {
  ACCOUNT_STATUSES,
  ACCOUNT_TYPES,
  CARD_STATUSES,
  CARD_TYPES,
  COLLECTION_METHODS,
  COLLECTION_STATUSES,
  EXTERNAL_ACCOUNT_STATUSES,
  MOBILE_MONEY_PROVIDERS,
  SPENDING_INTERVALS,
  TRANSFER_DESTINATION_TYPES,
  TRANSFER_STATUSES,
} from '../../shared/enums.js';
import { enumOf, idOf, listOf, nullable, objectOf, requestBody, resource, schemaRef, text, timestamp } from './common.js';
import { PHONE_PATTERN, optionalText } from './schemas-shared.js';
import type { Schema } from './types.js';
import { CONTRACT_NOTES } from '../../shared/simulation.js';

const customerId = idOf('cus_', 'The customer.');
const description = text('Free text for people.', 500);

const accountFields = {
  customer_id: customerId,
  currency: schemaRef('Currency'),
  // The default lives on the named schema, not on this property: see DESIGN.md "Tool conventions".
  type: schemaRef('AccountType'),
  nickname: text('A label for people.', 100),
};

const externalAccountFields = {
  customer_id: customerId,
  account_holder_name: text('Name on the bank account.'),
  bank_name: text('Bank name.'),
  country: schemaRef('CountryCode'),
  currency: schemaRef('Currency'),
};

const transferFields = {
  source_account_id: idOf('acc_', 'Account the money leaves.'),
  destination_id: {
    type: 'string',
    pattern: '^(acc|ea)_[0-9a-z]{24}$',
    description: 'Where the money goes: an account (`acc_…`, same tenant) or an external account (`ea_…`).',
  },
  amount: schemaRef('PositiveAmount'),
  currency: schemaRef(
    'Currency',
    "Must equal the source account's currency (and an internal destination's) → else 422 `currency_mismatch`.",
  ),
  description,
  reference: text('Your reference, shown to the recipient.', 140),
};

const spendingLimit = objectOf(
  {
    amount: schemaRef('PositiveAmount', "Limit in the account's currency."),
    interval: enumOf(SPENDING_INTERVALS, 'Period the limit applies to.'),
  },
  ['amount', 'interval'],
  { description: 'A spending limit.', closed: true },
);

const cardFields = {
  customer_id: customerId,
  account_id: idOf('acc_', 'The account the card spends from.'),
  type: enumOf(CARD_TYPES, 'Card type: virtual cards are issued `active`, physical cards `inactive` until shipped and activated.'),
  name_on_card: text('Name printed on the card.', 100),
  spending_limit: spendingLimit,
  shipping_address: schemaRef('Address', 'Where to ship a physical card (required for physical cards).'),
};

const mobileMoney = objectOf(
  {
    phone: { type: 'string', pattern: PHONE_PATTERN, description: "The payer's mobile money number (international format)." },
    provider: enumOf(MOBILE_MONEY_PROVIDERS, 'Mobile money provider.'),
  },
  ['phone', 'provider'],
  { description: 'Mobile money details.', closed: true },
);

const collectionFields = {
  account_id: idOf('acc_', 'The account credited when the collection succeeds.'),
  amount: schemaRef('PositiveAmount'),
  currency: schemaRef('Currency', "Must equal the account's currency."),
  method: enumOf(COLLECTION_METHODS, 'How the payer pays.'),
  customer_id: customerId,
  description,
  mobile_money: mobileMoney,
};

const failureReason = nullable({
  type: 'string',
  description:
    "Why it failed: `kyc_rejected` when the business rules no longer let the money move as it settles (a holder's KYC was rejected while it was pending or held; the rules are checked again then); Sandbox: `destination_rejected` for transfers, `payment_declined` for collections.",
});
const completedAt = nullable(timestamp('When it reached its final successful state.'));

export const bankingSchemas: Record<string, Schema> = {
  AccountType: {
    ...enumOf(ACCOUNT_TYPES, 'Account type; a new account is `checking` unless it says otherwise.'),
    default: 'checking',
  },
  AccountCreate: requestBody('A new internal account.', accountFields, ['customer_id', 'currency']),
  Account: resource({
    object: 'account',
    prefix: 'acc_',
    description:
      'An internal account holding a balance. States: `active` → `closed` (close needs available and pending zero, else 409 `account_not_empty`).',
    properties: {
      ...accountFields,
      nickname: nullable(accountFields.nickname),
      status: enumOf(ACCOUNT_STATUSES, 'Account state.'),
      account_number: { type: 'string', pattern: '^[0-9]{10}$', description: 'The 10-digit account number.' },
      balance: schemaRef('Balance'),
    },
    required: ['customer_id', 'currency', 'type', 'nickname', 'status', 'account_number', 'balance'],
  }),
  AccountList: listOf('Account', 'accounts'),

  ExternalAccountCreate: requestBody(
    'A bank account outside the service, for outgoing transfers.',
    {
      ...externalAccountFields,
      account_number: { type: 'string', pattern: '^[0-9A-Za-z]{4,34}$', description: 'The bank account number (never returned in full).' },
      routing_number: { type: 'string', pattern: '^[0-9A-Za-z]{4,20}$', description: 'Routing or sort code, where the country uses one.' },
      iban: { type: 'string', pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$', description: 'IBAN, where the country uses one.' },
    },
    ['customer_id', 'account_holder_name', 'bank_name', 'account_number', 'country', 'currency'],
  ),
  ExternalAccount: resource({
    object: 'external_account',
    prefix: 'ea_',
    description: 'An external bank account. The full account number (and IBAN) is never returned. States: `active` → `removed` (DELETE).',
    properties: {
      ...externalAccountFields,
      account_number_last4: { type: 'string', pattern: '^[0-9A-Za-z]{4}$', description: 'Last 4 characters of the account number.' },
      routing_number: nullable({ type: 'string', description: 'Routing or sort code.' }),
      iban_last4: nullable({ type: 'string', pattern: '^[0-9A-Za-z]{4}$', description: 'Last 4 characters of the IBAN.' }),
      status: enumOf(EXTERNAL_ACCOUNT_STATUSES, 'External account state.'),
    },
    required: ['customer_id', 'account_holder_name', 'bank_name', 'country', 'currency', 'account_number_last4', 'status'],
  }),
  ExternalAccountList: listOf('ExternalAccount', 'external accounts'),

  TransferCreate: requestBody(
    `Send money from an account. \`destination_id\` must differ from \`source_account_id\` (else 422 \`validation_error\`). Insufficient available balance → 422 \`insufficient_funds\`. ${CONTRACT_NOTES.transfer}`,
    transferFields,
    ['source_account_id', 'destination_id', 'amount', 'currency'],
  ),
  Transfer: resource({
    object: 'transfer',
    prefix: 'tr_',
    description: `A transfer. States: \`pending\` → \`completed\` | \`failed\` (settles); \`pending\` → \`cancelled\` (cancel). ${CONTRACT_NOTES.transfer}`,
    properties: {
      ...transferFields,
      amount: schemaRef('Amount'),
      description: optionalText('Free text for people.', 500),
      reference: optionalText('Your reference.', 140),
      destination_type: enumOf(TRANSFER_DESTINATION_TYPES, 'Kind of destination.'),
      status: enumOf(TRANSFER_STATUSES, 'Transfer state.'),
      failure_reason: failureReason,
      completed_at: completedAt,
    },
    required: ['source_account_id', 'destination_id', 'destination_type', 'amount', 'currency', 'status', 'failure_reason', 'completed_at'],
  }),
  TransferList: listOf('Transfer', 'transfers'),

  CardCreate: requestBody(
    'Issue a card on an account. Physical cards need `shipping_address`.',
    cardFields,
    ['customer_id', 'account_id', 'type'],
    {
      if: { properties: { type: { const: 'physical' } }, required: ['type'] },
      then: { properties: { shipping_address: true }, required: ['shipping_address'], additionalProperties: true },
    },
  ),
  Card: resource({
    object: 'card',
    prefix: 'card_',
    description:
      'A payment card (never a full PAN or CVV). States: virtual cards are issued `active`; physical cards `inactive` → `active` ' +
      '(settles: shipped and activated); `active` ⇄ `frozen`; `active` | `frozen` | `inactive` → `terminated` (final). Other moves → 409 `invalid_state`.',
    properties: {
      ...cardFields,
      name_on_card: nullable(cardFields.name_on_card),
      spending_limit: nullable(spendingLimit),
      shipping_address: nullable(schemaRef('Address')),
      brand: enumOf(['visa'], 'Card network.'),
      last4: { type: 'string', pattern: '^[0-9]{4}$', description: 'Last 4 digits of the card number.' },
      exp_month: { type: 'integer', minimum: 1, maximum: 12, description: 'Expiry month.' },
      exp_year: { type: 'integer', minimum: 2000, maximum: 2100, description: 'Expiry year (4 digits).' },
      status: enumOf(CARD_STATUSES, 'Card state.'),
    },
    required: ['customer_id', 'account_id', 'type', 'brand', 'last4', 'exp_month', 'exp_year', 'status'],
  }),
  CardList: listOf('Card', 'cards'),

  CollectionCreate: requestBody(
    `Collect a payment into an account. \`mobile_money\` is required when \`method\` is \`mobile_money\`. ${CONTRACT_NOTES.collection}`,
    collectionFields,
    ['account_id', 'amount', 'currency', 'method'],
    {
      if: { properties: { method: { const: 'mobile_money' } }, required: ['method'] },
      then: { properties: { mobile_money: true }, required: ['mobile_money'], additionalProperties: true },
    },
  ),
  Collection: resource({
    object: 'collection',
    prefix: 'col_',
    description: `A collection (incoming payment). States: \`pending\` → \`succeeded\` (credits the account) | \`failed\`. ${CONTRACT_NOTES.collection}`,
    properties: {
      ...collectionFields,
      amount: schemaRef('Amount'),
      customer_id: nullable(customerId),
      description: optionalText('Free text for people.', 500),
      mobile_money: nullable(mobileMoney),
      status: enumOf(COLLECTION_STATUSES, 'Collection state.'),
      failure_reason: failureReason,
      completed_at: completedAt,
    },
    required: ['account_id', 'amount', 'currency', 'method', 'status', 'failure_reason', 'completed_at'],
  }),
  CollectionList: listOf('Collection', 'collections'),
};
