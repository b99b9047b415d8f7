// The support desk in a real terminal (issue 28, items 1, 2, 3 and 4), tmux panes of 80 and 120
// columns against the emulator: the column asked about is whole (`customers list --email` with a
// long address), `transactions list --since/--until` shows CREATED, `transfers list` with a
// failed transfer shows FAILURE whole, a picker shows statuses and times whole, `fx rates`
// formats as_of; every line within the width. The pager: a list longer than the pane goes
// through `less -FRX` (the default), `q` ends it with exit 0, Ctrl-C with exit 130 once the pager
// ends; in a pipe, and with --no-pager or PAY_PAGER=, it never starts. Every pane sets TZ.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { PAY_BIN } from '../helpers/run-pay.js';
import { customerBody, type Obj } from '../e2e/groups/helpers.js';
import { ttyWorld } from '../helpers/tty-world.js';
import { activePrompt, describeTty, linesBeforeExit, scratchDir, shellQuote } from './tmux.js';

const tty = ttyWorld('pay-tty-desk-', { emulator: { settleAfterMs: 50 }, env: { TZ: 'UTC' } });
const { w } = tty;
let account = '';
const LONG_EMAIL = 'maria.garcia.fernandez@example-desk.com';

beforeAll(async () => {
  await w.api('POST', 'customers', customerBody({ email: LONG_EMAIL, first_name: 'Maria', last_name: 'Garcia' }));
  for (let i = 0; i < 26; i++) await w.api('POST', 'customers', customerBody({ email: `desk.person.${i}@example.com` }));
  const r = await w.pay(['trigger', 'transfer.failed', '--json']);
  expect(r.code, r.stderr).toBe(0);
  account = ((JSON.parse(r.stdout) as Obj).created as Obj[]).find((c) => c.object === 'account')!.id as string;
}, 90_000);

/** Runs to the end in a pane of `width` columns (with --no-pager: the screen is the whole output); the lines before EXIT. */
async function shown(args: string[], width: number, env: Record<string, string> = {}): Promise<string[]> {
  const p = await tty.pay(['--no-pager', ...args], { env, width, height: 50 });
  const { code, screen } = await p.finish();
  expect(code, screen).toBe(0);
  const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
  for (const l of lines) expect(displayWidth(l), `${width}: ${l}`).toBeLessThanOrEqual(width);
  await p.kill();
  return lines;
}

const TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/;

describeTty('the support desk (tmux, emulator)', () => {
  for (const width of [80, 120]) {
    it(`${width} columns: customers list --email keeps the e-mail asked about whole`, async () => {
      const lines = await shown(['customers', 'list', '--email', LONG_EMAIL], width);
      expect(lines[0]).toMatch(/^ID\s.*EMAIL/);
      expect(lines[1]).toContain(LONG_EMAIL);
    });

    it(`${width} columns: transactions list --since/--until shows CREATED (the range asked about), in the zone of TZ`, async () => {
      const lines = await shown(['transactions', 'list', '--account', account, '--since', '2000-01-01', '--until', '2100-01-01'], width, {
        TZ: 'Europe/Paris',
      });
      expect(lines[0]).toMatch(/CREATED \(Europe\/Paris\)/);
      expect(
        lines
          .slice(1)
          .filter((l) => l.startsWith('txn_'))
          .every((l) => TIME.test(l)),
      ).toBe(true);
    });

    it(`${width} columns: transfers list with a failed transfer shows FAILURE whole`, async () => {
      const lines = await shown(['transfers', 'list'], width);
      expect(lines[0]).toMatch(/\bFAILURE\b/);
      expect(lines.find((l) => /\bfailed\b/.test(l))).toContain('destination_rejected');
      expect(lines.join('\n')).not.toContain('destination_rejec…');
    });

    it(`${width} columns: fx rates formats as_of and names the zone once`, async () => {
      const lines = await shown(['fx', 'rates'], width, { TZ: 'Asia/Tokyo' });
      expect(lines.find((l) => l.startsWith('as_of'))).toMatch(/^as_of\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(lines.filter((l) => l.includes('Asia/Tokyo'))).toEqual(['(times in Asia/Tokyo)']);
    });

    it(`${width} columns: a picker shows statuses and times whole`, async () => {
      const p = await tty.pay(['transfers', 'get'], { width, height: 30 });
      const screen = await p.waitFor((s) => (activePrompt(s)?.startsWith('? Pick one of the transfers') ?? false) && /tr_\w{24}/.test(s));
      const entries = screen.split('\n').filter((l) => /^[❯ ] tr_\w{24}/.test(l));
      expect(entries.length).toBeGreaterThan(0);
      for (const e of entries) {
        expect(displayWidth(e.trimEnd()), e).toBeLessThanOrEqual(width);
        expect(e).toMatch(/\b(failed|completed|pending)\b/);
        expect(e).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z/);
        expect(e).not.toContain('…');
      }
      await p.keys('C-c');
      expect((await p.finish()).code).toBe(130);
    });
  }

  it('a list longer than the pane goes through less -FRX: q ends it, exit 0', async () => {
    const p = await tty.pay(['customers', 'list', '--limit', '40'], { width: 120, height: 20 });
    // less's prompt on the last line, the first rows above it.
    const screen = await p.waitFor((s) => /^ID\s+FIRST NAME/m.test(s) && /^:\s*$/m.test(s.split('\n').at(-1) ?? ''));
    expect(screen).not.toContain('EXIT:');
    await p.keys('q');
    const { code, screen: after } = await p.finish();
    expect(code, after).toBe(0);
  });

  it('Ctrl-C while the pager shows: pay waits for it, then exits 130', async () => {
    // The shell around pay traps SIGINT (a script's shell would die of it, as Ctrl-C reaches the whole foreground group) so it can say pay's exit code.
    const pay = [process.execPath, PAY_BIN].map(shellQuote).join(' ');
    const p = await tty.start(['sh', '-c', `trap : INT; ${pay} customers list --limit 40; echo "EXIT:$?"`], { width: 120, height: 20 });
    await p.waitFor((s) => /^:\s*$/m.test(s.split('\n').at(-1) ?? ''));
    await p.keys('C-c');
    // less stays (it takes Ctrl-C as "stop what you are doing"); pay does not die under it.
    await p.waitFor((s) => /^:\s*$/m.test(s.split('\n').at(-1) ?? ''));
    expect(await p.screen()).not.toContain('EXIT:');
    await p.keys('q');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(130);
  });

  it('the pager never starts in a pipe, nor with --no-pager or PAY_PAGER= (a pager that leaves a mark is never run)', async () => {
    const dir = scratchDir('pay-tty-pager-');
    const marker = join(dir, 'ran');
    const pager = `sh -c 'touch ${marker}; cat'`;
    const pay = [process.execPath, PAY_BIN].map(shellQuote).join(' ');
    for (const cmd of [
      `${pay} customers list --all | cat`,
      `${pay} help rules | cat`,
      `${pay} --no-pager customers list --all`,
      `PAY_PAGER= ${pay} customers list --all`,
      `${pay} customers list --all --json`,
    ]) {
      const p = await tty.start(['sh', '-c', `${cmd}; echo "EXIT:$?"`], { env: { PAY_PAGER: pager }, width: 120, height: 20 });
      const { code, screen } = await p.finish();
      expect(code, `${cmd}\n${screen}`).toBe(0);
      expect(existsSync(marker), cmd).toBe(false);
      await p.kill();
    }
    // And the same pager does run on a terminal (the check above can fail).
    const p = await tty.pay(['customers', 'list', '--all'], { env: { PAY_PAGER: pager }, width: 120, height: 20 });
    expect((await p.finish()).code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
