// The one way a command runs, resource verb or not: the entry's Factory (built once, for the
// command that runs), the output flags resolved once into the context (a bad -o, an unknown
// --fields name, a --jq filter jq refuses: exit 2 here, before anything is read or sent; --fields
// without names lists the fields instead of running), --dry-run switched on for the clients the
// command builds, then `run(f, ctx)`. A dry run's stop is exit 0; a failed request gets the hint
// for this command (hints.ts: --idempotency-key only where it takes that flag).
// Loaded when an action fires, never at start-up.
import type { Command } from 'commander';
import type { FieldSet } from '../api/response-fields.js';
import { pagerState, resolveOutput, type OutputFormat, type OutputSettings } from '../io/output-options.js';
import { closeNames, didYouMean } from '../lib/distance.js';
import { DryRunStop, UsageError } from '../lib/errors.js';
import type { CommandDecl, Entry, VerbEngine } from './decl.js';
import type { Factory } from './factory.js';
import { addRequestHint } from './hints.js';
import type { GroupSpec, VerbSpec } from './spec.js';

/** Resolves the output flags, loads and checks --jq, and tells the entry how to print errors. */
async function outputOf(
  entry: Entry,
  f: Factory,
  opts: Record<string, unknown>,
  formats?: readonly OutputFormat[],
): Promise<OutputSettings> {
  // --jq's output is jq's text, so its errors are text too; --json and -o json/ndjson make them
  // JSON. Decided from the flags before they are checked: their own errors follow the same rule.
  const jsonAsked = opts.json === true || opts.output === 'json' || opts.output === 'ndjson';
  entry.resolved = { jsonErrors: jsonAsked && typeof opts.jq !== 'string' };
  const output = resolveOutput(opts, f.io, formats, { flags: f.flags, env: f.env });
  if (typeof opts.jq === 'string') {
    const { compileJq } = await import('../io/jq.js');
    const stdout = f.io.stdout as { destroyed?: boolean; errored?: unknown };
    output.jq = await compileJq(opts.jq, {
      tty: f.io.stdoutIsTTY,
      warn: (t) => f.io.err(t),
      // A pipe's reader went away (`| head`): jq stops at its next value.
      closed: () => stdout.destroyed === true || (stdout.errored !== null && stdout.errored !== undefined),
    });
  }
  return output;
}

/** The command as typed: `pay customers list`. */
function commandName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * --fields against what the command prints: without names, the fields are listed on stdout (and
 * the command does not run: returns true); an unknown name is exit 2 listing the valid ones.
 */
function checkFields(f: Factory, output: OutputSettings, set: FieldSet | undefined, name: string): boolean {
  if (!output.listFields && !output.fields) return false;
  if (!set) {
    if (output.listFields) throw new UsageError(`--fields needs names here (e.g. --fields id,status): ${name} does not list its fields`);
    return false;
  }
  const shown = [...set.names, ...set.open.map((p) => `${p}.<name>`)];
  if (output.listFields) {
    f.io.out(`${shown.join('\n')}\n`);
    return true;
  }
  const unknown = output.fields!.filter((p) => !set.names.includes(p) && !set.open.some((o) => p.startsWith(`${o}.`)));
  if (unknown.length > 0) {
    const guess = didYouMean(closeNames(unknown[0]!, set.names));
    throw new UsageError(
      `--fields: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')} for ${name} (valid: ${shown.join(', ')})`,
      { hint: `${guess ? `${guess} ` : ''}${name} --fields (without names) lists them one a line` },
    );
  }
  return false;
}

/** Every flag the command takes, its own and its parents' (the global flags). */
function flagsOf(command: Command): Set<string> {
  const flags = new Set<string>();
  for (let c: Command | null = command; c; c = c.parent) {
    for (const o of c.options) {
      if (o.long) flags.add(o.long);
      if (o.short) flags.add(o.short);
    }
  }
  return flags;
}

/** Waits for the pager, when one was started (src/io/pager.ts): a command that started none does not load it. */
async function pagerDone(): Promise<void> {
  if (!pagerState.started) return;
  const { pagerDone: done } = await import('../io/pager.js');
  await done();
}

/** Runs the command with --dry-run's printer when asked, a dry run's stop as success, a failed request's hint written for the command. */
async function guarded(
  f: Factory,
  command: Command,
  opts: Record<string, unknown>,
  output: OutputSettings | undefined,
  body: () => Promise<void>,
): Promise<void> {
  if (opts.dryRun === true && command.options.some((o) => o.long === '--dry-run')) {
    const { dryRunPrinter } = await import('./dry-run.js');
    f.dryRun = dryRunPrinter(f.io, output);
  }
  try {
    await body();
    // A pager still showing what the command printed: pay ends when it does (Ctrl-C meanwhile: exit 130).
    await pagerDone();
  } catch (err) {
    await pagerDone().catch(() => undefined);
    if (err instanceof DryRunStop) {
      f.io.err('dry run: nothing was sent\n');
      return;
    }
    addRequestHint(err, flagsOf(command));
    throw err;
  }
}

export async function runDeclared(entry: Entry, command: Command, decl: CommandDecl, args: unknown[]): Promise<void> {
  const f = await entry.factory(command.optsWithGlobals());
  const opts = command.opts();
  const output = decl.output ? await outputOf(entry, f, opts, decl.output.formats) : undefined;
  if (output && decl.output?.projection) {
    const set = decl.output.fields ? { names: [...decl.output.fields], open: [] } : undefined;
    if (checkFields(f, output, set, commandName(command))) return;
  }
  // A command that declares its own --dry-run (seed apply: its plan) handles it; the mechanism is for `dryRun: true`.
  const dry = decl.dryRun ? opts : { ...opts, dryRun: undefined };
  await guarded(f, command, dry, output, async () => {
    const run = await decl.run!();
    await run(f, { args: args as Array<string | string[] | undefined>, opts, output, command });
  });
}

export async function runResourceVerb(
  entry: Entry,
  command: Command,
  group: GroupSpec,
  verb: VerbSpec,
  argValue: string | undefined,
  engine: VerbEngine,
): Promise<void> {
  const f = await entry.factory(command.optsWithGlobals());
  const opts = command.opts();
  const output = await outputOf(entry, f, opts, verb.formats);
  if (verb.operationId && !verb.offline && (output.fields || output.listFields)) {
    const { answerFields, operationFields } = await import('../api/response-fields.js');
    const set = verb.answer ? answerFields(verb.answer) : operationFields(verb.operationId);
    if (checkFields(f, output, set, commandName(command))) return;
  }
  await guarded(f, command, opts, output, async () => {
    const runVerb = await engine();
    await runVerb(f, { group, verb, argValue, opts, output });
  });
}
