// CSV dialects as spreadsheets and tools write them (issue 24 item 5): generated files whose
// records end in CR (Excel for Mac's "CSV (Macintosh)"), LF or CRLF, mixed within one file, with
// or without a last line end, a byte order mark, blank lines, fields quoted or not, quotes doubled,
// commas, CRs and LFs inside quoted fields, cut into chunks at any point (between a CR and its LF
// too). Every row must come out with exactly its cells (line breaks in quoted cells kept as
// written), and the same row's text (its idempotency key) must not depend on the line ends. Then
// header names holding a control character (CR, LF, tab, NUL, DEL, C1), quoted so they stay in the
// name: refused with one line naming it, before any row.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRows, type Row } from '../../src/bulk/input.js';
import { UsageError } from '../../src/lib/errors.js';

import { count, record } from './helpers.js';

const SEED = Number(process.env.PAY_FUZZ_SEED ?? 2424);

async function read(chunks: string[]): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of readRows(Readable.from(chunks), 'csv', 'rows.csv')) out.push(r);
  return out;
}

/** Cuts `text` at the given fractions (sorted, deduplicated). */
function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const p of points) {
    parts.push(text.slice(from, p));
    from = p;
  }
  parts.push(text.slice(from));
  return parts.filter((p) => p !== '');
}

const END = fc.constantFrom('\r', '\n', '\r\n');
const cellChar = fc.constantFrom('a', 'Z', '7', ' ', ',', '"', '\r', '\n', 'é', '€', ';', '\t');
const cell = fc.array(cellChar, { maxLength: 6 }).map((cs) => cs.join(''));

/** A field as a writer would put it: quoted when it must be (or when the writer quotes everything). */
function field(value: string, quoteAll: boolean): string {
  return quoteAll || /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

const files = fc.record({
  columns: fc.integer({ min: 1, max: 4 }),
  rows: fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
  ends: fc.array(END, { minLength: 8, maxLength: 8 }),
  oneEnd: fc.boolean(),
  lastEnd: fc.boolean(),
  bom: fc.boolean(),
  quoteAll: fc.boolean(),
  blankAfter: fc.option(fc.nat(6), { nil: undefined }),
  cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
});

describe('CSV line ends, quoting and header control characters', () => {
  it(`every row comes out whole whatever the line ends (CR, LF, CRLF, mixed) and chunking (seed ${SEED})`, async () => {
    const started = Date.now();
    const sample = fc.sample(files, { numRuns: count(400, 20_000), seed: SEED });
    const failures: string[] = [];
    const failed = new Set<string | number>();
    let lost = 0;
    let duplicated = 0;
    let byEnding = 0;
    for (const [i, f] of sample.entries()) {
      const fail = (m: string): void => {
        failures.push(m);
        failed.add(i);
      };
      const names = Array.from({ length: f.columns }, (_, k) => `col_${k}`);
      // The first cell never empty: a record of one empty cell is a blank line.
      const rows = f.rows.map((r) => r.slice(0, f.columns).map((v, k) => (k === 0 ? `x${v}` : v)));
      const endOf = (k: number): string => (f.oneEnd ? f.ends[0]! : f.ends[k % f.ends.length]!);
      const build = (end: (k: number) => string): string => {
        let text = f.bom ? '\ufeff' : '';
        const records = [names.join(','), ...rows.map((r) => r.map((v) => field(v, f.quoteAll)).join(','))];
        records.forEach((rec, k) => {
          text += rec;
          if (k < records.length - 1 || f.lastEnd) text += end(k);
          // A blank line between records (an LF right after a CR only completes its CRLF: no harm either way).
          if (f.blankAfter === k && k < records.length - 1) text += end(k + 1);
        });
        return text;
      };
      const text = build(endOf);
      const what = `case ${i} ${JSON.stringify(text).slice(0, 300)}`;
      let got: Row[];
      try {
        got = await read(cut(text, f.cuts));
      } catch (err) {
        fail(`${what}: ${(err as Error).message}`);
        lost += rows.length;
        continue;
      }
      const want = rows.map((r) => Object.fromEntries(r.flatMap((v, k) => (v === '' ? [] : [[names[k]!, v]]))));
      const values = got.map((r) => r.value ?? r.error);
      lost += Math.max(0, want.length - got.length);
      duplicated += Math.max(0, got.length - want.length);
      if (JSON.stringify(values) !== JSON.stringify(want)) {
        fail(`${what}: got ${JSON.stringify(values)}, expected ${JSON.stringify(want)}`);
        continue;
      }
      // The same file with LF ends throughout: the same rows, the same row texts (idempotency keys)
      // for every row whose quoted cells hold no line break.
      const lf = await read([build(() => '\n')]);
      byEnding++;
      for (const [k, r] of got.entries()) {
        if (/[\r\n]/.test(rows[k]!.join(''))) continue;
        if (lf[k]?.text !== r.text) fail(`${what}: row ${k + 1}'s text depends on the line ends: ${JSON.stringify(r.text)}`);
      }
    }
    await record(
      'attack.csv-line-ends',
      'CSV files with CR, LF, CRLF and mixed line ends, quoting, BOM, blank lines, any chunking',
      {
        tried: sample.length,
        passed: sample.length - failed.size,
        lost,
        duplicated,
        leaked: 0,
        extra: { same_keys_checked: byEnding },
      },
      started,
    );
    expect(failures.slice(0, 5).join('\n')).toBe('');
  });

  it(`a control character in a header name is refused with one line, before any row (seed ${SEED + 1})`, async () => {
    const started = Date.now();
    const control = fc
      .oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f }))
      .map((c) => String.fromCharCode(c));
    const sample = fc.sample(fc.record({ control, at: fc.nat(8), end: END, column: fc.nat(2), spaces: fc.boolean() }), {
      numRuns: count(200, 5000),
      seed: SEED + 1,
    });
    const failures: string[] = [];
    const failed = new Set<string | number>();
    let leaked = 0;
    for (const [i, c] of sample.entries()) {
      const fail = (m: string): void => {
        failures.push(m);
        failed.add(i);
      };
      const names = ['first_name', 'last_name', 'email'];
      const name = names[c.column]!;
      const pos = c.at % (name.length + 1);
      const bad = `${c.spaces ? ' ' : ''}${name.slice(0, pos)}${c.control}${name.slice(pos)}`;
      names[c.column] = `"${bad}"`;
      const text = `${names.join(',')}${c.end}Ada,Lovelace,ada@example.com${c.end}`;
      const what = `case ${i} ${JSON.stringify(bad)}`;
      try {
        const rows = await read([text]);
        fail(`${what}: accepted, ${rows.length} rows`);
      } catch (err) {
        const m = (err as Error).message;
        if (!(err instanceof UsageError)) fail(`${what}: not a usage error: ${m}`);
        else if (!/column name .* holds a control character \(U\+[0-9A-F]{4}\)/.test(m)) fail(`${what}: ${m}`);
        // The message is one line with no raw control character in it.
        if (/[\x00-\x1f\x7f-\x9f]/.test(m)) {
          leaked++;
          fail(`${what}: the message holds a raw control character: ${JSON.stringify(m)}`);
        }
      }
    }
    await record(
      'attack.csv-header-control',
      'CSV header names holding a control character (C0, DEL, C1), quoted, at any place',
      { tried: sample.length, passed: sample.length - failed.size, lost: 0, duplicated: 0, leaked },
      started,
    );
    expect(failures.slice(0, 5).join('\n')).toBe('');
  });
});
