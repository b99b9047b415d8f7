// pay completion <bash|zsh|fish>: prints the generated script from completions/ in the package
// (written by `npm run generate` from the command tree, committed, shipped in the package).
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import { ExitCode, PayError, UsageError } from '../../lib/errors.js';

export const SCRIPT_FILES = { bash: 'pay.bash', zsh: '_pay', fish: 'pay.fish' } as const;

/** The package root: the nearest folder up from this file (dist/cli.js, dist/chunks/…, or src/… in tests) whose package.json is pay-cli's. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === 'pay-cli') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const shell = ctx.args[0] as string;
  const file = Object.hasOwn(SCRIPT_FILES, shell) ? SCRIPT_FILES[shell as keyof typeof SCRIPT_FILES] : undefined;
  if (!file) throw new UsageError(`unknown shell "${shell}": pay completion supports bash, zsh and fish`);
  const root = packageRoot();
  const path = root ? join(root, 'completions', file) : undefined;
  let text: string;
  try {
    if (!path) throw new Error('package root not found');
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new PayError(
      `the ${shell} completion script is missing (${path ?? 'completions/' + file}): ${(err as Error).message}`,
      ExitCode.ERROR,
      'internal',
      {
        hint: 'reinstall pay; from a checkout, run: npm run build && npm run generate',
      },
    );
  }
  f.io.out(text);
}
