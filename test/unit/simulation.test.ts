// The Sandbox simulation values are one list (src/shared/simulation.ts) and everything says the
// same: the emulator acts on them, the contract describes them, `pay help simulate` lists them,
// and the help of each verb they affect names them. One rule decides whether a value carries an
// ending (all its digits there: 0.14 is not 0014), and minorDigits agrees with the emulator's money.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openapi } from '../../src/api/openapi.js';
import { buildProgram } from '../../src/commands/tree.js';
import { exponent, toMinor } from '../../src/emulator/money.js';
import { fromMinor } from '../../src/shared/money.js';
import { FIAT_CURRENCIES } from '../../src/shared/domain.js';
import { amountEndsIn, CONTRACT_NOTES, endsIn, FAIL_TEXT, HOLD_TEXT, minorDigits, SIMULATION_VALUES } from '../../src/shared/simulation.js';
import { pay } from './commands/harness.js';

const flat = (s: string) => s.replace(/\s+/g, ' ');

describe('simulation values', () => {
  it('the help of every verb they affect names them', () => {
    const program = buildProgram({ factory: () => Promise.reject(new Error('unused')) });
    for (const v of SIMULATION_VALUES) {
      for (const command of v.commands) {
        const [group, verb] = command.split(' ');
        const cmd = program.commands.find((c) => c.name() === group)?.commands.find((c) => c.name() === verb);
        expect(cmd, command).toBeDefined();
        expect(flat(cmd!.helpInformation()), command).toContain(flat(v.when));
      }
    }
  });

  it('pay help simulate lists every one; an unknown topic names it among the topics', async () => {
    const r = await pay(['help', 'simulate']);
    expect(r.code).toBe(0);
    for (const v of SIMULATION_VALUES) expect(r.stdout).toContain(`${v.input}, ${v.value}`);
    const bad = await pay(['help', 'simulations']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/topics: environment, exit-codes, .*\brules, simulate\b/);
  });

  it('the contract describes them on the operations and fields they apply to', () => {
    const text = JSON.stringify(openapi);
    for (const note of Object.values(CONTRACT_NOTES)) expect(text).toContain(JSON.stringify(note).slice(1, -1));
    const post = (path: string) => (openapi.paths[path] as { post: { description: string } }).post.description;
    expect(post('/transfers')).toContain(CONTRACT_NOTES.transfer);
    expect(post('/collections')).toContain(CONTRACT_NOTES.collection);
  });

  it("minorDigits are the amount's minor units (no leading zeros), for every currency and any amount as typed", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FIAT_CURRENCIES),
        fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }),
        fc.nat({ max: 3 }),
        (cur, whole, extraZeros) => {
          const e = exponent(cur);
          const digits = whole.toString().padStart(e + 1, '0');
          // As typed: the decimals the currency has, or fewer (trailing zeros left out).
          let amount = e === 0 ? digits : `${digits.slice(0, -e)}.${digits.slice(-e)}`;
          if (e > 0 && extraZeros > 0) amount = amount.replace(/0+$/, '').replace(/\.$/, '') || '0';
          expect(minorDigits(amount, e)).toBe(whole.toString());
          // As the emulator reads an amount: the same minor units.
          expect(toMinor(amount, e)).toBe(whole);
        },
      ),
    );
    expect(minorDigits('1.5x', 2)).toBeUndefined();
    // Decimals past the currency's are left out (validation refuses them anyway).
    expect(minorDigits('1.139', 2)).toBe('113');
  });

  it('one rule for every value: an ending counts only with all its digits there (missing digits are never zeros)', () => {
    // Stated arithmetically, apart from the implementation: m ends in t when m mod 10^|t| is t and,
    // for an ending that starts with 0, m has a digit in front of it (m >= 10^|t|).
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.stringMatching(/^[0-9]{1,5}$/), (m, t) => {
        const p = 10n ** BigInt(t.length);
        const expected = m % p === BigInt(t) && (t[0] !== '0' || m >= p);
        expect(endsIn(m.toString(), t)).toBe(expected);
        for (const cur of ['USD', 'JPY', 'KWD']) {
          const e = exponent(cur);
          expect(amountEndsIn(fromMinor(m, e), e, t), `${cur} ${fromMinor(m, e)} ${t}`).toBe(expected);
        }
      }),
    );
    // The tester's case and the documented examples.
    expect(amountEndsIn('0.14', 2, HOLD_TEXT)).toBe(false);
    expect(amountEndsIn('14', 0, HOLD_TEXT)).toBe(false);
    expect(amountEndsIn('1.14', 2, HOLD_TEXT)).toBe(false);
    expect(amountEndsIn('100.14', 2, HOLD_TEXT)).toBe(true);
    expect(amountEndsIn('10014', 0, HOLD_TEXT)).toBe(true);
    expect(amountEndsIn('10.014', 3, HOLD_TEXT)).toBe(true);
    for (const [a, e] of [
      ['1.13', 2],
      ['25.13', 2],
      ['10.13', 2],
      ['113', 0],
      ['0.13', 2],
    ] as const)
      expect(amountEndsIn(a, e, FAIL_TEXT), a).toBe(true);
    expect(endsIn('X1230000', '0000')).toBe(true);
    expect(endsIn('000', '0000')).toBe(false);
    expect(endsIn(undefined, '0000')).toBe(false);
  });

  it('toMinor and fromMinor (src/shared/money.ts) are inverses at every exponent, signs too', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.nat({ max: 18 }), (minor, e) => {
        const text = fromMinor(minor, e);
        expect(text).toMatch(e === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${e}}$`));
        expect(toMinor(text, e)).toBe(minor);
      }),
    );
  });
});
