// pay payment-links against the emulator: create (amount in the asset's precision), get, list,
// disable (active → disabled; again → exit 5), expiry when the clock passes expires_at, paid links.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiError,
  enabledCustomer,
  expectContractHeaders,
  ID,
  json,
  jsonError,
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
let wal: string;
let btcWal: string;
const links: Record<string, string> = {};

async function emulatorNow(): Promise<number> {
  const r = await fetch(`${w.emu.url}/__emulator/clock`);
  return Date.parse(((await r.json()) as { now: string }).now);
}

beforeAll(async () => {
  w = await startWorld();
  const cus = await enabledCustomer(w); // the business rules: KYC approved, features active
  [wal, btcWal] = await Promise.all([
    w.api('POST', 'wallets', { customer_id: cus, asset: 'USDC', network: 'polygon' }).then((x) => x.id as string),
    w.api('POST', 'wallets', { customer_id: cus, asset: 'BTC', network: 'bitcoin' }).then((x) => x.id as string),
  ]);
});
afterAll(() => w?.stop());

describe('pay payment-links', () => {
  it('create (tsv): active, with a URL; the POST sends the asset and the amount', async () => {
    const m = w.mark();
    const s = tsv(
      await w.pay(['payment-links', 'create', '--wallet', wal, '--amount', '49.99', '--asset', 'usdc', '--description', 'Pro plan']),
    );
    expect(s.header).toEqual([
      'id',
      'object',
      'livemode',
      'created_at',
      'updated_at',
      'wallet_id',
      'amount',
      'asset',
      'description',
      'expires_at',
      'url',
      'status',
    ]);
    const l = s.rows[0]!;
    expect(l).toMatchObject({
      object: 'payment_link',
      wallet_id: wal,
      amount: '49.990000',
      asset: 'USDC',
      description: 'Pro plan',
      expires_at: '',
      status: 'active',
    });
    expect(l.id).toMatch(ID('plink_'));
    expect(l.url).toMatch(/^https:\/\//);
    links.pro = l.id!;
    const reqs = w.since(m);
    expect(reqs.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/v1/payment-links', { wallet_id: wal, amount: '49.990000', asset: 'USDC', description: 'Pro plan' }],
    ]);
    expectContractHeaders(reqs, w.emu);
  });

  it('create --json with --expires-at; it expires when the emulator clock passes it', async () => {
    const at = new Date(Math.ceil(((await emulatorNow()) + 30_000) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const l = json(
      await w.pay(['payment-links', 'create', '--wallet', btcWal, '--amount', '0.015', '--asset', 'BTC', '--expires-at', at, '--json']),
    );
    expect(l).toMatchObject({ amount: '0.01500000', asset: 'BTC', status: 'active', expires_at: at.replace('Z', '.000Z') });
    links.expiring = l.id;
    await w.settle(31);
    expect(ok(await w.pay(['payment-links', 'get', l.id, '--fields', 'status', '--no-header']))).toBe('expired\n');
  });

  it('get: json and a key/value table with the amount in its asset', async () => {
    const [j, t] = await Promise.all([
      w.pay(['payment-links', 'get', links.pro!, '--json']),
      w.pay(['payment-links', 'get', links.pro!, '-o', 'table']),
    ]);
    expect(json(j)).toMatchObject({ id: links.pro, status: 'active', amount: '49.990000' });
    const kv = keyValues(t);
    expect([kv.get('id'), kv.get('amount'), kv.get('status'), kv.get('created_at')]).toEqual([
      links.pro,
      '49.990000 USDC',
      'active',
      expect.stringMatching(TABLE_TIME),
    ]);
  });

  it('disable (ndjson) → disabled; again is exit 5; an expired or paid link cannot be disabled', async () => {
    const m = w.mark();
    const [d] = ndjson(await w.pay(['payment-links', 'disable', links.pro!, '-o', 'ndjson']));
    expect(d).toMatchObject({ id: links.pro, status: 'disabled' });
    const reqs = w.since(m);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /v1/payment-links/${links.pro}/disable`]);
    expectContractHeaders(reqs, w.emu);

    const paid = await w.api('POST', 'payment-links', { wallet_id: wal, amount: '5', asset: 'USDC' });
    expect((await fetch(`${w.emu.url}/__emulator/payment-links/${paid.id}/pay`, { method: 'POST' })).status).toBe(200);
    links.paid = paid.id;
    const [again, expired, paidOne] = await Promise.all([
      w.pay(['payment-links', 'disable', links.pro!]),
      w.pay(['payment-links', 'disable', links.expiring!, '--json']),
      w.pay(['payment-links', 'disable', paid.id]),
    ]);
    apiError(again, 5, 409, 'invalid_state', true);
    expect(jsonError(expired, 5)).toMatchObject({ code: 'invalid_state', status: 409 });
    apiError(paidOne, 5, 409, 'invalid_state', true);
  });

  it('list: tsv, table (amount with asset), json; --status and --wallet filters', async () => {
    const [t, tb, disabled, byWallet] = await Promise.all([
      w.pay(['payment-links', 'list']),
      w.pay(['payment-links', 'list', '-o', 'table']),
      w.pay(['payment-links', 'list', '--status', 'disabled', '--json']),
      w.pay(['payment-links', 'list', '--wallet', wal, '--no-header', '--fields', 'id,status']),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual(['id', 'wallet_id', 'amount', 'status', 'url', 'expires_at', 'created_at']);
    expect(Object.fromEntries(s.rows.map((r) => [r.id, r.status]))).toEqual({
      [links.pro!]: 'disabled',
      [links.expiring!]: 'expired',
      [links.paid!]: 'paid',
    });
    const tbl = table(tb);
    expect(tbl.header).toEqual(['ID', 'WALLET', 'AMOUNT', 'STATUS', 'URL', 'EXPIRES', 'CREATED']);
    expect(tbl.rows.find((r) => r[0] === links.pro)).toEqual([
      links.pro,
      wal,
      '49.990000 USDC',
      'disabled',
      expect.stringMatching(/^https:\/\//),
      '-',
      expect.stringMatching(TABLE_TIME),
    ]);
    expect(tbl.rows.find((r) => r[0] === links.expiring)?.slice(2, 6)).toEqual([
      '0.01500000 BTC',
      'expired',
      expect.stringMatching(/^https:\/\//),
      expect.stringMatching(TABLE_TIME),
    ]);
    expect((json(disabled) as unknown as Obj[]).map((l) => l.id)).toEqual([links.pro]);
    expect(ok(byWallet)).toBe(`${links.paid}\tpaid\n${links.pro}\tdisabled\n`);
  });

  it('usage errors send nothing: more decimals than the asset has, an expiry that is not a time; unknown id is exit 4', async () => {
    const m = w.mark();
    const [decimals, badTime, nf] = await Promise.all([
      w.pay(['payment-links', 'create', '--wallet', wal, '--amount', '1.0000001', '--asset', 'USDC']),
      w.pay(['payment-links', 'create', '--wallet', wal, '--amount', '1', '--asset', 'USDC', '--expires-at', 'tomorrow']),
      w.pay(['payment-links', 'get', 'plink_000000000000000000000000']),
    ]);
    usageError(decimals, /^error: --amount: USDC allows at most 6 decimals \(got "1.0000001"\)$/);
    usageError(badTime, /^error: --expires-at "tomorrow" must be an RFC 3339 time/);
    apiError(nf, 4, 404, 'not_found');
    expect(w.since(m)).toHaveLength(1);
  });
});
