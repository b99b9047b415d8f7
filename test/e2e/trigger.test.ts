// The event-testing loop against a real emulator, with the built CLI: `pay trigger <type>` for every
// event type produces that event (through the API only: no admin route), unknown types and bad
// overrides are exit 2 with nothing sent, --override reaches the body, --json has the documented
// shape; `collections create --wait` followed at once by a transfer that succeeds; --wait exit 1 on
// a failing simulation value; and the support filters `webhooks list --object/--since/--until`.
// One emulator for the file, settling after 50 ms: waits are polls, never sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/shared/events.js';
import { ID, UUID, customer, json, jsonError, startWorld, type Obj, type PayResult, type World } from './groups/helpers.js';

let w: World;
/** What each trigger run printed with --json, by event type. */
const results = new Map<string, Obj>();

beforeAll(async () => {
  w = await startWorld({ settleAfterMs: 50 });
});
afterAll(() => w?.stop());

/** Runs tasks at most `n` at a time (two cores, shared). */
async function pool<T>(items: readonly T[], n: number, task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: n }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
    }),
  );
}

/** The id an event is about: data.object.id, or a feature status's customer. */
const subjectOf = (e: Obj): string => (e.data.object.id as string | undefined) ?? (e.data.object.customer_id as string);

describe('pay trigger <event-type>', () => {
  it('for every event type of the contract, produces that event: exit 0, {event_type, created, events}, and the event is there', async () => {
    const mark = w.mark();
    const outcomes = new Map<string, PayResult>();
    await pool(EVENT_TYPES, 3, async (type) => {
      outcomes.set(type, await w.pay(['trigger', type, '--json', '--wait-timeout', '90'], { timeoutMs: 110_000 }));
    });
    for (const type of EVENT_TYPES) {
      const r = outcomes.get(type)!;
      expect({ type, code: r.code, stderr: r.stderr }).toEqual({ type, code: 0, stderr: '' });
      const out = json(r);
      results.set(type, out);
      expect(Object.keys(out)).toEqual(['event_type', 'created', 'events']);
      expect(out.event_type).toBe(type);
      expect(out.created.length).toBeGreaterThan(0);
      for (const c of out.created) expect(c.id).toMatch(/^[a-z]+_[0-9a-z]{24}$/);
      expect(out.events).toHaveLength(1);
      expect(out.events[0]).toEqual({ id: expect.stringMatching(ID('evt_')), type });
      // The service has it, about one of the objects created.
      const event = await w.api('GET', `webhooks/events/${out.events[0].id as string}`);
      expect(event.type).toBe(type);
      expect(out.created.map((c: Obj) => c.id)).toContain(subjectOf(event));
    }
    // Only the API: every request under /v1/, every POST with its own Idempotency-Key.
    const sent = w.since(mark);
    expect(sent.every((q) => q.path.startsWith('/v1/'))).toBe(true);
    const posts = sent.filter((q) => q.method === 'POST');
    const keys = posts.map((q) => q.headers['idempotency-key']);
    for (const k of keys) expect(k).toMatch(UUID);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('the failure events come from the simulation values: a transfer of 25.13 failed, destination_rejected', async () => {
    const out = results.get('transfer.failed')!;
    const tr = out.created.find((c: Obj) => c.object === 'transfer').id as string;
    expect(await w.api('GET', `transfers/${tr}`)).toMatchObject({
      amount: '25.13',
      status: 'failed',
      failure_reason: 'destination_rejected',
    });
    const kyc = results.get('kyc.rejected')!.created.find((c: Obj) => c.object === 'kyc_verification').id as string;
    expect((await w.api('GET', `webhooks/events/${results.get('kyc.rejected')!.events[0].id as string}`)).data.object.id).toBe(kyc);
  });

  it('an unknown event type is exit 2 suggesting close ones; nothing is sent', async () => {
    const mark = w.mark();
    const r = await w.pay(['trigger', 'transfer.faild']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: unknown event type "transfer.faild"\nhint: did you mean transfer.failed? pay trigger --list lists all 28\n',
    );
    const cards = await w.pay(['trigger', 'card']);
    expect(cards.code).toBe(2);
    expect(cards.stderr).toMatch(/hint: did you mean one of card\.\w+, card\.\w+, card\.\w+, card\.\w+, card\.\w+\? /);
    expect(w.since(mark)).toEqual([]);
  });

  it('--override sets the field on what it creates; a bad one is exit 2 naming the valid ones, nothing sent', async () => {
    const r = await w.pay([
      'trigger',
      'customer.created',
      '--override',
      'customer.first_name=Grace',
      '--override',
      'customer.address.city=Paris',
      '--json',
    ]);
    const out = json(r);
    const cus = await w.api('GET', `customers/${out.created[0].id as string}`);
    expect(cus).toMatchObject({ first_name: 'Grace', address: { city: 'Paris', country: 'GB' } });

    const mark = w.mark();
    const bad = await w.pay(['trigger', 'transfer.failed', '--override', 'card.type=virtual']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'creates no card (it creates: customer, kyc_verification, kyc_document, account, external_account, collection, transfer)',
    );
    const field = await w.pay(['trigger', 'transfer.failed', '--override', 'transfer.amout=5.00', '--json']);
    expect(jsonError(field, 2)).toMatchObject({ code: 'usage' });
    expect(field.stderr).toContain('fields: source_account_id, destination_id, amount, currency, description, reference');
    expect(w.since(mark)).toEqual([]);
  });

  it('--dry-run prints the first request and sends nothing', async () => {
    const mark = w.mark();
    const r = await w.pay(['trigger', 'collection.failed', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/v1\/customers\n/);
    expect(r.stdout).toMatch(/idempotency-key: [0-9a-f-]{36}\n/);
    expect(r.stderr).toContain('dry run: the request above is the first of pay trigger collection.failed');
    expect(w.since(mark)).toEqual([]);
  });

  it('--live off a terminal without --yes: exit 2 naming what it would create, nothing sent; with --yes it runs on the live key', async () => {
    const live = { PAY_API_KEY: w.emu.keys.live.secret };
    const mark = w.mark();
    const r = await w.pay(['--live', 'trigger', 'transfer.completed', '--json'], { env: live, stdin: '' });
    const err = jsonError(r, 2);
    expect(err.message).toBe('refusing to run "pay trigger transfer.completed" in live mode without confirmation: pass --yes');
    expect(err.hint).toMatch(/^nothing was sent; it would: create live objects, all new .*; move live money/);
    expect(w.since(mark)).toEqual([]);
    const yes = await w.pay(['--live', 'trigger', 'customer.created', '--json', '--yes'], { env: live });
    expect(json(yes).event_type).toBe('customer.created');
    const sent = w.since(mark);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((q) => q.headers['api-key'] === w.emu.keys.live.secret)).toBe(true);
  });
});

describe('--wait where things settle', () => {
  let cus: string;
  let from: string;
  let to: string;

  beforeAll(async () => {
    cus = await customer(w);
    // KYC through pay: verify, then a document with --wait (exit 0 once approved).
    expect(json(await w.pay(['kyc', 'verify', cus, '--json'])).status).toBe('pending');
    const decided = json(
      await w.pay(['kyc', 'submit-document', cus, '--type', 'passport', '--country', 'GB', '--number', '123456789', '--wait', '--json']),
    );
    expect(decided).toMatchObject({ id: expect.stringMatching(ID('kyc_')), status: 'approved' });
    for (const key of ['collections', 'international_transfers']) await w.raw('POST', `customers/${cus}/features/${key}/activate`, {});
    from = (await w.api('POST', 'accounts', { customer_id: cus, currency: 'USD' })).id as string;
    to = (await w.api('POST', 'accounts', { customer_id: cus, currency: 'USD' })).id as string;
  });

  it('collections create --wait, then at once a transfer of that money: both exit 0, no sleep', async () => {
    const col = json(
      await w.pay([
        'collections',
        'create',
        '--account',
        from,
        '--amount',
        '100.00',
        '--currency',
        'USD',
        '--method',
        'card',
        '--wait',
        '--json',
      ]),
    );
    expect(col).toMatchObject({ status: 'succeeded', amount: '100.00' });
    const tr = json(
      await w.pay(['transfers', 'send', '--from', from, '--to', to, '--amount', '100.00', '--currency', 'USD', '--wait', '--json']),
    );
    expect(tr).toMatchObject({ status: 'completed', amount: '100.00' });
  });

  it('--wait is exit 1 on a failing simulation value, naming the reason; stdout empty', async () => {
    const r = await w.pay([
      'collections',
      'create',
      '--account',
      from,
      '--amount',
      '10.13',
      '--currency',
      'USD',
      '--method',
      'card',
      '--wait',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: collection col_[0-9a-z]{24} failed: payment_declined\nhint: see it with: pay collections get col_/);
    const rejected = await w.pay(['kyc', 'verify', await customer(w), '--json']);
    const cus2 = json(rejected).customer_id as string;
    const doc = await w.pay(['kyc', 'submit-document', cus2, '--type', 'passport', '--country', 'GB', '--number', 'X1230000', '--wait']);
    expect(doc.code).toBe(1);
    expect(doc.stderr).toMatch(/^error: KYC verification kyc_[0-9a-z]{24} was rejected: /);
  });
});

describe('webhooks list --object, --since, --until', () => {
  it('--object: the events about one object, oldest last', async () => {
    const tr = results.get('transfer.failed')!.created.find((c: Obj) => c.object === 'transfer').id as string;
    const events = json(await w.pay(['webhooks', 'list', '--object', tr, '--json'])) as unknown as Obj[];
    expect(events.map((e) => e.type)).toEqual(['transfer.failed', 'transfer.created']);
    for (const e of events) expect(e.data.object.id).toBe(tr);
    // A customer's: its own events and its features' (a feature status has no id of its own).
    const cus = results.get('feature.activated')!.created.find((c: Obj) => c.object === 'customer').id as string;
    const mine = json(await w.pay(['webhooks', 'list', '--object', cus, '--json'])) as unknown as Obj[];
    expect(mine.map((e) => e.type)).toContain('feature.activated');
    expect(mine.map((e) => e.type)).toContain('customer.created');
  });

  it('--since and --until bound created_at (until exclusive); durations count back from now', async () => {
    const all = json(await w.pay(['webhooks', 'list', '--limit', '1000', '--json'])) as unknown as Obj[];
    expect(all.length).toBeGreaterThan(50);
    // A boundary between two events created at different times.
    const i = all.findIndex((e, k) => k > 10 && e.created_at !== all[k - 1]!.created_at);
    const cut = all[i - 1]!.created_at as string;
    const since = json(await w.pay(['webhooks', 'list', '--since', cut, '--limit', '1000', '--json'])) as unknown as Obj[];
    const until = json(await w.pay(['webhooks', 'list', '--until', cut, '--limit', '1000', '--json'])) as unknown as Obj[];
    expect(since.every((e) => (e.created_at as string) >= cut)).toBe(true);
    expect(until.every((e) => (e.created_at as string) < cut)).toBe(true);
    expect(since.length + until.length).toBe(all.length);
    expect(json(await w.pay(['webhooks', 'list', '--since', '1h', '--limit', '1000', '--json']))).toHaveLength(all.length);
    const none = await w.pay(['webhooks', 'list', '--until', '2000-01-01', '--json']);
    expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 0, stdout: '[]\n' });
    // The same range on another list, paged: every page keeps the filter.
    const customers = json(await w.pay(['customers', 'list', '--since', cut, '--all', '--limit', '3', '--json'])) as unknown as Obj[];
    expect(customers.length).toBeGreaterThan(0);
    expect(customers.every((c) => (c.created_at as string) >= cut)).toBe(true);
  });

  it('bad values are exit 2 before anything is sent', async () => {
    const mark = w.mark();
    for (const args of [
      ['--since', 'yesterday'],
      ['--object', 'tr_123'],
      ['--since', '2026-02-01', '--until', '2026-01-01'],
    ]) {
      const r = await w.pay(['webhooks', 'list', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: --(since|until|object)/);
    }
    expect(w.since(mark)).toEqual([]);
  });
});
