// Every wait of pay runs on the one poll loop (src/lib/poll.ts): the loop against a reference over
// generated answers, deadlines and pauses; and through the commands, on a fake clock (no real
// time passes): pay trigger's wait for its event, the seed's wait for a settlement others need,
// and `pay emulator requests --follow`, which a signal stops in the middle of a pause.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { bufferIOStreams } from '../../../src/io/iostreams.js';
import { pollUntil, WAIT_PAUSES } from '../../../src/lib/poll.js';
import { EMULATOR_HEADER, EMULATOR_VERSION } from '../../../src/shared/emulator-id.js';
import { fakeClock, fakeSignals, pay, type Recorded } from './harness.js';

const CUS = 'cus_0123456789abcdefghijklmn';
const ACC = 'acc_0123456789abcdefghijklmn';
const COL = 'col_0123456789abcdefghijklmn';

describe('pollUntil', () => {
  it('over generated answers and deadlines: the first value before the deadline, else the deadline error; every pause as scheduled', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 30 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 40_000 }),
        fc.constantFrom(0, 500),
        async (nones, answers, timeoutMs, first) => {
          const clock = fakeClock(0);
          let steps = 0;
          const stepsAt: number[] = [];
          const out = await pollUntil({
            clock,
            pauses: { first, next: WAIT_PAUSES.next },
            deadline: { at: timeoutMs, error: () => new Error('deadline') },
            step: async () => {
              stepsAt.push(clock.now());
              return steps++ >= nones && answers ? 'value' : undefined;
            },
          }).catch((e: Error) => e.message);
          // The reference: the pauses of the schedule, each cut at the deadline; a step after each.
          let t = 0;
          let pause: number = first;
          const expected: number[] = [];
          let result = 'deadline';
          for (let i = 0; t < timeoutMs; i++) {
            if (pause > 0) t += Math.min(pause, timeoutMs - t);
            pause = WAIT_PAUSES.next(pause);
            expected.push(t);
            if (i >= nones && answers) {
              result = 'value';
              break;
            }
          }
          expect(out).toBe(result);
          expect(stepsAt).toEqual(expected);
          expect(clock.sleeps.every((ms) => ms > 0 && ms <= 2000)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a signal ends it at once, in a pause or between steps, with no step after it', async () => {
    const controller = new AbortController();
    let steps = 0;
    const clock = fakeClock(0);
    const out = await pollUntil({
      clock: { now: clock.now, sleep: async (ms, signal) => (steps === 3 ? controller.abort() : clock.sleep(ms, signal)) },
      signal: controller.signal,
      step: async () => void steps++,
    });
    expect(out).toBeUndefined();
    expect(steps).toBe(3);
    controller.abort();
    expect(await pollUntil({ signal: controller.signal, step: async () => 'never asked' })).toBeUndefined();
  });

  it('its errors end the wait; the spinner is drawn on a terminal only, and cleared', async () => {
    for (const tty of [true, false]) {
      const io = bufferIOStreams({ tty });
      const err = await pollUntil({ spinner: { io, text: 'Waiting for \u001b[2Jx' }, step: () => Promise.reject(new Error('boom')) }).catch(
        (e: Error) => e.message,
      );
      expect(err).toBe('boom');
      expect(io.stderrText()).toBe(tty ? '\r⠋ Waiting for \\x1b[2Jx (0 s)\r\x1b[2K' : '');
    }
  });
});

describe('pay trigger waits for its event on the loop', () => {
  const service = (events: unknown[]) => (req: Recorded) => {
    if (req.method === 'POST') return { status: 201, body: { id: CUS, object: 'customer', created_at: '2026-01-01T00:00:00.000Z' } };
    return { status: 200, body: { object: 'list', data: events, has_more: false, next_cursor: null } };
  };

  it('polls the events at once, then 0.5 s growing to 2 s, and gives up at --wait-timeout: exit 1, the hint, in no real time', async () => {
    const clock = fakeClock(0);
    const r = await pay(['trigger', 'customer.created', '--wait-timeout', '30', '--json'], { respond: service([]), clock });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'wait_timeout' } });
    expect(clock.sleeps.slice(0, 6)).toEqual([500, 750, 1125, 1688, 2000, 2000]);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(30_000);
    const polls = r.requests.filter((q) => q.method === 'GET' && q.path === 'webhooks/events');
    expect(polls).toHaveLength(clock.sleeps.length + 1);
    expect(polls.every((q) => q.query.get('object_id') === CUS)).toBe(true);
  });

  it('ends at the first poll that finds it', async () => {
    const clock = fakeClock(0);
    const evt = { id: 'evt_0123456789abcdefghijklmn', type: 'customer.created' };
    const r = await pay(['trigger', 'customer.created', '--json'], { respond: service([evt]), clock });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ events: [evt] });
    expect(clock.sleeps).toEqual([]);
  });
});

describe('pay seed apply waits for a settlement others need on the loop', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pay-poll-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'seed.yaml');
  writeFileSync(
    file,
    [
      'customers:',
      '  ada: {first_name: Ada, last_name: Lovelace, email: ada@example.com, phone: "+447700900123", type: individual,',
      '        date_of_birth: "1990-12-10", address: {address_line1: 1 Main St, city: London, country: GB, postal_code: SW1A 1AA}}',
      'features:',
      '  collections: {customer_id: "${customers.ada.id}", feature: collections}',
      'accounts:',
      '  main: {customer_id: "${customers.ada.id}", currency: USD}',
      'collections:',
      '  fund: {account_id: "${accounts.main.id}", amount: "50.00", currency: USD, method: card}',
      '  more: {account_id: "${accounts.main.id}", amount: "5.00", currency: USD, method: card, depends_on: [collections.fund]}',
      '',
    ].join('\n'),
  );
  const service = (settlesAfter: number) => {
    let polls = 0;
    let made = 0;
    return (req: Recorded) => {
      const body = req.body as Record<string, unknown>;
      if (req.method === 'POST' && req.path === 'customers') return { status: 201, body: { id: CUS, object: 'customer', ...body } };
      if (req.method === 'POST' && req.path === 'accounts') return { status: 201, body: { id: ACC, object: 'account', ...body } };
      if (req.method === 'POST' && req.path === `customers/${CUS}/features/collections/activate`)
        return {
          status: 200,
          body: { object: 'feature', customer_id: CUS, feature: 'collections', status: 'active', eligible: true, reasons: [] },
        };
      if (req.method === 'POST' && req.path === 'collections') {
        const id = made++ === 0 ? COL : 'col_abcdefghijklmn0123456789';
        return { status: 201, body: { id, object: 'collection', status: 'pending', ...body } };
      }
      if (req.method === 'GET' && req.path === `collections/${COL}`)
        return { status: 200, body: { id: COL, object: 'collection', status: ++polls > settlesAfter ? 'succeeded' : 'pending' } };
      return { status: 404, body: { type: 'about:blank', title: 'Not found', status: 404, code: 'not_found', detail: req.path } };
    };
  };
  const run = (settlesAfter: number, clock: ReturnType<typeof fakeClock>, state: string) =>
    pay(['seed', 'apply', file, '--state', join(dir, state), '--json'], {
      respond: service(settlesAfter),
      clock,
      env: { PAY_TENANT_ID: 'biz_1' },
    });

  it('reads the collection at once, then 0.5 s growing to 2 s, until it settles; then the one that needs it is made', async () => {
    const clock = fakeClock(0);
    const r = await run(4, clock, 'a.state.json');
    expect(r.code, r.stderr).toBe(0);
    expect(clock.sleeps).toEqual([500, 750, 1125, 1688]);
    expect(r.requests.filter((q) => q.method === 'GET' && q.path === `collections/${COL}`)).toHaveLength(5);
    expect(r.requests.filter((q) => q.method === 'POST' && q.path === 'collections')).toHaveLength(2);
  });

  it('gives up after 60 s of its clock: the entry fails with seed_settle_timeout, and the one that needs it is not made', async () => {
    const clock = fakeClock(0);
    const r = await run(Infinity, clock, 'b.state.json');
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(`${COL} is still pending`);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(60_000);
    expect(r.requests.filter((q) => q.method === 'POST' && q.path === 'collections')).toHaveLength(1);
  });
});

describe('pay emulator requests --follow polls on the loop', () => {
  it('at once, then every 250 ms while nothing is new; Ctrl-C in a pause stops it at once: exit 0', async () => {
    const signals = fakeSignals();
    const clock = fakeClock(0);
    let reads = 0;
    const page = (data: unknown[], next: number) => ({ data, next_after: next, dropped: 0, started_at: '2026-01-01T00:00:00.000Z' });
    const answer = (path: string, query: URLSearchParams) => {
      if (path === '/__emulator/health')
        return { ok: true, emulator: 'pay-emulator', version: EMULATOR_VERSION, url: 'http://127.0.0.1:1', started_at: '', uptime_s: 1 };
      if (query.get('limit') === '0') return page([], 7);
      reads++;
      return reads === 2 ? page([{ method: 'GET', path: '/v1/customers', status: 200, request_id: 'req_1' }], 8) : page([], 8);
    };
    const server = await loopbackServer(answer);
    try {
      const sleep = clock.sleep;
      clock.sleep = async (ms, signal) => {
        await sleep(ms, signal);
        if (clock.sleeps.length === 4) signals.emit('SIGINT');
      };
      const r = await pay(['emulator', 'requests', '--follow', '-o', 'ndjson'], {
        env: { PAY_BASE_URL: `${server.base}/v1/` },
        loopback: true,
        signals,
        clock,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { request_id: string }).request_id),
      ).toEqual(['req_1']);
      expect(clock.sleeps).toEqual([250, 250, 250, 250]);
      expect(reads).toBe(4);
      expect(signals.count()).toBe(0);
      expect(r.stderr).toMatch(/Stopped\.\n$/);
    } finally {
      server.close();
    }
  });
});

/** A loopback server answering the emulator's admin routes with `answer` (as the emulator would, its header on every answer). */
async function loopbackServer(answer: (path: string, query: URLSearchParams) => unknown): Promise<{ base: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    res.writeHead(200, { 'content-type': 'application/json', [EMULATOR_HEADER]: EMULATOR_VERSION });
    res.end(JSON.stringify(answer(url.pathname, url.searchParams)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
