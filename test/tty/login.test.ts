// `pay login` typed into a real pseudo-terminal (tmux): it asks where the service is (the emulators
// it finds answering at the base URLs pay knows, or another URL), the secret key and the webhook
// secret are never shown (only mask characters), the key is checked at the chosen base URL before
// anything is saved (a key that emulator does not know: exit 3, config untouched), the profile
// lands in PAY_CONFIG_DIR/config.json with mode 0600 in a 0700 folder (contract section 3), and
// `pay profiles list` shows the key masked, never whole. Two emulators run in this process: `emu`,
// whose keys are typed, and `other` (its own data dir, so its own keys).
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { describeTty, linesBeforeExit, Pane, removeScratch, scratchDir } from './tmux.js';

let emu: Emulator;
let other: Emulator;
let KEY = '';
const PUBLIC_KEY = 'pk_test_Ue5Ni1Ow7Qa3Sy9Er4Dt2Fg6Hj8Kl0Zx';

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  other = await startEmulator({ port: 0, dataDir: scratchDir('pay-tty-login-data-') });
  KEY = emu.keys.sandbox.secret;
});

let panes: Pane[] = [];

afterAll(async () => {
  await emu?.stop();
  await other?.stop();
  removeScratch();
});
afterEach(async () => {
  await Promise.all(panes.map((p) => p.kill()));
  panes = [];
});

async function open(args: string[], env: Record<string, string>): Promise<Pane> {
  const p = await Pane.pay(args, { env });
  panes.push(p);
  return p;
}

/** Runs of 6 characters of the key's random part: none may be on screen (the last 4 may, in the mask). */
function keyFragments(key: string): string[] {
  const body = key.replace(/^sk_(test|live)_/, '');
  const out: string[] = [];
  for (let i = 0; i + 6 <= body.length; i++) out.push(body.slice(i, i + 6));
  return out;
}

function expectNoKeyOnScreen(screen: string): void {
  expect(screen).not.toContain(KEY);
  const shown = keyFragments(KEY).filter((f) => screen.includes(f));
  expect(shown, `parts of the secret key are on screen:\n${screen}`).toEqual([]);
}

describeTty('pay login in a real terminal (tmux)', () => {
  it('hides the secret key, stores the profile privately, and profiles list shows it masked', async () => {
    const root = scratchDir('pay-tty-login-');
    const configDir = join(root, 'config');
    const env = { PAY_CONFIG_DIR: configDir };

    const login = await open(['login'], env);
    // Where the service is: nothing in this config names it, so another URL is typed.
    await login.waitForPrompt('Base URL');
    await login.type('another');
    await login.waitFor('❯ another URL');
    await login.keys('Enter');
    await login.answer('Base URL (https', emu.baseUrl);
    await login.waitForPrompt('Secret key');
    await login.type(KEY);
    // The typed key shows as mask characters only.
    const typing = await login.waitFor((s) => s.includes('*'.repeat(KEY.length)));
    expectNoKeyOnScreen(typing);
    await login.keys('Enter');
    await login.answer('Public key', PUBLIC_KEY);
    await login.answer('Tenant id', emu.tenantId);
    await login.answer('Webhook secret', ''); // optional: Enter skips it
    const { code, screen } = await login.finish();
    expect(code, screen).toBe(0);
    expectNoKeyOnScreen(screen);
    expect(screen).toMatch(/✓ Logged in: profile "default" \(sandbox\)/);
    expect(screen).toContain(`sk_test_…${KEY.slice(-4)}`);
    // Checked where it was told, before saving; the emulator that answered named.
    expect(screen).toContain(`checked at ${emu.baseUrl}: pay emulator `);

    // The config file holds the key, readable by its owner only, in a folder only its owner can enter.
    const file = join(configDir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as {
      current_profile?: string;
      profiles: Record<string, { tenant_id?: string; sandbox?: Record<string, string> }>;
    };
    expect(config.profiles.default?.sandbox?.secret_key).toBe(KEY);
    expect(config.profiles.default?.sandbox?.public_key).toBe(PUBLIC_KEY);
    expect(config.profiles.default?.sandbox).not.toHaveProperty('webhook_secret');
    expect(config.profiles.default?.tenant_id).toBe(emu.tenantId);
    expect(config.profiles.default?.sandbox?.base_url).toBe(emu.baseUrl);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);

    // The file is re-tightened on every write: loosen both, log in again (same key), and look again.
    chmodSync(file, 0o644);
    chmodSync(configDir, 0o755);
    const again = await open(['login', '--tenant', emu.tenantId, '--public-key', PUBLIC_KEY, '--base-url', emu.baseUrl], env);
    await again.answer('Secret key', KEY);
    await again.answer('Webhook secret', '');
    const second = await again.finish();
    expect(second.code, second.screen).toBe(0);
    expectNoKeyOnScreen(second.screen);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o755); // an existing folder keeps its mode

    // profiles list on a terminal: the key masked as sk_test_… and its last 4 characters.
    const list = await open(['profiles', 'list'], env);
    const { code: listCode, screen: listed } = await list.finish();
    expect(listCode, listed).toBe(0);
    expect(listed).toMatch(/\bdefault\b/);
    expect(listed).toContain(emu.tenantId);
    expect(listed).toContain(`sk_test_…${KEY.slice(-4)}`);
    expectNoKeyOnScreen(listed);
  });

  it('the webhook secret is typed as mask characters, never echoed, and the summary shows it masked', async () => {
    const configDir = join(scratchDir('pay-tty-login-'), 'config');
    // With and without whsec_, with base64's + / and = (issue 24: it was echoed as typed and printed whole).
    for (const [i, hook] of ['whsec_Qm9+ZGF5L3NlY3JldC1rZXk9PQ+/aZ==', 'c2VjcmV0LXdlYmhvb2sta2V5+/9x'].entries()) {
      const p = await open(['login', '--tenant', emu.tenantId, '--profile', `p${i}`], {
        PAY_CONFIG_DIR: configDir,
        PAY_BASE_URL: emu.baseUrl,
      });
      await p.answer('Secret key', KEY);
      await p.answer('Public key', '');
      await p.waitForPrompt('Webhook secret');
      await p.type(hook);
      const typing = await p.waitFor((s) => s.includes('*'.repeat(hook.length)));
      const body = hook.replace(/^whsec_/, '');
      const fragments = (screen: string) =>
        Array.from({ length: body.length - 5 }, (_, k) => body.slice(k, k + 6)).filter((f) => screen.includes(f));
      expect(fragments(typing), `the webhook secret is on screen while typed:\n${typing}`).toEqual([]);
      await p.keys('Enter');
      const { code, screen } = await p.finish();
      expect(code, screen).toBe(0);
      expect(fragments(screen), `the webhook secret is on screen:\n${screen}`).toEqual([]);
      expectNoKeyOnScreen(screen);
      // The summary names it, masked: its prefix, if any, and the last 4 characters.
      expect(screen).toContain(`webhook secret ${hook.startsWith('whsec_') ? 'whsec_' : ''}…${hook.slice(-4)}`);
      const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
        profiles: Record<string, { sandbox?: Record<string, string> }>;
      };
      expect(config.profiles[`p${i}`]?.sandbox?.webhook_secret).toBe(hook);
    }
  });

  it('Ctrl-C at the secret key prompt: exit 130, one line, nothing stored, nothing shown', async () => {
    const configDir = join(scratchDir('pay-tty-login-'), 'config');
    const p = await open(['login'], { PAY_CONFIG_DIR: configDir, PAY_BASE_URL: emu.baseUrl });
    await p.waitForPrompt('Secret key');
    await p.type(KEY.slice(0, 20));
    await p.waitFor('*'.repeat(20));
    await p.keys('C-c');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(130);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    expect(lines[lines.length - 1]).toMatch(/^error: .*cancel/i);
    expect(lines.filter((l) => /^error:/.test(l))).toHaveLength(1);
    expect(screen).not.toMatch(/^\s+at |Error:/m);
    expect(screen).not.toContain(KEY.slice(8, 20));
    const file = join(configDir, 'config.json');
    // Ctrl-C before the key was stored: conf's defaults at most, no profile.
    if (existsSync(file)) expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: {} });
  });

  it('offers the emulator a profile points at, masks the webhook secret, and refuses to save a key that emulator does not know', async () => {
    // As `pay emulator start --configure-profile local` leaves it, for the other emulator.
    const configDir = join(scratchDir('pay-tty-login-'), 'config');
    mkdirSync(configDir, { mode: 0o700 });
    const file = join(configDir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        current_profile: 'local',
        profiles: { local: { tenant_id: other.tenantId, sandbox: { secret_key: other.keys.sandbox.secret, base_url: other.baseUrl } } },
      }),
      { mode: 0o600 },
    );
    const before = readFileSync(file);
    const hook = 'whsec_Zm9vYmFyLWJhei1xdXV4LXNpZ25pbmc9+/Qw==';
    const p = await open(['login', '-p', 'new'], { PAY_CONFIG_DIR: configDir });
    // The first choice: the emulator the profile "local" points at, found answering.
    await p.waitForPrompt('Base URL');
    // The list is drawn after the question: wait for its cursor line.
    const offered = await p.waitFor((s) => s.split('\n').some((l) => l.startsWith('❯') && l.includes('answers')));
    const first = offered.split('\n').find((l) => l.startsWith('❯'));
    expect(first, offered).toContain(`${other.baseUrl}  pay emulator `);
    expect(first).toContain('profile "local"');
    await p.keys('Enter');
    await p.answer('Secret key', KEY); // emu's key: the other emulator does not know it
    await p.answer('Public key', '');
    await p.answer('Tenant id', emu.tenantId);
    await p.waitForPrompt('Webhook secret');
    await p.type(hook);
    const typing = await p.waitFor((s) => s.includes('*'.repeat(hook.length)));
    const body = hook.replace(/^whsec_/, '');
    const fragments = (screen: string) =>
      Array.from({ length: body.length - 5 }, (_, k) => body.slice(k, k + 6)).filter((f) => screen.includes(f));
    expect(fragments(typing), `the webhook secret is on screen while typed:\n${typing}`).toEqual([]);
    await p.keys('Enter');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(3);
    expect(fragments(screen)).toEqual([]);
    expectNoKeyOnScreen(screen);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    const error = lines.filter((l) => l.startsWith('error: '));
    expect(error, screen).toHaveLength(1);
    expect(error[0]).toContain(`at ${other.baseUrl} does not know this key (401)`);
    expect(error[0]).toMatch(/nothing was saved$/);
    expect(screen).toMatch(/^hint: use the keys this emulator's start banner printed/m);
    expect(screen).not.toContain('✓ Logged in');
    // Nothing written: the config file is byte for byte what it was, no profile "new".
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});
