// Printers with terminal and pipe as a test parameter (fake streams that say "I am a TTY" or not).
import { describe, expect, it } from 'vitest';
import { bufferIOStreams } from '../../src/io/iostreams.js';
import { colorWanted } from '../../src/io/iostreams.js';
import { Printer, resolveOutput, type Column } from '../../src/io/output.js';

const COLS: Column[] = [
  { header: 'ID', path: 'id' },
  { header: 'STATUS', path: 'status', kind: 'status' },
  { header: 'AMOUNT', path: 'amount', kind: 'money' },
];
const ROWS = [
  { id: 'tr_1', status: 'completed', amount: '10.50', currency: 'USD', meta: { a: 1 } },
  { id: 'tr_2', status: 'failed', amount: '7', currency: 'JPY', meta: { a: 2 } },
];
async function* pages<T>(...ps: T[][]) {
  for (const p of ps) yield p;
}

describe.each([
  { tty: true, format: 'table' },
  { tty: false, format: 'tsv' },
])('default format when stdout is a terminal: $tty', ({ tty, format }) => {
  it(`is ${format}`, async () => {
    const io = bufferIOStreams({ tty });
    const out = resolveOutput({}, io);
    expect(out.format).toBe(format);
    await new Printer(io, out, COLS).printList(pages(ROWS), 'transfers');
    const text = io.stdoutText();
    if (tty) {
      expect(text.split('\n')[0]).toMatch(/^ID\s+STATUS\s+AMOUNT$/);
      expect(text).toMatch(/tr_1\s+completed\s+10\.50 USD/);
      expect(text).toMatch(/tr_2\s+failed\s+7 JPY/);
    } else {
      expect(text).toBe('id\tstatus\tamount\ntr_1\tcompleted\t10.50\ntr_2\tfailed\t7\n');
    }
    expect(io.stderrText()).toBe('');
  });
});

describe('Printer', () => {
  it('colours statuses only when colour is on', async () => {
    const io = bufferIOStreams({ tty: true, color: true });
    await new Printer(io, resolveOutput({}, io), COLS).printList(pages(ROWS), 'transfers');
    expect(io.stdoutText()).toContain('\u001b[32mcompleted\u001b[39m');
    expect(io.stdoutText()).toContain('\u001b[31mfailed\u001b[39m');
  });

  it('json streams one array across pages; --fields keeps dotted paths nested', async () => {
    const io = bufferIOStreams();
    await new Printer(io, resolveOutput({ json: true, fields: 'id,meta.a' }, io), COLS).printList(
      pages([ROWS[0]!], [ROWS[1]!]),
      'transfers',
    );
    expect(JSON.parse(io.stdoutText())).toEqual([
      { id: 'tr_1', meta: { a: 1 } },
      { id: 'tr_2', meta: { a: 2 } },
    ]);
  });

  it('ndjson writes one line per object', async () => {
    const io = bufferIOStreams();
    const n = await new Printer(io, resolveOutput({ output: 'ndjson' }, io), COLS).printList(pages(ROWS, []), 'transfers');
    expect(n).toBe(2);
    expect(
      io
        .stdoutText()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['tr_1', 'tr_2']);
  });

  it('an array is a list of one page, printed as the same pages are in every format', async () => {
    for (const flags of [{}, { json: true }, { output: 'ndjson' }, { output: 'csv' }, { output: 'tsv' }, { json: true, fields: 'id' }]) {
      for (const tty of [true, false]) {
        const printed = async (list: Parameters<Printer['printList']>[0], rows: number) => {
          const io = bufferIOStreams({ tty });
          expect(await new Printer(io, resolveOutput(flags, io), COLS).printList(list, 'transfers')).toBe(rows);
          return [io.stdoutText(), io.stderrText()];
        };
        expect(await printed(ROWS, 2), JSON.stringify({ flags, tty })).toEqual(await printed(pages(ROWS), 2));
        expect(await printed([], 0)).toEqual(await printed(pages([]), 0));
      }
    }
  });

  it('tsv cells never break lines or columns: tabs and line breaks are shown escaped', async () => {
    const io = bufferIOStreams();
    await new Printer(io, resolveOutput({ header: false }, io), [{ header: 'D', path: 'd' }]).printList(pages([{ d: 'a\tb\nc\rd' }]), 'x');
    expect(io.stdoutText()).toBe('a\\tb\\nc\\rd\n');
  });

  it('refuses bad --output, --json with another format, and bad field names (usage errors)', () => {
    const io = bufferIOStreams();
    expect(() => resolveOutput({ output: 'xml' }, io)).toThrow(/invalid --output "xml"/);
    expect(() => resolveOutput({ json: true, output: 'tsv' }, io)).toThrow(/--json conflicts/);
    expect(() => resolveOutput({ fields: 'id,$bad' }, io)).toThrow(/invalid field name "\$bad"/);
  });
});

describe('colorWanted', () => {
  it('follows NO_COLOR, --no-color, TERM=dumb, FORCE_COLOR and the terminal', () => {
    expect(colorWanted({}, true, false)).toBe(true);
    expect(colorWanted({}, false, false)).toBe(false);
    expect(colorWanted({ NO_COLOR: '1' }, true, false)).toBe(false);
    expect(colorWanted({}, true, true)).toBe(false);
    expect(colorWanted({ TERM: 'dumb' }, true, false)).toBe(false);
    expect(colorWanted({ FORCE_COLOR: '1' }, false, false)).toBe(true);
  });
});
