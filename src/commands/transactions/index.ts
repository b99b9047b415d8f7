// pay transactions: the ledger postings on customer accounts and wallets (read-only).
import { CREATED_RANGE, type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { OPERATIONS } from './operations.js';

const EX_TXN = 'txn_0123456789abcdefghijklmn';

export const transactions: GroupSpec = fromContract(OPERATIONS, {
  name: 'transactions',
  summary: 'Browse the ledger: every credit and debit on accounts and wallets',
  noun: 'transaction',
  examples: [
    'pay transactions list --account acc_0123456789abcdefghijklmn --from 2026-01-01 --json',
    'pay transactions get txn_0123456789abcdefghijklmn',
  ],
  columns: [
    { header: 'ID', path: 'id', priority: 1 },
    { header: 'ACCOUNT', path: 'account_id', priority: 8 },
    { header: 'WALLET', path: 'wallet_id', priority: 11 },
    { header: 'TYPE', path: 'type', priority: 5 },
    { header: 'DIRECTION', path: 'direction', priority: 3 },
    { header: 'AMOUNT', path: 'amount', kind: 'money', priority: 2 },
    { header: 'BALANCE AFTER', path: 'balance_after', kind: 'money', currencyPath: 'currency', priority: 9 },
    { header: 'STATUS', path: 'status', kind: 'status', priority: 4 },
    { header: 'SOURCE', path: 'source.id', priority: 10 },
    { header: 'CREATED', path: 'created_at', kind: 'time', priority: 6 },
    // Last, so the columns before it keep their places in TSV and CSV.
    { header: 'DESCRIPTION', path: 'description', priority: 7 },
  ],
  verbs: [
    {
      name: 'list',
      summary: 'List transactions, newest first (filter by account, wallet, time, type, status)',
      description:
        '--from and --to take a date (YYYY-MM-DD, midnight UTC), an RFC 3339 time, or a duration back from now (30m, 2h, 1h30m, 7d, 2w; ' +
        "from this machine's clock); --to is exclusive. --since and --until, as the other lists call them, are the same filters: " +
        'pass one name of each.',
      examples: [
        'pay transactions list --account acc_0123456789abcdefghijklmn',
        'pay transactions list --account acc_0123456789abcdefghijklmn --from 2026-01-01 --to 2026-02-01 --type transfer --json',
        'pay transactions list --wallet wal_0123456789abcdefghijklmn --status posted --all -o ndjson',
      ],
      operationId: 'listTransactions',
      flags: [
        { flags: '--account <id>', query: 'account_id', description: 'only this account (acc_…)' },
        { flags: '--wallet <id>', query: 'wallet_id', description: 'only this wallet (wal_…)' },
        {
          flags: '--from <time>',
          query: 'from',
          description: 'created at or after: YYYY-MM-DD, RFC 3339, or a duration back from now (30m, 2h, 1h30m, 7d, 2w)',
        },
        {
          flags: '--to <time>',
          query: 'to',
          description: 'created before (exclusive): YYYY-MM-DD, RFC 3339, or a duration back from now',
        },
        ...CREATED_RANGE.map((f) => ({ ...f, description: `the same as ${f.query === 'from' ? '--from' : '--to'}` })),
        { flags: '--type <type>', query: 'type', description: 'only this type' },
        { flags: '--status <status>', query: 'status', description: 'only this status' },
      ],
      constraints: [{ kind: 'before', from: 'from', to: 'to' }],
      jsonShape:
        'an array of Transaction objects ({id: "txn_…", account_id, wallet_id, entry_id, type, direction, amount, currency, status, balance_after, source: {object, id}, …})',
    },
    {
      name: 'get',
      arg: {
        name: '<id>',
        description: 'transaction id (txn_…)',
        idPrefix: 'txn_',
        pick: {
          list: 'transactions',
          show: [
            { header: 'TYPE', path: 'type' },
            { header: 'DIRECTION', path: 'direction' },
            { header: 'AMOUNT', path: 'amount', kind: 'money' },
            { header: 'STATUS', path: 'status', kind: 'status' },
          ],
          what: 'transactions',
        },
      },
      summary: 'Show one transaction',
      examples: [`pay transactions get ${EX_TXN}`, `pay transactions get ${EX_TXN} --fields amount,currency,source.id --json`],
      operationId: 'getTransaction',
      jsonShape: 'the Transaction object',
    },
  ],
});
