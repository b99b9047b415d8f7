// `pay emulator requests --follow` across an emulator restart, the built CLI as a child process: the
// emulator (in process) stops; --follow says so once and tries again with backoff instead of ending
// with exit 6; started again on the same port, it says it is back and follows the new run's log
// from its start; SIGINT ends it with exit 0. The first read, before following, still fails at once.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, PAY_BIN, runPay } from '../helpers/run-pay.js';
import { customerBody, until } from './groups/helpers.js';

const emulators: Emulator[] = [];
afterAll(async () => {
  for (const e of emulators) await e.stop();
});

async function start(port = 0): Promise<Emulator> {
  const emu = await startEmulator({ port, host: '127.0.0.1' });
  emulators.push(emu);
  return emu;
}

async function createCustomer(emu: Emulator): Promise<void> {
  const res = await fetch(`${emu.baseUrl}customers`, {
    method: 'POST',
    headers: {
      'api-key': emu.keys.sandbox.secret,
      'x-tenant-id': emu.tenantId,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify(customerBody()),
  });
  expect(res.status).toBe(201);
}

describe('pay emulator requests --follow while the emulator restarts', () => {
  it('notes it gone once, retries, notes it back and follows the new log from its start; exit 0 on SIGINT', async () => {
    const first = await start();
    const port = Number(new URL(first.url).port);
    const env = cleanEnv({ PAY_BASE_URL: first.baseUrl });
    const child = spawn(process.execPath, [PAY_BIN, 'emulator', 'requests', '--follow', '--path', '/v1/customers', '-o', 'ndjson'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const rowCount = (): number => out.split('\n').filter(Boolean).length;
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    try {
      await until('requests --follow to start', () => err.includes('(Ctrl-C to stop)'));
      await createCustomer(first);
      await until('the first run’s request', () => rowCount() === 1);
      await first.stop();
      await until('the note that it is gone', () => err.includes('does not answer'));
      // Gone for a while: still following, one note only.
      await until('still running', () => child.exitCode === null && err.split('does not answer').length === 2);
      const second = await start(port);
      await createCustomer(second);
      await until('the new run’s request', () => rowCount() === 2);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      const origin = `http://127.0.0.1:${port}`;
      expect(err).toMatch(
        new RegExp(
          `^Following the requests to the emulator at ${origin.replace(/[./]/g, '\\$&')} \\(Ctrl-C to stop\\)\\n` +
            `note: the emulator at \\S+ does not answer \\([^)\\n]+\\); trying again until it is back \\(Ctrl-C to stop\\)\\n` +
            `note: the emulator at \\S+ answers again\\n` +
            `note: the emulator at \\S+ restarted; following its new log\\n` +
            `Stopped\\.\\n$`,
        ),
      );
      const rows = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { method: string; path: string; status: number });
      expect(rows.map((r) => [r.method, r.path, r.status])).toEqual([
        ['POST', '/v1/customers', 201],
        ['POST', '/v1/customers', 201],
      ]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 180_000);

  it('the first read, before following, still fails at once: exit 6', async () => {
    const gone = await start();
    const base = gone.baseUrl;
    await gone.stop();
    emulators.splice(emulators.indexOf(gone), 1);
    const r = await runPay(['emulator', 'requests', '--follow'], { env: cleanEnv({ PAY_BASE_URL: base }) });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 6, stdout: '' });
    expect(r.stderr).toMatch(/^error: no emulator answers at /);
  }, 60_000);
});
