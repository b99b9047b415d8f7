// The formatting topic's "add amounts exactly" recipe (the --jq program in its Pipe JSON section) gives the
// exact decimal sum for amounts that break binary floats (0.10 + 0.20, cents past 2^53 / 100, many
// small parts): run with pay's own jq (src/io/jq.ts, what --jq runs) on generated amounts, the list
// as --all hands it over (one array), and compared with a BigInt sum.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileJq } from '../../src/io/jq.js';
import type { JqFilter } from '../../src/io/output-options.js';

const readme = readFileSync(new URL('../../src/docs/topics/formatting.md', import.meta.url), 'utf8');
const block = /^pay accounts list --all --fields currency,balance\.available --jq '([\s\S]*?)'\n```$/m.exec(readme);
const program = block?.[1];
let filter: JqFilter;

beforeAll(async () => {
  filter = await compileJq(program!, { tty: false, warn: () => {} });
});

function jq(rows: Array<{ currency: string; amount: string }>): string {
  let out = '';
  filter.run(JSON.stringify(rows.map((r) => ({ currency: r.currency, balance: { available: r.amount } }))), (t) => (out += t));
  return out.trim();
}

/** The exact sum of EUR amounts as a decimal string with 2 places. */
function exact(rows: Array<{ currency: string; amount: string }>): string {
  let cents = 0n;
  for (const r of rows) {
    if (r.currency !== 'EUR') continue;
    const neg = r.amount.startsWith('-');
    const [i, f = ''] = r.amount.replace(/^-/, '').split('.');
    const v = BigInt(i!) * 100n + BigInt((f + '00').slice(0, 2));
    cents += neg ? -v : v;
  }
  const neg = cents < 0n;
  const a = neg ? -cents : cents;
  return `${neg ? '-' : ''}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
}

describe('pay help formatting: adding amounts exactly with --jq', () => {
  it('the recipe is in the topic', () => {
    expect(program).toBeDefined();
    expect(program).not.toMatch(/tonumber\)\s*\|\s*add/);
  });

  it('0.10 + 0.20 is 0.30, not 0.30000000000000004; other currencies are left out', () => {
    expect(
      jq([
        { currency: 'EUR', amount: '0.10' },
        { currency: 'EUR', amount: '0.20' },
        { currency: 'USD', amount: '5.00' },
      ]),
    ).toBe('0.30');
    expect(jq([])).toBe('0.00');
    expect(
      jq([
        { currency: 'EUR', amount: '1' },
        { currency: 'EUR', amount: '0.5' },
      ]),
    ).toBe('1.50');
  });

  it('generated amounts (many small parts, large balances, negatives) sum exactly', () => {
    // Up to 1e11 EUR per amount, 40 rows: the sum stays far inside 2^53 cents.
    const amount = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 100_000_000_000n }), fc.integer({ min: 0, max: 99 }), fc.constantFrom(0, 1, 2))
      .map(([neg, units, cents, places]) => {
        const frac = places === 0 ? '' : places === 1 ? `.${Math.floor(cents / 10)}` : `.${String(cents).padStart(2, '0')}`;
        return `${neg && (units > 0n || cents > 0) ? '-' : ''}${units}${frac}`;
      });
    const row = fc.record({ currency: fc.constantFrom('EUR', 'EUR', 'EUR', 'USD'), amount });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
        expect(jq(rows)).toBe(exact(rows));
      }),
      { numRuns: 60 },
    );
  });
});
