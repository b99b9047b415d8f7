// pay accounts: internal accounts holding balances.
import { type GroupSpec, type PickSpec, fromContract } from '../../cmdutil/spec.js';
import { STATUS_FILTER, columns, createVerb, getVerb, idArg, listVerb, shown } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';

const ACCOUNT_ID = idArg('account', 'acc_');
/** The picker's accounts (an id left out on a terminal); the list needs the tenant. */
const accountPick = (what: string, status?: string, zero?: readonly string[]): PickSpec => ({
  list: 'accounts',
  ...(status ? { query: { status }, where: { status: [status] } } : {}),
  ...(zero ? { zero } : {}),
  show: shown('NICKNAME nickname, AVAILABLE balance.available money @currency, STATUS status status'),
  what,
  requireTenant: true,
});

export const accounts: GroupSpec = fromContract(OPERATIONS, {
  name: 'accounts',
  summary: 'Create and manage internal accounts and their balances',
  noun: 'account',
  examples: [
    'pay accounts create --customer cus_0123456789abcdefghijklmn --currency USD',
    'pay accounts list --customer cus_0123456789abcdefghijklmn --json',
    'pay accounts get acc_0123456789abcdefghijklmn --fields balance.available',
  ],
  columns: columns(
    'ID id 1, CUSTOMER customer_id 7, TYPE type 4, STATUS status 3 status, AVAILABLE balance.available 2 money @currency, PENDING balance.pending 5 money @currency, CREATED created_at 6 time',
  ),
  verbs: [
    createVerb('Account', {
      summary: 'Open an account for a customer',
      examples: [
        'pay accounts create --customer cus_0123456789abcdefghijklmn --currency USD',
        'pay accounts create --customer cus_0123456789abcdefghijklmn --currency EUR --type savings --nickname "Rainy day"',
      ],
      flags: [
        { flags: '--customer <id>', field: 'customer_id', description: 'owner (cus_…)' },
        { flags: '--currency <code>', field: 'currency', description: 'ISO 4217 currency, e.g. USD' },
        { flags: '--type <type>', field: 'type', description: 'checking (default) or savings' },
        { flags: '--nickname <text>', field: 'nickname', description: 'a label for people' },
      ],
      jsonShape: 'the created Account object ({id: "acc_…", customer_id, currency, status, balance: {available, pending, currency}, …})',
    }),
    listVerb(
      'Account',
      'List accounts (needs the tenant id)',
      [
        'pay accounts list',
        'pay accounts list --customer cus_0123456789abcdefghijklmn --json',
        'pay accounts list --currency USD --all -o ndjson',
      ],
      [
        { flags: '--customer <id>', query: 'customer_id', description: "only this customer's accounts" },
        { flags: '--currency <code>', query: 'currency', description: 'only this currency' },
        STATUS_FILTER,
      ],
    ),
    getVerb('Account', { ...ACCOUNT_ID, pick: accountPick('accounts') }, 'Show one account with its balance', [
      'pay accounts get acc_0123456789abcdefghijklmn',
      'pay accounts get acc_0123456789abcdefghijklmn --fields balance.available',
    ]),
    {
      name: 'close',
      // Only accounts it can close: active, holding nothing (the service refuses the others, 409).
      arg: { ...ACCOUNT_ID, pick: accountPick('empty active accounts', 'active', ['balance.available', 'balance.pending']) },
      summary: 'Close an account (its balance must be zero)',
      examples: ['pay accounts close acc_0123456789abcdefghijklmn', 'pay accounts close acc_0123456789abcdefghijklmn --live --yes'],
      operationId: 'closeAccount',
      jsonShape: 'the Account object with status "closed"',
    },
  ],
});
