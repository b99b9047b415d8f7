// The entry: runs the commander tree and turns every failure into one error line and an exit
// code (src/lib/handle-error.ts). `pay __complete` (shell completion of dynamic words) skips the
// tree entirely.
import { CommanderError } from 'commander';
import { ExitCode, UsageError } from './lib/errors.js';
import { reportError } from './lib/handle-error.js';
import { buildProgram } from './program.js';

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
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (ZERO_EXIT.has(err.code)) return ExitCode.OK;
      // A group without a verb: commander has printed its help on stderr. Bare `pay` is not an error.
      if (err.code === 'commander.help') return argv.length === 0 ? ExitCode.OK : ExitCode.USAGE;
      const message = err.message.replace(/^error:\s*/i, '');
      err = new UsageError(message, { hint: 'add --help for usage' });
    }
    return reportError(err, {
      err: (t) => void process.stderr.write(t),
      json: wantsJsonErrors(argv),
      debug: wantsDebug(argv, process.env),
    });
  }
}

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // `pay … | head`: the reader went away; stop quietly.
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

const argv = process.argv.slice(2);
if (argv[0] === '__complete') {
  const { complete } = await import('./commands/completion/dynamic.js');
  process.exitCode = complete(argv.slice(1));
} else {
  process.exitCode = await main(argv);
}
