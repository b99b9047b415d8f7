// pay wallets against the emulator: create (asset/network pairs checked before sending), get with
// its address and balance in the asset, list and its filters.
// The forced tables here run with --no-names: the names beside ids (and the requests they cost)
// are tested in test/e2e/names.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiError,
  enabledCustomer,
  expectContractHeaders,
  ID,
  json,
  keyValues,
  ndjson,
  type Obj,
  ok,
  startWorld,
  table,
  TABLE_TIME,
  tsv,
  usageError,
  type World,
} from './helpers.js';

let w: World;
let cus: string;
let other: string;
let btc: string;
let usdc: string;

beforeAll(async () => {
  w = await startWorld();
  [cus, other] = await Promise.all([enabledCustomer(w), enabledCustomer(w)]); // the business rules: KYC approved, features active
});
afterAll(() => w?.stop());

describe('pay wallets', () => {
  it('create --json: BTC on bitcoin, a zero balance with the asset precision', async () => {
    const m = w.mark();
    const x = json(
      await w.pay(['wallets', 'create', '--customer', cus, '--asset', 'btc', '--network', 'bitcoin', '--label', 'Treasury', '--json']),
    );
    expect(x).toMatchObject({
      object: 'wallet',
      customer_id: cus,
      asset: 'BTC',
      network: 'bitcoin',
      label: 'Treasury',
      status: 'active',
      balance: { available: '0.00000000', pending: '0.00000000', currency: 'BTC' },
    });
    expect(x.id).toMatch(ID('wal_'));
    expect(x.address).toEqual(expect.any(String));
    btc = x.id;
    const reqs = w.since(m);
    expect(reqs.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/v1/wallets', { customer_id: cus, asset: 'BTC', network: 'bitcoin', label: 'Treasury' }],
    ]);
    expectContractHeaders(reqs, w.emu);
  });

  it('create off a terminal (tsv): USDC on polygon, an Ethereum-style address', async () => {
    const s = tsv(await w.pay(['wallets', 'create', '--customer', other, '--asset', 'USDC', '--network', 'polygon']));
    expect(s.header).toEqual([
      'id',
      'object',
      'livemode',
      'created_at',
      'updated_at',
      'customer_id',
      'asset',
      'network',
      'label',
      'address',
      'balance.available',
      'balance.pending',
      'balance.currency',
      'status',
    ]);
    expect(s.rows[0]).toMatchObject({
      customer_id: other,
      asset: 'USDC',
      network: 'polygon',
      label: '',
      'balance.available': '0.000000',
      'balance.currency': 'USDC',
      status: 'active',
    });
    expect(s.rows[0]!.address).toMatch(/^0x[0-9a-f]{40}$/);
    usdc = s.rows[0]!.id!;
  });

  it('get: json and a key/value table with the balance in the asset', async () => {
    const [j, t] = await Promise.all([
      w.pay(['wallets', 'get', btc, '--json']),
      w.pay(['wallets', 'get', btc, '-o', 'table', '--no-names']),
    ]);
    expect(json(j)).toMatchObject({ id: btc, asset: 'BTC' });
    const kv = keyValues(t);
    expect([kv.get('id'), kv.get('balance.available'), kv.get('balance.pending'), kv.get('created_at')]).toEqual([
      btc,
      '0.00000000 BTC',
      '0.00000000 BTC',
      expect.stringMatching(TABLE_TIME),
    ]);
  });

  it('list: tsv, table (balance with the asset), json, ndjson; --customer and --asset filters', async () => {
    const m = w.mark();
    const [t, tb, byCus, byAsset] = await Promise.all([
      w.pay(['wallets', 'list']),
      w.pay(['wallets', 'list', '-o', 'table', '--no-names']),
      w.pay(['wallets', 'list', '--customer', cus, '--json']),
      w.pay(['wallets', 'list', '--asset', 'USDC', '-o', 'ndjson', '--fields', 'id,network']),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual([
      'id',
      'customer_id',
      'asset',
      'network',
      'address',
      'balance.available',
      'balance.pending',
      'status',
      'created_at',
    ]);
    expect(s.rows.map((r) => [r.id, r.asset, r['balance.available']])).toEqual([
      [usdc, 'USDC', '0.000000'],
      [btc, 'BTC', '0.00000000'],
    ]);
    const tbl = table(tb);
    expect(tbl.header).toEqual(['ID', 'CUSTOMER', 'ASSET', 'NETWORK', 'ADDRESS', 'AVAILABLE', 'PENDING', 'STATUS', 'CREATED']);
    expect(tbl.rows[1]).toEqual([
      btc,
      cus,
      'BTC',
      'bitcoin',
      expect.any(String),
      '0.00000000 BTC',
      '0.00000000 BTC',
      'active',
      expect.stringMatching(TABLE_TIME),
    ]);
    expect(tbl.rows[0]?.[5]).toBe('0.000000 USDC');
    expect((json(byCus) as unknown as Obj[]).map((x) => x.id)).toEqual([btc]);
    expect(ndjson(byAsset)).toEqual([{ id: usdc, network: 'polygon' }]);
    expect(w.since(m, 'GET', '/v1/wallets').map((r) => r.query)).toEqual(
      expect.arrayContaining([
        { limit: '20', customer_id: cus },
        { limit: '20', asset: 'USDC' },
      ]),
    );
  });

  it('a paid payment link credits the wallet (balance in the asset)', async () => {
    const link = await w.api('POST', 'payment-links', { wallet_id: usdc, amount: '12.5', asset: 'USDC' });
    const paid = await fetch(`${w.emu.url}/__emulator/payment-links/${link.id}/pay`, { method: 'POST' });
    expect(paid.status).toBe(200);
    expect(ok(await w.pay(['wallets', 'get', usdc, '--fields', 'balance.available,balance.currency', '--no-header']))).toBe(
      '12.500000\tUSDC\n',
    );
  });

  it('usage errors send nothing: an asset on the wrong network, an unknown asset; unknown id is exit 4', async () => {
    const m = w.mark();
    const [pair, asset, nf] = await Promise.all([
      w.pay(['wallets', 'create', '--customer', cus, '--asset', 'BTC', '--network', 'polygon']),
      w.pay(['wallets', 'create', '--customer', cus, '--asset', 'DOGE', '--network', 'bitcoin']),
      w.pay(['wallets', 'get', 'wal_000000000000000000000000']),
    ]);
    usageError(pair, /^error: --asset BTC is not available on --network polygon \(BTC works on bitcoin\)$/);
    usageError(asset, /^error: --asset "DOGE" must be one of BTC, ETH, USDC, USDT$/);
    apiError(nf, 4, 404, 'not_found');
    expect(w.since(m)).toHaveLength(1);
  });
});
