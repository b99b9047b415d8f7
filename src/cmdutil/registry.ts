// Turns the declarations into commander commands: group specs (spec.ts) and command declarations
// (decl.ts). Start-up path: registering a command costs a few objects; every action loads the
// dispatcher (dispatch.ts), which builds the entry's Factory and runs the implementation.
import { Command, Help, Option } from 'commander';
import { confirmClassOf } from '../shared/confirm.js';
import type { CommandDecl, Entry, VerbEngine } from './decl.js';
import { flagsOf, VERB_FLAGS } from './global-flags.js';
import { OUTPUT_FORMATS } from '../io/formats.js';
import { OUTPUT_FLAGS, waitTimeoutOption, type GroupSpec, type VerbSpec, type WaitSpec } from './spec.js';

/** Lets tests and the help/completion generators find the spec behind a command. */
export const specOf = new WeakMap<Command, { group: GroupSpec; verb?: VerbSpec }>();

/**
 * Which commands to register whole: the entry names the words of argv (a command argv does not
 * name is never parsed, so it needs only what its parent's help and the suggestions show: its
 * name, aliases, arguments and summary, a head); undefined registers every command whole (the
 * tree of tests and generators, src/commands/tree.ts).
 */
export type Whole = ((name: string) => boolean) | undefined;

/** Heads of commands that take options (none is registered on a head). */
const headsWithOptions = new WeakSet<Command>();

/**
 * commander's Help.subcommandTerm (`name|alias [options] <args>`), with ` [options]` for a head whose
 * command takes options: a parent's help lists a head exactly as it lists the whole command.
 */
export function subcommandTerm(this: Help, cmd: Command): string {
  const term = Help.prototype.subcommandTerm.call(this, cmd);
  if (!headsWithOptions.has(cmd)) return term;
  const name = cmd.name() + (cmd.aliases()[0] ? `|${cmd.aliases()[0]}` : '');
  return `${name} [options]${term.slice(name.length)}`;
}

export function examplesText(examples: readonly string[]): string {
  return `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`;
}

/**
 * --json, -o and --jq; --wide wherever it can print a table (`formats` has `table`: emulator status
 * and faults, trigger too, which pick no fields); with `projection`, also --fields and --no-header.
 * Commands that print no API objects (webhooks verify, listen) take the format only: they would
 * ignore the others, and verify's own --header would be negated by a --no-header. `formats`: what
 * -o accepts (every command with --json takes -o, json its only choice where it prints nothing else).
 */
export function addOutputOptions(cmd: Command, list: boolean, projection = true, formats: readonly string[] = OUTPUT_FORMATS): Command {
  cmd.option(OUTPUT_FLAGS.json, 'print JSON (same as -o json)');
  cmd.addOption(new Option(OUTPUT_FLAGS.output, 'output format').choices([...formats]));
  cmd.option(OUTPUT_FLAGS.jq, 'filter the JSON output with jq (implies --json; strings print raw), e.g. --jq ".[].id"');
  if (projection) {
    cmd
      .option(OUTPUT_FLAGS.fields, 'comma-separated fields to show (dotted paths, e.g. id,address.country); without names, list them')
      .option(OUTPUT_FLAGS.noHeader, 'tsv and csv: omit the header line');
  }
  if (formats.includes('table'))
    cmd.option(
      OUTPUT_FLAGS.wide,
      'tables on a terminal: show every column at full width (long lines wrap) instead of fitting the terminal',
    );
  if (list) {
    cmd.option('--limit <n>', 'how many items (1-1000; with --all, the page size)').option('--all', 'follow cursors and print every page');
  }
  return cmd;
}

/** --wait and --wait-timeout, for a verb whose object settles later (src/verbs/wait.ts). */
export function addWaitOptions(cmd: Command, wait: WaitSpec): Command {
  const failure = [...wait.failure, 'at --wait-timeout'].join(', ');
  const timeout = waitTimeoutOption('with --wait');
  return cmd
    .option('--wait', `wait for it to ${wait.until}: exit 0 when ${wait.success.join(' or ')}, 1 when ${failure}`)
    .option(timeout.flags, timeout.description);
}

/** --dry-run, for commands that send POST, PATCH, PUT or DELETE requests. */
export function addDryRunOption(cmd: Command): Command {
  return cmd.option(
    OUTPUT_FLAGS.dryRun,
    'send nothing: print each request that would change something (method, URL, headers with the key masked, body)',
  );
}

export function addWriteOptions(cmd: Command, verb: VerbSpec): Command {
  if (verb.body) cmd.option('--data <json>', 'request body as JSON, @file or @- for stdin; flags override its fields');
  if (verb.method === 'POST') cmd.option(flagsOf(VERB_FLAGS.idempotencyKey), 'Idempotency-Key to send (default: a fresh UUID)');
  // Money-moving or destructive (src/shared/confirm.ts): asked about in live mode, --yes without a terminal.
  if (confirmClassOf(verb.operationId))
    cmd.option(flagsOf(VERB_FLAGS.yes), 'do not ask for confirmation (needed in live mode without a terminal)');
  // A create or action that asks on a terminal for what is missing (src/verbs/ask.ts) confirms what it filled in.
  const asks = (verb.kind === 'create' || verb.kind === 'action') && verb.body === true && (!verb.impl || verb.asks === true);
  if (asks && !confirmClassOf(verb.operationId))
    cmd.option(flagsOf(VERB_FLAGS.yes), 'do not ask for confirmation of what the prompts filled in');
  if (asks) cmd.option('--interactive', 'on a terminal, ask for the optional fields not given too (without asking first)');
  if (verb.method !== 'GET' && !verb.offline) addDryRunOption(cmd);
  if (verb.kind === 'create') {
    cmd
      .option('--from-file <file>', 'create one per row of an NDJSON, CSV or JSON-array file ("-" for stdin); flags apply to every row')
      .option('--concurrency <n>', 'with --from-file: requests in flight (1-256)', '8')
      .option('--resume <results>', "with --from-file: skip the rows a previous run's results (its stdout) say were created")
      .option('--fail-fast', 'with --from-file: stop at the first failed row')
      .option('--batch-id <id>', "with --from-file: the input's identity in the idempotency keys (default: the file name)");
  }
  return cmd;
}

export function registerGroup(program: Command, group: GroupSpec, entry: Entry, engine: VerbEngine, whole?: Whole): Command {
  const g = program.command(group.name).description(group.summary);
  if (group.description) g.summary(group.summary).description(`${group.summary}\n\n${group.description}`);
  if (group.deprecated) g.description(`[deprecated: use ${group.deprecated.use}] ${group.summary}`);
  // Heads (src/cli.ts: groups argv does not name) have none; their help is never shown.
  if (group.examples.length > 0) g.addHelpText('after', examplesText(group.examples));
  specOf.set(g, { group });
  for (const verb of group.verbs) {
    if (!whole || whole(verb.name) || verb.aliases?.some(whole)) registerVerb(g, group, verb, entry, engine);
    else headsWithOptions.add(verbHead(g, verb));
  }
  for (const decl of group.commands ?? []) registerCommand(g, decl, entry, whole);
  return g;
}

/** A verb's name, aliases, argument and summary (every verb takes options: the output flags at least). */
function verbHead(parent: Command, verb: VerbSpec): Command {
  const cmd = parent.command(verb.name, verb.hidden ? { hidden: true } : {});
  for (const alias of verb.aliases ?? []) cmd.alias(alias);
  // An argument the verb can pick (spec.ts PickSpec) is optional for commander: on a terminal
  // pay offers a list; elsewhere src/verbs/pick.ts refuses its absence as commander would.
  if (verb.arg?.pick)
    cmd.argument(`[${verb.arg.name.replace(/[<>[\]]/g, '')}]`, `${verb.arg.description}; left out on a terminal, pick one`);
  else if (verb.arg) cmd.argument(verb.arg.name, verb.arg.description);
  const tag = verb.deprecated ? `[deprecated: use ${verb.deprecated.use}] ` : '';
  cmd.summary(`${tag}${verb.summary}`).description(`${tag}${verb.summary}${verb.description ? `\n\n${verb.description}` : ''}`);
  return cmd;
}

function registerVerb(parent: Command, group: GroupSpec, verb: VerbSpec, entry: Entry, engine: VerbEngine): void {
  const cmd = verbHead(parent, verb);
  for (const f of verb.flags ?? []) {
    // Codes (currencies, assets) are accepted in any case, so commander does not enforce them.
    const strict = f.choices && !f.open && f.kind !== 'currency';
    const listed = f.choices && !strict && !f.open ? ` (one of ${f.choices.join(', ')})` : '';
    const dflt = f.default !== undefined ? ` (default: ${f.default})` : '';
    const opt = new Option(f.flags, f.description + listed + dflt + (f.required || f.pathParam ? ' (required)' : ''));
    if (strict) opt.choices(f.choices!);
    if (f.repeatable)
      opt.argParser((value: string, previous: unknown) => [...(Array.isArray(previous) ? (previous as string[]) : []), value]);
    cmd.addOption(opt);
  }
  if (verb.wait) addWaitOptions(cmd, verb.wait);
  addWriteOptions(cmd, verb);
  addOutputOptions(cmd, verb.kind === 'list', !verb.offline, verb.formats);
  cmd.addHelpText('after', `${examplesText(verb.examples)}\nJSON output: ${verb.jsonShape}\n`);
  specOf.set(cmd, { group, verb });
  cmd.action(async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const { runResourceVerb } = await import('./dispatch.js');
    await runResourceVerb(entry, command, group, verb, verb.arg ? (args[0] as string) : undefined, engine);
  });
}

/** A repeatable option collects its values into an array. */
function collect(value: string, previous: unknown): string[] {
  return [...(Array.isArray(previous) ? (previous as string[]) : []), value];
}

/** A command declaration (and its subcommands) under `parent`; a head when `whole` does not name it. */
export function registerCommand(parent: Command, decl: CommandDecl, entry: Entry, whole?: Whole): Command {
  const cmd = parent.command(decl.name);
  for (const a of decl.args ?? []) cmd.argument(a.name, a.description);
  if (decl.summary !== undefined) cmd.summary(decl.summary);
  if (decl.description !== undefined) cmd.description(decl.description);
  else if (decl.summary !== undefined) cmd.description(decl.summary);
  if (whole && !whole(decl.name)) {
    if (decl.options?.length || decl.output || decl.dryRun) headsWithOptions.add(cmd);
    return cmd;
  }
  for (const o of decl.options ?? []) {
    const opt = new Option(o.flags, o.description);
    if (o.repeatable) opt.argParser(collect);
    if (o.default !== undefined) opt.default(Array.isArray(o.default) ? [...(o.default as string[])] : o.default);
    cmd.addOption(opt);
  }
  if (decl.output) addOutputOptions(cmd, false, decl.output.projection, decl.output.formats);
  if (decl.dryRun) addDryRunOption(cmd);
  const tail = !decl.prints ? '' : 'json' in decl.prints ? `\nJSON output: ${decl.prints.json}\n` : `\nOutput: ${decl.prints.note}\n`;
  const examples = decl.examples?.length ? examplesText(decl.examples) : '';
  if (examples || tail) cmd.addHelpText('after', examples + tail);
  for (const sub of decl.subcommands ?? []) registerCommand(cmd, sub, entry, whole);
  if (decl.run) {
    cmd.action(async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const { runDeclared } = await import('./dispatch.js');
      await runDeclared(entry, command, decl, args.slice(0, -2));
    });
  }
  return cmd;
}
