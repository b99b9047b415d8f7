// Ctrl-D is a cancel (contract sections 6 and 7): at every kind of prompt (text input,
// password, select list, confirmation), in a real pseudo-terminal (tmux), Ctrl-D exits 130 with
// one `error: cancelled` line, no stack, nothing sent to the service and nothing saved; Ctrl-C
// likewise. Ctrl-D also cancels with text already typed (readline would delete a character
// there). Before this, Ctrl-D at an empty prompt closed readline, left the prompt pending and
// pay ended with exit 0. The figures go to the reliability table as attack.ctrl-d.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ttyServer } from '../helpers/tty-world.js';
import { record, type Counts } from '../reliability/helpers.js';
import { describeTty, linesBeforeExit, scratchDir } from './tmux.js';

const LIVE_KEY = 'sk_live_Rk2Nw8Qd4Zt6Xm0Hb3Vc7Js1Pf5Lg9Ya';
const ACCOUNT_ID = 'acc_k3m9x2p7q4r8s1t6v0w5y2z7';

const tty = ttyServer('pay-tty-ctrl-d-');
const { server } = tty;
const tally: Counts & { extra: Record<string, number | string> } = { tried: 0, passed: 0, lost: 0, duplicated: 0, leaked: 0, extra: {} };
const started = Date.now();

afterAll(async () => {
  if (tally.tried > 0)
    await record(
      'attack.ctrl-d',
      'Ctrl-D and Ctrl-C at every prompt kind (input, password, select, confirm) in a real terminal: exit 130, nothing sent or saved',
      tally,
      started,
    );
});

interface Case {
  kind: 'input' | 'password' | 'select' | 'confirm';
  /** The prompt's first words on screen (after "? "). */
  label: string;
  args: string[];
  /** The pane's whole environment. */
  env: () => Record<string, string>;
  /** Typed before the key, if any. */
  typed?: string;
  /** The config file that must not have been written (login). */
  configFile?: () => string;
}

let configDir = '';
/** The server, a sandbox key, a tenant, a fresh config folder. */
const apiEnv = () => tty.env();
const loginEnv = () => {
  configDir = join(scratchDir('pay-tty-ctrl-d-login-'), 'config');
  // The base URL given: login asks for the key first.
  return { PAY_CONFIG_DIR: configDir, PAY_BASE_URL: server.baseUrl };
};
/** No base URL given: login asks where the service is first (a list). */
const loginWhereEnv = () => {
  configDir = join(scratchDir('pay-tty-ctrl-d-login-'), 'config');
  return { PAY_CONFIG_DIR: configDir };
};
/** A config whose current profile "ops" holds a live key and this test's server. */
const liveEnv = () => {
  const dir = scratchDir('pay-tty-ctrl-d-live-');
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      current_profile: 'ops',
      profiles: { ops: { tenant_id: 'biz_1', live: { secret_key: LIVE_KEY, base_url: server.baseUrl } } },
    }),
    { mode: 0o600 },
  );
  return { PAY_CONFIG_DIR: dir };
};
const CUSTOMER_UP_TO_TYPE = [
  'customers',
  'create',
  '--first-name',
  'Ada',
  '--last-name',
  'Lovelace',
  '--middle-name',
  'King',
  '--email',
  'ada@example.com',
  '--phone',
  '+447700900123',
];

const CASES: Case[] = [
  { kind: 'input', label: 'First name', args: ['customers', 'create'], env: apiEnv },
  { kind: 'input', label: 'First name', args: ['customers', 'create'], env: apiEnv, typed: 'Ad' },
  { kind: 'password', label: 'Secret key', args: ['login'], env: loginEnv, configFile: () => join(configDir, 'config.json') },
  {
    kind: 'password',
    label: 'Secret key',
    args: ['login'],
    env: loginEnv,
    typed: 'sk_test_abc',
    configFile: () => join(configDir, 'config.json'),
  },
  { kind: 'select', label: 'Customer type', args: CUSTOMER_UP_TO_TYPE, env: apiEnv },
  { kind: 'select', label: 'Base URL', args: ['login'], env: loginWhereEnv, configFile: () => join(configDir, 'config.json') },
  { kind: 'confirm', label: 'LIVE mode', args: ['accounts', 'close', ACCOUNT_ID, '--live'], env: liveEnv },
];

describeTty('Ctrl-D and Ctrl-C at every prompt kind (tmux)', () => {
  const table = CASES.flatMap((c) =>
    (['C-d', 'C-c'] as const).map((key) => [`${c.kind}${c.typed ? ' (text typed)' : ''}`, key, c] as const),
  );
  it.each(table)('%s prompt, %s: exit 130, one line, nothing sent or saved', async (_name, key, c) => {
    tally.tried++;
    const p = await tty.pay(c.args, { env: c.env(), envOnly: true });
    await p.waitForPrompt(c.label);
    if (c.typed) {
      await p.type(c.typed);
      // Typed text shows (masked for a password): wait for it before the key.
      await p.waitFor((s) => (c.kind === 'password' ? s.includes('*'.repeat(c.typed!.length)) : s.includes(c.typed!)));
    }
    await p.keys(key);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(130);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    const promptAt = lines.findIndex((l) => l.startsWith(`? ${c.label}`));
    expect(promptAt, screen).toBeGreaterThanOrEqual(0);
    // After the prompt (and a select's list of choices): one error line, nothing else.
    const after = lines.slice(promptAt + 1).filter((l) => !/^[❯ ] \S/.test(l) && !/navigate|↑↓/.test(l));
    expect(after, screen).toEqual([expect.stringMatching(/^error: .*cancel/i)]);
    expect(screen).not.toMatch(/^\s+at |Error:|ExitPromptError|AbortPromptError|node:internal/m);
    expect(server.requests, 'nothing is sent').toHaveLength(0);
    // Nothing saved: no config file, or one without any profile (the store creates an empty one on first use).
    if (c.configFile && existsSync(c.configFile())) {
      expect((JSON.parse(readFileSync(c.configFile(), 'utf8')) as { profiles?: object }).profiles ?? {}, 'nothing is saved').toEqual({});
    }
    tally.passed++;
    tally.extra[`${c.kind}${c.typed ? '+typed' : ''} ${key}`] = 'exit 130';
  });
});
