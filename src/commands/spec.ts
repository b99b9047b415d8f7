// Resource commands as data (the Stripe CLI idea, without its global state): each group
// declares its verbs, the operation each calls, its flags and its table columns; one generic
// executor (execute.ts, loaded lazily) runs them. Hand-written verbs set `impl`.
// This file is on the start-up path: data and types only.
import type { Column } from '../io/output.js';

export type FlagKind =
  | 'string'
  | 'enum'
  | 'id'
  | 'email'
  | 'phone'
  | 'date'
  | 'datetime'
  | 'country'
  | 'state'
  | 'amount'
  | 'currency'
  | 'int'
  | 'bool'
  | 'url';

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
}

export type VerbKind = 'create' | 'list' | 'get' | 'update' | 'action' | 'delete' | 'custom';

export interface VerbSpec {
  name: string;
  /** Positional argument, e.g. `<id>`; its value fills the path parameter. */
  arg?: { name: string; description: string; idPrefix?: string };
  summary: string;
  description?: string;
  examples: string[];
  /** The contract operation (its operationId), `METHOD /path/{param}`. */
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  kind: VerbKind;
  flags?: FlagSpec[];
  /** Money-moving or destructive: confirm on a terminal in live mode, --yes otherwise. */
  confirmLive?: boolean;
  /** Takes --data (create/update/action with a body). */
  body?: boolean;
  /** Needs x-tenant-id before anything is sent. */
  requireTenant?: boolean;
  deprecated?: { use: string };
  /** A one-line description of what --json prints (documented JSON shape). */
  jsonShape: string;
  /** Hand-written implementation; receives the same context as the generic executor. */
  impl?: () => Promise<{ run: VerbRun }>;
  hidden?: boolean;
}

export interface GroupSpec {
  name: string;
  summary: string;
  description?: string;
  /** Singular noun for messages (`customer`). */
  noun: string;
  /** Default table columns, in order. */
  columns: Column[];
  verbs: VerbSpec[];
  deprecated?: { use: string };
}

export interface VerbContext {
  group: GroupSpec;
  verb: VerbSpec;
  argValue: string | undefined;
  /** The verb's own options (commander camelCase). */
  opts: Record<string, unknown>;
}

export type VerbRun = (f: import('../lib/factory.js').Factory, ctx: VerbContext) => Promise<void>;

/** The output flags every data-printing verb takes. */
export const OUTPUT_FLAGS = {
  json: '--json',
  output: '-o, --output <format>',
  fields: '--fields <list>',
  noHeader: '--no-header',
} as const;

export function camel(flag: string): string {
  const long = /--([a-z0-9-]+)/.exec(flag)?.[1] ?? flag;
  return long.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
