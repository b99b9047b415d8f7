// pay external-accounts: bank accounts outside the service that transfers can pay out to.
import { type GroupSpec, type PickSpec, fromContract } from '../../cmdutil/spec.js';
import { columns, createVerb, getVerb, idArg, listVerb, shown } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';

const EA_ID = idArg('external account', 'ea_');
const EX_EA = 'ea_0123456789abcdefghijklmn';
/** The picker's external accounts (an id left out on a terminal); the list has no status filter. */
const eaPick = (what: string, status?: string): PickSpec => ({
  list: 'external-accounts',
  ...(status ? { where: { status: [status] } } : {}),
  show: shown('HOLDER account_holder_name, BANK bank_name, NUMBER account_number_last4, STATUS status status'),
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
  columns: columns(
    'ID id 1, CUSTOMER customer_id 9, HOLDER account_holder_name 2, BANK bank_name 3, NUMBER account_number_last4 4, COUNTRY country 7, CURRENCY currency 5, STATUS status 6 status, CREATED created_at 8 time',
  ),
  verbs: [
    createVerb('ExternalAccount', {
      name: 'add',
      summary: 'Add an external bank account for a customer',
      about: 'Only the last 4 digits of the account number are ever returned.',
      examples: [
        'pay external-accounts add --customer cus_0123456789abcdefghijklmn --account-holder-name "Ada Lovelace" --bank-name "First Bank" --account-number 000123456789 --routing-number 021000021 --country US --currency USD',
        'pay external-accounts add --customer cus_0123456789abcdefghijklmn --account-holder-name "Ada Lovelace" --bank-name Barclays --account-number 31926819 --iban GB29NWBK60161331926819 --country GB --currency GBP --json',
      ],
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
    }),
    listVerb(
      'ExternalAccount',
      'List external accounts, newest first',
      ['pay external-accounts list', 'pay external-accounts list --customer cus_0123456789abcdefghijklmn --json'],
      [{ flags: '--customer <id>', query: 'customer_id', description: "only this customer's accounts" }],
    ),
    getVerb('ExternalAccount', { ...EA_ID, pick: eaPick('external accounts') }, 'Show one external account', [
      `pay external-accounts get ${EX_EA}`,
      `pay external-accounts get ${EX_EA} --json`,
    ]),
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
