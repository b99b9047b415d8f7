// pay cards against the emulator: issue virtual (active) and physical (inactive until it settles),
// freeze ⇄ unfreeze, terminate (final), invalid transitions → exit 5, never a full PAN or CVV.
// The forced tables here run with --no-names: the names beside ids (and the requests they cost)
// are tested in test/e2e/names.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  account,
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

const SHIP = ['--address-line1', '1 Congress Ave', '--city', 'Austin', '--country', 'US', '--postal-code', '78701', '--state', 'US-TX'];

let w: World;
let cus: string;
let acc: string;
let virt: string;
let phys: string;

beforeAll(async () => {
  w = await startWorld();
  cus = await enabledCustomer(w); // the business rules: KYC approved, features active
  acc = await account(w, cus);
});
afterAll(() => w?.stop());

describe('pay cards', () => {
  it('issue a virtual card (json): active at once; a spending limit goes as a nested object', async () => {
    const m = w.mark();
    const c = json(
      await w.pay([
        'cards',
        'issue',
        '--customer',
        cus,
        '--account',
        acc,
        '--type',
        'virtual',
        '--name-on-card',
        'ADA LOVELACE',
        '--spending-limit',
        '500.00',
        '--spending-interval',
        'monthly',
        '--json',
      ]),
    );
    expect(c).toMatchObject({
      object: 'card',
      customer_id: cus,
      account_id: acc,
      type: 'virtual',
      brand: 'visa',
      status: 'active',
      name_on_card: 'ADA LOVELACE',
      spending_limit: { amount: '500.00', interval: 'monthly' },
    });
    expect(c.id).toMatch(ID('card_'));
    expect(c.last4).toMatch(/^\d{4}$/);
    for (const k of ['number', 'pan', 'cvv', 'cvc']) expect(c).not.toHaveProperty(k);
    virt = c.id;
    const reqs = w.since(m);
    expect(reqs.map((r) => [r.method, r.path, r.body])).toEqual([
      [
        'POST',
        '/v1/cards',
        {
          customer_id: cus,
          account_id: acc,
          type: 'virtual',
          name_on_card: 'ADA LOVELACE',
          spending_limit: { amount: '500.00', interval: 'monthly' },
        },
      ],
    ]);
    expectContractHeaders(reqs, w.emu);
  });

  it('issue a physical card (tsv): inactive, with its shipping address; active once it settles', async () => {
    const s = tsv(await w.pay(['cards', 'issue', '--customer', cus, '--account', acc, '--type', 'physical', ...SHIP]));
    expect(s.rows[0]).toMatchObject({
      type: 'physical',
      status: 'inactive',
      'shipping_address.city': 'Austin',
      'shipping_address.state': 'US-TX',
    });
    phys = s.rows[0]!.id!;
    // inactive cannot be frozen
    apiError(await w.pay(['cards', 'freeze', phys]), 5, 409, 'invalid_state', true);
    await w.settle();
    expect(ok(await w.pay(['cards', 'get', phys, '--fields', 'status', '--no-header']))).toBe('active\n');
  });

  it('freeze → frozen (json); freezing again is exit 5; unfreeze → active (ndjson)', async () => {
    const m = w.mark();
    expect(json(await w.pay(['cards', 'freeze', virt, '--json']))).toMatchObject({ id: virt, status: 'frozen' });
    const again = await w.pay(['cards', 'freeze', virt]);
    expect(apiError(again, 5, 409, 'invalid_state', true)).toContain(`card ${virt} is frozen`);
    const [u] = ndjson(await w.pay(['cards', 'unfreeze', virt, '-o', 'ndjson']));
    expect(u).toMatchObject({ id: virt, status: 'active' });
    const reqs = w.since(m);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /v1/cards/${virt}/freeze`,
      `POST /v1/cards/${virt}/freeze`,
      `POST /v1/cards/${virt}/unfreeze`,
    ]);
    expectContractHeaders(reqs, w.emu);
  });

  it('terminate (table view) is final: unfreeze or terminate after it is exit 5', async () => {
    await w.api('POST', `cards/${phys}/freeze`);
    const kv = keyValues(await w.pay(['cards', 'terminate', phys, '-o', 'table']));
    expect([kv.get('id'), kv.get('status')]).toEqual([phys, 'terminated']);
    const [unfreeze, terminate] = await Promise.all([w.pay(['cards', 'unfreeze', phys]), w.pay(['cards', 'terminate', phys, '--json'])]);
    expect(apiError(unfreeze, 5, 409, 'invalid_state', true)).toContain('terminated');
    expect(jsonError(terminate, 5)).toMatchObject({ code: 'invalid_state', status: 409, path: `/v1/cards/${phys}/terminate` });
  });

  it('get and list: tsv, table, json, ndjson; --type, --status, --account filters', async () => {
    const [g, t, tb, byType, byStatus, nd] = await Promise.all([
      w.pay(['cards', 'get', virt, '-o', 'table', '--no-names']),
      w.pay(['cards', 'list']),
      w.pay(['cards', 'list', '-o', 'table', '--no-names']),
      w.pay(['cards', 'list', '--type', 'physical', '--json']),
      w.pay(['cards', 'list', '--status', 'active', '--account', acc, '--no-header', '--fields', 'id']),
      w.pay(['cards', 'list', '--customer', cus, '-o', 'ndjson', '--fields', 'id,status,last4']),
    ]);
    const kv = keyValues(g);
    expect([kv.get('status'), kv.get('spending_limit.amount'), kv.get('spending_limit.interval'), kv.get('created_at')]).toEqual([
      'active',
      '500.00',
      'monthly',
      expect.stringMatching(TABLE_TIME),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual([
      'id',
      'customer_id',
      'account_id',
      'type',
      'brand',
      'last4',
      'exp_month',
      'exp_year',
      'status',
      'created_at',
    ]);
    expect(s.rows.map((r) => [r.id, r.type, r.status])).toEqual([
      [phys, 'physical', 'terminated'],
      [virt, 'virtual', 'active'],
    ]);
    expect(s.rows[1]!.exp_year).toMatch(/^20\d\d$/);
    const tbl = table(tb);
    expect(tbl.header).toEqual(['ID', 'CUSTOMER', 'ACCOUNT', 'TYPE', 'BRAND', 'LAST4', 'EXP MONTH', 'EXP YEAR', 'STATUS', 'CREATED']);
    expect(tbl.rows[1]).toEqual([
      virt,
      cus,
      acc,
      'virtual',
      'visa',
      expect.stringMatching(/^\d{4}$/),
      expect.stringMatching(/^\d{1,2}$/),
      expect.stringMatching(/^20\d\d$/),
      'active',
      expect.stringMatching(TABLE_TIME),
    ]);
    expect((json(byType) as unknown as Obj[]).map((c) => c.id)).toEqual([phys]);
    expect(ok(byStatus)).toBe(`${virt}\n`);
    expect(ndjson(nd).map((c) => [c.id, c.status])).toEqual([
      [phys, 'terminated'],
      [virt, 'active'],
    ]);
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('usage errors send nothing: physical without an address, a limit without its interval, a bad type; unknown id is exit 4', async () => {
    const m = w.mark();
    const [noAddr, noInterval, badType, nf] = await Promise.all([
      w.pay(['cards', 'issue', '--customer', cus, '--account', acc, '--type', 'physical']),
      w.pay(['cards', 'issue', '--customer', cus, '--account', acc, '--type', 'virtual', '--spending-limit', '10']),
      w.pay(['cards', 'issue', '--customer', cus, '--account', acc, '--type', 'metal']),
      w.pay(['cards', 'get', 'card_000000000000000000000000']),
    ]);
    usageError(noAddr, /^error: --type physical needs --address-line1, --city, --country, --postal-code$/);
    usageError(noInterval, /^error: --spending-limit also needs --spending-interval$/);
    usageError(badType, /^error: option '--type <type>' argument 'metal' is invalid. Allowed choices are virtual, physical.$/);
    apiError(nf, 4, 404, 'not_found');
    expect(w.since(m)).toHaveLength(1);
  });
});
