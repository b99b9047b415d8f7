// Outside attack on `pay seed` (issue 18, issue 11 class 12): the state file lives in CI caches and
// is untrusted input. fast-check generates tampered state files from a real one: random and
// encoded ids (%2e%2e, %2f, ../), another kind's ids, another customer's objects (created in the
// same emulator) in place of the seed's, with their recorded links copied or not, retire lists
// naming another customer's objects, the default tenant named explicitly, and objects the service
// no longer has (an emulator reset). Each run is a real `bin/pay.js seed apply`; the test checks
// the exit code, stderr, what the emulator received, that the foreign objects are as they were
// (status, balance) and that no money moved. Then live mode (nothing sent without --yes), a
// refused entry retried after a top-up, and `${env.NAME}` secrets.
//
// Reproduce a failing vector: PAY_FUZZ_SEED=<seed printed in the failure> npx vitest run --config test/vitest.config.ts test/reliability/attack-seed.test.ts
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, customerBody, enabledCustomer, fund, startWorld, type Obj, type World } from '../e2e/groups/helpers.js';
import { tempDir, type PayResult } from '../helpers/run-pay.js';
import { count, record, stackTrace } from './helpers.js';

const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const LONG = { timeoutMs: 120_000 };

let w: World;
let dir: string;
/** Another customer's objects in the same emulator (tenant and mode): nothing the seed does may touch them. */
const bob = { customer: '', account: '', card: '', balance: '' };

interface Doc {
  customers: Obj;
  kyc: Obj;
  features: Obj;
  accounts: Obj;
  collections: Obj;
  cards: Obj;
  transfers?: Obj;
}
/** The seed's customer: one body for every run over the first state file (another one where a test needs a set of its own). */
const ALICE = customerBody({ email: 'alice@seed-attack.example.com' });
function seedDoc(transferAmount?: string, alice: Obj = ALICE): Doc {
  const doc: Doc = {
    customers: { alice: structuredClone(alice) },
    // The business rules: the card waits for the approval and its feature, the collection for its feature.
    kyc: { alice: { customer_id: '${customers.alice.id}', documents: [{ type: 'passport', country: 'US', number: '123456789' }] } },
    features: {
      alice_cards: { customer_id: '${customers.alice.id}', feature: 'cards' },
      alice_collections: { customer_id: '${customers.alice.id}', feature: 'collections' },
    },
    accounts: {
      alice_usd: { customer_id: '${customers.alice.id}', currency: 'USD' },
      alice_two: { customer_id: '${customers.alice.id}', currency: 'USD' },
    },
    collections: { fund_alice: { account_id: '${accounts.alice_usd.id}', amount: '100.00', currency: 'USD', method: 'card' } },
    cards: { alice_card: { customer_id: '${customers.alice.id}', account_id: '${accounts.alice_usd.id}', type: 'virtual' } },
  };
  if (transferAmount) {
    doc.transfers = {
      move: {
        source_account_id: '${accounts.alice_usd.id}',
        destination_id: '${accounts.alice_two.id}',
        amount: transferAmount,
        currency: 'USD',
        depends_on: ['collections.fund_alice'],
      },
    };
  }
  return doc;
}

let seedFile = '';
/** The state file of a complete apply of seedFile, as pay wrote it. */
let base: Obj = {};

const stateFile = (name: string, state: Obj): string => {
  const p = join(dir, `${name}.state.json`);
  writeFileSync(p, JSON.stringify(state, null, 2));
  return p;
};
const seedWith = (name: string, doc: Doc): string => {
  const p = join(dir, `${name}.yaml`);
  writeFileSync(p, stringify(doc));
  return p;
};

async function foreignUntouched(): Promise<void> {
  const [acc, card, cus] = await Promise.all([
    w.api('GET', `accounts/${bob.account}`),
    w.api('GET', `cards/${bob.card}`),
    w.api('GET', `customers/${bob.customer}`),
  ]);
  expect(acc.status).toBe('active');
  expect(acc.balance.available).toBe(bob.balance);
  expect(card.status).toBe('active');
  expect(cus.id).toBe(bob.customer);
}

/** Requests since `mark` that change something (anything but GET). */
const writes = (mark: number) => w.since(mark).filter((r) => r.method !== 'GET');
/** Requests since `mark` that name bob's objects in their path or body. */
const touchingBob = (mark: number) =>
  w
    .since(mark)
    .filter(
      (r) =>
        r.method !== 'GET' &&
        [bob.account, bob.card, bob.customer].some((id) => r.path.includes(id) || JSON.stringify(r.body ?? '').includes(id)),
    );

function oneLineError(r: PayResult, code: number): string {
  expect(stackTrace(r.stderr)).toBeUndefined();
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
  expect(lines.length, r.stderr).toBe(1);
  return lines[0]!;
}

beforeAll(async () => {
  w = await startWorld({ settleAfterMs: 20 });
  dir = tempDir('pay-attack-seed-');
  bob.customer = await enabledCustomer(w); // the business rules: KYC approved, cards active
  bob.account = await account(w, bob.customer);
  await fund(w, bob.account, '5000.00');
  bob.card = (await w.api('POST', 'cards', { customer_id: bob.customer, account_id: bob.account, type: 'virtual' })).id as string;
  bob.balance = (await w.api('GET', `accounts/${bob.account}`)).balance.available as string;
  seedFile = seedWith('sandbox', seedDoc());
  const r = await w.pay(['seed', 'apply', seedFile, '--no-input', '--json'], LONG);
  expect(r.code, r.stderr).toBe(0);
  base = JSON.parse(readFileSync(`${seedFile}.state.json`, 'utf8')) as Obj;
  expect(Object.keys(base.entries).sort()).toEqual([
    'accounts.alice_two',
    'accounts.alice_usd',
    'cards.alice_card',
    'collections.fund_alice',
    'customers.alice',
    'features.alice_cards',
    'features.alice_collections',
    'kyc.alice',
  ]);
}, 120_000);

afterAll(async () => {
  await w?.stop();
});

const ID_SLOTS = [
  'customers.alice',
  'kyc.alice',
  'features.alice_cards',
  'features.alice_collections',
  'accounts.alice_usd',
  'accounts.alice_two',
  'cards.alice_card',
  'collections.fund_alice',
] as const;

describe('attack: a tampered seed state file', () => {
  it('ids that are not plain ids of their kind: exit 1 before any request; foreign objects by id: nothing they hold moves, no request names them', async () => {
    const startedAt = Date.now();
    const bad = fc
      .oneof(
        fc.string({ maxLength: 40 }),
        fc.constantFrom(
          '..',
          '%2e%2e',
          '%2E%2E',
          '.',
          '%2f',
          'acc_%2e%2e',
          '../customers',
          '..%2fcustomers',
          'acc_0123456789abcdefghijklmn/../x',
          'acc_0123456789abcdefghijklmn%2f..',
          '/etc/passwd',
          '?x=1',
          '#',
        ),
        fc.stringMatching(/^(cus|acc|card|col|ea)_[0-9a-z%./]{20,28}$/),
        fc.tuple(fc.constantFrom('%2e%2e', '%2f', '..', '/'), fc.stringMatching(/^[0-9a-z]{0,24}$/)).map(([a, b]) => `acc_${a}${b}`),
      )
      .filter((id) => !/^(cus|acc|card|col|ea)_[0-9a-z]{24}$/.test(id));
    type Vector =
      | { type: 'invalid'; slot: number; id: string; retire: boolean; otherKind: boolean }
      | { type: 'foreign'; slot: 'account' | 'card' | 'customer'; copy: 0 | 1 | 2; replace: boolean; amount: string }
      | { type: 'retire'; which: 'account' | 'card'; by: 0 | 1 | 2; replace: boolean };
    const vectorArb: fc.Arbitrary<Vector> = fc.oneof(
      fc.record({
        type: fc.constant('invalid' as const),
        slot: fc.nat(ID_SLOTS.length - 1),
        id: bad,
        retire: fc.boolean(),
        otherKind: fc.boolean(),
      }),
      fc.record({
        type: fc.constant('foreign' as const),
        slot: fc.constantFrom('account' as const, 'card' as const, 'customer' as const),
        copy: fc.constantFrom(0 as const, 1 as const, 2 as const),
        replace: fc.boolean(),
        amount: fc.integer({ min: 1, max: 5 }).map((n) => `${n}.00`),
      }),
      fc.record({
        type: fc.constant('retire' as const),
        which: fc.constantFrom('account' as const, 'card' as const),
        by: fc.constantFrom(0 as const, 1 as const, 2 as const),
        replace: fc.boolean(),
      }),
    );
    const vectors = fc.sample(vectorArb, { numRuns: count(8, 1000), seed: SEED });
    // Found by the outside pass: the customer entry's id swapped for another customer's (with and
    // without --replace) created an account, a collection and a card on that customer. Always tried.
    vectors.unshift(
      { type: 'foreign', slot: 'customer', copy: 0, replace: false, amount: '1.00' },
      { type: 'foreign', slot: 'customer', copy: 0, replace: true, amount: '2.00' },
    );
    let passed = 0;
    let leaked = 0;
    const byType: Record<string, number> = {};
    const failures: string[] = [];
    let i = 0;
    for (const v of vectors) {
      i++;
      byType[v.type] = (byType[v.type] ?? 0) + 1;
      const state = structuredClone<Obj>(base);
      const mark = w.mark();
      let r: PayResult;
      try {
        if (v.type === 'invalid') {
          const slot = ID_SLOTS[v.slot]!;
          // Another kind's real id (bob's customer or account) is as wrong as any other string.
          const id = v.otherKind ? (slot.startsWith('customers') ? bob.account : bob.customer) : v.id;
          if (v.retire) state.retire = [{ ref: slot, id, replaced_by: state.entries[slot].object.id }];
          else state.entries[slot].object.id = id;
          const p = stateFile(`invalid-${i}`, state);
          r = await w.pay(['seed', 'apply', seedFile, '--state', p, '--no-input', '--replace'], LONG);
          const line = oneLineError(r, 1);
          expect(line).toMatch(/^error: the state file .*(is not|holds|names no|records).*; nothing was sent$/);
          expect(w.since(mark), 'no request at all').toEqual([]);
        } else if (v.type === 'foreign') {
          // The seed's account (or card) replaced by bob's: the id alone, or with bob's object copied
          // into the record (1), and the recorded body's links too (2). A new transfer entry draws on it.
          // A customer has no links: only its id is swapped (a whole copy of bob's record is a forgery
          // only a marker on seeded objects could tell apart; see the README).
          const copy = v.slot === 'customer' ? 0 : v.copy;
          const ref = v.slot === 'account' ? 'accounts.alice_usd' : v.slot === 'card' ? 'cards.alice_card' : 'customers.alice';
          const foreign = v.slot === 'account' ? bob.account : v.slot === 'card' ? bob.card : bob.customer;
          const rec = state.entries[ref];
          const live = await w.api('GET', `${v.slot === 'account' ? 'accounts' : v.slot === 'card' ? 'cards' : 'customers'}/${foreign}`);
          rec.object = copy === 0 ? { ...rec.object, id: foreign } : live;
          if (copy === 2) rec.body = { ...rec.body, customer_id: bob.customer, ...(v.slot === 'card' ? { account_id: bob.account } : {}) };
          const file = seedWith(`foreign-${i}`, seedDoc(v.amount));
          const p = stateFile(`foreign-${i}`, state);
          r = await w.pay(['seed', 'apply', file, '--state', p, '--no-input', ...(v.replace ? ['--replace'] : [])], LONG);
          if (copy === 2 && !v.replace) {
            oneLineError(r, 2); // must be replaced: nothing sent
            expect(writes(mark)).toEqual([]);
          } else if (copy === 2) {
            // Replaced by a new object of alice's; bob's is not retired (not this seed's).
            expect(r.code, r.stderr).toBe(0);
            expect(r.stderr).toContain(`old ${foreign} (${ref}): left behind`);
          } else {
            const line = oneLineError(r, 1);
            expect(line).toContain(ref);
            expect(line).toMatch(/is not the object the state file says|do not match the service/);
            // Nothing that depends on the account is sent (the card's dependents: none; the transfer may go).
            if (v.slot !== 'card') {
              expect(w.since(mark, 'POST', '/v1/transfers'), 'no transfer sent').toEqual([]);
              expect(writes(mark)).toEqual([]);
            }
          }
        } else {
          // A retire list naming bob's objects: recorded as replaced by the entry's current object (1),
          // by something else (2) or with no replaced_by (0).
          const ref = v.which === 'account' ? 'accounts.alice_usd' : 'cards.alice_card';
          const id = v.which === 'account' ? bob.account : bob.card;
          const replacedBy = v.by === 1 ? state.entries[ref].object.id : v.by === 2 ? id : undefined;
          state.retire = [{ ref, id, ...(replacedBy ? { replaced_by: replacedBy } : {}) }];
          const p = stateFile(`retire-${i}`, state);
          const plan = await w.pay(['seed', 'plan', seedFile, '--state', p, '--no-input', '-o', 'ndjson'], LONG);
          expect(plan.code, plan.stderr).toBe(0);
          const rows = plan.stdout
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as Obj);
          expect(
            rows.filter((row) => row.action === 'retire').map((row) => row.id),
            'plan lists the retire list',
          ).toEqual([id]);
          r = await w.pay(['seed', 'apply', seedFile, '--state', p, '--no-input', ...(v.replace ? ['--replace'] : [])], LONG);
          expect(r.code, r.stderr).toBe(0);
          // Only --replace looks at the retire list at all (and then leaves what is not this seed's).
          if (v.replace) expect(r.stderr).toContain(`old ${id} (${ref}): left behind`);
          else expect(r.stderr).not.toContain(`old ${id}`);
          expect(writes(mark), 'nothing written').toEqual([]);
        }
        expect(touchingBob(mark), "no request names bob's objects").toEqual([]);
        await foreignUntouched();
        passed++;
      } catch (err) {
        if (touchingBob(mark).length > 0) leaked++;
        failures.push(`${JSON.stringify(v)}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    await record(
      'attack.seed-state',
      'tampered seed state files (bad/encoded ids, foreign ids, links, retire lists)',
      { tried: vectors.length, passed, lost: 0, duplicated: 0, leaked, extra: { ...byType, seed: SEED } },
      startedAt,
    );
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 600_000);

  it('the default tenant named explicitly is the same tenant; objects the service no longer has are created again', async () => {
    const startedAt = Date.now();
    // Which entries the state keeps (the rest are new; an entry kept keeps what it refers to).
    const DEPS: Record<string, string[]> = {
      'kyc.alice': ['customers.alice'],
      'features.alice_cards': ['customers.alice'],
      'features.alice_collections': ['customers.alice'],
      'accounts.alice_usd': ['customers.alice'],
      'accounts.alice_two': ['customers.alice'],
      'cards.alice_card': ['customers.alice', 'accounts.alice_usd'],
      'collections.fund_alice': ['accounts.alice_usd'],
    };
    const closed = (keep: string[]): boolean => keep.every((ref) => (DEPS[ref] ?? []).every((d) => keep.includes(d)));
    const subsets = fc.sample(fc.subarray([...ID_SLOTS], { minLength: 1 }).filter(closed), { numRuns: count(2, 1000), seed: SEED });
    let passed = 0;
    let duplicated = 0;
    let lost = 0;
    const failures: string[] = [];
    let i = 0;
    for (const keep of subsets) {
      i++;
      // A state written with the tenant implied (pay's default)…
      const file = seedWith(`tenant-${i}`, seedDoc(undefined, customerBody()));
      const r0 = await w.pay(['seed', 'apply', file, '--no-input', '--json'], { ...LONG, env: { PAY_TENANT_ID: undefined } });
      expect(r0.code, r0.stderr).toBe(0);
      const ids0 = JSON.parse(r0.stdout) as Record<string, string>;
      const state = JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as Obj;
      expect(state.tenant).toBe('default');
      for (const ref of Object.keys(state.entries)) if (!keep.includes(ref as (typeof ID_SLOTS)[number])) delete state.entries[ref];
      writeFileSync(`${file}.state.json`, JSON.stringify(state));
      // …then the same tenant named: kept (no warning), nothing created twice.
      const mark = w.mark();
      const r = await w.pay(['seed', 'apply', file, '--no-input', '--json'], { ...LONG, env: { PAY_TENANT_ID: w.emu.tenantId } });
      try {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).not.toMatch(/set aside/);
        const ids = JSON.parse(r.stdout) as Record<string, string>;
        expect(ids).toEqual(ids0);
        const posts = w.since(mark, 'POST').filter((q) => !/\/(close|terminate)$/.test(q.path));
        // Entries the state kept are read back, not sent; the others replay their keys (same ids).
        // Entries are keyed by their written content: a key an earlier test's set used is passed over (`_2`, `_3`, …).
        // A KYC entry's documents go under its key and their place (`_d0`): still one entry.
        const entriesSent = new Set(
          posts.map((q) =>
            String(q.headers['idempotency-key'])
              .replace(/_d\d+$/, '')
              .replace(/_\d+$/, ''),
          ),
        );
        expect(entriesSent.size, posts.map((q) => `${q.path} ${String(q.headers['idempotency-key'])}`).join(' ')).toBe(
          ID_SLOTS.length - keep.length,
        );
        passed++;
      } catch (err) {
        failures.push(`keep ${keep.join(',')}: ${(err as Error).message.split('\n')[0]}`);
        if (r.code === 0 && JSON.stringify(JSON.parse(r.stdout)) !== JSON.stringify(ids0)) duplicated++;
      }
    }
    // A state file of another tenant (named explicitly) or mode is set aside, said so and kept aside.
    for (const [field, value, reason] of [
      ['tenant', 'biz_other', `it records tenant biz_other, this run is tenant ${w.emu.tenantId}`],
      ['mode', 'live', 'it records live mode, this run is sandbox'],
    ] as const) {
      const file = seedWith(`aside-${field}`, seedDoc());
      const statePath = `${file}.state.json`;
      const foreignState = { ...structuredClone(base), [field]: value };
      writeFileSync(statePath, JSON.stringify(foreignState));
      try {
        const plan = await w.pay(['seed', 'plan', file, '--json'], LONG);
        expect(plan.code, plan.stderr).toBe(0);
        expect(plan.stderr).toContain(
          `warning: the state file ${statePath} is set aside: ${reason}; apply would move it to ${statePath}.set-aside`,
        );
        expect((JSON.parse(plan.stdout) as Obj).state_set_aside).toEqual({ path: statePath, reason, moved_to: `${statePath}.set-aside` });
        const r = await w.pay(['seed', 'apply', file, '--json'], LONG);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toContain(`warning: the state file ${statePath} is set aside: ${reason}; it is moved to ${statePath}.set-aside`);
        expect((JSON.parse(r.stdout) as Obj).state_set_aside.reason).toBe(reason);
        expect(JSON.parse(readFileSync(`${statePath}.set-aside`, 'utf8'))).toEqual(foreignState);
        expect((JSON.parse(readFileSync(statePath, 'utf8')) as Obj)[field]).not.toBe(value);
        passed++;
      } catch (err) {
        failures.push(`set aside (${field}): ${(err as Error).message.split('\n')[0]}`);
      }
    }
    // An emulator reset: every recorded object is gone; apply creates the set again, once.
    const mark = w.mark();
    await w.emu.admin.reset();
    const again = await w.pay(['seed', 'apply', seedFile, '--no-input', '--json'], LONG);
    try {
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toMatch(new RegExp(`${ID_SLOTS.length} recreated`));
      const ids = JSON.parse(again.stdout) as Record<string, string>;
      const cus = ids['customers.alice']!;
      for (const slot of ID_SLOTS) {
        expect(ids[slot]).not.toBe(base.entries[slot].object.id);
        if (slot === 'kyc.alice') expect((await w.api('GET', `customers/${cus}/kyc`)).id).toBe(ids[slot]);
        else if (slot.startsWith('features.')) {
          const f = slot === 'features.alice_cards' ? 'cards' : 'collections';
          expect(await w.api('GET', `customers/${cus}/features/${f}`)).toMatchObject({ active: true });
          expect(ids[slot]).toBe(`${cus}/${f}`);
        } else
          expect(
            (
              await w.api(
                'GET',
                `${slot.startsWith('customers') ? 'customers' : slot.startsWith('cards') ? 'cards' : slot.startsWith('collections') ? 'collections' : 'accounts'}/${ids[slot]}`,
              )
            ).id,
          ).toBe(ids[slot]);
      }
      const customers = await w.api('GET', 'customers?limit=100');
      expect(customers.data.length, 'one customer, made once').toBe(1);
      expect(w.since(mark, 'POST', '/v1/customers').length).toBe(1);
      passed++;
    } catch (err) {
      lost++;
      failures.push(`after reset: ${(err as Error).message.split('\n')[0]}`);
    }
    await record(
      'attack.seed-state-identity',
      'seed state: explicit default tenant, objects gone after a reset',
      { tried: subsets.length + 3, passed, lost, duplicated, leaked: 0, extra: { seed: SEED } },
      startedAt,
    );
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 600_000);
});

describe('attack: live seeds, refusals, secrets from the environment', () => {
  it('live apply without --yes off a terminal: exit 2 naming what moves money, nothing sent; with --yes it applies', async () => {
    const startedAt = Date.now();
    const live = { PAY_API_KEY: w.emu.keys.live.secret, PAY_MODE: 'live' };
    const amounts = fc.sample(
      fc.integer({ min: 1, max: 90 }).map((n) => `${n}.00`),
      { numRuns: count(2, 1000), seed: SEED },
    );
    let passed = 0;
    let leaked = 0;
    const failures: string[] = [];
    let i = 0;
    for (const amount of amounts) {
      i++;
      const file = seedWith(`live-${i}`, seedDoc(amount, customerBody()));
      const mark = w.mark();
      const r = await w.pay(['seed', 'apply', file, '--no-input'], { ...LONG, env: live });
      try {
        const line = oneLineError(r, 2);
        expect(line).toMatch(
          /^error: refusing to apply 2 live changes that move money or retire objects without confirmation: pass --yes$/,
        );
        expect(r.stderr).toContain(`transfers.move: moves ${amount} USD`);
        expect(r.stderr).toContain('collections.fund_alice: moves 100.00 USD');
        if (w.since(mark).length > 0) leaked++;
        expect(w.since(mark), 'nothing sent').toEqual([]);
        const yes = await w.pay(['seed', 'apply', file, '--no-input', '--yes', '--json'], { ...LONG, env: live });
        expect(yes.code, yes.stderr).toBe(0);
        const ids = JSON.parse(yes.stdout) as Record<string, string>;
        const t = await fetch(`${w.emu.baseUrl}transfers/${ids['transfers.move']}`, {
          headers: { 'api-key': w.emu.keys.live.secret, 'x-tenant-id': w.emu.tenantId, accept: 'application/json' },
        }).then((res) => res.json() as Promise<Obj>);
        expect(t.amount).toBe(amount);
        passed++;
      } catch (err) {
        failures.push(`${amount}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    await record(
      'attack.seed-live',
      'live seed apply without confirmation',
      { tried: amounts.length, passed, lost: 0, duplicated: 0, leaked, extra: { seed: SEED } },
      startedAt,
    );
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 600_000);

  it('an entry refused (insufficient funds) is retried with a new key after a top-up; a replayed refusal says so', async () => {
    const startedAt = Date.now();
    const amounts = fc.sample(
      fc.integer({ min: 101, max: 5000 }).map((n) => `${n}.00`),
      { numRuns: count(1, 1000), seed: SEED },
    );
    let passed = 0;
    let duplicated = 0;
    const failures: string[] = [];
    let i = 0;
    for (const amount of amounts) {
      i++;
      try {
        const doc = seedDoc(amount, customerBody({ email: `alice-retry-${i}-${SEED}@seed-attack.example.com` }));
        const file = seedWith(`retry-${i}`, doc);
        const r1 = await w.pay(['seed', 'apply', file, '--no-input', '--json'], LONG);
        expect(r1.code, r1.stderr).toBe(1);
        const err1 = JSON.parse(r1.stderr.trim().split('\n').pop()!) as Obj;
        expect(err1.error.hint).toMatch(
          /fix the cause .*then run the same command again; a refused entry is sent with a new idempotency key/,
        );
        expect(r1.stderr).toMatch(/insufficient_funds/);
        const state = JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as Obj;
        expect(state.refused['transfers.move']).toMatchObject({ attempt: 1, status: 422, code: 'insufficient_funds' });
        // Without the state file the same key is answered from the idempotency store: said so.
        const copy = join(dir, `retry-${i}-nostate.json`);
        const r2 = await w.pay(['seed', 'apply', file, '--state', copy, '--no-input'], LONG);
        expect(r2.code, r2.stderr).toBe(1);
        expect(r2.stderr).toMatch(/the service replayed an earlier refusal of this key/);
        // Top up, and re-run: sent with a new key, made once.
        const usd = state.entries['accounts.alice_usd'].object.id as string;
        await fund(w, usd, amount);
        const mark = w.mark();
        const r3 = await w.pay(['seed', 'apply', file, '--no-input', '--json'], LONG);
        expect(r3.code, r3.stderr).toBe(0);
        // The refused key is asked first (its refusal replayed), then the new key carries it out.
        const sent = w.since(mark, 'POST', '/v1/transfers');
        expect(sent.map((s) => [String(s.headers['idempotency-key']).replace(/[0-9a-f]{40}/, 'H'), s.replayed])).toEqual([
          ['seed_H', true],
          ['seed_H_a1', false],
        ]);
        const ids = JSON.parse(r3.stdout) as Record<string, string>;
        const t = await w.api('GET', `transfers/${ids['transfers.move']}`);
        expect(t.amount).toBe(amount);
        const after = JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as Obj;
        expect(after.refused['transfers.move']).toBeUndefined();
        // Once more: nothing sent twice.
        const m2 = w.mark();
        const r4 = await w.pay(['seed', 'apply', file, '--no-input'], LONG);
        expect(r4.code, r4.stderr).toBe(0);
        if (w.since(m2, 'POST').length > 0) duplicated++;
        expect(w.since(m2, 'POST')).toEqual([]);
        passed++;
      } catch (err) {
        failures.push(`${amount}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    await record(
      'attack.seed-retry',
      'refused seed entry retried after a top-up',
      { tried: amounts.length, passed, lost: 0, duplicated, leaked: 0, extra: { seed: SEED } },
      startedAt,
    );
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 600_000);

  it('${env.NAME} refuses secret-looking names without --allow-env; the state file never holds an environment value', async () => {
    const startedAt = Date.now();
    const vectors = fc.sample(
      fc.record({
        name: fc
          .tuple(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,12}$/), fc.constantFrom('KEY', 'SECRET', 'TOKEN', 'PASSWORD', '_key', 'Api_Token'))
          .map(([a, b]) => `${a}${b}`),
        value: fc.stringMatching(/^[a-z]{12,24}$/),
        useApiKey: fc.boolean(),
      }),
      { numRuns: count(2, 1000), seed: SEED },
    );
    let passed = 0;
    let leaked = 0;
    const failures: string[] = [];
    let i = 0;
    for (const v of vectors) {
      i++;
      const name = v.useApiKey ? 'PAY_API_KEY' : v.name;
      const doc = seedDoc(undefined, customerBody({ email: `alice-env-${i}-${SEED}@seed-attack.example.com` }));
      doc.customers.alice.last_name = `\${env.${name}}`;
      doc.accounts.alice_usd.nickname = `for \${customers.alice.last_name}`;
      const file = seedWith(`env-${i}`, doc);
      const env = v.useApiKey ? {} : { [name]: v.value };
      const value = v.value;
      const mark = w.mark();
      try {
        const r = await w.pay(['seed', 'apply', file, '--no-input'], { ...LONG, env });
        const line = oneLineError(r, 2);
        expect(line).toBe(`error: customers.alice: \${env.${name}} reads a secret from the environment; refused`);
        expect(r.stderr).toContain(`hint: pass --allow-env ${name}`);
        expect(w.since(mark)).toEqual([]);
        if (v.useApiKey) {
          // The API key is only ever refused here (never put into a customer's name to see).
          passed++;
          continue;
        }
        const ok = await w.pay(['seed', 'apply', file, '--no-input', '--allow-env', name], { ...LONG, env });
        expect(ok.code, ok.stderr).toBe(0);
        const text = readFileSync(`${file}.state.json`, 'utf8');
        if (text.includes(value)) leaked++;
        expect(text.includes(value), 'the state file holds the value').toBe(false);
        const state = JSON.parse(text) as Obj;
        const hash = createHash('sha256').update(JSON.stringify(value)).digest('hex');
        expect(state.entries['customers.alice'].body.last_name).toEqual({ sha256: hash });
        // Unchanged environment: a re-run skips everything; a changed value is an update.
        const again = await w.pay(['seed', 'apply', file, '--no-input', '--allow-env', name, '-o', 'ndjson'], { ...LONG, env });
        expect(again.code, again.stderr).toBe(0);
        expect(
          again.stdout
            .trim()
            .split('\n')
            .map((l) => (JSON.parse(l) as Obj).action),
        ).toEqual(Array(Object.keys(state.entries).length).fill('skip'));
        passed++;
      } catch (err) {
        failures.push(`${JSON.stringify({ ...v, value: '…' })}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    await record(
      'attack.seed-env',
      'seed ${env} secrets and environment values in the state file',
      { tried: vectors.length, passed, lost: 0, duplicated: 0, leaked, extra: { seed: SEED } },
      startedAt,
    );
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 600_000);
});
