// Faults: `pay customers create` and `pay transfers send` (child processes, a few at a time)
// against the emulator injecting 500/503 (half of them after the write committed), dropped
// connections and latency. Every command either succeeds and its object exists exactly once, or
// exits non-zero naming its idempotency key; re-running it with that key then completes it,
// once. No e-mail and no transfer reference is ever stored twice, and the ledger balances: each
// account's balance equals its transactions' credits minus debits, every ledger entry sums to
// zero (the emulator's /__emulator/ledger check), and the money moved is exactly what was sent.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, count, FULL, minor, pay, pool, record, registerSecret, secretsOf, shown, tempRoot, type Run } from './helpers.js';

const N_CUSTOMERS = count(60, 1000);
const N_TRANSFERS = count(30, 500);
const PARALLEL = 4;
const LATENCY: [number, number] = FULL ? [0, 300] : [0, 40];
const FAULTS = { failRate: 0.3, resetRate: 0.1, latencyMs: LATENCY };
const RUN = randomBytes(3).toString('hex');

let emu: Emulator;
let env: Record<string, string>;
let root: string;
let customerId: string;
let from: string;
let to: string;
const FUNDING = '1000000.00';

interface Api {
  status: number;
  body: any;
}

async function api(method: string, path: string, body?: unknown): Promise<Api> {
  const headers: Record<string, string> = { 'api-key': emu.keys.sandbox.secret, 'x-tenant-id': emu.tenantId, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method === 'POST') headers['idempotency-key'] = `rel-${randomBytes(8).toString('hex')}`;
  const res = await fetch(emu.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Every item of a list (faults must be off). */
async function listAll(path: string, query: Record<string, string> = {}): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ ...query, limit: '100', ...(cursor ? { cursor } : {}) });
    const r = await api('GET', `${path}?${q.toString()}`);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    cursor = r.body.next_cursor;
  }
}

async function admin(path: string): Promise<any> {
  const r = await fetch(`${emu.url}/__emulator/${path}`);
  return r.json();
}

/**
 * The key a failed command names. With --json the error is one JSON object on stderr whose
 * `error.idempotency_key` holds it; as text it is `idempotency key <k>` in the message or
 * `--idempotency-key <k>` in the hint.
 */
function namedKey(stderr: string): string | undefined {
  const text = stderr.trim();
  if (text.startsWith('{')) {
    try {
      const key = (JSON.parse(text) as { error?: { idempotency_key?: unknown } }).error?.idempotency_key;
      return typeof key === 'string' ? key : undefined;
    } catch {
      return undefined;
    }
  }
  return /idempotency key ([^\s,)]+)/.exec(text)?.[1] ?? /--idempotency-key ([^\s,)]+)/.exec(text)?.[1];
}

interface Outcome {
  args: string[];
  first: Run;
  id?: string;
  key?: string;
  retry?: Run;
}

/** Runs every command through the faults; a failed one is re-run once with the key it named. */
async function runAll(commands: string[][]): Promise<Outcome[]> {
  emu.admin.setFaults(FAULTS);
  const outcomes = await pool(commands, PARALLEL, async (args, i) => {
    // Every 4th command gets no retries, so some fail (often after the write committed) and must name their key.
    const first = await pay([...args, '--json', ...(i % 4 === 3 ? ['--max-retries', '0'] : [])], { env, timeoutMs: 120_000 });
    const o: Outcome = { args, first };
    if (first.code === 0) o.id = JSON.parse(first.stdout).id;
    else o.key = namedKey(first.stderr);
    return o;
  });
  // The promise of the error message: retrying with the named key is safe. Still under faults.
  await pool(
    outcomes.filter((o) => o.first.code !== 0 && o.key),
    PARALLEL,
    async (o) => {
      o.retry = await pay([...o.args, '--json', '--idempotency-key', o.key!, '--max-retries', '10'], { env, timeoutMs: 120_000 });
      if (o.retry.code === 0) o.id = JSON.parse(o.retry.stdout).id;
    },
  );
  emu.admin.setFaults({ failRate: 0, resetRate: 0, latencyMs: null });
  return outcomes;
}

function describeFailures(outcomes: Outcome[], bad: (o: Outcome) => boolean): string {
  return outcomes
    .filter(bad)
    .slice(0, 5)
    .map(
      (o) =>
        `${shown(o.first.args)} → ${o.first.code}: ${o.first.stderr.trim()}${o.retry ? ` | retry → ${o.retry.code}: ${o.retry.stderr.trim()}` : ''}`,
    )
    .join('\n');
}

beforeAll(async () => {
  root = tempRoot('faults');
  emu = await startEmulator({ port: 0, settleAfterMs: 50 });
  registerSecret(...secretsOf(emu));
  env = cleanEnv({ PAY_CONFIG_DIR: root, PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId });
  const c = await api('POST', 'customers', {
    first_name: 'Fund',
    last_name: 'Source',
    email: `fund-${RUN}@example.com`,
    phone: '+14155550100',
    type: 'business',
    date_of_birth: '1980-01-01',
    address: { address_line1: '1 Main St', city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
  });
  customerId = c.body.id;
  await api('POST', `customers/${customerId}/features/collections/activate`); // the business rules
  from = (await api('POST', 'accounts', { customer_id: customerId, currency: 'USD' })).body.id;
  to = (await api('POST', 'accounts', { customer_id: customerId, currency: 'USD', type: 'savings' })).body.id;
  const col = await api('POST', 'collections', { account_id: from, amount: FUNDING, currency: 'USD', method: 'bank_transfer' });
  expect(col.status).toBe(201);
  emu.admin.advance(3600);
  const acc = await api('GET', `accounts/${from}`);
  expect(acc.body.balance.available).toBe(FUNDING);
});

afterAll(async () => {
  await emu?.stop();
});

describe('faults: 30% 500/503 (half after commit), resets, latency', () => {
  it(`customers create ×${N_CUSTOMERS}: each succeeds once or names its idempotency key; no duplicate`, async () => {
    const started = Date.now();
    const faultsBefore = (await admin('stats')).faults;
    const emails = Array.from({ length: N_CUSTOMERS }, (_, i) => `rel-${RUN}-${i}@example.com`);
    const commands = emails.map((email, i) => [
      'customers',
      'create',
      '--first-name',
      `Rel${i}`,
      '--last-name',
      'Fault',
      '--email',
      email,
      '--phone',
      `+1415555${String(1000 + (i % 9000)).padStart(4, '0')}`,
      '--type',
      'individual',
      '--date-of-birth',
      '1990-01-01',
      '--address-line1',
      `${i} Main St`,
      '--city',
      'San Francisco',
      '--country',
      'US',
      '--postal-code',
      '94105',
      '--state',
      'US-CA',
    ]);
    const outcomes = await runAll(commands);
    const faults = (await admin('stats')).faults;

    const stored = (await listAll('customers')).filter((c) => typeof c.email === 'string' && c.email.startsWith(`rel-${RUN}-`));
    const byEmail = new Map<string, string[]>();
    for (const c of stored) byEmail.set(c.email, [...(byEmail.get(c.email) ?? []), c.id]);

    const firstOk = outcomes.filter((o) => o.first.code === 0);
    const failedWithKey = outcomes.filter((o) => o.first.code !== 0 && o.key);
    const failedWithoutKey = outcomes.filter((o) => o.first.code !== 0 && !o.key);
    const recovered = failedWithKey.filter((o) => o.retry?.code === 0);
    // Lost: a command that reported success (first run or retry) whose object is not stored, or not as that id.
    const lost = outcomes.filter((o, i) => o.id !== undefined && !(byEmail.get(emails[i]!) ?? []).includes(o.id));
    const duplicated = [...byEmail.values()].reduce((n, ids) => n + Math.max(0, ids.length - 1), 0);
    const leaked = outcomes.reduce((n, o) => n + o.first.leaks.length + (o.retry?.leaks.length ?? 0), 0);
    const passed = outcomes.filter(
      (o, i) => (o.first.code === 0 || (o.key && o.retry?.code === 0)) && (byEmail.get(emails[i]!) ?? []).length === 1,
    ).length;
    await record(
      'faults.customers',
      'customers create under faults',
      {
        tried: N_CUSTOMERS,
        passed,
        lost: lost.length,
        duplicated,
        leaked,
        extra: {
          ok_first_time: firstOk.length,
          failed_with_key: failedWithKey.length,
          recovered_with_key: recovered.length,
          injected_5xx: faults.failed - faultsBefore.failed,
          injected_resets: faults.reset - faultsBefore.reset,
        },
      },
      started,
    );

    expect(faults.failed - faultsBefore.failed, 'faults were injected').toBeGreaterThan(N_CUSTOMERS / 10);
    expect(
      failedWithoutKey.length,
      describeFailures(outcomes, (o) => o.first.code !== 0 && !o.key),
    ).toBe(0);
    for (const o of failedWithKey) expect([5, 6, 7], o.first.stderr).toContain(o.first.code);
    expect(
      recovered.length,
      describeFailures(failedWithKey, (o) => o.retry?.code !== 0),
    ).toBe(failedWithKey.length);
    expect(lost.length, 'acknowledged but not stored').toBe(0);
    expect(duplicated, 'customers stored twice').toBe(0);
    expect(leaked).toBe(0);
    expect(byEmail.size).toBe(N_CUSTOMERS);
    expect(passed).toBe(N_CUSTOMERS);
  }, 900_000);

  it(`transfers send ×${N_TRANSFERS}: each succeeds once or names its key; no duplicate; the ledger balances`, async () => {
    const started = Date.now();
    const faultsBefore = (await admin('stats')).faults;
    // Amounts never end in 13 cents (the sandbox's magic failure value).
    const amounts = Array.from(
      { length: N_TRANSFERS },
      (_, i) => `${1 + (i % 9)}.${String((i * 7) % 100 === 13 ? 14 : (i * 7) % 100).padStart(2, '0')}`,
    );
    const refs = amounts.map((_, i) => `rel-${RUN}-tr-${i}`);
    const commands = amounts.map((amount, i) => [
      'transfers',
      'send',
      '--from',
      from,
      '--to',
      to,
      '--amount',
      amount,
      '--currency',
      'USD',
      '--reference',
      refs[i]!,
    ]);
    const outcomes = await runAll(commands);
    const faults = (await admin('stats')).faults;

    // Settle everything, then read back.
    emu.admin.advance(3600);
    const transfers = (await listAll('transfers', { account_id: from })).filter(
      (t) => typeof t.reference === 'string' && t.reference.startsWith(`rel-${RUN}-tr-`),
    );
    const byRef = new Map<string, any[]>();
    for (const t of transfers) byRef.set(t.reference, [...(byRef.get(t.reference) ?? []), t]);

    const failedWithKey = outcomes.filter((o) => o.first.code !== 0 && o.key);
    const failedWithoutKey = outcomes.filter((o) => o.first.code !== 0 && !o.key);
    const recovered = failedWithKey.filter((o) => o.retry?.code === 0);
    const lost = outcomes.filter((o, i) => o.id !== undefined && !(byRef.get(refs[i]!) ?? []).some((t) => t.id === o.id));
    const duplicated = [...byRef.values()].reduce((n, ts) => n + Math.max(0, ts.length - 1), 0);
    const leaked = outcomes.reduce((n, o) => n + o.first.leaks.length + (o.retry?.leaks.length ?? 0), 0);

    // The ledger: each account's balance = its posted transactions' credits minus debits.
    const cents = (s: string): bigint => minor(s, 2);
    const ledgerProblems: string[] = [];
    const ledgerRoute = await admin(`ledger?tenant=${encodeURIComponent(emu.tenantId)}`);
    if (ledgerRoute.unbalanced.length > 0) ledgerProblems.push(`unbalanced entries: ${ledgerRoute.unbalanced.join(', ')}`);
    for (const acc of [from, to]) {
      const a = (await api('GET', `accounts/${acc}`)).body;
      const txns = await listAll('transactions', { account_id: acc });
      const posted = txns
        .filter((t) => t.status === 'posted')
        .reduce((s, t) => s + (t.direction === 'credit' ? cents(t.amount) : -cents(t.amount)), 0n);
      if (txns.some((t) => t.status === 'pending')) ledgerProblems.push(`${acc}: pending transactions after settling`);
      if (cents(a.balance.available) !== posted)
        ledgerProblems.push(`${acc}: available ${a.balance.available} but transactions sum to ${posted} cents`);
      if (cents(a.balance.pending) !== 0n) ledgerProblems.push(`${acc}: pending ${a.balance.pending} after settling`);
      const route = ledgerRoute.posted_balances[`${acc}|USD`];
      if (route === undefined || cents(route) !== posted)
        ledgerProblems.push(`${acc}: /__emulator/ledger says ${route}, transactions ${posted} cents`);
    }
    // And the money moved is exactly the sum of the transfers sent, each once.
    const sent = amounts.reduce((s, a) => s + cents(a), 0n);
    const toBalance = cents((await api('GET', `accounts/${to}`)).body.balance.available);
    const fromBalance = cents((await api('GET', `accounts/${from}`)).body.balance.available);
    if (toBalance !== sent) ledgerProblems.push(`destination holds ${toBalance} cents, ${sent} were sent`);
    if (fromBalance !== cents(FUNDING) - sent) ledgerProblems.push(`source holds ${fromBalance} cents, expected ${cents(FUNDING) - sent}`);
    const notCompleted = transfers.filter((t) => t.status !== 'completed');

    const passed = outcomes.filter(
      (o, i) => (o.first.code === 0 || (o.key && o.retry?.code === 0)) && (byRef.get(refs[i]!) ?? []).length === 1,
    ).length;
    await record(
      'faults.transfers',
      'transfers send under faults; ledger balances',
      {
        tried: N_TRANSFERS,
        passed,
        lost: lost.length,
        duplicated,
        leaked,
        extra: {
          ok_first_time: outcomes.filter((o) => o.first.code === 0).length,
          failed_with_key: failedWithKey.length,
          recovered_with_key: recovered.length,
          injected_5xx: faults.failed - faultsBefore.failed,
          injected_resets: faults.reset - faultsBefore.reset,
          ledger_problems: ledgerProblems.length,
        },
      },
      started,
    );

    expect(faults.failed - faultsBefore.failed, 'faults were injected').toBeGreaterThan(N_TRANSFERS / 10);
    expect(
      failedWithoutKey.length,
      describeFailures(outcomes, (o) => o.first.code !== 0 && !o.key),
    ).toBe(0);
    expect(
      recovered.length,
      describeFailures(failedWithKey, (o) => o.retry?.code !== 0),
    ).toBe(failedWithKey.length);
    expect(lost.length, 'acknowledged but not stored').toBe(0);
    expect(duplicated, 'transfers stored twice').toBe(0);
    expect(leaked).toBe(0);
    expect(byRef.size).toBe(N_TRANSFERS);
    expect(notCompleted.map((t) => `${t.id} ${t.status}`)).toEqual([]);
    expect(ledgerProblems).toEqual([]);
    expect(passed).toBe(N_TRANSFERS);
  }, 900_000);
});
