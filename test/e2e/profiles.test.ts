// The commands that change the stored profiles, run as the built binary with PAY_CONFIG_DIR in a
// temp folder: `profiles set`, `profiles use`, `profiles remove` and `logout` change config.json
// as their help says (read back through `profiles show --json`, the file, and the next command's
// request), refuse what they should with exit 2 and the file untouched, print nothing on stdout,
// and never print a key whole (run-pay.ts fails a run that does).
// Needs dist/ (npm run build). The profiles are made once with pay login and copied into a fresh
// folder per test; each test still runs several pay processes, so it gets SPAWNS_MS (a hang guard,
// not a timing window: a loaded machine makes every process slow).
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, registerSecret, runPay, tempDir, type PayResult } from '../helpers/run-pay.js';

const SANDBOX_KEY = 'sk_test_Pr0fSandb0xKey7Qm2Zx9Lw4Rt6Yu1';
const LIVE_KEY = 'sk_live_Pr0fL1veKey3Hb8Vc1Nj6Ys0Kd5Fg2';
const ACME_KEY = 'sk_test_AcmeSandb0xKey5Tg2Wq8Er4Ui7Op3';
const NEW_KEY = 'sk_test_NewSandb0xKey1Zx2Cv3Bn4Mq5Wr6';
const PUBLIC_KEY = 'pk_test_Pr0fPublicKey9Aa1Bb2Cc3Dd4Ee5';
const WEBHOOK_SECRET = 'whsec_UHJvZmlsZXNXZWJob29rU2VjcmV0MDE=';
const NEW_WEBHOOK_SECRET = 'whsec_TmV3V2ViaG9va1NlY3JldEZvclRlc3Q=';
const EMPTY_LIST = { object: 'list', data: [], has_more: false, next_cursor: null };

const SPAWNS_MS = 120_000;
/** A pay process that takes longer than this is hung, not slow. */
const RUN_MS = 60_000;

let server: RecordingServer;
/** config.json as the three logins of setup() left it. */
let template: string;

beforeAll(async () => {
  registerSecret(SANDBOX_KEY, LIVE_KEY, ACME_KEY, NEW_KEY, PUBLIC_KEY, WEBHOOK_SECRET, NEW_WEBHOOK_SECRET);
  server = await startRecordingServer({ status: 200, body: EMPTY_LIST });
  template = await loggedIn();
}, SPAWNS_MS);
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

interface Stored {
  current_profile?: string;
  profiles: Record<string, { tenant_id?: string; sandbox?: Record<string, string>; live?: Record<string, string> }>;
}

interface Setup {
  env: Record<string, string>;
  file: string;
  read(): Stored;
  raw(): string;
  pay(args: string[], stdin?: string): Promise<PayResult>;
}

/**
 * A config folder with two profiles, both pointing at the recording server: "default" (current;
 * tenant biz_default; sandbox: secret key, public key, webhook secret; live: secret key) and
 * "acme" (tenant biz_acme; sandbox secret key). Made with pay login, as a user would; returns its
 * config.json.
 */
async function loggedIn(): Promise<string> {
  const dir = tempDir('pay-profiles-');
  const env = cleanEnv({ PAY_CONFIG_DIR: dir });
  const pay = (args: string[], stdin?: string) => runPay(args, { env, timeoutMs: RUN_MS, ...(stdin !== undefined ? { stdin } : {}) });
  const logins: Array<[string[], string]> = [
    [
      [
        'login',
        '--with-key',
        '--webhook-secret-stdin',
        '--tenant',
        'biz_default',
        '--public-key',
        PUBLIC_KEY,
        '--base-url',
        server.baseUrl,
      ],
      `${SANDBOX_KEY}\n${WEBHOOK_SECRET}\n`,
    ],
    [['login', '--with-key', '--live', '--base-url', server.baseUrl], LIVE_KEY],
    [['login', '--with-key', '-p', 'acme', '--tenant', 'biz_acme', '--base-url', server.baseUrl], ACME_KEY],
  ];
  for (const [args, stdin] of logins) {
    const r = await pay(args, stdin);
    expect(r.code, r.stderr).toBe(0);
  }
  return join(dir, 'config.json');
}

/** A fresh folder holding a copy of the logged-in config.json (0600, as pay wrote it). */
function setup(): Setup {
  const dir = tempDir('pay-profiles-');
  const env = cleanEnv({ PAY_CONFIG_DIR: dir });
  const file = join(dir, 'config.json');
  copyFileSync(template, file);
  const pay = (args: string[], stdin?: string) => runPay(args, { env, timeoutMs: RUN_MS, ...(stdin !== undefined ? { stdin } : {}) });
  const raw = () => readFileSync(file, 'utf8');
  return { env, file, pay, raw, read: () => JSON.parse(raw()) as Stored };
}

async function showJson(s: Setup, ...args: string[]): Promise<Record<string, any>> {
  const r = await s.pay(['profiles', 'show', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, any>;
}

/** A command that changes the config: exit 0, nothing on stdout, one ✓ line on stderr. */
function expectDone(r: PayResult, line: RegExp): void {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(line);
}

/** A refusal: exit 2, nothing on stdout, an error line first. */
function expectRefused(r: PayResult, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n')[0]).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('pay profiles set', () => {
  it(
    'changes the stored value: profiles show --json and config.json read it back',
    async () => {
      const s = setup();
      const before = s.read();

      expectDone(await s.pay(['profiles', 'set', 'tenant_id', 'biz_new']), /^✓ Set tenant_id of profile "default"$/m);
      expect((await showJson(s)).tenant_id).toBe('biz_new');
      expect(s.read().profiles.default!.tenant_id).toBe('biz_new');

      expectDone(
        await s.pay(['profiles', 'set', 'live.base_url', 'https://api.example.com/v1']),
        /^✓ Set live\.base_url of profile "default" to https:\/\/api\.example\.com\/v1$/m,
      );
      expect((await showJson(s)).live.base_url).toBe('https://api.example.com/v1/');
      expect(s.read().profiles.default!.live).toEqual({ ...before.profiles.default!.live, base_url: 'https://api.example.com/v1/' });

      // A secret from stdin ("-"): stored whole, shown masked.
      expectDone(
        await s.pay(['profiles', 'set', 'secret_key', '-'], `${NEW_KEY}\n`),
        /^✓ Set sandbox\.secret_key of profile "default" to sk_test_…5Wr6$/m,
      );
      expect((await showJson(s)).sandbox.secret_key).toBe('sk_test_…5Wr6');
      expect(s.read().profiles.default!.sandbox!.secret_key).toBe(NEW_KEY);

      expectDone(
        await s.pay(['profiles', 'set', 'sandbox.webhook_secret', NEW_WEBHOOK_SECRET]),
        /^✓ Set sandbox\.webhook_secret of profile "default" to whsec_…/m,
      );
      expect((await showJson(s)).sandbox.webhook_secret).toMatch(/^whsec_….{4}$/);
      expect(s.read().profiles.default!.sandbox!.webhook_secret).toBe(NEW_WEBHOOK_SECRET);

      // The next API call uses the new key.
      const r = await s.pay(['accounts', 'list', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(server.requests.map((q) => [q.headers['api-key'], q.headers['x-tenant-id']])).toEqual([[NEW_KEY, 'biz_new']]);

      // The other profile and the other settings are untouched.
      const after = s.read();
      expect(after.profiles.acme).toEqual(before.profiles.acme);
      expect(after.profiles.default!.sandbox!.public_key).toBe(PUBLIC_KEY);
      expect(after.current_profile).toBe('default');
    },
    SPAWNS_MS,
  );

  it(
    '-p names the profile, which is created when new; the current one stays',
    async () => {
      const s = setup();
      expectDone(await s.pay(['profiles', 'set', 'tenant_id', 'biz_fresh', '-p', 'fresh']), /^✓ Set tenant_id of profile "fresh"$/m);
      expect(s.read().profiles.fresh).toEqual({ tenant_id: 'biz_fresh' });
      expect(s.read().current_profile).toBe('default');
      expect((await showJson(s, 'fresh')).tenant_id).toBe('biz_fresh');
    },
    SPAWNS_MS,
  );

  it.each([
    [['colour', 'blue'], /^error: unknown setting "colour"/],
    [['sandbox.tenant_id', 'biz_x'], /^error: unknown setting "sandbox\.tenant_id"/],
    [['staging.base_url', 'https://api.example.com/v1/'], /^error: unknown setting "staging\.base_url"/],
    [['tenant_id', 'biz x!'], /^error: a tenant id is 1-64 letters/],
    [['tenant_id', ' '], /^error: empty value for tenant_id/],
    [['base_url', 'http://evil.example.com/v1/'], /^error: refusing plain http:\/\/ to evil\.example\.com/],
    [['base_url', 'https://api.example.com/v2/'], /^error: base URL from the value must end with \/v1\//],
    [['secret_key', LIVE_KEY], /^error: the key from the value is a live key \(sk_live_…5Fg2\) but the mode is sandbox/],
    [['live.secret_key', 'pk_live_Pr0fPublicKey9Aa1Bb2Cc3Dd4'], /^error: the key from the value is a public key/],
    [['public_key', 'pk_live_Pr0fPublicKey9Aa1Bb2Cc3Dd4'], /^error: the public key is a live key but the mode is sandbox$/],
    [['public_key', 'pk_test_a b!'], /^error: a public key looks like pk_test_… or pk_live_…$/],
    [['live.public_key', 'pk_live_x'], /^error: a public key looks like pk_test_… or pk_live_…$/],
    [['webhook_secret', 'not-a-secret'], /^error: a webhook secret is base64, with or without whsec_ before it/],
  ])(
    'refuses %j with exit 2 and changes nothing',
    async (args, message) => {
      const s = setup();
      const before = s.raw();
      expectRefused(await s.pay(['profiles', 'set', ...args]), message);
      expect(s.raw()).toBe(before);
    },
    SPAWNS_MS,
  );
});

describe('pay profiles use', () => {
  it(
    'switches the current profile: the next command uses its key and tenant',
    async () => {
      const s = setup();
      expect((await s.pay(['accounts', 'list', '--json'])).code).toBe(0);

      expectDone(await s.pay(['profiles', 'use', 'acme']), /^✓ Using profile "acme"$/m);
      expect(s.read().current_profile).toBe('acme');
      const list = await s.pay(['profiles', 'list', '--json']);
      expect((JSON.parse(list.stdout) as Array<{ name: string; current: boolean }>).map((p) => [p.name, p.current])).toEqual([
        ['default', false],
        ['acme', true],
      ]);
      expect((await showJson(s)).name).toBe('acme');

      expect((await s.pay(['accounts', 'list', '--json'])).code).toBe(0);
      // -p and PAY_PROFILE still win over the current profile.
      expect((await s.pay(['accounts', 'list', '--json', '-p', 'default'])).code).toBe(0);
      expect((await runPay(['accounts', 'list', '--json'], { env: { ...s.env, PAY_PROFILE: 'default' }, timeoutMs: RUN_MS })).code).toBe(0);
      expect(server.requests.map((q) => [q.headers['api-key'], q.headers['x-tenant-id']])).toEqual([
        [SANDBOX_KEY, 'biz_default'],
        [ACME_KEY, 'biz_acme'],
        [SANDBOX_KEY, 'biz_default'],
        [SANDBOX_KEY, 'biz_default'],
      ]);

      expectDone(await s.pay(['profiles', 'use', 'default']), /^✓ Using profile "default"$/m);
      expect(s.read().current_profile).toBe('default');
    },
    SPAWNS_MS,
  );

  it.each([
    ['nope', /^error: no profile named "nope"$/],
    ['../etc', /^error: invalid profile name "\.\.\/etc"/],
  ])(
    'refuses %s with exit 2 and changes nothing',
    async (name, message) => {
      const s = setup();
      const before = s.raw();
      const r = await s.pay(['profiles', 'use', name]);
      expectRefused(r, message);
      expect(s.raw()).toBe(before);
      expect(s.read().current_profile).toBe('default');
    },
    SPAWNS_MS,
  );
});

describe('profile names that would reach a prototype', () => {
  // Every writer refuses them (exit 2, the file unchanged), so no write can leave a config file that
  // the read path then refuses for every profile.
  const writers: Array<[string, (name: string) => [string[], string?]]> = [
    ['login', (name) => [['login', '--with-key', '--tenant', 'biz_x', '-p', name], SANDBOX_KEY]],
    ['profiles set', (name) => [['profiles', 'set', 'tenant_id', 'biz_x', '-p', name]]],
    ['profiles use', (name) => [['profiles', 'use', name]]],
  ];
  it.each(['constructor', 'prototype', '__proto__'].flatMap((name) => writers.map(([what, argv]) => [name, what, argv] as const)))(
    '%s through %s: exit 2, nothing written, every profile still readable',
    async (name, _what, argv) => {
      const s = setup();
      const before = s.raw();
      const [args, stdin] = argv(name);
      const r = await s.pay(args, stdin);
      expectRefused(r, /^error: invalid profile name/);
      expect(s.raw()).toBe(before);
      expect((await s.pay(['profiles', 'list'])).code).toBe(0);
    },
    SPAWNS_MS,
  );
});

describe('pay profiles remove', () => {
  it(
    'without a terminal, needs --yes (exit 2, nothing removed)',
    async () => {
      const s = setup();
      const before = s.raw();
      expectRefused(
        await s.pay(['profiles', 'remove', 'acme']),
        /^error: refusing to remove profile "acme" without confirmation: pass --yes$/,
      );
      expect(s.raw()).toBe(before);
    },
    SPAWNS_MS,
  );

  it(
    'with --yes, deletes the profile and its keys and leaves the others',
    async () => {
      const s = setup();
      const before = s.read();
      expectDone(await s.pay(['profiles', 'remove', 'acme', '--yes']), /^✓ Removed profile "acme"$/m);
      expect(s.read()).toEqual({ current_profile: 'default', profiles: { default: before.profiles.default } });
      expect(s.raw()).not.toContain(ACME_KEY);
      const list = await s.pay(['profiles', 'list', '--json']);
      expect((JSON.parse(list.stdout) as Array<{ name: string }>).map((p) => p.name)).toEqual(['default']);
      expectRefused(await s.pay(['profiles', 'show', 'acme']), /^error: no profile named "acme"$/);
    },
    SPAWNS_MS,
  );

  it(
    'removing the current profile makes the next command fall back to "default"',
    async () => {
      const s = setup();
      expectDone(await s.pay(['profiles', 'use', 'acme']), /Using profile "acme"/);
      expectDone(await s.pay(['profiles', 'remove', 'acme', '-y']), /^✓ Removed profile "acme"$/m);
      expect(s.read().current_profile).toBeUndefined();
      expect((await showJson(s)).name).toBe('default');
      expect((await s.pay(['accounts', 'list', '--json'])).code).toBe(0);
      expect(server.requests.map((q) => q.headers['api-key'])).toEqual([SANDBOX_KEY]);
    },
    SPAWNS_MS,
  );

  it(
    'refuses an unknown profile with exit 2, even with --yes',
    async () => {
      const s = setup();
      const before = s.raw();
      expectRefused(await s.pay(['profiles', 'remove', 'nope', '--yes']), /^error: no profile named "nope"$/);
      expect(s.raw()).toBe(before);
    },
    SPAWNS_MS,
  );
});

describe('pay logout', () => {
  it(
    "forgets the keys of the mode in use only: the tenant, the base URL, the other mode's keys and the other profiles stay",
    async () => {
      const s = setup();
      const before = s.read();
      expectDone(await s.pay(['logout']), /^✓ Logged out: profile "default" \(sandbox\) has no keys now$/m);
      const after = s.read();
      expect(after.profiles.default).toEqual({
        tenant_id: 'biz_default',
        sandbox: { base_url: server.baseUrl },
        live: before.profiles.default!.live,
      });
      expect(after.profiles.acme).toEqual(before.profiles.acme);
      expect(after.current_profile).toBe('default');
      expect((await showJson(s)).sandbox).toEqual({ base_url: server.baseUrl });

      // Sandbox now has no key: exit 3 and nothing sent. Live still works.
      const r = await s.pay(['accounts', 'list', '--json']);
      expect(r.code, r.stderr).toBe(3);
      expect(server.requests).toHaveLength(0);
      expect((await s.pay(['accounts', 'list', '--live', '--json'])).code).toBe(0);
      expect(server.requests.map((q) => q.headers['api-key'])).toEqual([LIVE_KEY]);

      // Again: nothing left to forget (exit 2, file untouched).
      const raw = s.raw();
      expectRefused(await s.pay(['logout']), /^error: profile "default" has no sandbox keys to forget$/);
      expect(s.raw()).toBe(raw);
    },
    SPAWNS_MS,
  );

  it(
    '--live forgets the Live keys; -p names the profile',
    async () => {
      const s = setup();
      const before = s.read();
      expectDone(await s.pay(['logout', '--live']), /^✓ Logged out: profile "default" \(live\) has no keys now$/m);
      expect(s.read().profiles.default).toEqual({ ...before.profiles.default, live: { base_url: server.baseUrl } });

      expectDone(await s.pay(['logout', '-p', 'acme']), /^✓ Logged out: profile "acme" \(sandbox\) has no keys now$/m);
      expect(s.read().profiles.acme).toEqual({ tenant_id: 'biz_acme', sandbox: { base_url: server.baseUrl } });
      expect(s.read().profiles.default!.sandbox).toEqual(before.profiles.default!.sandbox);
      expect(s.raw()).not.toContain(LIVE_KEY);
      expect(s.raw()).not.toContain(ACME_KEY);
    },
    SPAWNS_MS,
  );

  it(
    'refuses a profile that does not exist with exit 2, creating nothing',
    async () => {
      const s = setup();
      const before = s.raw();
      expectRefused(await s.pay(['logout', '-p', 'nope']), /^error: profile "nope" has no sandbox keys to forget$/);
      expect(s.raw()).toBe(before);
    },
    SPAWNS_MS,
  );
});
