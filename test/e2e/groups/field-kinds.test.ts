// One truth for every input (issue 25), a sample through the built CLI against the emulator: the
// same values by flag, by --data, in a CSV row of --from-file and in a seed entry are stored the same
// (normalised: usa → US, TX → US-TX, a phone with spaces → E.164) or refused in the same words; the
// emulator takes only the canonical form and says the same words, "did you mean" included, when
// sent anything else. (Every value of every kind through every path: test/unit/field-paths.test.ts.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalCountry, normalEnum, normalPhone, normalState } from '../../../src/shared/fields.js';
import { loadIsoTables, type IsoTables } from '../../../src/shared/iso-3166.js';
import { customerBody, startWorld, type Obj, type World } from './helpers.js';

let w: World;
let dir: string;
let tables: IsoTables;
beforeAll(async () => {
  w = await startWorld();
  dir = mkdtempSync(join(tmpdir(), 'pay-field-kinds-'));
  tables = await loadIsoTables();
});
afterAll(async () => {
  await w?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Sample {
  name: string;
  /** The flags that set it, the body fields (dotted) and their values. */
  flags: string[];
  fields: Record<string, string>;
  /** The field judged, and what its validator says. */
  field: string;
  normal: () => { value?: string; error?: string };
}

const SAMPLES: Sample[] = [
  {
    name: 'usa',
    flags: ['--country', 'usa', '--state', 'VA'],
    fields: { 'address.country': 'usa', 'address.state': 'VA' },
    field: 'address.country',
    normal: () => normalCountry('usa', tables),
  },
  {
    name: 'tx',
    flags: ['--country', 'US', '--state', 'TX'],
    fields: { 'address.country': 'US', 'address.state': 'TX' },
    field: 'address.state',
    normal: () => normalState('TX', 'US', tables),
  },
  {
    name: 'virgina',
    flags: ['--country', 'United States', '--state', 'virgina'],
    fields: { 'address.country': 'United States', 'address.state': 'virgina' },
    field: 'address.state',
    normal: () => normalState('virgina', 'US', tables),
  },
  {
    name: 'phone',
    flags: ['--phone', '+1 415 555 0199'],
    fields: { phone: '+1 415 555 0199' },
    field: 'phone',
    normal: () => normalPhone('+1 415 555 0199'),
  },
  {
    name: 'indivdual',
    flags: ['--type', 'indivdual'],
    fields: { type: 'indivdual' },
    field: 'type',
    normal: () => normalEnum('indivdual', ['individual', 'business'], true),
  },
  {
    name: 'uk',
    flags: ['--country', 'uk', '--state', 'gb-lnd'],
    fields: { 'address.country': 'uk', 'address.state': 'gb-lnd' },
    field: 'address.country',
    normal: () => normalCountry('uk', tables),
  },
];

/** The error's message: --json makes it a JSON object on stderr. */
const message = (stderr: string): string => (JSON.parse(stderr) as { error: { message: string } }).error.message;
const get = (o: Obj, path: string): unknown => path.split('.').reduce<unknown>((v, k) => (v as Obj | undefined)?.[k], o);
const set = (o: Obj, path: string, value: string): void => {
  const parts = path.split('.');
  let at = o;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Obj;
  at[parts.at(-1)!] = value;
};
/** A customer of the sample: the fixture's body with the sample's fields over it. */
function bodyOf(s: Sample, i: number): Obj {
  const b = customerBody({ email: `field${i}.${s.name}@example.com` });
  for (const [k, v] of Object.entries(s.fields)) set(b, k, v);
  return b;
}
const FLAG_OF: Record<string, string> = {
  first_name: '--first-name',
  last_name: '--last-name',
  email: '--email',
  phone: '--phone',
  type: '--type',
  date_of_birth: '--date-of-birth',
  'address.address_line1': '--address-line1',
  'address.city': '--city',
  'address.country': '--country',
  'address.postal_code': '--postal-code',
  'address.state': '--state',
};
function flagsOf(body: Obj): string[] {
  return Object.entries(FLAG_OF).flatMap(([field, flag]) => (get(body, field) === undefined ? [] : [flag, String(get(body, field))]));
}

describe('the same value on every path (built CLI, emulator)', () => {
  it('flag, --data, CSV row and seed entry store the same value or refuse in the same words; the emulator takes only the canonical form', async () => {
    const bodies = SAMPLES.map((s, i) => bodyOf(s, i));
    // By flag.
    const byFlag = await Promise.all(bodies.map((b) => w.pay(['customers', 'create', ...flagsOf(b), '--json'])));
    // By --data.
    const byData = await Promise.all(
      bodies.map((b, i) =>
        w.pay(['customers', 'create', '--data', JSON.stringify({ ...b, email: `data.${b.email as string}` }), '--json'], {
          env: { N: String(i) },
        }),
      ),
    );
    // In a CSV row each.
    const columns = Object.keys(FLAG_OF);
    const csv = [
      columns.join(','),
      ...bodies.map((b) =>
        columns.map((c) => `"${(get({ ...b, email: `csv.${b.email as string}` }, c) as string | undefined) ?? ''}"`).join(','),
      ),
    ].join('\r\n');
    writeFileSync(join(dir, 'rows.csv'), `${csv}\r\n`);
    const byCsv = await w.pay(['customers', 'create', '--from-file', join(dir, 'rows.csv'), '-o', 'ndjson']);
    const csvLines = byCsv.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Obj);
    // In a seed file.
    const seed = {
      customers: Object.fromEntries(SAMPLES.map((s, i) => [s.name, { ...bodies[i], email: `seed.${bodies[i]!.email as string}` }])),
    };
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    const plan = await w.pay(['seed', 'plan', join(dir, 'seed.json'), '-o', 'ndjson']);
    const planRows = Object.fromEntries(
      plan.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Obj)
        .map((r) => [r.ref, r]),
    );
    const bySeed = await w.pay(['seed', 'apply', join(dir, 'seed.json'), '-o', 'ndjson']);
    const seedRows = Object.fromEntries(
      bySeed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Obj)
        .map((r) => [r.ref, r]),
    );

    for (const [i, s] of SAMPLES.entries()) {
      const want = s.normal();
      const flag = byFlag[i]!;
      const data = byData[i]!;
      const row = csvLines.find((l) => l.line === i + 2)!;
      const entry = seedRows[`customers.${s.name}`]!;
      if (want.value !== undefined) {
        expect(flag.code, `${s.name} flag: ${flag.stderr}`).toBe(0);
        expect(get(JSON.parse(flag.stdout) as Obj, s.field), `${s.name} flag`).toBe(want.value);
        expect(data.code, `${s.name} --data: ${data.stderr}`).toBe(0);
        expect(get(JSON.parse(data.stdout) as Obj, s.field), `${s.name} --data`).toBe(want.value);
        expect(row, `${s.name} CSV`).toMatchObject({ status: 'created' });
        const made = await w.api('GET', `customers/${row.id as string}`);
        expect(get(made, s.field), `${s.name} CSV`).toBe(want.value);
        expect(planRows[`customers.${s.name}`], `${s.name} plan`).toMatchObject({ action: 'create' });
        expect(entry, `${s.name} seed`).toMatchObject({ status: 'created' });
        const seeded = await w.api('GET', `customers/${entry.id as string}`);
        expect(get(seeded, s.field), `${s.name} seed`).toBe(want.value);
        // The emulator: the raw value (not canonical) is refused in the same words, naming the canonical one.
        const raw = await w.raw('POST', 'customers', bodyOf(s, 100 + i));
        expect(raw.status, `${s.name} emulator`).toBe(422);
        const fe = (raw.body.errors as Obj[]).find((e) => e.field === s.field)!;
        expect(String(fe.message).endsWith(`; did you mean ${want.value}?`), `${s.name} emulator: ${String(fe.message)}`).toBe(true);
      } else {
        const words = want.error!;
        expect(flag.code, `${s.name} flag`).toBe(2);
        expect(message(flag.stderr), `${s.name} flag`).toMatch(/^--[a-z-]+ ".*" /);
        expect(message(flag.stderr).endsWith(` ${words}`), `${s.name} flag: ${flag.stderr}`).toBe(true);
        expect(data.code, `${s.name} --data`).toBe(2);
        expect(message(data.stderr), `${s.name} --data`).toBe(`--data: ${s.field} ${words}`);
        expect(row, `${s.name} CSV`).toMatchObject({ status: 'failed' });
        expect(String(row.error), `${s.name} CSV`).toContain(`${s.field} ${words}`);
        expect(planRows[`customers.${s.name}`], `${s.name} plan`).toMatchObject({ action: 'refused', detail: `${s.field} ${words}` });
        expect(entry, `${s.name} seed`).toMatchObject({
          status: 'failed',
          error: `${s.field} ${words} (seed plan refuses it; nothing was sent)`,
        });
        if (s.name === 'indivdual') {
          // The emulator refuses the near miss too, in the same words.
          const raw = await w.raw('POST', 'customers', bodyOf(s, 100 + i));
          expect(raw.status).toBe(422);
          expect((raw.body.errors as Obj[]).find((e) => e.field === 'type')?.message).toBe(words);
        }
      }
    }
    expect(plan.code).toBe(SAMPLES.some((s) => s.normal().error) ? 2 : 0);
  });
});
