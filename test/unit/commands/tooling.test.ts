// The tooling commands run in process like the resource verbs: the same tree, the same dispatcher,
// a fake Factory (buffered streams, a temporary config folder, fake signals). Profiles, the
// contract, help topics, completion scripts, and `pay emulator start` itself: its banner on the
// fake stderr, an API call answered, a fake Ctrl-C stopping it (exit 0), and a second Ctrl-C while
// it stops ending it through the entry (exit 1, "stopped without waiting").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Signals } from '../../../src/cmdutil/factory.js';
import { bufferIOStreams } from '../../../src/io/iostreams.js';
import { fakeSignals, pay } from './harness.js';
import { untilMatch } from '../../helpers/wait.js';

const dirs: string[] = [];
const configDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'pay-tooling-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('profiles, in process', () => {
  it('set, list, show and use work on the config folder, keys masked', async () => {
    const env = { PAY_CONFIG_DIR: configDir() };
    const set = await pay(['profiles', 'set', 'tenant_id', 'biz_123'], { env });
    expect(set).toMatchObject({ code: 0, stdout: '' });
    expect(set.stderr).toMatch(/✓ Set/);
    const key = await pay(['profiles', 'set', 'secret_key', '-'], { env, stdin: 'sk_test_abcdefghijklmnopqrstuvwx1234\n' });
    expect(key.code).toBe(0);
    const list = await pay(['profiles', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as Array<{ name: string; tenant_id: string; sandbox: { secret_key: string } }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'default', tenant_id: 'biz_123' });
    expect(rows[0]!.sandbox.secret_key).not.toContain('abcdefghijklmnop');
    const show = await pay(['profiles', 'show', 'default', '-o', 'tsv', '--fields', 'name,tenant_id'], { env });
    expect(show).toMatchObject({ code: 0, stdout: 'name\ttenant_id\ndefault\tbiz_123\n' });
    const missing = await pay(['profiles', 'use', 'nope'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: .*nope/);
  });

  it('a bad output flag is exit 2 before anything is read, and --json makes the error JSON', async () => {
    const r = await pay(['profiles', 'list', '-o', 'json', '--fields', ''], { env: { PAY_CONFIG_DIR: configDir() } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const bad = await pay(['profiles', 'use', 'nope', '--json'], { env: { PAY_CONFIG_DIR: configDir() } });
    expect(bad.code).toBe(2);
  });
});

describe('contract, help and completion, in process', () => {
  it('pay openapi prints the OpenAPI document on the fake stdout', async () => {
    const r = await pay(['openapi']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(20);
  });

  it('pay help prints topics and command help; an unknown topic is exit 2', async () => {
    const env = await pay(['help', 'environment']);
    expect(env.code).toBe(0);
    expect(env.stdout).toMatch(/^Environment variables and precedence\n/);
    expect(env.stdout).toContain('PAY_API_KEY');
    const cmd = await pay(['help', 'transfers', 'send']);
    expect(cmd.code).toBe(0);
    expect(cmd.stdout).toMatch(/Usage: pay transfers send/);
    const bad = await pay(['help', 'nonsense']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown help topic or command "nonsense"/);
  });

  it('pay completion prints the script; an unknown shell is exit 2', async () => {
    const bash = await pay(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toMatch(/complete .*pay/);
    const bad = await pay(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
  });
});

describe('pay emulator start, in process', () => {
  it('prints its banner on the fake stderr, answers the API, and stops on a fake Ctrl-C (exit 0)', async () => {
    const io = bufferIOStreams();
    const signals = fakeSignals();
    const running = pay(['emulator', 'start', '--port', '0', '--settle-after', '0'], { io, signals, env: { PAY_CONFIG_DIR: configDir() } });
    const base = (await untilMatch('the base URL', io.stderrText, /base URL\s+(\S+)/))[1]!;
    const key = (await untilMatch('the sandbox key', io.stderrText, /sandbox secret key\s+(\S+)/))[1]!;
    const tenant = (await untilMatch('the tenant id', io.stderrText, /tenant id\s+(\S+)/))[1]!;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/$/);
    const res = await fetch(`${base}customers`, { headers: { 'Api-Key': key, 'x-tenant-id': tenant } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { object: string }).object).toBe('list');
    signals.emit('SIGINT');
    const r = await running;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/\nstopping the emulator…\nemulator stopped\n$/);
    expect(signals.count()).toBe(0);
  });

  it('a second Ctrl-C while it stops ends it at once through the entry: exit 1, "stopped without waiting"', async () => {
    const io = bufferIOStreams();
    const fake = fakeSignals();
    let sigints = 0;
    // The second SIGINT listener is the one that forces: it hears a Ctrl-C as soon as it is there.
    const signals: Signals = {
      on: (signal, fn) => {
        fake.on(signal, fn);
        if (signal === 'SIGINT' && ++sigints === 2) fn('SIGINT');
      },
      off: fake.off,
      alone: fake.alone,
    };
    const running = pay(['emulator', 'start', '--port', '0'], { io, signals, env: { PAY_CONFIG_DIR: configDir() } });
    await untilMatch('the banner', io.stderrText, /Press Ctrl-C to stop\.\n/);
    fake.emit('SIGINT');
    const r = await running;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stopping the emulator…\nstopped without waiting\n$/);
    expect(r.stderr).not.toMatch(/^error:/m);
  });

  it('a bad flag is exit 2 with one line, and nothing listens', async () => {
    const r = await pay(['emulator', 'start', '--port', '99999'], { signals: fakeSignals() });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: invalid --port "99999" (0-65535; 0 picks a free port)\n');
  });
});
