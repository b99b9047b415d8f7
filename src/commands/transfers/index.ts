// pay transfers: move money from an account to another account or an external account.
import { type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { STATUS_FILTER, getVerb, idArg, listVerb, pickOf } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { simulationNote } from '../../shared/simulation.js';
import { operationHelp } from '../../shared/rules.js';

const TRANSFER_SHOWN = 'AMOUNT amount money, TO destination_id, STATUS status status';
const EX_TR = 'tr_0123456789abcdefghijklmn';

export const transfers: GroupSpec = fromContract(OPERATIONS, {
  name: 'transfers',
  summary: 'Send money between accounts and to external accounts',
  noun: 'transfer',
  examples: [
    'pay transfers send --from acc_0123456789abcdefghijklmn --to acc_abcdefghijklmn0123456789 --amount 10.50 --currency USD --wait',
    'pay transfers list --account acc_0123456789abcdefghijklmn --status failed --json',
    'pay transfers cancel tr_0123456789abcdefghijklmn',
  ],
  description: 'A transfer is pending until it settles: completed, or failed with a failure_reason; a pending one can be cancelled.',
  columns: [
    { header: 'ID', path: 'id', priority: 1 },
    { header: 'FROM', path: 'source_account_id', priority: 5 },
    { header: 'TO', path: 'destination_id', priority: 4 },
    { header: 'AMOUNT', path: 'amount', kind: 'money', priority: 2 },
    { header: 'STATUS', path: 'status', kind: 'status', priority: 3 },
    { header: 'FAILURE', path: 'failure_reason', priority: 8, meaning: 'failure_reason' },
    { header: 'REFERENCE', path: 'reference', priority: 7 },
    { header: 'CREATED', path: 'created_at', kind: 'time', priority: 6 },
  ],
  verbs: [
    {
      name: 'send',
      summary: 'Send money from an account (to acc_… or ea_…)',
      description:
        "The amount is exact, in the currency of the source account, with at most that currency's decimals.\n" +
        'With --wait, pay waits until the transfer settles: exit 0 when completed, 1 when failed or cancelled.\n' +
        `${simulationNote('transfers send')}\n` +
        'In live mode pay asks for confirmation on a terminal; pass --yes in scripts.\n' +
        operationHelp('createTransfer'),
      examples: [
        'pay transfers send --from acc_0123456789abcdefghijklmn --to acc_abcdefghijklmn0123456789 --amount 10.50 --currency USD',
        'pay transfers send --from acc_0123456789abcdefghijklmn --to ea_0123456789abcdefghijklmn --amount 2500 --currency NGN --reference inv-42 --wait --json',
        'pay transfers send --live --yes --from acc_0123456789abcdefghijklmn --to ea_0123456789abcdefghijklmn --amount 99.99 --currency USD',
      ],
      operationId: 'createTransfer',
      flags: [
        { flags: '--from <account-id>', field: 'source_account_id', description: 'source account (acc_…)' },
        { flags: '--to <id>', field: 'destination_id', description: 'destination: an account (acc_…) or an external account (ea_…)' },
        { flags: '--amount <amount>', field: 'amount', currencyFrom: 'currency', description: 'amount as a decimal, e.g. 10.50' },
        { flags: '--currency <code>', field: 'currency', description: 'ISO 4217 currency of the source account' },
        { flags: '--description <text>', field: 'description', description: 'shown to the sender' },
        { flags: '--reference <text>', field: 'reference', description: 'your reference (e.g. an invoice number)' },
      ],
      // The service refuses a transfer from an account to itself (422): refused here, before sending.
      constraints: [{ kind: 'differ', fields: ['source_account_id', 'destination_id'] }],
      jsonShape:
        'the created Transfer object ({id: "tr_…", source_account_id, destination_id, destination_type, amount, currency, status, failure_reason, …}); with --wait, as settled',
      wait: {
        until: 'settle',
        object: 'transfer',
        idPrefix: 'tr_',
        poll: 'transfers/{id}',
        pending: ['pending'],
        success: ['completed'],
        failure: ['failed', 'cancelled'],
        reasonField: 'failure_reason',
        show: 'pay transfers get {id}',
      },
    },
    listVerb(
      'Transfer',
      'List transfers, newest first',
      [
        'pay transfers list',
        'pay transfers list --account acc_0123456789abcdefghijklmn --status failed --json',
        'pay transfers list --all -o ndjson',
      ],
      [{ flags: '--account <id>', query: 'account_id', description: 'only transfers from or to this account' }, STATUS_FILTER],
    ),
    getVerb('Transfer', idArg('transfer', 'tr_', pickOf('transfers', 'transfers', TRANSFER_SHOWN)), 'Show one transfer', [
      `pay transfers get ${EX_TR}`,
      `pay transfers get ${EX_TR} --fields status,failure_reason --json`,
    ]),
    {
      name: 'cancel',
      arg: idArg('transfer', 'tr_', pickOf('transfers', 'pending transfers', TRANSFER_SHOWN, ['pending'])),
      summary: 'Cancel a pending transfer',
      description: `Only a pending transfer can be cancelled; the money returns to the source account.\n${simulationNote('transfers cancel')}`,
      examples: [`pay transfers cancel ${EX_TR}`, `pay transfers cancel ${EX_TR} --live --yes --json`],
      operationId: 'cancelTransfer',
      done: 'Cancelled',
      jsonShape: 'the Transfer object with status "cancelled"',
    },
  ],
});
