// The README's first run, from a fresh config directory (issue 27, done when): the commands of its
// "Try everything locally" and "Log in" sections, parsed from README.md (so a README change that
// breaks them fails here), run as a new user would, with an empty PAY_CONFIG_DIR and HOME and no
// PAY_* variables: `emulator start --configure-profile local` (on a free port instead of the
// README's 8787) makes the profile, then the section's `pay emulator …` lines, `pay profiles list`
// and `pay doctor` talk to it with nothing else set; each exits 0 as the README says. The login
// lines (`printf … | pay login --with-key …`) run in a second fresh directory: they call nothing
// and save the profiles they name. test/e2e/readme-blocks.test.ts runs every other `pay` block,
// with the service given by PAY_* variables instead.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, PAY_BIN, tempDir } from '../helpers/run-pay.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The `sh` blocks of the README section titled `heading` (up to the next heading of its level or above). */
function blocksOf(heading: string): string[] {
  const start = README.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "${heading}" section`);
  const rest = README.slice(start + heading.length + 2);
  const end = rest.search(/^#{1,3} /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** A command line's words (the README's first-run lines quote nothing). */
function words(line: string): string[] {
  expect(line, `a line the test splits on spaces: ${line}`).not.toMatch(/["'\\$`]/);
  return line.trim().split(/\s+/);
}

const LOCAL = blocksOf('### Try everything locally');
const LOGIN = blocksOf('### Log in');

/** A folder with a `pay` that runs the built CLI, as `npm install -g` would put on PATH. */
function binDir(): string {
  const bin = tempDir('pay-first-run-bin-');
  writeFileSync(join(bin, 'pay'), `#!/bin/sh\nexec "${process.execPath}" "${PAY_BIN}" "$@"\n`);
  chmodSync(join(bin, 'pay'), 0o755);
  return bin;
}

/** A new user's environment: a fresh, empty config folder and home, no PAY_* variables, `pay` on PATH. */
function freshEnv(bin: string, extra: Record<string, string> = {}): { env: Record<string, string>; configDir: string } {
  const configDir = tempDir('pay-first-run-config-');
  const home = tempDir('pay-first-run-home-');
  expect(readdirSync(configDir)).toEqual([]);
  const env = cleanEnv({
    PAY_CONFIG_DIR: configDir,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    PATH: `${bin}:${process.env.PATH}`,
    ...extra,
  });
  // Only the config folder: no key, tenant or base URL from the environment.
  expect(
    Object.keys(env)
      .filter((k) => k.startsWith('PAY_'))
      .sort(),
  ).toEqual(['PAY_CONFIG_DIR', 'PAY_RETRY_BASE_MS']);
  return { env, configDir };
}

function bash(script: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: tempDir('pay-first-run-cwd-'), env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

let bin: string;
let emulator: ChildProcess | undefined;
let banner = '';
let local: { env: Record<string, string>; configDir: string };

beforeAll(() => {
  bin = binDir();
  local = freshEnv(bin);
});
afterAll(async () => {
  const child = emulator;
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await gone;
  }
});

describe("the README's first run, from a fresh config directory", () => {
  it('the sections are there, with the commands this test runs', () => {
    expect(LOCAL.length).toBeGreaterThanOrEqual(2);
    expect(LOCAL[0]).toMatch(/emulator start .*--configure-profile /);
    expect(LOGIN.length).toBeGreaterThanOrEqual(2);
    expect(LOGIN.join('\n')).toMatch(/pay login --with-key/);
    expect(LOGIN.join('\n')).toMatch(/^pay doctor$/m);
  });

  it('"Try everything locally": emulator start --configure-profile makes the profile in the empty folder, and it becomes the current one', async () => {
    // `npm run build && node bin/pay.js emulator start --port 8787 --configure-profile local`: the
    // build is the suite's; the port is a free one (8787 may be taken on a shared machine).
    const line = LOCAL[0]!.trim().split('\n')[0]!.split('&&').pop()!;
    const argv = words(line);
    expect(argv.slice(0, 2)).toEqual(['node', 'bin/pay.js']);
    const port = argv.indexOf('--port');
    expect(port, 'the README names a port').toBeGreaterThan(0);
    argv[port + 1] = '0';
    const profile = argv[argv.indexOf('--configure-profile') + 1]!;
    const child = (emulator = spawn(process.execPath, [PAY_BIN, ...argv.slice(2)], { env: local.env, stdio: ['ignore', 'pipe', 'pipe'] }));
    // Waits for the banner's last line (or the process's end, which fails the test), not for a time.
    const ended = await new Promise<boolean>((resolve) => {
      const onData = (d: string) => {
        banner += d;
        if (/Press Ctrl-C to stop/.test(banner)) resolve(false);
      };
      child.stdout.setEncoding('utf8').on('data', onData);
      child.stderr.setEncoding('utf8').on('data', onData);
      child.once('exit', () => resolve(true));
    });
    expect(ended, banner).toBe(false);
    expect(banner).toContain(`Profile "${profile}" configured in ${join(local.configDir, 'config.json')} (now the current profile)`);
    expect(existsSync(join(local.configDir, 'config.json'))).toBe(true);
  }, 30_000);

  it('"Try everything locally": the lines that drive it, with nothing but the profile', async () => {
    expect(banner, 'the emulator started').toMatch(/Press Ctrl-C to stop/);
    for (const block of LOCAL.slice(1)) {
      for (const line of block.split('\n').filter((l) => /^pay /.test(l))) {
        const r = await bash(line, local.env);
        expect({ line, status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ line, status: 0, stderr: '' });
      }
    }
  }, 60_000);

  it('"Log in": pay profiles list and pay doctor check that set-up; doctor names the emulator', async () => {
    const checks = LOGIN.find((b) => /^pay doctor$/m.test(b))!;
    for (const line of checks.split('\n').filter((l) => /^pay /.test(l))) {
      const r = await bash(line, local.env);
      expect({ line, status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ line, status: 0, stderr: '' });
      if (line === 'pay doctor') expect(r.stdout + r.stderr).toMatch(/is a pay emulator \d/);
      if (line === 'pay profiles list') expect(r.stdout).toMatch(/^local\s+true\s/m);
    }
  }, 60_000);

  it('"Log in": the script lines (the key piped to pay login --with-key) save their profiles in a fresh folder', async () => {
    const keys = banner.match(/sk_(?:test|live)_[A-Za-z0-9]+/g) ?? [];
    const sandbox = keys.find((k) => k.startsWith('sk_test_'));
    const live = keys.find((k) => k.startsWith('sk_live_'));
    expect(sandbox && live, 'the banner names both test keys').toBeTruthy();
    const login = LOGIN.find((b) => /pay login --with-key/.test(b))!;
    const fresh = freshEnv(bin, { SANDBOX_SECRET_KEY: sandbox!, LIVE_SECRET_KEY: live! });
    const r = await bash(login, fresh.env);
    expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout + r.stderr).not.toContain(sandbox!);
    expect(r.stdout + r.stderr).not.toContain(live!);
    // The profiles the lines name (-p acme, and the current one of the first), read back by pay.
    const names = login.match(/-p (\S+)/g)?.map((m) => m.slice(3)) ?? [];
    const list = await bash('pay profiles list --json', fresh.env);
    expect(list.status, list.stderr).toBe(0);
    const saved = (JSON.parse(list.stdout) as Array<{ name: string; tenant_id?: string }>).map((p) => p.name);
    for (const name of names) expect(saved).toContain(name);
    expect(saved.length).toBeGreaterThan(names.length);
    expect(existsSync(join(fresh.configDir, 'config.json'))).toBe(true);
  }, 60_000);
});
