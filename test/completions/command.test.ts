// pay completion <shell> and pay __complete, through the built bin/pay.js as a child process.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, complete } from '../../src/commands/completion/dynamic.js';
import { cleanEnv, runPay, tempDir } from '../helpers/run-pay.js';
import { COMPLETIONS } from './shells.js';

describe('pay completion <shell>', () => {
  for (const [shell, file] of [
    ['bash', 'pay.bash'],
    ['zsh', '_pay'],
    ['fish', 'pay.fish'],
  ] as const) {
    it(`pay completion ${shell} prints completions/${file} exactly`, async () => {
      const r = await runPay(['completion', shell]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout === readFileSync(join(COMPLETIONS, file), 'utf8')).toBe(true);
    });
  }

  it('pay completion tcsh is a usage error: exit 2, one error line', async () => {
    const r = await runPay(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: .*tcsh.*bash, zsh and fish/);
  });

  it('pay completion without a shell is a usage error', async () => {
    const r = await runPay(['completion']);
    expect(r.code).toBe(2);
  });
});

describe('pay __complete', () => {
  it('profiles: prints the stored profile names, one per line', async () => {
    const dir = tempDir('pay-config-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current_profile: 'acme', profiles: { default: {}, acme: { tenant_id: 'biz_1' } } }));
    const r = await runPay(['__complete', 'profiles'], { env: cleanEnv({ PAY_CONFIG_DIR: dir }) });
    expect(r).toEqual({ code: 0, stdout: 'acme\ndefault\n', stderr: '' });
  });

  it('profiles: prints nothing and exits 0 without a config file, or with a broken one', async () => {
    const dir = tempDir('pay-config-');
    expect(await runPay(['__complete', 'profiles'], { env: cleanEnv({ PAY_CONFIG_DIR: dir }) })).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await runPay(['__complete', 'profiles'], { env: cleanEnv({ PAY_CONFIG_DIR: join(dir, 'missing') }) })).toEqual({ code: 0, stdout: '', stderr: '' });
    writeFileSync(join(dir, 'config.json'), '{not json');
    expect(await runPay(['__complete', 'profiles'], { env: cleanEnv({ PAY_CONFIG_DIR: dir }) })).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('an unknown or missing request prints nothing and exits 0', async () => {
    expect(await runPay(['__complete', 'bogus'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await runPay(['__complete'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('leaves out names a shell could misread', async () => {
    const dir = tempDir('pay-config-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { ok: {}, '$(touch x)': {}, 'a b': {}, '*': {} } }));
    const old = process.env.PAY_CONFIG_DIR;
    process.env.PAY_CONFIG_DIR = dir;
    try {
      let out = '';
      expect(await complete(['profiles'], (t) => (out += t))).toBe(0);
      expect(out).toBe('ok\n');
    } finally {
      if (old === undefined) delete process.env.PAY_CONFIG_DIR;
      else process.env.PAY_CONFIG_DIR = old;
    }
  });

  it('finds the config folder where conf keeps it on each platform', () => {
    expect(configDir({ PAY_CONFIG_DIR: '/x' }, 'linux', '/home/u')).toBe('/x');
    expect(configDir({}, 'linux', '/home/u')).toBe('/home/u/.config/pay');
    expect(configDir({ XDG_CONFIG_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/pay');
    expect(configDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Preferences/pay');
    expect(configDir({ APPDATA: 'C:/Users/u/AppData/Roaming' }, 'win32', 'C:/Users/u')).toBe(join('C:/Users/u/AppData/Roaming', 'pay', 'Config'));
  });
});
