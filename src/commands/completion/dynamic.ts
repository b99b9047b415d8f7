// `pay __complete <what>`: the dynamic words of shell completion, printed one per line.
// Runs on TAB, routed by src/cli.ts before commander loads: node built-ins only (no config store, no
// commander), never throws, never prints an error, always exits 0. Unknown requests print nothing.
//   profiles   the stored profile names (config.json, read directly)
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Same rule as src/config/store.ts PROFILE_NAME: anything else is not printed (the shells expand nothing, but be strict). */
const PROFILE_NAME = /^(?!(?:constructor|prototype)$)[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The platform's config folder for `pay` (where earlier versions kept it through conf), or PAY_CONFIG_DIR.
 * Keep in step with src/config/store.ts and src/cmdutil/factory.ts.
 */
export function configDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.PAY_CONFIG_DIR) return env.PAY_CONFIG_DIR;
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'pay');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'pay', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'pay');
}

export function profileNames(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    const data = JSON.parse(readFileSync(join(configDir(env), 'config.json'), 'utf8')) as unknown;
    const profiles = (data as { profiles?: unknown } | null)?.profiles;
    if (!profiles || typeof profiles !== 'object' || Array.isArray(profiles)) return [];
    return Object.keys(profiles)
      .filter((n) => PROFILE_NAME.test(n))
      .sort();
  } catch {
    return [];
  }
}

export function complete(args: string[], write: (text: string) => void = (t) => void process.stdout.write(t)): number {
  try {
    if (args[0] === 'profiles') {
      const names = profileNames();
      if (names.length > 0) write(`${names.join('\n')}\n`);
    }
  } catch {
    // Nothing on TAB is worth an error message.
  }
  return 0;
}
