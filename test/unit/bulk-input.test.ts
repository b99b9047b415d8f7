import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readRows, type Row } from '../../src/bulk/input.js';
import { LineSet, rowKey } from '../../src/bulk/run.js';

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

describe('keys and resume', () => {
  it('row keys depend on the identity and the text only', () => {
    expect(rowKey('t|sandbox|a.csv', 'x')).toBe(rowKey('t|sandbox|a.csv', 'x'));
    expect(rowKey('t|sandbox|a.csv', 'x')).not.toBe(rowKey('t|live|a.csv', 'x'));
    expect(rowKey('t|sandbox|a.csv', 'x')).toMatch(/^bulk_[0-9a-f]{40}$/);
  });
  it('LineSet grows and answers membership', () => {
    const s = new LineSet();
    s.add(3);
    s.add(1_000_000);
    expect([s.has(3), s.has(4), s.has(1_000_000), s.has(2_000_000)]).toEqual([true, false, true, false]);
  });
});
