// A closed terminal (SIGHUP) stops every long-running command as SIGTERM does, on real process
// signals (src/cmdutil/factory.ts HEARD_AS): `pay webhooks listen` gives the emulator's webhook
// URL back, `pay emulator requests --follow` stops with exit 0, `pay emulator start` stops cleanly.
// Before, SIGHUP killed pay at once: the dead listener's URL stayed registered.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, PAY_BIN } from '../helpers/run-pay.js';
import { until } from './groups/helpers.js';

interface Run {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  closed: Promise<number | null>;
}

const env = cleanEnv();
const runs: Run[] = [];

function start(args: string[]): Run {
  const child = spawn(process.execPath, [PAY_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const run = { child, out: () => out, err: () => err, closed };
  runs.push(run);
  return run;
}

/** Sends SIGHUP and waits for the exit (a hang guard kills it after 60 s: the test then fails on its code). */
async function hangUp(r: Run): Promise<number | null> {
  r.child.kill('SIGHUP');
  const guard = setTimeout(() => r.child.kill('SIGKILL'), 60_000);
  const code = await r.closed;
  clearTimeout(guard);
  return code;
}

afterAll(() => {
  for (const r of runs) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
});

describe('SIGHUP (the terminal closed) stops a long-running command as SIGTERM does', () => {
  it('listen gives the webhook URL back, requests --follow and emulator start stop cleanly (exit 0)', async () => {
    const emu = start(['emulator', 'start', '--port', '0', '--configure-profile', 'x']);
    await until('the emulator to start', () => /Ctrl-C/.test(emu.err() + emu.out()));
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(emu.err() + emu.out())![1]!;
    const webhookUrl = async (): Promise<unknown> =>
      ((await (await fetch(`${url}/__emulator/webhook-url`)).json()) as { url: unknown }).url;

    const listen = start(['-p', 'x', 'webhooks', 'listen', '--port', '0']);
    await until('listen to register', () => listen.err().includes('events still pending delivery come now.\n'));
    const ours = /Registered (\S+) as the webhook URL/.exec(listen.err())![1]!;
    expect(await webhookUrl()).toBe(ours);
    expect(await hangUp(listen)).toBe(0);
    expect(listen.err()).toMatch(/Gave the emulator's Sandbox webhook URL back: none\nStopped\.\n$/);
    expect(await webhookUrl()).toBeNull();

    const follow = start(['-p', 'x', 'emulator', 'requests', '--follow']);
    await until('requests --follow to start', () => follow.err().includes('(Ctrl-C to stop)'));
    expect(await hangUp(follow)).toBe(0);
    expect(follow.err().endsWith('Stopped.\n')).toBe(true);

    expect(await hangUp(emu)).toBe(0);
    expect(emu.err()).toMatch(/stopping the emulator…\nemulator stopped\n$/);
  }, 180_000);
});
