// The entry: runs the commander tree and turns every failure into one error line and an exit
// code (src/lib/handle-error.ts). `pay __complete` (shell completion of dynamic words) skips the
// tree entirely.
// Start-up path: this file, commander and the tree's declarations, one bundle. The error path
// (errors.ts, handle-error.ts) loads only when something fails.
import { CommanderError } from 'commander';
import { hoistVerbFlags } from './argv.js';
import { GROUP_HEADS, GROUP_LOADERS, type GroupName } from './commands/group-index.js';
import type { GroupSpec } from './cmdutil/spec.js';
import { createProgram } from './program-core.js';

/** Specs for the groups argv names; heads (name and summary) for the others. */
async function groupsFor(argv: readonly string[]): Promise<GroupSpec[]> {
  return Promise.all(
    (Object.keys(GROUP_HEADS) as GroupName[]).map((name) =>
      argv.includes(name) ? GROUP_LOADERS[name]() : { ...GROUP_HEADS[name], noun: name, examples: [], columns: [], verbs: [] },
    ),
  );
}

/** Output mode for errors, read from argv (the parse may have failed before options exist). */
function wantsJsonErrors(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--json') return true;
    if ((a === '-o' || a === '--output') && /^(json|ndjson)$/.test(argv[i + 1] ?? '')) return true;
    if (/^(--output=|-o=?)(json|ndjson)$/.test(a)) return true;
  }
  return false;
}

function wantsDebug(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return argv.includes('--debug') || (env.PAY_DEBUG !== undefined && env.PAY_DEBUG !== '' && env.PAY_DEBUG !== '0');
}

const ZERO_EXIT = new Set(['commander.helpDisplayed', 'commander.version']);

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const program = createProgram(await groupsFor(argv));
  try {
    await program.parseAsync(hoistVerbFlags(argv), { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --version and --help end through exitOverride: not errors, and no error code to load.
      if (ZERO_EXIT.has(err.code)) return 0;
      // A group without a verb: commander has printed its help on stderr. Bare `pay` is not an error.
      if (err.code === 'commander.help') return argv.length === 0 ? 0 : 2;
    }
    const { UsageError } = await import('./lib/errors.js');
    if (err instanceof CommanderError) {
      const message = err.message.replace(/^error:\s*/i, '');
      err = new UsageError(message, { hint: 'add --help for usage' });
    }
    const { reportError } = await import('./lib/handle-error.js');
    return reportError(err, {
      err: (t) => void process.stderr.write(t),
      json: wantsJsonErrors(argv),
      debug: wantsDebug(argv, process.env),
    });
  }
}

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // `pay … | head`: the reader went away; stop quietly, unless the command listens for it itself
  // (a bulk run: it stops sending, then reports what was not written).
  if (err.code === 'EPIPE' && process.stdout.listenerCount('error') === 1) process.exit(process.exitCode ?? 0);
});

async function run(argv: readonly string[]): Promise<number> {
  if (argv[0] === '__complete') {
    const { complete } = await import('./commands/completion/dynamic.js');
    return complete(argv.slice(1));
  }
  return main(argv);
}

void run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
