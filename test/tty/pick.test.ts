// Pick instead of paste, in a real terminal (tmux) against the emulator: a verb run without its
// id argument offers the most recent objects it can act on (only pending transfers for cancel,
// only active cards for freeze, only frozen ones for unfreeze), searchable by what the entry
// shows; the pick runs the verb on that object. Ctrl-C and Ctrl-D at the list: exit 130, nothing
// sent. Nothing to pick: one line, exit 4. --no-input or CI: exit 2 naming the argument. Names
// from the service that carry escape sequences are shown escaped and never retitle the pane.
import { beforeAll, expect, it } from 'vitest';
import { account, enabledCustomer, fund } from '../e2e/groups/helpers.js';
import { startRecordingServer } from '../helpers/recording-server.js';
import { listAfterPrompt, ttyWorld } from '../helpers/tty-world.js';
import { activePrompt, describeTty, linesBeforeExit, type Pane } from './tmux.js';

const tty = ttyWorld('pay-tty-pick-');
const { w } = tty;
const ids: Record<string, string> = {};

beforeAll(async () => {
  ids.customer = await enabledCustomer(w); // the business rules: KYC approved, cards active
  ids.from = await account(w, ids.customer);
  ids.to = await account(w, ids.customer);
  await fund(w, ids.from, '500.00');
  ids.done = (
    await w.api('POST', 'transfers', { source_account_id: ids.from, destination_id: ids.to, amount: '10.00', currency: 'USD' })
  ).id;
  await w.settle(); // completed: not cancellable
  ids.pending = (
    await w.api('POST', 'transfers', { source_account_id: ids.from, destination_id: ids.to, amount: '7.25', currency: 'USD' })
  ).id;
  ids.active = (await w.api('POST', 'cards', { customer_id: ids.customer, account_id: ids.from, type: 'virtual' })).id;
  ids.frozen = (await w.api('POST', 'cards', { customer_id: ids.customer, account_id: ids.from, type: 'virtual' })).id;
  await w.api('POST', `cards/${ids.frozen}/freeze`);
}, 60_000);

/** The entries of the open list (lines after the prompt line that start with the cursor or two spaces and an id). */
const entries = (screen: string): string[] => listAfterPrompt(screen, /^[❯ ] ([a-z]+_[0-9a-z]{24}\b.*?)\s*$/);

async function listShown(p: Pane, label = 'Pick one of the'): Promise<string[]> {
  const screen = await p.waitFor((s) => (activePrompt(s)?.startsWith(`? ${label}`) ?? false) && entries(s).length > 0);
  return entries(screen);
}

describeTty('pick instead of paste: an id argument left out (tmux, emulator)', () => {
  it('transfers cancel offers only pending transfers; typing filters; Enter cancels the one picked', async () => {
    const mark = w.mark();
    const p = await tty.pay(['transfers', 'cancel']);
    const shown = await listShown(p, 'Pick one of the pending transfers');
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(
      new RegExp(`^${ids.pending}\\s+7\\.25 USD\\s+${ids.to}\\s+pending\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z$`),
    );
    expect(await p.screen()).not.toContain(ids.done);
    await p.type('7.25');
    await p.waitFor((s) => activePrompt(s)?.endsWith('7.25') ?? false);
    await p.keys('Enter');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(screen).toContain(`✓ Cancelled transfer ${ids.pending} (cancelled)`);
    expect(w.since(mark, 'POST').map((r) => r.path)).toEqual([`/v1/transfers/${ids.pending}/cancel`]);
  });

  it('cards freeze offers only active cards; Ctrl-C there is exit 130 and sends nothing', async () => {
    const mark = w.mark();
    const p = await tty.pay(['cards', 'freeze']);
    const shown = await listShown(p, 'Pick one of the active cards');
    expect(shown.map((e) => e.split(/\s+/)[0])).toEqual([ids.active]);
    expect(shown[0]).toMatch(/\bvirtual\s+\d{4}\s+cus_\w+\s+active\b/);
    await p.keys('C-c');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(130);
    expect(linesBeforeExit(screen).filter((l) => l.startsWith('error:'))).toEqual(['error: cancelled']);
    expect(w.since(mark, 'POST')).toEqual([]);
  });

  it('cards unfreeze offers only frozen cards; Ctrl-D there, with a search typed, is exit 130 and sends nothing', async () => {
    const mark = w.mark();
    const p = await tty.pay(['cards', 'unfreeze']);
    const shown = await listShown(p, 'Pick one of the frozen cards');
    expect(shown.map((e) => e.split(/\s+/)[0])).toEqual([ids.frozen]);
    await p.type('virt');
    await p.keys('C-d');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(130);
    expect(w.since(mark, 'POST')).toEqual([]);
  });

  it('nothing the verb can act on: one line, exit 4, no prompt', async () => {
    const p = await tty.pay(['payment-links', 'disable']);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(4);
    expect(linesBeforeExit(screen).filter((l) => l.trim())).toEqual([
      'error: no active payment links to pick from (among the 100 most recent); pass the id',
    ]);
  });

  it('a flag the verb needs is asked for before any list: exit 2, nothing sent', async () => {
    const mark = w.mark();
    const p = await tty.pay(['features', 'check']);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    expect(linesBeforeExit(screen).filter((l) => l.trim())).toEqual(['error: missing required flag: --feature']);
    expect(w.since(mark)).toEqual([]);
  });

  it('--no-input, PAY_NO_INPUT or CI on a terminal: the id stays required (exit 2 naming it), nothing is listed', async () => {
    for (const [args, env] of [
      [['customers', 'get', '--no-input'], {}],
      [['customers', 'get'], { CI: 'true' }],
      [['kyc', 'status'], { PAY_NO_INPUT: '1' }],
    ] as const) {
      const mark = w.mark();
      const p = await tty.pay([...args], { env });
      const { code, screen } = await p.finish();
      expect(code, screen).toBe(2);
      const label = args[0] === 'kyc' ? 'customer-id' : 'id';
      expect(linesBeforeExit(screen).filter((l) => l.trim())).toEqual([
        `error: missing required argument '${label}'`,
        `hint: prompting is off (--no-input, PAY_NO_INPUT or CI): pass the ${label}`,
      ]);
      expect(w.since(mark)).toEqual([]);
      await p.kill();
    }
  });

  it('names from the service with escape sequences are shown escaped in the list and never retitle the pane; odd ids are not offered', async () => {
    const server = await startRecordingServer();
    try {
      const hostile = 'cus_000000000000000000000001';
      const customerOf = (id: string, first: string) => ({
        id,
        object: 'customer',
        first_name: first,
        last_name: 'X\u202eevil',
        email: 'eve@example.com',
        kyc_status: 'pending',
        created_at: '2026-11-20T10:00:00.000Z',
      });
      server.queue.push({
        status: 200,
        body: {
          object: 'list',
          data: [customerOf(hostile, 'Eve\u001b]0;pwned\u0007'), customerOf('cus_../../accounts', 'Odd'), customerOf('x\u001b[2J', 'Odd')],
          has_more: false,
          next_cursor: null,
        },
      });
      server.queue.push({ status: 200, body: customerOf(hostile, 'Eve\u001b]0;pwned\u0007') });
      const p = await tty.pay(['customers', 'get'], { env: { PAY_BASE_URL: server.baseUrl } });
      const shown = await listShown(p, 'Pick one of the customers');
      expect(shown).toHaveLength(1);
      expect(shown[0]).toContain(`${hostile}  Eve\\x1b]0;pwned\\x07  X\\u202eevil`);
      await p.keys('Enter');
      const { code, screen } = await p.finish();
      expect(code, screen).toBe(0);
      expect(screen).toMatch(new RegExp(`^id\\s+${hostile}\\s*$`, 'm'));
      expect(screen).not.toContain('Odd');
      expect(await p.title()).not.toContain('pwned');
      expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/customers', `GET /v1/customers/${hostile}`]);
      expect(server.requests[0]!.query.limit).toBe('100');
    } finally {
      await server.close();
    }
  });
});
