// pay doctor against a real emulator: a line per check, a fix for each failure, exit 0 only when
// all pass.
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, PAY_BIN, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';
import { freePort } from '../helpers/ports.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  registerSecret(emu.keys.sandbox.secret, emu.keys.live.secret, emu.webhookSecret);
});
afterAll(() => emu?.stop());

describe('pay doctor', () => {
  it('passes with a stored profile that the service accepts, and says where each setting came from', async () => {
    const dir = tempDir('pay-doc-');
    const env = cleanEnv({ PAY_CONFIG_DIR: dir });
    expect(
      (await runPay(['login', '--with-key', '--tenant', emu.tenantId, '--base-url', emu.baseUrl], { env, stdin: emu.keys.sandbox.secret }))
        .code,
    ).toBe(0);
    const r = await runPay(['doctor'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ config file .*config\.json is mode 0600$/m);
    expect(r.stdout).toMatch(/^✓ config folder .* is mode 0700$/m);
    expect(r.stdout).toMatch(/^• profile "default" \(profile: current profile\)$/m);
    expect(r.stdout).toMatch(/^✓ secret key sk_test_…[A-Za-z0-9]{4} \(profile: profile "default" \(sandbox\)\)$/m);
    expect(r.stdout).toMatch(/^✓ the service answers with this key \(GET \/customers: 200 in \d+ ms\)$/m);
    expect(r.stdout).toMatch(/^✓ clock skew against the service: -?\d+ s$/m);
    expect(r.stdout).not.toContain('✗');
  });

  it('a shared sticky folder (1777) passes, its mode untouched; one others may write without the sticky bit fails with a fix', async () => {
    const dir = tempDir('pay-doc-');
    const env = cleanEnv({ PAY_CONFIG_DIR: dir });
    chmodSync(dir, 0o1777);
    expect(
      (await runPay(['login', '--with-key', '--tenant', emu.tenantId, '--base-url', emu.baseUrl], { env, stdin: emu.keys.sandbox.secret }))
        .code,
    ).toBe(0);
    const shared = await runPay(['doctor'], { env });
    expect(shared.stdout).toMatch(/^✓ config folder .* is mode 1777 \(shared; the file itself is checked\)$/m);
    expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    chmodSync(dir, 0o777);
    const open = await runPay(['doctor'], { env });
    expect(open.code).toBe(1);
    expect(open.stdout).toMatch(/^✗ config folder .* is mode 0777\n {4}fix: chmod 700 '.*' \(or chmod \+t for a shared folder\)$/m);
  }, 120_000);

  it('fails with a fix for each problem: loose permissions, --api-key in argv, a rejected key', async () => {
    const dir = tempDir('pay-doc-');
    const env = cleanEnv({ PAY_CONFIG_DIR: dir });
    await runPay(['login', '--with-key', '--tenant', emu.tenantId, '--base-url', emu.baseUrl], { env, stdin: emu.keys.sandbox.secret });
    chmodSync(join(dir, 'config.json'), 0o644);
    const wrongKey = 'sk_test_NotTheEmulatorsKeyAtAll0000000';
    registerSecret(wrongKey);
    const r = await runPay(['doctor', '--api-key', wrongKey], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^✗ config file .* is mode 0644\n {4}fix: chmod 600 '.*config\.json'$/m);
    expect(r.stdout).toMatch(/^✗ the key was passed with --api-key: .*\n {4}fix: use PAY_API_KEY or a profile/m);
    // The emulator answered: the key given is not one of its own.
    expect(r.stdout).toMatch(/^• the service at http:\/\/127\.0\.0\.1:\d+\/v1\/ is a pay emulator \S+ \(in memory, up \d+ s\)$/m);
    expect(r.stdout).toMatch(
      /^✗ the pay emulator \S+ at .* does not know the key from --api-key \(401\): the key is not one this emulator knows, and no other emulator pay knows of on this machine takes it: it may be wrong, or belong to an emulator not running\n {4}fix: use this emulator's key/m,
    );
    expect(r.stderr).toMatch(/^error: 3 checks failed$/m);
  });

  it('--json prints the checks as data', async () => {
    const env = cleanEnv({ PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret });
    const r = await runPay(['doctor', '--json'], { env });
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: Array<{ ok: boolean; label: string }> };
    expect(r.code, r.stderr).toBe(0);
    expect(out.ok).toBe(true);
    expect(out.checks.filter((c) => !c.ok)).toEqual([]);
    expect(out.checks.some((c) => /the service answers/.test(c.label) && c.ok)).toBe(true);
  });
});

/**
 * Issue 27: a profile whose keys another emulator made, pointing at this one (a second emulator on
 * another port, its own data dir: its keys differ). doctor said "check the key: pay login"; the
 * fix is the base URL, or this emulator's keys. Variants: the profile's name and mode, the
 * emulator with a data dir or in memory; and a server that is not an emulator answering 401.
 */
describe('pay doctor: which service answered', () => {
  let other: Emulator;
  let withData: Emulator;
  let dataDir: string;
  let plain: Server;
  let plainUrl: string;
  beforeAll(async () => {
    dataDir = tempDir('pay-doc-data-');
    other = await startEmulator({ port: 0 });
    withData = await startEmulator({ port: 0, dataDir });
    registerSecret(other.keys.sandbox.secret, other.keys.live.secret, withData.keys.sandbox.secret, withData.keys.live.secret);
    // Another service on this machine: 401 to everything, no emulator health answer.
    plain = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"code":"unauthorized","detail":"who are you"}');
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/v1/`;
  });
  afterAll(async () => {
    await other?.stop();
    await withData?.stop();
    plain?.close();
  });

  /** A profile logged in with `emu`'s keys (the one that made them), then pointed at `baseUrl`. */
  async function profileFor(emuKeys: Emulator, baseUrl: string, name: string, live: boolean): Promise<Record<string, string>> {
    const env = cleanEnv({ PAY_CONFIG_DIR: tempDir('pay-doc-') });
    const key = live ? emuKeys.keys.live.secret : emuKeys.keys.sandbox.secret;
    const args = [
      'login',
      '--with-key',
      '-p',
      name,
      '--set-current',
      '--tenant',
      emuKeys.tenantId,
      '--base-url',
      baseUrl,
      ...(live ? ['--live'] : []),
    ];
    const r = await runPay(args, { env, stdin: key });
    expect(r.code, r.stderr).toBe(0);
    return env;
  }

  const variants: Array<{ name: string; live: boolean; data: boolean; known: boolean }> = [
    { name: 'default', live: false, data: false, known: true },
    { name: 'acme', live: false, data: true, known: true },
    { name: 'default', live: true, data: true, known: false },
    { name: 'x-2', live: true, data: false, known: false },
  ];
  it.each(variants)('a profile made for another emulator (%o): names the emulator that answered and the fix', async (v) => {
    const at = v.data ? withData : other;
    // Keys from `emu` (the test's first emulator), base URL of the second one.
    const env = await profileFor(emu, at.baseUrl, v.name, v.live);
    if (v.known) {
      // Another profile points at emu: doctor may ask it whether it takes the key.
      const key = v.live ? emu.keys.live.secret : emu.keys.sandbox.secret;
      const l = await runPay(['login', '--with-key', '-p', 'finder', '--base-url', emu.baseUrl, ...(v.live ? ['--live'] : [])], {
        env,
        stdin: key,
      });
      expect(l.code, l.stderr).toBe(0);
    }
    const config = readFileSync(join(env.PAY_CONFIG_DIR!, 'config.json'));
    const r = await runPay(['doctor', ...(v.live ? ['--live'] : [])], { env });
    expect(readFileSync(join(env.PAY_CONFIG_DIR!, 'config.json')).equals(config), 'the config changed').toBe(true);
    expect(r.stdout).not.toContain(v.live ? emu.keys.live.secret : emu.keys.sandbox.secret);
    expect(r.code).toBe(1);
    const where = at.baseUrl.replace(/[./]/g, (c) => `\\${c}`);
    expect(r.stdout).toMatch(new RegExp(`^• the service at ${where} is a pay emulator \\S+ \\(${v.data ? 'data dir ' : 'in memory'}`, 'm'));
    const mode = v.live ? 'live' : 'sandbox';
    expect(r.stdout).toMatch(/^✗ the pay emulator \S+ at /m);
    const head = `does not know the key from profile "${v.name}" \\(${mode}\\) \\(401\\): `;
    const p = v.name === 'default' ? '' : ` -p ${v.name}`;
    const l = v.live ? ' --live' : '';
    let fix: string;
    if (v.known) {
      expect(r.stdout).toMatch(
        new RegExp(
          `${head}the emulator at ${emu.baseUrl.replace(/[./]/g, (c) => `\\${c}`)} takes it; the base URL is likely wrong, not the key$`,
          'm',
        ),
      );
      fix = r.stdout.split('\n').find((x) => x.startsWith('    fix: point the profile'))!;
      expect(fix, r.stdout).toBeDefined();
      expect(fix).toContain(`pay login${p}${l} --base-url ${emu.baseUrl}`);
    } else {
      // No evidence which emulator made the key: the base URL is not blamed.
      expect(r.stdout).toMatch(
        new RegExp(
          `${head}the key is not one this emulator knows, and no other emulator pay knows of on this machine takes it: it may be wrong, or belong to an emulator not running$`,
          'm',
        ),
      );
      expect(r.stdout).not.toMatch(/base URL is likely wrong/);
      fix = r.stdout.split('\n').find((x) => x.startsWith("    fix: give the profile this emulator's keys"))!;
      expect(fix, r.stdout).toBeDefined();
      expect(fix).toContain(`pay login${p}${l} --base-url <its URL>`);
    }
    expect(fix).toContain(
      `pay emulator start --port ${new URL(at.baseUrl).port}${v.data ? ` --data-dir '${dataDir}'` : ''} --configure-profile ${v.name}`,
    );
    // Not the old advice that blamed the key alone.
    expect(r.stdout).not.toMatch(/fix: check the key: pay login$/m);
  });

  it('a server that is not an emulator answering 401: says so, and that the base URL is likely wrong', async () => {
    const env = await profileFor(emu, plainUrl, 'default', false);
    const r = await runPay(['doctor'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`• the server at ${plainUrl} is not a pay emulator`);
    expect(r.stdout).toMatch(
      /^✗ the server at .*, which is not a pay emulator, refused the key from profile "default" \(sandbox\): HTTP 401/m,
    );
    expect(r.stdout).toMatch(/^ {4}fix: the base URL is likely wrong: point it at your emulator or service \(pay login --base-url <url>/m);
  });

  it('generated keys no emulator made, at the right URL: never blamed on the base URL; the config unchanged', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9]{32}$/), fc.boolean(), async (chars, live) => {
        runs++;
        const env = await profileFor(emu, emu.baseUrl, 'default', live);
        // A second profile at another emulator: asked, and it does not take the key either.
        const o = await runPay(['login', '--with-key', '-p', 'o', '--base-url', other.baseUrl, ...(live ? ['--live'] : [])], {
          env,
          stdin: live ? other.keys.live.secret : other.keys.sandbox.secret,
        });
        expect(o.code, o.stderr).toBe(0);
        const wrong = `sk_${live ? 'live' : 'test'}_${chars}`;
        const w = await runPay(['login', '--with-key', '--base-url', emu.baseUrl, ...(live ? ['--live'] : [])], { env, stdin: wrong });
        expect(w.code, w.stderr).toBe(0);
        const file = join(env.PAY_CONFIG_DIR!, 'config.json');
        const before = readFileSync(file);
        const r = await runPay(['doctor', ...(live ? ['--live'] : [])], { env });
        expect(r.code).toBe(1);
        expect(r.stdout).toContain(
          `✗ the pay emulator ${'<version>'} at ${emu.baseUrl} does not know the key from profile "default" (${live ? 'live' : 'sandbox'}) (401): the key is not one this emulator knows, and no other emulator pay knows of on this machine takes it: it may be wrong, or belong to an emulator not running\n`.replace(
            '<version>',
            /the pay emulator (\S+) at/.exec(r.stdout)![1]!,
          ),
        );
        expect(r.stdout).not.toMatch(/likely wrong/);
        expect(r.stdout).not.toContain(wrong);
        expect(readFileSync(file).equals(before), 'the config changed').toBe(true);
      }),
      { seed: 26, numRuns: 4 },
    );
    expect(runs).toBe(4);
  }, 120_000);

  it("a tenant that is not the emulator's business: flagged, naming the emulator's tenant id (generated tenants)", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/), async (tenant) => {
        fc.pre(tenant !== withData.tenantId);
        runs++;
        const env = cleanEnv({ PAY_CONFIG_DIR: tempDir('pay-doc-') });
        const l = await runPay(['login', '--with-key', '--tenant', tenant, '--base-url', withData.baseUrl], {
          env,
          stdin: withData.keys.sandbox.secret,
        });
        expect(l.code, l.stderr).toBe(0);
        const file = join(env.PAY_CONFIG_DIR!, 'config.json');
        const before = readFileSync(file);
        const r = await runPay(['doctor'], { env });
        expect(r.code, r.stdout).toBe(1);
        expect(r.stdout).toContain(
          `✗ the tenant id ${tenant} is not this emulator's business (its keys belong to ${withData.tenantId}); the emulator keeps any other tenant's records apart, so ${tenant} would start empty\n    fix: pay login --tenant ${withData.tenantId}\n`,
        );
        expect(readFileSync(file).equals(before), 'the config changed').toBe(true);
        // Its own tenant passes.
        const ok = await runPay(['doctor'], { env: { ...env, PAY_TENANT_ID: withData.tenantId } });
        expect(ok.code, ok.stdout).toBe(0);
      }),
      { seed: 28, numRuns: 4 },
    );
    expect(runs).toBe(4);
  }, 120_000);

  it('a non-emulator server answering 401/404/501 with hostile bodies: named (its Server header), its words escaped and cut short', async () => {
    // One server whose answer each run sets: status, Server header, body.
    let answer = { status: 501, server: '', body: '' };
    const hostile = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'text/html', ...(answer.server ? { server: answer.server } : {}) });
      res.end(answer.body);
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/v1/`;
    let runs = 0;
    try {
      const body = fc.oneof(
        fc.string({ minLength: 200, maxLength: 5000 }).map((x) => `<!DOCTYPE HTML>\n<html>${x}`),
        fc
          .array(fc.constantFrom('\x1b[31m', '\x1b]0;owned\x07', '\r', '\n', '\u202e', '\x00', 'x'), { minLength: 1, maxLength: 400 })
          .map((a) => a.join('')),
      );
      // A header may hold visible ASCII and tabs only (node refuses the rest).
      const server = fc.oneof(fc.constant(''), fc.stringMatching(/^[!-~][ -~\t]{0,300}$/));
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(401, 404, 501), server, body, async (status, srv, b) => {
          runs++;
          answer = { status, server: srv, body: b };
          const env = await profileFor(emu, url, 'default', false);
          const file = join(env.PAY_CONFIG_DIR!, 'config.json');
          const before = readFileSync(file);
          const r = await runPay(['doctor'], { env });
          expect(r.code).toBe(1);
          expect(readFileSync(file).equals(before), 'the config changed').toBe(true);
          const lines = r.stdout.split('\n');
          // No control character reaches the terminal.
          expect(r.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
          const named = srv
            ? `; it names itself "${srv
                .replace(/[ \t]+/g, ' ')
                .trim()
                .slice(0, 100)}`
            : '';
          const who = lines.find((x) =>
            x.startsWith(`• the server at ${url} is not a pay emulator (it does not answer as one at /__emulator/health)`),
          );
          expect(who, r.stdout).toBeDefined();
          if (srv) expect(who).toContain(named);
          else expect(who).toBe(`• the server at ${url} is not a pay emulator (it does not answer as one at /__emulator/health)`);
          const verdict = lines.find((x) => x.startsWith('✗ the server at'))!;
          expect(verdict, r.stdout).toBeDefined();
          if (status === 401)
            expect(verdict).toMatch(
              /^✗ the server at .*, which is not a pay emulator, refused the key from profile "default" \(sandbox\): HTTP 401/,
            );
          else {
            const prefix = `✗ the server at ${url}, which is not a pay emulator, answered HTTP ${status}: `;
            expect(verdict.startsWith(prefix), verdict).toBe(true);
            // The server's words: at most 100 characters and the cut mark.
            expect([...verdict.slice(prefix.length)].length).toBeLessThanOrEqual(101);
          }
          expect(lines).toContain(
            '    fix: the base URL is likely wrong: point it at your emulator or service (pay login --base-url <url>, or pay emulator start --configure-profile default)',
          );
          for (const x of lines) expect(x.length, x).toBeLessThanOrEqual(400);
        }),
        { seed: 29, numRuns: 12 },
      );
    } finally {
      hostile.close();
    }
    expect(runs).toBe(12);
  }, 180_000);

  it('the right emulator: names it beside the passing check', async () => {
    const env = await profileFor(withData, withData.baseUrl, 'default', false);
    const r = await runPay(['doctor'], { env });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^• the service at .* is a pay emulator \S+ \(data dir .*, up \d+ s\)$/m);
  });
});

/** `pay emulator start` (the built bin) until its banner is complete; then SIGTERM and its exit. */
async function banner(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [PAY_BIN, 'emulator', 'start', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const done = new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      if (err.includes('Press Ctrl-C')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exit ${code} before the banner:\n${err}`)));
  });
  try {
    await done;
  } finally {
    const exited = new Promise((r) => child.once('close', r));
    child.kill('SIGTERM');
    await exited;
  }
  return err;
}

/** A free loopback port now (the emulator then takes it; nothing else here listens on it). */

describe('pay emulator start: the banner names --configure-profile when no profile points at it', () => {
  const HINT =
    /^No profile points at http:\/\/127\.0\.0\.1:(\d+)\/v1\/: restart with --configure-profile <name> to write one with these keys/m;

  it.each([
    ['no config at all', () => undefined, true],
    ['a profile at another port', (port: number) => `http://127.0.0.1:${port + 1 > 65535 ? port - 1 : port + 1}/v1/`, true],
    ['a profile at this port', (port: number) => `http://127.0.0.1:${port}/v1/`, false],
    ['a profile at this port as localhost', (port: number) => `http://localhost:${port}/v1/`, false],
  ] as const)('%s', async (_label, url, hinted) => {
    const configDir = tempDir('pay-banner-');
    const port = await freePort();
    const base = url(port);
    if (base)
      writeFileSync(
        join(configDir, 'config.json'),
        JSON.stringify({ profiles: { p: { sandbox: { secret_key: 'sk_test_x1234567', base_url: base } } } }),
        {
          mode: 0o600,
        },
      );
    const err = await banner(['--port', String(port)], cleanEnv({ PAY_CONFIG_DIR: configDir }));
    if (hinted) expect(HINT.exec(err)?.[1], err).toBe(String(port));
    else expect(err, err).not.toMatch(/No profile points at/);
  });

  it('--configure-profile: the profile is written, and no hint', async () => {
    const err = await banner(['--port', '0', '--configure-profile', 'local'], cleanEnv({ PAY_CONFIG_DIR: tempDir('pay-banner-') }));
    expect(err).toContain('Profile "local" configured');
    expect(err).not.toMatch(/No profile points at/);
  });
});
