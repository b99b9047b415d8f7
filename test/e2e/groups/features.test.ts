// pay features against the emulator: the catalogue, check and activate, and the KYC gate
// (a requires_kyc feature is not eligible until the customer's KYC is approved: exit 1 with the API code).
// The forced tables here run with --no-names: the names beside ids (and the requests they cost)
// are tested in test/e2e/names.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiError,
  approveKyc,
  customer,
  expectContractHeaders,
  json,
  jsonError,
  keyValues,
  ndjson,
  startWorld,
  table,
  tsv,
  usageError,
  type World,
} from './helpers.js';

const KEYS = ['cards', 'collections', 'crypto_wallets', 'payment_links', 'fx', 'international_transfers'];
const NEEDS_KYC: Record<string, string> = {
  cards: 'true',
  collections: 'false',
  crypto_wallets: 'true',
  payment_links: 'true',
  fx: 'false',
  international_transfers: 'true',
};

let w: World;
let cus: string;

beforeAll(async () => {
  w = await startWorld();
  cus = await customer(w);
});
afterAll(() => w?.stop());

describe('pay features', () => {
  it('list in tsv, table and json', async () => {
    const [t, tb, j] = await Promise.all([
      w.pay(['features', 'list']),
      w.pay(['features', 'list', '-o', 'table', '--no-names']),
      w.pay(['features', 'list', '--json']),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual(['key', 'name', 'requires_kyc', 'description']);
    expect(s.rows.map((r) => r.key).sort()).toEqual([...KEYS].sort());
    for (const r of s.rows) expect(r.requires_kyc).toBe(NEEDS_KYC[r.key!]);
    const tbl = table(tb);
    expect(tbl.header).toEqual(['KEY', 'NAME', 'REQUIRES KYC', 'DESCRIPTION']);
    expect(tbl.rows.find((r) => r[0] === 'cards')?.slice(0, 3)).toEqual(['cards', 'Cards', 'true']);
    const list = json(j) as unknown as Array<Record<string, unknown>>;
    expect(list).toHaveLength(6);
    for (const f of list)
      expect(f).toMatchObject({
        key: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        requires_kyc: NEEDS_KYC[f.key as string] === 'true',
      });
  });

  it('check before KYC: not eligible, with the reason (json and table)', async () => {
    const m = w.mark();
    const [j, t] = await Promise.all([
      w.pay(['features', 'check', cus, '--feature', 'cards', '--json']),
      w.pay(['features', 'check', cus, '--feature', 'cards', '-o', 'table', '--no-names']),
    ]);
    expect(json(j)).toEqual({
      object: 'feature_status',
      customer_id: cus,
      feature: 'cards',
      eligible: false,
      active: false,
      reasons: [expect.stringMatching(/kyc/i)],
      activated_at: null,
    });
    const kv = keyValues(t);
    expect([kv.get('eligible'), kv.get('active'), kv.get('activated_at')]).toEqual(['false', 'false', '-']);
    expect(w.since(m).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/customers/${cus}/features/cards`,
      `GET /v1/customers/${cus}/features/cards`,
    ]);
  });

  it('activate before KYC is exit 1 with feature_not_eligible (text and --json error)', async () => {
    const m = w.mark();
    const [t, j] = await Promise.all([
      w.pay(['features', 'activate', cus, '--feature', 'cards']),
      w.pay(['features', 'activate', cus, '--feature', 'cards', '--json']),
    ]);
    apiError(t, 1, 422, 'feature_not_eligible', true);
    expect(jsonError(j, 1)).toMatchObject({
      code: 'feature_not_eligible',
      status: 422,
      method: 'POST',
      path: `/v1/customers/${cus}/features/cards/activate`,
    });
    const reqs = w.since(m);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual(Array(2).fill(`POST /v1/customers/${cus}/features/cards/activate`));
    expectContractHeaders(reqs, w.emu);
  });

  it('a feature without requires_kyc activates at once', async () => {
    const s = json(await w.pay(['features', 'activate', cus, '--feature', 'collections', '--json']));
    expect(s).toMatchObject({ feature: 'collections', eligible: true, active: true, activated_at: expect.any(String) });
  });

  it('after KYC approval: cards activates (tsv), then check shows it active (ndjson)', async () => {
    await approveKyc(w, cus);
    const a = tsv(await w.pay(['features', 'activate', cus, '--feature', 'cards']));
    expect(a.rows).toHaveLength(1);
    expect(a.rows[0]).toMatchObject({
      object: 'feature_status',
      customer_id: cus,
      feature: 'cards',
      eligible: 'true',
      active: 'true',
      reasons: '[]',
    });
    const [c] = ndjson(await w.pay(['features', 'check', cus, '--feature', 'cards', '-o', 'ndjson']));
    expect(c).toMatchObject({ eligible: true, active: true, reasons: [] });
    expect(c!.activated_at).toEqual(expect.any(String));
  });

  it('an unknown feature or a bad customer id is exit 2 and nothing is sent; an unknown customer is exit 4', async () => {
    const m = w.mark();
    const [bad, badId, nf] = await Promise.all([
      w.pay(['features', 'check', cus, '--feature', 'teleport']),
      w.pay(['features', 'check', 'acc_000000000000000000000000', '--feature', 'cards']),
      w.pay(['features', 'check', 'cus_000000000000000000000000', '--feature', 'cards']),
    ]);
    usageError(bad, /^error: option '--feature <feature>' argument 'teleport' is invalid/);
    usageError(badId, /^error: customer-id "acc_000000000000000000000000" must be an id like cus_…/);
    apiError(nf, 4, 404, 'not_found');
    expect(w.since(m)).toHaveLength(1);
  });
});
