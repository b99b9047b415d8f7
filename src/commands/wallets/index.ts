// pay wallets: crypto wallets of a customer, one asset on one network each.
import type { GroupSpec } from '../../cmdutil/spec.js';
import { columns, groupObject, resourceGroup } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { NETWORKS_BY_ASSET } from '../../shared/domain.js';

const WAL = groupObject('wallet', 'wal_', 'CUSTOMER customer_id, NETWORK network, AVAILABLE balance.available money @asset');

export const wallets: GroupSpec = resourceGroup(OPERATIONS, WAL, {
  summary: "Create and inspect customers' crypto wallets",
  examples: [
    'pay wallets create --customer cus_0123456789abcdefghijklmn --asset USDC --network polygon',
    'pay wallets list --customer cus_0123456789abcdefghijklmn --json',
  ],
  description: 'Asset and network pairs: BTC/bitcoin, ETH/ethereum, USDC/ethereum|polygon, USDT/ethereum|tron.',
  columns: columns(
    'ID id 1, CUSTOMER customer_id 9, ASSET asset 2, NETWORK network 5, ADDRESS address 7 id, AVAILABLE balance.available 3 money, PENDING balance.pending 6 money, STATUS status 4 status, CREATED created_at 8 time',
  ),
  verbs: [
    WAL.create({
      summary: 'Create a wallet for a customer (an asset on a network)',
      examples: [
        'pay wallets create --customer cus_0123456789abcdefghijklmn --asset BTC --network bitcoin',
        'pay wallets create --customer cus_0123456789abcdefghijklmn --asset USDC --network polygon --label "Payouts" --json',
      ],
      flags: [
        { flags: '--customer <id>', field: 'customer_id', description: 'owner (cus_…)' },
        { flags: '--asset <asset>', field: 'asset', description: 'crypto asset' },
        { flags: '--network <network>', field: 'network', description: 'blockchain network carrying the asset' },
        { flags: '--label <text>', field: 'label', description: 'a label for people' },
      ],
      constraints: [{ kind: 'pairs', field: 'asset', other: 'network', allowed: NETWORKS_BY_ASSET }],
      jsonShape:
        'the created Wallet object ({id: "wal_…", customer_id, asset, network, address, balance: {available, pending, currency}, status, …})',
    }),
    WAL.list(
      ['pay wallets list --customer cus_0123456789abcdefghijklmn --asset USDT --json'],
      [
        { flags: '--customer <id>', query: 'customer_id', description: "only this customer's wallets" },
        { flags: '--asset <asset>', query: 'asset', description: 'only this asset' },
      ],
    ),
    WAL.get('Show one wallet with its address and balance', [
      `pay wallets get ${WAL.example}`,
      `pay wallets get ${WAL.example} --fields address,balance.available --json`,
    ]),
  ],
});
