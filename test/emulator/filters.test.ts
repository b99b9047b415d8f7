// The emulator's created_at range (`from`, `to`) on every list of objects, `object_id` on the
// webhook events, and the held-transfer simulation value. The range is checked against a model:
// for generated bounds, paging through the filtered list gives exactly the objects whose created_at
// is in [from, to), newest first, whatever the page size.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, client, customerBody, removeTempDirs, start, tempDir, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;
/** The emulator's clock (ms), moved by the test. */
let t = Date.parse('2026-03-01T10:00:00.000Z');
const created: Array<{ id: string; created_at: string }> = [];

beforeAll(async () => {
  emu = await start({ now: () => t, settleAfterMs: 1000 });
  api = client(emu);
  // 30 customers over two days, some in the same millisecond, some a day apart.
  const gaps = [0, 1, 1, 500, 0, 60_000, 86_400_000, 1, 0, 3_600_000];
  for (let i = 0; i < 30; i++) {
    t += gaps[i % gaps.length]!;
    const r = await api('POST', 'customers', customerBody(i));
    expect(r.status).toBe(201);
    created.push({ id: r.body.id, created_at: r.body.created_at });
  }
});
afterAll(() => emu.stop());

/** Every page of a list, following cursors. */
const all = (path: string, query: Record<string, string>, limit: number): Promise<Array<{ id: string; created_at: string }>> =>
  allPages(api, path, query, limit);

describe('from and to', () => {
  it('over generated bounds (times, dates, at and between objects): exactly the objects in [from, to), newest first, at any page size', async () => {
    const times = created.map((c) => c.created_at);
    const instant = fc.oneof(
      fc.constantFrom(...times),
      fc.constantFrom(...times).map((x) => new Date(Date.parse(x) + 1).toISOString()),
      fc.constantFrom(...times).map((x) => x.slice(0, 10)),
      fc.constantFrom(...times).map((x) => `${x.slice(0, 19)}+00:00`),
      // RFC 3339 §5.6: T and Z may be lower case.
      fc.constantFrom(...times).map((x) => x.toLowerCase()),
      fc.constantFrom('2000-01-01', '2100-01-01'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.option(instant, { nil: undefined }),
        fc.option(instant, { nil: undefined }),
        fc.integer({ min: 1, max: 7 }),
        async (from, to, limit) => {
          const ms = (v: string) => Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
          const expected = created
            .filter(
              (c) =>
                (from === undefined || Date.parse(c.created_at) >= ms(from)) && (to === undefined || Date.parse(c.created_at) < ms(to)),
            )
            .map((c) => c.id)
            .reverse();
          const query: Record<string, string> = { ...(from ? { from } : {}), ...(to ? { to } : {}) };
          expect((await all('customers', query, limit)).map((c) => c.id)).toEqual(expected);
          // The same objects' events, by the same range.
          const events = await all('webhooks/events', { ...query, type: 'customer.created' }, limit);
          expect(events.map((e) => (e as unknown as { data: { object: { id: string } } }).data.object.id)).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('every list of objects takes them; features does not', async () => {
    for (const path of [
      'customers',
      'accounts',
      'external-accounts',
      'transfers',
      'cards',
      'collections',
      'payment-links',
      'wallets',
      'fx/trades',
      'transactions',
      'webhooks/events',
    ]) {
      const r = await api('GET', `${path}?from=2026-01-01&to=2026-01-01T00:00:01Z`, undefined, { tenant: emu.tenantId });
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
      expect(r.body.data).toEqual([]);
    }
    const f = await api('GET', 'features?from=2026-01-01');
    expect(f.status).toBe(400);
  });

  it('a malformed bound is 400 invalid_parameter naming it; a cursor is valid only with the same range', async () => {
    for (const [q, field] of [
      ['from=yesterday', 'from'],
      ['to=2h', 'to'],
      ['from=2026-02-30', 'from'],
      ['object_id=tr_1', 'object_id'],
      ['object_id=TR_0123456789abcdefghijklmn', 'object_id'],
    ] as const) {
      const r = await api('GET', `webhooks/events?${q}`);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_parameter', errors: [{ field }] });
    }
    const first = await api('GET', 'customers?limit=2&from=2026-01-01');
    expect(first.body.has_more).toBe(true);
    const other = await api('GET', `customers?limit=2&from=2026-01-02&cursor=${first.body.next_cursor as string}`);
    expect(other.status).toBe(400);
    const none = await api('GET', `customers?limit=2&cursor=${first.body.next_cursor as string}`);
    expect(none.status).toBe(400);
  });
});

describe('object_id', () => {
  it("the events about one object, newest first; a customer's feature statuses count as its own", async () => {
    const cus = created[0]!.id;
    const acc = (await api('POST', 'accounts', { customer_id: cus, currency: 'USD' })).body.id as string;
    await api('POST', `customers/${cus}/features/fx/activate`, {});
    await api('PATCH', `customers/${cus}`, { first_name: 'Grace' });
    const mine = await all('webhooks/events', { object_id: cus }, 2);
    expect(mine.map((e) => (e as unknown as { type: string }).type)).toEqual(['customer.updated', 'feature.activated', 'customer.created']);
    const account = await all('webhooks/events', { object_id: acc }, 5);
    expect(account.map((e) => (e as unknown as { type: string }).type)).toEqual(['account.created']);
    expect(await all('webhooks/events', { object_id: 'tr_0123456789abcdefghijklmn' }, 5)).toEqual([]);
  });
});

describe('after a restart', () => {
  it('object_id and the range find the same events in a data dir read back from disk', async () => {
    const dir = tempDir('pay-emu-filters-');
    try {
      let e = await start({ dataDir: dir });
      let call = client(e);
      const cus = (await call('POST', 'customers', customerBody(99))).body.id as string;
      await call('PATCH', `customers/${cus}`, { first_name: 'Grace' });
      await call('POST', `customers/${cus}/features/fx/activate`, {});
      const before = (await call('GET', `webhooks/events?object_id=${cus}&from=2000-01-01`)).body.data as unknown[];
      expect(before).toHaveLength(3);
      await e.stop();
      e = await start({ dataDir: dir });
      call = client(e);
      try {
        expect((await call('GET', `webhooks/events?object_id=${cus}&from=2000-01-01`)).body.data).toEqual(before);
      } finally {
        await e.stop();
      }
    } finally {
      removeTempDirs();
    }
  });
});

describe('the held-transfer simulation value', () => {
  it('minor units ending in 0014: pending past the review delay (so it can be cancelled), completed after 24 hours', async () => {
    const cus = created[1]!.id;
    const [a, b] = await Promise.all(
      [1, 2].map(async () => (await api('POST', 'accounts', { customer_id: cus, currency: 'USD' })).body.id as string),
    );
    // The business rules: collections need the customer's collections feature (no KYC approval).
    expect((await api('POST', `customers/${cus}/features/collections/activate`)).status).toBe(200);
    await api('POST', 'collections', { account_id: a, amount: '500.00', currency: 'USD', method: 'card' });
    t += 2000;
    const held = await api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '100.14', currency: 'USD' });
    // Two digits are not enough: 1.14 (minor units 114) settles like any amount.
    const ordinary = await api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '1.14', currency: 'USD' });
    const other = await api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '1.15', currency: 'USD' });
    expect([held.status, other.status]).toEqual([201, 201]);
    t += 60_000;
    expect((await api('GET', `transfers/${other.body.id as string}`)).body.status).toBe('completed');
    expect((await api('GET', `transfers/${ordinary.body.id as string}`)).body.status).toBe('completed');
    expect((await api('GET', `transfers/${held.body.id as string}`)).body.status).toBe('pending');
    t += 24 * 3_600_000;
    expect((await api('GET', `transfers/${held.body.id as string}`)).body.status).toBe('completed');
    // And one that is cancelled while held.
    const again = await api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '200.14', currency: 'USD' });
    t += 60_000;
    expect((await api('POST', `transfers/${again.body.id as string}/cancel`, {})).body.status).toBe('cancelled');
  });
});
