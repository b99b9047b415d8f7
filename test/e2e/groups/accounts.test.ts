// pay accounts against the emulator: create, get (balance with its currency), list (filters,
// tenant required), close (409 account_not_empty with a balance, invalid_state when closed).
// The forced tables here run with --no-names: the names beside ids (and the requests they cost)
// are tested in test/e2e/names.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ID,
  TABLE_TIME,
  apiError,
  customer,
  expectContractHeaders,
  json,
  jsonError,
  keyValues,
  ndjson,
  ok,
  startWorld,
  table,
  tsv,
  usageError,
  type Obj,
  type World,
} from './helpers.js';

const LIST_TSV = ['id', 'customer_id', 'type', 'status', 'balance.available', 'balance.pending', 'created_at'];
const LIST_TABLE = ['ID', 'CUSTOMER', 'TYPE', 'STATUS', 'AVAILABLE', 'PENDING', 'CREATED'];

let w: World;
let cus: string;
let other: string;
let usd: string;
let eur: string;
let spare: string;

beforeAll(async () => {
  w = await startWorld();
  [cus, other] = await Promise.all([customer(w), customer(w)]);
  await w.api('POST', `customers/${cus}/features/collections/activate`); // the business rules: collections need it
});
afterAll(() => w?.stop());

describe('pay accounts', () => {
  it('create --json: POST /accounts with the flags as fields; a zero balance in the currency', async () => {
    const m = w.mark();
    const a = json(await w.pay(['accounts', 'create', '--customer', cus, '--currency', 'usd', '--nickname', 'Main', '--json']));
    expect(a).toMatchObject({
      object: 'account',
      customer_id: cus,
      currency: 'USD',
      type: 'checking',
      nickname: 'Main',
      status: 'active',
      balance: { available: '0.00', pending: '0.00', currency: 'USD' },
    });
    expect(a.id).toMatch(ID('acc_'));
    expect(a.account_number).toMatch(/^\d{10}$/);
    usd = a.id;
    const reqs = w.since(m);
    expect(reqs.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/v1/accounts', { customer_id: cus, currency: 'USD', nickname: 'Main' }],
    ]);
    expectContractHeaders(reqs, w.emu);
  });

  it('create off a terminal: one tsv record', async () => {
    // One after the other: the list test below expects the JPY account to be the newer one.
    const e = await w.pay(['accounts', 'create', '--customer', cus, '--currency', 'EUR', '--type', 'savings']);
    const s = await w.pay(['accounts', 'create', '--customer', other, '--currency', 'JPY']);
    const r = tsv(e);
    expect(r.header).toEqual([
      'id',
      'object',
      'livemode',
      'created_at',
      'updated_at',
      'customer_id',
      'currency',
      'type',
      'nickname',
      'status',
      'account_number',
      'balance.available',
      'balance.pending',
      'balance.currency',
    ]);
    expect(r.rows[0]).toMatchObject({
      customer_id: cus,
      currency: 'EUR',
      type: 'savings',
      nickname: '',
      status: 'active',
      'balance.available': '0.00',
      'balance.currency': 'EUR',
    });
    eur = r.rows[0]!.id!;
    const j = tsv(s).rows[0]!;
    expect(j).toMatchObject({ currency: 'JPY', 'balance.available': '0', 'balance.pending': '0' });
    spare = j.id!;
  });

  it('a funding collection: pending first, available once settled; get shows money with its currency', async () => {
    await w.api('POST', 'collections', { account_id: usd, amount: '100.00', currency: 'USD', method: 'card' });
    expect((await w.api('GET', `accounts/${usd}`)).balance).toEqual({ available: '0.00', pending: '100.00', currency: 'USD' });
    await w.settle();
    const [j, t] = await Promise.all([
      w.pay(['accounts', 'get', usd, '--json']),
      w.pay(['accounts', 'get', usd, '-o', 'table', '--no-names']),
    ]);
    expect(json(j).balance).toEqual({ available: '100.00', pending: '0.00', currency: 'USD' });
    const kv = keyValues(t);
    expect(kv.get('balance.available')).toBe('100.00 USD');
    expect(kv.get('balance.pending')).toBe('0.00 USD');
    expect(kv.get('created_at')).toMatch(TABLE_TIME);
  });

  it('list: tsv, table (money with currency), json, ndjson; sends the tenant', async () => {
    const m = w.mark();
    const [t, tb, j, nd] = await Promise.all([
      w.pay(['accounts', 'list']),
      w.pay(['accounts', 'list', '-o', 'table', '--no-names']),
      w.pay(['accounts', 'list', '--json']),
      w.pay(['accounts', 'list', '-o', 'ndjson', '--fields', 'id,currency,balance.available']),
    ]);
    const newest = [spare, eur, usd];
    const s = tsv(t);
    expect(s.header).toEqual(LIST_TSV);
    expect(s.rows.map((r) => r.id)).toEqual(newest);
    expect(s.rows[2]).toMatchObject({
      customer_id: cus,
      type: 'checking',
      status: 'active',
      'balance.available': '100.00',
      'balance.pending': '0.00',
    });
    const tbl = table(tb);
    expect(tbl.header).toEqual(LIST_TABLE);
    expect(tbl.rows.find((r) => r[0] === usd)).toEqual([
      usd,
      cus,
      'checking',
      'active',
      '100.00 USD',
      '0.00 USD',
      expect.stringMatching(TABLE_TIME),
    ]);
    expect(tbl.rows.find((r) => r[0] === eur)?.slice(4, 6)).toEqual(['0.00 EUR', '0.00 EUR']);
    expect(tbl.rows.find((r) => r[0] === spare)?.slice(4, 6)).toEqual(['0 JPY', '0 JPY']);
    expect((json(j) as unknown as Obj[]).map((a) => a.id)).toEqual(newest);
    expect(ndjson(nd)).toEqual([
      { id: spare, currency: 'JPY', balance: { available: '0' } },
      { id: eur, currency: 'EUR', balance: { available: '0.00' } },
      { id: usd, currency: 'USD', balance: { available: '100.00' } },
    ]);
    for (const r of w.since(m, 'GET', '/v1/accounts')) expect(r.headers['x-tenant-id']).toBe(w.emu.tenantId);
  });

  it('list filters: --customer, --currency, --status', async () => {
    const m = w.mark();
    const [byCus, byCur, closed] = await Promise.all([
      w.pay(['accounts', 'list', '--customer', other, '--no-header', '--fields', 'id']),
      w.pay(['accounts', 'list', '--currency', 'EUR', '--json']),
      w.pay(['accounts', 'list', '--status', 'closed']),
    ]);
    expect(ok(byCus)).toBe(`${spare}\n`);
    expect((json(byCur) as unknown as Obj[]).map((a) => a.id)).toEqual([eur]);
    expect([closed.code, closed.stdout, closed.stderr]).toEqual([0, '', 'No accounts found.\n']);
    expect(w.since(m, 'GET', '/v1/accounts').map((r) => r.query)).toEqual(
      expect.arrayContaining([
        { limit: '20', customer_id: other },
        { limit: '20', currency: 'EUR' },
        { limit: '20', status: 'closed' },
      ]),
    );
  });

  it('close with a balance is exit 5 (account_not_empty); an empty one closes; closing again is exit 5', async () => {
    expect(jsonError(await w.pay(['accounts', 'close', usd, '--json']), 5)).toMatchObject({
      code: 'account_not_empty',
      status: 409,
      method: 'POST',
      path: `/v1/accounts/${usd}/close`,
    });

    const m = w.mark();
    const [c] = ndjson(await w.pay(['accounts', 'close', eur, '-o', 'ndjson']));
    expect(c).toMatchObject({ id: eur, status: 'closed' });
    const reqs = w.since(m);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /v1/accounts/${eur}/close`]);
    expectContractHeaders(reqs, w.emu);

    const [again, listed] = await Promise.all([
      w.pay(['accounts', 'close', eur]),
      w.pay(['accounts', 'list', '--status', 'closed', '--no-header', '--fields', 'id,status']),
    ]);
    apiError(again, 5, 409, 'invalid_state', true);
    expect(ok(listed)).toBe(`${eur}\tclosed\n`);
    expect((await w.api('GET', `accounts/${usd}`)).status).toBe('active');
  });

  it('usage errors send nothing: no tenant for list, a bad currency, a bad id; an unknown id is exit 4', async () => {
    const m = w.mark();
    const [noTenant, badCur, badId, nf] = await Promise.all([
      w.pay(['accounts', 'list'], { env: { PAY_TENANT_ID: undefined } }),
      w.pay(['accounts', 'create', '--customer', cus, '--currency', 'DOLLARS']),
      w.pay(['accounts', 'get', 'cus_000000000000000000000000']),
      w.pay(['accounts', 'get', 'acc_000000000000000000000000']),
    ]);
    usageError(noTenant, /^error: pay accounts list needs a tenant id \(x-tenant-id\)$/);
    usageError(badCur, /^error: --currency "DOLLARS" must be one of USD, EUR, GBP, NGN, KES, GHS, ZAR, JPY, CAD, KWD/);
    usageError(badId, /^error: id "cus_000000000000000000000000" must be an id like acc_…/);
    apiError(nf, 4, 404, 'not_found');
    expect(w.since(m).map((r) => r.path)).toEqual(['/v1/accounts/acc_000000000000000000000000']);
  });
});
