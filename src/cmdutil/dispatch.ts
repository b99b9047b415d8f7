// The one way a command runs, resource verb or not: the entry's Factory (built once, for the
// command that runs), the output flags resolved once into the context, then `run(f, ctx)`.
// Loaded when an action fires, never at start-up.
import type { Command } from 'commander';
import { resolveOutput, type OutputSettings } from '../io/output-options.js';
import type { CommandDecl, Entry } from './decl.js';
import type { GroupSpec, VerbSpec } from './spec.js';

/** Resolves the output flags (a bad -o or --fields is exit 2 before anything is read or sent) and tells the entry. */
function outputOf(entry: Entry, f: { io: Parameters<typeof resolveOutput>[1] }, opts: Record<string, unknown>): OutputSettings {
  const output = resolveOutput(opts, f.io);
  entry.resolved = { jsonErrors: output.format === 'json' || output.format === 'ndjson' };
  return output;
}

export async function runDeclared(entry: Entry, command: Command, decl: CommandDecl, args: unknown[]): Promise<void> {
  const f = await entry.factory(command.optsWithGlobals());
  const opts = command.opts();
  const output = decl.output ? outputOf(entry, f, opts) : undefined;
  const run = await decl.run!();
  await run(f, { args: args as Array<string | string[] | undefined>, opts, output, command });
}

export async function runResourceVerb(
  entry: Entry,
  command: Command,
  group: GroupSpec,
  verb: VerbSpec,
  argValue: string | undefined,
): Promise<void> {
  const f = await entry.factory(command.optsWithGlobals());
  const opts = command.opts();
  const output = outputOf(entry, f, opts);
  const { runVerb } = await import('../verbs/run.js');
  await runVerb(f, { group, verb, argValue, opts, output });
}
