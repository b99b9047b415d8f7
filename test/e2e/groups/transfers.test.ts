// pay transfers against the emulator: send (pending) → settle → completed, --wait (exit 0 when
// completed, 1 when the sandbox .13 amount fails), cancel, insufficient funds, currency mismatch,
// idempotent retries, list filters, balances after all of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ID,
  TABLE_TIME,
  UUID,
  account,
  apiError,
  customer,
  expectContractHeaders,
  fund,
  json,
  jsonError,
  keyValues,
  ndjson,
  ok,
  startWorld,
  table,
  tsv,
  until,
  usageError,
  type Obj,
  type PayResult,
  type World,
} from './helpers.js';

let w: World;
let a: string; // funded 100.00 USD
let b: string; // USD
let e: string; // EUR
const sent: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld();
  const cus = await customer(w);
  [a, b, e] = await Promise.all([account(w, cus), account(w, cus), account(w, cus, 'EUR')]);
  await fund(w, a, '100.00');
});
afterAll(() => w?.stop());

/** Runs `pay transfers send … --wait`, settling the emulator once the transfer was created. */
async function sendAndWait(args: string[]): Promise<PayResult> {
  const m = w.mark();
  const run = w.pay(['transfers', 'send', ...args, '--wait']);
  const amount = args[args.indexOf('--amount') + 1];
  await until('the transfer POST', () =>
    w.since(m, 'POST', '/v1/transfers').some((r) => (r.body as { amount?: string }).amount === amount),
  );
  await w.settle();
  return run;
}

describe('pay transfers', () => {
  it('send off a terminal: one tsv record, pending; the POST carries the amount as a string and an Idempotency-Key', async () => {
    const m = w.mark();
    const s = tsv(
      await w.pay(['transfers', 'send', '--from', a, '--to', b, '--amount', '10.50', '--currency', 'usd', '--reference', 'inv-1']),
    );
    expect(s.header).toEqual([
      'id',
      'object',
      'livemode',
      'created_at',
      'updated_at',
      'source_account_id',
      'destination_id',
      'destination_type',
      'amount',
      'currency',
      'description',
      'reference',
      'status',
      'failure_reason',
      'completed_at',
    ]);
    expect(s.rows[0]).toMatchObject({
      source_account_id: a,
      destination_id: b,
      destination_type: 'account',
      amount: '10.50',
      currency: 'USD',
      reference: 'inv-1',
      status: 'pending',
      failure_reason: '',
      completed_at: '',
    });
    sent.first = s.rows[0]!.id!;
    expect(sent.first).toMatch(ID('tr_'));
    const reqs = w.since(m);
    expect(reqs.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/v1/transfers', { source_account_id: a, destination_id: b, amount: '10.50', currency: 'USD', reference: 'inv-1' }],
    ]);
    expectContractHeaders(reqs, w.emu);
    // Money on its way out is not spendable; the destination sees it pending.
    const [src, dst] = await Promise.all([w.api('GET', `accounts/${a}`), w.api('GET', `accounts/${b}`)]);
    expect(src.balance).toMatchObject({ available: '89.50', pending: '-10.50' });
    expect(dst.balance).toMatchObject({ available: '0.00', pending: '10.50' });
  });

  it('get: pending, then completed once settled (json and table with the money and its currency)', async () => {
    expect(json(await w.pay(['transfers', 'get', sent.first!, '--json']))).toMatchObject({
      id: sent.first,
      status: 'pending',
      completed_at: null,
    });
    await w.settle();
    const [j, t] = await Promise.all([
      w.pay(['transfers', 'get', sent.first!, '--json']),
      w.pay(['transfers', 'get', sent.first!, '-o', 'table']),
    ]);
    expect(json(j)).toMatchObject({ id: sent.first, status: 'completed', completed_at: expect.any(String) });
    const kv = keyValues(t);
    expect([kv.get('amount'), kv.get('status'), kv.get('created_at')]).toEqual([
      '10.50 USD',
      'completed',
      expect.stringMatching(TABLE_TIME),
    ]);
    const [src, dst] = await Promise.all([w.api('GET', `accounts/${a}`), w.api('GET', `accounts/${b}`)]);
    expect(src.balance).toMatchObject({ available: '89.50', pending: '0.00' });
    expect(dst.balance).toMatchObject({ available: '10.50', pending: '0.00' });
  });

  it('send --wait --json: exit 0 with the completed transfer', async () => {
    const t = json(await sendAndWait(['--from', a, '--to', b, '--amount', '20.00', '--currency', 'USD', '--json']));
    expect(t).toMatchObject({ status: 'completed', amount: '20.00', completed_at: expect.any(String) });
    sent.waited = t.id;
  });

  it('the sandbox amount ending in .13 fails: --wait is exit 1 naming the reason (text and --json)', async () => {
    const [text, js] = await Promise.all([
      sendAndWait(['--from', a, '--to', b, '--amount', '1.13', '--currency', 'USD']),
      sendAndWait(['--from', a, '--to', b, '--amount', '2.13', '--currency', 'USD', '--json']),
    ]);
    expect([text.code, text.stdout]).toEqual([1, '']);
    const id = /^error: transfer (tr_[0-9a-z]{24}) failed: destination_rejected$/m.exec(text.stderr)?.[1];
    expect(id).toBeDefined();
    expect(text.stderr).toBe(`error: transfer ${id} failed: destination_rejected\nhint: see it with: pay transfers get ${id}\n`);
    sent.failed = id!;
    const err = jsonError(js, 1);
    expect(err).toMatchObject({
      code: 'transfer_failed',
      transfer: { status: 'failed', failure_reason: 'destination_rejected', amount: '2.13' },
    });
    // Failed transfers give the money back.
    expect((await w.api('GET', `accounts/${a}`)).balance).toMatchObject({ available: '69.50', pending: '0.00' });
  });

  it('cancel a pending transfer (ndjson); cancelling it again or a completed one is exit 5', async () => {
    const t = json(await w.pay(['transfers', 'send', '--from', a, '--to', b, '--amount', '5.00', '--currency', 'USD', '--json']));
    const m = w.mark();
    const [c] = ndjson(await w.pay(['transfers', 'cancel', t.id, '-o', 'ndjson']));
    expect(c).toMatchObject({ id: t.id, status: 'cancelled' });
    const reqs = w.since(m);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /v1/transfers/${t.id}/cancel`]);
    expectContractHeaders(reqs, w.emu);
    sent.cancelled = t.id;
    const [again, done] = await Promise.all([w.pay(['transfers', 'cancel', t.id]), w.pay(['transfers', 'cancel', sent.first!, '--json'])]);
    apiError(again, 5, 409, 'invalid_state', true);
    expect(jsonError(done, 5)).toMatchObject({ code: 'invalid_state', status: 409 });
    await w.settle(); // a cancelled transfer stays cancelled
    expect((await w.api('GET', `transfers/${t.id}`)).status).toBe('cancelled');
    expect((await w.api('GET', `accounts/${a}`)).balance.available).toBe('69.50');
  });

  it('insufficient funds and a currency mismatch are exit 1 with the API code; bad amounts are exit 2 and send nothing', async () => {
    const m = w.mark();
    const [poor, mismatch, tooPrecise, negative, badDest] = await Promise.all([
      w.pay(['transfers', 'send', '--from', a, '--to', b, '--amount', '1000.00', '--currency', 'USD']),
      w.pay(['transfers', 'send', '--from', a, '--to', e, '--amount', '1.00', '--currency', 'USD']),
      w.pay(['transfers', 'send', '--from', a, '--to', b, '--amount', '1.001', '--currency', 'USD']),
      w.pay(['transfers', 'send', '--from', a, '--to', b, '--amount', '-1', '--currency', 'USD']),
      w.pay(['transfers', 'send', '--from', a, '--to', 'cus_000000000000000000000000', '--amount', '1', '--currency', 'USD']),
    ]);
    expect(apiError(poor, 1, 422, 'insufficient_funds', true)).toContain('69.50 USD');
    expect(apiError(mismatch, 1, 422, 'currency_mismatch', true)).toContain('EUR');
    usageError(tooPrecise, /^error: --amount: USD allows at most 2 decimals \(got "1.001"\)$/);
    usageError(negative, /^error: --amount: "-1" is not an amount/);
    usageError(badDest, /^error: --to "cus_000000000000000000000000" must be an id like acc_… or ea_…/);
    expect(w.since(m).map((r) => r.path)).toEqual(['/v1/transfers', '/v1/transfers']);
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('--idempotency-key: the same body replays the same transfer; another body is exit 5', async () => {
    const args = [
      'transfers',
      'send',
      '--from',
      a,
      '--to',
      b,
      '--amount',
      '3.00',
      '--currency',
      'USD',
      '--idempotency-key',
      'tr-e2e-1',
      '--json',
    ];
    const first = json(await w.pay(args));
    const replay = await w.pay(args);
    // The replay: the same answer on stdout, a note on stderr naming the key.
    expect(replay.stderr).toMatch(/^note: replayed: idempotency key tr-e2e-1 was used before/);
    const second = json({ ...replay, stderr: '' });
    expect(second.id).toBe(first.id);
    const other = await w.pay([
      'transfers',
      'send',
      '--from',
      a,
      '--to',
      b,
      '--amount',
      '4.00',
      '--currency',
      'USD',
      '--idempotency-key',
      'tr-e2e-1',
    ]);
    expect({ code: other.code, stdout: other.stdout }).toEqual({ code: 5, stdout: '' });
    expect(other.stderr).toMatch(/^error: HTTP 422 idempotency_key_reused: /);
    expect(w.since(0, 'POST', '/v1/transfers').filter((r) => r.headers['idempotency-key'] === 'tr-e2e-1')).toHaveLength(3);
    expect(
      w.since(0, 'POST').every((r) => r.headers['idempotency-key'] === 'tr-e2e-1' || UUID.test(String(r.headers['idempotency-key']))),
    ).toBe(true);
    sent.idem = first.id;
    await w.settle();
  });

  it('list: tsv, table (money with currency), json, ndjson; --status and --account filters', async () => {
    const [t, tb, failed, byB, nd] = await Promise.all([
      w.pay(['transfers', 'list']),
      w.pay(['transfers', 'list', '-o', 'table']),
      w.pay(['transfers', 'list', '--status', 'failed', '--json']),
      w.pay(['transfers', 'list', '--account', b, '--status', 'cancelled', '--no-header', '--fields', 'id']),
      w.pay(['transfers', 'list', '--all', '--limit', '2', '-o', 'ndjson', '--fields', 'id,status']),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual([
      'id',
      'source_account_id',
      'destination_id',
      'amount',
      'status',
      'failure_reason',
      'reference',
      'created_at',
    ]);
    expect(s.rows).toHaveLength(6);
    expect(s.rows.find((r) => r.id === sent.first)).toMatchObject({
      amount: '10.50',
      status: 'completed',
      reference: 'inv-1',
      failure_reason: '',
    });
    const tbl = table(tb);
    expect(tbl.header).toEqual(['ID', 'FROM', 'TO', 'AMOUNT', 'STATUS', 'FAILURE', 'REFERENCE', 'CREATED']);
    expect(tbl.rows.find((r) => r[0] === sent.first)).toEqual([
      sent.first,
      a,
      b,
      '10.50 USD',
      'completed',
      '-',
      'inv-1',
      expect.stringMatching(TABLE_TIME),
    ]);
    expect(tbl.rows.find((r) => r[0] === sent.failed)?.slice(3, 6)).toEqual(['1.13 USD', 'failed', 'destination_rejected']);
    const f = json(failed) as unknown as Obj[];
    expect(f.map((x) => x.amount).sort()).toEqual(['1.13', '2.13']);
    expect(f.every((x) => x.status === 'failed')).toBe(true);
    expect(ok(byB)).toBe(`${sent.cancelled}\n`);
    const all = ndjson(nd);
    expect(all).toHaveLength(6);
    expect(new Set(all.map((x) => x.id)).size).toBe(6);
    expect(Object.fromEntries(all.map((x) => [x.id, x.status]))).toMatchObject({
      [sent.first!]: 'completed',
      [sent.waited!]: 'completed',
      [sent.cancelled!]: 'cancelled',
      [sent.idem!]: 'completed',
    });
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('balances add up: 100 − 10.50 − 20 − 3 on the source, the same in on the destination', async () => {
    const [src, dst] = await Promise.all([w.api('GET', `accounts/${a}`), w.api('GET', `accounts/${b}`)]);
    expect(src.balance).toEqual({ available: '66.50', pending: '0.00', currency: 'USD' });
    expect(dst.balance).toEqual({ available: '33.50', pending: '0.00', currency: 'USD' });
  });
});
