// pay customers: create (prompts for missing fields on a terminal), list, get, update.
import { type FlagSpec, type GroupSpec, type PickSpec, fromContract } from '../../cmdutil/spec.js';
import { columns, getVerb, idArg, listVerb, shown } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';

import { CUSTOMER_TYPES, GENDERS } from '../../shared/domain.js';

export { CUSTOMER_TYPES, GENDERS };

/** The seed's customer fields, in prompt order; which are required, create's operation says (update's: none). */
export const customerFlags: FlagSpec[] = [
  { flags: '--first-name <name>', field: 'first_name', description: 'given name' },
  { flags: '--last-name <name>', field: 'last_name', description: 'family name' },
  { flags: '--middle-name <name>', field: 'middle_name', description: 'middle name' },
  { flags: '--email <email>', field: 'email', description: 'e-mail address' },
  {
    flags: '--phone <phone>',
    field: 'phone',
    description: 'phone in international format, e.g. +14155550123 (spaces, dashes, dots and brackets are dropped)',
  },
  {
    flags: '--type <type>',
    field: 'type',
    kind: 'enum',
    choices: CUSTOMER_TYPES,
    open: true,
    description: 'customer type: individual, business, or another value (a near miss such as indivdual is refused)',
  },
  {
    flags: '--gender <gender>',
    field: 'gender',
    kind: 'enum',
    choices: GENDERS,
    open: true,
    description: 'gender: male, female, non_binary, undisclosed, or another value (a near miss is refused)',
  },
  { flags: '--date-of-birth <YYYY-MM-DD>', field: 'date_of_birth', description: 'date of birth, a real date not in the future' },
  { flags: '--address-line1 <street>', field: 'address.address_line1', description: 'street line' },
  { flags: '--city <city>', field: 'address.city', description: 'city' },
  {
    flags: '--country <CC>',
    field: 'address.country',
    description: 'country: ISO 3166-1 alpha-2 code (US), alpha-3 (USA) or name (United States); sent as the code',
  },
  { flags: '--postal-code <code>', field: 'address.postal_code', description: 'postal code' },
  {
    flags: '--state <CC-SUB>',
    field: 'address.state',
    description: 'ISO 3166-2 subdivision: US-CA, or CA or California beside --country US; sent as US-CA',
  },
];

/**
 * The picker's customers (an id argument left out on a terminal): the most recent ones, `where`
 * narrowing them to those a verb can act on. kyc, kyc-legacy and features use it too.
 */
export function customerPick(what = 'customers', where?: PickSpec['where']): PickSpec {
  return {
    list: 'customers',
    show: shown('FIRST NAME first_name, LAST NAME last_name, EMAIL email, KYC kyc_status status'),
    what,
    ...(where ? { where } : {}),
  };
}

const CUSTOMER_ID = idArg('customer', 'cus_', customerPick());

export const customers: GroupSpec = fromContract(OPERATIONS, {
  name: 'customers',
  summary: 'Create and manage customer profiles',
  noun: 'customer',
  examples: [
    'pay customers create',
    'pay customers list --email ada@example.com --json',
    'pay customers update cus_0123456789abcdefghijklmn --email new@example.com',
  ],
  columns: columns(
    'ID id 1, FIRST NAME first_name 2, LAST NAME last_name 3, EMAIL email 4, TYPE type 6, KYC kyc_status 5 status, CREATED created_at 7 time',
  ),
  verbs: [
    {
      name: 'create',
      summary: 'Create a customer (prompts on a terminal for the missing fields)',
      description:
        'Required: --first-name, --last-name, --email, --phone, --type, --date-of-birth, --address-line1, --city, --country, --postal-code.\n' +
        'On a terminal, pay asks for each required field not given, then "Add optional details?" (or, with --interactive, the optional fields at once), then shows what it will send and asks before sending (--yes skips that question); with --no-input, CI set or no terminal, a missing field is an error (exit 2) and nothing is sent.',
      examples: [
        'pay customers create',
        'pay customers create --first-name Ada --last-name Lovelace --email ada@example.com --phone +447700900123 --type individual --date-of-birth 1990-12-10 --address-line1 "1 Main St" --city London --country GB --postal-code "SW1A 1AA" --state GB-LND',
        'pay customers create --data @customer.json --json',
      ],
      operationId: 'createCustomer',
      flags: customerFlags,
      jsonShape: 'the created Customer object ({id: "cus_…", first_name, …, address: {…}, kyc_status, created_at})',
      impl: () => import('./create.js'),
      asks: true,
    },
    listVerb(
      'Customer',
      'List customers, newest first',
      ['pay customers list', 'pay customers list --email ada@example.com --json', 'pay customers list --all -o ndjson'],
      [
        { flags: '--email <email>', query: 'email', description: 'only this e-mail address' },
        { flags: '--type <type>', query: 'type', description: 'only this customer type' },
      ],
    ),
    getVerb('Customer', CUSTOMER_ID, 'Show one customer', [
      'pay customers get cus_0123456789abcdefghijklmn',
      'pay customers get cus_0123456789abcdefghijklmn --fields email,address.country',
    ]),
    {
      name: 'update',
      arg: CUSTOMER_ID,
      summary: 'Change fields of a customer (the address is replaced whole)',
      examples: [
        'pay customers update cus_0123456789abcdefghijklmn --email new@example.com',
        'pay customers update cus_0123456789abcdefghijklmn --data \'{"phone":"+14155550123"}\'',
      ],
      operationId: 'updateCustomer',
      flags: customerFlags,
      // The address is replaced whole: a partial one (--state or --city alone) is refused here, before the API would.
      constraints: [
        { kind: 'whole', object: 'address', require: ['address.address_line1', 'address.city', 'address.country', 'address.postal_code'] },
      ],
      jsonShape: 'the updated Customer object',
    },
    {
      name: 'overview',
      arg: CUSTOMER_ID,
      summary: 'One screen for support: the customer, KYC, accounts, cards, wallets, last transactions, failed webhooks',
      description:
        'Shows the customer and its KYC verification, its accounts with balances, its cards and wallets with their states, the last 10 ' +
        'transactions across its accounts and the failed webhook deliveries about its objects; each section ends with the command that shows more.\n' +
        'Requests run concurrently (4 at a time). A section that fails says so and the others still print; pay then exits 1. ' +
        'An unknown customer is exit 4. Failed deliveries are looked for among the 500 most recent failed events.',
      examples: ['pay customers overview cus_0123456789abcdefghijklmn', 'pay customers overview cus_0123456789abcdefghijklmn --json'],
      operationId: 'getCustomer',
      kind: 'custom',
      composite: true,
      // --fields picks from the aggregate: customer.email, kyc.status, accounts, more.cards, …
      answer: {
        customer: 'getCustomer',
        kyc: 'getKycVerification',
        accounts: null,
        cards: null,
        wallets: null,
        transactions: null,
        failed_deliveries: null,
        more: '*',
        errors: null,
      },
      requireTenant: true,
      jsonShape:
        '{customer, kyc (the current verification, or null), accounts: [Account], cards: [Card], wallets: [Wallet], ' +
        'transactions: [Transaction] (the 10 newest across the accounts), failed_deliveries: [Event] (newest first, at most 10), ' +
        'more: {section: [command]}, errors: [{section, message, code, exit_code, request_id}]}; a failed section is null',
      impl: () => import('./overview.js'),
    },
  ],
});
