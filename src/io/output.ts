// The printers: table (people), tsv (pipes, the default off a terminal), csv (its own writer,
// csv.ts), json, ndjson; --jq runs over what json would print (jq.ts, loaded by the dispatcher).
// stdout carries data only; notes about the data (an empty list) go to stderr. Every text cell and
// key goes through escapeText (no control or bidi character from the data reaches the terminal);
// json and ndjson are the data exactly (on a terminal, what a terminal would act on is written as
// JSON escapes: escapeJson, the same data).
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import { csvHeader, csvRecord } from './csv.js';
import { escapeJson, escapeText, escapeValue } from './escape.js';
import { getPath, pickPaths } from './fields.js';
import type { IOStreams } from './iostreams.js';
import type { OutputFormat, OutputSettings } from './output-options.js';
import { asText } from '../lib/text.js';

export { OUTPUT_FORMATS, resolveOutput, type OutputFlags, type OutputFormat, type OutputSettings } from './output-options.js';

export type ColumnKind = 'text' | 'money' | 'status' | 'time';
export interface Column {
  header: string;
  path: string;
  kind?: ColumnKind;
  /** For money: where the currency is (default: `currency` beside the amount). */
  currencyPath?: string;
}

/** An array inside one object, shown as its own table under the key/value view (terminal only). */
export interface SubTable {
  title: string;
  path: string;
  columns: Column[];
}

const GOOD = new Set(['active', 'completed', 'succeeded', 'approved', 'delivered', 'posted', 'paid', 'accepted', 'open', 'verified']);
const WAITING = new Set(['pending', 'in_review', 'inactive', 'received', 'processing', 'not_started']);
const BAD = new Set(['failed', 'rejected', 'terminated', 'cancelled', 'closed', 'removed', 'expired', 'disabled', 'voided', 'used']);

export class Printer {
  private readonly chalk: ChalkInstance;

  constructor(
    private readonly io: IOStreams,
    private readonly settings: OutputSettings,
    private readonly columns: readonly Column[],
  ) {
    this.chalk = new Chalk({ level: io.colorEnabled ? 1 : 0 });
  }

  get format(): OutputFormat {
    return this.settings.format;
  }

  /** Columns in use: --fields, or the resource's defaults. */
  private activeColumns(): Column[] {
    if (!this.settings.fields) return [...this.columns];
    return this.settings.fields.map(
      (path) => this.columns.find((c) => c.path === path) ?? { header: path.toUpperCase().replace(/\./g, '_'), path },
    );
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
    const table = new Table({ chars: BORDERLESS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 } });
    for (const c of cols) {
      table.push([this.chalk.dim(escapeText(c.path)), this.cell(obj, this.columns.find((k) => k.path === c.path) ?? c)]);
    }
    this.io.out(`${table.toString()}\n`);
    for (const t of sub) {
      const items = getPath(obj, t.path);
      const rows = Array.isArray(items) ? items : [];
      this.io.out(`\n${this.chalk.bold(t.title)} (${rows.length})\n`);
      if (rows.length === 0) continue;
      const inner = new Table({
        head: t.columns.map((c) => this.chalk.bold(c.header)),
        chars: BORDERLESS,
        style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
      });
      for (const item of rows) inner.push(t.columns.map((c) => this.cell(item, c)));
      this.io.out(`${inner.toString().replace(/[ ]+$/gm, '')}\n`);
    }
  }

  /**
   * A list, page by page. json: one array (streamed); ndjson and tsv: a line per item as pages
   * arrive (constant memory); table: collected, then aligned. Returns the number of items.
   */
  async printList(pages: AsyncIterable<readonly unknown[]>, noun: string): Promise<number> {
    const { format } = this.settings;
    let count = 0;
    if (this.settings.jq) {
      // The filter sees the whole list (every page with --all), as one array.
      const items: unknown[] = [];
      for await (const page of pages) for (const item of page) items.push(this.project(item));
      count = items.length;
      if (count === 0) this.io.err(`No ${noun} found.\n`);
      this.settings.jq.run(JSON.stringify(items), (t) => this.io.out(t));
      return count;
    }
    if (format === 'table') {
      const cols = this.activeColumns();
      const table = new Table({
        head: cols.map((c) => this.chalk.bold(c.header)),
        chars: BORDERLESS,
        style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
      });
      for await (const page of pages) {
        for (const item of page) {
          table.push(cols.map((c) => this.cell(item, c)));
          count++;
        }
      }
      if (count > 0) this.io.out(`${table.toString().replace(/[ ]+$/gm, '')}\n`);
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
    if (count === 0) this.io.err(`No ${noun} found.\n`);
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

  private cell(obj: unknown, col: Column): string {
    const value = getPath(obj, col.path);
    if (value === undefined || value === null || value === '') return this.chalk.dim('-');
    switch (col.kind ?? (isTimePath(col.path) ? 'time' : undefined)) {
      case 'money': {
        const cur = getPath(obj, col.currencyPath ?? siblingPath(col.path, 'currency'));
        return typeof cur === 'string' ? `${escapeValue(value)} ${escapeText(cur)}` : escapeValue(value);
      }
      case 'status':
        return this.status(asText(value));
      case 'time':
        return escapeText(formatTime(asText(value)));
      default:
        return escapeValue(value);
    }
  }

  private status(s: string): string {
    if (GOOD.has(s)) return this.chalk.green(s);
    if (WAITING.has(s)) return this.chalk.yellow(s);
    if (BAD.has(s)) return this.chalk.red(s);
    if (s === 'frozen') return this.chalk.cyan(s);
    return escapeText(s);
  }
}

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};

/** Two spaces before each line. Only \n ends a line: a /^/m regex would also indent after a U+2028 or U+2029 inside a string and change the data. */
function indent(json: string): string {
  return `  ${json.replace(/\n/g, '\n  ')}`;
}

function siblingPath(path: string, name: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? name : `${path.slice(0, i)}.${name}`;
}

/** Every `*_at` field is a time (created_at, updated_at, expires_at, …): shown by formatTime in tables and get views. */
export function isTimePath(path: string): boolean {
  return /(?:^|\.)[a-z0-9_]*_at$/.test(path);
}

/** `2026-11-23T03:46:20.123Z` → `2026-11-23 03:46:20Z` for people: the one rendering of a time in tables and get views. */
export function formatTime(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]}Z` : iso;
}

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
