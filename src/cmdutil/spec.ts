// Resource commands as data (the Stripe CLI idea, without its global state): each group
// declares its verbs, the operation each calls, its flags and its table columns; one generic
// executor (src/verbs/run.ts, loaded lazily) runs them. Hand-written verbs set `impl`.
// This file is on the start-up path: data and types only.
import type { Column, SubTable, TableColumn } from '../io/output.js';
import type { CommandDecl } from './decl.js';
import type { OutputFormat } from '../io/formats.js';
import type { OutputSettings } from '../io/output-options.js';
import { flagsOf, VERB_FLAGS } from './global-flags.js';

export type SubTableSpec = SubTable;

export type FlagKind =
  | 'string'
  | 'enum'
  | 'id'
  | 'email'
  | 'phone'
  | 'date'
  /** A created_at bound of a list filter: YYYY-MM-DD, RFC 3339, or a duration back from now (2h, 1h30m, 7d; src/shared/duration.ts); sent as the API's date or time. */
  | 'datetime'
  | 'country'
  | 'state'
  | 'amount'
  | 'currency'
  | 'int'
  | 'bool'
  | 'url'
  /** RFC 3339 date-time only (2026-01-31T12:00:00Z), e.g. an expiry. */
  | 'timestamp'
  /** A positive decimal without a known currency (up to 18 decimals), e.g. a card spending limit. */
  | 'decimal';

export interface FlagSpec {
  /** Commander syntax: `--first-name <name>`; booleans have no argument. */
  flags: string;
  description: string;
  /** Dotted path in the JSON body (`address.city`) for create/update/action verbs. */
  field?: string;
  /** Query parameter name for list filters. */
  query?: string;
  kind?: FlagKind;
  choices?: readonly string[];
  /** Free text allowed besides the choices (offered, not enforced). */
  open?: boolean;
  /** Id prefix for kind `id` (`cus_`), or several (`acc_|ea_`). */
  idPrefix?: string;
  /** Required when the verb runs (before --data is merged, the check is on the merged body). */
  required?: boolean;
  /** For kind `amount`: the flag (camelCase option) holding the currency. */
  currencyFrom?: string;
  /** For kind `amount`: where the currency is in the body when it came through --data (default: `currency` beside the amount). */
  currencyField?: string;
  /** The value fills this path parameter (`customers/{customer_id}/features/{feature}`); required. */
  pathParam?: string;
  /** Comma-separated values (`EUR,GBP`), each checked by the kind; sent joined with commas. */
  list?: boolean;
  /** The flag may be given more than once; the option is an array (for hand-written verbs). */
  repeatable?: boolean;
  /**
   * Default value, shown in help. A body field gets it when neither the flag nor --data gave one;
   * hand-written verbs apply their own flags' defaults.
   */
  default?: string;
}

/**
 * Checks across fields, run on the merged body (or, for GET verbs, the query) before anything is
 * sent. Names are body paths (`mobile_money.phone`) or query names; messages name the flags.
 */
export type Constraint =
  /** Exactly one of these must be present. */
  | { kind: 'exactlyOne'; fields: string[] }
  /** All or none of these. */
  | { kind: 'together'; fields: string[] }
  /** When `field` has one of `values`, each of `require` must be present. */
  | { kind: 'requiredWhen'; field: string; values: readonly string[]; require: string[] }
  /** `field`'s value allows only these values of `other` (e.g. asset → networks). */
  | { kind: 'pairs'; field: string; other: string; allowed: Readonly<Record<string, readonly string[]>> }
  /** Dates or times: `from` strictly before `to` when both are present. */
  | { kind: 'before'; from: string; to: string }
  /**
   * An object the API takes whole (PATCH replaces it, no merge): when any field of `object` is
   * given, each of `require` (its required fields) must be too, its optional ones alone are not enough.
   */
  | { kind: 'whole'; object: string; require: string[] }
  /** These fields must not have the same value (a transfer from an account to itself). */
  | { kind: 'differ'; fields: [string, string] };

/**
 * What an id argument can name, for the picker: on a terminal, a verb run without its id offers
 * the most recent objects of this list that the verb can act on (src/verbs/pick.ts).
 */
export interface PickSpec {
  /** The list operation's path (`transfers`, `webhooks/events`). */
  list: string;
  /** Filters the list operation takes, sent with it (`{ status: 'pending' }`). */
  query?: Readonly<Record<string, string>>;
  /** Only objects whose field (dotted path) has one of these values; checked on what came back. */
  where?: Readonly<Record<string, readonly string[]>>;
  /** Only objects whose amounts here (dotted paths to decimal strings) are zero: an account that can be closed holds nothing. */
  zero?: readonly string[];
  /** What an entry shows after the id and before the time: columns of the object (kinds as in tables). */
  show: readonly Column[];
  /** The objects offered, in the plural, for the prompt and the empty line: `pending transfers`. */
  what: string;
  /** The list needs x-tenant-id (accounts). */
  requireTenant?: boolean;
}

/**
 * What `--wait` waits for (src/verbs/wait.ts): the object a create or action answers settles
 * later. The verb gets --wait and --wait-timeout; with --wait, pay polls the object until its
 * status leaves `pending`: exit 0 in a `success` state, 1 in a `failure` state or at the timeout.
 */
export interface WaitSpec {
  /** A verb in the infinitive, after "Waiting for <noun> <id> to …" and "wait for it to …" in help: `settle`, `be decided`. */
  until: string;
  /** The object's type, for error codes (`transfer_failed`) and details (`{transfer: …}`). */
  object: string;
  /** How messages name it (default: the object's type with spaces): `KYC verification`. */
  noun?: string;
  /** The polled object's id prefix: every answer waited on must be that object. */
  idPrefix: string;
  /**
   * The path polled, filled from the verb's answer: `transfers/{id}`, `customers/{customer_id}/kyc`.
   * Each `{field}` must be an id-like value of the answer.
   */
  poll: string;
  /**
   * The answer's field holding the polled object's id (default `id`: the answer is the object).
   * Otherwise (a KYC document answers; its verification settles) pay polls at once.
   */
  idField?: string;
  /** Dotted path of the status (default `status`). */
  statusField?: string;
  pending: readonly string[];
  success: readonly string[];
  failure: readonly string[];
  /** Dotted path of the reason a failure gives (`failure_reason`). */
  reasonField?: string;
  /** The command that shows it, filled from the polled object: `pay transfers get {id}`. */
  show: string;
  /**
   * A pending answer whose `field` is null will not move by itself (an event's delivery with no
   * attempt scheduled: no webhook URL): `note` is said at once on stderr, then pay waits as asked.
   */
  stalled?: { field: string; note: string };
  /**
   * Dotted path of a count the verb raises later (an event's `delivery.attempts` after a resend): a
   * polled answer settles only once that count exceeds its value in the verb's answer, so an
   * earlier attempt (one in flight when the resend was accepted) is never taken for the one asked for.
   */
  after?: string;
}

export type VerbKind = 'create' | 'list' | 'get' | 'update' | 'action' | 'delete' | 'custom';

export interface VerbSpec {
  name: string;
  /**
   * Positional argument, e.g. `<id>`: its value fills the first path parameter no flag fills, or,
   * with `field`, a body field (`customer_id` of the deprecated KYC POSTs).
   */
  arg?: { name: string; description: string; idPrefix?: string; field?: string; pick?: PickSpec };
  /** Other names commander accepts for the verb. */
  aliases?: string[];
  summary: string;
  description?: string;
  examples: string[];
  /** The contract operation (its operationId), `METHOD /path/{param}`. */
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  kind: VerbKind;
  /**
   * A create's object, by its id prefix (`cus_`): a 2xx whose object carries another kind's id is
   * not the object asked for (exit 1). Every create declares it; test/contract/creates.test.ts
   * checks it against the id pattern of the operation's answer in the contract.
   */
  creates?: string;
  flags?: FlagSpec[];
  /** Takes --data (create/update/action with a body). */
  body?: boolean;
  /** Needs x-tenant-id before anything is sent. */
  requireTenant?: boolean;
  deprecated?: { use: string };
  /** Cross-field checks before sending (see Constraint). */
  constraints?: Constraint[];
  /** Table columns for this verb's objects when they differ from the group's (a quote among trades). */
  columns?: TableColumn[];
  /** On a terminal, arrays in the object shown as tables under the key/value view (a KYC check's documents). */
  tables?: SubTable[];
  /** Singular noun for this verb's object when it differs from the group's (`FX quote`). */
  noun?: string;
  /** Past tense for the success line (`Froze`); default: the verb name + "d"/"ed". */
  done?: string;
  /** A one-line description of what --json prints (documented JSON shape). */
  jsonShape: string;
  /** The object it answers settles later: the verb takes --wait and --wait-timeout (WaitSpec). */
  wait?: WaitSpec;
  /** Hand-written implementation; receives the same context as the generic executor. */
  impl?: () => Promise<{ run: VerbRun }>;
  /** Its `impl` asks for what is missing as the generic create does (src/verbs/ask.ts): it takes --yes and --interactive too. */
  asks?: boolean;
  hidden?: boolean;
  /** Runs locally and calls no operation (operationId and path are empty), e.g. webhooks verify. */
  offline?: boolean;
  /** What -o accepts when the verb cannot print every format (webhooks listen: its lines, or JSON lines); default every one. */
  formats?: readonly OutputFormat[];
  /**
   * Calls several operations through its `impl` (customers overview); `operationId` and `path`
   * name the one about its argument, which other verbs may also call.
   */
  composite?: boolean;
  /**
   * A composite verb's answer, which no one operation gives: its top-level keys, each the answer
   * of an operation (its fields are the key's dotted paths: `customer.email`), `*` for a map (any
   * name below it) or null for a leaf (an array). --fields is checked against it and lists it.
   */
  answer?: Readonly<Record<string, string | null>>;
}

/**
 * What the contract says of one parameter of an operation (a body field, a query or a path
 * parameter), as src/scripts/operation-facts.ts reads it: written by `npm run generate` into
 * src/commands/<group>/operations.ts.
 */
export interface ParamFacts {
  readonly required?: boolean;
  readonly kind?: FlagKind;
  readonly choices?: readonly string[];
  readonly idPrefix?: string;
}

/** What the contract says of one operation, for the verb that names it (its operationId). */
export interface OperationFacts {
  readonly method: VerbSpec['method'];
  /** Under /v1/, without the leading slash: `transfers/{transfer_id}/cancel`. */
  readonly path: string;
  readonly kind: VerbKind;
  /** A create's object, by the id prefix of its answer. */
  readonly creates?: string;
  readonly requireTenant?: boolean;
  /** Takes a request body with fields (not the empty body of an action). */
  readonly body?: boolean;
  readonly pathParams?: Readonly<Record<string, ParamFacts>>;
  readonly query?: Readonly<Record<string, ParamFacts>>;
  /** Body fields by dotted path (`address.city`). */
  readonly fields?: Readonly<Record<string, ParamFacts>>;
}

export interface GroupSpec {
  name: string;
  summary: string;
  description?: string;
  /** Singular noun for messages (`customer`). */
  noun: string;
  /** Shown under the group's help (`pay customers --help`): at least two, each a whole command line. */
  examples: string[];
  /**
   * Default table columns, in order, each with its priority for fitting the terminal (1 kept
   * longest; the highest number hidden first). The first priority is the column people copy (the id).
   */
  columns: TableColumn[];
  verbs: VerbSpec[];
  /** Tooling commands of the group that call no API operation (webhooks verify, listen), after its verbs. */
  commands?: readonly CommandDecl[];
  deprecated?: { use: string };
}

/**
 * A verb as its group's index.ts declares it: the operation it calls (`operationId`) and what the
 * contract cannot say; `fromContract` adds the method, path and kind from the operation. A verb
 * that calls no operation (`offline`) names its own.
 */
export type VerbDecl = Omit<VerbSpec, 'method' | 'path' | 'kind'> & { kind?: VerbKind } & (
    { offline?: false; method?: never; path?: never } | { offline: true; method: VerbSpec['method']; path: ''; kind: VerbKind }
  );

/** A group as its index.ts declares it (see VerbDecl). */
export type GroupDecl = Omit<GroupSpec, 'verbs'> & { verbs: VerbDecl[] };

/** A flag with what the contract says of its parameter, where the flag says nothing itself. */
function flagFromContract(flag: FlagSpec, op: OperationFacts): FlagSpec {
  const facts = flag.field
    ? op.fields?.[flag.field]
    : flag.query
      ? op.query?.[flag.query]
      : flag.pathParam
        ? op.pathParams?.[flag.pathParam]
        : undefined;
  if (!facts) return flag;
  const derived: Partial<FlagSpec> = {};
  if (flag.kind === undefined && facts.kind) derived.kind = facts.kind;
  if (flag.choices === undefined && facts.choices) derived.choices = facts.choices;
  if (flag.idPrefix === undefined && facts.idPrefix) derived.idPrefix = facts.idPrefix;
  // A path parameter's flag is required by being one; a flag with a default always has a value.
  if (flag.required === undefined && facts.required && !flag.pathParam && flag.default === undefined) derived.required = true;
  return { ...flag, ...derived };
}

/**
 * A group's spec from its declaration and its operations' facts (src/commands/<group>/operations.ts,
 * generated from the contract by `npm run generate`): each verb gets its operation's method, path
 * and kind, whether it creates (`creates`), needs x-tenant-id and takes a body, and each flag the
 * required, kind, choices and id prefix of the parameter it fills, unless the declaration says
 * otherwise. Cheap (no contract is read when pay runs): data in, data out.
 */
export function fromContract(ops: Readonly<Record<string, OperationFacts>>, group: GroupDecl): GroupSpec {
  const verbs = group.verbs.map((decl): VerbSpec => {
    if (decl.offline) return decl;
    const op = ops[decl.operationId];
    if (!op)
      throw new Error(
        `${group.name} ${decl.name}: no operation ${decl.operationId} in src/commands/${group.name}/operations.ts (npm run generate)`,
      );
    const verb: VerbSpec = { ...decl, method: op.method, path: op.path, kind: decl.kind ?? op.kind };
    if (verb.creates === undefined && op.creates && verb.kind === 'create') verb.creates = op.creates;
    if (verb.requireTenant === undefined && op.requireTenant) verb.requireTenant = true;
    if (verb.body === undefined && op.body) verb.body = true;
    if (decl.flags) verb.flags = decl.flags.map((f) => flagFromContract(f, op));
    return verb;
  });
  return { ...group, verbs };
}

export interface VerbContext {
  group: GroupSpec;
  verb: VerbSpec;
  argValue: string | undefined;
  /** The verb's own options (commander camelCase). */
  opts: Record<string, unknown>;
  /** The output flags, checked and resolved once (src/cmdutil/dispatch.ts). */
  output: OutputSettings;
}

export type VerbRun = (f: import('./factory.js').Factory, ctx: VerbContext) => Promise<void>;

/**
 * The created_at range of a list (the API's `from` and `to`, on every list of objects): spread
 * into a list verb's flags, with CREATED_RANGE_CHECK in its constraints.
 */
export const CREATED_RANGE: readonly FlagSpec[] = [
  {
    flags: '--since <time>',
    query: 'from',
    kind: 'datetime',
    description: 'created at or after: YYYY-MM-DD, RFC 3339, or a duration back from now (30m, 2h, 1h30m, 7d, 2w)',
  },
  {
    flags: '--until <time>',
    query: 'to',
    kind: 'datetime',
    description: 'created before (exclusive): YYYY-MM-DD, RFC 3339, or a duration back from now',
  },
];
export const CREATED_RANGE_CHECK: Constraint = { kind: 'before', from: 'from', to: 'to' };

/** How long --wait-timeout lets a wait last when it is not given. */
export const DEFAULT_WAIT_TIMEOUT_S = 120;

/**
 * --wait-timeout, declared once for every command that takes it: the verbs with --wait
 * (registry.ts addWaitOptions) and pay trigger. `bounds`: what it bounds, the help's first words.
 * Its value is checked by waitTimeoutSeconds (src/verbs/wait.ts).
 */
export function waitTimeoutOption(bounds: string): { flags: string; description: string } {
  return {
    flags: '--wait-timeout <seconds>',
    description: `${bounds}: give up after this many seconds (default: ${DEFAULT_WAIT_TIMEOUT_S})`,
  };
}

/** The output flags every data-printing verb takes (declared with the global flags: global-flags.json). */
export const OUTPUT_FLAGS = {
  json: flagsOf(VERB_FLAGS.json),
  output: flagsOf(VERB_FLAGS.output),
  fields: flagsOf(VERB_FLAGS.fields),
  noHeader: flagsOf(VERB_FLAGS.noHeader),
  jq: flagsOf(VERB_FLAGS.jq),
  wide: flagsOf(VERB_FLAGS.wide),
  dryRun: flagsOf(VERB_FLAGS.dryRun),
};

// Called per flag per row by bulk creates (values.ts); its inputs are the specs' flag strings.
const camelNames = new Map<string, string>();

export function camel(flag: string): string {
  let name = camelNames.get(flag);
  if (name === undefined) {
    const long = /--([a-z0-9-]+)/.exec(flag)?.[1] ?? flag;
    name = long.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    camelNames.set(flag, name);
  }
  return name;
}
