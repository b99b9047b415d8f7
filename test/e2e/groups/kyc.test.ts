// pay kyc against the emulator: verify → submit-document → status (in_review, then approved after
// the review settles), the sandbox rejection (document number ending 0000), invalid transitions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ID,
  TABLE_TIME,
  apiError,
  customer,
  expectContractHeaders,
  json,
  jsonError,
  keyValues,
  ndjson,
  ok,
  startWorld,
  tsv,
  usageError,
  type World,
} from './helpers.js';

let w: World;
let cus: string;
let kycId: string;

beforeAll(async () => {
  w = await startWorld();
  cus = await customer(w);
});
afterAll(() => w?.stop());

describe('pay kyc', () => {
  it('status before any verification is exit 4 (json error on stderr with --json)', async () => {
    const [t, j] = await Promise.all([w.pay(['kyc', 'status', cus]), w.pay(['kyc', 'status', cus, '--json'])]);
    apiError(t, 4, 404, 'not_found');
    expect(jsonError(j, 4)).toMatchObject({ code: 'not_found', status: 404, method: 'GET', path: `/v1/customers/${cus}/kyc` });
  });

  it('verify --json starts a pending verification (POST with level, idempotency key)', async () => {
    const m = w.mark();
    const v = json(await w.pay(['kyc', 'verify', cus, '--json']));
    expect(v).toMatchObject({
      object: 'kyc_verification',
      customer_id: cus,
      level: 'basic',
      status: 'pending',
      documents: [],
      submitted_at: null,
      decided_at: null,
      rejection_reason: null,
    });
    expect(v.id).toMatch(ID('kyc_'));
    kycId = v.id;
    const reqs = w.since(m);
    expect(reqs.map((r) => [r.method, r.path, r.body])).toEqual([['POST', `/v1/customers/${cus}/kyc`, { level: 'basic' }]]);
    expectContractHeaders(reqs, w.emu);
    // A second start while one is open is a conflict.
    apiError(await w.pay(['kyc', 'verify', cus, '--level', 'enhanced']), 5, 409, 'invalid_state', true);
  });

  it('submit-document prints the document (tsv) with only the last 4 of the number; the review starts', async () => {
    const r = await w.pay([
      'kyc',
      'submit-document',
      cus,
      '--type',
      'passport',
      '--country',
      'gb',
      '--number',
      'P12345678',
      '--file-name',
      'passport.jpg',
    ]);
    expect(r.stdout).not.toContain('P12345678');
    const d = tsv(r);
    expect(d.header).toEqual([
      'id',
      'object',
      'livemode',
      'created_at',
      'updated_at',
      'verification_id',
      'customer_id',
      'type',
      'country',
      'number_last4',
      'file_name',
      'status',
    ]);
    expect(d.rows[0]).toMatchObject({
      object: 'kyc_document',
      verification_id: kycId,
      customer_id: cus,
      type: 'passport',
      country: 'GB',
      number_last4: '5678',
      file_name: 'passport.jpg',
      status: 'received',
    });
    expect(d.rows[0]!.id).toMatch(ID('doc_'));
    const last = w.emu.received.at(-1)!;
    expect(last).toMatchObject({
      method: 'POST',
      path: `/v1/customers/${cus}/kyc/documents`,
      body: { type: 'passport', country: 'GB', number: 'P12345678', file_name: 'passport.jpg' },
    });

    const kv = keyValues(await w.pay(['kyc', 'status', cus, '-o', 'table']));
    expect(kv.get('status')).toBe('in_review');
    expect(kv.get('submitted_at')).toMatch(TABLE_TIME);
    expect(kv.get('decided_at')).toBe('-');
  });

  it('status after the review settles: approved (json, table with the documents, ndjson), and the customer mirrors it', async () => {
    await w.settle();
    const [j, t, nd, c] = await Promise.all([
      w.pay(['kyc', 'status', cus, '--json']),
      w.pay(['kyc', 'status', cus, '-o', 'table']),
      w.pay(['kyc', 'status', cus, '-o', 'ndjson', '--fields', 'id,status,documents']),
      w.pay(['customers', 'get', cus, '--fields', 'kyc_status', '--no-header']),
    ]);
    const v = json(j);
    expect(v).toMatchObject({ id: kycId, status: 'approved', rejection_reason: null });
    expect(v.decided_at).toEqual(expect.any(String));
    expect(v.documents).toHaveLength(1);
    expect(v.documents[0]).toMatchObject({ type: 'passport', number_last4: '5678', status: 'accepted' });
    const text = ok(t);
    expect(text).toMatch(/^status {2,}approved\s*$/m);
    expect(text).toMatch(/^Documents \(1\)$/m);
    expect(text).toMatch(/^ID {2,}TYPE {2,}COUNTRY {2,}NUMBER {2,}STATUS {2,}CREATED$/m);
    expect(text).toMatch(
      new RegExp(`^${v.documents[0].id} {2,}passport {2,}GB {2,}5678 {2,}accepted {2,}\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z$`, 'm'),
    );
    expect(ndjson(nd)).toEqual([{ id: kycId, status: 'approved', documents: v.documents }]);
    expect(ok(c)).toBe('approved\n');
  });

  it('a document number ending 0000 is rejected; a new verification may then start', async () => {
    const other = await customer(w);
    await w.api('POST', `customers/${other}/kyc`, { level: 'enhanced' });
    await w.api('POST', `customers/${other}/kyc/documents`, { type: 'national_id', country: 'NG', number: '99990000' });
    await w.settle();
    const v = json(await w.pay(['kyc', 'status', other, '--json']));
    expect(v).toMatchObject({ level: 'enhanced', status: 'rejected', rejection_reason: expect.any(String) });
    expect(v.documents[0]).toMatchObject({ number_last4: '0000', status: 'rejected' });
    expect((await w.api('GET', `customers/${other}`)).kyc_status).toBe('rejected');
    const again = json(await w.pay(['kyc', 'verify', other, '--json']));
    expect(again).toMatchObject({ status: 'pending', level: 'basic' });
    expect(again.id).not.toBe(v.id);
  });

  it('bad values are exit 2 before any request; a document without an open verification is exit 5', async () => {
    const fresh = await customer(w);
    const m = w.mark();
    const [badType, badCountry, badLevel, noOpen] = await Promise.all([
      w.pay(['kyc', 'submit-document', cus, '--type', 'library_card', '--country', 'GB']),
      w.pay(['kyc', 'submit-document', cus, '--type', 'passport', '--country', 'XX']),
      w.pay(['kyc', 'verify', cus, '--level', 'ultra']),
      w.pay(['kyc', 'submit-document', fresh, '--type', 'passport', '--country', 'GB']),
    ]);
    usageError(badType, /^error: option '--type <type>' argument 'library_card' is invalid/);
    usageError(badCountry, /--country "XX" must be an ISO 3166-1 alpha-2 country code/);
    usageError(badLevel, /^error: option '--level <level>' argument 'ultra' is invalid/);
    expect(apiError(noOpen, 5, 409, 'invalid_state', true)).toContain('no KYC verification started for this customer');
    expect(w.since(m).map((r) => r.path)).toEqual([`/v1/customers/${fresh}/kyc/documents`]);
  });
});
