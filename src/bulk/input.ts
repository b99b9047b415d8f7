// Streaming readers for bulk input: NDJSON, CSV (header row, dotted column names nest) and a JSON
// array, from a file or stdin, one row at a time: memory stays flat for a million-line file.
// Keys and shapes go through src/lib/safe-json.ts: a row or column with a key `__proto__`,
// `constructor` or `prototype`, an over-long key or nesting too deep stops the input with a
// UsageError naming the input, the line and the key path (a forbidden key in a file: checkInput,
// before any row is sent).
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from '../lib/errors.js';
import { readProblem } from '../lib/read-limited.js';
import { keyProblem, MAX_DEPTH, setPath, shapeMessage, shapeProblem } from '../lib/safe-json.js';

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
 * quoted cells counts a little high. Lines end at LF, CR or CRLF, as the readers read them.
 */
export async function countRows(path: string, format: InputFormat | undefined): Promise<number | undefined> {
  if (path === '-' || (format !== 'ndjson' && format !== 'csv')) return undefined;
  let lines = 0;
  let blank = true;
  // A line ends at LF, CR or CRLF (the LF after a CR ends nothing more: the line is blank then).
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]!;
        if (b === 0x0a || b === 0x0d) {
          if (!blank) lines++;
          blank = true;
        } else if (blank && b !== 0x20 && b !== 0x09) blank = false;
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

/**
 * Rows of the input; the format comes from the extension, or is sniffed from the first character.
 * `name` (the file as the user gave it, or "standard input") starts the messages of errors that stop
 * the input; without it they start with the line.
 */
export async function* readRows(input: Readable, format: InputFormat | undefined, name?: string): AsyncGenerator<Row> {
  input.setEncoding('utf8');
  const first = await peekFirstChar(input);
  const fmt = format ?? (first.char === '[' ? 'json' : first.char === '{' ? 'ndjson' : 'csv');
  const source = first.rest;
  const at = (place: string): string => (name ? `${name}: ${place}` : place);
  if (fmt === 'json') yield* jsonArray(source, at);
  else if (fmt === 'ndjson') yield* ndjson(source, at);
  else yield* csv(source, at);
}

/**
 * Checks a regular file, before any row is sent, for a key `__proto__`, `constructor` or
 * `prototype` (and a bad CSV header): such a file is refused whole, not after the rows before the
 * poisoned one. A native scan of the raw bytes looks for those names and for \u escapes (which
 * could spell one); only a file where it finds one is read through row by row (reporting the first
 * error that stops the input, whatever it is), otherwise just its first row (a CSV's header). A
 * row nested too deep, with an over-long key or past 1 MiB stops the run at that row, as does any
 * such error from standard input, a pipe or a device (read once only). A row that is merely invalid
 * (not JSON, a wrong cell count) is the run's to report; read failures too.
 */
export async function checkInput(path: string, format: InputFormat | undefined, name = path): Promise<void> {
  if (path === '-') return;
  try {
    if (!statSync(path).isFile()) return;
  } catch {
    return;
  }
  const whole = await mayHoldForbiddenKey(path).catch(() => false);
  const stream = createReadStream(path);
  try {
    for await (const _row of readRows(stream, format, name)) if (!whole) break;
  } catch (err) {
    if (err instanceof UsageError) throw err;
  } finally {
    stream.destroy();
  }
}

/** Byte patterns a forbidden key needs: its name as written, or a \u escape in it. */
const SUSPECT = ['__proto__', 'constructor', 'prototype', '\\u'].map((p) => Buffer.from(p));

/** Whether the file's bytes hold one of SUSPECT (Buffer.indexOf: memchr speed, no decoding). */
async function mayHoldForbiddenKey(path: string): Promise<boolean> {
  let tail = Buffer.alloc(0);
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      // The last bytes of the chunk before: a name split between two chunks is still seen.
      const bytes = tail.length ? Buffer.concat([tail, chunk]) : chunk;
      if (SUSPECT.some((p) => bytes.includes(p))) return true;
      tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 16)));
    }
    return false;
  } finally {
    stream.destroy();
  }
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

/** Lines without their end (LF, CRLF, or CR alone: JSON text holds none raw); a line past `max` characters throws `tooLongAt(its number)`. */
export async function* linesOf(
  chunks: AsyncIterable<string>,
  max = MAX_ROW_CHARS,
  tooLongAt: (line: number) => Error = (line) => tooLong(`line ${line}`),
): AsyncGenerator<string> {
  let carry = '';
  let line = 0;
  // The last chunk ended with a CR: an LF at the start of the next one belongs to it.
  let crEnd = false;
  for await (const chunk of chunks) {
    carry += crEnd && chunk.startsWith('\n') ? chunk.slice(1) : chunk;
    crEnd = false;
    let i: number;
    while ((i = carry.search(/[\r\n]/)) >= 0) {
      if (carry[i] === '\r' && i === carry.length - 1) {
        crEnd = true;
        line++;
        yield carry.slice(0, i);
        carry = '';
        break;
      }
      line++;
      yield carry.slice(0, i);
      carry = carry.slice(carry[i] === '\r' && carry[i + 1] === '\n' ? i + 2 : i + 1);
    }
    if (carry.length > max) throw tooLongAt(line + 1);
  }
  if (carry) yield carry;
}

async function* ndjson(chunks: AsyncIterable<string>, at: (place: string) => string): AsyncGenerator<Row> {
  let line = 0;
  for await (const text of linesOf(chunks, MAX_ROW_CHARS, (n) => tooLong(at(`line ${n}`)))) {
    line++;
    if (!text.trim()) continue;
    yield parseObject(line, text, () => at(`line ${line}`));
  }
}

/**
 * One JSON row. Invalid JSON or a non-object is that row's failure; a bad key or shape (see
 * safe-json.ts) throws: the input is hostile or broken, not one row of it.
 */
function parseObject(line: number, text: string, where: () => string): Row {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { line, text, error: `invalid JSON: ${(err as Error).message.split('\n')[0]}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { line, text, error: 'not a JSON object' };
  const problem = shapeProblem(value);
  if (problem) throw new UsageError(shapeMessage(where(), problem));
  return { line, text, json: true, value: value as Record<string, unknown> };
}

/**
 * The header's column names split at their dots, or a UsageError naming the column: names like
 * first_name or address.city, no forbidden or over-long key, not too deep, no column twice and
 * no column that is also the parent of another (`address` and `address.city`).
 */
function headerColumns(header: readonly string[], where: string): string[][] {
  const columns: string[][] = [];
  const seen = new Set<string>();
  for (const h of header) {
    const shown = JSON.stringify(h.length > 120 ? `${h.slice(0, 120)}…` : h).replace(
      /[^\x20-\x7e]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    const control = /[\x00-\x1f\x7f-\x9f]/.exec(h);
    if (control) {
      const code = `U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      throw new UsageError(
        `${where}: column name ${shown} holds a control character (${code}); a column name is one line of letters, digits, _ and .`,
      );
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(h)) {
      throw new UsageError(`${where}: invalid column name ${shown} (use names like first_name or address.city)`);
    }
    const parts = h.split('.');
    for (const p of parts) {
      const problem = keyProblem(p);
      if (problem) throw new UsageError(`${where}: column ${shown}: ${problem}`);
    }
    if (parts.length > MAX_DEPTH) throw new UsageError(`${where}: column ${shown}: nested deeper than ${MAX_DEPTH} levels`);
    if (seen.has(h)) throw new UsageError(`${where}: column ${shown} appears twice`);
    seen.add(h);
    columns.push(parts);
  }
  for (const h of seen) {
    for (let i = h.indexOf('.'); i > 0; i = h.indexOf('.', i + 1)) {
      if (seen.has(h.slice(0, i)))
        throw new UsageError(`${where}: column "${h.slice(0, i)}" is a value, and column "${h}" would make it an object`);
    }
  }
  return columns;
}

/** CSV per RFC 4180 (quoted fields, doubled quotes, newlines inside quotes); empty cells are left out. */
async function* csv(chunks: AsyncIterable<string>, at: (place: string) => string): AsyncGenerator<Row> {
  let header: string[][] | undefined;
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
      // Spaces around a name are trimmed; any other white space or control character is refused (headerColumns).
      header = headerColumns(
        cells.map((h) => h.replace(/^ +| +$/g, '')),
        at(`line ${startLine}: CSV header`),
      );
      return undefined;
    }
    if (cells.length !== header.length)
      return {
        line: startLine,
        text: raw,
        error: `has ${cells.length === 1 ? '1 cell' : `${cells.length} cells`}, the header has ${header.length}`,
      };
    const value: Record<string, unknown> = {};
    header.forEach((parts, i) => {
      if (cells[i] !== '') setPath(value, parts, cells[i]!);
    });
    return { line: startLine, text: raw, value };
  };
  // A record ends at CR, LF or CRLF outside quotes (RFC 4180 says CRLF; Excel for Mac's "CSV
  // (Macintosh)" writes CR alone, most tools LF). `cr`: the last character was a CR that ended a
  // record, so an LF right after it (even in the next chunk) is part of the same line end.
  let cr = false;
  // Inside quotes, line breaks are data (kept as written); they still count as lines for messages.
  let quotedCr = false;
  for await (const chunk of chunks) {
    for (const ch of chunk) {
      if (state !== 'quoted' && (ch === '\n' || ch === '\r')) {
        const afterCr = cr;
        cr = ch === '\r';
        if (ch === '\n' && afterCr) continue;
        const row = endRecord();
        line++;
        startLine = line;
        if (row) yield row;
        continue;
      }
      cr = false;
      if (state === 'quoted') {
        if (ch === '\r' || (ch === '\n' && !quotedCr)) line++;
        quotedCr = ch === '\r';
      }
      text += ch;
      if (text.length > MAX_ROW_CHARS) throw tooLong(at(`line ${startLine}`));
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
  if (field !== '' || record.length > 0 || state === 'quote') {
    const row = endRecord();
    if (row) yield row;
  }
}

/** Elements of a top-level JSON array, split by a small scanner (strings and nesting aware). */
async function* jsonArray(chunks: AsyncIterable<string>, at: (place: string) => string): AsyncGenerator<Row> {
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
        if (/\S/.test(ch)) throw new UsageError(at('the JSON input has data after its closing ]'));
        continue;
      }
      if (!started) {
        if (ch === '[') started = true;
        else if (/\S/.test(ch)) throw new UsageError(at('the JSON input must be an array of objects'));
        continue;
      }
      if (inString) {
        current += ch;
        if (current.length > MAX_ROW_CHARS) throw tooLong(at(`element ${n + 1}`));
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      if (ch === '{' || ch === '[') depth++;
      if (ch === '}' || ch === ']') {
        if (depth === 0 && ch === ']') {
          if (current.trim()) yield element(++n, current.trim());
          ended = true;
          continue;
        }
        depth--;
      }
      if (ch === ',' && depth === 0) {
        yield element(++n, current.trim());
        current = '';
        continue;
      }
      current += ch;
      if (current.length > MAX_ROW_CHARS) throw tooLong(at(`element ${n + 1}`));
    }
  }
  if (!ended) throw new UsageError(at('the JSON input ends before its closing ]'));

  function element(k: number, text: string): Row {
    return parseObject(k, text, () => at(`element ${k}`));
  }
}
