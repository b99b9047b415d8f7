// Streaming readers for bulk input: NDJSON, CSV (header row, dotted column names nest) and a JSON
// array, from a file or stdin, one row at a time: memory stays flat for a million-line file.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from '../lib/errors.js';
import { readProblem } from '../lib/read-limited.js';

export interface Row {
  /** 1-based line (NDJSON, CSV) or element number (JSON array). */
  line: number;
  /** The row's text as read, for its idempotency key. */
  text: string;
  /** The text is the JSON of `value` (NDJSON and JSON-array rows; not CSV). */
  json?: boolean;
  value?: Record<string, unknown>;
  error?: string;
}

export type InputFormat = 'ndjson' | 'csv' | 'json';

/**
 * The longest row read (in characters). A row is one object: far below this. Without a bound,
 * a wrong file (/dev/zero, a binary, a log with no newline) would grow one row until memory ran out.
 */
export const MAX_ROW_CHARS = 1 << 20;

function tooLong(where: string): UsageError {
  return new UsageError(`${where}: a row longer than 1 MiB; the input is not one object per line (is it the right file?)`);
}

export function formatFor(path: string): InputFormat | undefined {
  if (/\.(ndjson|jsonl)$/i.test(path)) return 'ndjson';
  if (/\.csv$/i.test(path)) return 'csv';
  if (/\.json$/i.test(path)) return 'json';
  return undefined;
}

/**
 * How many rows a regular file holds (its non-blank lines; less the header for CSV), for the
 * progress bar's total; counted in a pass of its own while the rows are sent, terminals only.
 * Undefined for stdin, a JSON array or a format still to be sniffed. A CSV with newlines inside
 * quoted cells counts a little high.
 */
export async function countRows(path: string, format: InputFormat | undefined): Promise<number | undefined> {
  if (path === '-' || (format !== 'ndjson' && format !== 'csv')) return undefined;
  let lines = 0;
  let blank = true;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]!;
        if (b === 0x0a) {
          if (!blank) lines++;
          blank = true;
        } else if (blank && b !== 0x20 && b !== 0x0d && b !== 0x09) blank = false;
      }
    }
  } catch {
    return undefined;
  }
  if (!blank) lines++;
  return format === 'csv' ? Math.max(0, lines - 1) : lines;
}

export function openInput(path: string, stdin: Readable): Readable {
  return path === '-' ? stdin : createReadStream(path);
}

/** Rows of the input; the format comes from the extension, or is sniffed from the first character. */
export async function* readRows(input: Readable, format: InputFormat | undefined): AsyncGenerator<Row> {
  input.setEncoding('utf8');
  const first = await peekFirstChar(input);
  const fmt = format ?? (first.char === '[' ? 'json' : first.char === '{' ? 'ndjson' : 'csv');
  const source = first.rest;
  if (fmt === 'json') yield* jsonArray(source);
  else if (fmt === 'ndjson') yield* ndjson(source);
  else yield* csv(source);
}

async function peekFirstChar(input: Readable): Promise<{ char: string; rest: AsyncIterable<string> }> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<string>;
  const buffered: string[] = [];
  let char = '';
  try {
    while (!char) {
      const n = await it.next();
      if (n.done) break;
      // A byte order mark (Excel's "CSV UTF-8", Notepad) is not part of the first row.
      const chunk = buffered.length === 0 && n.value.charCodeAt(0) === 0xfeff ? n.value.slice(1) : n.value;
      buffered.push(chunk);
      char = /\S/.exec(chunk)?.[0] ?? '';
    }
  } catch (err) {
    throw new UsageError(`cannot read the input file (${readProblem(err)})`);
  }
  async function* rest(): AsyncGenerator<string> {
    yield* buffered;
    for (;;) {
      const n = await it.next();
      if (n.done) return;
      yield n.value;
    }
  }
  return { char, rest: rest() };
}

/** Lines without their \n or \r\n; a line past `max` characters throws `tooLongAt(its number)`. */
export async function* linesOf(
  chunks: AsyncIterable<string>,
  max = MAX_ROW_CHARS,
  tooLongAt: (line: number) => Error = (line) => tooLong(`line ${line}`),
): AsyncGenerator<string> {
  let carry = '';
  let line = 0;
  for await (const chunk of chunks) {
    carry += chunk;
    let i: number;
    while ((i = carry.indexOf('\n')) >= 0) {
      line++;
      yield carry.slice(0, i).replace(/\r$/, '');
      carry = carry.slice(i + 1);
    }
    if (carry.length > max) throw tooLongAt(line + 1);
  }
  if (carry) yield carry.replace(/\r$/, '');
}

async function* ndjson(chunks: AsyncIterable<string>): AsyncGenerator<Row> {
  let line = 0;
  for await (const text of linesOf(chunks)) {
    line++;
    if (!text.trim()) continue;
    yield parseObject(line, text);
  }
}

function parseObject(line: number, text: string): Row {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { line, text, error: 'not a JSON object' };
    return { line, text, json: true, value: value as Record<string, unknown> };
  } catch (err) {
    return { line, text, error: `invalid JSON: ${(err as Error).message.split('\n')[0]}` };
  }
}

/** CSV per RFC 4180 (quoted fields, doubled quotes, newlines inside quotes); empty cells are left out. */
async function* csv(chunks: AsyncIterable<string>): AsyncGenerator<Row> {
  let header: string[] | undefined;
  let record: string[] = [];
  let field = '';
  let text = '';
  let state: 'start' | 'plain' | 'quoted' | 'quote' = 'start';
  let line = 1;
  let startLine = 1;
  const endRecord = (): Row | undefined => {
    record.push(field);
    const cells = record;
    const raw = text;
    record = [];
    field = '';
    text = '';
    state = 'start';
    if (cells.length === 1 && cells[0] === '') return undefined;
    if (!header) {
      header = cells.map((h) => h.trim());
      const bad = header.find((h) => !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(h));
      if (bad !== undefined) throw new UsageError(`CSV header: invalid column name "${bad}" (use names like first_name or address.city)`);
      return undefined;
    }
    if (cells.length !== header.length) return { line: startLine, text: raw, error: `has ${cells.length} cells, the header has ${header.length}` };
    const value: Record<string, unknown> = {};
    header.forEach((h, i) => {
      if (cells[i] !== '') setNested(value, h, cells[i]!);
    });
    return { line: startLine, text: raw, value };
  };
  for await (const chunk of chunks) {
    for (const ch of chunk) {
      if (ch === '\n' && state !== 'quoted') {
        const row = endRecord();
        line++;
        startLine = line;
        if (row) yield row;
        continue;
      }
      if (ch === '\n') line++;
      if (ch === '\r' && state !== 'quoted') continue;
      text += ch;
      if (text.length > MAX_ROW_CHARS) throw tooLong(`line ${startLine}`);
      if (state === 'quoted') {
        if (ch === '"') state = 'quote';
        else field += ch;
      } else if (ch === '"' && state === 'start') {
        state = 'quoted';
      } else if (ch === '"' && state === 'quote') {
        field += '"';
        state = 'quoted';
      } else if (ch === ',') {
        record.push(field);
        field = '';
        state = 'start';
      } else {
        field += ch;
        state = 'plain';
      }
    }
  }
  if (field !== '' || record.length > 0) {
    const row = endRecord();
    if (row) yield row;
  }
}

function setNested(obj: Record<string, unknown>, path: string, value: string): void {
  const parts = path.split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** Elements of a top-level JSON array, split by a small scanner (strings and nesting aware). */
async function* jsonArray(chunks: AsyncIterable<string>): AsyncGenerator<Row> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let started = false;
  let ended = false;
  let current = '';
  let n = 0;
  for await (const chunk of chunks) {
    for (const ch of chunk) {
      if (ended) {
        if (/\S/.test(ch)) throw new UsageError('the JSON input has data after its closing ]');
        continue;
      }
      if (!started) {
        if (ch === '[') started = true;
        else if (/\S/.test(ch)) throw new UsageError('the JSON input must be an array of objects');
        continue;
      }
      if (inString) {
        current += ch;
        if (current.length > MAX_ROW_CHARS) throw tooLong(`element ${n + 1}`);
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      if (ch === '{' || ch === '[') depth++;
      if (ch === '}' || ch === ']') {
        if (depth === 0 && ch === ']') {
          if (current.trim()) yield parseObject(++n, current.trim());
          ended = true;
          continue;
        }
        depth--;
      }
      if (ch === ',' && depth === 0) {
        yield parseObject(++n, current.trim());
        current = '';
        continue;
      }
      current += ch;
      if (current.length > MAX_ROW_CHARS) throw tooLong(`element ${n + 1}`);
    }
  }
  if (!ended) throw new UsageError('the JSON input ends before its closing ]');
}

