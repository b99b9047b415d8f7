// pay wallets: crypto wallets of a customer, one asset on one network each.
import { CREATED_RANGE, CREATED_RANGE_CHECK, type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { OPERATIONS } from './operations.js';
import { NETWORKS_BY_ASSET } from '../../shared/domain.js';
import { operationHelp } from '../../shared/rules.js';

const WAL_ID = {
  name: '<id>',
  description: 'wallet id (wal_…)',
  idPrefix: 'wal_',
  pick: {
    list: 'wallets',
    show: [
      { header: 'CUSTOMER', path: 'customer_id' },
      { header: 'NETWORK', path: 'network' },
      { header: 'AVAILABLE', path: 'balance.available', kind: 'money', currencyPath: 'asset' },
    ],
    what: 'wallets',
  },
} as const;
const EX_WAL = 'wal_0123456789abcdefghijklmn';

export const wallets: GroupSpec = fromContract(OPERATIONS, {
  name: 'wallets',
  summary: "Create and inspect customers' crypto wallets",
  noun: 'wallet',
  examples: [
    'pay wallets create --customer cus_0123456789abcdefghijklmn --asset USDC --network polygon',
    'pay wallets list --customer cus_0123456789abcdefghijklmn --json',
  ],
  description: 'Asset and network pairs: BTC/bitcoin, ETH/ethereum, USDC/ethereum|polygon, USDT/ethereum|tron.',
  columns: [
    { header: 'ID', path: 'id', priority: 1 },
    { header: 'CUSTOMER', path: 'customer_id', priority: 9 },
    { header: 'ASSET', path: 'asset', priority: 2 },
    { header: 'NETWORK', path: 'network', priority: 5 },
    { header: 'ADDRESS', path: 'address', kind: 'id', priority: 7 },
    { header: 'AVAILABLE', path: 'balance.available', kind: 'money', priority: 3 },
    { header: 'PENDING', path: 'balance.pending', kind: 'money', priority: 6 },
    { header: 'STATUS', path: 'status', kind: 'status', priority: 4 },
    { header: 'CREATED', path: 'created_at', kind: 'time', priority: 8 },
  ],
  verbs: [
    {
      name: 'create',
      summary: 'Create a wallet for a customer (an asset on a network)',
      description: operationHelp('createWallet'),
      examples: [
        'pay wallets create --customer cus_0123456789abcdefghijklmn --asset BTC --network bitcoin',
        'pay wallets create --customer cus_0123456789abcdefghijklmn --asset USDC --network polygon --label "Payouts" --json',
      ],
      operationId: 'createWallet',
      flags: [
        { flags: '--customer <id>', field: 'customer_id', description: 'owner (cus_…)' },
        { flags: '--asset <asset>', field: 'asset', description: 'crypto asset' },
        {
          flags: '--network <network>',
          field: 'network',
          description: 'blockchain network carrying the asset',
        },
        { flags: '--label <text>', field: 'label', description: 'a label for people' },
      ],
      constraints: [{ kind: 'pairs', field: 'asset', other: 'network', allowed: NETWORKS_BY_ASSET }],
      jsonShape:
        'the created Wallet object ({id: "wal_…", customer_id, asset, network, address, balance: {available, pending, currency}, status, …})',
    },
    {
      name: 'list',
      summary: 'List wallets, newest first',
      examples: ['pay wallets list', 'pay wallets list --customer cus_0123456789abcdefghijklmn --asset USDT --json'],
      operationId: 'listWallets',
      flags: [
        { flags: '--customer <id>', query: 'customer_id', description: "only this customer's wallets" },
        { flags: '--asset <asset>', query: 'asset', description: 'only this asset' },
        ...CREATED_RANGE,
      ],
      constraints: [CREATED_RANGE_CHECK],
      jsonShape: 'an array of Wallet objects',
    },
    {
      name: 'get',
      arg: WAL_ID,
      summary: 'Show one wallet with its address and balance',
      examples: [`pay wallets get ${EX_WAL}`, `pay wallets get ${EX_WAL} --fields address,balance.available --json`],
      operationId: 'getWallet',
      jsonShape: 'the Wallet object',
    },
  ],
});
