// pay accounts: internal accounts holding balances.
import { CREATED_RANGE, CREATED_RANGE_CHECK, type GroupSpec, type PickSpec, fromContract } from '../../cmdutil/spec.js';
import { OPERATIONS } from './operations.js';
import { operationHelp } from '../../shared/rules.js';

const ACCOUNT_ID = { name: '<id>', description: 'account id (acc_…)', idPrefix: 'acc_' };
/** The picker's accounts (an id left out on a terminal); the list needs the tenant. */
const accountPick = (what: string, status?: string, zero?: readonly string[]): PickSpec => ({
  list: 'accounts',
  ...(status ? { query: { status }, where: { status: [status] } } : {}),
  ...(zero ? { zero } : {}),
  show: [
    { header: 'NICKNAME', path: 'nickname' },
    { header: 'AVAILABLE', path: 'balance.available', kind: 'money', currencyPath: 'currency' },
    { header: 'STATUS', path: 'status', kind: 'status' },
  ],
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
  columns: [
    { header: 'ID', path: 'id', priority: 1 },
    { header: 'CUSTOMER', path: 'customer_id', priority: 7 },
    { header: 'TYPE', path: 'type', priority: 4 },
    { header: 'STATUS', path: 'status', kind: 'status', priority: 3 },
    { header: 'AVAILABLE', path: 'balance.available', kind: 'money', currencyPath: 'currency', priority: 2 },
    { header: 'PENDING', path: 'balance.pending', kind: 'money', currencyPath: 'currency', priority: 5 },
    { header: 'CREATED', path: 'created_at', kind: 'time', priority: 6 },
  ],
  verbs: [
    {
      name: 'create',
      description: operationHelp('createAccount'),
      summary: 'Open an account for a customer',
      examples: [
        'pay accounts create --customer cus_0123456789abcdefghijklmn --currency USD',
        'pay accounts create --customer cus_0123456789abcdefghijklmn --currency EUR --type savings --nickname "Rainy day"',
      ],
      operationId: 'createAccount',
      flags: [
        { flags: '--customer <id>', field: 'customer_id', description: 'owner (cus_…)' },
        { flags: '--currency <code>', field: 'currency', description: 'ISO 4217 currency, e.g. USD' },
        {
          flags: '--type <type>',
          field: 'type',
          description: 'checking (default) or savings',
        },
        { flags: '--nickname <text>', field: 'nickname', description: 'a label for people' },
      ],
      jsonShape: 'the created Account object ({id: "acc_…", customer_id, currency, status, balance: {available, pending, currency}, …})',
    },
    {
      name: 'list',
      summary: 'List accounts (needs the tenant id)',
      examples: [
        'pay accounts list',
        'pay accounts list --customer cus_0123456789abcdefghijklmn --json',
        'pay accounts list --currency USD --all -o ndjson',
      ],
      operationId: 'listAccounts',
      flags: [
        { flags: '--customer <id>', query: 'customer_id', description: "only this customer's accounts" },
        { flags: '--currency <code>', query: 'currency', description: 'only this currency' },
        { flags: '--status <status>', query: 'status', description: 'only this status' },
        ...CREATED_RANGE,
      ],
      constraints: [CREATED_RANGE_CHECK],
      jsonShape: 'an array of Account objects',
    },
    {
      name: 'get',
      arg: { ...ACCOUNT_ID, pick: accountPick('accounts') },
      summary: 'Show one account with its balance',
      examples: [
        'pay accounts get acc_0123456789abcdefghijklmn',
        'pay accounts get acc_0123456789abcdefghijklmn --fields balance.available',
      ],
      operationId: 'getAccount',
      jsonShape: 'the Account object',
    },
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
