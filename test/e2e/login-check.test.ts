// `pay login --with-key` in scripts sends nothing (as before issue 27); with --check it checks the
// key at the base URL first, with one request, and a refusal saves nothing and says which of the
// key, the tenant id or the base URL is likely wrong. Generated variants (fast-check, fixed seed)
// over where the base URL points (the emulator that made the key, another emulator, a server that
// is not an emulator answering 401, one refusing the tenant, nothing), the mode, the tenant and
// whether a config file was there before. The interactive login: test/tty/login.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';

let emu: Emulator;
let other: Emulator;
/** Answers 401 to everything (no emulator health answer); counts what it received. */
let plain: Server;
let plainUrl = '';
/** Answers 400 invalid_tenant to everything. */
let tenantRefuser: Server;
let tenantUrl = '';
/** What the 401 server received: method, path, and whether a key came with it. */
let received: string[] = [];
/** A loopback port nothing listens on. */
let closedUrl = '';

async function listen(handler: RequestListener): Promise<[Server, string]> {
  const s = createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return [s, `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1/`];
}

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  other = await startEmulator({ port: 0 });
  registerSecret(emu.keys.sandbox.secret, emu.keys.live.secret, other.keys.sandbox.secret, other.keys.live.secret);
  [plain, plainUrl] = await listen((req, res) => {
    received.push(`${req.method} ${req.url}${req.headers['api-key'] ? ' with key' : ''}`);
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end('{"code":"unauthorized","detail":"no"}');
  });
  [tenantRefuser, tenantUrl] = await listen((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end('{"code":"invalid_tenant","detail":"unknown business"}');
  });
  const [closed, url] = await listen(() => {});
  await new Promise((r) => closed.close(r));
  closedUrl = url;
});
afterAll(async () => {
  await emu?.stop();
  await other?.stop();
  plain?.close();
  tenantRefuser?.close();
});

type Target = 'right' | 'other-emulator' | 'other-emulator-known' | 'unknown-key' | 'not-emulator' | 'tenant' | 'nothing';

const UNKNOWN =
  '^error: the pay emulator \\S+ \\(in memory\\) at URL does not know this key \\(401\\), and no other emulator pay knows of on this machine takes it: the key may be wrong, or belong to an emulator not running; nothing was saved$';
const EXPECT: Record<Target, { code: number; says: (url: string) => RegExp }> = {
  right: { code: 0, says: (url) => new RegExp(`^✓ Logged in: .*, checked at ${esc(url)}: pay emulator \\S+ \\(in memory\\)$`, 'm') },
  // emu's key at other's URL, no profile pointing at emu: nothing says which emulator made it.
  'other-emulator': { code: 3, says: (url) => new RegExp(UNKNOWN.replace('URL', esc(url)), 'm') },
  // The same, with a profile pointing at emu: emu takes the key, so its URL is named.
  'other-emulator-known': {
    code: 3,
    says: (url) =>
      new RegExp(
        `^error: the pay emulator \\S+ \\(in memory\\) at ${esc(url)} does not know this key \\(401\\), but the emulator at ${esc(emu.baseUrl)} takes it: the base URL is likely wrong; nothing was saved$`,
        'm',
      ),
  },
  // A key no emulator made, at emu's own URL: never blamed on the base URL.
  'unknown-key': { code: 3, says: (url) => new RegExp(UNKNOWN.replace('URL', esc(url)), 'm') },
  'not-emulator': {
    code: 3,
    says: (url) =>
      new RegExp(
        `^error: the server at ${esc(url)}, which is not a pay emulator, refused the key \\(401\\): the base URL is likely wrong; nothing was saved$`,
        'm',
      ),
  },
  tenant: { code: 2, says: () => /^error: the service at .* refused the tenant id .*: the tenant id is likely wrong; nothing was saved$/m },
  nothing: { code: 6, says: (url) => new RegExp(`^error: cannot check the key at ${esc(url)}: .*nothing was saved$`, 'm') },
};

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function urlOf(t: Target): string {
  return {
    right: emu.baseUrl,
    'other-emulator': other.baseUrl,
    'other-emulator-known': other.baseUrl,
    'unknown-key': emu.baseUrl,
    'not-emulator': plainUrl,
    tenant: tenantUrl,
    nothing: closedUrl,
  }[t];
}

describe('pay login --with-key --check', () => {
  it('generated variants: a refusal saves nothing and names the likely culprit; the right service saves', async () => {
    let runs = 0;
    let foreignRuns = 0;
    const seen = new Set<Target>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Target>('right', 'other-emulator', 'other-emulator-known', 'unknown-key', 'not-emulator', 'tenant', 'nothing'),
        fc.boolean(),
        // No tenant, the emulator's own, or another one (which emu takes as a new, empty tenant).
        fc.oneof(fc.constant(undefined), fc.constant('own'), fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/)),
        fc.boolean(),
        fc.stringMatching(/^[A-Za-z0-9]{32}$/),
        async (target, live, tenantPick, hadConfig, wrong) => {
          runs++;
          seen.add(target);
          const tenant = tenantPick === 'own' ? emu.tenantId : tenantPick;
          const dir = tempDir('pay-login-check-');
          const file = join(dir, 'config.json');
          const known = target === 'other-emulator-known';
          if (hadConfig || known) {
            const profiles: Record<string, unknown> = { keep: { tenant_id: 'biz_keep' } };
            // A profile pointing at emu: where the key may be looked for.
            if (known) profiles.emu = { [live ? 'live' : 'sandbox']: { base_url: emu.baseUrl } };
            writeFileSync(file, JSON.stringify({ current_profile: 'keep', profiles }), { mode: 0o600 });
          }
          const before = existsSync(file) ? readFileSync(file) : undefined;
          const url = urlOf(target);
          const key =
            target === 'unknown-key' ? `sk_${live ? 'live' : 'test'}_${wrong}` : live ? emu.keys.live.secret : emu.keys.sandbox.secret;
          const args = [
            'login',
            '--with-key',
            '--check',
            '--base-url',
            url,
            ...(live ? ['--live'] : []),
            ...(tenant ? ['--tenant', tenant] : []),
          ];
          const r = await runPay(args, { env: cleanEnv({ PAY_CONFIG_DIR: dir }), stdin: key });
          // The right emulator with a tenant that is not its business: refused, the line naming its tenant id.
          const foreign = target === 'right' && tenant !== undefined && tenant !== emu.tenantId;
          if (foreign) foreignRuns++;
          const want = foreign
            ? {
                code: 2,
                says: (u: string) =>
                  new RegExp(
                    `^error: the pay emulator \\S+ \\(in memory\\) at ${esc(u)} takes the key, but the tenant id ${esc(tenant)} is not this emulator's business \\(its keys belong to ${emu.tenantId}\\); the emulator keeps any other tenant's records apart, so ${esc(tenant)} would start empty; nothing was saved$`,
                    'm',
                  ),
              }
            : EXPECT[target];
          expect(r.code, r.stderr).toBe(want.code);
          expect(r.stderr).toMatch(want.says(url));
          expect(r.stdout).toBe('');
          // The key is never printed.
          expect(r.stderr).not.toContain(key);
          if (want.code === 0) {
            const saved = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, Record<string, string>>> };
            // Into the current profile ("keep" when the config was there).
            expect(saved.profiles[hadConfig ? 'keep' : 'default']?.[live ? 'live' : 'sandbox']).toMatchObject({
              secret_key: key,
              base_url: url,
            });
          } else if (before) {
            expect(readFileSync(file).equals(before), 'the config file changed').toBe(true);
          } else {
            expect(existsSync(file), 'a config file was written').toBe(false);
          }
        },
      ),
      { seed: 27, numRuns: 24 },
    );
    expect(runs).toBe(24);
    expect(foreignRuns).toBeGreaterThan(0);
    // Every kind of base URL was tried.
    expect([...seen].sort()).toEqual([
      'not-emulator',
      'nothing',
      'other-emulator',
      'other-emulator-known',
      'right',
      'tenant',
      'unknown-key',
    ]);
  }, 180_000);

  it('without --check, --with-key sends nothing and saves (as before); with it, exactly one request with the key', async () => {
    received = [];
    const env = cleanEnv({ PAY_CONFIG_DIR: tempDir('pay-login-check-') });
    const quiet = await runPay(['login', '--with-key', '--base-url', plainUrl], { env, stdin: emu.keys.sandbox.secret });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(received).toEqual([]);
    const checked = await runPay(['login', '--with-key', '--check', '--base-url', plainUrl, '-p', 'two'], {
      env,
      stdin: emu.keys.sandbox.secret,
    });
    expect(checked.code).toBe(3);
    // The key once; after its 401, the keyless question a loopback server is asked: is it an emulator?
    expect(received).toEqual(['GET /v1/customers?limit=1 with key', 'GET /__emulator/health']);
  });
});
