// npm run demo (the README's first command) works and tells the tour it promises.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('npm run demo', () => {
  it('starts the emulator, runs the tour against it, stops it, and prints no key whole', async () => {
    const root = new URL('../../', import.meta.url).pathname;
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const env = { ...process.env };
      for (const k of Object.keys(env)) if (k.startsWith('PAY_')) delete env[k];
      const child = spawn(process.execPath, ['src/scripts/demo.mjs'], { cwd: root, env: { ...env, NO_COLOR: '1', PAY_DEMO_BUILT: '1' } });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r.code, r.out.slice(-2000)).toBe(0);
    for (const step of [
      'pay customers create',
      'pay features activate',
      'pay accounts create',
      'pay collections create',
      'pay transfers send',
      'pay fx quote',
      'pay fx trade',
      'pay transactions list',
      'pay webhooks list',
    ]) {
      expect(r.out).toContain(`$ ${step}`);
    }
    expect(r.out).toMatch(/transfer\s+debit\s+125\.50 USD\s+874\.50 USD/);
    expect(r.out).toMatch(/fx_trade\.completed\s+delivered/);
    expect(r.out).toContain('emulator stopped');
    const config = JSON.parse(readFileSync(`${root}.pay-demo/config/config.json`, 'utf8')) as {
      profiles: { demo: { sandbox: { secret_key: string; webhook_secret: string } } };
    };
    expect(r.out).not.toContain(config.profiles.demo.sandbox.secret_key);
    expect(r.out).not.toContain(config.profiles.demo.sandbox.webhook_secret);
  }, 90_000);
});
