// The resource-verb dispatcher: the deprecation warning, the checks every verb shares, then bulk
// (--from-file), the verb's own implementation (`impl`), or the generic executor below: list
// (pages, printed as they come) or one request (validated, confirmed in live mode, sent, printed).
import { Printer } from '../io/output.js';
import type { Factory } from '../cmdutil/factory.js';
import type { VerbContext } from '../cmdutil/spec.js';
import { attachFlags, checkConstraints } from './constraints.js';
import { checkCommonOptions, clientNeeds, columnsOf, confirmLive, nounOf, plural, prepare, sendAndPrint } from './steps.js';
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
    const printer = new Printer(f.io, ctx.output, columnsOf(ctx));
    try {
      // Each item is checked against the filters asked for (--customer, --account: filteredBy), as a get checks its id.
      await printer.printList(client.pages(path, query, { limit, all, checkFilters: true }), plural(nounOf(ctx)));
    } catch (err) {
      attachFlags(err, verb, 'query');
      throw err;
    }
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
