// The output options every printing command shares (--json, -o, --fields, --no-header, --jq, --wide),
// checked and resolved once per command by the dispatcher (src/cmdutil/dispatch.ts) into
// ctx.output. Light on purpose: resolving them loads no printer (chalk loads with
// output.ts) and no jq (src/io/jq.ts loads, and checks the filter, only when --jq is given).
import { UsageError } from '../lib/errors.js';
import { parseFieldList } from './fields.js';
import type { IOStreams } from './iostreams.js';
import { resolveTimeView, type TimeView } from './time.js';

import { OUTPUT_FORMATS, type OutputFormat } from './formats.js';

export { OUTPUT_FORMATS, type OutputFormat };

export interface OutputFlags {
  json?: boolean;
  output?: string;
  /** A list of names, or `true` when --fields was given without names (list the fields). */
  fields?: string | boolean;
  header?: boolean;
  jq?: string;
  /** Tables on a terminal: every column, not fitted to its width. */
  wide?: boolean;
}

/** A jq filter, checked (compiled) before anything was sent: src/io/jq.ts. */
export interface JqFilter {
  readonly expr: string;
  /** Runs the filter over one JSON text and writes what jq prints (raw strings unquoted); a jq error is a PayError (exit 1) after it. */
  run(json: string, write: (text: string) => void): void;
}

export interface OutputSettings {
  format: OutputFormat;
  fields: string[] | undefined;
  header: boolean;
  /** --fields without names: the command lists its fields instead of running. */
  listFields?: boolean;
  /** --jq's filter (format is json); loaded and checked by the dispatcher. */
  jq?: JqFilter | undefined;
  /**
   * --wide: a table on a terminal shows every column at its full width (long lines wrap) instead
   * of fitting the terminal. No effect on other formats, or off a terminal (tables are whole there).
   */
  wide?: boolean;
  /** How tables, get views and pickers show times (src/io/time.ts); unset: UTC with its `Z`. */
  time?: TimeView;
  /** The pager's command for a table or get view longer than the terminal (src/io/pager.ts); unset: none. */
  pager?: string;
  /** --quiet / PAY_QUIET: no notes on stderr about the data. */
  quiet?: boolean;
  /**
   * Names beside ids (a customer's name, an account's nickname) looked up for a table or get view
   * (src/io/output.ts): only the table format (a terminal, or `-o table`), never --jq; off with
   * --no-names or PAY_NAMES=0.
   */
  names?: boolean;
}

/** The global flags and environment that say how output is shown to people (issue 28). */
export interface PeopleFlags {
  flags: { pager?: boolean; quiet?: boolean; time?: string; names?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Set to `0`, `false`, `off` or `no`: a variable that turns something off. */
export function envOff(value: string | undefined): boolean {
  return value !== undefined && ['0', 'false', 'off', 'no'].includes(value.trim().toLowerCase());
}

/** Set and not `0`/`false`. */
export function envOn(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * The pager's command: none with --no-pager or `PAY_PAGER=` (empty); else PAY_PAGER, then PAGER
 * (empty: the default), then `less -FRX`. Whether it runs is the printer's (a terminal, a view).
 */
export function pagerCommand(people: PeopleFlags): string | undefined {
  if (people.flags.pager === false) return undefined;
  const { PAY_PAGER, PAGER } = people.env;
  if (PAY_PAGER !== undefined) return PAY_PAGER.trim() === '' ? undefined : PAY_PAGER;
  if (PAGER !== undefined && PAGER.trim() !== '') return PAGER;
  return 'less -FRX';
}

/**
 * Whether a pager was started in this process: src/io/pager.ts sets it when it starts one, and the
 * dispatcher (src/cmdutil/dispatch.ts), which has this module loaded already, loads the pager to
 * wait for it only then.
 */
export const pagerState = { started: false };

/**
 * The output flags as given → the settings, or a UsageError (exit 2) naming the flag. `formats`:
 * what -o accepts for this command (default: every format).
 */
export function resolveOutput(
  flags: OutputFlags,
  io: IOStreams,
  formats: readonly OutputFormat[] = OUTPUT_FORMATS,
  people?: PeopleFlags,
): OutputSettings {
  let format: OutputFormat;
  const jq = typeof flags.jq === 'string';
  if (flags.json) {
    if (flags.output && flags.output !== 'json') throw new UsageError(`--json conflicts with --output ${flags.output}`);
    format = 'json';
  } else if (flags.output) {
    if (!(formats as readonly string[]).includes(flags.output)) {
      throw new UsageError(`invalid --output "${flags.output}" (choose from ${formats.join(', ')})`);
    }
    format = flags.output as OutputFormat;
    if (jq && format !== 'json')
      throw new UsageError(`--jq filters JSON: it cannot be used with --output ${format} (drop -o, or use -o json)`);
  } else {
    format = jq ? 'json' : io.stdoutIsTTY ? 'table' : 'tsv';
  }
  let fields: string[] | undefined;
  let listFields = false;
  if (flags.fields === true) listFields = true;
  else if (typeof flags.fields === 'string') {
    try {
      fields = parseFieldList(flags.fields);
    } catch (err) {
      throw new UsageError(`--fields: ${(err as Error).message}`);
    }
    // `--fields ""` (an unset variable in a script) is a mistake, not a request for the list: that is bare --fields.
    if (fields.length === 0) throw new UsageError('--fields needs at least one field name (bare --fields lists them)');
  }
  // Times, the pager and notes (the global --time, --no-pager, --quiet): a bad --time is exit 2 here too.
  const time = people ? resolveTimeView(people.flags.time, people.env) : undefined;
  // The pager only for what people read on a terminal: a table or a get view (never --json, --jq, -o).
  const pager = people && format === 'table' && !flags.output && io.stdoutIsTTY ? pagerCommand(people) : undefined;
  const quiet = people ? people.flags.quiet === true || envOn(people.env.PAY_QUIET) : false;
  // Names beside ids: for people only (a table, never --jq), unless --no-names or PAY_NAMES=0.
  const names = people !== undefined && format === 'table' && !jq && people.flags.names !== false && !envOff(people.env.PAY_NAMES);
  return {
    format,
    fields,
    header: flags.header !== false,
    ...(listFields ? { listFields } : {}),
    ...(flags.wide === true ? { wide: true } : {}),
    ...(time ? { time } : {}),
    ...(pager ? { pager } : {}),
    ...(quiet ? { quiet } : {}),
    ...(names ? { names } : {}),
  };
}
