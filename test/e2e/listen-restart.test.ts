// The emulator restarted on the same --data-dir under a running `pay webhooks listen`, all built
// CLI child processes (round-3 defect E2): the restarted emulator says it kept the listen's URL,
// the listen keeps receiving (a new event is printed and forwarded), and stopping it gives back the
// URL from before it; faults set in the first run are gone.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, PAY_BIN, runPay, tempDir } from '../helpers/run-pay.js';
import { until } from './groups/helpers.js';

interface Proc {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  stop(): Promise<number | null>;
}

const procs = new Set<Proc>();
let app: Server | undefined;
afterAll(async () => {
  for (const p of procs) await p.stop();
  await new Promise((r) => (app ? app.close(r) : r(undefined)));
});

function spawnPay(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [PAY_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const p: Proc = {
    child,
    out: () => out,
    err: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await closed;
      clearTimeout(t);
      procs.delete(p);
      return code;
    },
  };
  procs.add(p);
  return p;
}

describe('pay webhooks listen across an emulator restart on the same data dir', () => {
  it('keeps receiving; its give-back restores the URL from before it; faults are not kept', async () => {
    const got: string[] = [];
    app = createServer((req, res) => {
      got.push(String(req.headers['webhook-id']));
      req.resume();
      res.writeHead(200).end();
    });
    await new Promise<void>((r) => app!.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
    const dataDir = tempDir('pay-emu-restart-');
    const env = cleanEnv({ PAY_CONFIG_DIR: tempDir('pay-emu-restart-cfg-') });

    let emu = spawnPay(
      ['emulator', 'start', '--port', '0', '--data-dir', dataDir, '--configure-profile', 'local', '--fail-rate', '0'],
      env,
    );
    await until('the emulator to start', () => emu.err().includes('Press Ctrl-C to stop.'));
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(emu.err())![1]!;
    expect(emu.err()).toMatch(/sandbox webhook URL\s+none \(/);
    expect((await runPay(['-p', 'local', 'emulator', 'faults', '--fail-rate', '0.5'], { env })).code).toBe(0);

    const listen = spawnPay(['-p', 'local', 'webhooks', 'listen', '--port', '0', '--forward-to', appUrl], env);
    await until('listen to register', () => /Registered \S+ as the webhook URL/.test(listen.err()));
    const listenUrl = /Ready, listening on (http:\/\/\S+?),/.exec(listen.err())![1]!;

    expect(await emu.stop()).toBe(0);
    emu = spawnPay(['emulator', 'start', '--port', port, '--data-dir', dataDir], env);
    await until('the emulator to start again', () => emu.err().includes('Press Ctrl-C to stop.'));
    expect(emu.err()).toMatch(
      new RegExp(`sandbox webhook URL +${listenUrl.replace(/[./]/g, '\\$&')} \\(kept from the last run on this data dir\\)\n`),
    );

    const status = await runPay(['-p', 'local', 'emulator', 'status', '--json'], { env });
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout) as { webhook_urls: unknown; faults: unknown };
    expect(s.webhook_urls).toEqual({ sandbox: listenUrl, live: null });
    expect(s.faults).toEqual({ fail_rate: 0, latency_ms: null, reset_rate: 0, rate_limit: null });

    const trig = await runPay(['-p', 'local', 'trigger', 'customer.created', '--json'], { env });
    expect(trig.code).toBe(0);
    const eventId = /"(evt_[0-9a-z]+)"/.exec(trig.stdout)![1]!;
    await until('the delivery', () => listen.out().includes(`--> customer.created [${eventId}]`) && got.includes(eventId));

    expect(await listen.stop()).toBe(0);
    const url = await runPay(['-p', 'local', 'emulator', 'webhook-url', '--json'], { env });
    expect(JSON.parse(url.stdout)).toEqual({ mode: 'sandbox', url: null });
    expect(await emu.stop()).toBe(0);
  });
});
