// `POST /__emulator/clock/advance` runs everything due up to the new time, in time order, and what
// becomes due because of what ran: a failed attempt's retries, a settlement's event and its retries
// (round-3 defect E1: one advance ran one retry, however far it moved the clock).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_DELAYS_S } from '../../src/emulator/events.js';
import { admin, client, customerBody, start, until, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;
let receiver: Server;
let receiverUrl: string;
/** Every delivery, in the order it arrived: event id and type. */
const arrived: Array<{ id: string; type: string }> = [];
/** How many deliveries of each event fail (500) before one gets 204. */
let failFirst = Infinity;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const e = JSON.parse(body) as { id: string; type: string };
      const before = arrived.filter((a) => a.id === e.id).length;
      arrived.push({ id: e.id, type: e.type });
      res.writeHead(before < failFirst ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  emu = await start({ settleAfterMs: 60_000 });
  api = client(emu);
});
afterAll(async () => {
  await emu.stop();
  await new Promise((r) => receiver.close(r));
});

const event = async (id: string) => (await api('GET', `webhooks/events/${id}`)).body;
const eventsOf = async (objectId: string) =>
  (await api('GET', `webhooks/events?object_id=${objectId}&limit=100`)).body.data as Array<{ id: string; type: string }>;
const advance = async (seconds: number) => {
  const r = await admin(emu, 'POST', 'clock/advance', { seconds });
  expect(r.status).toBe(200);
  expect(r.body.caught_up).toBe(true);
  return r.body;
};
const ms = (t: string) => Date.parse(t);

/** A dead URL: a port nothing listens on. */
async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}/hooks`;
}

describe('clock advance runs every retry that becomes due', () => {
  it('after a dead URL, one 2d advance takes the event through every retry to failed, attempts spaced by the schedule', async () => {
    await admin(emu, 'POST', 'webhook-url', { url: await deadUrl() });
    const c = await api('POST', 'customers', customerBody(1));
    const [e] = await eventsOf(c.body.id);
    // The first attempt (at once) fails: connection refused.
    await until('the first delivery attempt', async () => (await event(e!.id)).delivery.attempts === 1);
    await advance(2 * 86_400);
    const after = await event(e!.id);
    expect(after.delivery).toMatchObject({ status: 'failed', attempts: 1 + RETRY_DELAYS_S.length, next_attempt_at: null });
    const times = (after.attempts as Array<{ attempted_at: string }>).map((a) => ms(a.attempted_at));
    expect(times).toHaveLength(1 + RETRY_DELAYS_S.length);
    // Each retry came its delay after the attempt before (plus that attempt's duration), not at the new time.
    for (let i = 1; i < times.length; i++) {
      const gap = times[i]! - times[i - 1]!;
      expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS_S[i - 1]! * 1000);
      expect(gap).toBeLessThan(RETRY_DELAYS_S[i - 1]! * 1000 + 10_000);
    }
    await admin(emu, 'POST', 'webhook-url', { url: null });
  });

  it('runs in time order across objects: a settlement in the middle emits its event, delivered between the first event’s retries', async () => {
    await admin(emu, 'POST', 'webhook-url', { url: receiverUrl });
    arrived.length = 0;
    const c = await api('POST', 'customers', customerBody(2));
    const [created] = await eventsOf(c.body.id);
    await until('a delivery at the app', () => arrived.length >= 1);
    // The KYC review is decided settleAfterMs (60 s) later: kyc.approved, between the retries at 35 s and 155 s.
    await api('POST', `customers/${c.body.id}/kyc`, { level: 'basic' });
    await api('POST', `customers/${c.body.id}/kyc/documents`, { type: 'passport', country: 'GB', number: '123456789' });
    const before = arrived.length;
    await advance(86_400);
    const decided = (await api('GET', 'webhooks/events?type=kyc.approved&limit=1')).body.data[0] as { id: string } | undefined;
    expect(decided).toBeDefined();
    const order = arrived.slice(before).map((a) => (a.id === created!.id ? 'created' : a.id === decided!.id ? 'decided' : 'other'));
    // created: retries at 5 s, 35 s, 155 s, 755 s; decided at 60 s, then its own at 65, 95, 215, 815 s.
    expect(order.filter((o) => o !== 'other')).toEqual([
      'created',
      'created',
      'decided',
      'decided',
      'decided',
      'created',
      'decided',
      'created',
      'decided',
    ]);
    expect((await event(created!.id)).delivery.status).toBe('failed');
    expect((await event(decided!.id)).delivery).toMatchObject({ status: 'failed', attempts: 5 });
    await admin(emu, 'POST', 'webhook-url', { url: null });
  });

  it('any split of the time into advances ends with the attempts the schedule makes due by then (fast-check)', async () => {
    // Cumulative times of the retries after the first attempt: 5, 35, 155, 755 s.
    const due = RETRY_DELAYS_S.map((_, i) => RETRY_DELAYS_S.slice(0, i + 1).reduce((a, b) => a + b, 0));
    const near = (t: number) => due.some((d) => Math.abs(d - t) < 3);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: RETRY_DELAYS_S.length + 1 }),
        async (steps, fails) => {
          // Not within 3 s of a retry's time after any advance: real time and attempt durations add a little.
          let sum = 0;
          for (const s of steps) fc.pre(!near((sum += s)));
          failFirst = fails;
          await admin(emu, 'POST', 'webhook-url', { url: receiverUrl });
          const c = await api('POST', 'customers', customerBody(3));
          const [e] = await eventsOf(c.body.id);
          await until('the first delivery attempt', async () => (await event(e!.id)).delivery.attempts >= 1);

          let total = 0;
          for (const s of steps) {
            await advance(s);
            total += s;
            // Attempts: the first, plus each retry due by now, until one succeeds or they run out.
            const expected = Math.min(1 + due.filter((d) => d < total).length, fails + 1);
            const d = (await event(e!.id)).delivery;
            expect(d.attempts).toBe(expected);
            const status = expected === fails + 1 ? 'delivered' : expected === 1 + RETRY_DELAYS_S.length ? 'failed' : 'pending';
            expect(d.status).toBe(status);
          }
          // Finish what is left, so the next run starts with nothing due.
          await advance(1000);
          await admin(emu, 'POST', 'webhook-url', { url: null });
          failFirst = Infinity;
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('advances sent together run one after another: the clock moves by their sum', async () => {
    const from = (await admin(emu, 'GET', 'clock')).body.offset_ms as number;
    const [ra, rb] = await Promise.all([advance(10), advance(20)]);
    expect([ra.offset_ms - from, rb.offset_ms - from].sort((x, y) => x - y)).toEqual(
      ra.offset_ms < rb.offset_ms ? [10_000, 30_000] : [20_000, 30_000],
    );
  });
});
