// F1: `pay webhooks resend <evt> --wait` made while the event's first delivery is still in flight.
// The app holds that first attempt's answer until the test releases it, which it does only once
// every resend was answered 202 (no sleeps, no timing window). Variants (fast-check, fixed seed):
// 1–3 resends while in flight, the app answering 200 or 500. Every accepted resend is one more
// delivery the app receives, after the held one (never lost, never merged into it), and each
// --wait exits with the status of the attempts it asked for (0 delivered; 1 failed after every retry).
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAY_BIN } from '../helpers/run-pay.js';
import { customerBody, startWorld, until, type World } from './groups/helpers.js';

let w: World;
let app: Server;
let appUrl: string;
/** The webhook-ids the app received, in order. */
const received: string[] = [];
let code = 200;
/** The first request of each round is held here until the test releases it. */
let held: ServerResponse | undefined;
let holdNext = false;

beforeAll(async () => {
  // Retries after a failure come at once-ish (retry delays times 1e-5), so a 500 variant fails in real time.
  w = await startWorld({ webhookRetryScale: 0.00001 });
  app = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      if (holdNext) {
        holdNext = false;
        held = res;
      } else res.writeHead(code).end();
    });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/h`;
  expect((await w.pay(['emulator', 'webhook-url', appUrl])).code).toBe(0);
});
afterAll(async () => {
  await w?.stop();
  await new Promise((r) => app?.close(r));
});

/** `pay webhooks resend <evt> --wait --json` as a child process; resolves with its exit and output. */
function resendWait(evt: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [PAY_BIN, 'webhooks', 'resend', evt, '--wait', '--wait-timeout', '60', '--json'], {
    env: w.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((r) => child.on('close', (c) => r({ code: c, stdout, stderr })));
}

describe('webhooks resend --wait while the first delivery is in flight', () => {
  it('each accepted resend is one more delivery after the held one, and --wait answers for it', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.constantFrom(200, 500), async (resends, answer) => {
        runs++;
        code = answer;
        holdNext = true;
        held = undefined;
        const before = received.length;
        const mark = w.mark();
        const made = await w.pay(['customers', 'create', '--data', JSON.stringify(customerBody()), '--json']);
        expect(made.code, made.stderr).toBe(0);
        // The customer.created event's first attempt reaches the app and is held there.
        await until('the first attempt to reach the app', () => held !== undefined);
        const evt = received[before]!;
        expect(evt).toMatch(/^evt_/);

        const waits = Array.from({ length: resends }, () => resendWait(evt));
        const resendPath = `/v1/webhooks/events/${evt}/resend`;
        await until(
          `${resends} resends answered`,
          () =>
            w.since(mark, 'POST').filter((r) => r.path.endsWith(`/webhooks/events/${evt}/resend`) && r.status !== null).length >= resends,
          {
            seen: () => JSON.stringify(w.since(mark, 'POST').map((r) => [r.path, r.status])),
          },
        );
        const answered = w.since(mark, 'POST').filter((r) => r.path.endsWith(`/webhooks/events/${evt}/resend`));
        expect(
          answered.map((r) => r.status),
          resendPath,
        ).toEqual(Array(resends).fill(202));
        // Nothing more reached the app while the first attempt is held (one attempt per event at once).
        expect(received.slice(before)).toEqual([evt]);
        held!.writeHead(answer).end();

        const results = await Promise.all(waits);
        // 200: the held attempt plus one per resend. 500: that, then every retry of the last one, then failed.
        const expected = 1 + resends + (answer === 200 ? 0 : 4);
        for (const r of results) {
          expect(r.code, r.stderr).toBe(answer === 200 ? 0 : 1);
          if (answer === 200) {
            const shown = JSON.parse(r.stdout) as { delivery: { status: string; attempts: number } };
            expect(shown.delivery.status).toBe('delivered');
            // Never the held attempt's answer: the resend's own attempt came after it.
            expect(shown.delivery.attempts).toBeGreaterThanOrEqual(2);
          } else expect(r.stderr).toMatch(new RegExp(`event ${evt} failed: 500`));
        }
        expect(received.slice(before)).toEqual(Array(expected).fill(evt));
        const got = await w.pay(['webhooks', 'get', evt, '--json']);
        const ev = JSON.parse(got.stdout) as { delivery: { status: string; attempts: number } };
        expect(ev.delivery).toMatchObject({ status: answer === 200 ? 'delivered' : 'failed', attempts: expected });
      }),
      { seed: 2611, numRuns: 8 },
    );
    expect(runs).toBe(8);
  }, 240_000);
});
