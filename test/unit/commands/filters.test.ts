// The support filters: --since/--until on every list of objects (the API's created_at range,
// `from`/`to`), --object on webhooks list (`object_id`). Values are checked before anything is
// sent (exit 2); a duration back from now is sent as the RFC 3339 time it names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allGroups } from '../../../src/commands/groups.js';
import { checkTimeBound, timeBoundValue } from '../../../src/shared/validate.js';
import { pay } from './harness.js';

const TR = 'tr_0123456789abcdefghijklmn';

const lists = allGroups.flatMap((g) => g.verbs.filter((v) => v.kind === 'list').map((v) => ({ group: g.name, verb: v })));

describe('which lists take a time range', () => {
  it('every list of objects: --since/--until (transactions: --from/--to, the same filter), features list none', () => {
    for (const { group, verb } of lists) {
      const range = (verb.flags ?? []).filter((f) => f.query === 'from' || f.query === 'to').map((f) => /--[a-z]+/.exec(f.flags)![0]);
      if (verb.operationId === 'listFeatures') expect(range).toEqual([]);
      else if (group === 'transactions') expect(range).toEqual(['--from', '--to']);
      else expect(range, `${group} ${verb.name}`).toEqual(['--since', '--until']);
      if (range.length) expect(verb.constraints).toContainEqual({ kind: 'before', from: 'from', to: 'to' });
    }
  });
});

describe('webhooks list --since/--until/--object', () => {
  it('sends from, to and object_id as given', async () => {
    const r = await pay(['webhooks', 'list', '--object', TR, '--since', '2026-01-01', '--until', '2026-01-31T12:00:00Z', '--json']);
    expect(r.code).toBe(0);
    expect(Object.fromEntries(r.requests[0]!.query)).toMatchObject({ object_id: TR, from: '2026-01-01', to: '2026-01-31T12:00:00Z' });
  });

  it('a duration is sent as the time that long before now', async () => {
    const before = Date.now();
    const r = await pay(['webhooks', 'list', '--since', '2h', '--json']);
    const after = Date.now();
    expect(r.code).toBe(0);
    const from = Date.parse(r.requests[0]!.query.get('from')!);
    expect(from).toBeGreaterThanOrEqual(before - 2 * 3_600_000);
    expect(from).toBeLessThanOrEqual(after - 2 * 3_600_000);
    expect(r.requests[0]!.query.get('from')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('refuses a bad value, an id of no object type, and --since not before --until: exit 2, nothing sent', async () => {
    for (const argv of [
      ['--since', 'yesterday'],
      ['--since', '2h ago'],
      ['--until', '0h'],
      ['--since', '2026-02-30'],
      ['--since', '1000000w'],
      ['--object', 'evt_0123456789abcdefghijklmn'],
      ['--object', 'tr_0123'],
      ['--since', '2026-03-01', '--until', '2026-02-01'],
      ['--since', '1h', '--until', '2h'],
    ]) {
      const r = await pay(['webhooks', 'list', ...argv]);
      expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
      expect(r.requests).toHaveLength(0);
      expect(r.stderr).toMatch(/^error: --(since|until|object)/);
    }
  });

  it('the same flags on the other lists', async () => {
    const r = await pay(['transfers', 'list', '--since', '7d', '--until', '2099-01-01']);
    expect(r.code).toBe(0);
    expect(r.requests[0]!.query.get('to')).toBe('2099-01-01');
    expect(Date.parse(r.requests[0]!.query.get('from')!)).toBeLessThan(Date.now() - 6 * 86_400_000);
  });
});

describe('time bounds over generated input', () => {
  it('accepts exactly dates, RFC 3339 times and <n><s|m|h|d|w> within 100 years; converts durations only', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999 }), fc.constantFrom('s', 'm', 'h', 'd', 'w'), (n, unit) => {
        const v = `${n}${unit}`;
        const ms = n * { s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7, w: 6.048e8 }[unit];
        const ok = ms <= 100 * 365.25 * 8.64e7;
        expect(checkTimeBound(v) === undefined).toBe(ok);
        if (ok) expect(Date.parse(timeBoundValue(v, 4_000_000_000_000))).toBe(4_000_000_000_000 - ms);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (v) => {
        const valid = checkTimeBound(v) === undefined;
        const shaped =
          /^[1-9][0-9]{0,5}[smhdw]$/.test(v) || /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(v);
        if (valid) expect(shaped).toBe(true);
        // Anything that is not a duration is sent as typed.
        if (valid && !/^[1-9]/.test(v)) expect(timeBoundValue(v)).toBe(v);
      }),
    );
  });
});
