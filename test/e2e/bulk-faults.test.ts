// Bulk import through faults: 5,000 customers with `pay customers create --from-file` against an
// emulator that fails 20% of requests (half of them after the write committed), resets
// connections and adds latency. Retries reuse each row's key, so the emulator must end up with
// exactly one customer per row, and the run counts every row as created by it (a retry answered
// as a replay of its own first attempt included); a second run of the same file replays every row.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';

const ROWS = 5000;
const ARGS = ['--concurrency', '16', '--max-retries', '10'];
const RUN = { timeoutMs: 300_000 };

/** A customer exactly as the seed spec's section 2 shapes it (address nested), e-mail unique per row. */
function customer(i: number): Record<string, unknown> {
  const n = String(i).padStart(5, '0');
  const c = i % 3;
  return {
    first_name: `Bulk${n}`,
    last_name: ['Okafor', 'Smith', 'Müller'][c],
    ...(i % 7 === 0 ? { middle_name: 'Ada' } : {}),
    email: `bulk.${n}@faults.example.com`,
    phone: `+1415${String(2000000 + i)}`,
    type: i % 10 === 0 ? 'business' : 'individual',
    ...(i % 2 ? { gender: ['female', 'male', 'non_binary', 'undisclosed'][i % 4] } : {}),
    date_of_birth: `19${String(50 + (i % 50)).padStart(2, '0')}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
    address: [
      { address_line1: `${i} Market St`, city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
      { address_line1: `${i} Marina Rd`, city: 'Lagos', country: 'NG', postal_code: '101241', state: 'NG-LA' },
      { address_line1: `${i} Unter den Linden`, city: 'Berlin', country: 'DE', postal_code: '10117' },
    ][c],
  };
}

interface Result {
  line: number;
  id?: string;
  status: string;
  error?: string;
}
const parse = (stdout: string): Result[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Result);

describe('customers create --from-file through injected faults', () => {
  let emu: Emulator;
  let dir: string;
  let file: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, failRate: 0.2, resetRate: 0.05, latencyMs: [0, 10] });
    registerSecret(
      emu.keys.sandbox.secret,
      emu.keys.sandbox.public,
      emu.keys.live.secret,
      emu.keys.live.public,
      emu.webhookSecrets.sandbox,
      emu.webhookSecrets.live,
    );
    env = cleanEnv({ PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId });
    dir = tempDir('pay-bulk-faults-');
    file = join(dir, 'customers.ndjson');
    writeFileSync(file, Array.from({ length: ROWS }, (_, i) => `${JSON.stringify(customer(i + 1))}\n`).join(''));
  });
  afterAll(async () => {
    await emu?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const stats = async () =>
    (await (await fetch(`${emu.url}/__emulator/stats`)).json()) as { objects: Record<string, number>; faults: Record<string, number> };

  /** Every customer the emulator holds, by listing them all through pay. */
  async function allEmails(): Promise<string[]> {
    const r = await runPay(['customers', 'list', '--all', '-o', 'ndjson', '--fields', 'email', '--max-retries', '10'], { env, ...RUN });
    expect(r.code, r.stderr).toBe(0);
    return parse(r.stdout).map((c) => (c as unknown as { email: string }).email);
  }

  let ids: string[] = [];
  it(`imports ${ROWS} customers exactly once`, async () => {
    const t = Date.now();
    const r = await runPay(['customers', 'create', '--from-file', file, ...ARGS], { env, ...RUN });
    const ms = Date.now() - t;
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const results = parse(r.stdout);
    expect(results).toHaveLength(ROWS);
    expect(results.map((x) => x.line).sort((a, b) => a - b)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    // Every row was made by this run: a retry whose first attempt made the object (the failure
    // came after the commit) is answered as a replay, and is still this run's creation.
    const bad = results.filter((x) => x.status !== 'created');
    expect(bad.slice(0, 5)).toEqual([]);
    for (const x of results) expect(x.id).toMatch(/^cus_[0-9a-z]{24}$/);
    ids = results.sort((a, b) => a.line - b.line).map((x) => x.id!);
    expect(new Set(ids).size).toBe(ROWS);
    expect(r.stderr).toMatch(new RegExp(`^customers create: ${ROWS} rows: ${ROWS} created, 0 replayed, 0 skipped, 0 failed in `, 'm'));
    expect(r.stderr).not.toMatch(/^note: .*replay/m);

    const s = await stats();
    expect(s.faults.failed).toBeGreaterThan(ROWS * 0.1);
    expect(s.faults.reset).toBeGreaterThan(ROWS * 0.02);
    expect(s.objects.customer).toBe(ROWS);
    const emails = await allEmails();
    expect(emails).toHaveLength(ROWS);
    expect(new Set(emails).size).toBe(ROWS);
    expect(new Set(emails)).toEqual(new Set(Array.from({ length: ROWS }, (_, i) => customer(i + 1).email)));
    console.log(
      `bulk import: ${ROWS} rows in ${ms} ms through ${s.faults.failed} failures and ${s.faults.reset} resets; ${r.stderr.trim().split('\n').pop()}`,
    );
  }, 600_000);

  it('the same file again: every row replayed, still exactly one customer per row', async () => {
    const t = Date.now();
    const r = await runPay(['customers', 'create', '--from-file', file, ...ARGS], { env, ...RUN });
    const ms = Date.now() - t;
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const results = parse(r.stdout).sort((a, b) => a.line - b.line);
    expect(results).toHaveLength(ROWS);
    expect(results.filter((x) => x.status !== 'replayed').slice(0, 5)).toEqual([]);
    expect(results.map((x) => x.id)).toEqual(ids);
    expect(r.stderr).toMatch(new RegExp(`^customers create: ${ROWS} rows: 0 created, ${ROWS} replayed, 0 skipped, 0 failed in `, 'm'));
    expect((await stats()).objects.customer).toBe(ROWS);
    const emails = await allEmails();
    expect(emails).toHaveLength(ROWS);
    expect(new Set(emails).size).toBe(ROWS);
    console.log(`bulk re-run: ${ROWS} rows replayed in ${ms} ms`);
  }, 600_000);

  it('reads an NDJSON file that starts with a byte order mark (its first row included)', async () => {
    const bom = join(dir, 'bom.ndjson');
    writeFileSync(bom, `\uFEFF${[ROWS + 1, ROWS + 2].map((i) => JSON.stringify(customer(i))).join('\n')}\n`);
    const r = await runPay(['customers', 'create', '--from-file', bom, ...ARGS], { env, ...RUN });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(
      parse(r.stdout)
        .map((x) => [x.line, x.status === 'created' || x.status === 'replayed'])
        .sort(),
    ).toEqual([
      [1, true],
      [2, true],
    ]);
  });
});
