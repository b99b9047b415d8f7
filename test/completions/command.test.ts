// pay completion <shell> and pay __complete, through the built bin/pay.js as a child process.
import { chmodSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/commands/completion/dynamic.js';
import { defaultConfigDir } from '../../src/config/store.js';
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

  it('completes nothing from a file any command would refuse (names a shell could misread, a link, loose modes, too big)', async () => {
    const dir = tempDir('pay-config-');
    const file = join(dir, 'config.json');
    const names = async () => {
      let out = '';
      expect(await complete(['profiles'], (t) => (out += t))).toBe(0);
      return out;
    };
    const old = process.env.PAY_CONFIG_DIR;
    process.env.PAY_CONFIG_DIR = dir;
    try {
      writeFileSync(file, JSON.stringify({ profiles: { ok: {} } }), { mode: 0o600 });
      expect(await names()).toBe('ok\n');
      // The store refuses the whole file for any command: completion offers none of it either.
      for (const bad of ['$(touch x)', 'a b', '*', 'constructor']) {
        writeFileSync(file, JSON.stringify({ profiles: { ok: {}, [bad]: {} } }));
        expect(await names()).toBe('');
      }
      writeFileSync(file, JSON.stringify({ profiles: { ok: {} } }));
      chmodSync(file, 0o666);
      expect(await names()).toBe('');
      chmodSync(file, 0o600);
      writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ profiles: { linked: {} } }), { mode: 0o600 });
      unlinkSync(file);
      symlinkSync(join(dir, 'elsewhere.json'), file);
      expect(await names()).toBe('');
      unlinkSync(file);
      writeFileSync(file, JSON.stringify({ profiles: { ok: {} }, pad: 'x'.repeat(2 * 1024 * 1024) }), { mode: 0o600 });
      expect(await names()).toBe('');
    } finally {
      if (old === undefined) delete process.env.PAY_CONFIG_DIR;
      else process.env.PAY_CONFIG_DIR = old;
    }
  });

  it('finds the config folder where conf kept it on each platform', () => {
    expect(defaultConfigDir({}, 'linux', '/home/u')).toBe('/home/u/.config/pay');
    expect(defaultConfigDir({ XDG_CONFIG_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/pay');
    expect(defaultConfigDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Preferences/pay');
    expect(defaultConfigDir({ APPDATA: 'C:/Users/u/AppData/Roaming' }, 'win32', 'C:/Users/u')).toBe(join('C:/Users/u/AppData/Roaming', 'pay', 'Config'));
  });
});
