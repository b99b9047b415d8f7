// pay doctor against a real emulator: a line per check, a fix for each failure, exit 0 only when
// all pass.
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';

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
    expect(r.stdout).toMatch(/^✗ the service did not accept a request: HTTP 401 .*\n {4}fix: check the key: pay login$/m);
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
