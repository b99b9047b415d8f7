// pay external-accounts: bank accounts outside the service that transfers can pay out to.
import { CREATED_RANGE, CREATED_RANGE_CHECK, type GroupSpec, type PickSpec, fromContract } from '../../cmdutil/spec.js';
import { OPERATIONS } from './operations.js';
import { operationHelp } from '../../shared/rules.js';

const EA_ID = { name: '<id>', description: 'external account id (ea_…)', idPrefix: 'ea_' };
const EX_EA = 'ea_0123456789abcdefghijklmn';
/** The picker's external accounts (an id left out on a terminal); the list has no status filter. */
const eaPick = (what: string, status?: string): PickSpec => ({
  list: 'external-accounts',
  ...(status ? { where: { status: [status] } } : {}),
  show: [
    { header: 'HOLDER', path: 'account_holder_name' },
    { header: 'BANK', path: 'bank_name' },
    { header: 'NUMBER', path: 'account_number_last4' },
    { header: 'STATUS', path: 'status', kind: 'status' },
  ],
  what,
});

export const externalAccounts: GroupSpec = fromContract(OPERATIONS, {
  name: 'external-accounts',
  summary: "Add and manage customers' bank accounts outside the service (payout destinations)",
  noun: 'external account',
  examples: [
    'pay external-accounts add --customer cus_0123456789abcdefghijklmn --data @bank-account.json',
    'pay external-accounts list --customer cus_0123456789abcdefghijklmn --json',
    'pay external-accounts remove ea_0123456789abcdefghijklmn --live --yes',
  ],
  columns: [
    { header: 'ID', path: 'id', priority: 1 },
    { header: 'CUSTOMER', path: 'customer_id', priority: 9 },
    { header: 'HOLDER', path: 'account_holder_name', priority: 2 },
    { header: 'BANK', path: 'bank_name', priority: 3 },
    { header: 'NUMBER', path: 'account_number_last4', priority: 4 },
    { header: 'COUNTRY', path: 'country', priority: 7 },
    { header: 'CURRENCY', path: 'currency', priority: 5 },
    { header: 'STATUS', path: 'status', kind: 'status', priority: 6 },
    { header: 'CREATED', path: 'created_at', kind: 'time', priority: 8 },
  ],
  verbs: [
    {
      name: 'add',
      summary: 'Add an external bank account for a customer',
      description: `Only the last 4 digits of the account number are ever returned.\n${operationHelp('createExternalAccount')}`,
      examples: [
        'pay external-accounts add --customer cus_0123456789abcdefghijklmn --account-holder-name "Ada Lovelace" --bank-name "First Bank" --account-number 000123456789 --routing-number 021000021 --country US --currency USD',
        'pay external-accounts add --customer cus_0123456789abcdefghijklmn --account-holder-name "Ada Lovelace" --bank-name Barclays --account-number 31926819 --iban GB29NWBK60161331926819 --country GB --currency GBP --json',
      ],
      operationId: 'createExternalAccount',
      flags: [
        { flags: '--customer <id>', field: 'customer_id', description: 'owner (cus_…)' },
        { flags: '--account-holder-name <name>', field: 'account_holder_name', description: 'name on the bank account' },
        { flags: '--bank-name <name>', field: 'bank_name', description: 'bank name' },
        { flags: '--account-number <number>', field: 'account_number', description: 'bank account number' },
        { flags: '--routing-number <number>', field: 'routing_number', description: 'routing / sort code, where the country uses one' },
        { flags: '--iban <iban>', field: 'iban', description: 'IBAN, where the country uses one' },
        { flags: '--country <CC>', field: 'country', description: 'bank country, ISO 3166-1 alpha-2' },
        { flags: '--currency <code>', field: 'currency', description: 'account currency, ISO 4217' },
      ],
      jsonShape: 'the created ExternalAccount object ({id: "ea_…", customer_id, bank_name, account_number_last4, status, …})',
    },
    {
      name: 'list',
      summary: 'List external accounts, newest first',
      examples: ['pay external-accounts list', 'pay external-accounts list --customer cus_0123456789abcdefghijklmn --json'],
      operationId: 'listExternalAccounts',
      flags: [{ flags: '--customer <id>', query: 'customer_id', description: "only this customer's accounts" }, ...CREATED_RANGE],
      constraints: [CREATED_RANGE_CHECK],
      jsonShape: 'an array of ExternalAccount objects',
    },
    {
      name: 'get',
      arg: { ...EA_ID, pick: eaPick('external accounts') },
      summary: 'Show one external account',
      examples: [`pay external-accounts get ${EX_EA}`, `pay external-accounts get ${EX_EA} --json`],
      operationId: 'getExternalAccount',
      jsonShape: 'the ExternalAccount object',
    },
    {
      name: 'remove',
      arg: { ...EA_ID, pick: eaPick('active external accounts', 'active') },
      summary: 'Remove an external account (it can no longer receive transfers)',
      examples: [`pay external-accounts remove ${EX_EA}`, `pay external-accounts remove ${EX_EA} --live --yes`],
      operationId: 'removeExternalAccount',
      jsonShape: 'the ExternalAccount object with status "removed"',
    },
  ],
});
