// The printers: table (people), tsv (pipes, the default off a terminal), csv (its own writer,
// csv.ts), json, ndjson; --jq runs over what json would print (jq.ts, loaded by the dispatcher).
// stdout carries data only; notes about the data (an empty list, columns hidden to fit the
// terminal) go to stderr. Every text cell and key goes through escapeText (no control or bidi
// character from the data reaches the terminal); json and ndjson are the data exactly (on a
// terminal, what a terminal would act on is written as JSON escapes: escapeJson, the same data).
// Tables and get views on a terminal fit its width (table.ts) unless --wide; elsewhere they are whole.
// Which columns a fitted table keeps (issue 28): a column the command was asked about (`keep`,
// set by the verb from its filter flags), codes (a status, a failure reason: every value one
// snake_case word) and a failure column with a value are never cut. Times go through the one
// formatter (time.ts) in the zone the settings say, named once (a table's header, a get view's
// last line). A table or get view longer than the terminal goes through the pager (pager.ts);
// notes on stderr wait for it, and --quiet silences them.
// A cell's tail (table.ts) is what gives way first when room is short: a failure code's meaning,
// the name beside an id. Names (a customer's, an account's nickname) come from a NameSource the
// verb hands over (src/verbs/names.ts: one GET per distinct id, bounded, cached for the run); they
// are looked up only for the table format (settings.names) and never reach machine formats.
import { Chalk, type ChalkInstance } from 'chalk';
import { csvHeader, csvRecord } from './csv.js';
import { escapeJson, escapeText, escapeValue } from './escape.js';
import { getPath, pickPaths } from './fields.js';
import type { IOStreams } from './iostreams.js';
import type { OutputFormat, OutputSettings } from './output-options.js';
import { afterPager, page } from './pager.js';
import { layoutKeyValues, layoutTable, shownColumns, type Cell, type FitColumn } from './table.js';
import { formatTime, zoneLabel } from './time.js';
import { displayWidth, truncate, wrap } from './width.js';
import { asText } from '../lib/text.js';
import { isId } from '../shared/domain.js';
import { failureMeaning } from '../shared/failure-reasons.js';

export { OUTPUT_FORMATS, resolveOutput, type OutputFlags, type OutputFormat, type OutputSettings } from './output-options.js';

/**
 * How a column's cells are shown and fitted: `id` (ids and other values people copy: a wallet
 * address, a URL), `money` (an amount with its currency), `time` and `status` are never cut (a cut
 * id cannot be copied, a cut amount lies), nor are `number` (a rate, a count, a code): they are
 * shown whole or the column is hidden. `text`
 * is cut with `…` to fit. Without a kind: `time` for `*_at` paths, `id` for `id`, `*_id` and
 * `*.id`, else `text`.
 */
export type ColumnKind = 'text' | 'id' | 'money' | 'number' | 'status' | 'time';
export interface Column {
  header: string;
  path: string;
  kind?: ColumnKind;
  /** For money: where the currency is (default: `currency` beside the amount). */
  currencyPath?: string;
  /**
   * Fitting a table to the terminal: 1 is kept longest, the highest number is hidden first.
   * Default: the column's place in its list (1, 2, …); with --fields, the order given.
   */
  priority?: number;
  /**
   * The command was asked about it (a filter flag on its field: `--email`, `--status`, `--since`
   * for created_at): never cut, and hidden only after every column but the first.
   */
  keep?: boolean;
  /** A code whose meaning is shown beside it, from its table in src/shared/ (`failure_reason`: failure-reasons.ts): `kyc_rejected (a holder failed KYC)`. */
  meaning?: 'failure_reason';
}

/** A column of a table a command declares (a group's, a verb's, a tooling command's): its priority is stated. */
export type TableColumn = Column & { priority: number };

/** An array inside one object, shown as its own table under the key/value view (terminal only). */
export interface SubTable {
  title: string;
  path: string;
  columns: TableColumn[];
}

const GOOD = new Set(['active', 'completed', 'succeeded', 'approved', 'delivered', 'posted', 'paid', 'accepted', 'open', 'verified']);
const WAITING = new Set(['pending', 'in_review', 'inactive', 'received', 'processing', 'not_started']);
const BAD = new Set(['failed', 'rejected', 'terminated', 'cancelled', 'closed', 'removed', 'expired', 'disabled', 'voided', 'used']);

/**
 * A row in one of these states did not move its account's money: a running balance beside it
 * (`balance_after`) is not a balance the account held, so a table shows none there (the JSON keeps it).
 */
const NOT_APPLIED = new Set(['voided', 'failed', 'rejected', 'cancelled', 'declined', 'reversed']);

/** A code: one snake_case (or dotted, dashed) lower-case word, at most CODE_MAX wide: a status, a failure reason, a type. */
const CODE = /^[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)*$/;
const CODE_MAX = 40;
/** The most columns a name beside an id takes (a get view, --wide, an unfitted table): it is cut with `…`. */
export const NAME_MAX = 64;
/** The most characters of a name read at all: 64 columns of escaped text come from fewer. */
const NAME_SCAN = 1024;

/** A name from the service as shown beside an id: escaped, at most NAME_MAX columns (cut with `…`). */
export function shownName(name: string): string {
  if (name.length <= NAME_SCAN) return truncate(escapeText(name), NAME_MAX);
  // Megabytes are not escaped whole to show 64 columns: the start is (never half a surrogate pair).
  let start = name.slice(0, NAME_SCAN);
  if (/[\uD800-\uDBFF]$/.test(start)) start = start.slice(0, -1);
  const text = escapeText(start);
  return displayWidth(text) < NAME_MAX ? `${text}…` : truncate(text, NAME_MAX);
}

/** A column that says why something failed: kept (never cut, hidden last) when any row has a value. */
export function isFailurePath(path: string): boolean {
  return /(?:^|[._])(?:failure|decline|rejection|error)(?:_(?:reason|code|message))?$/.test(path);
}

/**
 * Looks up the names of ids (a customer's name, an account's nickname): ids it cannot name, and
 * lookups that failed, are simply absent from the answer. It never throws.
 */
export interface NameSource {
  names(ids: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

export class Printer {
  private readonly chalk: ChalkInstance;
  /** Paints shared by every cell (a table holds many). */
  private readonly dim = (t: string): string => this.chalk.dim(t);
  /** Where names come from (useNames), and those looked up (loadNames). */
  private source: NameSource | undefined;
  private named: ReadonlyMap<string, string> = new Map();

  constructor(
    private readonly io: IOStreams,
    private readonly settings: OutputSettings,
    private readonly columns: readonly Column[],
  ) {
    this.chalk = new Chalk({ level: io.colorEnabled ? 1 : 0 });
  }

  /** Names beside ids from `source`, when the settings allow them (a table, not --no-names). */
  useNames(source: NameSource | undefined): this {
    this.source = this.settings.names ? source : undefined;
    return this;
  }

  /**
   * Looks up the names of the ids these objects show (every id but an object's own `id`, in
   * `cols`, or for a get view the fields it shows: --fields, else every field), once each, before
   * they are printed. Nothing without a source; a failed lookup leaves the id alone.
   */
  async loadNames(objs: readonly unknown[], cols?: readonly Column[]): Promise<void> {
    if (!this.source || objs.length === 0) return;
    const ids = new Set<string>();
    for (const obj of objs) {
      for (const c of cols ?? (this.settings.fields ? this.activeColumns() : flattenColumns(obj))) {
        const v = c.path === 'id' ? undefined : getPath(obj, c.path);
        if (isId(v) && !this.named.has(v)) ids.add(v);
      }
    }
    if (ids.size === 0) return;
    const found = await this.source.names([...ids]);
    this.named = new Map([...this.named, ...found]);
  }

  get format(): OutputFormat {
    return this.settings.format;
  }

  /** Columns in use, each with its priority: --fields (in the order given, which is their priority), or the resource's defaults. */
  private activeColumns(): TableColumn[] {
    if (!this.settings.fields) return this.columns.map((c, i) => ({ ...c, priority: c.priority ?? i + 1 }));
    return this.settings.fields.map((path, i) => ({
      ...(this.columns.find((c) => c.path === path) ?? { header: path.toUpperCase().replace(/\./g, '_'), path }),
      priority: i + 1,
    }));
  }

  /** The width tables fit: the terminal's, for a table on a terminal without --wide; otherwise none. */
  private fitWidth(): number | undefined {
    return this.settings.format === 'table' && this.io.stdoutIsTTY && !this.settings.wide ? this.io.terminalWidth : undefined;
  }

  /**
   * A table of `rows` under `cols` (their priorities set: activeColumns, a SubTable's), fitted: its
   * text, and the note on stderr naming the columns hidden to fit (empty when none were).
   */
  private tableText(cols: readonly TableColumn[], rows: readonly (readonly Cell[])[]): { text: string; note: string } {
    const width = this.fitWidth();
    const fitCols = this.fitCols(cols, rows);
    const { lines, hidden } = layoutTable(fitCols, rows, width, (t) => this.chalk.bold(t));
    // The note names a hidden time column as declared (the zone is said where the times are).
    const named = hidden.map((h) => escapeText(cols[fitCols.findIndex((c) => c.header === h)]?.header ?? h));
    return { text: `${lines.join('\n')}\n`, note: named.length > 0 ? hiddenNote(named, width!) : '' };
  }

  /** How each column is fitted: its header (a time's with its zone), whether it is cut, kept or asked about. */
  private fitCols(cols: readonly TableColumn[], rows: readonly (readonly Cell[])[]): FitColumn[] {
    const zone = zoneLabel(this.settings.time);
    return cols.map((c, i) => {
      const kind = kindOf(c);
      const values = rows.map((r) => r[i]).filter((cell): cell is Cell => cell !== undefined && !cell.missing);
      const code = kind === 'text' && values.length > 0 && values.every((v) => v.text.length <= CODE_MAX && CODE.test(v.text));
      const failed = isFailurePath(c.path) && values.length > 0;
      const keep = c.keep === true || failed;
      return {
        header: escapeText(kind === 'time' && zone ? `${c.header} (${zone})` : c.header),
        cut: kind === 'text' && !code && !keep,
        priority: keep ? Math.min(c.priority, 1) : c.priority,
        ...(keep ? { keep } : {}),
        ...(c.keep === true ? { asked: true } : {}),
      };
    });
  }

  /** A table written: through the pager when it is longer than the terminal; its note after. */
  private writeTable(cols: readonly TableColumn[], rows: readonly (readonly Cell[])[]): void {
    const { text, note } = this.tableText(cols, rows);
    this.emit(text);
    if (note) this.note(note);
  }

  /** What people read on stdout: paged when the settings name a pager and it is longer than the terminal. */
  private emit(text: string): void {
    page(this.io, text, this.settings.pager, this.io.terminalRows);
  }

  /** A note about the data on stderr (columns hidden, more exist): none with --quiet; after the pager, if one runs. */
  note(text: string): void {
    if (this.settings.quiet) return;
    afterPager(() => this.io.err(text));
  }

  /**
   * A list stopped at its page while the service has more (and --all was not given): says so on
   * stderr, naming the flag that gets the rest. stdout stays data.
   */
  noteMore(count: number, noun: string, flag = '--all'): void {
    this.note(`Showing ${count} of more ${noun} (${flag} gets the rest)\n`);
  }

  private project(obj: unknown): unknown {
    return this.settings.fields ? pickPaths(obj, this.settings.fields) : obj;
  }

  /**
   * One object: as returned (json), one line (ndjson), a record (tsv), a key/value view (table).
   * `tables`: arrays shown as tables below the key/value view (table format without --fields).
   */
  printObject(obj: unknown, tables: readonly SubTable[] = []): void {
    const { format } = this.settings;
    if (format === 'json' || format === 'ndjson') return this.printValue(this.project(obj));
    if (format === 'csv') {
      const cols = this.settings.fields ? this.activeColumns() : flattenColumns(obj);
      if (this.settings.header)
        this.io.out(
          csvHeader(
            cols.map((c) => c.path),
            this.io.stdoutIsTTY,
          ),
        );
      this.io.out(
        csvRecord(
          cols.map((c) => getPath(obj, c.path)),
          this.io.stdoutIsTTY,
        ),
      );
      return;
    }
    if (format === 'tsv') {
      const cols = this.settings.fields ? this.activeColumns() : flattenColumns(obj);
      if (this.settings.header) this.io.out(`${cols.map((c) => escapeText(c.path)).join('\t')}\n`);
      this.io.out(`${cols.map((c) => tsvCell(getPath(obj, c.path))).join('\t')}\n`);
      return;
    }
    const sub = this.settings.fields ? [] : tables;
    const skip = new Set(sub.map((t) => t.path));
    const cols = (this.settings.fields ? this.activeColumns() : flattenColumns(obj)).filter((c) => !skip.has(c.path));
    const pairs = cols.map((c) => {
      const col = this.columns.find((k) => k.path === c.path) ?? c;
      // Any value longer than the room is broken under its key (at spaces where it can, else inside
      // a word), an id too: every character is kept and no line passes the terminal's edge.
      // A get view has room to wrap: a tail (a meaning, a name) is shown whole.
      const cell = this.cell(obj, col);
      return { key: escapeText(c.path), value: cell.tail ? { ...cell, text: cell.text + cell.tail, tail: undefined } : cell };
    });
    const lines = layoutKeyValues(pairs, this.fitWidth(), (t) => this.chalk.dim(t));
    // The zone the view's times are in, said once.
    const zone = zoneLabel(this.settings.time);
    const timed = cols.some((c) => kindOf(this.columns.find((k) => k.path === c.path) ?? c) === 'time');
    if (zone && timed) lines.push(this.chalk.dim(`(times in ${escapeText(zone)})`));
    let text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    const notes: string[] = [];
    for (const t of sub) {
      const items = getPath(obj, t.path);
      const rows = Array.isArray(items) ? items : [];
      text += `\n${this.chalk.bold(escapeText(t.title))} (${rows.length})\n`;
      if (rows.length === 0) continue;
      const table = this.tableText(
        t.columns,
        rows.map((item) => t.columns.map((c) => this.cell(item, c))),
      );
      text += table.text;
      if (table.note) notes.push(table.note);
    }
    if (text) this.emit(text);
    for (const n of notes) this.note(n);
  }

  /**
   * A list, page by page. json: one array (streamed); ndjson and tsv: a line per item as pages
   * arrive (constant memory); table: collected, then aligned. An array is a list of one page.
   * Returns the number of items.
   */
  async printList(list: AsyncIterable<readonly unknown[]> | readonly unknown[], noun: string): Promise<number> {
    const pages: AsyncIterable<readonly unknown[]> | Iterable<readonly unknown[]> = isPages(list) ? list : [list];
    const { format } = this.settings;
    let count = 0;
    if (this.settings.jq) {
      // The filter sees the whole list (every page with --all), as one array.
      const items: unknown[] = [];
      for await (const page of pages) for (const item of page) items.push(this.project(item));
      count = items.length;
      if (count === 0) this.note(`No ${noun} found.\n`);
      this.settings.jq.run(JSON.stringify(items), (t) => this.io.out(t));
      return count;
    }
    if (format === 'table') {
      const cols = this.activeColumns();
      const items: unknown[] = [];
      const rowsOf = () => items.map((item) => cols.map((c) => this.cell(item, c)));
      try {
        for await (const page of pages) items.push(...page);
      } catch (err) {
        // A list that fails half-way (a page refused, a cursor that repeats): the rows it gave
        // are shown (ids without names: nothing more is asked of a service that just failed), as
        // the streamed formats have printed theirs, and the error follows.
        if (items.length > 0) this.writeTable(cols, rowsOf());
        throw err;
      }
      count = items.length;
      if (count > 0) {
        // Only the ids of the columns shown are looked up: which are shown does not depend on names.
        const rows = rowsOf();
        const shown = shownColumns(this.fitCols(cols, rows), rows, this.fitWidth());
        await this.loadNames(
          items,
          shown.map((i) => cols[i]!),
        );
        this.writeTable(cols, rowsOf());
      }
    } else if (format === 'tsv') {
      const cols = this.activeColumns();
      for await (const page of pages) {
        let chunk = '';
        if (count === 0 && page.length > 0 && this.settings.header) chunk += `${cols.map((c) => c.path).join('\t')}\n`;
        for (const item of page) chunk += `${cols.map((c) => tsvCell(getPath(item, c.path))).join('\t')}\n`;
        count += page.length;
        if (chunk) this.io.out(chunk);
      }
    } else if (format === 'csv') {
      const cols = this.activeColumns();
      const tty = this.io.stdoutIsTTY;
      for await (const page of pages) {
        let chunk = '';
        if (count === 0 && page.length > 0 && this.settings.header)
          chunk += csvHeader(
            cols.map((c) => c.path),
            tty,
          );
        for (const item of page)
          chunk += csvRecord(
            cols.map((c) => getPath(item, c.path)),
            tty,
          );
        count += page.length;
        if (chunk) this.io.out(chunk);
      }
    } else if (format === 'ndjson') {
      for await (const page of pages) {
        let chunk = '';
        for (const item of page) chunk += `${JSON.stringify(this.project(item))}\n`;
        count += page.length;
        if (chunk) this.io.out(this.json(chunk));
      }
    } else {
      for await (const page of pages) {
        let chunk = '';
        for (const item of page) chunk += `${count++ === 0 ? '[\n' : ',\n'}${indent(JSON.stringify(this.project(item), null, 2))}`;
        if (chunk) this.io.out(this.json(chunk));
      }
      this.io.out(count === 0 ? '[]\n' : '\n]\n');
    }
    if (count === 0) this.note(`No ${noun} found.\n`);
    return count;
  }

  /**
   * A value that is not a resource's object (a JSON map, a check list, a raw API answer, a dry
   * run's request): JSON as it is (one line with -o ndjson), or through --jq.
   */
  printValue(value: unknown): void {
    const { jq, format } = this.settings;
    if (jq) return jq.run(JSON.stringify(value) ?? 'null', (t) => this.io.out(t));
    this.io.out(this.json(format === 'ndjson' ? `${JSON.stringify(value)}\n` : `${JSON.stringify(value, null, 2)}\n`));
  }

  /** One value of a stream (a delivery heard by webhooks listen): one JSON line, or --jq's output for it. */
  printLine(value: unknown): void {
    const { jq } = this.settings;
    if (jq) return jq.run(JSON.stringify(value) ?? 'null', (t) => this.io.out(t));
    this.io.out(this.json(`${JSON.stringify(value)}\n`));
  }

  /** printLine's text, for a writer of its own (bulk results): one JSON line, or --jq's output for the value (a jq error throws). */
  lineText(value: unknown): string {
    const { jq } = this.settings;
    if (!jq) return this.json(`${JSON.stringify(value)}\n`);
    let text = '';
    jq.run(JSON.stringify(value) ?? 'null', (t) => (text += t));
    return text;
  }

  /** JSON text as written: exact into a pipe or file; on a terminal, with what it would act on escaped (the same data). */
  private json(text: string): string {
    return this.io.stdoutIsTTY ? escapeJson(text) : text;
  }

  /**
   * One cell, escaped, with its colour (a status by state; a missing value a dim `-`), and its
   * tail: a code's meaning, or the name looked up for an id (not the object's own `id`).
   */
  private cell(obj: unknown, col: Column): Cell {
    const value = getPath(obj, col.path);
    if (value === undefined || value === null || value === '') return { text: '-', paint: this.dim, missing: true };
    switch (kindOf(col)) {
      case 'money': {
        // A running balance beside a row that moved nothing (voided, failed) would be a balance never held.
        const status = getPath(obj, 'status');
        if (isBalancePath(col.path) && typeof status === 'string' && NOT_APPLIED.has(status))
          return { text: '-', paint: this.dim, missing: true };
        const cur = getPath(obj, col.currencyPath ?? siblingPath(col.path, 'currency'));
        return { text: typeof cur === 'string' ? `${escapeValue(value)} ${escapeText(cur)}` : escapeValue(value) };
      }
      case 'status':
        return this.status(asText(value));
      case 'time':
        return { text: escapeText(formatTime(asText(value), this.settings.time)) };
      default: {
        const meaning = col.meaning ? failureMeaning(value) : undefined;
        const name = !meaning && col.path !== 'id' && typeof value === 'string' ? this.named.get(value) : undefined;
        const tail = meaning ? ` (${meaning})` : name ? ` (${shownName(name)})` : undefined;
        return tail ? { text: escapeValue(value), tail } : { text: escapeValue(value) };
      }
    }
  }

  private status(s: string): Cell {
    const paint = GOOD.has(s)
      ? this.chalk.green
      : WAITING.has(s)
        ? this.chalk.yellow
        : BAD.has(s)
          ? this.chalk.red
          : s === 'frozen'
            ? this.chalk.cyan
            : undefined;
    return paint ? { text: s, paint } : { text: escapeText(s) };
  }
}

/** Pages to print, not one page given as an array. */
function isPages(list: AsyncIterable<readonly unknown[]> | readonly unknown[]): list is AsyncIterable<readonly unknown[]> {
  return typeof (list as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === 'function';
}

/** The note on stderr when columns were hidden to fit: which, and how to see them; wrapped to the terminal too. */
export function hiddenNote(hidden: readonly string[], width: number): string {
  return `${wrap(`Hidden to fit the terminal's ${width} columns: ${hidden.join(', ')} (--wide shows every column)`, width).join('\n')}\n`;
}

/** A column's kind, given or read from its path (see ColumnKind). */
export function kindOf(col: Column): ColumnKind {
  return col.kind ?? (isTimePath(col.path) ? 'time' : isIdPath(col.path) ? 'id' : 'text');
}

/** `id`, `customer_id`, `source.id`: an id, never cut. */
export function isIdPath(path: string): boolean {
  return /(?:^|[._])id$/.test(path);
}

/** Two spaces before each line. Only \n ends a line: a /^/m regex would also indent after a U+2028 or U+2029 inside a string and change the data. */
function indent(json: string): string {
  return `  ${json.replace(/\n/g, '\n  ')}`;
}

function siblingPath(path: string, name: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? name : `${path.slice(0, i)}.${name}`;
}

/** Every `*_at` field is a time (created_at, updated_at, expires_at, …), and `as_of` (fx rates): shown by formatTime in tables and get views. */
export function isTimePath(path: string): boolean {
  return /(?:^|\.)(?:[a-z0-9_]*_at|as_of)$/.test(path);
}

/** A running balance: `balance_after`, `balance`, `running_balance`. */
export function isBalancePath(path: string): boolean {
  return /(?:^|[._])balance(?:_after)?$/.test(path);
}

export { formatTime } from './time.js';

/** A TSV cell: no raw tab or newline (shown `\t`, `\n`), nor any other control character. */
function tsvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return escapeValue(value);
}

/** Every leaf of an object as a column (for the key/value view of one object). */
function flattenColumns(obj: unknown, prefix = ''): Column[] {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return prefix ? [{ header: prefix, path: prefix }] : [];
  const cols: Column[] = [];
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) cols.push(...flattenColumns(v, path));
    else cols.push({ header: path, path });
  }
  return cols;
}
