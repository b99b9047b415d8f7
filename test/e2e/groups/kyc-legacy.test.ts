// pay kyc-legacy against the emulator: the deprecated /kyc endpoints, the same data as pay kyc,
// and on every call a warning on stderr naming the `pay kyc` equivalent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID, apiError, customer, expectContractHeaders, ndjson, ok, startWorld, tsv, type World } from './helpers.js';

const warn = (verb: string) => `warning: "pay kyc-legacy ${verb}" uses a deprecated API; use "pay kyc ${verb}" instead\n`;

let w: World;
let cus: string;
let kycId: string;

beforeAll(async () => {
  w = await startWorld();
  cus = await customer(w);
});
afterAll(() => w?.stop());

describe('pay kyc-legacy', () => {
  it('help marks the group and every verb deprecated, naming pay kyc', async () => {
    const r = await w.pay(['kyc-legacy', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\[deprecated: use pay kyc\]/);
    for (const verb of ['verify', 'submit-document', 'status'])
      expect(r.stdout).toMatch(new RegExp(`${verb} .*\\[deprecated: use pay kyc ${verb}\\]`));
  });

  it('verify --json: POST /kyc/verify with customer_id in the body; the warning is the only stderr', async () => {
    const m = w.mark();
    const r = await w.pay(['kyc-legacy', 'verify', cus, '--json']);
    expect([r.code, r.stderr]).toEqual([0, warn('verify')]);
    const v = JSON.parse(r.stdout);
    expect(v).toMatchObject({ object: 'kyc_verification', customer_id: cus, level: 'basic', status: 'pending', documents: [] });
    expect(v.id).toMatch(ID('kyc_'));
    kycId = v.id;
    const reqs = w.since(m);
    expect(reqs.map((q) => [q.method, q.path, q.body])).toEqual([['POST', '/v1/kyc/verify', { customer_id: cus, level: 'basic' }]]);
    expectContractHeaders(reqs, w.emu);
  });

  it('the current pay kyc sees the same verification, and documents from both paths land on it', async () => {
    const cur = await w.pay(['kyc', 'status', cus, '--json']);
    expect([cur.code, cur.stderr]).toEqual([0, '']);
    expect(JSON.parse(cur.stdout).id).toBe(kycId);

    const m = w.mark();
    const legacy = await w.pay(['kyc-legacy', 'submit-document', cus, '--type', 'passport', '--country', 'GB', '--number', '123456789']);
    expect(legacy.stderr).toBe(warn('submit-document'));
    const d = tsv({ ...legacy, stderr: '' });
    expect(d.rows[0]).toMatchObject({
      verification_id: kycId,
      customer_id: cus,
      type: 'passport',
      number_last4: '6789',
      status: 'received',
    });
    expect(w.since(m).map((q) => [q.method, q.path, q.body])).toEqual([
      ['POST', '/v1/kyc/documents', { customer_id: cus, type: 'passport', country: 'GB', number: '123456789' }],
    ]);
    const selfie = await w.pay(['kyc', 'submit-document', cus, '--type', 'selfie', '--country', 'GB', '--json']);
    expect([selfie.code, selfie.stderr]).toEqual([0, '']);
    expect(JSON.parse(selfie.stdout).verification_id).toBe(kycId);
  });

  it('status: in_review (table with both documents), then approved once settled (json, ndjson)', async () => {
    const t = await w.pay(['kyc-legacy', 'status', cus, '-o', 'table']);
    expect(t.stderr).toBe(warn('status'));
    const text = ok({ ...t, stderr: '' });
    expect(text).toMatch(new RegExp(`^id {2,}${kycId}\\s*$`, 'm'));
    expect(text).toMatch(/^status {2,}in_review\s*$/m);
    expect(text).toMatch(/^Documents \(2\)$/m);
    expect(text).toMatch(/ passport {2,}GB {2,}6789 {2,}received /);

    await w.settle();
    const m = w.mark();
    const [j, nd] = await Promise.all([
      w.pay(['kyc-legacy', 'status', cus, '--json']),
      w.pay(['kyc-legacy', 'status', cus, '-o', 'ndjson', '--fields', 'id,status']),
    ]);
    for (const r of [j, nd]) expect([r.code, r.stderr]).toEqual([0, warn('status')]);
    const v = JSON.parse(j.stdout);
    expect(v).toMatchObject({ id: kycId, status: 'approved' });
    expect(v.documents.map((d: { status: string }) => d.status)).toEqual(['accepted', 'accepted']);
    expect(ndjson({ ...nd, stderr: '' })).toEqual([{ id: kycId, status: 'approved' }]);
    expect(w.since(m).map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v1/kyc/status/${cus}`, `GET /v1/kyc/status/${cus}`]);
    // ...and pay kyc agrees.
    expect((await w.api('GET', `customers/${cus}/kyc`)).status).toBe('approved');
  });

  it('errors still carry the warning first: unknown customer is exit 4; a conflict is exit 5', async () => {
    const [nf, again] = await Promise.all([
      w.pay(['kyc-legacy', 'status', 'cus_000000000000000000000000']),
      w.pay(['kyc-legacy', 'verify', cus]),
    ]);
    expect(nf.stderr.startsWith(warn('status'))).toBe(true);
    apiError({ ...nf, stderr: nf.stderr.slice(warn('status').length) }, 4, 404, 'not_found');
    expect(again.stderr.startsWith(warn('verify'))).toBe(true);
    apiError({ ...again, stderr: again.stderr.slice(warn('verify').length) }, 5, 409, 'invalid_state', true);
  });
});
