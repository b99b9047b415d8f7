// pay external-accounts against the emulator: add (the full number never comes back), get, list,
// remove (DELETE; removing twice is exit 5), and a payout to one.
// The forced tables here run with --no-names: the names beside ids (and the requests they cost)
// are tested in test/e2e/names.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  account,
  apiError,
  customer,
  enabledCustomer,
  expectContractHeaders,
  fund,
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

const ADD = [
  '--account-holder-name',
  'Ada Lovelace',
  '--bank-name',
  'First Bank',
  '--account-number',
  '000123456789',
  '--routing-number',
  '021000021',
  '--country',
  'US',
  '--currency',
  'USD',
];

let w: World;
let cus: string;
let other: string;
let us: string;
let gb: string;

beforeAll(async () => {
  w = await startWorld();
  [cus, other] = await Promise.all([enabledCustomer(w), customer(w)]); // the business rules: KYC approved, features active
});
afterAll(() => w?.stop());

describe('pay external-accounts', () => {
  it('add off a terminal: one tsv record with only the last 4 digits; the request has the full number', async () => {
    const m = w.mark();
    const r = await w.pay(['external-accounts', 'add', '--customer', cus, ...ADD]);
    expect(r.stdout).not.toContain('000123456789');
    const s = tsv(r);
    expect(s.rows[0]).toMatchObject({
      object: 'external_account',
      customer_id: cus,
      account_holder_name: 'Ada Lovelace',
      bank_name: 'First Bank',
      account_number_last4: '6789',
      country: 'US',
      currency: 'USD',
      status: 'active',
    });
    expect(s.header).not.toContain('account_number');
    us = s.rows[0]!.id!;
    expect(us).toMatch(ID('ea_'));
    const reqs = w.since(m);
    expect(reqs.map((q) => [q.method, q.path, q.body])).toEqual([
      [
        'POST',
        '/v1/external-accounts',
        {
          customer_id: cus,
          account_holder_name: 'Ada Lovelace',
          bank_name: 'First Bank',
          account_number: '000123456789',
          routing_number: '021000021',
          country: 'US',
          currency: 'USD',
        },
      ],
    ]);
    expectContractHeaders(reqs, w.emu);
  });

  it('add --json with an IBAN', async () => {
    const e = json(
      await w.pay([
        'external-accounts',
        'add',
        '--customer',
        other,
        '--account-holder-name',
        'Alan Turing',
        '--bank-name',
        'Barclays',
        '--account-number',
        '31926819',
        '--iban',
        'GB29NWBK60161331926819',
        '--country',
        'GB',
        '--currency',
        'GBP',
        '--json',
      ]),
    );
    expect(e).toMatchObject({
      object: 'external_account',
      customer_id: other,
      account_number_last4: '6819',
      country: 'GB',
      currency: 'GBP',
      status: 'active',
    });
    expect(JSON.stringify(e)).not.toContain('31926819');
    gb = e.id;
  });

  it('get (json, key/value table) and list (tsv, table, json, ndjson, --customer)', async () => {
    const [g, gt, t, tb, j, nd] = await Promise.all([
      w.pay(['external-accounts', 'get', us, '--json']),
      w.pay(['external-accounts', 'get', us, '-o', 'table', '--no-names']),
      w.pay(['external-accounts', 'list']),
      w.pay(['external-accounts', 'list', '-o', 'table', '--no-names']),
      w.pay(['external-accounts', 'list', '--customer', other, '--json']),
      w.pay(['external-accounts', 'list', '-o', 'ndjson', '--fields', 'id,account_number_last4']),
    ]);
    expect(json(g)).toMatchObject({ id: us, account_number_last4: '6789', status: 'active' });
    const kv = keyValues(gt);
    expect([kv.get('id'), kv.get('bank_name'), kv.get('status')]).toEqual([us, 'First Bank', 'active']);
    const s = tsv(t);
    expect(s.header).toEqual([
      'id',
      'customer_id',
      'account_holder_name',
      'bank_name',
      'account_number_last4',
      'country',
      'currency',
      'status',
      'created_at',
    ]);
    expect(s.rows.map((r) => r.id)).toEqual([gb, us]);
    const tbl = table(tb);
    expect(tbl.header).toEqual(['ID', 'CUSTOMER', 'HOLDER', 'BANK', 'NUMBER', 'COUNTRY', 'CURRENCY', 'STATUS', 'CREATED']);
    expect(tbl.rows[1]).toEqual([us, cus, 'Ada Lovelace', 'First Bank', '6789', 'US', 'USD', 'active', expect.stringMatching(TABLE_TIME)]);
    expect((json(j) as unknown as Obj[]).map((e) => e.id)).toEqual([gb]);
    expect(ndjson(nd)).toEqual([
      { id: gb, account_number_last4: '6819' },
      { id: us, account_number_last4: '6789' },
    ]);
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('a transfer pays out to it and completes', async () => {
    const acc = await account(w, cus);
    await fund(w, acc, '50.00');
    const t = json(await w.pay(['transfers', 'send', '--from', acc, '--to', us, '--amount', '12.34', '--currency', 'USD', '--json']));
    expect(t).toMatchObject({ destination_id: us, destination_type: 'external_account', status: 'pending' });
    await w.settle();
    expect((await w.api('GET', `transfers/${t.id}`)).status).toBe('completed');
    expect((await w.api('GET', `accounts/${acc}`)).balance.available).toBe('37.66');
  });

  it('remove: DELETE, status removed; again is exit 5; still listed as removed; no payouts to it', async () => {
    const m = w.mark();
    const [r] = ndjson(await w.pay(['external-accounts', 'remove', us, '-o', 'ndjson']));
    expect(r).toMatchObject({ id: us, status: 'removed' });
    expect(w.since(m).map((q) => `${q.method} ${q.path}`)).toEqual([`DELETE /v1/external-accounts/${us}`]);
    const acc = await account(w, cus);
    await fund(w, acc, '5.00');
    const [again, listed, payout] = await Promise.all([
      w.pay(['external-accounts', 'remove', us]),
      w.pay(['external-accounts', 'list', '--customer', cus, '--no-header', '--fields', 'id,status']),
      w.pay(['transfers', 'send', '--from', acc, '--to', us, '--amount', '1.00', '--currency', 'USD']),
    ]);
    apiError(again, 5, 409, 'invalid_state');
    expect(ok(listed)).toBe(`${us}\tremoved\n`);
    expect(apiError(payout, 5, 409, 'invalid_state', true)).toContain(`the destination ${us} is removed`);
  });

  it('usage errors send nothing; an unknown id is exit 4', async () => {
    const m = w.mark();
    const [missing, badCountry, nf] = await Promise.all([
      w.pay(['external-accounts', 'add', '--customer', cus, '--bank-name', 'X']),
      w.pay(['external-accounts', 'add', '--customer', cus, ...ADD.slice(0, -4), '--country', 'ZZ', '--currency', 'USD']),
      w.pay(['external-accounts', 'get', 'ea_000000000000000000000000']),
    ]);
    usageError(missing, /^error: missing required flags: --account-holder-name, --account-number, --country, --currency$/);
    usageError(badCountry, /--country "ZZ"/);
    apiError(nf, 4, 404, 'not_found');
    expect(w.since(m)).toHaveLength(1);
  });
});
