// `pay emulator start` as a process: banner on stderr, --configure-profile, stable keys with a
// data dir, clean stop on SIGTERM (exit 0), one-line errors with exit 2 (usage) or 1. The entry
// (src/cli.ts) is bundled from source here, so this test does not depend on dist/ being built.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { cleanEnv } from '../helpers/run-pay.js';
import { untilMatch } from '../helpers/wait.js';

const src = (p: string) => new URL(`../../src/${p}`, import.meta.url).pathname;
let entry: string;

beforeAll(async () => {
  const dir = tempDir('pay-emu-cli-');
  const main = src('cli.ts');
  entry = join(dir, 'pay.mjs');
  await build({
    entryPoints: [main],
    outfile: entry,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    nodePaths: [new URL('../../node_modules', import.meta.url).pathname],
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
    logLevel: 'silent',
  });
});

interface Started {
  stderr: () => string;
  exit: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
}

function startCli(args: string[], env: Record<string, string>): Started {
  const child = spawn(process.execPath, [entry, 'emulator', 'start', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { stderr: () => err, exit, kill: (s) => child.kill(s) };
}

const waitFor = (s: Started, re: RegExp): Promise<RegExpExecArray> => untilMatch(`${re} on stderr`, s.stderr, re);

const run = (args: string[]) =>
  spawnSync(process.execPath, [entry, 'emulator', ...args], { encoding: 'utf8', env: cleanEnv({ PAY_CONFIG_DIR: tempDir() }) });

afterAll(() => removeTempDirs());

describe('pay emulator start', () => {
  let blocker: Server;
  afterAll(() => blocker?.close());

  it('prints the banner, writes the profile, serves with the printed key, and stops cleanly on SIGTERM', async () => {
    const config = tempDir('pay-emu-cfg-');
    const data = tempDir('pay-emu-data-');
    const env = { PAY_CONFIG_DIR: config };
    const s = startCli(['--port', '0', '--data-dir', data, '--configure-profile', 'local', '--settle-after', '100'], env);
    await waitFor(s, /Press Ctrl-C/);
    const base = /base URL\s+(http:\/\/127\.0\.0\.1:\d+\/v1\/)/.exec(s.stderr())![1]!;
    const secret = /sandbox secret key\s+(sk_test_[0-9A-Za-z]{32})/.exec(s.stderr())![1]!;
    const tenant = /tenant id\s+(\S+)/.exec(s.stderr())![1]!;
    expect(s.stderr()).toMatch(/live secret key\s+sk_live_[0-9A-Za-z]{32}/);
    expect(s.stderr()).toMatch(/sandbox webhook secret\s+whsec_/);
    expect(s.stderr()).toContain('Profile "local" configured');

    const profile = new ConfigStore(config).profile('local')!;
    expect(profile).toMatchObject({ tenant_id: tenant, sandbox: { secret_key: secret, base_url: base } });
    expect(profile.live?.secret_key).toMatch(/^sk_live_/);
    expect(profile.sandbox?.webhook_secret).toMatch(/^whsec_/);

    const r = await fetch(`${base}accounts`, { headers: { 'api-key': secret, 'x-tenant-id': tenant } });
    expect(r.status).toBe(200);

    s.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    expect(s.stderr()).toContain('emulator stopped');

    // Same data dir: same keys.
    const again = startCli(['--port', '0', '--data-dir', data], env);
    await waitFor(again, /Press Ctrl-C/);
    expect(again.stderr()).toContain(secret);
    again.kill('SIGINT');
    expect(await again.exit).toBe(0);
  });

  it('a port in use is exit 1 with one error line; bad flags are exit 2', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = String((blocker.address() as AddressInfo).port);
    const busy = run(['start', '--port', port]);
    expect(busy.status).toBe(1);
    expect(busy.stderr).toMatch(new RegExp(`^error: cannot start the emulator: port ${port} on 127.0.0.1 is already in use\\nhint: `));
    expect(busy.stderr).not.toMatch(/\bat .*\.(m?js|ts):\d+/);
    for (const args of [
      ['--port', 'x'],
      ['--port', '70000'],
      ['--fail-rate', '1.5'],
      ['--reset-rate', 'abc'],
      ['--latency', '9-1'],
      ['--rate-limit', 'fast'],
      ['--settle-after', '-1'],
      ['--webhook-url', 'ftp://x'],
      ['--configure-profile', 'no spaces'],
      ['--bogus'],
    ]) {
      const r = run(['start', ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^error: /);
      expect(r.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    }
  });

  it('has help with examples', () => {
    const r = run(['start', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n\s+\$ pay emulator start\n\s+\$ pay emulator start --port 0/);
    for (const flag of [
      '--host',
      '--port',
      '--data-dir',
      '--webhook-url',
      '--configure-profile',
      '--fail-rate',
      '--latency',
      '--reset-rate',
      '--rate-limit',
      '--settle-after',
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });
});
