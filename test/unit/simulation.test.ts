// The Sandbox simulation values are one list (src/shared/simulation.ts) and everything says the
// same: the emulator acts on them, the contract describes them, `pay help simulate` lists them,
// and the help of each verb they affect names them. minorEnding agrees with the emulator's money.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openapi } from '../../src/api/openapi.js';
import { buildProgram } from '../../src/cmdutil/tree.js';
import { exponent, toMinor } from '../../src/emulator/money.js';
import { fromMinor } from '../../src/shared/money.js';
import { FIAT_CURRENCIES } from '../../src/shared/domain.js';
import { CONTRACT_NOTES, minorEnding, SIMULATION_VALUES } from '../../src/shared/simulation.js';
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
    expect(bad.stderr).toContain('topics: environment, exit-codes, rules, simulate');
  });

  it('the contract describes them on the operations and fields they apply to', () => {
    const text = JSON.stringify(openapi);
    for (const note of Object.values(CONTRACT_NOTES)) expect(text).toContain(JSON.stringify(note).slice(1, -1));
    const post = (path: string) => (openapi.paths[path] as { post: { description: string } }).post.description;
    expect(post('/transfers')).toContain(CONTRACT_NOTES.transfer);
    expect(post('/collections')).toContain(CONTRACT_NOTES.collection);
  });

  it("minorEnding is the amount's minor units mod 100 (10,000 for the hold), for every currency and any amount", () => {
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
          expect(minorEnding(amount, e)).toBe(Number(whole % 100n));
          expect(minorEnding(amount, e, 4)).toBe(Number(whole % 10_000n));
          // As the emulator reads an amount: the same minor units.
          expect(toMinor(amount, e)).toBe(whole);
        },
      ),
    );
    expect(minorEnding('1.5x', 2)).toBeUndefined();
    // Decimals past the currency's are left out (validation refuses them anyway).
    expect(minorEnding('1.139', 2)).toBe(13);
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
