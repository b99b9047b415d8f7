// The parts resource groups declare alike (src/commands/<group>/index.ts): table columns written
// as one line of text, the picker of an id argument, a group's object (its id argument and example
// id), and the create, list and get verbs, so that each group writes only what differs. On the
// start-up path: small builders of data.
import type { Column, ColumnKind, TableColumn } from '../io/output.js';
import { operationHelp } from '../shared/rules.js';
import {
  CREATED_RANGE,
  CREATED_RANGE_CHECK,
  type FlagSpec,
  type GroupDecl,
  type GroupSpec,
  type OperationFacts,
  type PickSpec,
  type VerbDecl,
  type VerbSpec,
  fromContract,
} from './spec.js';

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

/**
 * A create verb (`create<Schema>`, named `create` unless `name` says otherwise): its help is `about`
 * (what it does), then what the business rules ask of the operation (`operationHelp`).
 */
export function createVerb(
  schema: string,
  decl: Omit<VerbSpec, 'name' | 'operationId' | 'description' | 'method' | 'path' | 'kind' | 'offline'> & { name?: string; about?: string },
): VerbDecl {
  const { name = 'create', summary, about, examples, ...rest } = decl;
  const rules = operationHelp(`create${schema}`);
  const description = about === undefined ? rules : `${about}\n${rules}`;
  return { name, summary, description, examples, operationId: `create${schema}`, ...rest };
}

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

/**
 * The object a resource group is about, declared once: the group's name (the path of its list),
 * its noun, its schema in the contract and its id prefix. Its create, list and get verbs, its `<id>`
 * argument and the id its examples use follow from them (`resourceGroup` adds the name and noun).
 */
export interface GroupObject {
  readonly name: string;
  readonly noun: string;
  readonly schema: string;
  /** An id of its shape for examples: `tr_0123456789abcdefghijklmn`. */
  readonly example: string;
  /** The `<id>` argument, picked from the most recent objects `what` names (`from`: only those in these states). */
  arg(what: string, from?: readonly string[]): NonNullable<VerbDecl['arg']>;
  /** Its create verb (see createVerb). */
  create(decl: Parameters<typeof createVerb>[1]): VerbDecl;
  /** Its list verb: `pay <name> list` first among the examples; the summary `List <name>, newest first` unless given. */
  list(examples: string[], filters: FlagSpec[], summary?: string): VerbDecl;
  /** Its get verb, the argument picked from the most recent of them all. */
  get(summary: string, examples: string[]): VerbDecl;
}

/**
 * A group's object from its noun, which names the rest as the contract does: `payment link` is the
 * group `payment-links` (the path of its list) and the schema `PaymentLink` (`listPaymentLinks`,
 * `getPaymentLink`, `createPaymentLink`). `pick` is the picker's row (see pickOf), or the picker
 * itself where it is not `pickOf` over the list: `groupObject('transfer', 'tr_', 'AMOUNT amount money, …')`.
 */
export function groupObject(
  noun: string,
  idPrefix: string,
  pick: string | ((what: string, from?: readonly string[]) => PickSpec),
): GroupObject {
  const words = noun.split(' ');
  const name = `${words.join('-')}s`;
  const schema = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  const plural = `${noun}s`;
  const arg = (what: string, from?: readonly string[]): NonNullable<VerbDecl['arg']> =>
    idArg(noun, idPrefix, typeof pick === 'string' ? pickOf(name, what, pick, from) : pick(what, from));
  return {
    name,
    noun,
    schema,
    example: `${idPrefix}0123456789abcdefghijklmn`,
    arg,
    create: (decl) => createVerb(schema, decl),
    list: (examples, filters, summary = `List ${plural}, newest first`) =>
      listVerb(schema, summary, [`pay ${name} list`, ...examples], filters),
    get: (summary, examples) => getVerb(schema, arg(plural), summary, examples),
  };
}

/** A resource group about `object` (its name and noun): fromContract with the rest of its declaration. */
export function resourceGroup(
  ops: Readonly<Record<string, OperationFacts>>,
  object: GroupObject,
  decl: Omit<GroupDecl, 'name' | 'noun'>,
): GroupSpec {
  return fromContract(ops, { name: object.name, noun: object.noun, ...decl });
}
