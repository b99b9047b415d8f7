// pay seed's kinds for the business rules against the emulator: a KYC entry whose document the
// review rejects fails (with the reason) and blocks what needs the approval, while what needs no
// approval is made; the fixed entry is sent with a new key on the next run and the rest follows. A
// KYC entry for a customer verified outside the seed takes that verification. Nothing is ordered
// by hand: the rules order the entries.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';

let emu: Emulator;
let dir: string;
const env = () => cleanEnv({ PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId });

beforeAll(async () => {
  emu = await startEmulator({ port: 0, settleAfterMs: 50 });
  registerSecret(emu.keys.sandbox.secret, emu.keys.live.secret, emu.webhookSecret);
  dir = tempDir('pay-seed-kinds-');
});
afterAll(() => emu?.stop());

const person = (name: string) => ({
  first_name: name,
  last_name: 'Ng',
  email: `${name}@example.com`,
  phone: '+14155550100',
  type: 'individual',
  date_of_birth: '1990-01-01',
  address: { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '78701', state: 'US-TX' },
});
type Row = { ref: string; id?: string; status: string; error?: string; refused?: boolean };
const rows = (stdout: string): Record<string, Row> =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row)
      .map((r) => [r.ref, r]),
  );
const api = async (method: string, path: string, body?: unknown): Promise<Record<string, any>> => {
  const res = await fetch(emu.baseUrl + path, {
    method,
    headers: {
      'api-key': emu.keys.sandbox.secret,
      'x-tenant-id': emu.tenantId,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Record<string, any>;
};

describe('a KYC entry the review rejects', () => {
  const doc = (number: string) => ({
    customers: { carol: person('carol') },
    // Opened before the review decides (a rejected customer may open nothing): depends_on says so.
    kyc: {
      carol: {
        customer_id: '${customers.carol.id}',
        documents: [{ type: 'passport', country: 'US', number }],
        depends_on: ['accounts.carol_usd', 'features.carol_collections'],
      },
    },
    features: {
      carol_cards: { customer_id: '${customers.carol.id}', feature: 'cards' },
      carol_collections: { customer_id: '${customers.carol.id}', feature: 'collections' },
    },
    accounts: { carol_usd: { customer_id: '${customers.carol.id}', currency: 'USD' } },
    cards: { carol_card: { customer_id: '${customers.carol.id}', account_id: '${accounts.carol_usd.id}', type: 'virtual' } },
  });

  it('fails with the reason, blocks what needs the approval, makes the rest; exit 1', async () => {
    const file = join(dir, 'carol.yaml');
    writeFileSync(file, stringify(doc('55550000')));
    const r = await runPay(['seed', 'apply', file, '-o', 'ndjson'], { env: env(), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(1);
    const out = rows(r.stdout);
    expect(out['kyc.carol']).toMatchObject({ status: 'failed' });
    expect(out['kyc.carol']!.error).toMatch(/^kyc\.carol kyc_[0-9a-z]{24} rejected: document_rejected/);
    expect(out['features.carol_cards']).toMatchObject({ status: 'blocked', error: 'kyc.carol failed' });
    expect(out['cards.carol_card']).toMatchObject({ status: 'blocked' });
    // No approval needed, and made before the review: made.
    expect(out['accounts.carol_usd']!.status).toBe('created');
    expect(out['features.carol_collections']!.status).toBe('created');
    expect(r.stderr).toMatch(/seed: \d+ created, 0 replayed, 0 updated, 0 replaced, 0 skipped, 1 failed, 2 blocked/);
    expect(r.stderr).toMatch(
      /"hint":"kyc\.carol settled as failed and would again: change that entry \(a KYC document number not ending 0000/,
    );
    // Nothing the rules refused was sent: the card was never asked for.
    expect(emu.received.filter((q) => q.method === 'POST' && q.path === '/v1/cards')).toEqual([]);
  });

  it('the document fixed, the next run starts a new verification (a new key), waits for the approval, then the rest', async () => {
    const file = join(dir, 'carol.yaml');
    writeFileSync(file, stringify(doc('555512345')));
    const r = await runPay(['seed', 'apply', file, '-o', 'ndjson'], { env: env(), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = rows(r.stdout);
    expect(out['kyc.carol']!.status).toBe('created');
    expect(out['features.carol_cards']!.status).toBe('created');
    expect(out['cards.carol_card']!.status).toBe('created');
    const customer = out['customers.carol']!.id!;
    expect(await api('GET', `customers/${customer}`)).toMatchObject({ kyc_status: 'approved' });
    const again = await runPay(['seed', 'apply', file, '-o', 'ndjson'], { env: env(), timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(new Set(Object.values(rows(again.stdout)).map((x) => x.status))).toEqual(new Set(['skipped']));
  });
});

describe('a KYC entry for a customer verified outside the seed', () => {
  it('takes the approved verification instead of starting another; the documents are not sent again', async () => {
    const cus = await api('POST', 'customers', person('dave'));
    await api('POST', `customers/${cus.id}/kyc`, { level: 'basic' });
    await api('POST', `customers/${cus.id}/kyc/documents`, { type: 'passport', country: 'US', number: '123456789' });
    emu.admin.advance(1);
    const verified = await api('GET', `customers/${cus.id}/kyc`);
    expect(verified.status).toBe('approved');
    const file = join(dir, 'dave.yaml');
    writeFileSync(
      file,
      stringify({
        kyc: { dave: { customer_id: cus.id, documents: [{ type: 'passport', country: 'US', number: '999999999' }] } },
        features: { dave_cards: { customer_id: cus.id, feature: 'cards' } },
      }),
    );
    const before = emu.received.length;
    const r = await runPay(['seed', 'apply', file, '-o', 'ndjson'], { env: env(), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = rows(r.stdout);
    expect(out['kyc.dave']).toMatchObject({ id: verified.id, status: 'replayed' });
    expect(out['features.dave_cards']).toMatchObject({ id: `${cus.id}/cards`, status: 'created' });
    const sent = emu.received
      .slice(before)
      .filter((q) => q.method === 'POST')
      .map((q) => q.path);
    expect(sent).toEqual([`/v1/customers/${cus.id}/kyc`, `/v1/customers/${cus.id}/features/cards/activate`]);
    expect((await api('GET', `customers/${cus.id}/kyc`)).documents).toHaveLength(1);
    const state = JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as { entries: Record<string, { body: Record<string, unknown> }> };
    expect(JSON.stringify(state)).not.toContain('999999999');
  });
});

describe('a state file set aside is said when it is moved, never by a run that is refused', () => {
  it('pay --live seed apply on a sandbox state file, money entries, --no-input: exit 2, no set-aside warning, the file where it was', async () => {
    const file = join(dir, 'aside.yaml');
    writeFileSync(
      file,
      stringify({
        customers: { erin: person('erin') },
        features: { erin_collections: { customer_id: '${customers.erin.id}', feature: 'collections' } },
        accounts: { erin_usd: { customer_id: '${customers.erin.id}', currency: 'USD' } },
        collections: { erin_in: { account_id: '${accounts.erin_usd.id}', amount: '10.00', currency: 'USD', method: 'card' } },
      }),
    );
    const state = `${file}.state.json`;
    const sandbox = await runPay(['seed', 'apply', file, '--json'], { env: env(), timeoutMs: 60_000 });
    expect(sandbox.code, sandbox.stderr).toBe(0);
    const before = readFileSync(state, 'utf8');
    const live = cleanEnv({ PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.live.secret, PAY_TENANT_ID: emu.tenantId });
    const refused = await runPay(['--live', 'seed', 'apply', file, '--no-input'], { env: live, timeoutMs: 60_000 });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: refusing to apply 1 live change that move money or retire objects without confirmation: pass --yes$/m,
    );
    expect(refused.stderr).not.toContain('set aside');
    expect(readFileSync(state, 'utf8')).toBe(before);
    expect(existsSync(`${state}.set-aside`)).toBe(false);
    // With --yes it runs, and says so as the file moves.
    const yes = await runPay(['--live', 'seed', 'apply', file, '--no-input', '--yes', '--json'], { env: live, timeoutMs: 60_000 });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toContain(
      `warning: the state file ${state} is set aside: it records sandbox mode, this run is live; it is moved to ${state}.set-aside`,
    );
    expect(readFileSync(`${state}.set-aside`, 'utf8')).toBe(before);
    expect((JSON.parse(yes.stdout) as { state_set_aside?: { moved_to: string } }).state_set_aside?.moved_to).toBe(`${state}.set-aside`);
  });
});

/** The document numbers the emulator received for a customer, in order. */
const docNumbers = (customer: string) =>
  emu.received
    .filter((q) => q.method === 'POST' && q.path === `/v1/customers/${customer}/kyc/documents`)
    .map((q) => (q.body as { number?: string }).number);

describe("a customer's kyc entries run in file order, each its own verification", () => {
  it('a rejected first entry, then a second with its own document: the second waits, verifies anew, and each reports its own outcome', async () => {
    const file = join(dir, 'frank.yaml');
    const kyc = (number: string) => ({ customer_id: '${customers.frank.id}', documents: [{ type: 'passport', country: 'US', number }] });
    writeFileSync(
      file,
      stringify({
        customers: { frank: person('frank') },
        kyc: { first: kyc('X0000'), second: kyc('123456789') },
        features: { frank_cards: { customer_id: '${customers.frank.id}', feature: 'cards' } },
      }),
    );
    const r = await runPay(['seed', 'apply', file, '-o', 'ndjson'], { env: env(), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = rows(r.stdout) as Record<string, Row & { note?: string }>;
    const cus = out['customers.frank']!.id!;
    expect(out['kyc.first']).toMatchObject({ status: 'created', note: expect.stringMatching(/^rejected: document_rejected/) });
    expect(out['kyc.second']).toMatchObject({ status: 'created' });
    expect(out['kyc.second']!.id).not.toBe(out['kyc.first']!.id);
    expect(out['features.frank_cards']!.status).toBe('created');
    expect(docNumbers(cus)).toEqual(['X0000', '123456789']);
    expect(await api('GET', `customers/${cus}/kyc`)).toMatchObject({ id: out['kyc.second']!.id, status: 'approved' });
    expect(await api('GET', `customers/${cus}`)).toMatchObject({ kyc_status: 'approved' });
    // The second started only once the first was decided: no start was refused as a conflict.
    const starts = emu.received.filter((q) => q.method === 'POST' && q.path === `/v1/customers/${cus}/kyc`);
    expect(starts.map((q) => q.status)).toEqual([201, 201]);
  });
});

describe('a kyc entry replaced with --replace', () => {
  it('an edited document number: a new verification, the new document sent, old_id the previous one, the state only what was sent', async () => {
    const file = join(dir, 'gina.yaml');
    const doc = (number: string) => ({
      customers: { gina: person('gina') },
      kyc: { gina: { customer_id: '${customers.gina.id}', documents: [{ type: 'passport', country: 'US', number }] } },
    });
    writeFileSync(file, stringify(doc('55550000')));
    const r1 = await runPay(['seed', 'apply', file, '-o', 'ndjson'], { env: env(), timeoutMs: 60_000 });
    expect(r1.code, r1.stderr).toBe(0);
    const old = rows(r1.stdout)['kyc.gina']!.id!;
    const cus = rows(r1.stdout)['customers.gina']!.id!;
    writeFileSync(file, stringify(doc('123456789')));
    const r2 = await runPay(['seed', 'apply', file, '--replace', '-o', 'ndjson'], { env: env(), timeoutMs: 60_000 });
    expect(r2.code, r2.stderr).toBe(0);
    const row = rows(r2.stdout)['kyc.gina'] as Row & { old_id?: string; action?: string };
    expect(row).toMatchObject({ action: 'replace', status: 'replaced', old_id: old });
    expect(row.id).toMatch(/^kyc_[0-9a-z]{24}$/);
    expect(row.id).not.toBe(old);
    expect(docNumbers(cus)).toEqual(['55550000', '123456789']);
    const now = await api('GET', `customers/${cus}/kyc`);
    expect(now.id).toBe(row.id);
    expect(now.documents.map((d: { number_last4: string }) => d.number_last4)).toEqual(['6789']);
    const state = JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as { entries: Record<string, { object: { id: string } }> };
    expect(state.entries['kyc.gina']!.object.id).toBe(row.id);
    // Approved at basic, edited again: the service starts no other; nothing is sent, the state keeps what was.
    const kept = readFileSync(`${file}.state.json`, 'utf8');
    writeFileSync(file, stringify(doc('987654321')));
    const r3 = await runPay(['seed', 'apply', file, '--replace', '-o', 'ndjson'], { env: env(), timeoutMs: 60_000 });
    expect(r3.code).toBe(1);
    expect(rows(r3.stdout)['kyc.gina']!.error).toMatch(/^the customer's verification kyc_[0-9a-z]{24} is approved \(level basic\)/);
    expect(r3.stderr).toMatch(/"hint":"kyc\.gina: the API starts a verification after a rejection, or an upgrade to level enhanced/);
    expect(docNumbers(cus)).toEqual(['55550000', '123456789']);
    expect(JSON.parse(readFileSync(`${file}.state.json`, 'utf8')).entries['kyc.gina']).toEqual(JSON.parse(kept).entries['kyc.gina']);
  });
});
