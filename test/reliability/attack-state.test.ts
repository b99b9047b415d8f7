// Outside attack on `pay seed apply` (issue 24, class "state trusted past its word"): a record in
// the state file is a hint, never believed. A table of what the state file says about one money
// movement (nothing, refused after 1, 2 or 5 attempts, refused for another version of the entry,
// done as an object the service does not have, both, done as the real object) against what the
// service holds (the object, made with the entry's first key; only a refusal of that key, the
// account funded since; nothing). Each cell is a real `bin/pay.js seed apply`; the test checks, from
// what the emulator received and what it holds, that no second transfer is ever made: where the
// service had the object, nothing new is carried out (and a refusal record that contradicts it is
// said); where it had none, exactly one is made.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryHash } from '../../src/seed/diff.js';
import { loadSeedFile } from '../../src/seed/file.js';
import { account, customerBody, enabledCustomer, fund, startWorld, type Obj, type World } from '../e2e/groups/helpers.js';
import { tempDir } from '../helpers/run-pay.js';
import { record, stackTrace } from './helpers.js';

const LONG = { timeoutMs: 120_000 };
const REF = 'transfers.pay';

let w: World;
let dir: string;
let holder = '';

type Service = 'object' | 'refusal' | 'nothing';
type StateRecord =
  | 'none'
  | 'refused-1'
  | 'refused-2'
  | 'refused-5'
  | 'refused-other-version'
  | 'done-unknown-id'
  | 'done-unknown-id+refused-1'
  | 'done-real';

const SERVICES: Service[] = ['object', 'refusal', 'nothing'];
const RECORDS: StateRecord[] = [
  'none',
  'refused-1',
  'refused-2',
  'refused-5',
  'refused-other-version',
  'done-unknown-id',
  'done-unknown-id+refused-1',
  'done-real',
];

beforeAll(async () => {
  w = await startWorld({ settleAfterMs: 20 });
  dir = tempDir('pay-attack-state-');
  holder = await enabledCustomer(w);
}, 120_000);

afterAll(async () => {
  await w?.stop();
});

/** The transfers the service holds out of `source`. */
async function transfersFrom(source: string): Promise<Obj[]> {
  const page = await w.api('GET', `transfers?account_id=${source}&limit=100`);
  return (page.data as Obj[]).filter((t) => t.source_account_id === source);
}

const fakeTransferId = (n: number) => `tr_${String(n).padStart(24, '0')}`;

interface Cell {
  service: Service;
  state: StateRecord;
}

async function runCell({ service, state }: Cell, n: number): Promise<string[]> {
  const problems: string[] = [];
  const source = await account(w, holder);
  const destination = await account(w, holder);
  const file = join(dir, `cell-${n}.yaml`);
  const statePath = `${file}.state.json`;
  writeFileSync(
    file,
    stringify({ transfers: { pay: { source_account_id: source, destination_id: destination, amount: '10.00', currency: 'USD' } } }),
  );
  const [entry] = await loadSeedFile(file);
  const hash = entryHash(w.emu.tenantId, 'sandbox', entry!);
  // What the service holds for the entry before the run under test.
  let real: string | undefined;
  if (service === 'object') {
    await fund(w, source, '100.00');
    const r = await w.pay(['seed', 'apply', file, '--no-input', '--json', '--state', join(dir, `setup-${n}.json`)], LONG);
    if (r.code !== 0) return [`setup apply exit ${r.code}: ${r.stderr}`];
    real = (JSON.parse(r.stdout) as Record<string, string>)[REF];
  } else if (service === 'refusal') {
    const r = await w.pay(['seed', 'apply', file, '--no-input', '--state', join(dir, `setup-${n}.json`)], LONG);
    if (r.code !== 1 || !/insufficient_funds/.test(r.stderr)) return [`setup apply should be refused: exit ${r.code}: ${r.stderr}`];
    await fund(w, source, '100.00');
  } else {
    await fund(w, source, '100.00');
  }
  const before = await transfersFrom(source);
  // The state file under test.
  const refusal = (attempt: number, h = hash) => ({ [REF]: { hash: h, attempt, status: 422, code: 'insufficient_funds' } });
  const doc: Obj = { version: 2, tenant: w.emu.tenantId, mode: 'sandbox', base_url: w.emu.baseUrl, entries: {} };
  const recorded = (id: string) => ({
    [REF]: {
      hash,
      body: { source_account_id: source, destination_id: destination, amount: '10.00', currency: 'USD' },
      object: { id, object: 'transfer', source_account_id: source, destination_id: destination, currency: 'USD' },
    },
  });
  if (state === 'refused-1') doc.refused = refusal(1);
  if (state === 'refused-2') doc.refused = refusal(2);
  if (state === 'refused-5') doc.refused = refusal(5);
  if (state === 'refused-other-version') doc.refused = refusal(3, 'f'.repeat(40));
  if (state === 'done-unknown-id' || state === 'done-unknown-id+refused-1') doc.entries = recorded(fakeTransferId(n));
  if (state === 'done-unknown-id+refused-1') doc.refused = refusal(1);
  if (state === 'done-real') {
    const t = await w.api('GET', `transfers/${real!}`);
    doc.entries = { [REF]: { hash, body: recorded(real!)[REF].body, object: t } };
  }
  if (state !== 'none') writeFileSync(statePath, JSON.stringify(doc, null, 2));

  const mark = w.mark();
  const r = await w.pay(['seed', 'apply', file, '--no-input', '--json'], LONG);
  if (stackTrace(r.stderr)) problems.push(`stack trace: ${r.stderr}`);
  const posts = w.since(mark, 'POST', '/v1/transfers');
  const carriedOut = posts.filter((p) => p.status === 201 && !p.replayed);
  const after = await transfersFrom(source);
  const made = after.length - before.length;
  if (service === 'object') {
    // The service has the entry's transfer: nothing may be made again.
    if (made !== 0 || carriedOut.length !== 0) problems.push(`a second transfer: ${made} made, ${carriedOut.length} POSTs carried out`);
    if (r.code !== 0) problems.push(`exit ${r.code}: ${r.stderr}`);
    else {
      const ids = JSON.parse(r.stdout) as Record<string, string>;
      if (ids[REF] !== real) problems.push(`answered ${ids[REF]}, the service's transfer is ${real}`);
    }
    if (
      state.startsWith('refused-') &&
      state !== 'refused-other-version' &&
      !/warning: the state file recorded transfers\.pay as refused, but the service made tr_/.test(r.stderr)
    )
      problems.push(`the contradiction is not said: ${r.stderr}`);
  } else if (service === 'nothing') {
    // The service has no transfer for the entry: exactly one is made.
    if (made !== 1 || carriedOut.length !== 1) problems.push(`${made} made, ${carriedOut.length} POSTs carried out (want 1)`);
    if (r.code !== 0) problems.push(`exit ${r.code}: ${r.stderr}`);
  } else {
    // Only a refusal of the first key: at most one transfer; made when the state file records the refusal.
    if (made > 1 || carriedOut.length > 1) problems.push(`${made} made, ${carriedOut.length} POSTs carried out (want at most 1)`);
    const recordsRefusal = state === 'refused-1' || state === 'refused-2' || state === 'refused-5' || state === 'done-unknown-id+refused-1';
    if (recordsRefusal && (made !== 1 || r.code !== 0)) problems.push(`want one made, exit 0: ${made} made, exit ${r.code}: ${r.stderr}`);
    if (!recordsRefusal && (made !== 0 || r.code !== 1 || !/replayed an earlier refusal/.test(r.stderr)))
      problems.push(`want the replayed refusal said, exit 1: ${made} made, exit ${r.code}: ${r.stderr}`);
  }
  // Once more, with the state file this run left: still one transfer at most (none more where the service had it).
  await w.pay(['seed', 'apply', file, '--no-input'], LONG);
  const total = (await transfersFrom(source)).length - before.length + (service === 'object' ? 1 : 0);
  if (total > 1) problems.push(`the next run made ${total - 1} more`);
  return problems;
}

describe('attack: a seed state file against what the service says', () => {
  it('no record (refused, done, unknown, both) makes a second money movement; a refusal the service contradicts is said', async () => {
    const startedAt = Date.now();
    const cells: Cell[] = SERVICES.flatMap((service) =>
      RECORDS.filter((state) => state !== 'done-real' || service === 'object').map((state) => ({ service, state })),
    );
    const failures: string[] = [];
    let passed = 0;
    let duplicated = 0;
    let n = 0;
    for (const cell of cells) {
      n++;
      const problems = await runCell(cell, n);
      if (problems.some((p) => /second transfer|made \d+ more|[2-9] made/.test(p))) duplicated++;
      if (problems.length === 0) passed++;
      else failures.push(`${cell.state} × service ${cell.service}: ${problems.join('; ')}`);
    }
    await record(
      'attack.seed-state-records',
      'seed state records against what the service holds',
      { tried: cells.length, passed, lost: 0, duplicated, leaked: 0 },
      startedAt,
    );
    expect(failures).toEqual([]);
  }, 600_000);
});

// The rules checked again when money settles: a transfer held for review (or only pending) to or
// from a customer whose KYC is rejected meanwhile fails as it settles, kyc_rejected, and the money
// goes back; with the KYC approved instead it completes. Driven through the built CLI and the
// emulator's clock (pay emulator clock advance), a table of who is rejected × held or not; and a
// collection pending while its account's holder is rejected is not credited.
describe('attack: the business rules when held money settles', () => {
  let v: World;
  beforeAll(async () => {
    v = await startWorld(); // settlements only when the clock is advanced
  }, 120_000);
  afterAll(async () => {
    await v?.stop();
  });

  type Who = 'sender' | 'receiver' | 'both' | 'neither';
  const WHO: Who[] = ['sender', 'receiver', 'both', 'neither'];
  const HOW = [
    { held: true, amount: '100.14' },
    { held: false, amount: '10.00' },
  ];

  /** A customer with collections active (KYC not started: enough for transfers between accounts) and a funded USD account. */
  async function holderWithAccount(): Promise<{ customer: string; account: string }> {
    const customer = (await v.api('POST', 'customers', customerBody())).id as string;
    const acc = await account(v, customer);
    await fund(v, acc, '500.00');
    return { customer, account: acc };
  }

  /** Starts a verification and submits a document: rejected (number ending 0000) or approved when the review decides. */
  async function submitKyc(customer: string, reject: boolean): Promise<void> {
    await v.api('POST', `customers/${customer}/kyc`, { level: 'basic' });
    await v.api('POST', `customers/${customer}/kyc/documents`, {
      type: 'passport',
      country: 'GB',
      number: reject ? '12340000' : '123456789',
    });
  }

  const clock = async (by: string) => {
    const r = await v.pay(['emulator', 'clock', 'advance', by]);
    expect(r.code, r.stderr).toBe(0);
  };

  it('a transfer or collection settles only if the rules still let it: kyc_rejected, money back, for a holder rejected while it waited', async () => {
    const startedAt = Date.now();
    const failures: string[] = [];
    let passed = 0;
    let moved = 0;
    const cells = WHO.flatMap((who) => HOW.map((how) => ({ who, ...how })));
    for (const cell of cells) {
      const s = await holderWithAccount();
      const r = await holderWithAccount();
      const rejectSender = cell.who === 'sender' || cell.who === 'both';
      const rejectReceiver = cell.who === 'receiver' || cell.who === 'both';
      // Not held: the review is under way before the transfer is made, decided before it settles.
      if (!cell.held) {
        await submitKyc(s.customer, rejectSender);
        await submitKyc(r.customer, rejectReceiver);
        await clock('1s');
      }
      const sent = await v.pay(
        ['transfers', 'send', '--from', s.account, '--to', r.account, '--amount', cell.amount, '--currency', 'USD', '--json'],
        { timeoutMs: 60_000 },
      );
      try {
        expect(sent.code, sent.stderr).toBe(0);
        const id = (JSON.parse(sent.stdout) as Obj).id as string;
        if (cell.held) {
          // Held: the reviews start and are decided while it waits.
          await submitKyc(s.customer, rejectSender);
          await submitKyc(r.customer, rejectReceiver);
          await clock('1h');
          const still = JSON.parse((await v.pay(['transfers', 'get', id, '--json'])).stdout) as Obj;
          expect(still.status, 'held over the reviews').toBe('pending');
        }
        await clock('25h');
        for (const c of [s.customer, r.customer]) {
          const k = await v.api('GET', `customers/${c}`);
          const want = (c === s.customer ? rejectSender : rejectReceiver) ? 'rejected' : 'approved';
          expect(k.kyc_status, `${c} decided`).toBe(want);
        }
        const got = await v.pay(['transfers', 'get', id, '--json']);
        expect(got.code, got.stderr).toBe(0);
        const t = JSON.parse(got.stdout) as Obj;
        const [src, dst] = await Promise.all([v.api('GET', `accounts/${s.account}`), v.api('GET', `accounts/${r.account}`)]);
        if (cell.who === 'neither') {
          expect(t.status).toBe('completed');
          expect([src.balance.available, dst.balance.available]).toEqual([
            (500 - Number(cell.amount)).toFixed(2),
            (500 + Number(cell.amount)).toFixed(2),
          ]);
        } else {
          if (t.status === 'completed') moved++;
          expect({ status: t.status, failure_reason: t.failure_reason }).toEqual({ status: 'failed', failure_reason: 'kyc_rejected' });
          expect([src.balance.available, src.balance.pending, dst.balance.available, dst.balance.pending]).toEqual([
            '500.00',
            '0.00',
            '500.00',
            '0.00',
          ]);
          // Said as any failure is: the event, and pay's own words for it.
          const events = await v.api('GET', `webhooks/events?object_id=${id}`);
          expect((events.data as Obj[]).map((e) => e.type)).toContain('transfer.failed');
        }
        passed++;
      } catch (err) {
        failures.push(`${cell.who} rejected, ${cell.held ? 'held' : 'pending'}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    // A collection pending while its account's holder is rejected: nothing is credited.
    for (const reject of [true, false]) {
      const customer = (await v.api('POST', 'customers', customerBody())).id as string;
      const acc = await account(v, customer);
      await v.api('POST', `customers/${customer}/features/collections/activate`);
      await submitKyc(customer, reject);
      await clock('1s');
      const col = await v.api('POST', 'collections', { account_id: acc, amount: '25.00', currency: 'USD', method: 'card' });
      await clock('25h');
      try {
        const now = await v.api('GET', `collections/${col.id as string}`);
        const balance = (await v.api('GET', `accounts/${acc}`)).balance as Obj;
        if (reject) {
          if (now.status === 'succeeded') moved++;
          expect([now.status, now.failure_reason, balance.available]).toEqual(['failed', 'kyc_rejected', '0.00']);
        } else expect([now.status, balance.available]).toEqual(['succeeded', '25.00']);
        passed++;
      } catch (err) {
        failures.push(`collection, holder ${reject ? 'rejected' : 'approved'}: ${(err as Error).message.split('\n')[0]}`);
      }
      cells.push({ who: reject ? 'receiver' : 'neither', held: false, amount: '25.00' });
    }
    await record(
      'attack.held-transfer-rules',
      'held and pending transfers and collections re-check the business rules as they settle',
      { tried: cells.length, passed, lost: 0, duplicated: 0, leaked: moved },
      startedAt,
    );
    expect(failures).toEqual([]);
  }, 600_000);
});
