// The root command: the global flags (declared in global-flags.json), then the tree from the
// declarations given (cheap: data and closures only): the resource groups, then the tooling
// commands (src/commands/index.ts). Every
// action goes through the dispatcher with the entry's Factory. tree.ts builds the whole tree
// (tests, the completion generator); the entry (src/cli.ts) builds it with only the specs argv names.
import { Command } from 'commander';
import { GROUP_HEADS, GROUP_LOADERS, type GroupName } from './group-index.js';
import { TOOLING } from './index.js';
import { VERSION } from '../lib/version.js';
import type { Entry, VerbEngine } from '../cmdutil/decl.js';
import { flagsOf, PROGRAM_FLAGS } from '../cmdutil/global-flags.js';
import { registerCommand, registerGroup, subcommandTerm, type Whole } from '../cmdutil/registry.js';
import type { GroupSpec } from '../cmdutil/spec.js';

/** The resource-verb engine, loaded when a verb runs (src/verbs/run.ts). */
const verbEngine: VerbEngine = async () => (await import('../verbs/run.js')).runVerb;

/** Specs for the groups argv names; heads (name and summary) for the others (the entry's tree). */
export async function groupsFor(argv: readonly string[]): Promise<GroupSpec[]> {
  return Promise.all(
    (Object.keys(GROUP_HEADS) as GroupName[]).map(async (name) =>
      argv.includes(name) ? GROUP_LOADERS[name]() : { ...GROUP_HEADS[name], noun: name, examples: [], columns: [], verbs: [] },
    ),
  );
}

/**
 * Groups without verbs (heads only) show in root help; a verb of theirs cannot be reached.
 * `whole` (the entry: the words of argv) registers only the commands it names whole, the others as
 * heads that help lists the same way (registry.ts); without it every command is whole.
 */
export function createProgram(groups: readonly GroupSpec[], entry: Entry, whole?: Whole): Command {
  const program = new Command('pay');
  program
    .version(VERSION, '-v, --version', 'print the version')
    .description('Operate the payments and banking service from the command line: customers, accounts, transfers, cards, FX and more.')
    .usage('<group> <action> [arguments] [flags]')
    .helpOption('-h, --help', 'show help for a command')
    .exitOverride()
    .configureOutput({ ...entry.output, outputError: () => {} })
    .configureHelp({ subcommandTerm })
    .showSuggestionAfterError(true)
    .optionsGroup('Global flags:');
  for (const f of PROGRAM_FLAGS) program.option(flagsOf(f), f.description);

  // An explicitly empty value (`--tenant ''`, `--secret "$UNSET"`) is a mistake, never "use the
  // default": exit 2 naming the flag, for every flag that takes a value, before the command runs.
  // (An empty environment variable counts as unset, as gh treats one.)
  program.hook('preAction', async (_program, action) => {
    for (let c: Command | null = action; c; c = c.parent) {
      for (const o of c.options) {
        if (!o.required && !o.optional) continue;
        const key = o.attributeName();
        const value: unknown = c.getOptionValue(key);
        if (c.getOptionValueSource(key) !== 'cli' || !(value === '' || (Array.isArray(value) && value.includes('')))) continue;
        const { UsageError } = await import('../lib/errors.js');
        const flag = o.long ?? o.short ?? o.flags;
        throw new UsageError(`${flag} was given an empty value`, {
          hint: `give ${flag} a value, or leave it out to use its default; an empty value is often a shell variable that is not set`,
        });
      }
    }
  });

  program.commandsGroup('Resource commands:');
  for (const group of groups) registerGroup(program, group, entry, verbEngine, whole);
  program.commandsGroup('Tooling commands:');
  program.helpCommand(false);
  for (const decl of TOOLING) registerCommand(program, decl, entry, whole);

  program.addHelpText(
    'after',
    '\nExamples:\n  $ pay login\n  $ pay customers list\n  $ pay transfers send --from acc_… --to acc_… --amount 10.50 --currency USD\n' +
      '\nLearn more:\n  pay <group> --help, pay help environment, pay help exit-codes\n  Docs: README.md in the pay repository, and `pay openapi` for the API contract\n',
  );
  return program;
}
