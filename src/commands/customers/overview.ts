// pay customers overview <id>: one screen for support. The customer and its KYC verification,
// its accounts with balances, cards and wallets with their states, the last 10 transactions
// across its accounts, and the failed webhook deliveries about its objects; each section ends
// with the command that shows more. Requests run concurrently, at most OVERVIEW_CONCURRENCY at
// once. A section whose request fails says so and the others still print; the command then
// exits 1. An unknown customer (404), or a key the service refuses, ends it at once (exit 4, 3).
// `--json` (or -o ndjson) prints one aggregate object (OverviewJson below).
//
// Failed deliveries: the failed events are read newest first and matched here by the ids their
// object names, until LAST_FAILED are found or the list ends (one request for all, rather than one
// per object with the events list's object_id filter).
//
// No section is cut short: every list is read to its end (gather), and every answer is checked to
// be about what was asked; a section that cannot be shown whole fails, and the command exits 1.
import type { ApiClient } from '../../api/client.js';
import type { Factory } from '../../cmdutil/factory.js';
import type { VerbContext } from '../../cmdutil/spec.js';
import { escapeText, escapeValue } from '../../io/escape.js';
import { getPath, pickPaths } from '../../io/fields.js';
import { formatTime, Printer, type TableColumn } from '../../io/output.js';
import { zoneLabel, type TimeView } from '../../io/time.js';
import { VALUE_MIN } from '../../io/table.js';
import { wrap } from '../../io/width.js';
import { ApiError, ExitCode, PayError, UsageError } from '../../lib/errors.js';
import { asText } from '../../lib/text.js';
import { clientNeeds } from '../../verbs/steps.js';
import { checkArg } from '../../verbs/values.js';

export const OVERVIEW_CONCURRENCY = 4;
/** Transactions shown (the newest across the customer's accounts). */
export const LAST_TRANSACTIONS = 10;
/** Failed deliveries shown, newest first. */
export const LAST_FAILED = 10;

type Json = Record<string, unknown>;

export const SECTIONS = ['customer', 'kyc', 'accounts', 'cards', 'wallets', 'transactions', 'failed_deliveries'] as const;
export type Section = (typeof SECTIONS)[number];

/** What --json prints: every section (null when it failed), the commands that show more, the failures. */
export interface OverviewJson {
  customer: Json | null;
  /** The current KYC verification; null when none was started (or the section failed: see errors). */
  kyc: Json | null;
  accounts: Json[] | null;
  cards: Json[] | null;
  wallets: Json[] | null;
  /** The LAST_TRANSACTIONS newest across the accounts. */
  transactions: Json[] | null;
  /** Events about the customer's objects whose delivery failed, newest first (at most LAST_FAILED). */
  failed_deliveries: Json[] | null;
  more: Record<Section, string[]>;
  errors: Array<{ section: Section; message: string; code: string; exit_code: number; request_id?: string }>;
}

/** Runs tasks with at most `n` in flight. */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: PayError };

async function settle<T>(p: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await p };
  } catch (err) {
    if (err instanceof PayError) return { ok: false, error: err };
    throw err;
  }
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export async function run(f: Factory, ctx: VerbContext): Promise<void> {
  const id = ctx.argValue!;
  const format = ctx.output.format;
  const json = format === 'json' || format === 'ndjson';
  // Off a terminal with no format asked, the screen as text; TSV has no shape for sections.
  if (!json && format !== 'table' && ctx.opts.output !== undefined) {
    throw new UsageError(`pay customers overview prints a screen (-o table) or one JSON object (--json, -o ndjson), not ${format}`);
  }
  if (!json && ctx.output.fields) throw new UsageError('--fields applies to the JSON object of pay customers overview (--json)');
  checkArg(ctx.verb, id);

  const client = await f.client(clientNeeds(ctx));
  const data = await gather(client, id);
  const view = toJson(id, data);
  if (json) {
    // Through the shared printer: -o ndjson one line, --jq filtered, JSON escaped on a terminal.
    new Printer(f.io, ctx.output, []).printValue(ctx.output.fields ? pickPaths(view, ctx.output.fields) : view);
  } else {
    await printScreen(f, view, ctx.output.wide === true, ctx.output.time);
  }
  if (view.errors.length > 0) {
    const names = view.errors.map((e) => e.section).join(', ');
    throw new PayError(
      `the overview is incomplete: ${view.errors.length} ${view.errors.length === 1 ? 'section' : 'sections'} failed (${names})`,
      ExitCode.ERROR,
      'overview_incomplete',
      { details: { sections: view.errors.map((e) => e.section) } },
    );
  }
}

interface Gathered {
  customer: Outcome<Json>;
  kyc: Outcome<Json | null>;
  accounts: Outcome<Json[]>;
  cards: Outcome<Json[]>;
  wallets: Outcome<Json[]>;
  transactions: Outcome<Json[]>;
  failed: Outcome<Json[]>;
}

/** Why an item of a list is not about `value` by its `field` (another customer's account), or undefined. */
function about(kind: string, field: string, value: string): (item: Json) => string | undefined {
  return (item) =>
    item[field] === value
      ? undefined
      : `${kind} ${escapeValue(item.id ?? '(no id)')} whose ${field} is ${item[field] === undefined ? 'missing' : escapeValue(item[field])}, where only ${value}'s were asked for`;
}

/** Why `items` (in the order received) are not newest first, as every list of the contract is; or undefined. */
function outOfOrder(items: readonly Json[]): string | undefined {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1]!, items[i]!];
    const [ta, tb] = [asText(a.created_at), asText(b.created_at)];
    if (ta < tb || (ta === tb && asText(a.id) < asText(b.id)))
      return `the service listed ${escapeValue(b.id)} after ${escapeValue(a.id)}, which is older: the list is not newest first, so the newest cannot be told`;
  }
  return undefined;
}

/**
 * Every request of the overview, at most OVERVIEW_CONCURRENCY at once. Every answer is checked
 * against what was asked, as `customers get` checks its one: the customer is the one named, the
 * verification and every account, card and wallet are that customer's, every transaction is the
 * account's it was listed for (an answer about anything else fails its section: exit 1). Lists
 * are read to their end (every page), never cut at a page: a section shows all of it or says it
 * failed. The newest transactions come from each account's newest LAST_TRANSACTIONS (the lists
 * are newest first, checked); the failed deliveries from the failed events read newest first
 * until LAST_FAILED about the customer are found or the list ends.
 */
export async function gather(client: ApiClient, id: string): Promise<Gathered> {
  const run = limiter(OVERVIEW_CONCURRENCY);
  const get = (path: string, expect: { id: string } | 'object', check?: (body: Json) => string | undefined) =>
    run(async () => {
      const res = await client.request({ method: 'GET', path, expect });
      const wrong = isObject(res.body) ? check?.(res.body) : 'the answer is not an object';
      if (wrong) throw new PayError(`GET ${path}: ${wrong}`, ExitCode.ERROR, 'bad_response', { details: { request_id: res.requestId } });
      return res.body as Json;
    });
  /** Every item of a list (limit: the first `limit` only), each checked by `belongs`; `until` stops early once it says enough is read. */
  const list = (
    path: string,
    query: Record<string, string>,
    belongs: ((item: Json) => string | undefined) | undefined,
    opts: { limit?: number; until?: (items: Json[]) => boolean } = {},
  ) =>
    run(async () => {
      const items: Json[] = [];
      const pages = client.pages<Json>(path, query, opts.limit ? { limit: opts.limit, belongs } : { all: true, belongs });
      for await (const page of pages) {
        items.push(...page);
        if (opts.until?.(items)) break;
      }
      return items;
    });
  /** A list the section takes the newest of: it must come newest first. */
  const ordered = async (path: string, p: Promise<Json[]>): Promise<Json[]> => {
    const items = await p;
    const wrong = outOfOrder(items);
    if (wrong) throw new PayError(`GET ${path}: ${wrong}`, ExitCode.ERROR, 'bad_response');
    return items;
  };

  const customerP = settle(get(`customers/${id}`, { id }));
  const kycP = settle(
    get(`customers/${id}/kyc`, 'object', (k) =>
      k.customer_id === id ? undefined : `the verification answered is about ${escapeValue(k.customer_id ?? '(no customer)')}, not ${id}`,
    ).catch((err: unknown) => {
      // None started yet: not a failure of the section.
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }),
  );
  const accountsP = settle(list('accounts', { customer_id: id }, about('account', 'customer_id', id)));
  const cardsP = settle(list('cards', { customer_id: id }, about('card', 'customer_id', id)));
  const walletsP = settle(list('wallets', { customer_id: id }, about('wallet', 'customer_id', id)));

  const customer = await customerP;
  // Not there, or not ours to see: nothing else is worth showing.
  if (!customer.ok && (customer.error.exitCode === ExitCode.NOT_FOUND || customer.error.exitCode === ExitCode.AUTH)) {
    void Promise.allSettled([kycP, accountsP, cardsP, walletsP]);
    throw customer.error;
  }
  const accounts = await accountsP;
  const notLoaded = new PayError('not loaded: the accounts did not load', ExitCode.ERROR, 'not_loaded');
  const transactions: Outcome<Json[]> = accounts.ok
    ? await settle(
        Promise.all(
          accounts.value.map((a) => {
            const account = asText(a.id);
            return ordered(
              'transactions',
              list('transactions', { account_id: account }, about('transaction', 'account_id', account), { limit: LAST_TRANSACTIONS }),
            );
          }),
        ).then((perAccount) => newestFirst(perAccount.flat()).slice(0, LAST_TRANSACTIONS)),
      )
    : { ok: false, error: notLoaded };
  const [kyc, cards, wallets] = await Promise.all([kycP, cardsP, walletsP]);
  // The customer's objects are known only now: the failed events are matched against them.
  const ids = ownIds(id, customer, kyc, [accounts, cards, wallets]);
  const mine = (e: Json) => isAbout(getPath(e, 'data.object'), ids);
  const failedEvents = await settle(
    ordered(
      'webhooks/events',
      list(
        'webhooks/events',
        { status: 'failed' },
        (e) => {
          const status = getPath(e, 'delivery.status');
          return status === 'failed'
            ? undefined
            : `event ${escapeValue(e.id ?? '(no id)')} whose delivery status is ${escapeValue(status ?? 'missing')}, where failed ones were asked for`;
        },
        { until: (items) => items.filter(mine).length >= LAST_FAILED },
      ),
    ),
  );
  const failed: Outcome<Json[]> = failedEvents.ok
    ? { ok: true, value: newestFirst(failedEvents.value.filter(mine)).slice(0, LAST_FAILED) }
    : failedEvents;
  // The events were matched against the objects that loaded: a section that failed leaves them incomplete.
  const missing = (['accounts', 'cards', 'wallets'] as const).filter((_, i) => ![accounts, cards, wallets][i]!.ok);
  return {
    customer,
    kyc,
    accounts,
    cards,
    wallets,
    transactions,
    failed:
      failed.ok && missing.length > 0
        ? {
            ok: false,
            error: new PayError(
              `not loaded: the ${missing.join(' and ')} did not load, so the deliveries about them cannot be told`,
              ExitCode.ERROR,
              'not_loaded',
            ),
          }
        : failed,
  };
}

/** By created_at, newest first; ties by id (stable across runs). */
function newestFirst(items: Json[]): Json[] {
  return [...items].sort((a, b) => {
    const ta = asText(a.created_at);
    const tb = asText(b.created_at);
    return ta < tb ? 1 : ta > tb ? -1 : asText(a.id) < asText(b.id) ? 1 : -1;
  });
}

/** The ids of the customer's objects the overview knows: itself, its verification, accounts, cards, wallets. */
function ownIds(id: string, customer: Outcome<Json>, kyc: Outcome<Json | null>, lists: Array<Outcome<Json[]>>): Set<string> {
  const ids = new Set([id]);
  if (customer.ok && typeof customer.value.id === 'string') ids.add(customer.value.id);
  if (kyc.ok && kyc.value && typeof kyc.value.id === 'string') ids.add(kyc.value.id);
  for (const l of lists) if (l.ok) for (const o of l.value) if (typeof o.id === 'string') ids.add(o.id);
  return ids;
}

/** Fields by which an event's object belongs to a customer's object (a transfer's source account, a link's wallet, …). */
const LINKS = ['id', 'customer_id', 'account_id', 'source_account_id', 'destination_id', 'target_account_id', 'wallet_id'];

function isAbout(object: unknown, ids: ReadonlySet<string>): boolean {
  if (!isObject(object)) return false;
  return LINKS.some((k) => typeof object[k] === 'string' && ids.has(object[k]));
}

function toJson(id: string, g: Gathered): OverviewJson {
  const errors: OverviewJson['errors'] = [];
  const take = <T>(section: Section, o: Outcome<T>): T | null => {
    if (o.ok) return o.value;
    const e = o.error;
    errors.push({
      section,
      message: e.message,
      code: e.code,
      exit_code: e.exitCode,
      ...(e instanceof ApiError && e.requestId ? { request_id: e.requestId } : {}),
    });
    return null;
  };
  const accounts = take('accounts', g.accounts);
  const view: OverviewJson = {
    customer: take('customer', g.customer),
    kyc: take('kyc', g.kyc),
    accounts,
    cards: take('cards', g.cards),
    wallets: take('wallets', g.wallets),
    transactions: take('transactions', g.transactions),
    failed_deliveries: take('failed_deliveries', g.failed),
    more: moreCommands(id, accounts, g.failed.ok ? g.failed.value : []),
    // In screen order, whichever request failed first.
    errors: errors.sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section)),
  };
  return view;
}

/** The exact commands that show more of each section. */
function moreCommands(id: string, accounts: Json[] | null, failed: Json[]): Record<Section, string[]> {
  const accountIds = (accounts ?? []).map((a) => asText(a.id));
  return {
    customer: [`pay customers get ${id}`],
    kyc: [`pay kyc status ${id}`],
    accounts: [`pay accounts list --customer ${id}`],
    cards: [`pay cards list --customer ${id}`],
    wallets: [`pay wallets list --customer ${id}`],
    transactions: accountIds.length
      ? accountIds.map((a) => `pay transactions list --account ${a}`)
      : [`pay accounts list --customer ${id}`],
    failed_deliveries: [...(failed.length ? [`pay webhooks get ${asText(failed[0]!.id)}`] : []), 'pay webhooks list --status failed'],
  };
}

const ACCOUNT_COLUMNS: TableColumn[] = [
  { header: 'ID', path: 'id', priority: 1 },
  { header: 'NICKNAME', path: 'nickname', priority: 4 },
  { header: 'TYPE', path: 'type', priority: 5 },
  { header: 'AVAILABLE', path: 'balance.available', kind: 'money', currencyPath: 'currency', priority: 2 },
  { header: 'PENDING', path: 'balance.pending', kind: 'money', currencyPath: 'currency', priority: 6 },
  { header: 'STATUS', path: 'status', kind: 'status', priority: 3 },
];
const CARD_COLUMNS: TableColumn[] = [
  { header: 'ID', path: 'id', priority: 1 },
  { header: 'TYPE', path: 'type', priority: 4 },
  { header: 'LAST4', path: 'last4', priority: 2 },
  { header: 'ACCOUNT', path: 'account_id', priority: 5 },
  { header: 'STATUS', path: 'status', kind: 'status', priority: 3 },
];
const WALLET_COLUMNS: TableColumn[] = [
  { header: 'ID', path: 'id', priority: 1 },
  { header: 'ASSET', path: 'asset', priority: 2 },
  { header: 'NETWORK', path: 'network', priority: 5 },
  { header: 'AVAILABLE', path: 'balance.available', kind: 'money', currencyPath: 'asset', priority: 3 },
  { header: 'STATUS', path: 'status', kind: 'status', priority: 4 },
];
const TRANSACTION_COLUMNS: TableColumn[] = [
  { header: 'ID', path: 'id', priority: 1 },
  { header: 'ACCOUNT', path: 'account_id', priority: 7 },
  { header: 'TYPE', path: 'type', priority: 5 },
  { header: 'DIRECTION', path: 'direction', priority: 3 },
  { header: 'AMOUNT', path: 'amount', kind: 'money', priority: 2 },
  { header: 'STATUS', path: 'status', kind: 'status', priority: 4 },
  { header: 'CREATED', path: 'created_at', kind: 'time', priority: 6 },
];
const EVENT_COLUMNS: TableColumn[] = [
  { header: 'ID', path: 'id', priority: 1 },
  { header: 'TYPE', path: 'type', priority: 2 },
  { header: 'OBJECT', path: 'data.object.id', priority: 3 },
  { header: 'ATTEMPTS', path: 'delivery.attempts', kind: 'number', priority: 4 },
  { header: 'LAST CODE', path: 'delivery.last_response_code', kind: 'number', priority: 5 },
  { header: 'LAST ATTEMPT', path: 'delivery.last_attempt_at', kind: 'time', priority: 6 },
];

/** The screen: a heading per section, its table (or "none", or what failed), then how to see more. */
async function printScreen(f: Factory, view: OverviewJson, wide: boolean, time: TimeView | undefined): Promise<void> {
  const io = f.io;
  // Times as in every view (src/io/time.ts): the zone of TZ, or --time.
  const table = (cols: TableColumn[], rows: Json[]) =>
    new Printer(io, { format: 'table', fields: undefined, header: true, wide, ...(time ? { time } : {}) }, cols).printList(rows, '');
  const more = (section: Section) => {
    for (const cmd of view.more[section]) io.out(`  more: ${escapeText(cmd)}\n`);
  };
  const failure = (section: Section) => {
    const e = view.errors.find((x) => x.section === section);
    // An API error's message names its request already; others get it added.
    const ref = e?.request_id && !e.message.includes(e.request_id) ? ` (request ${escapeText(e.request_id)})` : '';
    return e ? `  failed: ${escapeText(e.message)}${ref}\n` : '';
  };

  const c = view.customer;
  io.out(`Customer ${c ? escapeValue(c.id) : ''}\n`);
  if (c) {
    const name = [c.first_name, c.middle_name, c.last_name]
      .filter((p) => typeof p === 'string' && p)
      .map(escapeValue)
      .join(' ');
    const address = isObject(c.address)
      ? ['address_line1', 'city', 'state', 'postal_code', 'country']
          .map((k) => (c.address as Json)[k])
          .filter((v) => typeof v === 'string' && v)
          .map(escapeValue)
          .join(', ')
      : '';
    const k = view.kyc;
    const kycText = k
      ? `${escapeValue(k.status)} (level ${escapeValue(k.level)}, ${escapeValue(k.id)}${typeof k.rejection_reason === 'string' && k.rejection_reason ? `: ${escapeValue(k.rejection_reason)}` : ''})`
      : view.errors.some((e) => e.section === 'kyc')
        ? `${escapeValue(c.kyc_status)} (verification not loaded)`
        : `${escapeValue(c.kyc_status)} (no verification started)`;
    const rows: Array<[string, string]> = [
      ['name', name],
      ['email', escapeValue(c.email ?? '-')],
      ['phone', escapeValue(c.phone ?? '-')],
      ['type', escapeValue(c.type ?? '-')],
      ['address', address || '-'],
      ['KYC', kycText],
      [
        'created',
        typeof c.created_at === 'string'
          ? escapeText(`${formatTime(c.created_at, time)}${zoneLabel(time) ? ` (${zoneLabel(time)})` : ''}`)
          : '-',
      ],
    ];
    // On a terminal (without --wide) a long value wraps under itself, as in get views.
    const room = io.stdoutIsTTY && !wide ? Math.max(VALUE_MIN, io.terminalWidth - 11) : undefined;
    for (const [key, value] of rows) {
      const [first, ...more] = room ? wrap(value, room) : [value];
      io.out(`  ${key.padEnd(8)} ${first}\n${more.map((l) => `${' '.repeat(11)}${l}\n`).join('')}`);
    }
  } else {
    io.out(failure('customer'));
  }
  io.out(failure('kyc'));
  more('customer');
  more('kyc');

  const section = async (title: string, name: Section, rows: Json[] | null, cols: TableColumn[]) => {
    io.out(`\n${title}${rows ? ` (${rows.length})` : ''}\n`);
    if (rows === null) io.out(failure(name));
    else if (rows.length === 0) io.out('  none\n');
    else await table(cols, rows);
    more(name);
  };
  await section('Accounts', 'accounts', view.accounts, ACCOUNT_COLUMNS);
  await section('Cards', 'cards', view.cards, CARD_COLUMNS);
  await section('Wallets', 'wallets', view.wallets, WALLET_COLUMNS);
  await section(`Last ${LAST_TRANSACTIONS} transactions across the accounts`, 'transactions', view.transactions, TRANSACTION_COLUMNS);
  await section('Failed webhook deliveries', 'failed_deliveries', view.failed_deliveries, EVENT_COLUMNS);
}
