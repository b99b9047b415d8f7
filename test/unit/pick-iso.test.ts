// The ISO 3166 tables (src/shared/iso-3166.ts), the state check that uses them, the ranking of
// searchable lists (src/io/prompt.ts rankItems) and the picker's entries (src/verbs/pick.ts):
// what a list offers is only what the verb can act on, with ids whole and text from the service
// escaped, for generated hostile answers (fast-check).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PickSpec } from '../../src/cmdutil/spec.js';
import { customers } from '../../src/commands/customers/index.js';
import { rankItems, searchable } from '../../src/io/prompt.js';
import { STATE_PATTERN } from '../../src/shared/domain.js';
import { isoTablesLoaded, loadIsoTables, type IsoTables } from '../../src/shared/iso-3166.js';
import { COUNTRY_CODES } from '../../src/shared/iso.js';
import { checkState } from '../../src/shared/validate.js';
import { entryLabels, pickEntries } from '../../src/verbs/pick.js';
import { displayWidth } from '../../src/io/width.js';
import { fillBody } from '../../src/verbs/values.js';

let t: IsoTables;
beforeAll(async () => {
  t = await loadIsoTables();
});

/** Characters that must never reach a terminal raw (escape.ts's one-line set, a subset is enough here). */
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

describe('ISO 3166 tables', () => {
  it('hold the 249 ISO 3166-1 countries (the same codes validation uses) and their ISO 3166-2 subdivisions', () => {
    expect(t.countries.map((c) => c.code).sort()).toEqual([...COUNTRY_CODES].sort());
    expect(t.source).toMatch(/^iso-codes \d+\.\d+/);
    expect(t.subdivisionsOf('US').length).toBe(57);
    expect(t.subdivision('US-VA')).toEqual({ code: 'US-VA', name: 'Virginia' });
    expect(t.subdivision('GB-LND')?.name).toBe('London, City of');
    expect(t.country('KR')).toEqual({ code: 'KR', name: 'Korea, Republic of', aliases: ['South Korea'] });
    expect(t.subdivisionsOf('AQ')).toEqual([]);
    const pattern = new RegExp(STATE_PATTERN);
    for (const c of t.countries) for (const s of t.subdivisionsOf(c.code)) expect(s.code).toMatch(pattern);
  });

  it('load once: the same object every time', async () => {
    expect(await loadIsoTables()).toBe(t);
    expect(isoTablesLoaded()).toBe(t);
  });

  it('resolveState understands people: us-va, the bare VA after US, never another country', () => {
    expect(t.resolveState('US-VA')).toBe('US-VA');
    expect(t.resolveState(' us-va ', 'US')).toBe('US-VA');
    expect(t.resolveState('va', 'US')).toBe('US-VA');
    expect(t.resolveState('LND', 'GB')).toBe('GB-LND');
    expect(t.resolveState('VA')).toBeUndefined();
    expect(t.resolveState('US-VA', 'GB')).toBeUndefined();
    expect(t.resolveState('ZZ', 'US')).toBeUndefined();
    expect(t.resolveState('VA', 'AQ')).toBeUndefined();
  });

  it('checkState with the tables accepts exactly the listed subdivisions of the country (generated codes)', () => {
    const all = t.countries.flatMap((c) => t.subdivisionsOf(c.code).map((s) => s.code));
    fc.assert(
      fc.property(
        fc.constantFrom(...all),
        (code) => checkState(code.slice(0, 2), t)(code) === undefined && checkState(undefined, t)(code) === undefined,
      ),
      { numRuns: 500 },
    );
    const shaped = fc
      .tuple(fc.constantFrom(...t.countries.map((c) => c.code)), fc.stringMatching(/^[A-Z0-9]{1,3}$/))
      .map(([cc, sub]) => `${cc}-${sub}`);
    fc.assert(
      fc.property(shaped, (code) => {
        const problem = checkState(code.slice(0, 2), t)(code);
        return t.subdivision(code) ? problem === undefined : /is not an ISO 3166-2 subdivision/.test(problem ?? '');
      }),
      { numRuns: 1000 },
    );
    expect(checkState('US', t)('US-ZZ')).toBe('is not an ISO 3166-2 subdivision of US (e.g. US-AK, US-AL, US-AR)');
    expect(checkState('AQ', t)('AQ-X')).toBe('is not an ISO 3166-2 subdivision: AQ has none');
    expect(checkState('GB', t)('US-CA')).toBe('must start with the country code GB- (got US-)');
    // Without the tables: the shape only (the emulator before it loaded them).
    expect(checkState('US')('US-ZZ')).toBeUndefined();
  });

  it('flags: --state va after --country us is sent as US-VA; an unknown one is exit 2 naming the flag', () => {
    const create = customers.verbs.find((v) => v.name === 'create')!;
    expect(fillBody(create, { country: 'us', state: 'va' }, {}).address).toEqual({ country: 'US', state: 'US-VA' });
    expect(fillBody(create, { country: 'GB', state: 'gb-lnd' }, {}).address).toEqual({ country: 'GB', state: 'GB-LND' });
    expect(() => fillBody(create, { country: 'US', state: 'ZZ' }, {})).toThrow('--state "ZZ" is not an ISO 3166-2 subdivision of US');
    expect(() => fillBody(create, { country: 'GB', state: 'US-CA' }, {})).toThrow('--state "US-CA" must start with the country code GB-');
    expect(() => fillBody(create, {}, { address: { country: 'US', state: 'US-ZZ' } })).toThrow(
      '--data: address.state is not an ISO 3166-2',
    );
  });
});

describe('rankItems (searchable lists)', () => {
  const items = [
    { value: 'UM', label: 'UM  United States Minor Outlying Islands', keys: ['UM', 'United States Minor Outlying Islands'] },
    { value: 'US', label: 'US  United States', keys: ['US', 'United States'] },
    { value: 'TR', label: 'TR  Türkiye', keys: ['TR', 'Türkiye'] },
    { value: 'AE', label: 'AE  United Arab Emirates', keys: ['AE'] },
  ];

  it('an exact key first, then a word start, then anywhere; accents and case aside', () => {
    expect(rankItems(items, 'united states').map((i) => i.value)).toEqual(['US', 'UM']);
    expect(rankItems(items, 'us').map((i) => i.value)).toEqual(['US']);
    expect(rankItems(items, 'TURKIYE').map((i) => i.value)).toEqual(['TR']);
    expect(rankItems(items, 'nited').map((i) => i.value)).toEqual(['UM', 'US', 'AE']);
    expect(rankItems(items, 'arab').map((i) => i.value)).toEqual(['AE']);
    expect(rankItems(items, '  ').map((i) => i.value)).toEqual(['UM', 'US', 'TR', 'AE']);
  });

  it('offers only items that match what was typed, each once (generated terms)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 6 }), (term) => {
        const out = rankItems(items, term);
        const t = searchable(term.trim());
        return (
          new Set(out).size === out.length &&
          out.every((i) => !t || searchable(i.label).includes(t) || (i.keys ?? []).some((k) => searchable(k) === t))
        );
      }),
    );
  });
});

describe('the picker entries', () => {
  const pick: PickSpec = {
    list: 'transfers',
    query: { status: 'pending' },
    where: { status: ['pending'] },
    show: [
      { header: 'AMOUNT', path: 'amount', kind: 'money' },
      { header: 'TO', path: 'destination_id' },
      { header: 'STATUS', path: 'status', kind: 'status' },
    ],
    what: 'pending transfers',
  };
  const id = (n: number) => `tr_${String(n).padStart(24, '0')}`;
  const transfer = (n: number, extra: Record<string, unknown> = {}) => ({
    id: id(n),
    amount: '7.25',
    currency: 'USD',
    destination_id: 'acc_x',
    status: 'pending',
    created_at: '2026-11-20T10:00:00.000Z',
    ...extra,
  });

  it('only objects the verb can act on, with ids of its kind; amount with currency, time for people', () => {
    const entries = pickEntries(
      [
        transfer(1),
        transfer(2, { status: 'completed' }),
        { ...transfer(3), id: 'tr_../../x' },
        null,
        'x',
        transfer(4, { status: ['pending'] }),
      ],
      pick,
      'tr_',
    );
    expect(entries).toEqual([
      { id: id(1), cells: ['7.25 USD', 'acc_x', 'pending', '2026-11-20 10:00:00Z'], whole: [true, true, true, true], rank: [3, 6, 2, 4] },
    ]);
    expect(entryLabels(entries, 120)).toEqual([
      { value: id(1), label: `${id(1)}  7.25 USD  acc_x  pending  2026-11-20 10:00:00Z`, keys: [id(1)] },
    ]);
  });

  const hostile = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.constantFrom('\u001b]0;pwned\u0007', '\u001b[2J', 'a\u202eb', '\u0085x', 'line\nbreak', '\u2028', '\u009b31m'),
    fc.string({ unit: fc.constantFrom('山', '😀', 'e\u0301', 'ｗ', 'x', ' '), maxLength: 60 }),
  );

  it('text from the service never reaches the terminal raw, ids are never cut, and lines fit the width (by display width) unless the id alone is wider (generated answers)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ n: fc.nat(999), amount: hostile, currency: hostile, destination_id: hostile, created_at: hostile }), {
          maxLength: 8,
        }),
        fc.integer({ min: 1, max: 200 }),
        (rows, width) => {
          const entries = pickEntries(
            rows.map((r) => ({ ...r, id: id(r.n), status: 'pending' })),
            pick,
            'tr_',
          );
          if (entries.length === 0) return true;
          return entryLabels(entries, width).every(
            (item, i) =>
              !RAW_CONTROL.test(item.label) &&
              item.label.startsWith(entries[i]!.id) &&
              item.value === entries[i]!.id &&
              // The prompt draws two columns before each line; a terminal narrower than the id gets it and `…`.
              displayWidth(item.label) <= Math.max(width - 3, entries[i]!.id.length + 1),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
