// The entry: builds the commander tree from the declarations, hands every command the one Factory
// (built here, when the command runs), and turns every failure into one error line and an exit
// code (src/lib/handle-error.ts). Only this file sets the exit code or ends the process.
// `pay __complete` (shell completion of dynamic words) skips the tree entirely.
// Start-up path: this file, commander and the tree's declarations, one bundle. The Factory's
// modules load when a command runs; the error path (errors.ts, handle-error.ts) when something fails.
import { CommanderError } from 'commander';
import { explainParseError, hoistVerbFlags, wantsJsonErrors } from './argv.js';
import type { Entry } from './cmdutil/decl.js';
import type { Factory } from './cmdutil/factory.js';
import { createProgram, groupsFor } from './commands/root.js';
import { createStdio } from './cmdutil/stdio.js';

function wantsDebug(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return argv.includes('--debug') || (env.PAY_DEBUG !== undefined && env.PAY_DEBUG !== '' && env.PAY_DEBUG !== '0');
}

const ZERO_EXIT = new Set(['commander.helpDisplayed', 'commander.version']);

/**
 * A damaged build: bin/load.js's error for a bundle that is missing, cut short or not a file, or
 * for a package from node_modules that will not load; src/lib/errors.ts's for llhttp's WebAssembly
 * or jq's. Found in the error or its causes, and reported here, as one line with exit 1, because
 * the error path itself (errors.ts, handle-error.ts) may be in the damaged bundle.
 */
function damagedBuild(err: unknown): Error | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if ((e as NodeJS.ErrnoException).code === 'PAY_BUILD_DAMAGED') return e;
  }
  return undefined;
}
function reportDamaged(err: Error): number {
  stdio.err(`error: ${err.message}\n`);
  return 1;
}

/**
 * `pay … | head`: the reader went away; stop quietly, unless the command listens for it itself
 * (a bulk run: it stops sending, then reports what was not written). Listened for on
 * process.stdout once something makes it (the Factory, a writer falling back to it).
 */
let stdoutListened = false;
function listenStdout(): void {
  if (stdoutListened) return;
  stdoutListened = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' && process.stdout.listenerCount('error') === 1) process.exit(process.exitCode ?? 0);
  });
}

/** What the entry writes itself, before a command takes the streams (src/cmdutil/stdio.ts). */
const stdio = createStdio(
  { stdout: () => process.stdout, stderr: () => process.stderr },
  (which) => which === 'stdout' && listenStdout(),
  process.env,
);

/** The one Factory of this process, over its streams and environment, built for the command that runs. */
function processEntry(): Entry {
  let built: Factory | undefined;
  return {
    output: stdio.commander,
    async factory(flags) {
      const { createFactory } = await import('./cmdutil/factory.js');
      if (!built) {
        stdio.useStreams();
        listenStdout();
      }
      return (built ??= createFactory({ flags, groups: async () => (await import('./commands/groups.js')).allGroups }));
    },
  };
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const entry = processEntry();
  // Only what argv names is registered whole (the rest as heads: what help lists of them).
  const program = createProgram(await groupsFor(argv), entry, (name) => argv.includes(name));
  try {
    await program.parseAsync(hoistVerbFlags(argv), { from: 'user' });
    return 0;
  } catch (thrown) {
    let err = thrown;
    const damaged = damagedBuild(err);
    if (damaged) return reportDamaged(damaged);
    if (err instanceof CommanderError) {
      // --version and --help end through exitOverride: not errors, and no error code to load.
      if (ZERO_EXIT.has(err.code)) return 0;
      // A group without a verb: commander has printed its help on stderr. Bare `pay` is not an error.
      if (err.code === 'commander.help') return argv.length === 0 ? 0 : 2;
    }
    const { PayError, UsageError } = await import('./lib/errors.js');
    if (err instanceof CommanderError) {
      const [message, hint] = explainParseError(program, argv, err.message);
      err = new UsageError(message, { hint });
    }
    const { reportError } = await import('./lib/handle-error.js');
    const code = reportError(err, {
      err: (t) => stdio.err(t),
      json: entry.resolved?.jsonErrors ?? wantsJsonErrors(argv),
      debug: wantsDebug(argv, process.env),
    });
    // A command that must not wait for what is still running (a second Ctrl-C while the emulator stops).
    if (err instanceof PayError && err.exitNow) process.exit(code);
    return code;
  }
}

async function run(argv: readonly string[]): Promise<number> {
  try {
    if (argv[0] === '__complete') {
      listenStdout();
      const { complete } = await import('./commands/completion/dynamic.js');
      return await complete(argv.slice(1));
    }
    return await main(argv);
  } catch (err) {
    // (main reports every error through the error path; this one it could not load)
    const damaged = damagedBuild(err);
    if (damaged) return reportDamaged(damaged);
    throw err;
  }
}

void run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
