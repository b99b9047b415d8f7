// pay logout: drop the keys of the mode in use from a profile; tenant and base URL stay.
import { escapeText } from '../../io/escape.js';
import { UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';

export async function run(f: Factory): Promise<void> {
  const { profileName, mode } = f.settings();
  // Checked and changed under the config lock, on the profile as stored then.
  await f.config().updateProfile(profileName.value, (profile) => {
    const keys = profile?.[mode.value];
    if (!profile || !keys?.secret_key) {
      throw new UsageError(`profile "${profileName.value}" has no ${mode.value} keys to forget`, {
        hint: 'pay profiles list shows what is stored',
      });
    }
    const { secret_key: _s, public_key: _p, webhook_secret: _w, ...kept } = keys;
    return { ...profile, [mode.value]: kept };
  });
  f.io.err(`✓ Logged out: profile "${escapeText(profileName.value)}" (${mode.value}) has no keys now\n`);
}
