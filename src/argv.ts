// The contract lists --json, -o/--output, --fields, --jq, --no-header, --dry-run, -y/--yes and
// --idempotency-key among the global flags (and --wide joins them; all declared, with the
// program's, in src/cmdutil/global-flags.json), but they belong to the verbs that print, confirm
// or POST (commander declares them there, so `--help` shows them where they mean something). Written before the command path
// (`pay --json customers list`), they are moved after it, where the verb parses them; a verb
// without the flag then says "unknown option", as it would had it been written there.

import type { Command, Option } from 'commander';
import { namesOf, PROGRAM_FLAGS, VERB_FLAGS } from './cmdutil/global-flags.js';
import { closeNames, didYouMean } from './lib/distance.js';

/** Program options that take a value: skipped with it while looking for the command path. */
const PROGRAM_VALUE_FLAGS = new Set(PROGRAM_FLAGS.filter((f) => f.value).flatMap(namesOf));
const VERBS = Object.values(VERB_FLAGS);
/** Verb options that take a value. */
const VERB_VALUE_FLAGS = new Set(VERBS.filter((f) => f.value).flatMap(namesOf));
const VERB_BOOLEAN_FLAGS = new Set(VERBS.filter((f) => !f.value).flatMap(namesOf));
/** The sets above (test/unit/global-flags.test.ts). */
export const HOISTING = { PROGRAM_VALUE_FLAGS, VERB_VALUE_FLAGS, VERB_BOOLEAN_FLAGS } as const;

export function hoistVerbFlags(argv: readonly string[]): string[] {
  const moved: string[] = [];
  const rest: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--' || !a.startsWith('-') || a === '-') break;
    const name = a.startsWith('--') ? a.split('=')[0]! : a.slice(0, 2);
    const inline = a.startsWith('--') ? a.includes('=') : a.length > 2;
    if (VERB_BOOLEAN_FLAGS.has(a)) moved.push(a);
    else if (VERB_VALUE_FLAGS.has(name)) {
      moved.push(a);
      if (!inline && i + 1 < argv.length) moved.push(argv[++i]!);
    } else {
      rest.push(a);
      if (PROGRAM_VALUE_FLAGS.has(name) && !inline && i + 1 < argv.length) rest.push(argv[++i]!);
    }
  }
  if (moved.length === 0) return [...argv];
  const tail = argv.slice(i);
  const dashdash = tail.indexOf('--');
  return dashdash < 0 ? [...rest, ...tail, ...moved] : [...rest, ...tail.slice(0, dashdash), ...moved, ...tail.slice(dashdash)];
}

/** The options `cmd` takes: its own and its parents' (the program's are valid at any depth). */
function optionsOf(cmd: Command): Option[] {
  const all: Option[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) all.push(...c.options);
  return all;
}

/**
 * Where commander stopped in `argv` (as parsed, after hoistVerbFlags): the deepest command its
 * words name, options and their values skipped, and the word it did not know as a command, if any.
 */
export function commandAt(program: Command, argv: readonly string[]): { command: Command; unknown?: string } {
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-') && a !== '-') {
      if (a.includes('=')) continue;
      const opt = optionsOf(cmd).find((o) => o.long === a || o.short === a);
      if (opt?.required || (opt?.optional && i + 1 < argv.length && !argv[i + 1]!.startsWith('-'))) i++;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (sub) cmd = sub;
    else return cmd.commands.length > 0 ? { command: cmd, unknown: a } : { command: cmd };
  }
  return { command: cmd };
}

/**
 * A value flag written before the command that took a command's name as its value
 * (`pay --fields customers list`: --fields took "customers", and "list" was read as the command).
 */
function valueTookCommand(program: Command, argv: readonly string[]): { flag: string; value: string } | undefined {
  const names = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--' || !a.startsWith('-') || a === '-') return undefined;
    const name = a.startsWith('--') ? a.split('=')[0]! : a.slice(0, 2);
    const inline = a.startsWith('--') ? a.includes('=') : a.length > 2;
    if (!(PROGRAM_VALUE_FLAGS.has(name) || VERB_VALUE_FLAGS.has(name))) continue;
    const value = inline ? a.slice(name.length + (a.startsWith('--') ? 1 : 0)) : argv[++i];
    if (value !== undefined && names.has(value)) return { flag: name, value };
  }
  return undefined;
}

/**
 * A parse error of commander, as pay reports it: the message without commander's own guess, and
 * a hint. An unknown command or option suggests the close names where it was typed (a prefix, or
 * one or two letters off: commands and their aliases, options of the command and the program);
 * a value flag before the command that swallowed the command's name says so instead.
 */
export function explainParseError(program: Command, argv: readonly string[], message: string): [string, string] {
  const text = message.replace(/^error:\s*/i, '').replace(/\s*\(Did you mean [^)]*\)\s*$/s, '');
  const took = valueTookCommand(program, argv);
  if (took) {
    return [
      `${took.flag} took "${took.value}" as its value, so the command was read from the words after it (${text})`,
      `give ${took.flag} its own value before the command (pay ${took.flag} <value> ${took.value} …), or write it after the command`,
    ];
  }
  const usage = 'add --help for usage';
  const at = commandAt(program, hoistVerbFlags(argv));
  const help = program.createHelp();
  const command = /unknown command '([^']*)'/.exec(text)?.[1];
  if (command !== undefined) {
    const where = at.unknown === command ? at.command : program;
    const names = help.visibleCommands(where).flatMap((c) => [c.name(), ...c.aliases()]);
    const guess = didYouMean(closeNames(command, names));
    return [text, guess ? `${guess} (${usage})` : usage];
  }
  const option = /unknown option '([^']*)'/.exec(text)?.[1];
  if (option?.startsWith('--')) {
    const longs = optionsOf(at.command)
      .filter((o) => !o.hidden && o.long)
      .map((o) => o.long!);
    const guess = didYouMean(closeNames(option.split('=')[0]!, longs));
    return [text, guess ? `${guess} (${usage})` : usage];
  }
  return [text, usage];
}

/**
 * Output mode for errors raised before a command resolved its output flags (a parse error, a bad
 * -o): read from argv. Once a command runs, the dispatcher's resolved flags decide (entry.resolved).
 * --jq's output is jq's text, so its errors are text whatever else was asked.
 */
export function wantsJsonErrors(argv: readonly string[]): boolean {
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--jq' || a.startsWith('--jq=')) return false;
    if (a === '--json') json = true;
    else if ((a === '-o' || a === '--output') && /^(json|ndjson)$/.test(argv[i + 1] ?? '')) json = true;
    else if (/^(--output=|-o=?)(json|ndjson)$/.test(a)) json = true;
  }
  return json;
}
