// Progress bars in a real terminal (tmux): `--from-file` bulk creates and `seed apply` draw a bar
// with a count out of the total on stderr while they run, clear it when done, and leave stdout
// (redirected to a file here) holding the results only.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ttyEmulator } from '../helpers/tty-world.js';
import { describeTty, scratchDir } from './tmux.js';

const ROWS = 120;
const tty = ttyEmulator('pay-tty-progress-');
const { emu } = tty;

const customer = (i: number) => ({
  first_name: `Bar${i}`,
  last_name: 'Progress',
  email: `bar-${i}-${Date.now()}@example.com`,
  phone: '+14155550123',
  type: 'individual',
  date_of_birth: '1990-01-01',
  address: { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '78701', state: 'US-TX' },
});

describeTty('progress bars on a terminal (tmux)', () => {
  it(`customers create --from-file: a bar counting to ${ROWS}, cleared at the end, results on stdout only`, async () => {
    const dir = scratchDir('pay-tty-bulk-');
    writeFileSync(join(dir, 'rows.ndjson'), Array.from({ length: ROWS }, (_, i) => JSON.stringify(customer(i))).join('\n') + '\n');
    emu.admin.setFaults({ latencyMs: [30, 30] });
    const p = await tty.payToFile(['customers', 'create', '--from-file', 'rows.ndjson', '--concurrency', '2'], dir, 'results.ndjson');
    await p.waitFor(new RegExp(`customers create \\[█*░+\\] \\d+/${ROWS} \\(\\d+/s\\)`));
    const { code, screen } = await p.finish();
    expect(code).toBe(0);
    // The bar is cleared (a full one has no ░ either), and no result reached the terminal.
    expect(screen).not.toMatch(/customers create \[/);
    expect(screen).not.toMatch(/"status"/);
    expect(screen).toMatch(new RegExp(`customers create: ${ROWS} rows: ${ROWS} created, 0 replayed, 0 skipped, 0 failed`));
    const results = readFileSync(join(dir, 'results.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string });
    expect(results).toHaveLength(ROWS);
    expect(results.every((r) => r.status === 'created')).toBe(true);
  }, 60_000);

  it('seed apply: a bar counting entries to the total, cleared at the end', async () => {
    const dir = scratchDir('pay-tty-seed-');
    const n = 40;
    const doc = { customers: Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, customer(1000 + i)])) };
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(doc));
    emu.admin.setFaults({ latencyMs: [80, 80] });
    const p = await tty.payToFile(['seed', 'apply', 'seed.json'], dir, 'ids.txt');
    await p.waitFor(new RegExp(`seed \\[█*░+\\] \\d+/${n}`));
    const { code, screen } = await p.finish();
    expect(code).toBe(0);
    expect(screen).not.toMatch(/seed \[/);
    // Every entry's id went to the file.
    const refs = [...readFileSync(join(dir, 'ids.txt'), 'utf8').matchAll(/customers\.c(\d+)/g)].map((m) => Number(m[1]));
    expect(refs.sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
  }, 60_000);
});
