// The list envelope's rule, stated in the contract and kept by the emulator (issue 25 item 3):
// `has_more: true` requires a string `next_cursor` (the schema's if/then). For every list
// operation: the schema refuses a page that says has_more without a cursor (null, absent, empty)
// and accepts the pages the rule allows (an empty page that says has_more with a cursor
// included); the emulator's own pages, walked with limit=1 to the end, validate against it,
// has_more: true ones included, and their cursors never repeat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, enabledCustomer, start, type Api, type Emulator } from '../emulator/helpers.js';
import { allOperations, successStatus, validateAgainst } from './contract-helpers.js';

/** List operations: a GET whose answer is the list envelope. */
const LISTS = allOperations().filter((o) => {
  if (o.method !== 'get') return false;
  const errors = validateAgainst(o.operation.operationId, 'response', successStatus(o.operation), {
    object: 'list',
    data: [],
    has_more: false,
    next_cursor: null,
  });
  return errors.length === 0;
});

let emu: Emulator;
let api: Api;

beforeAll(async () => {
  emu = await start({ port: 0, host: '127.0.0.1' });
  api = client(emu, { tenant: emu.tenantId });
  // Two of most kinds, so that limit=1 gives a page that says has_more.
  const customer = await enabledCustomer(emu, api);
  await enabledCustomer(emu, api, 1);
  const [a, b] = [
    (await api('POST', 'accounts', { customer_id: customer, currency: 'USD' })).body.id as string,
    (await api('POST', 'accounts', { customer_id: customer, currency: 'USD' })).body.id as string,
  ];
  for (const amount of ['50.00', '60.00']) await api('POST', 'collections', { account_id: a, amount, currency: 'USD', method: 'card' });
  emu.admin.advance(600);
  await emu.admin.advanced();
  for (const amount of ['1.00', '2.00'])
    await api('POST', 'transfers', { source_account_id: a, destination_id: b, amount, currency: 'USD' });
  for (let i = 0; i < 2; i++) await api('POST', 'cards', { customer_id: customer, account_id: a, type: 'virtual' });
  for (let i = 0; i < 2; i++) await api('POST', 'wallets', { customer_id: customer, asset: 'USDC', network: 'polygon' });
}, 60_000);
afterAll(() => emu?.stop());

describe('the list envelope: has_more: true requires a string next_cursor', () => {
  it('the contract has list operations, each with the rule', () => {
    expect(LISTS.length).toBeGreaterThanOrEqual(10);
  });

  it.each(LISTS.map((o) => [o.operation.operationId, o] as const))('%s: the schema says it', (id, o) => {
    const status = successStatus(o.operation);
    const page = (extra: Record<string, unknown>) => ({ object: 'list', data: [], ...extra });
    const refused = [
      page({ has_more: true, next_cursor: null }),
      page({ has_more: true }),
      page({ has_more: true, next_cursor: '' }),
      page({ has_more: true, next_cursor: 7 }),
    ];
    for (const p of refused)
      expect({ page: p, valid: validateAgainst(id, 'response', status, p).length === 0 }).toEqual({ page: p, valid: false });
    const allowed = [page({ has_more: true, next_cursor: 'c_1' }), page({ has_more: false, next_cursor: null })];
    for (const p of allowed) expect({ page: p, errors: validateAgainst(id, 'response', status, p) }).toEqual({ page: p, errors: [] });
  });

  it.each(LISTS.filter((o) => !o.path.includes('{')).map((o) => [o.operation.operationId, o] as const))(
    '%s: the emulator pages (limit=1, to the end) validate, cursors never repeat',
    async (id, o) => {
      const status = successStatus(o.operation);
      const seen = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const r = await api('GET', `${o.path.slice(1)}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(r.status).toBe(200);
        expect(validateAgainst(id, 'response', status, r.body)).toEqual([]);
        pages++;
        if (!r.body.has_more) break;
        expect(seen.has(r.body.next_cursor)).toBe(false);
        seen.add(r.body.next_cursor);
        cursor = r.body.next_cursor;
        if (pages > 200) throw new Error(`${id}: more than 200 pages of one item`);
      }
      // Lists the seeding filled gave a page that says has_more, and it validated.
      if (['listCustomers', 'listAccounts', 'listCards', 'listWallets', 'listTransfers', 'listTransactions'].includes(id))
        expect(pages).toBeGreaterThan(1);
    },
  );
});
