// The entry: builds the commander tree (cheap: data and closures only) and runs it. Every
// action `await import()`s its implementation, so `pay --version` and `pay --help` load
// commander and the command declarations, nothing else.
import { Command, CommanderError, Option } from 'commander';
import { allGroups } from './commands/groups.js';
import { registerGroup } from './commands/registry.js';
import { registerTooling } from './commands/tooling.js';
import { ExitCode, UsageError } from './lib/errors.js';
import { reportError } from './lib/handle-error.js';
import { VERSION } from './lib/version.js';

export function buildProgram(): Command {
  const program = new Command('pay');
  program
    .version(VERSION, '-v, --version', 'print the version')
    .description('Operate the payments and banking service from the command line: customers, accounts, transfers, cards, FX and more.')
    .usage('<group> <action> [arguments] [flags]')
    .helpOption('-h, --help', 'show help for a command')
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true)
    .optionsGroup('Global flags:')
    .option('-p, --profile <name>', 'stored profile to use (env PAY_PROFILE)')
    .option('--live', 'use the Live key pair (env PAY_MODE=live); Sandbox is the default')
    .option('--api-key <key>', 'secret key override (env PAY_API_KEY; visible in ps, prefer the env or a profile)')
    .option('--tenant <id>', 'business id sent as x-tenant-id (env PAY_TENANT_ID)')
    .option('--base-url <url>', 'service address ending in /v1/ (env PAY_BASE_URL)')
    .option('--no-input', 'never prompt (env PAY_NO_INPUT=1, or CI set)')
    .option('--timeout <seconds>', 'per-attempt timeout, default 30 (env PAY_TIMEOUT)')
    .option('--max-retries <n>', 'retries on network errors, 429 and 5xx, default 3 (env PAY_MAX_RETRIES)')
    .option('--debug', 'log requests and responses to stderr, keys redacted (env PAY_DEBUG=1)')
    .addOption(new Option('--no-color', 'no colours (env NO_COLOR)'));

  program.commandsGroup('Resource commands:');
  for (const group of allGroups) registerGroup(program, group);
  program.commandsGroup('Tooling commands:');
  registerTooling(program);

  program.addHelpText(
    'after',
    '\nExamples:\n  $ pay login\n  $ pay customers list\n  $ pay transfers send --from acc_… --to acc_… --amount 10.50 --currency USD\n' +
      '\nLearn more:\n  pay <group> --help, pay help environment, pay help exit-codes\n  Docs: README.md in the pay repository, and `pay openapi` for the API contract\n',
  );
  return program;
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

const code = await main();
process.exitCode = code;
