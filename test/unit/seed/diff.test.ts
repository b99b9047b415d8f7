// The seed plan: create / skip / update / replace per entry, from the file and the state file only.
import { describe as group, expect, it } from 'vitest';
import { describe, entryHash, planChanges, type Recorded, type StateView } from '../../../src/seed/diff.js';
import { parseSeed, resolve, type Entry } from '../../../src/seed/file.js';

const T = 'biz_t';
const M = 'sandbox';
const ENV = { DOMAIN: 'example.com' };

const CUSTOMER = {
  first_name: 'Alice',
  last_name: 'Ng',
  email: 'alice@${env.DOMAIN}',
  phone: '+14155550100',
  type: 'individual',
  date_of_birth: '1990-01-01',
  address: { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '78701' },
};
const DOC = {
  customers: { alice: CUSTOMER },
  accounts: { main: { customer_id: '${customers.alice.id}', currency: 'USD' } },
  collections: {
    fund: {
      account_id: '${accounts.main.id}',
      amount: '100.00',
      currency: 'USD',
      method: 'card',
      description: 'for ${customers.alice.email}',
    },
  },
  cards: { card: { customer_id: '${customers.alice.id}', account_id: '${accounts.main.id}', type: 'virtual' } },
  wallets: { w: { customer_id: '${customers.alice.id}', asset: 'USDC', network: 'polygon' } },
  transfers: {
    t: {
      source_account_id: '${accounts.main.id}',
      destination_id: '${accounts.main.id}',
      amount: '1.00',
      currency: 'USD',
      depends_on: ['collections.fund'],
    },
  },
};
const IDS: Record<string, string> = {
  'customers.alice': 'cus_1',
  'accounts.main': 'acc_1',
  'collections.fund': 'col_1',
  'cards.card': 'card_1',
  'wallets.w': 'wal_1',
  'transfers.t': 'tr_1',
};

type Doc = Record<string, Record<string, Record<string, unknown>>>;
const clone = (): Doc => structuredClone(DOC);

/** The state a complete apply of `doc` leaves (version 2: bodies recorded), objects echoing their bodies. */
function applied(doc: Doc, version: 1 | 2 = 2): StateView {
  const entries = parseSeed(doc);
  const objects = new Map<string, Record<string, unknown>>();
  const recs: Record<string, Recorded> = {};
  for (const e of entries) {
    const body = resolve(e.body, objects, ENV, e.ref) as Record<string, unknown>;
    const object = { id: IDS[e.ref], ...body, status: 'active' };
    objects.set(e.ref, object);
    recs[e.ref] = { hash: entryHash(T, M, e), ...(version === 2 ? { body } : {}), object };
  }
  return { tenant: T, mode: M, entries: recs };
}

const actions = (doc: Doc, state: StateView, env: NodeJS.ProcessEnv = ENV) =>
  Object.fromEntries(planChanges(parseSeed(doc), state, env).map((c) => [c.ref, c.action]));
const change = (doc: Doc, state: StateView, ref: string, env: NodeJS.ProcessEnv = ENV) =>
  planChanges(parseSeed(doc), state, env).find((c) => c.ref === ref)!;

const ALL_SKIP = Object.fromEntries(Object.keys(IDS).map((r) => [r, 'skip']));

group('planChanges', () => {
  it('no state: everything to create', () => {
    expect(actions(clone(), { tenant: T, mode: M, entries: {} })).toEqual(Object.fromEntries(Object.keys(IDS).map((r) => [r, 'create'])));
  });

  it('unchanged file: everything skipped, with the recorded ids', () => {
    const changes = planChanges(parseSeed(clone()), applied(clone()), ENV);
    expect(changes.map((c) => [c.ref, c.action, c.id])).toEqual(Object.entries(IDS).map(([r, id]) => [r, 'skip', id]));
  });

  it('key order and a new entry: only the new one is created', () => {
    const doc = clone();
    doc.customers!.alice = Object.fromEntries(Object.entries(CUSTOMER).reverse());
    doc.wallets!.w2 = { customer_id: '${customers.alice.id}', asset: 'BTC', network: 'bitcoin' };
    expect(actions(doc, applied(clone()))).toEqual({ ...ALL_SKIP, 'wallets.w2': 'create' });
  });

  it('a customer field the update accepts: update in place; entries that refer to its id stay', () => {
    const doc = clone();
    (doc.customers!.alice!.address as Record<string, unknown>).city = 'Dallas';
    const c = change(doc, applied(clone()), 'customers.alice');
    expect(c).toEqual({ ref: 'customers.alice', action: 'update', id: 'cus_1', fields: ['address'] });
    expect(describe(c, 'customers')).toBe('address changed');
    expect(actions(doc, applied(clone()))).toEqual({ ...ALL_SKIP, 'customers.alice': 'update' });
  });

  it('an updated field that another entry reads changes that entry too (a collection: replaced, history)', () => {
    const doc = clone();
    doc.customers!.alice!.email = 'alice.ng@${env.DOMAIN}';
    const state = applied(clone());
    expect(actions(doc, state)).toEqual({ ...ALL_SKIP, 'customers.alice': 'update', 'collections.fund': 'replace' });
    const c = change(doc, state, 'collections.fund');
    expect(c).toMatchObject({ action: 'replace', id: 'col_1', fields: ['description'], reason: 'a collection has no update operation' });
    expect(describe(c, 'collections')).toBe(
      'description changed; a collection has no update operation; the old col_1: left behind (a collection is history: nothing undoes it)',
    );
  });

  it('an environment variable is content: a change is seen', () => {
    expect(actions(clone(), applied(clone()), { DOMAIN: 'example.org' })).toEqual({
      ...ALL_SKIP,
      'customers.alice': 'update',
      'collections.fund': 'replace',
    });
  });

  it('an account currency: replace, and every entry that refers to the account follows', () => {
    const doc = clone();
    doc.accounts!.main!.currency = 'EUR';
    const state = applied(clone());
    expect(actions(doc, state)).toEqual({
      ...ALL_SKIP,
      'accounts.main': 'replace',
      'collections.fund': 'replace',
      'cards.card': 'replace',
      'transfers.t': 'replace',
    });
    const account = change(doc, state, 'accounts.main');
    expect(account).toEqual({
      ref: 'accounts.main',
      action: 'replace',
      id: 'acc_1',
      fields: ['currency'],
      reason: 'an account has no update operation',
    });
    expect(describe(account, 'accounts')).toBe(
      'currency changed; an account has no update operation; the old acc_1: closed if its balance is zero',
    );
    const card = change(doc, state, 'cards.card');
    expect(card).toMatchObject({ action: 'replace', id: 'card_1', fields: ['account_id'], follows: ['accounts.main'] });
    expect(describe(card, 'cards')).toBe(
      'account_id changed (follows accounts.main); a card has no update operation; the old card_1: terminated',
    );
    expect(change(doc, state, 'transfers.t')).toMatchObject({
      fields: ['destination_id', 'source_account_id'],
      follows: ['accounts.main'],
    });
  });

  it('a field the update cannot express (removing an optional one): replace, with the reason', () => {
    const doc = clone();
    const state = applied(clone());
    delete doc.customers!.alice!.address;
    const c = change(doc, state, 'customers.alice');
    expect(c).toMatchObject({ action: 'replace', fields: ['address'], reason: 'an update cannot remove address' });
    expect(describe(c, 'customers')).toContain('the old cus_1: left behind (the API has no operation that retires a customer)');
    // ... and so do the entries that refer to the customer.
    expect(actions(doc, state)).toMatchObject({ 'accounts.main': 'replace', 'wallets.w': 'replace', 'cards.card': 'replace' });
  });

  it('a field the update does not take: replace', () => {
    const doc = clone();
    doc.customers!.alice!.nickname = 'Al';
    expect(change(doc, applied(clone()), 'customers.alice')).toMatchObject({
      action: 'replace',
      fields: ['nickname'],
      reason: 'an update cannot change nickname',
    });
  });

  it('depends_on alone does not make a replaced entry a cause of change', () => {
    const doc = clone();
    doc.collections!.fund!.amount = '200.00';
    const state = applied(clone());
    expect(actions(doc, state)).toEqual({ ...ALL_SKIP, 'collections.fund': 'replace' });
  });

  group('version 1 state files (no bodies)', () => {
    it('an unchanged file: everything skipped (bodies rebuilt from the recorded objects)', () => {
      expect(actions(clone(), applied(clone(), 1))).toEqual(ALL_SKIP);
    });
    it('an edited customer: compared with the recorded object, an update of the changed field', () => {
      const doc = clone();
      doc.customers!.alice!.phone = '+14155550199';
      expect(change(doc, applied(clone(), 1), 'customers.alice')).toMatchObject({ action: 'update', fields: ['phone'] });
    });
    it('an edited account: replace, its dependents follow', () => {
      const doc = clone();
      doc.accounts!.main!.currency = 'EUR';
      expect(actions(doc, applied(clone(), 1))).toMatchObject({
        'accounts.main': 'replace',
        'cards.card': 'replace',
        'customers.alice': 'skip',
      });
    });
  });
});

group('entryHash', () => {
  it('is unchanged: keys and state files of earlier versions keep matching', () => {
    const [e] = parseSeed({ customers: { alice: { x: 1 } } }) as [Entry];
    expect(entryHash('t', 'sandbox', e)).toBe('3dbc1e4fadcbf61550604ccabc73461dc19f321a');
  });
});
