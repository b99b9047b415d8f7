// The neutral completion model: what the shells need to know about the commander tree, and
// nothing about any shell. Built from commander's public Help API (visibleCommands, visibleOptions)
// so hidden commands and options stay out, as they do in help.
import type { Command, Option } from 'commander';
import { SCRIPT_FILES } from '../commands/completion/run.js';
import { specOf } from '../cmdutil/registry.js';
import { EVENT_TYPES } from '../shared/events.js';
import { COUNTRY_CODES } from '../shared/iso.js';

/** Words a value completes from at TAB time (`pay __complete <source>`). */
export type DynamicSource = 'profiles' | 'states';

export interface FlagModel {
  /** The spellings, short first: `['-o', '--output']`. */
  names: string[];
  description: string;
  /** Takes a value (`<x>` or `[x]`): the next word is that value, not a command. */
  takesValue: boolean;
  /** Enum values: commander Option.argChoices, or the suggested values of an open enum (free text allowed). */
  choices?: string[];
  /** The value completes from a dynamic source. */
  dynamic?: DynamicSource;
}

export interface SubcommandModel {
  name: string;
  aliases: string[];
  summary: string;
}

export interface CommandModel {
  /** Words from the program to this command; `[]` is the program itself. */
  path: string[];
  summary: string;
  subcommands: SubcommandModel[];
  /** The command's own flags (its help flag too). Global flags are in CompletionModel.globalFlags. */
  flags: FlagModel[];
  /** Declares positional arguments (ids and the like: nothing is offered for them). */
  takesArguments: boolean;
  /** Its first positional argument completes from a dynamic source (`pay profiles use <name>`). */
  argumentDynamic?: DynamicSource;
  /** Its first positional argument is one of these (`pay completion <shell>`). */
  argumentChoices?: string[];
}

export interface CompletionModel {
  program: string;
  /** The program's options: valid at any depth (commander parses them wherever they appear). */
  globalFlags: FlagModel[];
  /** Every visible command, depth first, the program first. */
  commands: CommandModel[];
  /** Things in the tree a user would notice in completion (no summary, a flag shadowed by a global flag). */
  warnings: string[];
}

/** Flags whose value is a profile name. */
const PROFILE_FLAGS = new Set(['--profile']);
/** Commands whose first argument is a profile name. */
const PROFILE_ARGUMENT_COMMANDS = new Set(['profiles show', 'profiles use', 'profiles remove']);
/** Values of a first argument that commander does not check itself (run.ts checks, for one error line). */
const ARGUMENT_CHOICES: Readonly<Record<string, readonly string[]>> = { completion: Object.keys(SCRIPT_FILES), trigger: EVENT_TYPES };
/** Program options that are not global flags: --version is offered at the top only; every command has its own --help. */
const ROOT_ONLY = new Set(['--version', '--help']);

/**
 * Words the scripts embed. They are written inside single quotes and split on blanks at TAB time,
 * so they must not hold blanks, quotes, glob or expansion characters.
 */
const SAFE_WORD = /^[A-Za-z0-9_@%+,./-]+$/;

function checkWord(word: string, what: string): string {
  if (!SAFE_WORD.test(word)) throw new Error(`completion: ${what} "${word}" has characters the shell scripts cannot embed safely`);
  return word;
}

function oneLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

/** The spec of a verb's flag (commander does not hold its kind or an open enum's suggestions). */
function specFlag(cmd: Command, opt: Option) {
  const flags = specOf.get(cmd)?.verb?.flags ?? [];
  return flags.find((f) => opt.long !== undefined && f.flags.split(/[\s,]+/).includes(opt.long));
}

/** Suggested values of open enums (`customers create --type`), and ISO 3166-1 codes for a country. */
function openChoices(cmd: Command, opt: Option): readonly string[] | undefined {
  const spec = specFlag(cmd, opt);
  if (spec?.kind === 'country') return [...COUNTRY_CODES].sort();
  return spec?.open && spec.choices?.length ? spec.choices : undefined;
}

function flagModel(opt: Option, where: string, cmd?: Command): FlagModel {
  const names = [opt.short, opt.long].filter((n): n is string => !!n).map((n) => checkWord(n, `flag of ${where}`));
  const flag: FlagModel = { names, description: oneLine(opt.description), takesValue: opt.required || opt.optional };
  const choices = opt.argChoices?.length ? opt.argChoices : cmd ? openChoices(cmd, opt) : undefined;
  if (flag.takesValue && choices?.length) flag.choices = choices.map((c) => checkWord(c, `value of ${names.join('/')} in ${where}`));
  if (flag.takesValue && names.some((n) => PROFILE_FLAGS.has(n))) flag.dynamic = 'profiles';
  // ISO 3166-2 codes of the country on the command line: `pay __complete states <words>`.
  if (flag.takesValue && cmd && specFlag(cmd, opt)?.kind === 'state') flag.dynamic = 'states';
  return flag;
}

export function buildModel(program: Command): CompletionModel {
  const help = program.createHelp();
  const warnings: string[] = [];
  const rootOptions = help.visibleOptions(program);
  const globalFlags = rootOptions.filter((o) => !ROOT_ONLY.has(o.long ?? '')).map((o) => flagModel(o, program.name()));
  const globalNames = new Set(globalFlags.flatMap((f) => f.names));
  const commands: CommandModel[] = [];

  const visit = (cmd: Command, path: string[]): void => {
    const where = path.length ? `${program.name()} ${path.join(' ')}` : program.name();
    // visibleCommands adds commander's implicit `help` command to groups; only declared commands are offered.
    const subs = help.visibleCommands(cmd).filter((c) => cmd.commands.includes(c));
    const own = path.length === 0 ? rootOptions.filter((o) => ROOT_ONLY.has(o.long ?? '')) : help.visibleOptions(cmd);
    const flags: FlagModel[] = [];
    for (const opt of own) {
      const f = flagModel(opt, where, cmd);
      const shadowed = f.names.filter((n) => globalNames.has(n));
      if (shadowed.length) {
        // The program parses its own options wherever they appear, so this one never gets them.
        warnings.push(
          `${where}: ${shadowed.join(', ')} is also a global flag; the global one wins (left out of completion for this command)`,
        );
        f.names = f.names.filter((n) => !globalNames.has(n));
        if (!f.names.length) continue;
      }
      flags.push(f);
    }
    const model: CommandModel = {
      path,
      summary: oneLine(help.subcommandDescription(cmd)),
      subcommands: subs.map((c) => ({
        name: checkWord(c.name(), `command in ${where}`),
        aliases: c.aliases().map((a) => checkWord(a, `alias in ${where}`)),
        summary: oneLine(help.subcommandDescription(c)),
      })),
      flags,
      takesArguments: cmd.registeredArguments.length > 0,
    };
    const key = path.join(' ');
    if (PROFILE_ARGUMENT_COMMANDS.has(key) && model.takesArguments) model.argumentDynamic = 'profiles';
    const argChoices = cmd.registeredArguments[0]?.argChoices ?? (model.takesArguments ? ARGUMENT_CHOICES[key] : undefined);
    if (argChoices?.length) model.argumentChoices = argChoices.map((c) => checkWord(c, `argument value of ${where}`));
    for (const s of model.subcommands) if (!s.summary) warnings.push(`${where} ${s.name}: no summary (completion shows no description)`);
    for (const f of flags) if (!f.description) warnings.push(`${where}: ${f.names.join(', ')} has no description`);
    commands.push(model);
    for (const c of subs) visit(c, [...path, c.name()]);
  };
  visit(program, []);
  for (const f of globalFlags) if (!f.description) warnings.push(`${program.name()}: global ${f.names.join(', ')} has no description`);
  return { program: checkWord(program.name(), 'program name'), globalFlags, commands, warnings };
}

/** `cards issue` → the command model (`''` is the program). */
export function commandAt(model: CompletionModel, path: string): CommandModel | undefined {
  return model.commands.find((c) => c.path.join(' ') === path);
}
