// Live mode on a terminal (contract section 3): `pay accounts close <id> --live` asks for
// confirmation, naming the mode and the profile, before anything is sent. "n" sends nothing
// and fails with one line; "y" sends the POST.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ttyServer } from '../helpers/tty-world.js';
import { activePrompt, describeTty, linesBeforeExit, scratchDir, type Pane } from './tmux.js';

const LIVE_KEY = 'sk_live_Rk2Nw8Qd4Zt6Xm0Hb3Vc7Js1Pf5Lg9Ya';
const ACCOUNT_ID = 'acc_k3m9x2p7q4r8s1t6v0w5y2z7';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const tty = ttyServer('pay-tty-live-');
const { server } = tty;

/** A config folder whose current profile "ops" holds a live key and this test's server (the pane's whole environment). */
function paneEnv(): Record<string, string> {
  const dir = scratchDir('pay-tty-live-');
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      current_profile: 'ops',
      profiles: { ops: { tenant_id: 'biz_1', live: { secret_key: LIVE_KEY, base_url: server.baseUrl } } },
    }),
    { mode: 0o600 },
  );
  return { PAY_CONFIG_DIR: dir };
}

async function confirmationPrompt(p: Pane): Promise<string> {
  const screen = await p.waitFor((s) => /^\? .*\(y\/N\)/m.test(s));
  const prompt = activePrompt(screen)!;
  expect(prompt).toMatch(/\blive\b/i);
  expect(prompt).toContain('"ops"');
  expect(prompt).toContain(ACCOUNT_ID);
  return prompt;
}

describeTty('live-mode confirmation in a real terminal (tmux)', () => {
  it('answering n sends nothing and fails with one line', async () => {
    const p = await tty.pay(['accounts', 'close', ACCOUNT_ID, '--live'], { env: paneEnv(), envOnly: true });
    const prompt = await confirmationPrompt(p);
    // Nothing leaves before the answer.
    expect(server.requests).toHaveLength(0);
    await p.type('n');
    await p.keys('Enter');

    const { code, screen } = await p.finish();
    expect(code, screen).not.toBe(0);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    const after = lines.slice(lines.findIndex((l) => l.includes(prompt.slice(2, 30))) + 1);
    expect(after).toEqual([expect.stringMatching(/^error: .*(not confirmed|nothing was sent)/)]);
    expect(server.requests).toHaveLength(0);
    expect(screen).not.toContain(LIVE_KEY);
  });

  it('answering y sends the POST with the live key', async () => {
    server.queue.push({ status: 200, body: { id: ACCOUNT_ID, object: 'account', status: 'closed', currency: 'USD' } });
    const p = await tty.pay(['accounts', 'close', ACCOUNT_ID, '--live'], { env: paneEnv(), envOnly: true });
    await confirmationPrompt(p);
    expect(server.requests).toHaveLength(0);
    await p.type('y');
    await p.keys('Enter');

    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/v1/accounts/${ACCOUNT_ID}/close`);
    expect(req.headers['api-key']).toBe(LIVE_KEY);
    expect(req.headers['x-tenant-id']).toBe('biz_1');
    expect(req.headers['idempotency-key']).toMatch(UUID);
    expect(screen).toContain(`✓ Closed account ${ACCOUNT_ID}`);
    expect(screen).not.toContain(LIVE_KEY);
  });

  it('Ctrl-C at the confirmation: exit 130, one line, nothing sent', async () => {
    const p = await tty.pay(['accounts', 'close', ACCOUNT_ID, '--live'], { env: paneEnv(), envOnly: true });
    await confirmationPrompt(p);
    await p.keys('C-c');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(130);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    expect(lines[lines.length - 1]).toMatch(/^error: .*cancel/i);
    expect(lines.filter((l) => /^error:/.test(l))).toHaveLength(1);
    expect(screen).not.toMatch(/^\s+at |Error:/m);
    expect(server.requests).toHaveLength(0);
  });
});
