// pay transfers: move money from an account to another account or an external account.
import type { GroupSpec } from '../../cmdutil/spec.js';
import { STATUS_FILTER, columns, groupObject, resourceGroup } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { simulationNote } from '../../shared/simulation.js';

const TR = groupObject('transfer', 'tr_', 'AMOUNT amount money, TO destination_id, STATUS status status');

export const transfers: GroupSpec = resourceGroup(OPERATIONS, TR, {
  summary: 'Send money between accounts and to external accounts',
  examples: [
    'pay transfers send --from acc_0123456789abcdefghijklmn --to acc_abcdefghijklmn0123456789 --amount 10.50 --currency USD --wait',
    'pay transfers list --account acc_0123456789abcdefghijklmn --status failed --json',
    'pay transfers cancel tr_0123456789abcdefghijklmn',
  ],
  description: 'A transfer is pending until it settles: completed, or failed with a failure_reason; a pending one can be cancelled.',
  columns: columns(
    'ID id 1, FROM source_account_id 5, TO destination_id 4, AMOUNT amount 2 money, STATUS status 3 status, FAILURE failure_reason 8 ~failure_reason, REFERENCE reference 7, CREATED created_at 6 time',
  ),
  verbs: [
    TR.create({
      name: 'send',
      summary: 'Send money from an account (to acc_… or ea_…)',
      about:
        "The amount is exact, in the currency of the source account, with at most that currency's decimals.\n" +
        'With --wait, pay waits until the transfer settles: exit 0 when completed, 1 when failed or cancelled.\n' +
        `${simulationNote('transfers send')}\n` +
        'In live mode pay asks for confirmation on a terminal; pass --yes in scripts.',
      examples: [
        'pay transfers send --from acc_0123456789abcdefghijklmn --to acc_abcdefghijklmn0123456789 --amount 10.50 --currency USD',
        'pay transfers send --from acc_0123456789abcdefghijklmn --to ea_0123456789abcdefghijklmn --amount 2500 --currency NGN --reference inv-42 --wait --json',
        'pay transfers send --live --yes --from acc_0123456789abcdefghijklmn --to ea_0123456789abcdefghijklmn --amount 99.99 --currency USD',
      ],
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
    }),
    TR.list(
      ['pay transfers list --account acc_0123456789abcdefghijklmn --status failed --json', 'pay transfers list --all -o ndjson'],
      [{ flags: '--account <id>', query: 'account_id', description: 'only transfers from or to this account' }, STATUS_FILTER],
    ),
    TR.get('Show one transfer', [
      `pay transfers get ${TR.example}`,
      `pay transfers get ${TR.example} --fields status,failure_reason --json`,
    ]),
    {
      name: 'cancel',
      arg: TR.arg('pending transfers', ['pending']),
      summary: 'Cancel a pending transfer',
      description: `Only a pending transfer can be cancelled; the money returns to the source account.\n${simulationNote('transfers cancel')}`,
      examples: [`pay transfers cancel ${TR.example}`, `pay transfers cancel ${TR.example} --live --yes --json`],
      operationId: 'cancelTransfer',
      done: 'Cancelled',
      jsonShape: 'the Transfer object with status "cancelled"',
    },
  ],
});
