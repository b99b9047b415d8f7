// The steps of a resource verb, shared by the generic executor (run.ts), bulk creates (bulk.ts)
// and the hand-written verbs (`customers create`): validate and build the query or body (flags
// over --data; values.ts) with the cross-field constraints (constraints.ts), confirm live money
// movements, send, with --wait wait until the object settles (wait.ts), print the answer.
import type { ApiClient, ApiResponse, Expect, Query } from '../api/client.js';
import { escapeText, escapeValue } from '../io/escape.js';
import { getPath } from '../io/fields.js';
import { Printer, type Column } from '../io/output.js';
import type { Factory } from '../cmdutil/factory.js';
import { UsageError } from '../lib/errors.js';
import { needsConfirmation } from '../shared/confirm.js';
import { attachFlags, checkConstraints } from './constraints.js';
import type { VerbContext, VerbSpec } from '../cmdutil/spec.js';
import { buildBody, buildListQuery, checkIdempotencyKey, fillPath, requireFields } from './values.js';
import { asText } from '../lib/text.js';
import { nounOfWait, settled, waitFor, waitTimeoutSeconds } from './wait.js';

export interface PreparedRequest {
  path: string;
  body?: Record<string, unknown> | undefined;
  query?: Query | undefined;
}

/** The checks of the options every verb shares, before anything is sent (the output flags are already resolved: ctx.output). */
export function checkCommonOptions(ctx: VerbContext): void {
  if (typeof ctx.opts.idempotencyKey === 'string') checkIdempotencyKey(ctx.opts.idempotencyKey);
  if (ctx.verb.wait) {
    // As gh's `--interval` without `--watch`: a timeout with nothing to time is a mistake, not a no-op.
    if (ctx.opts.waitTimeout !== undefined && !ctx.opts.wait) {
      throw new UsageError('--wait-timeout only works with --wait', {
        hint: `add --wait to wait for the ${nounOfWait(ctx.verb.wait)} to ${ctx.verb.wait.until}, or leave --wait-timeout out`,
      });
    }
    waitTimeoutSeconds(ctx.opts.waitTimeout);
    if (ctx.opts.wait && ctx.opts.fromFile !== undefined) {
      throw new UsageError('--wait works on one object, not with --from-file', {
        hint: `send the rows, then wait for each: pay ${ctx.group.name} ${ctx.verb.name} … --wait per row`,
      });
    }
  }
}

/**
 * --interactive asks for more than is missing: where nothing can be asked (no terminal on stdin and
 * stderr, or prompting switched off) it is a usage error saying why, as gh's "--title required when
 * not running interactively", never a flag silently ignored. Checked before anything is read or sent.
 */
export function checkInteractive(f: Pick<Factory, 'canPrompt' | 'io'>, ctx: VerbContext): void {
  if (ctx.opts.interactive !== true) return;
  // A --from-file run takes its fields from the rows and asks nothing: --interactive would be ignored.
  if (ctx.opts.fromFile !== undefined)
    throw new UsageError('--interactive and --from-file do not go together: a --from-file run takes every field from its rows', {
      hint: 'put the fields in the file, or leave --interactive out',
    });
  if (f.canPrompt) return;
  const terminal = f.io.stdinIsTTY && f.io.stderrIsTTY;
  throw new UsageError(
    terminal
      ? '--interactive asks on the terminal, but prompting is off (--no-input, PAY_NO_INPUT or CI)'
      : '--interactive needs a terminal: stdin and stderr are not both terminals',
    { hint: 'pass the fields as flags (or --data), or leave --interactive out' },
  );
}

/** Every check a verb's flags, positional and --data need (the common options: runVerbWith); nothing is sent. */
export async function prepare(f: Factory, ctx: VerbContext): Promise<PreparedRequest> {
  const { verb } = ctx;
  const path = fillPath(verb, ctx.argValue, ctx.opts);
  if (verb.method === 'GET' || verb.method === 'DELETE') {
    const { query } = buildListQuery(verb, ctx.opts, false);
    checkConstraints(verb, query, 'query');
    return { path, query: verb.method === 'GET' ? query : undefined };
  }
  const body = await buildBody(f, verb, ctx.opts, ctx.argValue);
  if (verb.kind === 'create' || verb.kind === 'action') requireFields(verb, body);
  if (verb.kind === 'update' && Object.keys(body).length === 0) {
    throw new UsageError(`nothing to update: pass at least one field flag or --data`);
  }
  checkConstraints(verb, body, 'body');
  return { path, body };
}

export function clientNeeds(ctx: VerbContext): { requireTenant?: string } {
  return ctx.verb.requireTenant ? { requireTenant: `pay ${ctx.group.name} ${ctx.verb.name}` } : {};
}

export function columnsOf(ctx: VerbContext): Column[] {
  return ctx.verb.columns ?? ctx.group.columns;
}

export function nounOf(ctx: VerbContext): string {
  return ctx.verb.noun ?? ctx.group.noun;
}

/** Sends the verb's request; API field errors come back naming this verb's flags. */
export async function send(f: Factory, ctx: VerbContext, client: ApiClient, req: PreparedRequest): Promise<ApiResponse> {
  // Checked before (checkCommonOptions), like every option.
  const idem = typeof ctx.opts.idempotencyKey === 'string' ? ctx.opts.idempotencyKey : undefined;
  try {
    return await client.request({
      method: ctx.verb.method,
      path: req.path,
      ...(req.body !== undefined ? { body: req.body } : {}),
      ...(req.query ? { query: req.query } : {}),
      ...(idem ? { idempotencyKey: idem } : {}),
      expect: expectFor(ctx),
    });
  } catch (err) {
    attachFlags(err, ctx.verb, req.body !== undefined ? 'body' : 'query');
    throw err;
  }
}

/**
 * What a verb's 2xx answer must be (the client refuses anything else, exit 1): a create makes an
 * object with an id of its kind; a get, update or delete of `<things>/{thing_id}`, or an action on
 * `<things>/{thing_id}/<action>`, answers the object it named; any other verb, a JSON object.
 */
export function expectFor(ctx: VerbContext): Expect {
  const { verb, argValue } = ctx;
  if (verb.kind === 'create') return verb.creates ? { prefix: verb.creates } : 'resource';
  const m = /(?:^|\/)([a-z-]+)\/\{([a-z_]+)\}(\/[a-z-]+)?$/.exec(verb.path);
  if (!m || argValue === undefined || !verb.arg?.idPrefix || verb.arg.field || verb.path.split('{').length !== 2) return 'object';
  const [, things, param, action] = m;
  const namesIt = `${things!.replace(/-/g, '_').replace(/s$/, '')}_id` === param;
  const fits = action ? verb.kind === 'action' : verb.kind === 'get' || verb.kind === 'update' || verb.kind === 'delete';
  return namesIt && fits ? { id: argValue } : 'object';
}

/** Sends, with --wait waits until the object settles (VerbSpec.wait: exit 1 when it fails), and prints it. */
export async function sendAndPrint(f: Factory, ctx: VerbContext, client: ApiClient, req: PreparedRequest): Promise<unknown> {
  const res = await send(f, ctx, client, req);
  const spec = ctx.verb.wait;
  if (!spec || !ctx.opts.wait) {
    await printResult(f, ctx, res.body, res.replayed, client);
    return res.body;
  }
  const what = `${ctx.verb.method} /${req.path}`;
  // Ctrl-C or SIGTERM while waiting: the wait stops and says what was created (exit 130), as a bulk run does.
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  f.signals.on('SIGINT', onSignal);
  f.signals.on('SIGTERM', onSignal);
  let waited: Record<string, unknown>;
  try {
    waited = await waitFor(
      client,
      spec,
      res.body,
      { timeoutMs: waitTimeoutSeconds(ctx.opts.waitTimeout) * 1000, io: f.io, clock: f.clock, signal: stop.signal },
      what,
    );
  } finally {
    f.signals.off('SIGINT', onSignal);
    f.signals.off('SIGTERM', onSignal);
  }
  const final = settled(spec, waited);
  // The answer was another object (a KYC document); what settled is printed as the group's objects are.
  const shownAs = spec.idField ? { ...ctx, verb: { ...ctx.verb, columns: ctx.group.columns, noun: nounOfWait(spec) } } : ctx;
  await printResult(f, shownAs, final, res.replayed, client);
  return final;
}

/**
 * The object a verb got back: as asked (--json, -o, --fields), else its get view (every field, as
 * `get` shows it: nothing hidden to fit) and, on a terminal, for writes, one ✓ line naming what was made.
 * With `client`, a get view's names beside its ids are looked up first (src/verbs/names.ts); never a write's.
 */
export async function printResult(
  f: Factory,
  ctx: VerbContext,
  obj: unknown,
  replayed = false,
  client?: ApiClient,
  line?: string,
): Promise<void> {
  const { verb } = ctx;
  const printer = new Printer(f.io, ctx.output, columnsOf(ctx));
  // A get view shows the names beside the ids it holds (a table format only: settings.names). A
  // write's answer is printed at once, its ids bare: nothing is asked of the service after money
  // moved, so a slow lookup or Ctrl-C never leaves a done write unprinted.
  if (client && ctx.output.names && verb.kind === 'get') {
    const { nameSource } = await import('./names.js');
    await printer.useNames(nameSource(client)).loadNames([obj]);
  }
  // A write shows the object as the group's get does, with its sub-tables (a customer's addresses).
  const tables = verb.tables ?? (verb.kind === 'get' ? undefined : ctx.group.verbs.find((v) => v.kind === 'get')?.tables);
  printer.printObject(obj, tables);
  // `line`: a verb's own ✓ line, from what the service answered (features activate: already active).
  if (f.io.stderrIsTTY && verb.kind !== 'get' && verb.kind !== 'custom') f.io.err(line ?? doneLine(ctx, obj, replayed));
}

/**
 * `✓ Created customer cus_…`, `✓ Froze card card_… (frozen)`. An answer without an id of its own is
 * about something the argument owns (a customer's feature): it is named by its noun's field, for the
 * argument (`✓ Activated cards for cus_…`). The id, names and status come from the service: escaped.
 */
export function doneLine(ctx: VerbContext, obj: unknown, replayed = false): string {
  const { verb } = ctx;
  const ownId = getPath(obj, 'id');
  const status = getPath(obj, 'status');
  const noun = nounOf(ctx);
  let what: string;
  if (typeof ownId === 'string' && ownId !== '') what = `${noun} ${escapeValue(ownId)}`;
  else {
    const named = getPath(obj, noun.replace(/ /g, '_'));
    const owner = ctx.argValue;
    what =
      typeof named === 'string' && named !== ''
        ? `${escapeValue(named)}${owner ? ` for ${escapeValue(owner)}` : ''}`
        : `${noun}${owner ? ` of ${escapeValue(owner)}` : ''}`;
  }
  // A replay has its note from the client (src/cmdutil/factory.ts replayNote): the key, and that the object may have changed.
  const replay = replayed ? ' (replayed)' : '';
  return `✓ ${doneText(verb)} ${what}${typeof status === 'string' && verb.kind !== 'create' ? ` (${escapeText(status)})` : ''}${replay}\n`;
}

export function doneText(verb: VerbSpec): string {
  if (verb.done) return verb.done;
  switch (verb.kind) {
    case 'create':
      return 'Created';
    case 'update':
      return 'Updated';
    case 'delete':
      return 'Removed';
    default: {
      const word = verb.name.split('-')[0]!;
      const past = word.endsWith('e') ? `${word}d` : `${word}ed`;
      return `${past[0]!.toUpperCase()}${past.slice(1)}`;
    }
  }
}

export function plural(noun: string): string {
  return noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : noun.endsWith('s') ? noun : `${noun}s`;
}

/**
 * Live mode: the request the verb will send, when the one table says it moves money or destroys
 * something (src/shared/confirm.ts), needs a yes on a terminal, or --yes. The question is made
 * from `req`, the very request that is sent after it.
 */
export async function confirmLive(f: Factory, ctx: VerbContext, req: PreparedRequest, client?: ApiClient): Promise<void> {
  if (!needsConfirmation({ method: ctx.verb.method, operationId: ctx.verb.operationId }, f.settings().mode.value)) return;
  const lines = ctx.verb.operationId === 'createFxTrade' ? await quoteLines(f, client, req.body, ctx.opts.yes === true) : [];
  await confirmLiveRun(f, describeAction(ctx, req.body), ctx.opts.yes === true, lines);
}

/**
 * An FX trade's amounts are its quote's: on a terminal, before the question, the quote is read (a
 * GET; nothing moves) and its amounts and currencies named; off a terminal (refused without --yes,
 * before any request) and when it cannot be read, the question says the amounts are the quote's.
 */
export async function quoteLines(
  f: Factory,
  client: ApiClient | undefined,
  body: Record<string, unknown> | undefined,
  yes: boolean,
): Promise<string[]> {
  const id = body?.quote_id;
  if (typeof id !== 'string' || id === '') return [];
  const s = f.settings();
  if (s.mode.value !== 'live' || yes || f.dryRun) return [];
  if (!f.canPrompt || !client || !/^fxq_[A-Za-z0-9]+$/.test(id)) return [`the amounts are quote ${id}'s (not read)`];
  return [await quoteLine(client, id)];
}

/** `quote fxq_…: sells 100.00 USD for 92.00 EUR (rate 0.92, fee 0.50 USD, open until …)`, or why it could not be read. */
export async function quoteLine(client: ApiClient, id: string): Promise<string> {
  try {
    const q = (await client.request<Record<string, unknown>>({ method: 'GET', path: `fx/quotes/${id}` })).body;
    const t = (k: string) => asText(q?.[k] ?? '?');
    const extra = [q?.rate !== undefined ? `rate ${t('rate')}` : '', q?.fee !== undefined ? `fee ${t('fee')} ${t('source_currency')}` : '']
      .concat(q?.status !== undefined ? [`${t('status')}${q.expires_at !== undefined ? ` until ${t('expires_at')}` : ''}`] : [])
      .filter(Boolean);
    return `quote ${id}: sells ${t('source_amount')} ${t('source_currency')} for ${t('target_amount')} ${t('target_currency')}${extra.length ? ` (${extra.join(', ')})` : ''}`;
  } catch (err) {
    return `quote ${id}: could not be read (${err instanceof Error ? err.message : String(err)}); the amounts are the quote's`;
  }
}

/**
 * The one live-mode question, asked before anything is sent: on a terminal "LIVE mode, profile
 * "<name>": <what>?" (the `lines` first, on stderr); elsewhere exit 2 unless `yes`. Nothing to ask
 * in sandbox mode, with --yes, or in a dry run (nothing moves).
 */
export async function confirmLiveRun(f: Factory, what: string, yes: boolean, lines: readonly string[] = []): Promise<void> {
  const s = f.settings();
  if (s.mode.value !== 'live' || yes || f.dryRun) return;
  if (!f.canPrompt) {
    throw new UsageError(`refusing to run ${what} in live mode without confirmation: pass --yes`, {
      hint: `nothing was sent${lines.length ? `; it would: ${lines.join('; ')}` : ''}`,
    });
  }
  for (const line of lines) f.io.err(`  ${escapeText(line)}\n`);
  const { createPrompter } = await import('../io/prompt.js');
  const ok = await createPrompter(f.io).confirm(`LIVE mode, profile "${s.profileName.value}": ${what}?`, false);
  if (!ok) throw new UsageError('not confirmed; nothing was sent');
}

/**
 * What a request body moves, in the words of the question, from the body itself: the amount with
 * its currency (an FX amount with its own: `900.00 EUR bought with USD (the USD amount is the quote's)`), `from` the source account, `to` the destination (an account credited), then every
 * other id it names (existing objects it touches: `quote fxq_…`). `10.50 USD from acc_… to ea_…`
 */
export function describeBody(body: Record<string, unknown> | undefined): string {
  const parts: string[] = [];
  const used = new Set<string>();
  const at = (...paths: string[]) => {
    for (const p of paths) {
      const v = body && getPath(body, p);
      if (v !== undefined && v !== null && v !== '') {
        used.add(p);
        return asText(v);
      }
    }
    return undefined;
  };
  // Each amount with its own currency: a target amount is bought in the target currency, a source
  // amount sold in the source currency, the other side being the quote's.
  const amount = at('amount');
  const currency = at('currency', 'asset');
  const sourceAmount = amount ? undefined : at('source_amount');
  const targetAmount = amount || sourceAmount ? undefined : at('target_amount');
  const from$ = at('source_currency');
  const to$ = at('target_currency');
  if (amount) parts.push(`${amount}${currency ? ` ${currency}` : ''}`);
  else if (sourceAmount)
    parts.push(`${sourceAmount}${from$ ? ` ${from$}` : ''} sold${to$ ? ` for ${to$} (the ${to$} amount is the quote's)` : ''}`);
  else if (targetAmount)
    parts.push(`${targetAmount}${to$ ? ` ${to$}` : ''} bought${from$ ? ` with ${from$} (the ${from$} amount is the quote's)` : ''}`);
  else if (currency) parts.push(currency);
  else if (from$ || to$) parts.push(`${from$ ?? '?'} for ${to$ ?? '?'}`);
  const from = at('source_account_id');
  if (from) parts.push(`from ${from}`);
  const dest = at('destination_id', 'target_account_id', 'account_id');
  if (dest) parts.push(`to ${dest}`);
  for (const [k, v] of Object.entries(body ?? {})) {
    if (used.has(k) || !k.endsWith('_id') || typeof v !== 'string' || v === '') continue;
    parts.push(`${k.slice(0, -3).replace(/_/g, ' ')} ${v}`);
  }
  return parts.join(' ');
}

/** `"pay transfers send" 10.50 USD from acc_… to ea_…` */
export function describeAction(ctx: VerbContext, body: Record<string, unknown> | undefined): string {
  const what = describeBody(body);
  return `"pay ${ctx.group.name} ${ctx.verb.name}${ctx.argValue ? ` ${ctx.argValue}` : ''}"${what ? ` ${what}` : ''}`;
}
