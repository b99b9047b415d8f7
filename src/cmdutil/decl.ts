// The one shape of a command that is not a resource verb (login, profiles, api, seed, the emulator,
// …): a declaration as data, like the groups' specs (spec.ts), turned into commander by
// registry.ts and run by dispatch.ts as `run(f, ctx)`. Start-up path: types only.
import type { Command, OutputConfiguration } from 'commander';
import type { GlobalFlags } from '../config/settings.js';
import type { OutputFormat } from '../io/formats.js';
import type { OutputSettings } from '../io/output-options.js';
import type { Factory } from './factory.js';
import type { VerbRun } from './spec.js';

export interface OutputDecl {
  /** Takes --fields and --no-header (it prints objects whose fields can be picked). */
  projection: boolean;
  /** With `projection`: the fields --fields may name (dotted paths), checked before the command runs. */
  fields?: readonly string[];
  /** What -o accepts (default: every format). A command that prints only JSON lists ['json', 'ndjson']. */
  formats?: readonly OutputFormat[];
}

export interface OptionDecl {
  /** Commander syntax: `--port <n>`, `-y, --yes`; booleans have no argument. */
  flags: string;
  description: string;
  /** Shown in help as `(default: …)`; the option's value when not given. */
  default?: string | readonly string[];
  /** The flag may be given more than once: the option is an array of the values. */
  repeatable?: boolean;
}

export interface ArgDecl {
  /** Commander syntax: `<name>` (required), `[name]` (optional), `[topic...]` (variadic). */
  name: string;
  description: string;
}

/** What a command prints, after its examples in `--help`: a JSON shape, or an `Output:` note. */
export type PrintsDecl = { json: string } | { note: string };

export interface CommandDecl {
  name: string;
  /** The one-line summary in the parent's command list (defaults to the description's first line). */
  summary?: string;
  /** The text at the top of the command's own help (defaults to the summary). */
  description?: string;
  args?: readonly ArgDecl[];
  options?: readonly OptionDecl[];
  /**
   * Takes the shared output flags (--json, -o, --jq; with `projection`, --fields and --no-header
   * too), after its own options. The dispatcher resolves them once into `ctx.output`, loads and
   * checks the --jq filter, and checks --fields against `fields` (or lists them) before the command
   * runs. Print through the shared Printer (src/io/output.ts: printList, printObject, printValue,
   * printLine) and --jq, csv and the checked fields need nothing more.
   */
  output?: OutputDecl;
  /**
   * It sends POST, PATCH, PUT or DELETE requests through `f.client()` or `f.emulator()`: it takes
   * --dry-run, and in a dry run the client prints each such request instead of sending it
   * (src/cmdutil/dry-run.ts; GETs are sent).
   */
  dryRun?: boolean;
  examples?: readonly string[];
  prints?: PrintsDecl;
  subcommands?: readonly CommandDecl[];
  /** The implementation, loaded when the command runs. A command with subcommands only has none. */
  run?: () => Promise<CommandRun>;
}

export interface CommandContext {
  /** The positional arguments, in the declaration's order (a variadic one is an array). */
  args: ReadonlyArray<string | string[] | undefined>;
  /** The command's own options (commander camelCase); the global ones are `f.flags`. */
  opts: Record<string, unknown>;
  /** The output flags, checked and resolved once (commands that declare `output`). */
  output: OutputSettings | undefined;
  /** The command that ran, for the one command that reads the tree (`pay help`). */
  command: Command;
}

export type CommandRun = (f: Factory, ctx: CommandContext) => Promise<void>;

/**
 * What the entry hands the tree: how to build the one Factory for the command that runs. src/cli.ts
 * builds it from the global flags with the process's streams; tests give fake streams and a mock
 * dispatcher. `resolved` tells the entry, once a command started, how to print its errors.
 */
export interface Entry {
  factory(flags: GlobalFlags): Factory | Promise<Factory>;
  resolved?: { jsonErrors: boolean };
  /** How commander writes its own output (help, the version): the entry's writers (src/cmdutil/stdio.ts). */
  output?: OutputConfiguration;
}

/**
 * The resource-verb engine (src/verbs/run.ts runVerb), loaded when a verb runs. The verbs room is
 * above this one (it builds on the Factory and the specs), so the root command
 * (src/commands/root.ts) hands it to the registry, which hands it to the dispatcher.
 */
export type VerbEngine = () => Promise<VerbRun>;
