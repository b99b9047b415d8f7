// Ctrl-C in a real terminal (tmux) during `--from-file`: the terminal sends SIGINT to the whole
// foreground group; pay starts no new row, lets the rows in flight finish, clears its progress
// bar, writes every result, prints the summary and exits 130; --resume then completes the file
// with each customer created once.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ttyEmulator } from '../helpers/tty-world.js';
import { describeTty, scratchDir, type Pane } from './tmux.js';

const ROWS = 60;
const tenant = `tty-int-${Date.now()}`;
const tty = ttyEmulator('pay-tty-int-', {}, tenant);
const { emu } = tty;

/** `pay <args> > out; echo EXIT:$?` in a pane; the shell traps SIGINT (pay gets it as from a terminal) so it lives to print pay's exit code. */
const payToFile = (args: string[], dir: string, out: string): Promise<Pane> => tty.payToFile(args, dir, out, { trapInt: true });

const customer = (i: number) => ({
  first_name: `Int${i}`,
  last_name: 'Tty',
  email: `tty-int-${i}-${tenant}@example.com`,
  phone: '+14155550123',
  type: 'individual',
  date_of_birth: '1990-01-01',
  address: { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '78701', state: 'US-TX' },
});

async function emails(): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${emu.baseUrl}customers?${q.toString()}`, {
      headers: { 'api-key': emu.keys.sandbox.secret, 'x-tenant-id': tenant },
    });
    const page = (await res.json()) as { data: Array<{ email: string }>; has_more: boolean; next_cursor: string };
    out.push(...page.data.map((c) => c.email));
    if (!page.has_more) return out;
    cursor = page.next_cursor;
  }
}

describeTty('Ctrl-C during a bulk run (tmux)', () => {
  it('stops starting rows, finishes the rows in flight, clears the bar, exits 130; --resume completes the file once', async () => {
    const dir = scratchDir('pay-tty-bulk-int-');
    writeFileSync(join(dir, 'rows.ndjson'), Array.from({ length: ROWS }, (_, i) => JSON.stringify(customer(i))).join('\n') + '\n');
    emu.admin.setFaults({ latencyMs: [150, 150] });
    const p = await payToFile(['customers', 'create', '--from-file', 'rows.ndjson', '--concurrency', '2'], dir, 'results.ndjson');
    await p.waitFor(new RegExp(`customers create \\[█*░+\\] [1-9]\\d*/${ROWS}`));
    await p.keys('C-c');
    await p.waitFor(/SIGINT: starting no new row/);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(130);
    expect(screen).toMatch(/^customers create: \d+ rows: \d+ created, 0 replayed, 0 skipped, 0 failed in /m);
    expect(screen).toMatch(/^error: interrupted: no row was started after the signal/m);
    // The bar is gone (cleared before the message), no result reached the terminal, no stack.
    expect(screen).not.toMatch(/customers create \[/);
    expect(screen).not.toMatch(/"status"/);
    expect(screen).not.toMatch(/\n\s+at /);
    const results = readFileSync(join(dir, 'results.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; status: string });
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThan(ROWS);
    // The rows in flight finished within the grace: every row sent has its result, as created.
    expect(results.every((r) => r.status === 'created')).toBe(true);
    expect((await emails()).sort()).toEqual(results.map((r) => customer(r.line - 1).email).sort());

    emu.admin.setFaults({ latencyMs: null });
    const again = await payToFile(
      ['customers', 'create', '--from-file', 'rows.ndjson', '--resume', 'results.ndjson'],
      dir,
      'results2.ndjson',
    );
    const second = await again.finish();
    expect(second.code, second.screen).toBe(0);
    expect(second.screen).toMatch(
      new RegExp(`customers create: ${ROWS} rows: ${ROWS - results.length} created, 0 replayed, ${results.length} skipped, 0 failed`),
    );
    const all = await emails();
    expect(all).toHaveLength(ROWS);
    expect(new Set(all).size).toBe(ROWS);
  }, 120_000);
});
