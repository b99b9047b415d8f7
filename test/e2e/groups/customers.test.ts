// pay customers against the emulator: create (seed body), get, list (filters, --all), update,
// in every output format, with the request the server received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ID,
  ISO,
  TABLE_TIME,
  UUID,
  apiError,
  expectContractHeaders,
  json,
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
import { ADA_BODY, customerFlags } from '../../helpers/fixtures.js';

// The country as a user may type it (lower case): sent upper case.
const FLAGS = customerFlags({ '--country': 'gb' });
const SEED_BODY = ADA_BODY;
const LIST_TSV = ['id', 'first_name', 'last_name', 'email', 'type', 'kyc_status', 'created_at'];
const LIST_TABLE = ['ID', 'FIRST NAME', 'LAST NAME', 'EMAIL', 'TYPE', 'KYC', 'CREATED'];

let w: World;
const ids: string[] = [];

beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w?.stop());

describe('pay customers', () => {
  it('create --json sends the seed body and prints the created customer', async () => {
    const m = w.mark();
    const c = json(await w.pay(['customers', 'create', ...FLAGS, '--json']));
    expect(c).toMatchObject({
      ...SEED_BODY,
      object: 'customer',
      livemode: false,
      kyc_status: 'not_started',
      middle_name: null,
      gender: null,
    });
    expect(c.id).toMatch(ID('cus_'));
    expect(c.created_at).toMatch(ISO);
    ids.push(c.id);
    const [req, ...rest] = w.since(m);
    expect(rest).toEqual([]);
    expect(req).toMatchObject({ method: 'POST', path: '/v1/customers', body: SEED_BODY });
    expectContractHeaders([req!], w.emu);
  });

  it('create off a terminal prints one tsv record (header, values), nothing on stderr', async () => {
    const r = tsv(
      await w.pay([
        'customers',
        'create',
        ...FLAGS,
        '--first-name',
        'Grace',
        '--last-name',
        'Hopper',
        '--email',
        'grace@example.com',
        '--type',
        'business',
        '--gender',
        'female',
      ]),
    );
    expect(r.header).toEqual([
      'id',
      'object',
      'livemode',
      'created_at',
      'updated_at',
      'first_name',
      'last_name',
      'middle_name',
      'email',
      'phone',
      'type',
      'gender',
      'date_of_birth',
      'address.address_line1',
      'address.city',
      'address.country',
      'address.postal_code',
      'address.state',
      'kyc_status',
    ]);
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]).toMatchObject({
      first_name: 'Grace',
      last_name: 'Hopper',
      type: 'business',
      gender: 'female',
      middle_name: '',
      'address.country': 'GB',
    });
    ids.push(r.rows[0]!.id!);
    // A third, through --data @- merged under a flag.
    const third = json(
      await w.pay(['customers', 'create', '--data', '@-', '--first-name', 'Alan', '--json'], {
        stdin: JSON.stringify({ ...SEED_BODY, email: 'alan@example.com', first_name: 'X' }),
      }),
    );
    expect(third).toMatchObject({ first_name: 'Alan', email: 'alan@example.com' });
    ids.push(third.id);
  });

  it('get prints the same object (json), and a key/value table with readable times', async () => {
    const [j, t] = await Promise.all([w.pay(['customers', 'get', ids[0]!, '--json']), w.pay(['customers', 'get', ids[0]!, '-o', 'table'])]);
    const c = json(j);
    expect(c).toMatchObject({ id: ids[0], ...SEED_BODY });
    const kv = keyValues(t);
    expect(kv.get('id')).toBe(ids[0]);
    expect(kv.get('address.city')).toBe('London');
    expect(kv.get('middle_name')).toBe('-');
    expect(kv.get('created_at')).toMatch(TABLE_TIME);
  });

  it('list: tsv by default, table, json array and ndjson, newest first', async () => {
    const [t, tb, j, nd] = await Promise.all([
      w.pay(['customers', 'list']),
      w.pay(['customers', 'list', '-o', 'table']),
      w.pay(['customers', 'list', '--json']),
      w.pay(['customers', 'list', '-o', 'ndjson', '--fields', 'id,address.country']),
    ]);
    const newest = [...ids].reverse();
    const s = tsv(t);
    expect(s.header).toEqual(LIST_TSV);
    expect(s.rows.map((r) => r.id)).toEqual(newest);
    expect(s.rows[2]).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      type: 'individual',
      kyc_status: 'not_started',
    });
    expect(s.rows[2]!.created_at).toMatch(ISO);
    const tbl = table(tb);
    expect(tbl.header).toEqual(LIST_TABLE);
    expect(tbl.rows.map((r) => r[0])).toEqual(newest);
    expect(tbl.rows[2]).toEqual([
      ids[0],
      'Ada',
      'Lovelace',
      'ada@example.com',
      'individual',
      'not_started',
      expect.stringMatching(TABLE_TIME),
    ]);
    expect((json(j) as unknown as Array<{ id: string }>).map((c) => c.id)).toEqual(newest);
    expect(ndjson(nd)).toEqual(newest.map((id) => ({ id, address: { country: 'GB' } })));
  });

  it('list filters (--email, --type) go to the server as query fields', async () => {
    const m = w.mark();
    const [byEmail, byType] = await Promise.all([
      w.pay(['customers', 'list', '--email', 'grace@example.com', '--json']),
      w.pay(['customers', 'list', '--type', 'business', '--no-header', '--fields', 'id']),
    ]);
    expect((json(byEmail) as unknown as Obj[]).map((c) => c.id)).toEqual([ids[1]]);
    expect(ok(byType)).toBe(`${ids[1]}\n`);
    const queries = w.since(m, 'GET', '/v1/customers').map((r) => r.query);
    expect(queries).toEqual(
      expect.arrayContaining([
        { limit: '20', email: 'grace@example.com' },
        { limit: '20', type: 'business' },
      ]),
    );
  });

  it('--all --limit 2 follows the cursor to the end', async () => {
    const m = w.mark();
    const all = json(await w.pay(['customers', 'list', '--all', '--limit', '2', '--json'])) as unknown as Obj[];
    expect(all.map((c) => c.id)).toEqual([...ids].reverse());
    const pages = w.since(m, 'GET', '/v1/customers');
    expect(pages).toHaveLength(2);
    expect(pages[0]!.query).toEqual({ limit: '2' });
    expect(pages[1]!.query).toEqual({ limit: '2', cursor: expect.any(String) });
  });

  it('an empty filtered list: nothing on stdout, a note on stderr, exit 0; [] with --json', async () => {
    const [t, j] = await Promise.all([
      w.pay(['customers', 'list', '--email', 'nobody@example.com']),
      w.pay(['customers', 'list', '--email', 'nobody@example.com', '--json']),
    ]);
    expect([t.code, t.stdout, t.stderr]).toEqual([0, '', 'No customers found.\n']);
    expect([j.code, j.stdout]).toEqual([0, '[]\n']);
  });

  it('update sends a PATCH with only the given fields; the change shows on get', async () => {
    const m = w.mark();
    const u = json(await w.pay(['customers', 'update', ids[0]!, '--email', 'ada.l@example.com', '--json']));
    expect(u).toMatchObject({ id: ids[0], email: 'ada.l@example.com', first_name: 'Ada' });
    expect(u.updated_at > u.created_at).toBe(true);
    const [req] = w.since(m);
    expect(req).toMatchObject({ method: 'PATCH', path: `/v1/customers/${ids[0]}`, body: { email: 'ada.l@example.com' } });
    expect(ok(await w.pay(['customers', 'get', ids[0]!, '--fields', 'email', '--no-header']))).toBe('ada.l@example.com\n');
  });

  it('errors: unknown id is exit 4; a missing field or an empty update is exit 2 and sends nothing', async () => {
    const m = w.mark();
    const [nf, missing, empty, badState] = await Promise.all([
      w.pay(['customers', 'get', 'cus_000000000000000000000000']),
      w.pay(['customers', 'create', '--first-name', 'Ada']),
      w.pay(['customers', 'update', ids[0]!]),
      w.pay(['customers', 'update', ids[0]!, '--country', 'US', '--state', 'GB-LND']),
    ]);
    apiError(nf, 4, 404, 'not_found');
    usageError(
      missing,
      /^error: missing required flags: --last-name, --email, --phone, --type, --date-of-birth, --address-line1, --city, --country, --postal-code$/,
    );
    usageError(empty, /^error: nothing to update/);
    usageError(badState, /--state "GB-LND" must start with the country code US-/);
    expect(w.since(m).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/customers/cus_000000000000000000000000']);
  });

  it('every request carried the key, the tenant, and (POST) a UUID Idempotency-Key', () => {
    expectContractHeaders(w.since(0), w.emu);
    expect(w.since(0, 'POST').every((r) => UUID.test(String(r.headers['idempotency-key'])))).toBe(true);
  });
});
