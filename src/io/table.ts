// Tables and key/value views laid out to fit a terminal (issue 17): the printer (output.ts) hands
// over escaped cells, this decides what is shown at which width. Columns are two spaces apart, no
// borders. With a width (a terminal): text columns are cut with `…`, widest first, down to a
// floor; when the table still does not fit, whole columns are hidden, the highest priority
// number first (ties: the rightmost), never the last one left. Columns that are never cut (ids,
// amounts with their currency, times, statuses) are hidden rather than cut; the last column left
// is printed whole when it is one of those, so a terminal narrower than an id still gets the id
// whole (the line is wider than the terminal there). Without a width (--wide, or not a
// terminal), every column at its full width. Display widths as src/io/width.ts measures them.
// A cell may have a tail after its head (a failure code's meaning, the name beside an id): the head
// is never cut, the tail is what gives way first: it is cut with `…`, or dropped, before any
// column is hidden, and shown whole when there is room (a wide terminal, --wide, no terminal).
// A column the command was asked about (`asked`) is never hidden: the others go first, and when
// it alone is wider than the terminal it is still shown (the terminal wraps the line).
import { displayWidth, truncate, wrap } from './width.js';

/** Spaces between two columns. */
export const GAP = 2;
/** A text column is not cut narrower than this (or its header, if wider), unless it is the only column left. */
export const TEXT_MIN = 8;
/** A key/value view stacks each value under its key when less than this is left beside the keys. */
export const VALUE_MIN = 16;
/** A tail is cut with `…` only when at least this much of it fits; less, and it is dropped. */
export const TAIL_MIN = 6;

export interface Cell {
  /** Escaped text, one line: the head, never cut in a column that is not `cut`. */
  text: string;
  /**
   * Escaped text after the head (with its leading space): a code's meaning, the name beside an id.
   * Cut or dropped first when the table is short of room; in a `cut` column it is part of the text.
   */
  tail?: string;
  /** Colour, applied to the text once it is cut (never to the padding). */
  paint?: (text: string) => string;
  /** The text's display width, once measured (naturalWidths fills it in). */
  width?: number;
  /** No value (shown `-`): not counted when a column's values are judged (codes, failures). */
  missing?: boolean;
}

export interface FitColumn {
  header: string;
  /** May be cut with `…` (text); otherwise shown whole or hidden. */
  cut: boolean;
  /** 1 is kept longest; the highest number is hidden first. */
  priority: number;
  /** Asked about, or a failure shown (output.ts): never cut (`cut` is false), hidden only after the columns that are not kept. */
  keep?: boolean;
  /** Asked about (a filter flag on it): never hidden; every other column goes first. */
  asked?: boolean;
}

export interface Fit {
  /** Indexes of the columns shown, in table order. */
  shown: number[];
  /** Indexes of the columns hidden, in table order. */
  hidden: number[];
  /** Width of each column (by index; hidden ones keep their natural width). */
  widths: number[];
}

/**
 * Which columns to show at which width so that a line takes at most `width` columns (undefined:
 * no limit). `natural`: each column's width with nothing cut (its header and widest cell, tails
 * included); `heads`: the same without tails (default: `natural`), the least a column that is not
 * cut takes. The line is wider than `width` only when what may not be hidden is: the asked
 * columns, or the one column left.
 */
export function fitColumns(
  cols: readonly FitColumn[],
  natural: readonly number[],
  width: number | undefined,
  heads: readonly number[] = natural,
): Fit {
  const all = cols.map((_, i) => i);
  const widths = [...natural];
  if (width === undefined || cols.length === 0) return { shown: all, hidden: [], widths };
  const min = cols.map((c, i) => (c.cut ? Math.min(natural[i]!, Math.max(displayWidth(c.header), TEXT_MIN)) : heads[i]!));
  const gaps = (n: number) => GAP * Math.max(0, n - 1);
  const sum = (ids: readonly number[], w: readonly number[]) => ids.reduce((s, i) => s + w[i]!, 0);
  // Hidden first: the highest priority number, then the rightmost.
  // Kept columns last (after every other but the first: their priority is at most 1, and the first wins ties).
  const rank = (i: number) => (cols[i]!.keep ? Math.min(cols[i]!.priority, 1) : cols[i]!.priority);
  const dropOrder = [...all].sort((a, b) => rank(b) - rank(a) || b - a);
  const shown = new Set(all);
  for (const i of dropOrder) {
    if (shown.size <= 1) break;
    const ids = all.filter((j) => shown.has(j));
    if (sum(ids, min) + gaps(ids.length) <= width) break;
    // An asked column is never hidden: the others go, the first one too.
    if (cols[i]!.asked) continue;
    shown.delete(i);
  }
  const ids = all.filter((j) => shown.has(j));
  const hidden = all.filter((j) => !shown.has(j));
  if (sum(ids, natural) + gaps(ids.length) > width) {
    const cuts = ids.filter((i) => cols[i]!.cut);
    const tails = ids.filter((i) => !cols[i]!.cut && natural[i]! > heads[i]!);
    for (const i of tails) widths[i] = heads[i]!;
    let room =
      width -
      gaps(ids.length) -
      sum(
        ids.filter((i) => !cols[i]!.cut),
        heads,
      );
    if (ids.length === 1 && cuts.length === 1) {
      // The only column left: cut to the width, its header too.
      widths[ids[0]!] = Math.max(1, Math.min(natural[ids[0]!]!, width));
      room = 0;
    } else if (cuts.length > 0) {
      // Water-filling: the widest cut first, to the largest common cap that fits.
      room -= fill(cuts, min, natural, room, widths);
    }
    // Tails get what the text left (they give way first), the most important column's first (a
    // failure's meaning before a name); a tail given less than TAIL_MIN would be dropped anyway.
    for (const i of [...tails].sort((a, b) => rank(a) - rank(b) || a - b)) {
      const give = Math.min(natural[i]! - heads[i]!, Math.max(0, room));
      if (give < TAIL_MIN && give < natural[i]! - heads[i]!) continue;
      widths[i] = heads[i]! + give;
      room -= give;
    }
  }
  return { shown: ids, hidden, widths };
}

/**
 * Water-filling: the columns `ids` get widths between `min` and `natural`, the widest cut first, to
 * the largest common cap whose sum fits `room` (at least the minimums). Returns the width used.
 */
function fill(ids: readonly number[], min: readonly number[], natural: readonly number[], room: number, widths: number[]): number {
  const capped = (cap: number) => ids.reduce((s, i) => s + Math.max(min[i]!, Math.min(natural[i]!, cap)), 0);
  let lo = 0;
  let hi = Math.max(...ids.map((i) => natural[i]!));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (capped(mid) <= room) lo = mid;
    else hi = mid - 1;
  }
  let left = room - capped(lo);
  for (const i of ids) widths[i] = Math.max(min[i]!, Math.min(natural[i]!, lo));
  for (const i of ids) {
    if (left <= 0) break;
    if (widths[i]! < natural[i]!) {
      widths[i]!++;
      left--;
    }
  }
  return ids.reduce((s, i) => s + widths[i]!, 0);
}

/** The natural width of each column: its header and its widest cell (tail included). */
export function naturalWidths(headers: readonly string[], rows: readonly (readonly Cell[])[]): number[] {
  return measure(headers, rows).natural;
}

/** Each column's natural width, and its width without tails (its heads and header). */
function measure(headers: readonly string[], rows: readonly (readonly Cell[])[]): { natural: number[]; heads: number[] } {
  const heads = headers.map((h) => displayWidth(h));
  const natural = [...heads];
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const c = row[i]!;
      const w = (c.width ??= displayWidth(c.text));
      const full = w + (c.tail ? displayWidth(c.tail) : 0);
      if (w > (heads[i] ?? 0)) heads[i] = w;
      if (full > (natural[i] ?? 0)) natural[i] = full;
    }
  }
  return { natural, heads };
}

/** What a cell shows in `w` columns: a text cut with `…`; a head whole, with as much of its tail as fits (TAIL_MIN), else none. */
function shownText(cell: Cell, w: number): string {
  const full = cell.width ?? displayWidth(cell.text);
  if (!cell.tail) return full > w ? truncate(cell.text, w) : cell.text;
  const room = w - full;
  const tail = displayWidth(cell.tail);
  if (tail <= room) return cell.text + cell.tail;
  return room >= TAIL_MIN ? cell.text + truncate(cell.tail, room) : cell.text;
}

/** One line of a table: the shown cells, cut where their column is narrower, padded, painted; no trailing spaces. */
function line(cells: readonly Cell[], fit: Fit): string {
  const parts: string[] = [];
  fit.shown.forEach((i, n) => {
    const cell = cells[i] ?? { text: '' };
    const w = fit.widths[i]!;
    const text = shownText(cell, w);
    const painted = cell.paint && text ? cell.paint(text) : text;
    const last = n === fit.shown.length - 1;
    parts.push(last ? painted : painted + ' '.repeat(Math.max(0, w - displayWidth(text))));
  });
  return parts.join(' '.repeat(GAP)).replace(/ +$/, '');
}

/** In a column that is cut, a tail is part of the text (cut with it). */
function merged(cols: readonly FitColumn[], rows: readonly (readonly Cell[])[]): Cell[][] {
  return rows.map((row) =>
    row.map((c, i) => (c.tail && cols[i]?.cut ? { ...c, text: c.text + c.tail, tail: undefined, width: undefined } : c)),
  );
}

/**
 * The indexes of the columns a table of these rows shows at `width`. Tails never decide it (a
 * column that is not cut needs its heads only), so it can be known before names are looked up.
 */
export function shownColumns(cols: readonly FitColumn[], rows: readonly (readonly Cell[])[], width: number | undefined): number[] {
  const { natural, heads } = measure(
    cols.map((c) => c.header),
    merged(cols, rows),
  );
  return fitColumns(cols, natural, width, heads).shown;
}

/**
 * A table as lines: the header, then a line per row. `width`: the terminal's (undefined: no
 * limit). Returns the headers of the columns hidden to fit, in table order.
 */
export function layoutTable(
  cols: readonly FitColumn[],
  rows: readonly (readonly Cell[])[],
  width: number | undefined,
  paintHeader: (text: string) => string = (t) => t,
): { lines: string[]; hidden: string[] } {
  const cells = merged(cols, rows);
  const { natural, heads } = measure(
    cols.map((c) => c.header),
    cells,
  );
  const fit = fitColumns(cols, natural, width, heads);
  const lines = [
    line(
      cols.map((c) => ({ text: c.header, paint: paintHeader })),
      fit,
    ),
  ];
  for (const row of cells) lines.push(line(row, fit));
  return { lines, hidden: fit.hidden.map((i) => cols[i]!.header) };
}

export interface KeyValue {
  /** Escaped key (a dotted path). */
  key: string;
  value: Cell;
}

/**
 * One object as key/value lines. Without a width: each key padded to the longest, its value
 * beside it. With one: the values keep at least half the width; a value longer than the room
 * beside them wraps onto lines of its own under it (indented to the values), a key longer than
 * the key column has a line of its own; when less than VALUE_MIN is left beside the keys, every
 * value goes under its key, indented two spaces. Any value longer than its room is broken (an id
 * too: a get view shows every character, never past the width). Nothing
 * pads a value (it ends its line), so a value's own trailing spaces are kept.
 */
export function layoutKeyValues(
  pairs: readonly KeyValue[],
  width: number | undefined,
  paintKey: (text: string) => string = (t) => t,
): string[] {
  const longest = Math.max(0, ...pairs.map((p) => displayWidth(p.key)));
  const paint = (cell: Cell, text: string) => (cell.paint && text ? cell.paint(text) : text);
  const out: string[] = [];
  if (width === undefined) {
    for (const p of pairs) out.push(`${paintKey(p.key)}${' '.repeat(longest - displayWidth(p.key) + GAP)}${paint(p.value, p.value.text)}`);
    return out;
  }
  // Keys get what the values leave: at least half the width, and VALUE_MIN, is the values'.
  const keyWidth = Math.min(longest, Math.max(TEXT_MIN, width - GAP - Math.max(VALUE_MIN, Math.ceil(width / 2))));
  const room = width - keyWidth - GAP;
  const stacked = room < VALUE_MIN;
  const indent = stacked ? GAP : keyWidth + GAP;
  const valueRoom = stacked ? Math.max(1, width - GAP) : room;
  for (const p of pairs) {
    const values = wrap(p.value.text, valueRoom);
    const keyFits = !stacked && displayWidth(p.key) <= keyWidth;
    let rest = values;
    if (keyFits) {
      out.push(`${paintKey(p.key)}${' '.repeat(keyWidth - displayWidth(p.key) + GAP)}${paint(p.value, values[0]!)}`);
      rest = values.slice(1);
    } else {
      for (const k of wrap(p.key, width)) out.push(paintKey(k));
    }
    for (const v of rest) out.push(`${' '.repeat(indent)}${paint(p.value, v)}`);
  }
  return out;
}
