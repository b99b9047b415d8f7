// The event-testing loop of issue 14, as the README's "Test your webhook handler" block writes it,
// every step a built `pay` process: `pay emulator start` → `pay webhooks listen --forward-to <app>`
// → `pay trigger transfer.failed` → the app receives it → `pay webhooks resend <evt>` → the app
// receives it again. The commands are read from the README (so the README's loop is the one that
// works); the test adds only what a shared machine needs (free ports, a short settle time) and
// puts the app's URL and the event id where the README has placeholders. No curl, no admin route,
// no sleep: every wait is for a condition.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, PAY_BIN, runPay, tempDir } from '../helpers/run-pay.js';
import { spawnEmulator, type EmulatorProcess } from '../reliability/helpers.js';
import { until } from './groups/helpers.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The commands of the first text block under "### Test your webhook handler", comments dropped. */
function readmeLoop(): string[][] {
  const section = README.slice(README.indexOf('### Test your webhook handler'));
  const block = /```text\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean)
    .map((l) => l.split(/\s+/));
}

const env = cleanEnv({ PAY_CONFIG_DIR: tempDir('pay-loop-config-') });
let emu: EmulatorProcess;
let app: Server;
let appUrl: string;
/** What the app received, in order: webhook-id, the event type in the body, and whether the signature header came. */
const received: Array<{ id: string; type: string; signed: boolean }> = [];

beforeAll(async () => {
  app = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({
        id: String(req.headers['webhook-id']),
        type: (JSON.parse(body) as { type: string }).type,
        signed: typeof req.headers['webhook-signature'] === 'string',
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  await emu?.stop();
  await new Promise((r) => app?.close(r));
});

describe('the webhook-testing loop from the README', () => {
  it('emulator start → listen → trigger transfer.failed → the app gets it → resend → the app gets it again; no curl', async () => {
    const loop = readmeLoop();
    expect(loop.map((argv) => argv.slice(0, 3).join(' '))).toEqual([
      'pay emulator start',
      'pay webhooks listen',
      'pay trigger transfer.failed',
      'pay webhooks resend',
    ]);
    // No README command reaches for curl (the emulator is driven by pay emulator …).
    expect([...README.matchAll(/```\w*\n([\s\S]*?)```/g)].filter((m) => /\bcurl\b/.test(m[1]!))).toEqual([]);
    const [start, listenArgs, triggerArgs, resendArgs] = loop.map((argv) => argv.slice(1));

    // 1. pay emulator start --configure-profile local (+ a free port and a short settle time).
    emu = await spawnEmulator([...start!.slice(2), '--port', '0', '--settle-after', '50'], env);
    expect(emu.stderr()).toMatch(/Profile "local" configured/);

    // 2. pay webhooks listen --forward-to <the app> (+ a free port): it takes the emulator's webhook URL.
    const forward = listenArgs!.map((a) => (a.startsWith('http://localhost:3000/') ? appUrl : a));
    expect(forward).toContain(appUrl);
    const listen = spawn(process.execPath, [PAY_BIN, ...forward, '--port', '0'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    listen.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    listen.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const closed = new Promise<number | null>((r) => listen.once('close', (code) => r(code)));
    try {
      await until('listen to register', () => /Registered \S+ as the webhook URL/.test(err), { seen: () => err });
      const status = await runPay(['emulator', 'webhook-url'], { env });
      expect(status.code).toBe(0);
      const listenUrl = /Ready, listening on (http:\/\/\S+?)[,\s]/.exec(err)![1]!;
      expect(status.stdout.trim()).toBe(listenUrl);

      // 3. pay trigger transfer.failed: prints what it created and the event (TSV off a terminal).
      const trig = await runPay(triggerArgs!, { env, timeoutMs: 120_000 });
      expect(trig.stderr).not.toMatch(/^error:/m);
      expect(trig.code).toBe(0);
      const rows = trig.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t'));
      const eventRow = rows.find((r) => r[0] === 'event' && r[2] === 'transfer.failed');
      expect(eventRow, trig.stdout).toBeDefined();
      const eventId = eventRow![1]!;
      expect(eventId).toMatch(/^evt_[0-9a-z]{24}$/);
      expect(rows.some((r) => r[0] === 'transfer' && /^tr_/.test(r[1]!))).toBe(true);

      // The app gets it, signed, forwarded by listen, which prints the two lines.
      await until('the app to receive transfer.failed', () => received.some((r) => r.id === eventId));
      expect(received.filter((r) => r.id === eventId)).toEqual([{ id: eventId, type: 'transfer.failed', signed: true }]);
      // The answer line comes once the app has answered: waited for, not assumed to be there with
      // the first line. Deliveries are forwarded concurrently, so another event's lines may come
      // between the two; each is a whole line, the answer after the delivery.
      const answerLine = new RegExp(`^<-- \\[200\\] POST ${appUrl.replace(/[./]/g, '\\$&')} \\(\\d+ ms\\) \\[${eventId}\\]$`);
      const lines = () => out.split('\n');
      await until('the answer line', () => lines().some((l) => answerLine.test(l)), { seen: () => out });
      const sentAt = lines().indexOf(`--> transfer.failed [${eventId}]`);
      expect(sentAt, out).toBeGreaterThanOrEqual(0);
      expect(
        lines().findIndex((l) => answerLine.test(l)),
        out,
      ).toBeGreaterThan(sentAt);

      // 4. pay webhooks resend <the event>: the app gets it again, listen marks it as a repeat.
      const resend = await runPay(
        resendArgs!.map((a) => (a === 'evt_…' ? eventId : a)),
        { env },
      );
      expect(resend.code).toBe(0);
      await until('the app to receive the resend', () => received.filter((r) => r.id === eventId).length === 2);
      await until('the repeat line', () => out.includes(`--> transfer.failed [${eventId}] (repeat 2)\n`));
      const delivery = await runPay(['webhooks', 'get', eventId, '--json'], { env });
      expect((JSON.parse(delivery.stdout) as { delivery: { status: string; attempts: number } }).delivery).toMatchObject({
        status: 'delivered',
        attempts: 2,
      });
    } finally {
      if (listen.exitCode === null) listen.kill('SIGINT');
    }
    // Ctrl-C stops listen cleanly and gives the emulator's webhook URL back (it had none).
    expect(await closed).toBe(0);
    expect(err).toMatch(/Stopped\.\n$/);
    const cleared = await runPay(['emulator', 'webhook-url', '--json'], { env });
    expect(JSON.parse(cleared.stdout)).toMatchObject({ url: null });
  });
});
