// Tables that fit the terminal (issue 17, item 1), in a real terminal (tmux) against the emulator
// with populated data: long names and e-mails, long descriptions (Latin, Japanese, combining
// accents). At 80 and 120 columns `pay transactions list`, `pay customers list` and a `get` view
// keep every line within the width with every id whole; one line on stderr names the columns
// hidden to fit; --wide prints every column; a pane narrower than an id still shows it whole;
// COLUMNS narrows the table in a wider pane. The pane is captured with wrapped lines joined
// (capture-pane -J), so a line the terminal had to wrap shows up wider than the pane.
import { beforeAll, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { TRANSACTION_HEADERS, type Obj } from '../e2e/groups/helpers.js';
import { ttyWorld } from '../helpers/tty-world.js';
import { describeTty, linesBeforeExit, type Pane } from './tmux.js';

const tty = ttyWorld('pay-tty-tables-');
const { w } = tty;
/** The pane run() opened last (a test that runs several kills each when it is done with it). */
let pane: Pane | undefined;
let customers: Obj[] = [];
let txns: Obj[] = [];

const CUS_HEADERS = ['ID', 'FIRST NAME', 'LAST NAME', 'EMAIL', 'TYPE', 'KYC', 'CREATED'];
const NOTE = /^Hidden to fit the terminal's (\d+) columns: (.+) \(--wide shows every column\)$/;

const DESCRIPTIONS = [
  'Rent share for the shared office at 221B Baker Street, London, month 3 of the twelve-month lease',
  '家賃の分担、ベーカー街221Bの共有オフィス、十二か月契約の三か月目',
  'Reimbursement for the team offsite in Zoe\u0308 and Jose\u0301’s hometown, flights, hotel and the long dinner',
];

beforeAll(async () => {
  const people = [
    {
      first_name: 'Alexandria-Konstantina',
      last_name: 'Papadopoulou-Worthington',
      email: 'alexandria.konstantina.papadopoulou@example-long-domain.com',
    },
    { first_name: '山田', last_name: '太郎', email: 'taro.yamada@example.jp' },
    { first_name: 'Zoe\u0308', last_name: 'Mu\u0308ller-Lu\u0308denscheidt', email: 'zoe@example.com' },
  ];
  for (const p of people) {
    await w.api('POST', 'customers', {
      ...p,
      phone: '+447700900123',
      type: 'individual',
      date_of_birth: '1990-12-10',
      address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA' },
    });
  }
  const cus = (await w.api('GET', 'customers')).data as Obj[];
  const from = (await w.api('POST', 'accounts', { customer_id: cus[0]!.id, currency: 'USD' })).id as string;
  const to = (await w.api('POST', 'accounts', { customer_id: cus[1]!.id, currency: 'USD' })).id as string;
  await w.api('POST', `customers/${cus[0]!.id as string}/features/collections/activate`); // the business rules
  await w.api('POST', 'collections', {
    account_id: from,
    amount: '5000.00',
    currency: 'USD',
    method: 'card',
    description: 'Initial funding from the customer’s card for the first quarter of operations',
  });
  await w.settle();
  for (const [i, description] of DESCRIPTIONS.entries()) {
    await w.api('POST', 'transfers', {
      source_account_id: from,
      destination_id: to,
      amount: `${120 + i}.50`,
      currency: 'USD',
      description,
    });
  }
  await w.settle();
  customers = (await w.api('GET', 'customers')).data as Obj[];
  txns = (await w.api('GET', 'transactions?limit=100')).data as Obj[];
  expect(txns.length).toBe(7);
}, 60_000);

/** Runs pay in a pane `width` wide; its lines (wrapped lines joined) before the EXIT line. */
async function run(args: string[], width: number, env: Record<string, string> = {}): Promise<string[]> {
  const p = (pane = await tty.pay(args, { env, width, height: 50 }));
  const { code, screen } = await p.finish();
  expect(code, screen).toBe(0);
  return linesBeforeExit(screen).filter((l) => l !== '');
}

/** A table's lines and the note under it: the header's cells (2+ spaces apart), the rows, the columns the note names. */
function parse(lines: string[]): {
  line: string;
  header: string[];
  rows: string[];
  note: string[] | undefined;
  noteWidth: number | undefined;
} {
  // The note comes last (stderr, after the table), wrapped to the pane: its lines joined again.
  const at = lines.findIndex((l) => l.startsWith('Hidden to fit'));
  expect(lines.filter((l) => l.startsWith('Hidden to fit')).length, lines.join('\n')).toBeLessThanOrEqual(1);
  const noteText = at >= 0 ? lines.slice(at).join(' ') : undefined;
  const m = noteText ? NOTE.exec(noteText) : null;
  if (noteText) expect(m, noteText).not.toBeNull();
  const table = at >= 0 ? lines.slice(0, at) : lines;
  return {
    line: table[0]!,
    header: table[0]!.split(/ {2,}/),
    rows: table.slice(1),
    note: m ? m[2]!.split(', ') : undefined,
    noteWidth: m ? Number(m[1]) : undefined,
  };
}

/** The cell under `header` (the last column, after ASCII-only ones): whole, or a start of `text` and `…`. */
function wholeOrCut(headerLine: string, header: string, row: string, text: string): boolean {
  const cell = row.slice(headerLine.indexOf(header));
  return cell === text || (cell.endsWith('…') && text.startsWith(cell.slice(0, -1)));
}

describeTty('tables fit the terminal (tmux, emulator with long descriptions)', () => {
  for (const width of [80, 120]) {
    it(`pay transactions list at ${width} columns: every line within the width, ids whole, the hidden columns named`, async () => {
      const { line, header, rows, note, noteWidth } = parse(await run(['transactions', 'list'], width));
      const all = [header.join('  '), ...rows];
      for (const l of all) expect(displayWidth(l), `line ${JSON.stringify(l)}`).toBeLessThanOrEqual(width);
      expect(header[0]).toBe('ID');
      expect(header.every((h) => TRANSACTION_HEADERS.includes(h))).toBe(true);
      // The hidden columns, named exactly, in table order.
      expect(note).toEqual(TRANSACTION_HEADERS.filter((h) => !header.includes(h)));
      expect(noteWidth).toBe(width);
      // Newest first, a row per transaction, each starting with its id, whole.
      expect(rows.map((r) => r.split(' ')[0])).toEqual(txns.map((t) => t.id));
      for (const [i, t] of txns.entries()) {
        expect(rows[i]).toContain(`${t.amount} ${t.currency}`);
        if (header.includes('DESCRIPTION') && t.description) {
          expect(header[header.length - 1]).toBe('DESCRIPTION');
          expect(wholeOrCut(line, 'DESCRIPTION', rows[i]!, t.description as string), rows[i]).toBe(true);
        }
      }
      if (width === 80) expect(header).toEqual(['ID', 'TYPE', 'DIRECTION', 'AMOUNT', 'STATUS']);
      else expect(header).toContain('DESCRIPTION');
    });

    it(`pay customers list at ${width} columns: names and e-mails cut with …, ids whole`, async () => {
      const { header, rows, note } = parse(await run(['customers', 'list'], width));
      for (const l of [header.join('  '), ...rows]) expect(displayWidth(l), `line ${JSON.stringify(l)}`).toBeLessThanOrEqual(width);
      expect(rows.map((r) => r.split(' ')[0])).toEqual(customers.map((c) => c.id));
      const hidden = CUS_HEADERS.filter((h) => !header.includes(h));
      expect(note).toEqual(hidden.length > 0 ? hidden : undefined);
      expect(header.slice(0, 4)).toEqual(['ID', 'FIRST NAME', 'LAST NAME', 'EMAIL']);
      const alexandria = rows[customers.findIndex((c) => c.first_name === 'Alexandria-Konstantina')]!;
      expect(alexandria).toMatch(/Alexandria-?\S*…/);
      expect(alexandria).not.toContain('alexandria.konstantina.papadopoulou@example-long-domain.com');
    });

    it(`a get view at ${width} columns: a long description wraps under its key, ids and the amount whole`, async () => {
      for (const description of DESCRIPTIONS.slice(0, 2)) {
        const t = txns.find((x) => x.description === description)!;
        const lines = await run(['transactions', 'get', t.id as string], width);
        await pane?.kill();
        for (const l of lines) expect(displayWidth(l), `line ${JSON.stringify(l)}`).toBeLessThanOrEqual(width);
        expect(lines.some((l) => new RegExp(`^id +${t.id}$`).test(l))).toBe(true);
        expect(lines.some((l) => new RegExp(`^source\\.id +${(t.source as Obj).id}$`).test(l))).toBe(true);
        expect(lines.some((l) => new RegExp(`^amount +${(t.amount as string).replace('.', '\\.')} USD$`).test(l))).toBe(true);
        const at = lines.findIndex((l) => l.startsWith('description'));
        const column = lines[at]!.length - lines[at]!.replace(/^description +/, '').length;
        const value = [lines[at]!.slice(column)];
        for (const l of lines.slice(at + 1)) {
          if (!l.startsWith(' '.repeat(column))) break;
          value.push(l.slice(column));
        }
        // The lines under the key, rejoined, are the description (less the spaces broken at).
        expect(value.join('').replace(/ /g, '')).toBe(description.replace(/ /g, ''));
        if (width === 80 && description === DESCRIPTIONS[0]) expect(value.length).toBeGreaterThan(1);
        if (width === 120) expect(value).toEqual([description]);
      }
    });
  }

  it('--wide at 80 columns: every column, every description whole, no note (the terminal wraps the lines)', async () => {
    const { header, rows, note } = parse(await run(['transactions', 'list', '--wide'], 80));
    expect(header).toEqual(TRANSACTION_HEADERS);
    expect(note).toBeUndefined();
    for (const [i, t] of txns.entries()) {
      expect(rows[i]!.startsWith(t.id as string)).toBe(true);
      if (t.description) expect(rows[i]).toContain(t.description);
    }
    expect(rows.some((r) => displayWidth(r) > 80)).toBe(true);
  });

  it('a pane narrower than an id: the ids whole all the same (those lines are wider), every other column hidden', async () => {
    const { header, rows, note } = parse(await run(['transactions', 'list'], 20));
    expect(header).toEqual(['ID']);
    expect(rows).toEqual(txns.map((t) => t.id));
    expect(note).toEqual(TRANSACTION_HEADERS.slice(1));
  });

  it('COLUMNS=80 in a pane 120 wide fits 80; COLUMNS=0 or garbage is ignored (the pane’s 120)', async () => {
    const at80 = parse(await run(['transactions', 'list'], 120, { COLUMNS: '80' }));
    expect(at80.header).toEqual(['ID', 'TYPE', 'DIRECTION', 'AMOUNT', 'STATUS']);
    expect(at80.noteWidth).toBe(80);
    for (const bad of ['0', 'wide']) {
      const at120 = parse(await run(['transactions', 'list'], 120, { COLUMNS: bad }));
      expect(at120.noteWidth).toBe(120);
      expect(at120.header).toContain('DESCRIPTION');
    }
  });
});
