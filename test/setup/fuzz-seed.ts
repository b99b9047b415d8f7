// The fast-check seed of every property in the suite (vitest's setupFiles: run before each test
// file). `npm test` runs them all with one fixed seed, so a run that passed passes again;
// `npm run test:reliability` sets PAY_FUZZ_SEED=random, a new seed for each file, to find what the
// fixed one does not. PAY_FUZZ_SEED=<n> reproduces a run. The seed is in fast-check's own failure
// report (`{ seed: …, path: … }`), and a failing test prints it with how to run it again (a test
// that draws its cases with fc.sample fails without fast-check's report).
//
// A property given its own seed keeps it. The reliability files' own SEED constants read
// PAY_FUZZ_SEED, which this sets to the seed chosen, so they use it too.
import fc from 'fast-check';
import { beforeEach } from 'vitest';

/** The seed of `npm test`. */
export const FIXED_SEED = 20261128;

/** The seed PAY_FUZZ_SEED asks for: unset or empty the fixed one, `random` a new one, else the integer given. */
export function fuzzSeed(asked: string | undefined, random: () => number = () => Math.floor(Math.random() * 2 ** 31)): number {
  if (asked === undefined || asked === '') return FIXED_SEED;
  if (asked === 'random') return random();
  const n = /^-?[0-9]{1,10}$/.test(asked) ? Number(asked) : NaN;
  if (!Number.isSafeInteger(n) || n < -(2 ** 31) || n >= 2 ** 31)
    throw new Error(`PAY_FUZZ_SEED must be an integer (a 32-bit seed) or "random", not ${JSON.stringify(asked)}`);
  return n;
}

// What was asked, kept apart from the seed chosen (written back into PAY_FUZZ_SEED below): the
// next file this worker runs chooses again from the same request.
process.env.PAY_FUZZ_SEED_ASKED ??= process.env.PAY_FUZZ_SEED ?? '';
const seed = fuzzSeed(process.env.PAY_FUZZ_SEED_ASKED);
process.env.PAY_FUZZ_SEED = String(seed);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });

beforeEach(({ onTestFailed, task }) => {
  onTestFailed(() => {
    process.stderr.write(
      `fast-check seed of ${task.file.name}: ${seed} (again: PAY_FUZZ_SEED=${seed} npx vitest run --config test/vitest.config.ts ${task.file.name})\n`,
    );
  });
});
