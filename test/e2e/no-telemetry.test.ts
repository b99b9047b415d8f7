// Update-free and telemetry-free (issue 6): across a session of ordinary commands, every socket
// pay opens goes to the configured service, and nothing else is looked up or dialled.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';

const SPY = new URL('../helpers/net-spy.cjs', import.meta.url).pathname;
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  registerSecret(emu.keys.sandbox.secret, emu.webhookSecret);
});
afterAll(() => emu?.stop());

it('a session of commands connects to the configured service only', async () => {
  const dir = tempDir('pay-net-');
  const log = join(dir, 'net.log');
  const env = cleanEnv({ PAY_CONFIG_DIR: dir, NODE_OPTIONS: `--require ${SPY}`, PAY_NET_SPY: log });
  const session: Array<[string[], string?]> = [
    [['--version']],
    [['--help']],
    [['login', '--with-key', '--tenant', emu.tenantId, '--base-url', emu.baseUrl], emu.keys.sandbox.secret],
    [['profiles', 'list']],
    [['customers', 'list', '--limit', '1']],
    [['accounts', 'list', '--json']],
    [['webhooks', 'list', '--limit', '1']],
    [['doctor']],
    [['openapi']],
    [['completion', 'bash']],
    [['help', 'environment']],
    [['__complete', 'profiles']],
  ];
  for (const [args, stdin] of session) {
    const r = await runPay(args, { env, ...(stdin !== undefined ? { stdin } : {}) });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }
  const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  const port = new URL(emu.baseUrl).port;
  // The spy works (the API commands did connect), and every line is the emulator.
  expect(lines.length).toBeGreaterThanOrEqual(4);
  expect(lines.filter((l) => l !== `connect 127.0.0.1:${port}`)).toEqual([]);
}, 60_000);
