// `pay profiles remove` on a real terminal (tmux) asks first (its help: "Asks first on a
// terminal"): "n" (or Enter: the default is no) keeps the profile and exits 2 with one line; "y"
// removes it. Without a terminal it needs --yes: test/e2e/profiles.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { describeTty, linesBeforeExit, Pane, removeScratch, scratchDir } from './tmux.js';

const KEY = 'sk_test_TtyR3moveKey8Jk2Lm4Np6Qr8St0Uv';
const OTHER_KEY = 'sk_test_TtyK3ptKey1Ab3Cd5Ef7Gh9Ij1Kl3M';

let pane: Pane | undefined;
afterEach(async () => {
  await pane?.kill();
  pane = undefined;
});
afterAll(() => removeScratch());

/** A config folder with profiles "default" (current) and "old". */
function configDir(): { env: Record<string, string>; file: string } {
  const dir = scratchDir('pay-tty-remove-');
  const file = join(dir, 'config.json');
  const config = {
    current_profile: 'default',
    profiles: { default: { sandbox: { secret_key: OTHER_KEY } }, old: { tenant_id: 'biz_old', sandbox: { secret_key: KEY } } },
  };
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return { env: { PAY_CONFIG_DIR: dir }, file };
}

const stored = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, unknown> };

describeTty('profiles remove in a real terminal (tmux)', () => {
  it.each([['n'], ['']])('answering %j keeps the profile: exit 2, one error line', async (answer) => {
    const { env, file } = configDir();
    const p = (pane = await Pane.pay(['profiles', 'remove', 'old'], { env }));
    await p.answer('Remove profile "old" and its keys?', answer);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    expect(lines.at(-1)).toBe('error: not confirmed; nothing was removed');
    expect(Object.keys(stored(file).profiles)).toEqual(['default', 'old']);
    expect(screen).not.toContain(KEY);
  });

  it('answering y removes it and leaves the others', async () => {
    const { env, file } = configDir();
    const p = (pane = await Pane.pay(['profiles', 'remove', 'old'], { env }));
    await p.answer('Remove profile "old" and its keys?', 'y');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(screen).toContain('✓ Removed profile "old"');
    expect(stored(file).profiles).toEqual({ default: { sandbox: { secret_key: OTHER_KEY } } });
    expect(screen).not.toContain(KEY);
  });
});
