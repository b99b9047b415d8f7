// Pick instead of paste: a verb whose id argument was left out offers, on a terminal, a searchable
// list of the most recent objects it can act on (the verb's `arg.pick`, src/cmdutil/spec.ts:
// which list, which filters, what an entry shows), as gh does for pull requests. Off a terminal,
// or with --no-input / PAY_NO_INPUT / CI, the argument stays required: exit 2 naming it.
// Everything an entry shows comes from the service and is escaped (src/io/escape.ts).
import { escapeText, escapeValue } from '../io/escape.js';
import { truncate } from '../io/width.js';
import { getPath } from '../io/fields.js';
import { formatTime, kindOf, type Column, type ColumnKind } from '../io/output.js';
import { layoutTable, type FitColumn } from '../io/table.js';
import { zoneLabel, type TimeView } from '../io/time.js';
import type { PickItem } from '../io/prompt.js';
import type { Factory } from '../cmdutil/factory.js';
import { camel, type PickSpec, type VerbContext } from '../cmdutil/spec.js';
import { ExitCode, PayError, UsageError } from '../lib/errors.js';
import { asText } from '../lib/text.js';
import { checkId } from '../shared/validate.js';
import { clientNeeds } from './steps.js';
import { longFlag } from './values.js';

/** What an entry keeps longest after its id: the status, the amount, the time; other ids, then text, go first. */
const RANK: Record<ColumnKind, number> = { status: 2, money: 3, time: 4, number: 5, id: 6, text: 7 };

/** How many of the most recent objects are fetched (one page) and offered. */
export const PICK_LIMIT = 100;
/** A cell of an entry is cut to this many columns (ids never are). */
const CELL_MAX = 32;

/** The id the user picked for a verb run without one; throws what a missing argument is otherwise. */
export async function pickArgument(f: Factory, ctx: VerbContext): Promise<string> {
  const { verb, group } = ctx;
  const arg = verb.arg!;
  const label = arg.name.replace(/[<>[\]]/g, '');
  if (!arg.pick || !f.canPrompt) {
    throw new UsageError(`missing required argument '${label}'`, {
      hint: !arg.pick
        ? 'add --help for usage'
        : f.io.stdinIsTTY && f.io.stderrIsTTY
          ? `prompting is off (--no-input, PAY_NO_INPUT or CI): pass the ${label}`
          : `pass the ${label}, or run pay on a terminal to pick one`,
    });
  }
  const pick = arg.pick;
  // A flag the verb cannot run without is asked for before the list, not after the pick.
  const missing = (verb.flags ?? []).filter(
    (fl) =>
      ctx.opts[camel(fl.flags)] === undefined &&
      (fl.pathParam !== undefined || (fl.required && fl.field && fl.default === undefined && ctx.opts.data === undefined)),
  );
  if (missing.length > 0) {
    throw new UsageError(`missing required ${missing.length === 1 ? 'flag' : 'flags'}: ${missing.map(longFlag).join(', ')}`);
  }
  const needs = clientNeeds(ctx);
  const client = await f.client(pick.requireTenant && !needs.requireTenant ? { requireTenant: `pay ${group.name} ${verb.name}` } : needs);
  const objects: unknown[] = [];
  for await (const page of client.pages<unknown>(pick.list, { ...pick.query }, { limit: PICK_LIMIT, checkFilters: true }))
    objects.push(...page);
  const time = ctx.output?.time;
  const entries = pickEntries(objects, pick, arg.idPrefix, time);
  if (entries.length === 0) {
    throw new PayError(
      `no ${pick.what} to pick from (among the ${PICK_LIMIT} most recent); pass the ${label}`,
      ExitCode.NOT_FOUND,
      'nothing_to_pick',
    );
  }
  const { createPrompter } = await import('../io/prompt.js');
  const items = entryLabels(entries, f.io.terminalWidth);
  const zone = zoneLabel(time);
  return createPrompter(f.io).pick(`Pick one of the ${pick.what}, newest first${zone ? ` (times in ${zone})` : ''}`, items);
}

interface Entry {
  id: string;
  cells: string[];
  /** Per cell: shown whole or not at all (a status, a time, an amount, an id), never cut; like a table's. */
  whole: boolean[];
  /** Per cell: which is hidden first when the line does not fit (the higher first), as a table's priority. */
  rank?: number[];
}

/**
 * What the list offers: objects with an id of the argument's kind that the verb can act on
 * (`where`), as escaped cells: the id, the `show` columns, the creation time.
 */
export function pickEntries(objects: readonly unknown[], pick: PickSpec, idPrefix: string | undefined, time?: TimeView): Entry[] {
  const idOk = idPrefix ? checkId(idPrefix) : (v: string) => (/^[A-Za-z0-9_-]{1,64}$/.test(v) ? undefined : 'bad');
  const entries: Entry[] = [];
  for (const obj of objects) {
    const id = getPath(obj, 'id');
    if (typeof id !== 'string' || idOk(id) !== undefined) continue;
    if (!matches(obj, pick.where) || !(pick.zero ?? []).every((path) => isZero(getPath(obj, path)))) continue;
    const created = getPath(obj, 'created_at');
    entries.push({
      id,
      cells: [...pick.show.map((c) => cellText(obj, c, time)), typeof created === 'string' ? escapeText(formatTime(created, time)) : ''],
      whole: [...pick.show.map((c) => kindOf(c) !== 'text'), true],
      rank: [...pick.show.map((c) => RANK[kindOf(c)]), RANK.time],
    });
  }
  return entries;
}

function matches(obj: unknown, where: PickSpec['where']): boolean {
  for (const [path, values] of Object.entries(where ?? {})) {
    const v = getPath(obj, path);
    if (typeof v !== 'string' || !values.includes(v)) return false;
  }
  return true;
}

/** A decimal amount that is zero (`0`, `0.00`, `-0.000`); anything else, or no amount, is not. */
function isZero(v: unknown): boolean {
  return typeof v === 'string' && /^-?0+(\.0+)?$/.test(v);
}

/** One column of an entry as plain text: money with its currency, a time for people; escaped, cut. */
function cellText(obj: unknown, col: Column, time: TimeView | undefined): string {
  const value = getPath(obj, col.path);
  if (value === undefined || value === null || value === '') return '-';
  let text: string;
  if (col.kind === 'money') {
    const i = col.path.lastIndexOf('.');
    const cur = getPath(obj, col.currencyPath ?? (i < 0 ? 'currency' : `${col.path.slice(0, i)}.currency`));
    text = typeof cur === 'string' ? `${escapeValue(value)} ${escapeText(cur)}` : escapeValue(value);
  } else if (kindOf(col) === 'time') {
    text = escapeText(formatTime(asText(value), time));
  } else {
    text = escapeValue(value);
  }
  // Statuses, times, amounts and ids are whole; text is cut.
  return kindOf(col) === 'text' ? truncate(text, CELL_MAX) : text;
}

/**
 * Entries as aligned lines that fit the terminal, laid out as a table is (src/io/table.ts): the id
 * whole, always first; a status, a time or an amount whole or hidden, never cut; text cut first.
 */
export function entryLabels(entries: readonly Entry[], width: number): PickItem[] {
  if (entries.length === 0) return [];
  const n = Math.max(...entries.map((e) => e.cells.length));
  const whole = (i: number) => entries.some((e) => e.whole[i]);
  // Hidden first: text (the rightmost first), then the whole cells from the right; the id never.
  const cols: FitColumn[] = [
    { header: '', cut: false, priority: 1 },
    ...Array.from({ length: n }, (_, i) => ({ header: '', cut: !whole(i), priority: entries[0]!.rank?.[i] ?? (whole(i) ? 2 : 3) })),
  ];
  const rows = entries.map((e) => [{ text: e.id }, ...e.cells.map((text) => ({ text }))]);
  // The list prompt draws "❯ " before each line.
  const { lines } = layoutTable(cols, rows, Math.max(1, width - 3));
  return entries.map((e, i) => ({ value: e.id, label: lines[i + 1]!, keys: [e.id] }));
}
