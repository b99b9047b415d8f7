// `pay __complete <what>`: the dynamic words of shell completion, printed one per line.
// Runs on TAB, routed by src/cli.ts before commander loads (no commander), never throws, never prints an error, always exits 0. Unknown requests print nothing.
//   profiles   the stored profile names (config.json, read and checked by the config store)
//   states <words before the cursor…> <current word>
//              ISO 3166-2 codes, each with its name after a tab: those of the --country among the
//              words (or of the current word's `CC-`), matching the current word as a code or as
//              the bare subdivision (`va` offers US-VA); without a country, the `CC-` prefixes
import { ConfigStore } from '../../config/store.js';

/**
 * The stored profile names, read through the config store with every check it makes of the file
 * (no symbolic link, a regular file of ours of at most 1 MiB that nobody else may write, the
 * right shape, valid names): a file any command would refuse completes nothing.
 */
export function profileNames(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    return Object.keys(new ConfigStore(env.PAY_CONFIG_DIR || undefined).profiles()).sort();
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
