// The support filters: --since/--until on every list of objects (the API's created_at range,
// `from`/`to`), --object on webhooks list (`object_id`). Values are checked before anything is
// sent (exit 2); a duration back from now is sent as the RFC 3339 time it names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allGroups } from '../../../src/commands/groups.js';
import { parseDuration } from '../../../src/shared/duration.js';
import { checkTimeBound, timeBoundValue } from '../../../src/shared/validate.js';
import { pay } from './harness.js';

const TR = 'tr_0123456789abcdefghijklmn';

const lists = allGroups.flatMap((g) => g.verbs.filter((v) => v.kind === 'list').map((v) => ({ group: g.name, verb: v })));

describe('which lists take a time range', () => {
  it('every list of objects: --since/--until (transactions: --from/--to too, the same filter), features list none', () => {
    for (const { group, verb } of lists) {
      const range = (verb.flags ?? []).filter((f) => f.query === 'from' || f.query === 'to').map((f) => /--[a-z]+/.exec(f.flags)![0]);
      if (verb.operationId === 'listFeatures') expect(range).toEqual([]);
      else if (group === 'transactions') expect(range).toEqual(['--from', '--to', '--since', '--until']);
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

describe('transactions list: --since/--until are --from/--to', () => {
  it('sends the same from and to whichever name is used; both names of one filter are exit 2, nothing sent', async () => {
    const a = await pay(['transactions', 'list', '--since', '2026-01-01', '--until', '2026-02-01T00:00:00Z', '--json']);
    const b = await pay(['transactions', 'list', '--from', '2026-01-01', '--to', '2026-02-01T00:00:00Z', '--json']);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(Object.fromEntries(a.requests[0]!.query)).toEqual(Object.fromEntries(b.requests[0]!.query));
    expect(a.requests[0]!.query.get('from')).toBe('2026-01-01');
    const mixed = await pay(['transactions', 'list', '--from', '2026-01-01', '--until', '1h', '--json']);
    expect(mixed.code, mixed.stderr).toBe(0);
    for (const [argv, names] of [
      [['--from', '2026-01-01', '--since', '1h'], '--from and --since'],
      [['--to', '1h', '--until', '2h'], '--to and --until'],
    ] as const) {
      const r = await pay(['transactions', 'list', ...argv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`error: ${names} are the same filter: pass one of them\n`);
      expect(r.requests).toEqual([]);
    }
    // The range check holds across the names.
    const backwards = await pay(['transactions', 'list', '--since', '2026-03-01', '--to', '2026-02-01']);
    expect(backwards.code).toBe(2);
    expect(backwards.requests).toEqual([]);
  });
});

/** RFC 3339 date-times over generated parts, `T` and `Z` in either case (§5.6), with and without seconds, fractions and offsets. */
const rfc3339 = fc
  .record({
    at: fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }),
    t: fc.constantFrom('T', 't'),
    z: fc.constantFrom('Z', 'z', '+00:00', '-05:30', '+14:00'),
    seconds: fc.constantFrom('', ':07', ':59.5', ':00.123456789'),
  })
  .map(({ at, t, z, seconds }) => {
    const iso = at.toISOString();
    return `${iso.slice(0, 10)}${t}${iso.slice(11, 16)}${seconds}${z}`;
  });

describe('RFC 3339 times in either case', () => {
  it('accepted by every time check of pay and the emulator, and sent with T and Z upper-cased (fast-check)', async () => {
    const { dateTime } = await import('../../../src/emulator/validation.js');
    const { checkTimestamp } = await import('../../../src/verbs/values.js');
    fc.assert(
      fc.property(rfc3339, (v) => {
        expect(checkTimeBound(v), v).toBeUndefined();
        expect(checkTimestamp(v), v).toBeUndefined();
        expect(timeBoundValue(v)).toBe(v.toUpperCase());
        const errors: unknown[] = [];
        // The emulator's body rule wants the seconds.
        if (/:\d{2}:\d{2}/.test(v)) dateTime(v, 'expires_at', errors as never);
        expect(errors, v).toEqual([]);
      }),
    );
    await fc.assert(
      fc.asyncProperty(rfc3339, fc.constantFrom('--since', '--until', '--from', '--to'), async (v, flag) => {
        const r = await pay(['transactions', 'list', flag, v, '--json']);
        expect(r.code, r.stderr).toBe(0);
        expect(r.requests[0]!.query.get(flag === '--since' || flag === '--from' ? 'from' : 'to')).toBe(v.toUpperCase());
      }),
      { numRuns: 30 },
    );
  });

  it('pay payment-links create --expires-at 2099-11-26t17:33:50z is sent as 2099-11-26T17:33:50Z', async () => {
    const r = await pay([
      'payment-links',
      'create',
      '--wallet',
      'wal_0123456789abcdefghijklmn',
      '--amount',
      '5',
      '--asset',
      'USDC',
      '--expires-at',
      '2099-11-26t17:33:50z',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((r.requests[0]!.body as { expires_at: string }).expires_at).toBe('2099-11-26T17:33:50Z');
  });
});

describe('time bounds over generated input', () => {
  it('accepts exactly dates, RFC 3339 times and durations (the one grammar) within 100 years; converts durations only', () => {
    const units = [
      ['w', 6.048e8],
      ['d', 8.64e7],
      ['h', 3.6e6],
      ['m', 6e4],
      ['s', 1e3],
    ] as const;
    const part = fc.option(fc.integer({ min: 0, max: 999_999 }), { nil: undefined });
    fc.assert(
      fc.property(fc.tuple(part, part, part, part, part), fc.boolean(), (counts, upper) => {
        const written = counts.map((n, i) => (n === undefined ? '' : `${n}${units[i]![0]}`)).join('');
        const v = upper ? written.toUpperCase() : written;
        const ms = counts.reduce<number>((acc, n, i) => acc + (n ?? 0) * units[i]![1], 0);
        const ok = ms > 0 && ms <= 100 * 365.25 * 8.64e7;
        expect(checkTimeBound(v) === undefined, v).toBe(ok);
        if (ok) expect(Date.parse(timeBoundValue(v, 4_000_000_000_000))).toBe(4_000_000_000_000 - ms);
        // The clock advance reads the same text as the same length of time.
        if (ms > 0) expect(parseDuration(v)! * 1000).toBe(ms);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (v) => {
        const valid = checkTimeBound(v) === undefined;
        const duration = /^(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?$/.test(v.trim().toLowerCase());
        const shaped = duration || /^\d{4}-\d{2}-\d{2}([Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2}))?$/.test(v);
        if (valid) expect(shaped).toBe(true);
        // Anything that is not a duration is sent as typed, a time's T and Z upper-cased.
        if (valid && !duration) expect(timeBoundValue(v)).toBe(v.toUpperCase());
      }),
    );
  });

  it('--since 1h30m and --since 2w are read as the clock advance reads them', async () => {
    for (const [since, seconds] of [
      ['1h30m', 5_400],
      ['2w', 1_209_600],
      ['1W2D', 777_600],
    ] as const) {
      const before = Date.now();
      const r = await pay(['transfers', 'list', '--since', since]);
      expect(r.code, r.stderr).toBe(0);
      const from = Date.parse(r.requests[0]!.query.get('from')!);
      expect(from).toBeGreaterThanOrEqual(before - seconds * 1000);
      expect(from).toBeLessThanOrEqual(Date.now() - seconds * 1000);
    }
  });
});
