// The seed kinds the business rules need (KYC and features) and the order the rules give: a file
// that declares a card, a wallet, a link, a payout, a collection or a trade beside its customer's
// KYC and features entries is applied in an order the service accepts, with no depends_on. The
// plan of the new kinds (create, skip, replace), and the state file's checks of their ids.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readState } from '../../../src/seed/state.js';
import { describe as describeChange, entryHash, hashedFields, planChanges, recordable, type Recorded } from '../../../src/seed/diff.js';
import { KINDS, parseSeed, resolve, type Entry } from '../../../src/seed/file.js';
import { featureOfId, fateOfOld, isIdOf } from '../../../src/seed/lifecycle.js';
import { customerOf } from '../../../src/seed/rules.js';
import { FEATURE_KEYS } from '../../../src/shared/rules.js';

const T = 'biz_t';
const M = 'sandbox';
const CUS = 'cus_0123456789abcdefghijklmn';
const ALICE = {
  first_name: 'Alice',
  last_name: 'Ng',
  email: 'alice@example.com',
  phone: '+14155550100',
  type: 'individual',
  date_of_birth: '1990-01-01',
  address: { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '78701' },
};
type Doc = Record<string, Record<string, Record<string, unknown>>>;
const doc = (): Doc => ({
  customers: { alice: ALICE, bob: { ...ALICE, email: 'bob@example.com' } },
  kyc: {
    alice: { customer_id: '${customers.alice.id}', documents: [{ type: 'passport', country: 'US', number: '123456789' }] },
  },
  features: {
    alice_cards: { customer_id: '${customers.alice.id}', feature: 'cards' },
    alice_collections: { customer_id: '${customers.alice.id}', feature: 'collections' },
    alice_crypto: { customer_id: '${customers.alice.id}', feature: 'crypto_wallets' },
    alice_links: { customer_id: '${customers.alice.id}', feature: 'payment_links' },
    alice_fx: { customer_id: '${customers.alice.id}', feature: 'fx' },
    alice_abroad: { customer_id: '${customers.alice.id}', feature: 'international_transfers' },
  },
  accounts: {
    alice_usd: { customer_id: '${customers.alice.id}', currency: 'USD' },
    alice_eur: { customer_id: '${customers.alice.id}', currency: 'EUR' },
    bob_usd: { customer_id: '${customers.bob.id}', currency: 'USD' },
  },
  external_accounts: {
    alice_bank: {
      customer_id: '${customers.alice.id}',
      account_holder_name: 'Alice Ng',
      bank_name: 'Bank',
      account_number: '12345678',
      country: 'GB',
      currency: 'USD',
    },
  },
  collections: { fund: { account_id: '${accounts.alice_usd.id}', amount: '100.00', currency: 'USD', method: 'card' } },
  cards: { card: { customer_id: '${customers.alice.id}', account_id: '${accounts.alice_usd.id}', type: 'virtual' } },
  wallets: { w: { customer_id: '${customers.alice.id}', asset: 'USDC', network: 'polygon' } },
  payment_links: { link: { wallet_id: '${wallets.w.id}', amount: '5.00', asset: 'USDC' } },
  transfers: {
    payout: {
      source_account_id: '${accounts.alice_usd.id}',
      destination_id: '${external_accounts.alice_bank.id}',
      amount: '1.00',
      currency: 'USD',
      depends_on: ['collections.fund'],
    },
    to_bob: {
      source_account_id: '${accounts.alice_usd.id}',
      destination_id: '${accounts.bob_usd.id}',
      amount: '1.00',
      currency: 'USD',
      depends_on: ['collections.fund'],
    },
  },
  fx_trades: {
    t: {
      source_currency: 'USD',
      target_currency: 'EUR',
      source_amount: '10.00',
      source_account_id: '${accounts.alice_usd.id}',
      target_account_id: '${accounts.alice_eur.id}',
      depends_on: ['collections.fund'],
    },
  },
});

const depsOf = (entries: Entry[], ref: string) => entries.find((e) => e.ref === ref)!.deps.sort();

describe('the rules order the entries (no depends_on needed)', () => {
  const entries = parseSeed(doc());
  it('finds each entry’s customer through its references', () => {
    const byRef = new Map(entries.map((e) => [e.ref, e]));
    const of = (ref: string) => customerOf(byRef.get(ref)!, byRef);
    for (const ref of [
      'kyc.alice',
      'features.alice_cards',
      'cards.card',
      'collections.fund',
      'payment_links.link',
      'transfers.payout',
      'fx_trades.t',
    ])
      expect(of(ref), ref).toBe('customers.alice');
    expect(of('accounts.bob_usd')).toBe('customers.bob');
    expect(customerOf({ kind: 'features', name: 'x', ref: 'features.x', body: { customer_id: CUS, feature: 'fx' }, deps: [] }, byRef)).toBe(
      CUS,
    );
  });

  it('what needs approval waits for the KYC entry; what needs a feature waits for its features entry', () => {
    expect(depsOf(entries, 'cards.card')).toEqual(['accounts.alice_usd', 'customers.alice', 'features.alice_cards', 'kyc.alice']);
    expect(depsOf(entries, 'wallets.w')).toEqual(['customers.alice', 'features.alice_crypto', 'kyc.alice']);
    expect(depsOf(entries, 'payment_links.link')).toEqual(['features.alice_links', 'kyc.alice', 'wallets.w']);
    expect(depsOf(entries, 'collections.fund')).toEqual(['accounts.alice_usd', 'features.alice_collections']);
    expect(depsOf(entries, 'fx_trades.t')).toEqual(['accounts.alice_eur', 'accounts.alice_usd', 'collections.fund', 'features.alice_fx']);
    // A payout: approval, and the international feature of the customer when the file has one.
    expect(depsOf(entries, 'transfers.payout')).toEqual([
      'accounts.alice_usd',
      'collections.fund',
      'external_accounts.alice_bank',
      'features.alice_abroad',
      'kyc.alice',
    ]);
    // Between accounts: no rule to wait for.
    expect(depsOf(entries, 'transfers.to_bob')).toEqual(['accounts.alice_usd', 'accounts.bob_usd', 'collections.fund']);
    // Features that need approval wait for the KYC entry; the others do not.
    expect(depsOf(entries, 'features.alice_cards')).toEqual(['customers.alice', 'kyc.alice']);
    expect(depsOf(entries, 'features.alice_collections')).toEqual(['customers.alice']);
    // Nothing of alice's waits for bob's, or the other way round.
    expect(depsOf(entries, 'accounts.bob_usd')).toEqual(['customers.bob']);
  });

  it("a customer's kyc entries wait one for the other in file order; what needs approval waits for the last (generated counts and customers)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('alice', 'bob'), { minLength: 1, maxLength: 6 }), (owners) => {
        const d = doc();
        d.kyc = Object.fromEntries(
          owners.map((o, i) => [
            `k${i}`,
            { customer_id: `\${customers.${o}.id}`, documents: [{ type: 'passport', country: 'US', number: `${i}0000` }] },
          ]),
        );
        const es = parseSeed(d);
        const kycOf = (o: string) => owners.flatMap((x, i) => (x === o ? [`kyc.k${i}`] : []));
        for (const o of ['alice', 'bob']) {
          const mine = kycOf(o);
          mine.forEach((ref, i) => {
            const kycDeps = depsOf(es, ref).filter((x) => x.startsWith('kyc.'));
            expect(kycDeps, ref).toEqual(i === 0 ? [] : [mine[i - 1]]);
          });
        }
        const last = kycOf('alice').slice(-1);
        expect(depsOf(es, 'cards.card').filter((x) => x.startsWith('kyc.'))).toEqual(last);
        expect(depsOf(es, 'features.alice_cards').filter((x) => x.startsWith('kyc.'))).toEqual(last);
        expect(depsOf(es, 'accounts.bob_usd').filter((x) => x.startsWith('kyc.'))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('never makes a circle: a KYC entry that waits for a card keeps it so, and the card does not wait for it', () => {
    const d = doc();
    d.kyc!.alice!.depends_on = ['cards.card'];
    const es = parseSeed(d);
    expect(depsOf(es, 'kyc.alice')).toContain('cards.card');
    expect(depsOf(es, 'cards.card')).not.toContain('kyc.alice');
  });

  it('fast-check: for any subset of the entries, every dependency is defined and the order is acyclic', () => {
    const all = doc();
    const refs = Object.entries(all).flatMap(([k, g]) => Object.keys(g).map((n) => [k, n] as const));
    fc.assert(
      fc.property(fc.subarray(refs), (keep) => {
        const d: Doc = {};
        const kept = new Set(keep.map(([k, n]) => `${k}.${n}`));
        for (const [k, n] of keep) (d[k] ??= {})[n] = structuredClone(all[k]![n]!);
        // Drop entries whose references the subset lost (the file would be refused, rightly).
        let changed = true;
        while (changed) {
          changed = false;
          for (const [k, g] of Object.entries(d))
            for (const [n, body] of Object.entries(g)) {
              if (Array.isArray(body.depends_on)) body.depends_on = (body.depends_on as string[]).filter((r) => kept.has(r));
              const wanted = [...JSON.stringify(body).matchAll(/\$\{([a-z_]+)\.([A-Za-z0-9_-]+)/g)].map((m) => `${m[1]}.${m[2]}`);
              if (wanted.some((r) => !kept.has(r))) {
                delete g[n];
                kept.delete(`${k}.${n}`);
                changed = true;
              }
            }
        }
        const es = parseSeed(d);
        const defined = new Set(es.map((e) => e.ref));
        for (const e of es) for (const dep of e.deps) expect(defined.has(dep)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('bad KYC and features entries: exit 2 before anything is sent', () => {
  it.each([
    [{ features: { x: { customer_id: CUS, feature: 'teleport' } } }, /feature must be one of cards, collections/],
    [{ features: { x: { customer_id: CUS, feature: 'cards', note: 'hi' } } }, /takes customer_id and feature only, not note/],
    [{ features: { x: { feature: 'cards' } } }, /customer_id is required/],
    [{ kyc: { x: { customer_id: CUS, documents: 'passport' } } }, /documents must be a list/],
    [{ kyc: { x: { customer_id: CUS, documents: Array.from({ length: 21 }, () => ({ type: 'passport' })) } } }, /at most 20/],
  ])('%j', (d, message) => {
    expect(() => parseSeed(d)).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringMatching(message) }));
  });
});

describe('the plan of the new kinds', () => {
  const IDS: Record<string, string> = {};
  /** A state as a complete apply leaves it: objects echo their bodies; a feature activation is named <customer>/<feature>. */
  function applied(d: Doc): { tenant: string; mode: string; entries: Record<string, Recorded> } {
    const entries = parseSeed(d);
    const hashed = hashedFields(entries);
    const objects = new Map<string, Record<string, unknown>>();
    const recs: Record<string, Recorded> = {};
    let i = 0;
    for (const e of entries) {
      const body = resolve(e.body, objects, {}, e.ref) as Record<string, unknown>;
      const prefix = { customers: 'cus_', kyc: 'kyc_' }[e.kind as string] ?? `${e.kind.slice(0, 3)}_`;
      const id =
        e.kind === 'features' ? `${String(body.customer_id)}/${String(body.feature)}` : `${prefix}${String(i++).padStart(24, '0')}`;
      IDS[e.ref] = id;
      const object = { id, ...body };
      objects.set(e.ref, object);
      recs[e.ref] = { hash: entryHash(T, M, e), body: recordable(body, hashed.get(e.ref)), object: recordable(object, hashed.get(e.ref)) };
    }
    return { tenant: T, mode: M, entries: recs };
  }
  const actions = (d: Doc, state: ReturnType<typeof applied>) =>
    Object.fromEntries(planChanges(parseSeed(d), state, {}).map((c) => [c.ref, c.action]));

  it('no state: KYC and features entries are created with the rest; after an apply, all skipped', () => {
    const d = doc();
    const none = actions(d, { tenant: T, mode: M, entries: {} });
    expect(Object.entries(none).filter(([r]) => /^(kyc|features)\./.test(r))).toEqual(
      ['kyc.alice', ...Object.keys(d.features!).map((n) => `features.${n}`)].map((r) => [r, 'create']),
    );
    const state = applied(d);
    expect(new Set(Object.values(actions(d, state)))).toEqual(new Set(['skip']));
  });

  it('the state file holds the KYC documents only as a sha256 (no document number), and still sees a change', () => {
    const d = doc();
    const state = applied(d);
    const text = JSON.stringify(state);
    expect(text).not.toContain('123456789');
    expect(state.entries['kyc.alice']!.body!.documents).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    d.kyc!.alice!.documents = [{ type: 'passport', country: 'US', number: '987654321' }];
    const c = planChanges(parseSeed(d), state, {}).find((x) => x.ref === 'kyc.alice')!;
    expect(c).toMatchObject({ action: 'replace', fields: ['documents'] });
    expect(describeChange(c, 'kyc')).toContain('a KYC verification is history: nothing undoes it');
  });

  it('a feature changed: replace (there is no deactivation: the old activation stays), and what waits for it does not follow', () => {
    const d = doc();
    const state = applied(d);
    d.features!.alice_cards!.feature = 'fx';
    const plan = Object.fromEntries(planChanges(parseSeed(d), state, {}).map((c) => [c.ref, c]));
    expect(plan['features.alice_cards']).toMatchObject({ action: 'replace', fields: ['feature'] });
    expect(plan['cards.card']!.action).toBe('skip');
    expect(fateOfOld('features')).toBe('left behind (the API has no operation that retires a feature activation)');
  });

  it('a new customer for the KYC entry: the verification follows it (replace)', () => {
    const d = doc();
    const state = applied(d);
    d.customers!.alice!.date_of_birth = '1991-01-01'; // an update in place: the id stays
    expect(actions(d, state)['kyc.alice']).toBe('skip');
    d.kyc!.alice!.customer_id = '${customers.bob.id}';
    expect(actions(d, state)['kyc.alice']).toBe('replace');
  });
});

describe('state file ids of the new kinds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pay-seed-kinds-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const CTX = { tenant: 'biz_a', mode: 'sandbox', baseUrl: 'http://127.0.0.1:4010/v1/' };
  const load = (entries: Record<string, unknown>) => {
    const p = join(dir, `s${n++}.json`);
    writeFileSync(p, JSON.stringify({ version: 2, tenant: 'biz_a', mode: 'sandbox', base_url: 'http://127.0.0.1:4010/v1', entries }));
    return readState(p, CTX);
  };

  it('a feature activation is <customer id>/<feature> exactly', () => {
    expect(featureOfId(`${CUS}/cards`)).toEqual({ customer: CUS, feature: 'cards' });
    for (const f of FEATURE_KEYS) expect(isIdOf('features', `${CUS}/${f}`)).toBe(true);
    for (const bad of [
      `${CUS}/teleport`,
      `${CUS}/cards/x`,
      `${CUS}/../cards`,
      `cus_x/cards`,
      `${CUS}%2fcards`,
      `acc_0123456789abcdefghijklmn/cards`,
      CUS,
      42,
    ])
      expect(isIdOf('features', bad), String(bad)).toBe(false);
  });

  it('keeps good records of the new kinds', async () => {
    const s = await load({
      'kyc.a': { hash: 'h', object: { id: 'kyc_0123456789abcdefghijklmn', customer_id: CUS } },
      'features.a': { hash: 'h', object: { id: `${CUS}/fx`, customer_id: CUS } },
    });
    expect(Object.keys(s.state.entries)).toEqual(['kyc.a', 'features.a']);
  });

  it.each([
    [
      { 'kyc.a': { hash: 'h', object: { id: 'cus_0123456789abcdefghijklmn', customer_id: CUS } } },
      /kyc\.a records .*not a KYC verification id/,
    ],
    [
      { 'kyc.a': { hash: 'h', object: { id: 'kyc_0123456789abcdefghijklmn', customer_id: '../accounts' } } },
      /records the customer .*not a customer id/,
    ],
    [{ 'features.a': { hash: 'h', object: { id: `${CUS}/../../accounts` } } }, /not a feature activation id/],
    [{ 'features.a': { hash: 'h', object: { id: 'kyc_0123456789abcdefghijklmn' } } }, /not a feature activation id/],
  ])('stops (exit 1, nothing sent) on %j', async (entries, message) => {
    const err = await load(entries).then(
      () => undefined,
      (e: unknown) => e as { exitCode: number; message: string },
    );
    expect(err?.exitCode).toBe(1);
    expect(err?.message).toMatch(message);
  });

  it('the kinds are in the order a file is best read: customers, KYC, features, then the rest', () => {
    expect(Object.keys(KINDS).slice(0, 4)).toEqual(['customers', 'kyc', 'features', 'accounts']);
  });
});
