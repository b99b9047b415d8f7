// The resource-verb dispatcher: the deprecation warning, the checks every verb shares, then bulk
// (--from-file), the verb's own implementation (`impl`), or the generic executor below: list
// (pages, printed as they come) or one request (validated, confirmed in live mode, sent, printed).
import { Printer, type Column } from '../io/output.js';
import type { Factory } from '../cmdutil/factory.js';
import { camel, type VerbContext, type VerbSpec } from '../cmdutil/spec.js';
import { attachFlags, checkConstraints } from './constraints.js';
import {
  checkCommonOptions,
  checkInteractive,
  clientNeeds,
  columnsOf,
  confirmLive,
  nounOf,
  plural,
  prepare,
  sendAndPrint,
} from './steps.js';
import { buildListQuery, fillPath } from './values.js';

/** Runs a verb with the entry's Factory and a context whose output flags are resolved (src/cmdutil/dispatch.ts; tests pass their own). */
export async function runVerb(f: Factory, given: VerbContext): Promise<void> {
  let ctx = given;
  const { group, verb } = ctx;
  const deprecated = verb.deprecated ?? group.deprecated;
  if (deprecated) {
    f.io.err(`warning: "pay ${group.name} ${verb.name}" uses a deprecated API; use "${deprecated.use}" instead\n`);
  }
  // Here, once for every path (bulk, a verb's own implementation, the generic one).
  checkCommonOptions(ctx);
  checkInteractive(f, ctx);
  if (verb.arg && ctx.argValue === undefined) {
    // Left out: on a terminal, picked from a list (verb.arg.pick); otherwise exit 2 naming it.
    const { pickArgument } = await import('./pick.js');
    ctx = { ...ctx, argValue: await pickArgument(f, ctx) };
  }
  if (ctx.opts.fromFile !== undefined && verb.kind === 'create') {
    const { runBulkVerb } = await import('./bulk.js');
    return runBulkVerb(f, ctx);
  }
  if (verb.impl) {
    const mod = await verb.impl();
    return mod.run(f, ctx);
  }
  return runGeneric(f, ctx);
}

/** The generic executor: what a verb without an implementation of its own does. */
export async function runGeneric(f: Factory, given: VerbContext): Promise<void> {
  let ctx = given;
  const { verb } = ctx;
  if (verb.kind === 'list') {
    const path = fillPath(verb, ctx.argValue, ctx.opts);
    const { query, limit, all } = buildListQuery(verb, ctx.opts);
    checkConstraints(verb, query, 'query');
    const client = await f.client(clientNeeds(ctx));
    const printer = new Printer(f.io, ctx.output, askedColumns(verb, ctx.opts, columnsOf(ctx)));
    if (ctx.output.names) printer.useNames((await import('./names.js')).nameSource(client));
    let more = false;
    let count: number;
    try {
      // Each item is checked against the filters asked for (--customer, --account: filteredBy), as a get checks its id.
      count = await printer.printList(
        client.pages(path, query, { limit, all, checkFilters: true, onMore: () => (more = true) }),
        plural(nounOf(ctx)),
      );
    } catch (err) {
      attachFlags(err, verb, 'query');
      throw err;
    }
    // Stopped at its page while the service has more: said on stderr, in a pipe too (stdout stays
    // data). Not with --limit: that count was asked for (`$(pay customers list --limit 1 …)` stays quiet).
    if (more && !all && limit === undefined) printer.noteMore(count, plural(nounOf(ctx)));
    return;
  }
  // On a terminal, what a create or action needs and was not given is asked for (ask.ts).
  if (f.canPrompt && (verb.kind === 'create' || verb.kind === 'action') && verb.body) {
    const { askMissing } = await import('./ask.js');
    ctx = await askMissing(f, ctx);
  }
  const req = await prepare(f, ctx);
  const client = await f.client(clientNeeds(ctx));
  await confirmLive(f, ctx, req, client);
  await sendAndPrint(f, ctx, client, req);
}

/** The query names that bound a list's creation time (`--since`/`--until`, `--from`/`--to`). */
const CREATED_BOUNDS = new Set(['since', 'until', 'from', 'to', 'created_after', 'created_before']);

/**
 * The columns with those the command was asked about marked `keep` (never cut, hidden last): the
 * column of each filter flag given, by its query name (`--email` → `email`, `--status` →
 * `status`), and `created_at` for a time bound (`datetime` flags, `--since`/`--until`). Derived
 * from the verb's flags, so every list gets it. An id filter (`--account acc_…`) is not: an id is
 * never cut anyway, and a column that says the same id on every row keeps its own place rather
 * than push out the amounts.
 */
export function askedColumns(verb: VerbSpec, opts: Record<string, unknown>, columns: readonly Column[]): Column[] {
  const asked = new Set<string>();
  for (const flag of verb.flags ?? []) {
    if (!flag.query || opts[camel(flag.flags)] === undefined) continue;
    const q = flag.query;
    if (flag.kind !== 'id') asked.add(q);
    if (flag.kind === 'datetime' || CREATED_BOUNDS.has(q)) asked.add('created_at');
  }
  return columns.map((c) => (asked.has(c.path) ? { ...c, keep: true } : c));
}
