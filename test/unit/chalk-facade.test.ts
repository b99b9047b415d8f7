// src/scripts/chalk.mjs, what pay's modules get for 'chalk' in dist/: with colour off (level 0) it
// must make exactly the text chalk makes, for any value, any style, chained or not, one argument
// or several; with colour on it is chalk itself (test/e2e/colour.test.ts, the built pay).
import { Chalk as RealChalk } from 'chalk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Chalk } from '../../src/scripts/chalk.mjs';

type Style = (...args: unknown[]) => string;
const STYLES = ['bold', 'dim', 'green', 'yellow', 'red', 'cyan', 'underline', 'italic', 'inverse', 'gray', 'bgRed', 'whiteBright'];

function styleOf(chalk: unknown, path: readonly string[]): Style {
  let s = chalk as Record<string, unknown>;
  for (const name of path) s = s[name] as Record<string, unknown>;
  return s as unknown as Style;
}

describe('the chalk stand-in, colour off', () => {
  const real = new RealChalk({ level: 0 });
  const plain = new Chalk({ level: 0 }) as unknown;

  it('has level 0, as chalk does', () => {
    expect((plain as { level: number }).level).toBe(real.level);
  });

  it('makes what chalk makes: any style, chained, any arguments', () => {
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.constant(''),
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...STYLES), { minLength: 1, maxLength: 3 }),
        fc.array(value, { minLength: 0, maxLength: 4 }),
        (path, args) => {
          expect(styleOf(plain, path)(...args)).toBe(styleOf(real, path)(...args));
        },
      ),
      { numRuns: 500 },
    );
  });
});
