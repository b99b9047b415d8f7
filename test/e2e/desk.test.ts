// The support desk (issue 28, items 2, 3, 4 and 8) against the emulator, through the built
// bin/pay.js in pipes: "Showing 20 of more" on stderr with nothing but data on stdout (in every
// format), silenced by --quiet and PAY_QUIET=1, absent with --all or when the list is whole;
// times in the zone of TZ in tables and get views (fx rates' as_of too), RFC 3339 UTC in the
// machine formats whatever --time says; a bad --time is exit 2 before anything is sent; the pager
// never starts in a pipe; a voided row shows no running balance in a table.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/run-pay.js';
import { customerBody, ISO, startWorld, type Obj, type World } from './groups/helpers.js';

let w: World;
let trig: Obj;

beforeAll(async () => {
  w = await startWorld({ settleAfterMs: 50 });
  for (let i = 0; i < 23; i++) await w.api('POST', 'customers', customerBody({ email: `desk.${i}@example.com` }));
  // A failed transfer: its debit is voided, with a balance_after the account never held.
  const r = await w.pay(['trigger', 'transfer.failed', '--json']);
  expect(r.code, r.stderr).toBe(0);
  trig = JSON.parse(r.stdout) as Obj;
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const MORE = 'Showing 20 of more customers (--all gets the rest)\n';

describe('a list that stops at its page says so on stderr', () => {
  it.each([['-o', 'tsv'], ['--json'], ['-o', 'ndjson'], ['-o', 'csv'], ['--jq', '.[].id']])(
    'customers list %s: stdout is the 20 items only, stderr the one note',
    async (...fmt) => {
      const r = await w.pay(['customers', 'list', ...fmt]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(MORE);
      expect(r.stdout).not.toContain('Showing');
      const ids = r.stdout.match(/cus_[0-9a-z]{24}/g) ?? [];
      expect(new Set(ids).size).toBe(20);
    },
  );

  it('--limit (a count asked for), --all, a whole list, --quiet and PAY_QUIET=1 say nothing', async () => {
    const five = await w.pay(['customers', 'list', '--limit', '5', '-o', 'tsv', '--no-header']);
    expect(five.stderr).toBe('');
    expect(five.stdout.trimEnd().split('\n')).toHaveLength(5);
    const all = await w.pay(['customers', 'list', '--all', '-o', 'tsv', '--no-header']);
    expect(all.stderr).toBe('');
    expect(all.stdout.trimEnd().split('\n').length).toBeGreaterThanOrEqual(24);
    const whole = await w.pay(['customers', 'list', '--limit', '1000', '-o', 'tsv', '--no-header']);
    expect(whole.stderr).toBe('');
    const quiet = await w.pay(['--quiet', 'customers', 'list', '--json']);
    expect({ code: quiet.code, stderr: quiet.stderr }).toEqual({ code: 0, stderr: '' });
    const env = await w.pay(['customers', 'list', '--json'], { env: { PAY_QUIET: '1' } });
    expect({ code: env.code, stderr: env.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(env.stdout)).toHaveLength(20);
  });
});

describe('times for people', () => {
  it('tables in the zone of TZ, named once in the header; --time utc and relative; JSON, TSV and CSV keep RFC 3339 UTC', async () => {
    const tokyo = await w.pay(['customers', 'list', '--limit', '1', '-o', 'table'], { env: { TZ: 'Asia/Tokyo' } });
    const [head, row] = tokyo.stdout.split('\n');
    expect(head).toMatch(/ CREATED \(Asia\/Tokyo\)$/);
    expect(row).toMatch(/ \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const json = JSON.parse((await w.pay(['customers', 'list', '--limit', '1', '--json'], { env: { TZ: 'Asia/Tokyo' } })).stdout) as Obj[];
    const created = json[0]!.created_at as string;
    expect(created).toMatch(ISO);
    // The same instant, nine hours ahead.
    const local = new Date(Date.parse(created) + 9 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(row!.endsWith(local)).toBe(true);
    const utc = await w.pay(['--time', 'utc', 'customers', 'list', '--limit', '1', '-o', 'table'], { env: { TZ: 'Asia/Tokyo' } });
    expect(utc.stdout.split('\n')[0]).toMatch(/ CREATED$/);
    expect(utc.stdout.split('\n')[1]).toMatch(/ \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/);
    const rel = await w.pay(['customers', 'list', '--limit', '1', '-o', 'table'], { env: { TZ: 'Asia/Tokyo', PAY_TIME: 'relative' } });
    expect(rel.stdout.split('\n')[1]).toMatch(/ (just now|\d+(s|m|h|d|mo|y) ago|in \d+(s|m|h|d|mo|y))$/);
    for (const fmt of [['--json'], ['-o', 'ndjson'], ['-o', 'tsv'], ['-o', 'csv']]) {
      const r = await w.pay(['--time', 'relative', 'customers', 'list', '--limit', '1', ...fmt], { env: { TZ: 'Asia/Tokyo' } });
      expect(r.stdout, fmt.join(' ')).toContain(created);
    }
  });

  it('fx rates: as_of goes through the same formatter (the zone said once); JSON keeps it', async () => {
    const view = await w.pay(['fx', 'rates', '-o', 'table'], { env: { TZ: 'America/New_York' } });
    expect(view.code).toBe(0);
    const lines = view.stdout.trimEnd().split('\n');
    expect(lines.find((l) => l.startsWith('as_of'))).toMatch(/^as_of\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(lines.at(-1)).toBe('(times in America/New_York)');
    const utc = await w.pay(['fx', 'rates', '-o', 'table']);
    expect(utc.stdout).toMatch(/^as_of\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/m);
    const json = JSON.parse((await w.pay(['fx', 'rates', '--json'], { env: { TZ: 'America/New_York' } })).stdout) as Obj;
    expect(json.as_of).toMatch(/Z$/);
  });

  it('a bad --time or PAY_TIME is exit 2 naming it, before anything is sent', async () => {
    const mark = w.mark();
    const bad = await w.pay(['--time', 'yesterday', 'customers', 'list']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: invalid --time "yesterday" \(choose from local, utc, relative\)/);
    const env = await w.pay(['customers', 'list'], { env: { PAY_TIME: 'soon' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('invalid PAY_TIME "soon"');
    expect(w.since(mark)).toHaveLength(0);
  });
});

describe('the pager and running balances', () => {
  it('never starts in a pipe: PAY_PAGER and PAGER are not run, the output is the data', async () => {
    const dir = tempDir('pay-desk-pager-');
    const marker = join(dir, 'ran');
    const pager = `sh -c 'touch ${marker}; cat'`;
    for (const args of [
      ['customers', 'list', '--all', '-o', 'table'],
      ['customers', 'list', '--all'],
      ['help', 'rules'],
      ['fx', 'rates', '-o', 'table'],
    ]) {
      const r = await w.pay(args, { env: { PAY_PAGER: pager, PAGER: pager, LINES: '5' } });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      expect(existsSync(marker), args.join(' ')).toBe(false);
    }
  });

  it('a voided debit shows no running balance in a table; the JSON keeps the service field', async () => {
    const account = (trig.created as Obj[]).find((c) => c.object === 'account')!.id as string;
    const json = JSON.parse((await w.pay(['transactions', 'list', '--account', account, '--json'])).stdout) as Obj[];
    const voided = json.find((t) => t.status === 'voided')!;
    expect(voided, JSON.stringify(json)).toBeDefined();
    expect(typeof voided.balance_after).toBe('string');
    const table = await w.pay(['transactions', 'list', '--account', account, '-o', 'table', '--fields', 'id,status,balance_after']);
    const line = table.stdout.split('\n').find((l) => l.startsWith(voided.id as string))!;
    expect(line).toMatch(/^txn_\w+\s+voided\s+-$/);
    const posted = json.find((t) => t.status === 'posted')!;
    expect(table.stdout).toContain(`${posted.balance_after as string} ${posted.currency as string}`);
  });
});
