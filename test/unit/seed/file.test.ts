import { describe, expect, it } from 'vitest';
import { canonical, parseSeed, resolve } from '../../../src/seed/file.js';
import { entryHash } from '../../../src/seed/diff.js';

const DOC = {
  customers: { alice: { first_name: 'Alice', email: '${env.ALICE_EMAIL}' } },
  accounts: { alice_usd: { customer_id: '${customers.alice.id}', currency: 'USD' } },
  collections: { fund: { account_id: '${accounts.alice_usd}', amount: '100.00', currency: 'USD', method: 'card' } },
  transfers: {
    t1: {
      source_account_id: '${accounts.alice_usd.id}',
      destination_id: '${accounts.alice_usd.id}',
      amount: '1.00',
      currency: 'USD',
      depends_on: ['collections.fund'],
    },
  },
};

describe('parseSeed', () => {
  it('finds references and depends_on as dependencies', () => {
    const entries = parseSeed(DOC);
    expect(entries.map((e) => [e.ref, e.deps])).toEqual([
      ['customers.alice', []],
      ['accounts.alice_usd', ['customers.alice']],
      ['collections.fund', ['accounts.alice_usd']],
      ['transfers.t1', ['accounts.alice_usd', 'collections.fund']],
    ]);
    expect(entries[3]!.body).not.toHaveProperty('depends_on');
  });

  it.each([
    [{ planets: {} }, /unknown kind "planets"/],
    [{ accounts: { a: { customer_id: '${customers.bob.id}' } } }, /accounts\.a refers to customers\.bob, which the file does not define/],
    [{ accounts: { a: { x: '${accounts.b.id}' }, b: { x: '${accounts.a.id}' } } }, /circular references/],
    [{ customers: { 'bad name': {} } }, /names are 1-64/],
    [[1, 2], /top level must be a mapping/],
  ])('refuses %j', (doc, message) => {
    expect(() => parseSeed(doc)).toThrow(message);
  });
});

describe('resolve', () => {
  const created = new Map([['customers.alice', { id: 'cus_1', address: { country: 'GB' } }]]);
  it('replaces whole-string and embedded references and env variables', () => {
    expect(
      resolve(
        { a: '${customers.alice.id}', b: 'for ${customers.alice} in ${customers.alice.address.country}', c: ['${env.X}'] },
        created,
        { X: 'x' },
        'r',
      ),
    ).toEqual({
      a: 'cus_1',
      b: 'for cus_1 in GB',
      c: ['x'],
    });
  });
  it('refuses a missing env variable or field', () => {
    expect(() => resolve('${env.NOPE}', created, {}, 'r')).toThrow(/NOPE is not set/);
    expect(() => resolve('${customers.alice.nope}', created, {}, 'r')).toThrow(/has no field nope/);
  });
});

describe('idempotency keys', () => {
  it('depend on tenant, mode, name and content, not on key order', () => {
    const [a] = parseSeed({ customers: { alice: { x: 1, y: 2 } } });
    const [b] = parseSeed({ customers: { alice: { y: 2, x: 1 } } });
    const [c] = parseSeed({ customers: { alice: { x: 1, y: 3 } } });
    expect(canonical(a!.body)).toBe(canonical(b!.body));
    expect(entryHash('t', 'sandbox', a!)).toBe(entryHash('t', 'sandbox', b!));
    expect(entryHash('t', 'sandbox', a!)).not.toBe(entryHash('t', 'sandbox', c!));
    expect(entryHash('t', 'sandbox', a!)).not.toBe(entryHash('t', 'live', a!));
    expect(entryHash('t', 'sandbox', a!)).not.toBe(entryHash('u', 'sandbox', a!));
  });
});
