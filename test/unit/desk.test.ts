// The support desk (issue 28, items 1, 2, 3, 4 and 8), in process: the columns a fitted table
// keeps (asked about, codes, a failure shown) are never cut, at any width, whatever the other
// columns hold (generated); the time formatter in fixed zones with a fixed "now"; the pager's
// choice of command; notes and --quiet; no running balance beside a voided row.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bufferIOStreams } from '../../src/io/iostreams.js';
import { pagerCommand, resolveOutput, type PeopleFlags } from '../../src/io/output-options.js';
import { isFailurePath, isTimePath, Printer, type Column } from '../../src/io/output.js';
import { screenLines } from '../../src/io/pager.js';
import { formatTime, relative, resolveTimeView, zoneLabel, type TimeView } from '../../src/io/time.js';
import { askedColumns } from '../../src/verbs/run.js';
import { fitColumns } from '../../src/io/table.js';
import { allGroups } from '../../src/commands/groups.js';

const people = (env: NodeJS.ProcessEnv = {}, flags: PeopleFlags['flags'] = {}): PeopleFlags => ({ env: { TZ: 'UTC', ...env }, flags });

async function print(cols: Column[], rows: unknown[], width: number, env: NodeJS.ProcessEnv = {}, flags: PeopleFlags['flags'] = {}) {
  const io = bufferIOStreams({ tty: true, width });
  const out = resolveOutput({}, io, undefined, people(env, flags));
  const printer = new Printer(io, out, cols);
  await printer.printList(rows, 'things');
  return { printer, io, stdout: io.stdoutText(), stderr: io.stderrText() };
}

/** The columns named in the "Hidden to fit" note (its lines joined). */
function hiddenOf(stderr: string): string[] {
  const m = /Hidden to fit the terminal's \d+ columns: (.*?) \(--wide/s.exec(stderr.replace(/\n/g, ' '));
  return m ? m[1]!.split(', ') : [];
}

const word = fc.stringMatching(/^[A-Za-z][A-Za-z ,.'-]{0,60}$/);
const code = fc.stringMatching(/^[a-z]{2,10}(_[a-z]{2,10}){0,2}$/);
const email = fc.stringMatching(/^[a-z]{1,20}\.[a-z]{1,20}@example\.(com|org)$/);

describe('columns chosen by purpose (generated)', () => {
  it('an asked-about column, a code column and a failure column with a value are never cut; an asked column is never hidden, a failure column only after the others but the first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          width: fc.integer({ min: 20, max: 260 }),
          texts: fc.integer({ min: 0, max: 4 }),
          prios: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 8, maxLength: 8 }),
          rows: fc.array(
            fc.record({ t: fc.array(word, { minLength: 4, maxLength: 4 }), email, code, failure: fc.option(code, { nil: null }) }),
            {
              minLength: 1,
              maxLength: 6,
            },
          ),
        }),
        async ({ width, texts, prios, rows }) => {
          const cols: Column[] = [
            { header: 'ID', path: 'id', priority: 1 },
            ...Array.from({ length: texts }, (_, i) => ({ header: `TEXT${i}`, path: `t.${i}`, priority: prios[i]! })),
            { header: 'EMAIL', path: 'email', priority: prios[4]!, keep: true },
            { header: 'CODE', path: 'code', priority: prios[5]! },
            { header: 'FAILURE', path: 'failure_reason', priority: prios[6]! },
          ];
          const items = rows.map((r, i) => ({
            id: `cus_${String(i).padStart(24, '0')}`,
            t: r.t,
            email: r.email,
            code: r.code,
            failure_reason: r.failure,
          }));
          const { stdout, stderr } = await print(cols, items, width);
          const hidden = new Set(hiddenOf(stderr));
          const lines = stdout.trimEnd().split('\n');
          const kept = ['EMAIL', 'CODE', ...(items.some((i) => i.failure_reason) ? ['FAILURE'] : [])];
          // The asked column wins (#28 item 1): the others, the first too, are hidden before it is.
          expect(hidden.has('EMAIL'), stderr).toBe(false);
          for (const h of kept) {
            if (hidden.has(h) && h === 'CODE') continue; // a code is never cut, and hidden by its priority as an id is
            if (hidden.has(h)) {
              // Hidden only once every column but the first (and the other kept ones, and those declared 1: kept longest) is.
              const others = cols
                .filter((c) => c.header !== 'ID' && c.header !== 'CODE' && !kept.includes(c.header) && c.priority! > 1)
                .map((c) => c.header);
              expect(
                others.every((o) => hidden.has(o)),
                `${h} hidden before ${others.join(',')}: ${stderr}`,
              ).toBe(true);
              continue;
            }
            const path = cols.find((c) => c.header === h)!.path;
            items.forEach((item, i) => {
              const v = (item as Record<string, unknown>)[path];
              if (typeof v === 'string') expect(lines[i + 1], `${h} cut at ${width}`).toContain(v);
            });
          }
          return true;
        },
      ),
      { numRuns: 200, seed: 2828 },
    );
  });

  it('the fitter: a kept column is not cut even when it is wider than what is left (generated widths)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ natural: fc.integer({ min: 1, max: 80 }), keep: fc.boolean(), prio: fc.integer({ min: 1, max: 9 }) }), {
          minLength: 1,
          maxLength: 10,
        }),
        fc.integer({ min: 1, max: 300 }),
        (spec, width) => {
          const cols = spec.map((c, i) => ({ header: `C${i}`, cut: !c.keep, priority: c.prio, ...(c.keep ? { keep: true } : {}) }));
          const fit = fitColumns(
            cols,
            spec.map((c) => c.natural),
            width,
          );
          for (const i of fit.shown) if (spec[i]!.keep) expect(fit.widths[i]).toBe(spec[i]!.natural);
          // A kept column is hidden only when every column not kept (but the first) is.
          if (fit.hidden.some((i) => spec[i]!.keep)) {
            expect(spec.every((c, i) => c.keep || i === 0 || fit.hidden.includes(i) || c.prio <= 1)).toBe(true);
          }
          return true;
        },
      ),
      { numRuns: 500, seed: 28 },
    );
  });

  it('asked columns come from the verb flags given: --email → email, --status → status, --since/--until (datetime) → created_at; an id filter is not boosted', () => {
    const byName = new Map(allGroups.map((g) => [g.name, g]));
    const customers = byName.get('customers')!;
    const list = customers.verbs.find((v) => v.name === 'list')!;
    const cols = askedColumns(list, { email: 'a@example.com' }, customers.columns);
    expect(cols.filter((c) => c.keep).map((c) => c.path)).toEqual(['email']);
    const txns = byName.get('transactions')!;
    const tlist = txns.verbs.find((v) => v.name === 'list')!;
    const kept = (opts: Record<string, unknown>) =>
      askedColumns(tlist, opts, txns.columns)
        .filter((c) => c.keep)
        .map((c) => c.path)
        .sort();
    expect(kept({ since: '2026-11-29', until: '2026-12-01' })).toEqual(['created_at']);
    expect(kept({ from: '2026-11-29' })).toEqual(['created_at']);
    expect(kept({ status: 'voided', account: 'acc_x' })).toEqual(['status']);
    expect(kept({})).toEqual([]);
  });

  it('failure columns by path', () => {
    for (const p of ['failure_reason', 'failure_code', 'last_error.error_message', 'decline_reason', 'error'])
      expect(isFailurePath(p), p).toBe(true);
    for (const p of ['status', 'reference', 'failures_count', 'description']) expect(isFailurePath(p), p).toBe(false);
  });
});

describe('times for people', () => {
  const at = '2026-11-29T23:30:05.123Z';
  it('local in the zone of TZ (DST and date lines), UTC with its Z, relative from a fixed now', () => {
    expect(formatTime(at, { mode: 'local', zone: 'Europe/Paris' })).toBe('2026-11-30 00:30:05');
    expect(formatTime('2026-07-01T12:00:00Z', { mode: 'local', zone: 'Europe/Paris' })).toBe('2026-07-01 14:00:00');
    expect(formatTime(at, { mode: 'local', zone: 'America/New_York' })).toBe('2026-11-29 18:30:05');
    expect(formatTime(at, { mode: 'local', zone: 'Asia/Kolkata' })).toBe('2026-11-30 05:00:05');
    expect(formatTime(at, { mode: 'utc', zone: 'Asia/Tokyo' })).toBe('2026-11-29 23:30:05Z');
    expect(formatTime(at, { mode: 'local', zone: 'UTC' })).toBe('2026-11-29 23:30:05Z');
    expect(formatTime(at)).toBe('2026-11-29 23:30:05Z');
    const now = Date.parse(at);
    const rel = (iso: string) => formatTime(iso, { mode: 'relative', zone: 'UTC', now });
    expect(rel(at)).toBe('just now');
    expect(rel('2026-11-29T23:29:35Z')).toBe('30s ago');
    expect(rel('2026-11-29T20:30:05Z')).toBe('3h ago');
    expect(rel('2026-11-27T23:30:05Z')).toBe('2d ago');
    expect(rel('2026-12-01T23:30:06Z')).toBe('in 2d');
    expect(rel('2025-11-01T00:00:00Z')).toBe('1y ago');
    // Not a time: as it is.
    expect(formatTime('yesterday', { mode: 'local', zone: 'Europe/Paris' })).toBe('yesterday');
  });

  it('relative is monotonic and never empty (generated)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -4e11, max: 4e11 }), (d) => {
        const t = relative(1_800_000_000_000 - d, 1_800_000_000_000);
        expect(t).toMatch(/^(just now|\d+(s|m|h|d|mo|y) ago|in \d+(s|m|h|d|mo|y))$/);
        return true;
      }),
      { numRuns: 300, seed: 4 },
    );
  });

  it('--time, then PAY_TIME, then local; TZ names the zone; a bad mode is exit 2 naming where it came from', () => {
    expect(resolveTimeView(undefined, { TZ: 'Europe/Paris' })).toEqual({ mode: 'local', zone: 'Europe/Paris' });
    expect(resolveTimeView(undefined, { TZ: 'UTC', PAY_TIME: 'relative' }).mode).toBe('relative');
    expect(resolveTimeView('utc', { TZ: 'UTC', PAY_TIME: 'relative' }).mode).toBe('utc');
    expect(() => resolveTimeView('bogus', {})).toThrow(/invalid --time "bogus"/);
    expect(() => resolveTimeView(undefined, { PAY_TIME: 'x' })).toThrow(/invalid PAY_TIME "x"/);
    expect(zoneLabel({ mode: 'local', zone: 'UTC' })).toBeUndefined();
    expect(zoneLabel({ mode: 'local', zone: 'Asia/Tokyo' })).toBe('Asia/Tokyo');
    expect(zoneLabel({ mode: 'relative', zone: 'Asia/Tokyo' })).toBeUndefined();
    expect(isTimePath('as_of')).toBe(true);
  });

  it('a table names the zone once in the time column header; a get view in its last line; machine formats keep RFC 3339', async () => {
    const cols: Column[] = [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'CREATED', path: 'created_at', priority: 2 },
    ];
    const rows = [{ id: 'txn_1', created_at: '2026-11-29T23:30:05.000Z' }];
    const t = await print(cols, rows, 120, { TZ: 'Asia/Tokyo' });
    expect(t.stdout).toBe('ID     CREATED (Asia/Tokyo)\ntxn_1  2026-11-30 08:30:05\n');
    // Hidden, it is named as declared.
    const narrow = await print(cols, rows, 10, { TZ: 'Asia/Tokyo' });
    expect(narrow.stderr.replace(/\n/g, ' ')).toMatch(/columns: CREATED \(--wide/);
    const io = bufferIOStreams({ tty: true, width: 80 });
    new Printer(io, resolveOutput({}, io, undefined, people({ TZ: 'Asia/Tokyo' })), []).printObject({
      id: 'fx',
      as_of: '2026-11-29T23:30:05Z',
    });
    expect(io.stdoutText()).toBe('id     fx\nas_of  2026-11-30 08:30:05\n(times in Asia/Tokyo)\n');
    for (const output of ['json', 'ndjson', 'csv', 'tsv']) {
      const o = bufferIOStreams({ tty: false });
      await new Printer(o, resolveOutput({ output }, o, undefined, people({ TZ: 'Asia/Tokyo' }, { time: 'relative' })), cols).printList(
        rows,
        'x',
      );
      expect(o.stdoutText(), output).toContain('2026-11-29T23:30:05.000Z');
    }
  });
});

describe('notes, the pager command, running balances', () => {
  it('"Showing N of more" and the hidden note on stderr; --quiet and PAY_QUIET=1 silence them', async () => {
    const cols: Column[] = [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'NOTE', path: 'note', priority: 2 },
    ];
    const rows = [{ id: 'x'.repeat(30), note: 'words and more words and more' }];
    const loud = await print(cols, rows, 32);
    loud.printer.noteMore(20, 'things');
    expect(loud.io.stderrText().replace(/\n(?!Showing)/g, ' ')).toContain("Hidden to fit the terminal's 32 columns: NOTE");
    expect(loud.io.stderrText()).toContain('Showing 20 of more things (--all gets the rest)\n');
    for (const [env, flags] of [[{ PAY_QUIET: '1' }, {}] as const, [{}, { quiet: true }] as const]) {
      const q = await print(cols, rows, 32, env, flags);
      q.printer.noteMore(20, 'things');
      expect(q.io.stderrText()).toBe('');
    }
  });

  it('pager: --no-pager, PAY_PAGER= (empty) off; PAY_PAGER, then PAGER, then less -FRX; only for a table on a terminal without -o', () => {
    expect(pagerCommand({ env: {}, flags: {} })).toBe('less -FRX');
    expect(pagerCommand({ env: { PAGER: 'more' }, flags: {} })).toBe('more');
    expect(pagerCommand({ env: { PAGER: 'more', PAY_PAGER: 'most' }, flags: {} })).toBe('most');
    expect(pagerCommand({ env: { PAGER: 'more', PAY_PAGER: '' }, flags: {} })).toBeUndefined();
    expect(pagerCommand({ env: { PAY_PAGER: 'most' }, flags: { pager: false } })).toBeUndefined();
    const tty = bufferIOStreams({ tty: true });
    const pipe = bufferIOStreams({ tty: false });
    expect(resolveOutput({}, tty, undefined, people()).pager).toBe('less -FRX');
    expect(resolveOutput({}, pipe, undefined, people()).pager).toBeUndefined();
    expect(resolveOutput({ json: true }, tty, undefined, people()).pager).toBeUndefined();
    expect(resolveOutput({ jq: '.' }, tty, undefined, people()).pager).toBeUndefined();
    expect(resolveOutput({ output: 'table' }, tty, undefined, people()).pager).toBeUndefined();
    expect(screenLines('a\nb\n', 80)).toBe(2);
    expect(screenLines(`${'x'.repeat(161)}\n`, 80)).toBe(3);
  });

  it('a voided or failed row shows no running balance in a table; the machine formats keep the service field', async () => {
    const cols: Column[] = [
      { header: 'ID', path: 'id', priority: 1 },
      { header: 'AMOUNT', path: 'amount', kind: 'money', priority: 2 },
      { header: 'BALANCE AFTER', path: 'balance_after', kind: 'money', priority: 3 },
      { header: 'STATUS', path: 'status', kind: 'status', priority: 4 },
    ];
    const rows = ['posted', 'voided', 'failed', 'posted'].map((status, i) => ({
      id: `txn_${i}`,
      amount: '42.13',
      currency: 'USD',
      balance_after: ['2200.00', '2157.87', '2157.87', '2250.00'][i],
      status,
    }));
    const t = await print(cols, rows, 120);
    const lines = t.stdout.trimEnd().split('\n');
    expect(lines[1]).toContain('2200.00 USD');
    expect(lines[2]).toMatch(/^txn_1\s+42\.13 USD\s+-\s+voided$/);
    expect(lines[3]).toMatch(/^txn_2\s+42\.13 USD\s+-\s+failed$/);
    expect(t.stdout).not.toContain('2157.87');
    const o = bufferIOStreams({ tty: false });
    await new Printer(o, resolveOutput({ json: true }, o, undefined, people()), cols).printList(rows, 'x');
    expect((JSON.parse(o.stdoutText()) as Array<{ balance_after: string }>).map((r) => r.balance_after)).toEqual([
      '2200.00',
      '2157.87',
      '2157.87',
      '2250.00',
    ]);
  });
});

/** A TimeView is data: tests build their own. */
export type { TimeView };
