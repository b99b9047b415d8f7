// `pay __complete <what>`: the dynamic words of shell completion, printed one per line.
// Runs on TAB, routed by src/cli.ts before commander loads: node built-ins only (no config store, no
// commander), never throws, never prints an error, always exits 0. Unknown requests print nothing.
//   profiles   the stored profile names (config.json, read directly)
//   states <words before the cursor…> <current word>
//              ISO 3166-2 codes, each with its name after a tab: those of the --country among the
//              words (or of the current word's `CC-`), matching the current word as a code or as
//              the bare subdivision (`va` offers US-VA); without a country, the `CC-` prefixes
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

/** The lines `pay __complete states` prints for these words (the last is the one being completed). */
export async function stateLines(words: readonly string[]): Promise<string[]> {
  const { loadIsoTables } = await import('../../shared/iso-3166.js');
  const tables = await loadIsoTables();
  const current = (words[words.length - 1] ?? '').replace(/^--state=/, '').toUpperCase();
  let country: string | undefined;
  for (let i = 0; i < words.length - 1; i++) {
    const w = words[i]!;
    if (w === '--country') country = words[i + 1];
    else if (w.startsWith('--country=')) country = w.slice('--country='.length);
  }
  const typed = /^([A-Z]{2})-/.exec(current)?.[1];
  const cc = typed ?? country?.toUpperCase();
  if (!cc || !tables.country(cc)) {
    return tables.countries
      .filter((c) => tables.subdivisionsOf(c.code).length > 0 && `${c.code}-`.startsWith(current.slice(0, 3)))
      .map((c) => `${c.code}-\t${c.name}`);
  }
  return tables
    .subdivisionsOf(cc)
    .filter((s) => s.code.startsWith(current) || (!typed && s.code.slice(3).startsWith(current)))
    .map((s) => `${s.code}\t${s.name}`);
}

export async function complete(args: string[], write: (text: string) => void = (t) => void process.stdout.write(t)): Promise<number> {
  try {
    let lines: string[] = [];
    if (args[0] === 'profiles') lines = profileNames();
    else if (args[0] === 'states') lines = await stateLines(args.slice(1));
    if (lines.length > 0) write(`${lines.join('\n')}\n`);
  } catch {
    // Nothing on TAB is worth an error message.
  }
  return 0;
}
