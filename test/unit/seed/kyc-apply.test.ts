// pay seed apply's KYC entries against an in-process emulator, through the harness: a customer's
// kyc entries run one after another in file order (each after the one before is decided), each
// starts its own verification after a rejection, submits its own documents and reports its own
// outcome (generated sequences of rejecting and approving numbers); a replaced kyc entry really
// starts a verification and submits its new documents, or fails and records nothing; a state file
// set aside never overwrites an earlier set-aside copy. The seed's waits sleep on a clock that
// moves the emulator's clock, so the reviews are decided without real waiting.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { pay } from '../commands/harness.js';
import { rowsByRef, seedWorld } from '../../helpers/seed-world.js';

const world = seedWorld('pay-seed-kyc-');
let files = 0;
const seed = (args: string[]) =>
  pay(['seed', 'apply', ...args, '-o', 'ndjson'], { env: world.env(), loopback: true, clock: world.clock() });

type Row = { ref: string; id?: string; status: string; error?: string; note?: string; old_id?: string };
const rows = (stdout: string) => rowsByRef<Row>(stdout);
let people = 0;
const person = () => {
  const n = `p${++people}`;
  return {
    first_name: n,
    last_name: 'Ng',
    email: `${n}@example.com`,
    phone: '+14155550100',
    type: 'individual',
    date_of_birth: '1990-01-01',
    address: { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '78701', state: 'US-TX' },
  };
};
const newFile = (doc: unknown): string => {
  const file = join(world.dir, `s${++files}.yaml`);
  writeFileSync(file, stringify(doc));
  return file;
};
/** The document numbers the emulator received for a customer (a new customer per case: its requests are this case's). */
const docPosts = (customer: string) =>
  world.emu.received
    .filter((q) => q.method === 'POST' && q.path === `/v1/customers/${customer}/kyc/documents`)
    .map((q) => (q.body as { number?: string }).number);
const current = (customer: string) =>
  fetch(`${world.emu.baseUrl}customers/${customer}/kyc`.replace('/v1//', '/v1/'), {
    headers: { 'api-key': world.emu.keys.sandbox.secret, 'x-tenant-id': world.emu.tenantId },
  }).then((r) => r.json() as Promise<Record<string, any>>);

const REJECTS = '55550000';
const APPROVES = '123456789';
const kycEntry = (number: string, extra: Record<string, unknown> = {}) => ({
  customer_id: '${customers.c.id}',
  documents: [{ type: 'passport', country: 'US', number }],
  ...extra,
});

describe("a customer's kyc entries", () => {
  it("the tester's file: the second waits for the first's rejection, then verifies with its own document; each reports its own outcome", async () => {
    const file = newFile({
      customers: { c: person() },
      kyc: { first: kycEntry('X0000'), second: kycEntry(APPROVES) },
      features: { cards: { customer_id: '${customers.c.id}', feature: 'cards' } },
    });
    const r = await seed([file]);
    expect(r.code, r.stderr).toBe(0);
    const out = rows(r.stdout);
    const cus = out['customers.c']!.id!;
    expect(out['kyc.first']).toMatchObject({ status: 'created', note: expect.stringMatching(/^rejected: document_rejected/) });
    expect(out['kyc.second']).toMatchObject({ status: 'created' });
    expect(out['kyc.second']!.note).toBeUndefined();
    expect(out['kyc.second']!.id).not.toBe(out['kyc.first']!.id);
    expect(out['features.cards']!.status).toBe('created');
    expect(docPosts(cus)).toEqual(['X0000', APPROVES]);
    expect(await current(cus)).toMatchObject({ id: out['kyc.second']!.id, status: 'approved' });
    // The state file records each entry's own verification; a re-run skips both.
    const state = JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as { entries: Record<string, { object: { id: string } }> };
    expect(state.entries['kyc.first']!.object.id).toBe(out['kyc.first']!.id);
    expect(state.entries['kyc.second']!.object.id).toBe(out['kyc.second']!.id);
    const again = await seed([file]);
    expect(again.code, again.stderr).toBe(0);
    expect(new Set(Object.values(rows(again.stdout)).map((x) => x.status))).toEqual(new Set(['skipped']));
  });

  it('generated sequences of rejecting and approving numbers: file order, own verification and document, own outcome', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), fc.boolean(), async (rejecting, withCards) => {
        const names = rejecting.map((_, i) => `k${i}`);
        const numbers = rejecting.map((rej, i) => (rej ? `${i}${REJECTS}` : `${i}${APPROVES}`));
        const file = newFile({
          customers: { c: person() },
          kyc: Object.fromEntries(names.map((n, i) => [n, kycEntry(numbers[i]!)])),
          ...(withCards ? { features: { cards: { customer_id: '${customers.c.id}', feature: 'cards' } } } : {}),
        });
        const r = await seed([file]);
        const out = rows(r.stdout);
        const cus = out['customers.c']!.id!;
        // The model: what the API allows, entry by entry.
        let cur: { id?: string; status: 'none' | 'in_review' | 'approved' | 'rejected' } = { status: 'none' };
        const sent: string[] = [];
        let failed = false;
        for (const [i, n] of names.entries()) {
          const row = out[`kyc.${n}`]!;
          const last = i === names.length - 1;
          const decided = !last || withCards;
          if (cur.status === 'approved') {
            // Approved at basic: the entry takes that verification (README), sends nothing.
            expect(row, n).toMatchObject({ id: cur.id, status: 'replayed' });
            continue;
          }
          expect(row.status, `${n}: ${r.stderr}`).toBe(last && withCards && rejecting[i] ? 'failed' : 'created');
          if (row.status === 'failed') {
            failed = true;
            expect(row.error).toMatch(new RegExp(`^kyc\\.${n} kyc_[0-9a-z]{24} rejected: document_rejected`));
          } else expect(row.id).not.toBe(cur.id);
          sent.push(numbers[i]!);
          if (decided && rejecting[i] && row.status !== 'failed') expect(row.note, n).toMatch(/^rejected: /);
          else expect(row.note, n).toBeUndefined();
          cur = { ...(row.id ? { id: row.id } : {}), status: decided ? (rejecting[i] ? 'rejected' : 'approved') : 'in_review' };
        }
        expect(docPosts(cus)).toEqual(sent);
        if (withCards) expect(out['features.cards']!.status).toBe(failed ? 'blocked' : 'created');
        expect(r.code, r.stderr).toBe(failed ? 1 : 0);
        if (failed)
          expect(r.stderr).toMatch(/settled as failed and would again: change that entry \(a KYC document number not ending 0000\)/);
        const now = await current(cus);
        expect(now.status).toBe(cur.status);
      }),
      { numRuns: 12 },
    );
  });
});

describe('a replaced kyc entry (--replace)', () => {
  it('after a rejection: a verification of its own, the new document sent, old_id the previous one, the state what was sent', async () => {
    const doc = (number: string) => ({ customers: { c: person() }, kyc: { v: kycEntry(number) } });
    const first = doc(REJECTS);
    const file = newFile(first);
    const r1 = await seed([file]);
    expect(r1.code, r1.stderr).toBe(0);
    const old = rows(r1.stdout)['kyc.v']!.id!;
    const cus = rows(r1.stdout)['customers.c']!.id!;
    writeFileSync(file, stringify({ ...first, kyc: { v: kycEntry(APPROVES) } }));
    const r2 = await seed([file, '--replace']);
    expect(r2.code, r2.stderr).toBe(0);
    const row = rows(r2.stdout)['kyc.v']!;
    expect(row).toMatchObject({ action: 'replace', status: 'replaced', old_id: old });
    expect(row.id).toMatch(/^kyc_/);
    expect(row.id).not.toBe(old);
    expect(docPosts(cus)).toEqual([REJECTS, APPROVES]);
    const now = await current(cus);
    expect(now.id).toBe(row.id);
    expect(now.documents.map((d: { number_last4: string }) => d.number_last4)).toEqual([APPROVES.slice(-4)]);
    const state = JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as { entries: Record<string, { object: { id: string } }> };
    expect(state.entries['kyc.v']!.object.id).toBe(row.id);
    const again = await seed([file]);
    expect(again.code, again.stderr).toBe(0);
    expect(rows(again.stdout)['kyc.v']).toMatchObject({ status: 'skipped', id: row.id });
  });

  it('approved at that level: fails naming why, sends no document, and the state file keeps what was sent', async () => {
    const first = { customers: { c: person() }, kyc: { v: kycEntry(APPROVES) } };
    const file = newFile(first);
    const r1 = await seed([file]);
    expect(r1.code, r1.stderr).toBe(0);
    const cus = rows(r1.stdout)['customers.c']!.id!;
    const before = readFileSync(`${file}.state.json`, 'utf8');
    writeFileSync(file, stringify({ ...first, kyc: { v: kycEntry('987654321') } }));
    const r2 = await seed([file, '--replace']);
    expect(r2.code).toBe(1);
    const row = rows(r2.stdout)['kyc.v']!;
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/^the customer's verification kyc_[0-9a-z]{24} is approved \(level basic\) and the service starts no other/);
    expect(r2.stderr).toMatch(
      /"hint":"kyc\.v: the API starts a verification after a rejection, or an upgrade to level enhanced: set level: enhanced/,
    );
    expect(docPosts(cus)).toEqual([APPROVES]);
    expect(JSON.parse(readFileSync(`${file}.state.json`, 'utf8')).entries['kyc.v']).toEqual(JSON.parse(before).entries['kyc.v']);
    // An upgrade is what the API allows: a new verification, its document sent.
    writeFileSync(file, stringify({ ...first, kyc: { v: kycEntry('987654321', { level: 'enhanced' }) } }));
    const r3 = await seed([file, '--replace']);
    expect(r3.code, r3.stderr).toBe(0);
    const up = rows(r3.stdout)['kyc.v']!;
    expect(up).toMatchObject({ status: 'replaced', old_id: rows(r1.stdout)['kyc.v']!.id });
    expect(up.id).not.toBe(up.old_id);
    expect(docPosts(cus)).toEqual([APPROVES, '987654321']);
  });
});

describe('a state file set aside', () => {
  it('never overwrites an earlier set-aside copy: the next free name, every copy kept', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 }), async (taken) => {
        const file = newFile({ customers: { c: person() } });
        const state = `${file}.state.json`;
        const names = [`${state}.set-aside`, ...Array.from({ length: 3 }, (_, i) => `${state}.set-aside.${i + 1}`)];
        for (let i = 0; i < taken; i++) writeFileSync(names[i]!, `copy ${i}\n`);
        const foreign = `${JSON.stringify({ version: 2, tenant: 'biz_other', mode: 'sandbox', base_url: world.emu.baseUrl, entries: {} })}\n`;
        writeFileSync(state, foreign);
        const r = await seed([file]);
        expect(r.code, r.stderr).toBe(0);
        for (let i = 0; i < taken; i++) expect(readFileSync(names[i]!, 'utf8')).toBe(`copy ${i}\n`);
        expect(readFileSync(names[taken]!, 'utf8')).toBe(foreign);
        expect(existsSync(names[taken + 1] ?? `${state}.set-aside.4`)).toBe(false);
        expect(r.stderr).toContain(`it is moved to ${names[taken]!}`);
        expect(JSON.parse(readFileSync(state, 'utf8')).tenant).toBe(world.emu.tenantId);
      }),
      { numRuns: 6 },
    );
  });
});
