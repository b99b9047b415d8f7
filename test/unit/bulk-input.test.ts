import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_ROW_CHARS, readRows, type Row } from '../../src/bulk/input.js';
import { UsageError } from '../../src/lib/errors.js';

async function rows(text: string | string[], format?: 'csv' | 'ndjson' | 'json'): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of readRows(Readable.from(Array.isArray(text) ? text : [text]), format)) out.push(r);
  return out;
}

describe('readRows', () => {
  it('NDJSON: one object per line, blank lines skipped, bad lines reported with their number', async () => {
    const r = await rows('{"a":1}\n\n{"a":\n[1]\n{"b":"x"}\n');
    expect(r.map((x) => [x.line, x.value ?? x.error])).toEqual([
      [1, { a: 1 }],
      [3, expect.stringMatching(/^invalid JSON/)],
      [4, 'not a JSON object'],
      [5, { b: 'x' }],
    ]);
  });

  it('CSV: header, quotes, doubled quotes, newlines in quotes, dotted columns nest, chunk boundaries', async () => {
    const text = 'first_name,address.city,note\r\nAda,London,"a, ""quoted""\nnote"\nBob,,plain\nCarl,Paris\n';
    const r = await rows([text.slice(0, 17), text.slice(17, 40), text.slice(40)]);
    expect(r.map((x) => [x.line, x.value ?? x.error])).toEqual([
      [2, { first_name: 'Ada', address: { city: 'London' }, note: 'a, "quoted"\nnote' }],
      [4, { first_name: 'Bob', note: 'plain' }],
      [5, 'has 2 cells, the header has 3'],
    ]);
  });

  it('CSV: a bad header is a usage error', async () => {
    await expect(rows('first name,x\n1,2\n', 'csv')).rejects.toThrow(/invalid column name "first name"/);
  });

  it('JSON array: elements streamed, strings with brackets and commas kept whole', async () => {
    const r = await rows(['[{"a":"x,]}"},', ' {"b":[1,2]} ,{"c":{"d":1}}]']);
    expect(r.map((x) => x.value)).toEqual([{ a: 'x,]}' }, { b: [1, 2] }, { c: { d: 1 } }]);
    await expect(rows('[{"a":1}')).rejects.toThrow(/ends before its closing/);
    await expect(rows('[{"a":1}] x', 'json')).rejects.toThrow(/data after/);
  });
});

describe('endless or wrong input is bounded', () => {
  // Chunks of 64 KiB with no newline, more than the bound in total: a file like /dev/zero.
  const endless = (ch: string) => Array.from({ length: Math.ceil(MAX_ROW_CHARS / 65_536) + 2 }, () => ch.repeat(65_536));

  it.each([
    ['ndjson', '{"a":1}\n', 'line 2'],
    ['csv', 'a,b\n', 'line 2'],
    ['json', '[{"a":1},', 'element 2'],
  ] as const)('%s: a row past 1 MiB is a usage error naming where, after the rows before it', async (format, head, where) => {
    const seen: Row[] = [];
    const run = async () => {
      seen.length = 0;
      for await (const r of readRows(Readable.from([head, ...endless(format === 'json' ? ' ' : 'x')]), format)) seen.push(r);
    };
    await expect(run()).rejects.toThrow(new RegExp(`^${where}: a row longer than 1 MiB`));
    await expect(run()).rejects.toBeInstanceOf(UsageError);
    // The rows before it, each once (the CSV's first line is its header: no row).
    expect(seen.map((r) => r.value)).toEqual(format === 'csv' ? [] : [{ a: 1 }]);
  });

  it('NUL bytes (a device, a binary) sniff as CSV and hit the bound too', async () => {
    const run = async () => {
      for await (const r of readRows(Readable.from(endless('\0')), undefined)) void r;
    };
    await expect(run()).rejects.toThrow(/a row longer than 1 MiB/);
  });
});
