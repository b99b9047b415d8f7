// The seed state file as untrusted input: readState's identity (tenant, mode, service; the default
// tenant named explicitly is the same one), its id checks before any request, and values from the
// environment recorded only as hashes.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normalBaseUrl, readState } from '../../../src/seed/state.js';
import { checkEnvNames, envFields, recordable } from '../../../src/seed/diff.js';
import { parseSeed } from '../../../src/seed/file.js';

const dir = mkdtempSync(join(tmpdir(), 'pay-seed-state-'));
const CTX = { tenant: 'biz_a', mode: 'sandbox', baseUrl: 'http://127.0.0.1:4010/v1/' };
const ID = 'acc_0123456789abcdefghijklmn';
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const stateWith = (s: unknown): string => {
  const p = join(dir, `s${n++}.json`);
  writeFileSync(p, JSON.stringify(s));
  return p;
};
const good = (extra: object = {}) => ({
  version: 2,
  tenant: 'biz_a',
  mode: 'sandbox',
  base_url: 'http://127.0.0.1:4010/v1',
  entries: { 'accounts.a': { hash: 'h', object: { id: ID } } },
  ...extra,
});

describe('readState', () => {
  it.each([
    ['{"version":2,"__proto__":{"polluted":1},"entries":{}}', /__proto__/],
    ['{"version":2,"entries":{"accounts.a":{"hash":"h","object":{"id":"x","constructor":{"prototype":{"p":1}}}}}}', /constructor/],
    ['[' + '['.repeat(40) + ']'.repeat(40) + ']', /deeper|nest/],
    ['{"version":', /not valid JSON/],
  ])('refuses %s with exit 2 naming the file, and pollutes nothing', async (text, message) => {
    const p = join(dir, `raw${n++}.json`);
    writeFileSync(p, text);
    const err = await readState(p, CTX).then(
      () => undefined,
      (e: unknown) => e as { exitCode: number; message: string },
    );
    expect(err?.exitCode).toBe(2);
    expect(err?.message).toContain(p);
    expect(err?.message).toMatch(message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps a state file of the same tenant, mode and service (a trailing slash is the same service)', async () => {
    const r = await readState(stateWith(good()), CTX);
    expect(r.setAside).toBeUndefined();
    expect(r.state.entries['accounts.a']!.object.id).toBe(ID);
  });
  it('the implied tenant and a named one are the same tenant (its objects are read back before use)', async () => {
    expect((await readState(stateWith(good({ tenant: 'default' })), CTX)).setAside).toBeUndefined();
    expect((await readState(stateWith(good()), { ...CTX, tenant: 'default' })).setAside).toBeUndefined();
  });
  it.each([
    [{ tenant: 'biz_b' }, 'it records tenant biz_b, this run is tenant biz_a'],
    [{ mode: 'live' }, 'it records live mode, this run is sandbox'],
    [{ base_url: 'http://127.0.0.1:9999/v1' }, 'it records the service http://127.0.0.1:9999/v1, this run is http://127.0.0.1:4010/v1/'],
    [{ entries: [] }, 'it is not a seed state file'],
  ])('sets aside %j, saying why', async (extra, reason) => {
    const p = stateWith(good(extra));
    const r = await readState(p, CTX);
    expect(r.setAside).toEqual({ reason, path: p, movedTo: `${p}.set-aside` });
    expect(r.state.entries).toEqual({});
  });
  it.each([
    [
      { entries: { 'accounts.a': { hash: 'h', object: { id: 'acc_%2e%2e' } } } },
      /accounts\.a records "acc_%2e%2e", not an account id; nothing was sent$/,
    ],
    [{ entries: { 'accounts.a': { hash: 'h', object: { id: 'cus_0123456789abcdefghijklmn' } } } }, /not an account id/],
    [{ entries: { '__proto__.x': { hash: 'h', object: { id: ID } } } }, /is not an entry name/],
    [{ entries: { 'accounts.a': { hash: 'h', object: 'acc' } } }, /is not a recorded entry/],
    [{ retire: [{ ref: 'accounts.a', id: '../customers' }] }, /retire accounts\.a holds an id that is not an account id/],
    [
      { retire: [{ ref: 'cards.c', id: 'card_0123456789abcdefghijklmn', replaced_by: ID }] },
      /retire cards\.c holds an id that is not a card id/,
    ],
    [{ retire: ['x'] }, /a retire item names no entry/],
  ])('refuses %j before any request (exit 1)', async (extra, message) => {
    await expect(readState(stateWith(good(extra)), CTX)).rejects.toThrow(
      expect.objectContaining({ exitCode: 1, code: 'seed_state_invalid', message: expect.stringMatching(message) }),
    );
  });
  it('normalBaseUrl: origin and path, no trailing slash', () => {
    expect(normalBaseUrl('HTTP://LOCALHOST:80/v1/')).toBe('http://localhost/v1');
    expect(normalBaseUrl('not a url')).toBe('not a url');
  });
});

describe('values from the environment', () => {
  const entries = parseSeed({
    customers: { a: { first_name: 'A', last_name: '${env.LAST}', email: 'a@x.com' } },
    accounts: { b: { customer_id: '${customers.a.id}', nickname: 'for ${customers.a.last_name}', currency: 'USD' } },
    cards: { c: { account_id: '${accounts.b.id}', name_on_card: '${accounts.b.nickname}' } },
  });
  it("envFields: written with ${env}, or through another entry's field that is", () => {
    const f = envFields(entries);
    expect([...f.get('customers.a')!]).toEqual(['last_name']);
    expect([...f.get('accounts.b')!]).toEqual(['nickname']);
    expect([...f.get('cards.c')!]).toEqual(['name_on_card']);
  });
  it('recordable: those fields as a sha256 of their value; idempotent', () => {
    const body = { first_name: 'A', last_name: 'Secretvalue', email: 'a@x.com' };
    const rec = recordable(body, new Set(['last_name']));
    expect(rec).toEqual({
      first_name: 'A',
      last_name: { sha256: createHash('sha256').update('"Secretvalue"').digest('hex') },
      email: 'a@x.com',
    });
    expect(JSON.stringify(rec)).not.toContain('Secretvalue');
    expect(recordable(rec, new Set(['last_name']))).toEqual(rec);
  });
  it.each(['PAY_API_KEY', 'STRIPE_KEY', 'GH_TOKEN', 'DB_PASSWORD', 'APP_SECRET', 'api_key'])(
    'checkEnvNames refuses %s without --allow-env (exit 2)',
    (name) => {
      const e = parseSeed({ customers: { a: { first_name: `\${env.${name}}` } } });
      expect(() => checkEnvNames(e, [])).toThrow(
        expect.objectContaining({ exitCode: 2, message: `customers.a: \${env.${name}} reads a secret from the environment; refused` }),
      );
      expect(() => checkEnvNames(e, [name])).not.toThrow();
    },
  );
  it('checkEnvNames lets other names through', () => {
    expect(() =>
      checkEnvNames(parseSeed({ customers: { a: { first_name: '${env.SEED_DOMAIN}', last_name: '${env.KEYBOARD}' } } }), []),
    ).not.toThrow();
  });
});
