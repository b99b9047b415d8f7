// pay wallets: crypto wallets of a customer, one asset on one network each.
import type { GroupSpec } from '../../cmdutil/spec.js';
import { ASSETS, NETWORKS, NETWORKS_BY_ASSET } from '../../shared/domain.js';
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

export const wallets: GroupSpec = {
  name: 'wallets',
  summary: "Create and inspect customers' crypto wallets",
  noun: 'wallet',
  examples: [
    'pay wallets create --customer cus_0123456789abcdefghijklmn --asset USDC --network polygon',
    'pay wallets list --customer cus_0123456789abcdefghijklmn --json',
  ],
  description: 'Asset and network pairs: BTC/bitcoin, ETH/ethereum, USDC/ethereum|polygon, USDT/ethereum|tron.',
  columns: [
    { header: 'ID', path: 'id' },
    { header: 'CUSTOMER', path: 'customer_id' },
    { header: 'ASSET', path: 'asset' },
    { header: 'NETWORK', path: 'network' },
    { header: 'ADDRESS', path: 'address' },
    { header: 'AVAILABLE', path: 'balance.available', kind: 'money' },
    { header: 'PENDING', path: 'balance.pending', kind: 'money' },
    { header: 'STATUS', path: 'status', kind: 'status' },
    { header: 'CREATED', path: 'created_at', kind: 'time' },
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
      method: 'POST',
      path: 'wallets',
      kind: 'create',
      body: true,
      flags: [
        { flags: '--customer <id>', field: 'customer_id', kind: 'id', idPrefix: 'cus_', description: 'owner (cus_…)', required: true },
        { flags: '--asset <asset>', field: 'asset', kind: 'currency', choices: ASSETS, description: 'crypto asset', required: true },
        {
          flags: '--network <network>',
          field: 'network',
          kind: 'enum',
          choices: NETWORKS,
          description: 'blockchain network carrying the asset',
          required: true,
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
      method: 'GET',
      path: 'wallets',
      kind: 'list',
      flags: [
        { flags: '--customer <id>', query: 'customer_id', kind: 'id', idPrefix: 'cus_', description: "only this customer's wallets" },
        { flags: '--asset <asset>', query: 'asset', kind: 'currency', choices: ASSETS, description: 'only this asset' },
      ],
      jsonShape: 'an array of Wallet objects',
    },
    {
      name: 'get',
      arg: WAL_ID,
      summary: 'Show one wallet with its address and balance',
      examples: [`pay wallets get ${EX_WAL}`, `pay wallets get ${EX_WAL} --fields address,balance.available --json`],
      operationId: 'getWallet',
      method: 'GET',
      path: 'wallets/{wallet_id}',
      kind: 'get',
      jsonShape: 'the Wallet object',
    },
  ],
};
