// Outside attack / issue 18 item 6: `pay webhooks listen` recognises a repeated webhook-id for as
// long as the sender may still retry, with bounded memory. The listener runs in-process on a
// loopback port with its clock moved by the test (no sleeps); deliveries are signed with the
// test's own HMAC at the moved time, so each passes the 5-minute check whenever it arrives.
//
//  - schedule: every id is delivered at the emulator's own retry times (src/emulator/events.ts
//    RETRY_DELAYS_S, each attempt up to its 10 s timeout late), then resent at generated times
//    anywhere inside REPEAT_WINDOW_SECONDS of its last delivery (fast-check). By default every copy
//    is printed, numbered (repeat 2, 3, …) in the order it came; with --skip-duplicates each id is
//    printed once and every later copy answered 200 as a duplicate (a copy printed twice counts as
//    duplicated).
//  - expiry: a copy arriving more than the window after the id's last delivery is new again.
//  - cap: with a small cap, ids beyond it push out the least recently seen (the model below,
//    written from the documented rule); a warning says so once; the newest stay recognised.
//
// Reproduce: PAY_FUZZ_SEED=<seed> npx vitest run --config test/vitest.config.ts test/reliability/attack-listen-repeats.test.ts
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_REMEMBERED_IDS, REPEAT_WINDOW_SECONDS, startListener, type Listener } from '../../src/commands/webhooks/listen.js';
import { RETRY_DELAYS_S } from '../../src/emulator/events.js';
import { bufferIOStreams } from '../../src/io/iostreams.js';
import { Printer } from '../../src/io/output.js';
import { count, record, type Counts } from './helpers.js';

const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const SCHEDULE_IDS = count(25, 250);
const EXPIRY_IDS = count(40, 1000);
const CAP = 50;
const CAP_IDS = count(150, 1200);
const SECRET_BYTES = Buffer.alloc(24, 9);
const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;
/** The emulator allows each attempt this long before it counts as failed (src/emulator/events.ts). */
const ATTEMPT_TIMEOUT_S = 10;

const tally: Counts & { extra: Record<string, number | string> } = {
  tried: 0,
  passed: 0,
  lost: 0,
  duplicated: 0,
  leaked: 0,
  extra: { seed: SEED },
};
const started = Date.now();
let listener: Listener | undefined;

afterEach(async () => {
  await listener?.close();
  listener = undefined;
});
afterAll(async () => {
  if (tally.tried > 0) {
    await record(
      'attack.listen-repeats',
      'webhooks listen recognises repeats over the whole retry schedule (24 h window, bounded, least recently seen evicted first)',
      tally,
      started,
    );
  }
});

interface Harness {
  url: string;
  io: ReturnType<typeof bufferIOStreams>;
  clock: { t: number };
  deliver(id: string): Promise<{ status: number; duplicate: boolean; repeat: number }>;
  /** How many times each id was printed (accepted) on stdout, and the repeat numbers printed. */
  printed(): Map<string, number>;
  repeats(): Map<string, number[]>;
}

async function harness(opts: { maxRemembered?: number; skipDuplicates?: boolean } = {}): Promise<Harness> {
  const io = bufferIOStreams();
  const clock = { t: 1_900_000_000 };
  const printer = new Printer(io, { format: 'json', fields: undefined, header: true }, []);
  listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    secret: SECRET,
    json: true,
    io,
    line: (delivery) => printer.printLine(delivery),
    now: () => clock.t,
    ...opts,
  });
  const url = listener.url;
  return {
    url,
    io,
    clock,
    async deliver(id) {
      const body = JSON.stringify({ id, type: 'transfer.completed', created_at: '2026-11-20T10:00:00.000Z', data: {} });
      const ts = clock.t;
      const signature = `v1,${createHmac('sha256', SECRET_BYTES).update(`${id}.${ts}.`).update(body).digest('base64')}`;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature },
        body,
      });
      const answer = (await res.json()) as { duplicate?: boolean; repeat?: number };
      return { status: res.status, duplicate: answer.duplicate === true, repeat: answer.repeat ?? 0 };
    },
    printed() {
      const m = new Map<string, number>();
      for (const [id, ns] of repeats()) m.set(id, ns.length);
      return m;
    },
    repeats,
  };
  function repeats(): Map<string, number[]> {
    const m = new Map<string, number[]>();
    for (const line of io.stdoutText().split('\n').filter(Boolean)) {
      const d = JSON.parse(line) as { webhook_id: string; repeat: number; event: { id: string } };
      expect(d.event.id).toBe(d.webhook_id);
      m.set(d.webhook_id, [...(m.get(d.webhook_id) ?? []), d.repeat]);
    }
    return m;
  }
}

describe('attack.listen-repeats', () => {
  it('the window covers the emulator retry schedule (attempt timeouts and the 5-minute signature tolerance included) with margin; the cap is bounded', () => {
    const span = RETRY_DELAYS_S.reduce((a, b) => a + b, 0) + (RETRY_DELAYS_S.length + 1) * ATTEMPT_TIMEOUT_S + 300;
    expect(REPEAT_WINDOW_SECONDS).toBeGreaterThanOrEqual(span * 10);
    expect(MAX_REMEMBERED_IDS).toBeGreaterThanOrEqual(10_000);
    expect(MAX_REMEMBERED_IDS).toBeLessThanOrEqual(1_000_000);
  });

  it.each([
    ['--skip-duplicates: each id printed once, every later copy acknowledged as a duplicate', true],
    ['by default: every copy printed, numbered in the order it came', false],
  ])('schedule: every copy along the emulator schedule and generated resends within the window is recognised (%s)', async (_name, skip) => {
    const h = await harness({ skipDuplicates: skip });
    // Per id: the emulator's attempts (first, then after each delay, each up to 10 s late), then
    // 0-3 resends, each within the window of the previous delivery.
    const plans = fc.sample(
      fc.record({
        late: fc.array(fc.integer({ min: 0, max: ATTEMPT_TIMEOUT_S }), {
          minLength: RETRY_DELAYS_S.length,
          maxLength: RETRY_DELAYS_S.length,
        }),
        resends: fc.array(fc.integer({ min: 1, max: REPEAT_WINDOW_SECONDS }), { maxLength: 3 }),
      }),
      { numRuns: SCHEDULE_IDS, seed: SEED },
    );
    // Deliveries of all ids interleaved in time order, as a sender would make them.
    const events: Array<{ at: number; id: string }> = [];
    plans.forEach((p, i) => {
      const id = `evt_sched${String(i).padStart(19, '0')}`;
      let at = i; // ids start a second apart
      events.push({ at, id });
      RETRY_DELAYS_S.forEach((d, k) => events.push({ at: (at += d + p.late[k]!), id }));
      for (const gap of p.resends) events.push({ at: (at += gap), id });
    });
    events.sort((a, b) => a.at - b.at);
    const base = h.clock.t;
    const seen = new Map<string, number>();
    for (const e of events) {
      h.clock.t = base + e.at;
      const r = await h.deliver(e.id);
      tally.tried++;
      expect(r.status).toBe(200);
      // The first copy is new; every later one within the window is a recognised repeat.
      const n = (seen.get(e.id) ?? 0) + 1;
      expect(r.repeat, `${e.id} at +${e.at} s`).toBe(n);
      expect(r.duplicate, `${e.id} at +${e.at} s`).toBe(skip && n > 1);
      seen.set(e.id, n);
      tally.passed++;
    }
    const repeats = h.repeats();
    for (const [id, copies] of seen) {
      const printed = repeats.get(id) ?? [];
      if (printed.length === 0) tally.lost++;
      if (skip) {
        if (printed.length > 1) tally.duplicated += printed.length - 1;
        expect(printed, id).toEqual([1]);
      } else {
        if (printed.length < copies) tally.lost += copies - printed.length;
        expect(printed, id).toEqual(Array.from({ length: copies }, (_, i) => i + 1));
      }
    }
    tally.extra[skip ? 'schedule_deliveries_skip' : 'schedule_deliveries'] = events.length;
  });

  it('expiry: a copy more than the window after the last delivery is new again; one just inside is not', async () => {
    const h = await harness({ skipDuplicates: true });
    const gaps = fc.sample(
      fc.oneof(
        fc.integer({ min: 1, max: REPEAT_WINDOW_SECONDS }),
        fc.integer({ min: REPEAT_WINDOW_SECONDS + 1, max: REPEAT_WINDOW_SECONDS * 3 }),
      ),
      {
        numRuns: EXPIRY_IDS,
        seed: SEED + 1,
      },
    );
    for (const [i, gap] of gaps.entries()) {
      const id = `evt_exp${String(i).padStart(21, '0')}`;
      const first = await h.deliver(id);
      h.clock.t += gap;
      const again = await h.deliver(id);
      tally.tried++;
      expect(first).toEqual({ status: 200, duplicate: false, repeat: 1 });
      expect(again, `gap ${gap} s`).toEqual({
        status: 200,
        duplicate: gap <= REPEAT_WINDOW_SECONDS,
        repeat: gap <= REPEAT_WINDOW_SECONDS ? 2 : 1,
      });
      tally.passed++;
    }
    tally.extra.expiry_ids = gaps.length;
  });

  it('cap: past it the least recently seen ids are forgotten first (one warning), the rest stay recognised', async () => {
    const h = await harness({ maxRemembered: CAP, skipDuplicates: true });
    // A model of the documented rule: an ordered set, a delivery moves its id to the end, the
    // oldest go when it holds more than CAP.
    const model: string[] = [];
    const touch = (id: string) => {
      const at = model.indexOf(id);
      if (at >= 0) model.splice(at, 1);
      model.push(id);
      while (model.length > CAP) model.shift();
    };
    const picks = fc.sample(fc.tuple(fc.boolean(), fc.nat()), { numRuns: CAP_IDS, seed: SEED + 2 });
    let fresh = 0;
    for (const [repeat, n] of picks) {
      // Either a new id or a repeat of any id sent so far (remembered or not).
      const id = repeat && fresh > 0 ? `evt_cap${String(n % fresh).padStart(21, '0')}` : `evt_cap${String(fresh++).padStart(21, '0')}`;
      h.clock.t += 1;
      const expected = model.includes(id);
      const r = await h.deliver(id);
      tally.tried++;
      expect(r.status, id).toBe(200);
      expect(r.duplicate, id).toBe(expected);
      touch(id);
      tally.passed++;
    }
    // The newest CAP are all still recognised.
    for (const id of [...model]) {
      h.clock.t += 1;
      expect((await h.deliver(id)).duplicate, id).toBe(true);
    }
    const warnings = h.io
      .stderrText()
      .split('\n')
      .filter((l) => / warning: more than 50 webhook-ids/.test(l));
    expect(warnings[0] ?? '').toMatch(fresh > CAP ? /would count as new again$/ : /^$/);
    expect(warnings).toHaveLength(fresh > CAP ? 1 : 0);
    tally.extra.cap = CAP;
    tally.extra.cap_deliveries = picks.length;
  });
});
