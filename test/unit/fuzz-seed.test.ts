// The suite's fast-check seed (test/setup/fuzz-seed.ts): fixed in npm test, random in
// test:reliability, chosen by PAY_FUZZ_SEED, in fast-check's failure report, and no property that
// gives its own seed loses it.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIXED_SEED, fuzzSeed } from '../setup/fuzz-seed.js';

const root = new URL('../../', import.meta.url).pathname;
const seed = fc.readConfigureGlobal().seed as number;

describe('fast-check seed', () => {
  it('every property of this file runs with the seed the setup chose, which PAY_FUZZ_SEED holds', () => {
    expect(seed).toBe(Number(process.env.PAY_FUZZ_SEED));
    // Under npm test (nothing asked): the fixed one.
    if (process.env.PAY_FUZZ_SEED_ASKED === '') expect(seed).toBe(FIXED_SEED);
    // A property with no seed of its own draws the same values every time.
    expect(fc.sample(fc.integer(), 20)).toEqual(fc.sample(fc.integer(), 20));
    expect(fc.sample(fc.string(), { numRuns: 20 })).toEqual(fc.sample(fc.string(), { numRuns: 20 }));
  });

  it('PAY_FUZZ_SEED: unset or empty the fixed seed, random a new one, an integer itself, anything else refused', () => {
    expect(fuzzSeed(undefined)).toBe(FIXED_SEED);
    expect(fuzzSeed('')).toBe(FIXED_SEED);
    expect(fuzzSeed('random', () => 1947396687)).toBe(1947396687);
    for (const n of [0, 1, 7, 1947396687, 2 ** 31 - 1, -(2 ** 31)]) expect(fuzzSeed(String(n))).toBe(n);
    for (const bad of ['x', '1.5', '1e3', ' 7', '7 ', '2147483648', '-2147483649', '99999999999', 'Random', '0x10', 'NaN'])
      expect(() => fuzzSeed(bad), bad).toThrow(/^PAY_FUZZ_SEED must be an integer \(a 32-bit seed\) or "random", not "/);
    const drawn = new Set(Array.from({ length: 20 }, () => fuzzSeed('random')));
    expect(drawn.size).toBeGreaterThan(1);
    for (const d of drawn) expect(Number.isInteger(d) && d >= 0 && d < 2 ** 31).toBe(true);
  });

  it("a failing property's report names the seed", () => {
    const out = fc.check(fc.property(fc.nat(), (n) => n < 0));
    expect(out.failed).toBe(true);
    expect(out.seed).toBe(seed);
    expect(fc.defaultReportMessage(out)).toContain(`seed: ${seed}`);
    expect(() => fc.assert(fc.property(fc.nat(), (n) => n < 0))).toThrow(`seed: ${seed}`);
  });

  it('a property given its own seed keeps it, whatever the global seed', () => {
    const own = fc.sample(fc.integer(), { numRuns: 10, seed: 7 });
    const before = fc.readConfigureGlobal();
    try {
      fc.configureGlobal({ ...before, seed: seed + 1 });
      expect(fc.sample(fc.integer(), { numRuns: 10, seed: 7 })).toEqual(own);
      expect(fc.sample(fc.integer(), 10)).not.toEqual(fc.sample(fc.integer(), { numRuns: 10, seed }));
    } finally {
      fc.configureGlobal(before);
    }
  });

  it('npm test runs the setup with nothing asked; test:reliability asks for a random seed unless one is given', () => {
    expect(readFileSync(root + 'test/vitest.config.ts', 'utf8')).toContain("setupFiles: ['test/setup/fuzz-seed.ts']");
    const scripts = JSON.parse(readFileSync(root + 'package.json', 'utf8')).scripts;
    expect(scripts.test).not.toContain('PAY_FUZZ_SEED');
    expect(scripts['test:reliability']).toMatch(/^PAY_FUZZ_SEED=\$\{PAY_FUZZ_SEED:-random\} vitest run /);
  });
});
