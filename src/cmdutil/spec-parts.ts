// The parts resource groups declare alike (src/commands/<group>/index.ts): table columns written
// as one line of text, the picker of an id argument, and the list and get verbs, so that each
// group writes only what differs. On the start-up path: small builders of data.
import type { Column, ColumnKind, TableColumn } from '../io/output.js';
import { CREATED_RANGE, CREATED_RANGE_CHECK, type FlagSpec, type PickSpec, type VerbDecl } from './spec.js';

const KINDS: readonly string[] = ['text', 'id', 'money', 'number', 'status', 'time'] satisfies ColumnKind[];

/**
 * Columns from `HEADER path [priority] [kind] [@currency-path] [~failure_reason]`, separated by commas:
 * `'ID id 1, AMOUNT amount 2 money @asset, CREATED created_at 6 time'`. The header is the leading
 * words in capitals (`FIRST NAME`); a word it does not know is a mistake of the declaration (thrown).
 */
export function shown(spec: string): Column[] {
  return spec.split(',').map((part) => {
    const words = part.trim().split(/\s+/);
    const at = words.findIndex((w) => !/^[A-Z][A-Z0-9]*$/.test(w));
    const [path, ...rest] = words.slice(at);
    if (at < 1 || !path) throw new Error(`column "${part.trim()}": HEADER path [priority] [kind] [@currency-path]`);
    const column: Column = { header: words.slice(0, at).join(' '), path };
    for (const w of rest) {
      if (/^\d+$/.test(w)) column.priority = Number(w);
      else if (KINDS.includes(w)) column.kind = w as ColumnKind;
      else if (/^@\S+$/.test(w)) column.currencyPath = w.slice(1);
      else if (w === '~failure_reason') column.meaning = 'failure_reason';
      else throw new Error(`column "${part.trim()}": no such word "${w}"`);
    }
    return column;
  });
}

/** A table's columns (see `shown`), each with its priority stated. */
export function columns(spec: string): TableColumn[] {
  return shown(spec).map((c) => {
    if (c.priority === undefined) throw new Error(`column ${c.header}: no priority`);
    return c as TableColumn;
  });
}

/**
 * The picker of an id argument left out on a terminal: the most recent objects of `list`, showing
 * `show`; with `from`, only those in these states (one state is also the list's filter).
 */
export function pickOf(list: string, what: string, show: string, from?: readonly string[]): PickSpec {
  return {
    list,
    ...(from?.length === 1 ? { query: { status: from[0]! } } : {}),
    ...(from ? { where: { status: from } } : {}),
    show: shown(show),
    what,
  };
}

/** The filter flag every list with a state takes. */
export const STATUS_FILTER: FlagSpec = { flags: '--status <status>', query: 'status', description: 'only this status' };

/** A list verb (`list<Schema>s`): its filters, then the created range (--since, --until), checked. */
export function listVerb(schema: string, summary: string, examples: string[], filters: FlagSpec[]): VerbDecl {
  return {
    name: 'list',
    summary,
    examples,
    operationId: `list${schema}s`,
    flags: [...filters, ...CREATED_RANGE],
    constraints: [CREATED_RANGE_CHECK],
    jsonShape: `an array of ${schema} objects`,
  };
}

/** A get verb (`get<Schema>`) of one object by its id argument. */
export function getVerb(schema: string, arg: NonNullable<VerbDecl['arg']>, summary: string, examples: string[]): VerbDecl {
  return { name: 'get', arg, summary, examples, operationId: `get${schema}`, jsonShape: `the ${schema} object` };
}

/** The `<id>` argument of a verb on one object: `idArg('transfer', 'tr_')` is a transfer id (tr_…). */
export function idArg(noun: string, idPrefix: string, pick?: PickSpec): NonNullable<VerbDecl['arg']> {
  return { name: '<id>', description: `${noun} id (${idPrefix}…)`, idPrefix, ...(pick ? { pick } : {}) };
}
