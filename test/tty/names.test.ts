// Names beside ids and the fitter's tails in a real terminal (tmux) at 80 and 120 columns against
// the emulator (#28 items 1, 5, 7 and 9): `transfers list` with a failed transfer (its meaning
// shown at 120, dropped or cut before the code at 80; with --wide, the nicknames beside FROM and
// TO), a get view with the names beside its ids, --no-names, `customers list --email` with an
// address too long to share a line (the asked column wins: the others are hidden, it is whole),
// and `trigger` at 120 columns. The pane is captured with wrapped lines joined (capture-pane -J).
import { beforeAll, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { customerBody, fund } from '../e2e/groups/helpers.js';
import { ttyWorld } from '../helpers/tty-world.js';
import { describeTty, linesBeforeExit } from './tmux.js';

// The emulator world and panes that talk to it (test/helpers/tty-world.ts), times in UTC, no pager.
const t = ttyWorld('pay-tty-names-', { env: { PAY_PAGER: '', TZ: 'UTC' } });
const w = t.w;
let ops: string;
let pay: string;
let failed: string;
const EMAIL = 'maria.garcia.from.the.accounts.payable.department@example-support-desk.com';

beforeAll(async () => {
  const cus = (await w.api('POST', 'customers', customerBody({ first_name: 'Maria', last_name: 'Garcia', email: EMAIL }))).id as string;
  ops = (await w.api('POST', 'accounts', { customer_id: cus, currency: 'USD', nickname: 'Operating' })).id as string;
  pay = (await w.api('POST', 'accounts', { customer_id: cus, currency: 'USD', nickname: 'Payroll' })).id as string;
  await fund(w, ops, '500.00');
  await w.api('POST', 'transfers', { source_account_id: ops, destination_id: pay, amount: '25.00', currency: 'USD' });
  failed = (await w.api('POST', 'transfers', { source_account_id: ops, destination_id: pay, amount: '25.13', currency: 'USD' }))
    .id as string;
  await w.settle();
}, 60_000);
async function run(args: string[], width: number): Promise<string[]> {
  const p = await t.pay(args, { width, height: 60 });
  const { code, screen } = await p.finish();
  expect(code, screen).toBe(0);
  return linesBeforeExit(screen);
}

const fits = (lines: readonly string[], width: number): void => {
  for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(width);
};

describeTty('names beside ids and tails that give way (tmux)', () => {
  it('transfers list with a failed transfer: the meaning at 120 columns, dropped or cut before the code at 80', async () => {
    const at120 = await run(['transfers', 'list'], 120);
    fits(at120, 120);
    expect(at120.join('\n')).toMatch(/ failed +destination_rejected \(receiving bank [a-z ]*(?:…|refused it\))$/m);
    const at80 = await run(['transfers', 'list'], 80);
    fits(at80, 80);
    const row = at80.find((l) => l.startsWith(failed))!;
    expect(row).toMatch(/ destination_rejected(?: \([a-z ]{4,}…)?$/);
  });

  for (const width of [80, 120]) {
    it(`a get view at ${width} columns: the nicknames beside its ids, the meaning beside the code; --no-names shows the ids alone`, async () => {
      const lines = await run(['transfers', 'get', failed], width);
      fits(lines, width);
      expect(lines).toContain(`source_account_id  ${ops} (Operating)`);
      expect(lines).toContain(`destination_id     ${pay} (Payroll)`);
      expect(lines).toContain('failure_reason     destination_rejected (receiving bank refused it)');
      const bare = await run(['transfers', 'get', failed, '--no-names'], width);
      expect(bare).toContain(`source_account_id  ${ops}`);
      expect(bare.join('\n')).not.toContain('Operating');
    });

    it(`transfers list --wide at ${width} columns: FROM and TO with their nicknames; --no-names: without`, async () => {
      const lines = await run(['transfers', 'list', '--wide'], width + 80);
      expect(lines.join('\n')).toContain(`${ops} (Operating)  ${pay} (Payroll)`);
      const bare = await run(['--no-names', 'transfers', 'list', '--wide'], width + 80);
      expect(bare.join('\n')).toMatch(new RegExp(`${ops} +${pay}`));
      expect(bare.join('\n')).not.toContain('Operating');
    });

    it(`customers list --email <long address> at ${width} columns: the asked column is whole, the others give way`, async () => {
      const lines = await run(['customers', 'list', '--email', EMAIL], width);
      const screen = lines.join('\n');
      expect(screen).toContain(EMAIL);
      expect(screen).not.toContain('…');
      if (width === 80) {
        // ID (28) and the address (74) do not share 80 columns: the id goes, the address stays.
        expect(lines[0]).toBe('EMAIL');
        expect(screen).toMatch(/Hidden to fit the terminal's 80 columns: ID,/);
      } else expect(lines[0]).toMatch(/^ID +.*EMAIL/);
      fits(lines, width);
    });
  }

  it('trigger at 120 columns: what it created is said once, each id whole', async () => {
    const lines = await run(['trigger', 'customer.created'], 120);
    const screen = lines.join('\n');
    expect(screen.match(/\bcus_[0-9a-z]{24}\b/g) ?? [], screen).toHaveLength(1);
    expect(screen).toMatch(/^✓ Triggered customer\.created: evt_[0-9a-z]{24}$/m);
    fits(lines, 120);
  });
});
