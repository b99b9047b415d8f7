// The seed's table of update and retire operations must be the contract's: the same operations at
// the same paths, the fields the update body takes, and no other kind with an update operation.
import { describe, expect, it } from 'vitest';
import { openapi } from '../../../src/api/openapi.js';
import { KINDS, type Kind } from '../../../src/seed/file.js';
import { fateOfOld, idSegment, RETIRES, UPDATES } from '../../../src/seed/lifecycle.js';

type Op = { operationId: string; requestBody?: { content: Record<string, { schema: { $ref?: string } }> } };
const ops = new Map<string, { method: string; path: string; op: Op }>();
for (const [path, item] of Object.entries(openapi.paths)) {
  for (const [method, op] of Object.entries(item as Record<string, Op>))
    ops.set(op.operationId, { method: method.toUpperCase(), path, op });
}
const templated = (path: string) => `/${path.replace(/(cus|acc|ea|card|plink)_0123456789abcdefghijklmn/, '{id}')}`;
const normal = (path: string) => path.replace(/\{[a-z_]+\}/g, '{id}');

describe('seed lifecycle table', () => {
  it('updates are the contract update operations, with the fields of their bodies', () => {
    for (const [kind, u] of Object.entries(UPDATES)) {
      const found = ops.get(u.operationId)!;
      expect(found, u.operationId).toBeDefined();
      expect(found.method).toBe('PATCH');
      expect(normal(found.path)).toBe(templated(u.path('cus_0123456789abcdefghijklmn')));
      const ref = found.op.requestBody!.content['application/json']!.schema.$ref!.split('/').pop()!;
      const schema = openapi.components.schemas[ref] as { properties: object };
      expect(u.fields, kind).toEqual(Object.keys(schema.properties));
      expect(u.fields).toContain('address');
    }
  });

  it('no other kind the seed creates has an update operation in the contract', () => {
    const collections = new Set(Object.values(KINDS).map((k) => `/${k.path}/{id}`));
    const patched = [...ops.values()].filter((o) => o.method === 'PATCH' && collections.has(normal(o.path))).map((o) => o.op.operationId);
    expect(patched.sort()).toEqual(
      Object.values(UPDATES)
        .map((u) => u.operationId)
        .sort(),
    );
  });

  it('retire operations exist as the contract has them', () => {
    const ids: Partial<Record<Kind, string>> = {
      accounts: 'acc_0123456789abcdefghijklmn',
      external_accounts: 'ea_0123456789abcdefghijklmn',
      cards: 'card_0123456789abcdefghijklmn',
      payment_links: 'plink_0123456789abcdefghijklmn',
    };
    for (const [kind, r] of Object.entries(RETIRES) as Array<[Kind, (typeof RETIRES)[Kind] & object]>) {
      const found = ops.get(r.operationId)!;
      expect(found, r.operationId).toBeDefined();
      expect(found.method).toBe(r.method);
      expect(normal(found.path)).toBe(templated(r.path(ids[kind]!)));
    }
  });

  it('says what becomes of an old object of each kind', () => {
    expect(Object.fromEntries((Object.keys(KINDS) as Kind[]).map((k) => [k, fateOfOld(k)]))).toEqual({
      customers: 'left behind (the API has no operation that retires a customer)',
      kyc: 'left behind (a KYC verification is history: nothing undoes it)',
      features: 'left behind (the API has no operation that retires a feature activation)',
      accounts: 'closed if its balance is zero',
      external_accounts: 'removed',
      collections: 'left behind (a collection is history: nothing undoes it)',
      cards: 'terminated',
      wallets: 'left behind (the API has no operation that retires a wallet)',
      payment_links: 'disabled if still active',
      transfers: 'left behind (a transfer is history: nothing undoes it)',
      fx_trades: 'left behind (an FX trade is history: nothing undoes it)',
    });
  });
});

describe('idSegment: only a plain id of the kind becomes a path segment', () => {
  it('takes the id as it is', () => {
    expect(idSegment('accounts', 'acc_0123456789abcdefghijklmn')).toBe('acc_0123456789abcdefghijklmn');
  });
  it.each([
    'acc_x',
    '..',
    '%2e%2e',
    'acc_0123456789abcdefghijklmn/../../customers',
    'acc_%2e%2e%2fcustomers%2fcus_0123456789',
    'acc_0123456789abcdefghijklm%2f',
    'cus_0123456789abcdefghijklmn',
    'acc_0123456789ABCDEFGHIJKLMN',
    'acc_0123456789abcdefghijklmn\n',
    '',
  ])('refuses %j (exit 1)', (id) => {
    expect(() => idSegment('accounts', id)).toThrow(expect.objectContaining({ exitCode: 1, code: 'seed_state_invalid_id' }));
  });
  it('refuses what is not a string', () => {
    for (const v of [undefined, null, 42, { id: 'acc_0123456789abcdefghijklmn' }])
      expect(() => idSegment('accounts', v)).toThrow(/not acc_/);
  });
});
