// pay collections: money collected into an account by card, bank transfer or mobile money.
import type { GroupSpec } from '../../cmdutil/spec.js';
import { STATUS_FILTER, columns, groupObject, resourceGroup } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { simulationNote } from '../../shared/simulation.js';

const COL = groupObject('collection', 'col_', 'AMOUNT amount money, METHOD method, STATUS status status');

export const collections: GroupSpec = resourceGroup(OPERATIONS, COL, {
  summary: 'Collect money into an account by card, bank transfer or mobile money',
  examples: [
    'pay collections create --account acc_0123456789abcdefghijklmn --amount 25.00 --currency USD --method card',
    'pay collections list --status failed --json',
  ],
  description: 'A collection is pending until it succeeds (the account is credited) or fails with a failure_reason.',
  columns: columns(
    'ID id 1, ACCOUNT account_id 7, CUSTOMER customer_id 8, METHOD method 4, AMOUNT amount 2 money, STATUS status 3 status, FAILURE failure_reason 5 ~failure_reason, CREATED created_at 6 time',
  ),
  verbs: [
    COL.create({
      summary: 'Start a collection into an account (--method card|bank_transfer|mobile_money)',
      about:
        'Mobile money needs --mobile-phone and --mobile-provider.\n' +
        'With --wait, pay waits until the collection settles: exit 0 when it succeeded (the account is credited: a transfer ' +
        'from it can follow at once), 1 when it failed.\n' +
        'In live mode it moves real money: it asks first on a terminal, with the amount and the account, and needs --yes elsewhere ' +
        '(--from-file: one question for the run, with its rows and totals per currency).\n' +
        simulationNote('collections create'),
      examples: [
        'pay collections create --account acc_0123456789abcdefghijklmn --amount 25.00 --currency USD --method card',
        'pay collections create --account acc_0123456789abcdefghijklmn --amount 500.00 --currency USD --method card --wait',
        'pay collections create --account acc_0123456789abcdefghijklmn --amount 1500 --currency KES --method mobile_money --mobile-phone +254712345678 --mobile-provider mpesa',
        'pay collections create --account acc_0123456789abcdefghijklmn --amount 100 --currency GHS --method bank_transfer --customer cus_0123456789abcdefghijklmn --json',
        'pay collections create --live --yes --account acc_0123456789abcdefghijklmn --amount 25.00 --currency USD --method card',
      ],
      flags: [
        { flags: '--account <id>', field: 'account_id', description: 'account to credit (acc_…)' },
        { flags: '--amount <amount>', field: 'amount', currencyFrom: 'currency', description: 'amount as a decimal, e.g. 25.00' },
        { flags: '--currency <code>', field: 'currency', description: 'ISO 4217 currency of the account' },
        { flags: '--method <method>', field: 'method', description: 'how the payer pays' },
        { flags: '--customer <id>', field: 'customer_id', description: 'the paying customer (cus_…)' },
        { flags: '--description <text>', field: 'description', description: 'what the payment is for' },
        { flags: '--mobile-phone <phone>', field: 'mobile_money.phone', description: "mobile money: payer's phone, international format" },
        { flags: '--mobile-provider <provider>', field: 'mobile_money.provider', description: 'mobile money: provider' },
      ],
      constraints: [
        { kind: 'requiredWhen', field: 'method', values: ['mobile_money'], require: ['mobile_money.phone', 'mobile_money.provider'] },
        { kind: 'together', fields: ['mobile_money.phone', 'mobile_money.provider'] },
      ],
      jsonShape:
        'the created Collection object ({id: "col_…", account_id, amount, currency, method, status, failure_reason, …}); with --wait, as settled',
      wait: {
        until: 'settle',
        object: 'collection',
        idPrefix: 'col_',
        poll: 'collections/{id}',
        pending: ['pending'],
        success: ['succeeded'],
        failure: ['failed'],
        reasonField: 'failure_reason',
        show: 'pay collections get {id}',
      },
    }),
    COL.list(
      [
        'pay collections list --account acc_0123456789abcdefghijklmn --method mobile_money --json',
        'pay collections list --status failed --all -o ndjson',
      ],
      [
        { flags: '--account <id>', query: 'account_id', description: 'only collections into this account' },
        STATUS_FILTER,
        { flags: '--method <method>', query: 'method', description: 'only this method' },
      ],
    ),
    COL.get('Show one collection', [
      `pay collections get ${COL.example}`,
      `pay collections get ${COL.example} --fields status,failure_reason --json`,
    ]),
  ],
});
