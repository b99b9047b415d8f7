// Tables and key/value views laid out to fit a terminal (issue 17): the printer (output.ts) hands
// over escaped cells, this decides what is shown at which width. Columns are two spaces apart, no
// borders. With a width (a terminal): text columns are cut with `…`, widest first, down to a
// floor; when the table still does not fit, whole columns are hidden, the highest priority
// number first (ties: the rightmost), never the last one left. Columns that are never cut (ids,
// amounts with their currency, times, statuses) are hidden rather than cut; the last column left
// is printed whole when it is one of those, so a terminal narrower than an id still gets the id
// whole (the line is wider than the terminal there). Without a width (--wide, or not a
// terminal), every column at its full width. Display widths as src/io/width.ts measures them.
import { displayWidth, truncate, wrap } from './width.js';

/** Spaces between two columns. */
export const GAP = 2;
/** A text column is not cut narrower than this (or its header, if wider), unless it is the only column left. */
export const TEXT_MIN = 8;
/** A key/value view stacks each value under its key when less than this is left beside the keys. */
export const VALUE_MIN = 16;

export interface Cell {
  /** Escaped text, one line. */
  text: string;
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
 * no limit). `natural`: each column's width with nothing cut (its header and widest cell).
 */
export function fitColumns(cols: readonly FitColumn[], natural: readonly number[], width: number | undefined): Fit {
  const all = cols.map((_, i) => i);
  const widths = [...natural];
  if (width === undefined || cols.length === 0) return { shown: all, hidden: [], widths };
  const min = cols.map((c, i) => (c.cut ? Math.min(natural[i]!, Math.max(displayWidth(c.header), TEXT_MIN)) : natural[i]!));
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
    shown.delete(i);
  }
  const ids = all.filter((j) => shown.has(j));
  const hidden = all.filter((j) => !shown.has(j));
  if (sum(ids, natural) + gaps(ids.length) > width) {
    const cuts = ids.filter((i) => cols[i]!.cut);
    const room =
      width -
      gaps(ids.length) -
      sum(
        ids.filter((i) => !cols[i]!.cut),
        natural,
      );
    if (ids.length === 1 && cuts.length === 1) {
      // The only column left: cut to the width, its header too.
      widths[ids[0]!] = Math.max(1, Math.min(natural[ids[0]!]!, width));
    } else if (cuts.length > 0) {
      // Water-filling: the widest cut first, to the largest common cap that fits.
      const capped = (cap: number) => cuts.reduce((s, i) => s + Math.max(min[i]!, Math.min(natural[i]!, cap)), 0);
      let lo = 0;
      let hi = Math.max(...cuts.map((i) => natural[i]!));
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (capped(mid) <= room) lo = mid;
        else hi = mid - 1;
      }
      let left = room - capped(lo);
      for (const i of cuts) widths[i] = Math.max(min[i]!, Math.min(natural[i]!, lo));
      for (const i of cuts) {
        if (left <= 0) break;
        if (widths[i]! < natural[i]!) {
          widths[i]!++;
          left--;
        }
      }
    }
  }
  return { shown: ids, hidden, widths };
}

/** The natural width of each column: its header and its widest cell. */
export function naturalWidths(headers: readonly string[], rows: readonly (readonly Cell[])[]): number[] {
  const widths = headers.map((h) => displayWidth(h));
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const c = row[i]!;
      const w = (c.width ??= displayWidth(c.text));
      if (w > (widths[i] ?? 0)) widths[i] = w;
    }
  }
  return widths;
}

/** One line of a table: the shown cells, cut where their column is narrower, padded, painted; no trailing spaces. */
function line(cells: readonly Cell[], fit: Fit): string {
  const parts: string[] = [];
  fit.shown.forEach((i, n) => {
    const cell = cells[i] ?? { text: '' };
    const w = fit.widths[i]!;
    const full = cell.width ?? displayWidth(cell.text);
    const text = full > w ? truncate(cell.text, w) : cell.text;
    const painted = cell.paint && text ? cell.paint(text) : text;
    const last = n === fit.shown.length - 1;
    parts.push(last ? painted : painted + ' '.repeat(Math.max(0, w - (text === cell.text ? full : displayWidth(text)))));
  });
  return parts.join(' '.repeat(GAP)).replace(/ +$/, '');
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
  const fit = fitColumns(
    cols,
    naturalWidths(
      cols.map((c) => c.header),
      rows,
    ),
    width,
  );
  const lines = [
    line(
      cols.map((c) => ({ text: c.header, paint: paintHeader })),
      fit,
    ),
  ];
  for (const row of rows) lines.push(line(row, fit));
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
