// Operations of accounts, external accounts, transfers, cards and collections.
import {
  ACCOUNT_STATUSES,
  CARD_STATUSES,
  CARD_TYPES,
  COLLECTION_METHODS,
  COLLECTION_STATUSES,
  TRANSFER_STATUSES,
} from '../../shared/enums.js';
import {
  ACCOUNT_CREATE_EXAMPLE,
  ACCOUNT_EXAMPLE,
  ACCOUNT_LIST_EXAMPLE,
  CARD_CREATE_EXAMPLE,
  CARD_EXAMPLE,
  CLOSED_ACCOUNT_EXAMPLE,
  COLLECTION_CREATE_EXAMPLE,
  COLLECTION_EXAMPLE,
  EXTERNAL_ACCOUNT_CREATE_EXAMPLE,
  EXTERNAL_ACCOUNT_EXAMPLE,
  NEW_ACCOUNT_EXAMPLE,
  TRANSFER_CREATE_EXAMPLE,
  TRANSFER_EXAMPLE,
} from './examples.js';
import { CONTRACT_NOTES } from '../../shared/simulation.js';
import { action, create, enumFilter, idFilter, listAndGet, schemaFilter, type OpSpec } from './operations.js';

const CARD_STATES =
  'Card states: `active` ⇄ `frozen`; `active` | `frozen` | `inactive` → `terminated` (final); other moves → 409 `invalid_state`.';
const byCustomer = idFilter('customer_id', 'cus_', 'customer');
const byAccount = idFilter('account_id', 'acc_', 'account');

const [listAccounts, getAccount] = listAndGet({
  path: 'accounts',
  tag: 'accounts',
  schema: 'Account',
  noun: 'account',
  plural: 'accounts',
  param: 'AccountId',
  listId: 'listAccounts',
  getId: 'getAccount',
  example: ACCOUNT_EXAMPLE,
  filters: [byCustomer, schemaFilter('currency', 'Currency', 'currency'), enumFilter('status', ACCOUNT_STATUSES)],
  listNote: 'The seed-fixed listing: `x-tenant-id` is required here (missing → 400 `missing_tenant`).',
});

export const bankingPaths: Array<readonly [string, OpSpec]> = [
  [
    '/accounts',
    {
      id: 'createAccount',
      tag: 'accounts',
      kind: 'create',
      summary: 'Create an account',
      description:
        'Opens an internal account for a customer in one currency (`type` defaults to `checking`), with a 10-digit account number and a zero balance. Emits `account.created`.',
      body: 'AccountCreate',
      result: 'Account',
      errors: [404],
      requestExample: ACCOUNT_CREATE_EXAMPLE,
      responseExample: NEW_ACCOUNT_EXAMPLE,
    },
  ],
  [listAccounts![0], { ...listAccounts![1], tenantRequired: true, responseExample: ACCOUNT_LIST_EXAMPLE }],
  getAccount!,
  action({
    path: 'accounts',
    verb: 'close',
    id: 'closeAccount',
    tag: 'accounts',
    summary: 'Close an account',
    description:
      'States: `active` → `closed`. Needs available and pending balances of zero, else 409 `account_not_empty`; already closed → 409 `invalid_state`. Emits `account.closed`.',
    result: 'Account',
    param: 'AccountId',
    responseExample: CLOSED_ACCOUNT_EXAMPLE,
  }),

  create({
    path: 'external-accounts',
    id: 'createExternalAccount',
    tag: 'external-accounts',
    summary: 'Add an external bank account',
    description:
      'Registers a bank account outside the service as a transfer destination. The full account number is never returned (`account_number_last4`). Emits `external_account.created`.',
    body: 'ExternalAccountCreate',
    result: 'ExternalAccount',
    requestExample: EXTERNAL_ACCOUNT_CREATE_EXAMPLE,
    responseExample: EXTERNAL_ACCOUNT_EXAMPLE,
  }),
  ...listAndGet({
    path: 'external-accounts',
    tag: 'external-accounts',
    schema: 'ExternalAccount',
    noun: 'external account',
    plural: 'external accounts',
    param: 'ExternalAccountId',
    listId: 'listExternalAccounts',
    getId: 'getExternalAccount',
    example: EXTERNAL_ACCOUNT_EXAMPLE,
    filters: [byCustomer],
  }),
  [
    '/external-accounts/{external_account_id}',
    {
      id: 'removeExternalAccount',
      tag: 'external-accounts',
      kind: 'delete',
      summary: 'Remove an external bank account',
      description:
        'States: `active` → `removed`. Answers 200 with the object (`status: removed`); already removed → 409 `invalid_state`. A pending transfer to it (money on its way) → 409 `invalid_state` and nothing changes: cancel the transfer or wait until it settles, then remove. Emits `external_account.removed`.',
      result: 'ExternalAccount',
      pathParams: ['ExternalAccountId'],
      responseExample: { ...EXTERNAL_ACCOUNT_EXAMPLE, updated_at: '2026-01-15T09:31:00.000Z', status: 'removed' },
    },
  ],

  create({
    path: 'transfers',
    id: 'createTransfer',
    tag: 'transfers',
    summary: 'Send a transfer',
    description:
      'Moves money from an account to another account or an external account; `destination_id` must differ from `source_account_id` (else 422 `validation_error`). ' +
      "The currency must equal the source account's (and an internal " +
      `destination's) → else 422 \`currency_mismatch\`; insufficient available balance → 422 \`insufficient_funds\`. Starts \`pending\`. ${CONTRACT_NOTES.transfer} ` +
      'Emits `transfer.created`, then `transfer.completed` or `transfer.failed`.',
    body: 'TransferCreate',
    result: 'Transfer',
    requestExample: TRANSFER_CREATE_EXAMPLE,
    responseExample: TRANSFER_EXAMPLE,
  }),
  ...listAndGet({
    path: 'transfers',
    tag: 'transfers',
    schema: 'Transfer',
    noun: 'transfer',
    plural: 'transfers',
    param: 'TransferId',
    listId: 'listTransfers',
    getId: 'getTransfer',
    example: TRANSFER_EXAMPLE,
    filters: [{ ...byAccount, description: 'Only transfers from or to this account.' }, enumFilter('status', TRANSFER_STATUSES)],
  }),
  action({
    path: 'transfers',
    verb: 'cancel',
    id: 'cancelTransfer',
    tag: 'transfers',
    summary: 'Cancel a pending transfer',
    description: 'States: `pending` → `cancelled` (funds released); any other state → 409 `invalid_state`. Emits `transfer.cancelled`.',
    result: 'Transfer',
    param: 'TransferId',
    responseExample: { ...TRANSFER_EXAMPLE, updated_at: '2026-01-15T09:31:00.000Z', status: 'cancelled' },
  }),

  create({
    path: 'cards',
    id: 'createCard',
    tag: 'cards',
    summary: 'Issue a card',
    description: `Issues a virtual card (\`active\` at once) or a physical card (\`inactive\` until shipped and activated; needs \`shipping_address\`). ${CARD_STATES} Emits \`card.created\`.`,
    body: 'CardCreate',
    result: 'Card',
    requestExample: CARD_CREATE_EXAMPLE,
    responseExample: CARD_EXAMPLE,
  }),
  ...listAndGet({
    path: 'cards',
    tag: 'cards',
    schema: 'Card',
    noun: 'card',
    plural: 'cards',
    param: 'CardId',
    listId: 'listCards',
    getId: 'getCard',
    example: CARD_EXAMPLE,
    filters: [byCustomer, byAccount, enumFilter('status', CARD_STATUSES), enumFilter('type', CARD_TYPES, 'card type')],
  }),
  ...(
    [
      ['freeze', 'freezeCard', 'Freeze a card', '`active` → `frozen`. Emits `card.frozen`.', 'frozen'],
      ['unfreeze', 'unfreezeCard', 'Unfreeze a card', '`frozen` → `active`. Emits `card.unfrozen`.', 'active'],
      [
        'terminate',
        'terminateCard',
        'Terminate a card',
        '`active` | `frozen` | `inactive` → `terminated`, for good. Emits `card.terminated`.',
        'terminated',
      ],
    ] as const
  ).map(([verb, id, summary, move, status]) =>
    action({
      path: 'cards',
      verb,
      id,
      tag: 'cards',
      summary,
      description: `${move} ${CARD_STATES}`,
      result: 'Card',
      param: 'CardId',
      responseExample: { ...CARD_EXAMPLE, updated_at: '2026-01-15T09:31:00.000Z', status },
    }),
  ),

  create({
    path: 'collections',
    id: 'createCollection',
    tag: 'collections',
    summary: 'Collect a payment',
    description:
      'Accepts a payment into an account by card, bank transfer or mobile money (`mobile_money` details required for that method). ' +
      `States: \`pending\` → \`succeeded\` (credits the account) | \`failed\`. ${CONTRACT_NOTES.collection} Emits \`collection.created\`, then \`collection.succeeded\` or \`collection.failed\`.`,
    body: 'CollectionCreate',
    result: 'Collection',
    requestExample: COLLECTION_CREATE_EXAMPLE,
    responseExample: COLLECTION_EXAMPLE,
  }),
  ...listAndGet({
    path: 'collections',
    tag: 'collections',
    schema: 'Collection',
    noun: 'collection',
    plural: 'collections',
    param: 'CollectionId',
    listId: 'listCollections',
    getId: 'getCollection',
    example: COLLECTION_EXAMPLE,
    filters: [byAccount, enumFilter('status', COLLECTION_STATUSES), enumFilter('method', COLLECTION_METHODS, 'payment method')],
  }),
];
