// Auth (401/403), the key deciding the mode, tenancy scoping, and 404 for other scopes' ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, customerBody, start, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;

beforeAll(async () => {
  emu = await start();
  api = client(emu);
});
afterAll(() => emu.stop());

describe('auth', () => {
  it('401 without a key, with an unknown key, with a key-like garbage value', async () => {
    for (const key of [null, 'sk_test_nope', 'x'.repeat(500)]) {
      const r = await api('GET', 'customers', undefined, { key });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 401, code: 'unauthorized', type: 'https://pay.dev/problems/unauthorized' });
      expect(r.body.request_id).toBe(r.headers.get('request-id'));
      // RFC 9110: a 401 says how to authenticate.
      expect(r.headers.get('www-authenticate')).toBe('ApiKey realm="pay", header="Api-Key"');
    }
    // Only the 401s: a 403 or a success has no challenge.
    expect((await api('GET', 'customers', undefined, { key: emu.keys.sandbox.public })).headers.get('www-authenticate')).toBeNull();
    expect((await api('GET', 'customers')).headers.get('www-authenticate')).toBeNull();
  });

  it('403 with a public key of either mode', async () => {
    for (const key of [emu.keys.sandbox.public, emu.keys.live.public]) {
      const r = await api('GET', 'customers', undefined, { key });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('forbidden');
    }
  });

  it('every response carries Request-Id', async () => {
    const ok = await api('GET', 'features');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('request-id')).toMatch(/^req_[0-9a-z]{24}$/);
  });
});

describe('modes and tenants', () => {
  it('Sandbox and Live data never mix; livemode follows the key', async () => {
    const live = client(emu, { key: emu.keys.live.secret });
    const c = await api('POST', 'customers', customerBody(1));
    expect(c.status).toBe(201);
    expect(c.body.livemode).toBe(false);
    const l = await live('POST', 'customers', customerBody(2));
    expect(l.body.livemode).toBe(true);
    expect((await live('GET', `customers/${c.body.id}`)).status).toBe(404);
    expect((await api('GET', `customers/${l.body.id}`)).status).toBe(404);
    const liveList = await live('GET', 'customers');
    expect(liveList.body.data.map((x: { id: string }) => x.id)).toEqual([l.body.id]);
  });

  it('x-tenant-id scopes every object; another tenant sees 404; no header = the default tenant', async () => {
    const a = client(emu, { tenant: 'biz_alpha' });
    const b = client(emu, { tenant: 'biz_beta' });
    const c = await a('POST', 'customers', customerBody(3));
    expect((await a('GET', `customers/${c.body.id}`)).status).toBe(200);
    const other = await b('GET', `customers/${c.body.id}`);
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('not_found');
    expect((await api('GET', `customers/${c.body.id}`)).status).toBe(404);
    // An account of tenant a cannot be used by tenant b, even in a body.
    const acc = await a('POST', 'accounts', { customer_id: c.body.id, currency: 'USD' });
    expect(acc.status).toBe(201);
    expect((await b('POST', 'collections', { account_id: acc.body.id, amount: '1.00', currency: 'USD', method: 'card' })).status).toBe(404);
    // No header = the default tenant, which is the same as naming it.
    const d = await api('POST', 'customers', customerBody(4));
    expect((await client(emu, { tenant: emu.tenantId })('GET', `customers/${d.body.id}`)).status).toBe(200);
  });

  it('GET /accounts needs x-tenant-id (400 missing_tenant); a malformed tenant is 400 invalid_tenant', async () => {
    const missing = await api('GET', 'accounts');
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('missing_tenant');
    expect((await api('GET', 'accounts', undefined, { tenant: emu.tenantId })).status).toBe(200);
    const bad = await api('GET', 'customers', undefined, { tenant: 'no spaces!' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_tenant');
    expect((await api('GET', 'customers', undefined, { tenant: 'x'.repeat(65) })).body.code).toBe('invalid_tenant');
  });

  it('malformed ids and unknown ids are 404 not_found', async () => {
    for (const id of ['cus_short', 'acc_0123456789abcdefghijklmn', 'cus_0123456789ABCDEFGHIJKLMN', 'cus_0123456789abcdefghijklmn']) {
      const r = await api('GET', `customers/${id}`);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
    }
  });
});
