// Tables that fit the terminal (issue 17, item 1), in process: display widths, cutting and
// wrapping (src/io/width.ts), the fitter (src/io/table.ts) through the real Printer on a fake
// terminal of 10 to 300 columns, with generated rows of hostile text (wide characters, emoji,
// combining marks, control characters, very long words, empty cells) and generated columns of
// every kind and priority. Every line fits unless the one column left is one that is never cut
// (an id) and wider alone; every id and amount shown is whole; text is whole or cut with `…`;
// columns are hidden only in priority order; the note on stderr names exactly the hidden ones.
// Also: get views wrap values under their key, --wide, COLUMNS, and every group's declarations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hoistVerbFlags } from '../../src/argv.js';
import { allGroups } from '../../src/commands/groups.js';
import { escapeText, escapeValue } from '../../src/lib/escape.js';
import { bufferIOStreams, MAX_COLUMNS, parseColumns, terminalColumns } from '../../src/io/iostreams.js';
import { formatTime, kindOf, Printer, resolveOutput, type Column, type ColumnKind } from '../../src/io/output.js';
import { layoutKeyValues } from '../../src/io/table.js';
import { asText } from '../../src/lib/text.js';
import { codePointWidth, displayWidth, truncate, wrap } from '../../src/io/width.js';
import { pay } from './commands/harness.js';

const NEVER_CUT: ReadonlySet<ColumnKind> = new Set(['id', 'money', 'number', 'status', 'time']);

/** Hostile text: any code point (controls, bidi, surrogates), wide characters, emoji, marks, long words, empty. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom('山', '田', '한', '😀', '👍🏽', 'e\u0301', 'x', ' ', '\u200d', '\u0000', '\u001b', '\u202e', 'ｗ'),
    maxLength: 40,
  }),
  fc.constantFrom('', ' ', '  two  spaces  ', '👨‍👩‍👧‍👦 family', 'ﾃｽﾄ', '\u001b[31mred\u001b[0m', 'line\nbreak\ttab'),
  fc.nat({ max: 400 }).map((n) => 'w'.repeat(n)),
);
const anId = fc.oneof(fc.stringMatching(/^(cus|txn|acc)_[0-9a-z]{24}$/), hostile);
const amount = fc.oneof(fc.stringMatching(/^\d{1,15}\.\d{2}$/), hostile);
const time = fc.oneof(
  fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  hostile,
);

interface Spec {
  cols: Column[];
  rows: Array<Record<string, unknown>>;
  width: number;
}

/** Columns c0…cn (headers H0…Hn), kinds and priorities generated; rows with values to match. */
const spec: fc.Arbitrary<Spec> = fc
  .record({
    kinds: fc.array(fc.constantFrom<ColumnKind>('text', 'text', 'id', 'money', 'number', 'status', 'time'), { minLength: 1, maxLength: 8 }),
    priorities: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 8, maxLength: 8 }),
    width: fc.integer({ min: 10, max: 300 }),
    n: fc.integer({ min: 1, max: 6 }),
    seed: fc.integer(),
  })
  .chain(({ kinds, priorities, width, n }) => {
    const cols: Column[] = kinds.map((kind, i) => ({
      header: `H${i}`,
      path: `c${i}`,
      kind,
      priority: priorities[i]!,
      ...(kind === 'money' ? { currencyPath: 'cur' } : {}),
    }));
    const value = (kind: ColumnKind): fc.Arbitrary<unknown> =>
      fc.oneof(
        { weight: 8, arbitrary: kind === 'id' ? anId : kind === 'money' ? amount : kind === 'time' ? time : hostile },
        { weight: 1, arbitrary: fc.constantFrom(null, undefined, 42, true) },
      );
    const row = fc.record({
      ...Object.fromEntries(cols.map((c) => [c.path, value(c.kind!)])),
      cur: fc.oneof(fc.constantFrom('USD', 'JPY', 'BTC'), hostile),
    });
    return fc.array(row, { minLength: n, maxLength: n }).map((rows) => ({ cols, rows, width }));
  });

/** What the printer shows in a cell before fitting (its own rules, restated). */
function shown(row: Record<string, unknown>, col: Column): string {
  const v = row[col.path];
  if (v === undefined || v === null || v === '') return '-';
  if (col.kind === 'money') return typeof row.cur === 'string' ? `${escapeValue(v)} ${escapeText(row.cur)}` : escapeValue(v);
  if (col.kind === 'time') return escapeText(formatTime(asText(v)));
  if (col.kind === 'status') return escapeText(asText(v));
  return escapeValue(v);
}

/** The part of a line from display column `from` to `to` (marks stay with their base). */
function columnsOf(line: string, from: number, to: number): string {
  let at = 0;
  let inside = false;
  let out = '';
  for (const ch of line) {
    const w = codePointWidth(ch.codePointAt(0)!);
    if (w > 0) inside = at >= from && at < to;
    if (inside) out += ch;
    at += w;
  }
  return out;
}

/** Text without its zero-width characters. */
function visible(text: string): string {
  return [...text].filter((c) => codePointWidth(c.codePointAt(0)!) > 0).join('');
}

/** Hidden first: the highest priority number, then the rightmost. */
function dropOrder(cols: readonly Column[]): number[] {
  return cols.map((_, i) => i).sort((a, b) => cols[b]!.priority! - cols[a]!.priority! || b - a);
}

async function print(s: Spec, opts: { wide?: boolean; tty?: boolean } = {}) {
  const io = bufferIOStreams({ tty: opts.tty ?? true, width: s.width });
  const out = resolveOutput({ output: 'table', ...(opts.wide ? { wide: true } : {}) }, io);
  await new Printer(io, out, s.cols).printList(
    (async function* () {
      yield s.rows;
    })(),
    'things',
  );
  return { stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('display width, cut and wrap', () => {
  it('measures as a terminal draws: wide 2, marks and joiners 0, the rest 1', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('山田太郎')).toBe(8);
    expect(displayWidth('ｗ')).toBe(2);
    expect(displayWidth('ﾃｽﾄ')).toBe(3); // halfwidth katakana
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('👍')).toBe(2);
    expect(displayWidth('👍🏽')).toBe(4); // wcwidth counts the skin tone modifier: never narrower than drawn
    expect(displayWidth('a\u200db')).toBe(2);
    expect(displayWidth('한국어')).toBe(6);
    expect(displayWidth('\u00ad')).toBe(1);
    expect(displayWidth('…')).toBe(1);
  });

  it('truncate: at most the width, a start of the text, … when cut, marks kept with their base', () => {
    fc.assert(
      fc.property(hostile.map(escapeText), fc.integer({ min: 0, max: 60 }), (text, width) => {
        const cut = truncate(text, width);
        if (displayWidth(text) <= width) {
          expect(cut).toBe(text);
        } else {
          expect(cut.endsWith('…')).toBe(true);
          expect(displayWidth(cut)).toBeLessThanOrEqual(Math.max(1, width));
          expect(text.startsWith(cut.slice(0, -1))).toBe(true);
          expect(cut.slice(0, -1).endsWith('\u200d')).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
    expect(truncate('e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301e\u0301');
    expect(truncate('e\u0301e\u0301e\u0301', 2)).toBe('e\u0301…');
    expect(truncate('山田太郎', 5)).toBe('山田…');
  });

  it('wrap: every line at most the width (a character wider than it alone), nothing lost but the spaces broken at', () => {
    fc.assert(
      fc.property(hostile.map(escapeText), fc.integer({ min: 1, max: 50 }), (text, width) => {
        const lines = wrap(text, width);
        for (const l of lines) {
          // Wider than the room: one character, or one escape (never split).
          if (displayWidth(l) > width && !/^\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]{1,6}\}|[tnr])$/.test(l))
            expect([...l].filter((c) => codePointWidth(c.codePointAt(0)!) > 0)).toHaveLength(1);
        }
        expect(lines.join('').replace(/ /g, '')).toBe(text.replace(/ /g, ''));
      }),
      { numRuns: 1000 },
    );
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });
});

describe('a list table on a terminal of 10 to 300 columns, hostile rows', () => {
  it('fits: lines within the width, ids and amounts whole, text whole or cut with …, hidden in priority order and named on stderr', async () => {
    await fc.assert(
      fc.asyncProperty(spec, async (s) => {
        const { stdout, stderr } = await print(s);
        const lines = stdout.replace(/\n$/, '').split('\n');
        expect(lines).toHaveLength(s.rows.length + 1);
        // The header: the columns shown, in table order, at their start columns.
        const heads = [...lines[0]!.matchAll(/H(\d+)/g)].map((m) => ({ i: Number(m[1]), at: m.index }));
        const shownCols = heads.map((h) => h.i);
        expect(shownCols.length).toBeGreaterThan(0);
        expect([...shownCols].sort((a, b) => a - b)).toEqual(shownCols);
        const hidden = s.cols.map((_, i) => i).filter((i) => !shownCols.includes(i));
        // Hidden only in priority order: the hidden ones are the first of the drop order.
        expect(new Set(dropOrder(s.cols).slice(0, hidden.length))).toEqual(new Set(hidden));
        // The note names exactly the hidden columns, in table order; no note when none is hidden.
        // It is wrapped to the terminal too: every line within the width but for a word wider than it.
        if (hidden.length === 0) expect(stderr).toBe('');
        else {
          const note = stderr.trimEnd().split('\n');
          expect(note.join(' ')).toBe(
            `Hidden to fit the terminal's ${s.width} columns: ${hidden.map((i) => `H${i}`).join(', ')} (--wide shows every column)`,
          );
          for (const l of note) expect(displayWidth(l) <= s.width || !l.includes(' '), l).toBe(true);
        }
        const alone = shownCols.length === 1 ? s.cols[shownCols[0]!]! : undefined;
        for (const line of lines) {
          // Wider than the terminal only where the one column left is never cut (an id alone).
          if (displayWidth(line) > s.width) expect(alone && NEVER_CUT.has(alone.kind!)).toBe(true);
        }
        s.rows.forEach((row, r) => {
          const line = lines[r + 1]!;
          heads.forEach((h, n) => {
            const col = s.cols[h.i]!;
            // Zero-width characters take no column: where one at a cell's edge is drawn is not the layout's.
            const want = visible(shown(row, col)).trimEnd();
            const got = visible(columnsOf(line, h.at, n + 1 < heads.length ? heads[n + 1]!.at : Infinity)).trimEnd();
            if (NEVER_CUT.has(col.kind!)) expect(got).toBe(want);
            else if (got !== want) {
              expect(got.endsWith('…'), `cell ${JSON.stringify(got)} of ${JSON.stringify(want)}`).toBe(true);
              expect(want.startsWith(got.slice(0, -1))).toBe(true);
            }
          });
        });
      }),
      { numRuns: 400 },
    );
  });

  it('--wide and off a terminal: every column, every cell whole, no note', async () => {
    await fc.assert(
      fc.asyncProperty(spec, fc.boolean(), async (s, wide) => {
        const { stdout, stderr } = await print(s, wide ? { wide: true } : { tty: false });
        expect(stderr).toBe('');
        const lines = stdout.replace(/\n$/, '').split('\n');
        expect([...lines[0]!.matchAll(/H(\d+)/g)].map((m) => Number(m[1]))).toEqual(s.cols.map((_, i) => i));
        s.rows.forEach((row, r) => {
          for (const col of s.cols) expect(lines[r + 1]).toContain(shown(row, col).trim());
        });
      }),
      { numRuns: 150 },
    );
  });

  it('hides nothing it need not: a column comes back as soon as the terminal has room for it', async () => {
    const cols: Column[] = [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'AMOUNT', path: 'amount', kind: 'money', priority: 2 },
      { header: 'NOTE', path: 'note', priority: 3 },
    ];
    const rows = [{ id: 'txn_0123456789abcdefghijklmn', amount: '12.50', currency: 'USD', note: 'a long description of what happened' }];
    const at = (width: number) => print({ cols, rows, width });
    // 28 + 2 + 9 (12.50 USD) = 39; the note needs 2 + 8 more.
    expect((await at(38)).stdout).toBe('ID\ntxn_0123456789abcdefghijklmn\n');
    expect((await at(38)).stderr).toContain(': AMOUNT, NOTE (');
    expect((await at(39)).stdout).toBe('ID                            AMOUNT\ntxn_0123456789abcdefghijklmn  12.50 USD\n');
    expect((await at(49)).stdout).toBe(
      'ID                            AMOUNT     NOTE\ntxn_0123456789abcdefghijklmn  12.50 USD  a long …\n',
    );
    expect((await at(49)).stderr).toBe('');
    expect((await at(76)).stdout).toContain('a long description of what happened\n');
    // Narrower than the id: the id whole all the same.
    expect((await at(10)).stdout).toBe('ID\ntxn_0123456789abcdefghijklmn\n');
  });

  it('every group: fits 80 and 120 columns with its own columns and long text', async () => {
    const long = 'Rent share for the shared office at 221B Baker Street, London, month 3 of the twelve-month lease';
    for (const group of allGroups) {
      const cols = group.columns;
      const row: Record<string, unknown> = { currency: 'USD', asset: 'BTC', source_currency: 'USD', target_currency: 'EUR' };
      for (const c of cols) {
        const kind = kindOf(c);
        const v =
          kind === 'id'
            ? 'abc_0123456789abcdefghijklmn'
            : kind === 'money'
              ? '1234.56'
              : kind === 'time'
                ? '2026-01-02T03:04:05.000Z'
                : long;
        const parts = c.path.split('.');
        let o = row;
        for (const p of parts.slice(0, -1)) o = (o[p] ??= {}) as Record<string, unknown>;
        o[parts[parts.length - 1]!] = kind === 'status' ? 'in_review' : v;
      }
      for (const width of [80, 120]) {
        const { stdout } = await print({ cols, rows: [row, row], width });
        for (const line of stdout.trimEnd().split('\n'))
          expect(displayWidth(line), `${group.name} at ${width}: ${line}`).toBeLessThanOrEqual(width);
        expect(stdout, group.name).toContain(kindOf(cols.find((c) => c.priority === 1)!) === 'id' ? 'abc_0123456789abcdefghijklmn' : '');
      }
    }
  });
});

describe('the declarations', () => {
  it('every group, verb and sub-table column states a distinct priority; the first is one never cut (what people copy)', () => {
    for (const group of allGroups) {
      const lists = [
        { name: group.name, cols: group.columns },
        ...group.verbs.flatMap((v) => [
          ...(v.columns ? [{ name: `${group.name} ${v.name}`, cols: v.columns }] : []),
          ...(v.tables ?? []).map((t) => ({ name: `${group.name} ${v.name} ${t.title}`, cols: t.columns })),
        ]),
      ];
      for (const { name, cols } of lists) {
        const ps = cols.map((c) => c.priority);
        expect(new Set(ps).size, `${name}: priorities ${ps.join(',')}`).toBe(cols.length);
        const top = cols.find((c) => c.priority === Math.min(...ps))!;
        expect(NEVER_CUT.has(kindOf(top)), `${name}: ${top.header}`).toBe(true);
      }
    }
  });
});

describe('a get view on a terminal: long values wrap under their key', () => {
  const pair = fc.record({ key: hostile.map(escapeText), text: hostile.map(escapeText) });
  it('every line within the width but for a character wider than the room; nothing lost', () => {
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 8 }), fc.integer({ min: 10, max: 300 }), (pairs, width) => {
        const lines = layoutKeyValues(
          pairs.map((p) => ({ key: p.key, value: { text: p.text } })),
          width,
        );
        for (const l of lines) {
          if (displayWidth(l) <= width) continue;
          // Too wide: only a single character wider than what was left.
          const ok = [...l.trim()].filter((c) => codePointWidth(c.codePointAt(0)!) > 0).length <= 1;
          expect(ok, `line ${JSON.stringify(l)} at ${width}`).toBe(true);
        }
        // Every key and value is there, save the spaces lines were broken at.
        const all = lines.join('').replace(/ /g, '');
        let at = 0;
        for (const p of pairs) {
          for (const part of [p.key, p.text]) {
            const bare = part.replace(/ /g, '');
            const i = all.indexOf(bare, at);
            expect(i, `${JSON.stringify(bare)} in ${JSON.stringify(all)}`).toBeGreaterThanOrEqual(0);
            at = i + bare.length;
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('Printer.printObject: a long value, with or without spaces, is broken at the width under its key; its pieces give it back (F6)', () => {
    // Words of letters, digits, e-mail and URL punctuation and wide characters; one word (an e-mail,
    // a URL, an id) or several, of random lengths.
    const unit = fc.constantFrom('a', 'Z', '7', '.', '@', '-', '/', '_', '山', '界', 'é');
    const word = fc.array(unit, { minLength: 1, maxLength: 60 }).map((cs) => cs.join(''));
    const value = fc.oneof(
      fc.array(unit, { minLength: 1, maxLength: 400 }).map((cs) => cs.join('')),
      fc.array(word, { minLength: 1, maxLength: 12 }).map((ws) => ws.join(' ')),
    );
    const keyOf = fc.constantFrom('email', 'description', 'id', 'metadata.note', 'address.line1');
    let broken = 0;
    fc.assert(
      fc.property(keyOf, value, fc.integer({ min: 40, max: 200 }), (key, text, width) => {
        const io = bufferIOStreams({ tty: true, width });
        const obj = key.includes('.') ? { [key.split('.')[0]!]: { [key.split('.')[1]!]: text } } : { [key]: text };
        new Printer(io, resolveOutput({ output: 'table' }, io), []).printObject(obj);
        const lines = io
          .stdoutText()
          .replace(/\u001b\[[0-9;]*m/g, '')
          .trimEnd()
          .split('\n');
        for (const l of lines) expect(displayWidth(l), `${JSON.stringify(l)} at ${width}`).toBeLessThanOrEqual(width);
        expect(lines[0]!.startsWith(key)).toBe(true);
        const first = lines[0]!.slice(key.length).trimStart();
        const pieces = [...(first ? [first] : []), ...lines.slice(1).map((l) => l.trimStart())];
        if (pieces.length > 1) broken++;
        // Joined, the pieces are the value: each break is between two characters or at one space.
        let at = 0;
        for (const [i, piece] of pieces.entries()) {
          if (i > 0 && !text.startsWith(piece, at) && text[at] === ' ') at++;
          expect(text.startsWith(piece, at), `${JSON.stringify(piece)} at ${at} of ${JSON.stringify(text)} (width ${width})`).toBe(true);
          at += piece.length;
        }
        expect(at).toBe(text.length);
      }),
      { seed: 6, numRuns: 400 },
    );
    expect(broken).toBeGreaterThan(30);
  });

  it('pay transactions get on an 80-column terminal: the description wraps under its key; ids whole; --wide keeps it on one line', async () => {
    const txn = {
      id: 'txn_0123456789abcdefghijklmn',
      object: 'transaction',
      account_id: 'acc_0123456789abcdefghijklmn',
      amount: '12.50',
      currency: 'USD',
      status: 'posted',
      description: 'Rent share for the shared office at 221B Baker Street, London, month 3 of the twelve-month lease',
      source: { object: 'transfer', id: 'tr_0123456789abcdefghijklmn' },
    };
    const respond = () => ({ status: 200, body: txn });
    const r = await pay(['transactions', 'get', txn.id], { tty: true, width: 80, respond });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(80);
    const at = lines.findIndex((l) => l.startsWith('description'));
    const valueColumn = lines[at]!.indexOf('Rent');
    expect(lines[at + 1]!.slice(0, valueColumn).trim()).toBe('');
    expect(
      lines
        .slice(at, at + 2)
        .map((l) => l.slice(valueColumn))
        .join(' '),
    ).toBe(txn.description);
    expect(r.stdout).toMatch(/^amount +12\.50 USD$/m);
    expect(r.stdout).toMatch(/^source\.id +tr_0123456789abcdefghijklmn$/m);
    const wide = await pay(['transactions', 'get', txn.id, '--wide'], { tty: true, width: 80, respond });
    expect(wide.stdout).toMatch(/^description +Rent share .* twelve-month lease$/m);
  });
});

describe('escapes and single words stay readable', () => {
  /** Where the escapes of an escaped text are: [start, end) spans. */
  const escapes = (t: string): Array<[number, number]> =>
    [...t.matchAll(/\\(?:[tnr]|x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]{1,6}\})/g)].map((m) => [m.index, m.index + m[0].length]);
  const splits = (t: string, at: number): boolean => escapes(t).some(([a, b]) => a < at && at < b);

  it('truncate and wrap never cut inside an escape (\\u202e, \\x1b, \\n …)', () => {
    const noSpace = hostile.map((h) => escapeText(h.replace(/ /g, '')));
    fc.assert(
      fc.property(noSpace, fc.integer({ min: 1, max: 30 }), (text, width) => {
        const cut = truncate(text, width);
        if (cut !== text) expect(splits(text, cut.length - 1), `${JSON.stringify(cut)} of ${JSON.stringify(text)}`).toBe(false);
        let at = 0;
        for (const line of wrap(text, width)) {
          at += line.length;
          expect(splits(text, at), `${JSON.stringify(line)} of ${JSON.stringify(text)}`).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
    expect(wrap('RED\\u202eevil\\u2028x', 8)).toEqual(['RED', '\\u202eev', 'il\\u2028', 'x']);
  });

  it('a get view breaks a one-word value longer than its room (a URL) under its key at a 40-column terminal, every character kept; text wraps at spaces', async () => {
    const url = 'https://hooks.example.com/v1/webhooks/receiver/0123456789';
    const respond = () => ({
      status: 200,
      body: { id: 'cus_0123456789abcdefghijklmn', email: url, first_name: 'Ada Augusta Byron King Countess of Lovelace and more' },
    });
    const r = await pay(['customers', 'get', 'cus_0123456789abcdefghijklmn'], { tty: true, width: 40, respond });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    const at = lines.findIndex((l) => l.startsWith('email'));
    const col = lines[at]!.indexOf('https');
    const pieces = [lines[at]!.slice(col), ...lines.slice(at + 1).filter((l) => /^ +\S/.test(l) && !/Ada|Lovelace|Countess|more/.test(l))];
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.map((p) => p.trim()).join('')).toBe(url);
    expect(r.stdout).toMatch(/^id +cus_0123456789abcdefghijklmn$/m);
    const name = r.stdout.split('\n').filter((l) => /Ada|Lovelace|Countess/.test(l));
    expect(name.length).toBeGreaterThan(1);
    for (const l of name) expect(displayWidth(l)).toBeLessThanOrEqual(40);
  });
});

describe('--wide and COLUMNS', () => {
  const txns = Array.from({ length: 3 }, (_, i) => ({
    id: `txn_0123456789abcdefghijklm${i}`,
    account_id: 'acc_0123456789abcdefghijklmn',
    type: 'transfer',
    direction: 'debit',
    amount: '12.50',
    currency: 'USD',
    balance_after: '100.00',
    status: 'posted',
    source: { id: 'tr_0123456789abcdefghijklmn' },
    created_at: '2026-01-02T03:04:05.000Z',
    description: 'Rent share for the shared office at 221B Baker Street',
  }));
  const respond = () => ({ status: 200, body: { object: 'list', data: txns, has_more: false, next_cursor: null } });

  it('pay transactions list at 80: the columns that fit, one note naming the rest; --wide: every column, no note', async () => {
    const r = await pay(['transactions', 'list'], { tty: true, width: 80, respond });
    expect(r.stdout.split('\n')[0]).toBe('ID                            TYPE      DIRECTION  AMOUNT     STATUS');
    expect(r.stderr).toBe(
      "Hidden to fit the terminal's 80 columns: ACCOUNT, WALLET, BALANCE AFTER, SOURCE,\nCREATED, DESCRIPTION (--wide shows every column)\n",
    );
    const wide = await pay(['transactions', 'list', '--wide'], { tty: true, width: 80, respond });
    expect(wide.stderr).toBe('');
    expect(wide.stdout.split('\n')[0]).toMatch(
      /^ID +ACCOUNT +WALLET +TYPE +DIRECTION +AMOUNT +BALANCE AFTER +STATUS +SOURCE +CREATED +DESCRIPTION$/,
    );
    // Written before the command (`pay --wide transactions list`), it is moved after it like the other output flags.
    expect(hoistVerbFlags(['--wide', '-p', 'x', 'transactions', 'list'])).toEqual(['-p', 'x', 'transactions', 'list', '--wide']);
  });

  it('--wide with -o tsv, csv, json or ndjson, or off a terminal, changes nothing and is no error', async () => {
    for (const format of [[], ['-o', 'tsv'], ['-o', 'csv'], ['--json'], ['-o', 'ndjson']]) {
      for (const tty of [false, true]) {
        if (tty && format.length === 0) continue;
        const plain = await pay(['transactions', 'list', ...format], { tty, width: 80, respond });
        const wide = await pay(['transactions', 'list', ...format, '--wide'], { tty, width: 80, respond });
        expect(wide, `${format.join(' ')} tty ${tty}`).toEqual(plain);
        expect(wide.code).toBe(0);
      }
    }
  });

  it('COLUMNS: a positive whole number is the width; 0, negative, fractions and garbage are ignored', () => {
    expect(parseColumns('80')).toBe(80);
    expect(parseColumns(' 120 ')).toBe(120);
    expect(parseColumns('100000')).toBe(100000);
    // However many digits: it fits everything.
    expect(parseColumns('9999999999')).toBe(MAX_COLUMNS);
    expect(parseColumns('99999999999999999999')).toBe(MAX_COLUMNS);
    expect(parseColumns('00080')).toBe(80);
    for (const bad of [undefined, '', '0', '000', '-5', '80.5', '1e3', '80abc', 'abc', '+80', '９０', '0x50']) {
      expect(parseColumns(bad), String(bad)).toBeUndefined();
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }), (s) => {
        const n = parseColumns(s);
        const digits = s.trim().replace(/^0+/, '');
        if (n !== undefined) expect(Number.isInteger(n) && n >= 1 && (String(n) === digits || n === MAX_COLUMNS)).toBe(true);
      }),
      { numRuns: 1000 },
    );
    const tty = { columns: 132 };
    expect(terminalColumns({ COLUMNS: '80' }, tty)).toBe(80);
    expect(terminalColumns({ COLUMNS: '0' }, tty)).toBe(132);
    expect(terminalColumns({ COLUMNS: 'wide' }, tty)).toBe(132);
    expect(terminalColumns({}, { columns: 0 }, { columns: 90 })).toBe(90);
    expect(terminalColumns({}, {}, {})).toBe(80);
  });

  it('a huge width fits everything: COLUMNS=100000 is --wide in effect, and prints no padding past the text', async () => {
    const r = await pay(['transactions', 'list'], { tty: true, width: 100000, respond });
    expect(r.stderr).toBe('');
    const wide = await pay(['transactions', 'list', '--wide'], { tty: true, width: 80, respond });
    expect(r.stdout).toBe(wide.stdout);
  });
});

describe('pay customers overview on a terminal', () => {
  const CUS = 'cus_0123456789abcdefghijklmn';
  const list = (data: unknown[]) => ({ status: 200, body: { object: 'list', data, has_more: false, next_cursor: null } });
  const respond = (req: { path: string }) => {
    if (req.path === `customers/${CUS}`)
      return {
        status: 200,
        body: {
          id: CUS,
          object: 'customer',
          first_name: 'Alexandria-Konstantina',
          last_name: 'Papadopoulou-Worthington',
          email: 'alexandria.konstantina.papadopoulou@example-long-domain.com',
          kyc_status: 'not_started',
          address: { address_line1: '221B Baker Street, Flat 3, Marylebone', city: 'London', country: 'GB', postal_code: 'NW1 6XE' },
          created_at: '2026-01-02T03:04:05.000Z',
        },
      };
    if (req.path === `customers/${CUS}/kyc`) return { status: 404, body: { status: 404, code: 'not_found', title: 'Not Found' } };
    if (req.path === 'accounts')
      return list([
        {
          id: 'acc_0123456789abcdefghijklmn',
          customer_id: CUS,
          nickname: 'Operating account for the London office',
          type: 'checking',
          currency: 'USD',
          status: 'active',
          balance: { available: '1234.56', pending: '0.00' },
        },
      ]);
    if (req.path === 'transactions')
      return list(
        // Newest first, as the service lists them (the overview checks the order it takes the newest from).
        [2, 1].map((i) => ({
          id: `txn_0123456789abcdefghijklm${i}`,
          account_id: 'acc_0123456789abcdefghijklmn',
          type: 'collection',
          direction: 'credit',
          amount: '617.28',
          currency: 'USD',
          status: 'posted',
          created_at: `2026-01-02T03:04:0${i}.000Z`,
        })),
      );
    return list([]);
  };

  it('fits 60 and 80 columns: long values wrap under themselves, tables hide what does not fit; only the `more:` commands are left whole', async () => {
    for (const width of [60, 80]) {
      const r = await pay(['customers', 'overview', CUS], { tty: true, width, respond, env: { PAY_TENANT_ID: 'biz_unit0000000000' } });
      expect(r.code, r.stderr).toBe(0);
      for (const l of r.stdout.trimEnd().split('\n')) {
        if (!l.startsWith('  more: ')) expect(displayWidth(l), `${width}: ${l}`).toBeLessThanOrEqual(width);
      }
      expect(r.stdout).toMatch(/^ {2}email {4}alexandria\.konstantina\.papadopoulou@/m);
      expect(r.stdout).toContain('txn_0123456789abcdefghijklm1');
      if (width === 60) {
        expect(r.stdout).toMatch(/^ {2}email {4}alexandria\.konstantina\.papadopoulou@\S+\n {11}\S*domain\.com$/m);
        expect(r.stderr.replace(/\n(?!$)/g, ' ')).toMatch(/^Hidden to fit the terminal's 60 columns: .*\(--wide shows every column\)$/m);
      }
    }
    const wide = await pay(['customers', 'overview', CUS, '--wide'], {
      tty: true,
      width: 60,
      respond,
      env: { PAY_TENANT_ID: 'biz_unit0000000000' },
    });
    expect(wide.stdout).toMatch(/^ {2}email {4}alexandria\.konstantina\.papadopoulou@example-long-domain\.com$/m);
    expect(wide.stderr).toBe('');
  });
});
