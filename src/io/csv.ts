// -o csv: RFC 4180. A header row of field paths (--no-header drops it), then one record per
// object; records end with CRLF, as RFC 4180 says. A field holding a comma, a double quote, a
// CR or an LF is quoted, its quotes doubled. Nested values (objects, arrays) are their JSON.
//
// Two guards, because a CSV file is read by spreadsheets and shown on terminals:
// - Formula injection (OWASP "CSV Injection"): a text that starts with =, +, -, @, a tab or a CR
//   is prefixed with a single quote, so a spreadsheet shows it as text instead of running it.
//   Plain numbers are left alone (-25.00, +447700900123 are data, not formulas). The data is then
//   changed in those cells: -o json (or tsv) gives it exactly.
// - The terminal: when stdout is a terminal, every cell goes through escapeText (control, bidi
//   and invisible characters escaped; a line break in a cell is shown \n, so a record stays one
//   line). Into a pipe or a file the text is exact, line breaks quoted as RFC 4180 says.
import { asText } from '../lib/text.js';
import { escapeText } from './escape.js';

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The text of one value: strings as they are, nested values as JSON, nothing for null or absent. */
function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return asText(value);
}

/** One CSV field: guarded against formulas, escaped on a terminal, quoted where RFC 4180 needs it. */
export function csvField(value: unknown, tty: boolean): string {
  let text = textOf(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  if (tty) text = escapeText(text);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record: the fields joined by commas, ended by CRLF. */
export function csvRecord(values: readonly unknown[], tty: boolean): string {
  return `${values.map((v) => csvField(v, tty)).join(',')}\r\n`;
}

/** The header record: column names are field paths (ours), escaped all the same. */
export function csvHeader(names: readonly string[], tty: boolean): string {
  return `${names.map((n) => csvField(n, tty)).join(',')}\r\n`;
}
