// The fitter's heads and tails (#28 items 1, 5 and 7; src/io/table.ts), generated: a cell's head
// (an id, a code) is never cut, its tail (the name beside an id, a code's meaning) is shown whole,
// cut with … or dropped, and gives way before any column is hidden; a column asked about is never
// hidden; no line is wider than the terminal unless what may not be hidden (the asked columns, or
// the one column left) is wider by itself. Through the real Printer too: a failure's meaning at
// 120 columns and dropped before the code at 80, names with --wide and off a terminal, the asked
// e-mail kept whole at 80 and alone at 40.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bufferIOStreams } from '../../src/io/iostreams.js';
import { resolveOutput } from '../../src/io/output-options.js';
import { Printer, type Column, type NameSource } from '../../src/io/output.js';
import { GAP, layoutTable, TAIL_MIN, TEXT_MIN, type Cell, type FitColumn } from '../../src/io/table.js';
import { displayWidth } from '../../src/io/width.js';

const word = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'abcdefghij0123456789'), { minLength: min, maxLength: max }).map((a) => a.join(''));

interface Gen {
  cols: FitColumn[];
  rows: Cell[][];
  width: number;
}

const table: fc.Arbitrary<Gen> = fc
  .record({
    specs: fc.array(fc.record({ cut: fc.boolean(), asked: fc.boolean(), priority: fc.integer({ min: 1, max: 9 }) }), {
      minLength: 1,
      maxLength: 7,
    }),
    rows: fc.integer({ min: 0, max: 5 }),
    width: fc.integer({ min: 10, max: 200 }),
  })
  .chain(({ specs, rows, width }) =>
    fc.record({
      cols: fc.constant(
        specs.map((s, i): FitColumn => {
          const asked = s.asked && !s.cut;
          return { header: `C${i}`, cut: s.cut, priority: s.priority, ...(asked ? { asked, keep: true } : {}) };
        }),
      ),
      rows: fc.array(
        fc.tuple(
          ...specs.map((_, i) =>
            fc.record({ head: word(1, 40), tail: fc.option(word(1, 40), { nil: undefined }) }).map(({ head, tail }): Cell => {
              // Heads carry their column's mark so that one is never found inside another.
              const text = `${String.fromCharCode(65 + i)}${head}`;
              return tail === undefined ? { text } : { text, tail: ` (${tail})` };
            }),
          ),
        ),
        { minLength: rows, maxLength: rows },
      ),
      width: fc.constant(width),
    }),
  );

/** The cells of one line, by the shown columns' starts in the header line. */
function cellsOf(header: string, line: string, shown: readonly string[]): string[] {
  const starts = shown.map((h) => header.indexOf(h));
  return starts.map((s, n) => line.slice(s, n + 1 < starts.length ? starts[n + 1]! - GAP : undefined).trimEnd());
}

describe('fitter: heads, tails and asked columns (fast-check)', () => {
  it('a head is never cut, a tail is whole, cut with … or gone, an asked column is never hidden, lines fit unless what stays is wider', () => {
    fc.assert(
      fc.property(table, ({ cols, rows, width }) => {
        const { lines, hidden } = layoutTable(cols, rows, width);
        const shown = cols.filter((c) => !hidden.includes(c.header));
        for (const c of cols) if (c.asked) expect(hidden).not.toContain(c.header);
        const header = lines[0]!;
        rows.forEach((row, r) => {
          const cells = cellsOf(
            header,
            lines[r + 1]!,
            shown.map((c) => c.header),
          );
          shown.forEach((c, n) => {
            const cell = row[cols.indexOf(c)]!;
            const got = cells[n]!;
            if (c.cut) {
              // A text column: its whole text (tail included) or a start of it ending in …
              const whole = cell.text + (cell.tail ?? '');
              expect(got === whole || (got.endsWith('…') && whole.startsWith(got.slice(0, -1))), `${got} of ${whole}`).toBe(true);
              return;
            }
            expect(got.startsWith(cell.text), `head ${cell.text} in ${got}`).toBe(true);
            const rest = got.slice(cell.text.length);
            if (rest === '') return;
            expect(cell.tail).toBeDefined();
            expect(
              rest === cell.tail || (rest.endsWith('…') && cell.tail!.startsWith(rest.slice(0, -1)) && displayWidth(rest) >= TAIL_MIN),
              rest,
            ).toBe(true);
          });
        });
        const widest = Math.max(...lines.map((l) => displayWidth(l)));
        if (widest > width) {
          // Only what may not be hidden is left: the asked columns, or one column, and it is wider than the terminal at its least.
          expect(shown.every((c) => c.asked) || shown.length === 1, lines.join('\n')).toBe(true);
          const least = shown.reduce(
            (s, c) => {
              const i = cols.indexOf(c);
              const heads = Math.max(displayWidth(c.header), ...rows.map((row) => displayWidth(row[i]!.text)));
              return s + (c.cut ? Math.min(heads, Math.max(TEXT_MIN, displayWidth(c.header))) : heads);
            },
            GAP * (shown.length - 1),
          );
          expect(least).toBeGreaterThan(width);
        }
      }),
      { seed: 2811, numRuns: 600 },
    );
  });

  it('tails give way before any column is hidden: a column is hidden only when the heads alone do not fit', () => {
    fc.assert(
      fc.property(table, ({ cols, rows, width }) => {
        const { hidden } = layoutTable(cols, rows, width);
        const bare = rows.map((row) => row.map((c) => ({ text: c.tail && cols[row.indexOf(c)]!.cut ? c.text + c.tail : c.text })));
        expect(hidden).toEqual(layoutTable(cols, bare, width).hidden);
      }),
      { seed: 2812, numRuns: 400 },
    );
  });
});

const TRANSFER: Column[] = [
  { header: 'ID', path: 'id', priority: 1 },
  { header: 'FROM', path: 'source_account_id', priority: 5 },
  { header: 'TO', path: 'destination_id', priority: 4 },
  { header: 'AMOUNT', path: 'amount', kind: 'money', priority: 2 },
  { header: 'STATUS', path: 'status', kind: 'status', priority: 3 },
  { header: 'FAILURE', path: 'failure_reason', priority: 8, meaning: 'failure_reason' },
];
const acc = (n: number) => `acc_${String(n).padStart(24, '0')}`;
const rows = [
  {
    id: `tr_${'1'.padStart(24, '0')}`,
    source_account_id: acc(1),
    destination_id: acc(2),
    amount: '25.13',
    currency: 'USD',
    status: 'failed',
    failure_reason: 'destination_rejected',
  },
  {
    id: `tr_${'2'.padStart(24, '0')}`,
    source_account_id: acc(2),
    destination_id: acc(1),
    amount: '3.00',
    currency: 'USD',
    status: 'completed',
    failure_reason: null,
  },
];

/** A name source that counts what it was asked. */
function counting(): NameSource & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    names(ids) {
      asked.push([...ids]);
      return Promise.resolve(
        new Map(ids.filter((id) => id === acc(1) || id === acc(2)).map((id) => [id, id === acc(1) ? 'Operating' : 'Payroll'])),
      );
    },
  };
}

async function print(width: number, opts: { tty?: boolean; wide?: boolean; names?: boolean } = { names: false }) {
  const io = bufferIOStreams({ tty: opts.tty ?? true, width });
  const out = resolveOutput({ ...(opts.wide ? { wide: true } : {}), ...(opts.tty === false ? { output: 'table' } : {}) }, io, undefined, {
    env: { TZ: 'UTC' },
    flags: opts.names === false ? { names: false } : {},
  });
  const source = counting();
  await new Printer(io, out, TRANSFER).useNames(source).printList(rows, 'transfers');
  return { stdout: io.stdoutText(), stderr: io.stderrText(), asked: source.asked };
}

describe('Printer: meanings and names as tails', () => {
  it('at 120 columns a failure shows its meaning; at 80 the meaning is cut or dropped before the code is', async () => {
    const wide = await print(120);
    // The room left beside the columns shown goes to the meaning (whole at 160, cut with … at 120).
    expect(wide.stdout).toMatch(/destination_rejected \(receiving bank [a-z ]*…$/m);
    expect((await print(160)).stdout).toMatch(/destination_rejected \(receiving bank refused it\)$/m);
    const narrow = await print(80);
    expect(narrow.stdout).toMatch(/destination_rejected(?: \(recei[a-z ]*…)?$/m);
    for (const l of narrow.stdout.split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(80);
  });

  it('names are looked up once, for the shown columns only, and shown with --wide and off a terminal (-o table); never with --no-names', async () => {
    for (const opts of [{ wide: true }, { tty: false }]) {
      const r = await print(80, opts);
      expect(r.asked).toHaveLength(1);
      expect([...r.asked[0]!].sort()).toEqual([acc(1), acc(2)]);
      expect(r.stdout).toContain(`${acc(1)} (Operating)`);
      expect(r.stdout).toContain(`${acc(2)} (Payroll)`);
    }
    // At 80 columns FROM and TO are hidden: nothing is looked up.
    expect((await print(80, {})).asked).toEqual([]);
    const off = await print(200, { names: false });
    expect(off.asked).toEqual([]);
    expect(off.stdout).not.toContain('Operating');
  });
});

describe('names beside ids are bounded (fast-check)', () => {
  // What no shown text may carry raw: controls, DEL, C1, bidi marks and isolates, separators,
  // invisible format characters, lone surrogates (src/lib/escape.ts escapes them all).
  const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\u{d800}-\u{dfff}]/u;
  const piece = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom('\x1b[31m', '\x1b]0;pwned\x07', '\x9b2J', '\r', '\n', '\t', '\x00', '\u202e', '\u2066', '\ud800', '\udfff'),
    fc.constantFrom('漢字', '😀', '👩‍👩‍👧', '\u200b', '\u200d', '\u0301', '\ufe0f', 'é', 'Ada'),
  );
  const hostile = fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 12 }), fc.constantFrom(1, 2, 50, 5_000, 200_000))
    .map(([parts, times]) => parts.join('').repeat(times))
    .filter((name) => name.trim() !== '');

  /** The name shown beside acc(1) on each line that has it. */
  function tails(text: string): string[] {
    const out: string[] = [];
    for (const line of text.split('\n')) {
      const at = line.indexOf(`${acc(1)} (`);
      if (at < 0) continue;
      // The tail ends its line: the get view's, or the one-column table's (padded).
      out.push(
        line
          .slice(at + acc(1).length + 2)
          .trimEnd()
          .replace(/\)$/, ''),
      );
    }
    return out;
  }

  it('a get view (-o table off a terminal, --wide on one) and an unfitted table show a hostile name escaped, in at most 64 columns', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (name) => {
        const source: NameSource = { names: (ids) => Promise.resolve(new Map(ids.map((id) => [id, name]))) };
        for (const opts of [{ tty: false }, { tty: true, wide: true }]) {
          const io = bufferIOStreams({ tty: opts.tty, width: 80 });
          const out = resolveOutput({ ...(opts.wide ? { wide: true } : {}), ...(opts.tty ? {} : { output: 'table' }) }, io, undefined, {
            env: { TZ: 'UTC' },
            flags: {},
          });
          const get = new Printer(io, out, TRANSFER).useNames(source);
          await get.loadNames([rows[0]]);
          get.printObject(rows[0]);
          await new Printer(io, out, [TRANSFER[1]!]).useNames(source).printList(rows, 'transfers');
          const shown = tails(io.stdoutText());
          expect(shown.length).toBe(2);
          for (const t of shown) {
            expect(t).not.toMatch(RAW);
            expect(displayWidth(t)).toBeLessThanOrEqual(64);
          }
        }
      }),
      { seed: 28_4, numRuns: 150 },
    );
  });
});
