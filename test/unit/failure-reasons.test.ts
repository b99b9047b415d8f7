// The one table of failure_reason meanings (src/shared/failure-reasons.ts): every code the
// emulator writes is in it, and the contract's descriptions, `pay help simulate` and the printer
// (a column's `meaning`) all say the same words from it. And fitText (src/io/fit-text.ts, which
// fits the help topics to the terminal): generated texts of words, ids and rows at generated
// widths keep every word whole and in order, and no line passes the width unless one word does.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openapi } from '../../src/api/openapi.js';
import { fitText } from '../../src/io/fit-text.js';
import { createIOStreams } from '../../src/io/iostreams.js';
import { Printer } from '../../src/io/output.js';
import { displayWidth } from '../../src/io/width.js';
import { FAILURE_REASONS, failureMeaning } from '../../src/shared/failure-reasons.js';
import { simulationText } from '../../src/shared/simulation.js';

const schemaDescription = (name: string): string => {
  const s = (openapi.components.schemas as Record<string, { properties?: Record<string, { description?: string }>; allOf?: unknown[] }>)[
    name
  ]!;
  return JSON.stringify(s);
};

describe('failure reasons: one table', () => {
  it('every code the emulator writes has a meaning', () => {
    const src = ['transfers', 'collections']
      .map((f) => readFileSync(new URL(`../../src/emulator/resources/${f}.ts`, import.meta.url), 'utf8'))
      .join('\n');
    const written = [...src.matchAll(/failure_reason: broken \?\? '([a-z_]+)'/g)].map((m) => m[1]!);
    expect(written.sort()).toEqual(['destination_rejected', 'payment_declined']);
    // failureOnSettle: a refusal's code, kyc_required written as kyc_rejected.
    const rules = readFileSync(new URL('../../src/emulator/resources/rules.ts', import.meta.url), 'utf8');
    expect(rules).toContain("p.code === 'kyc_required' ? 'kyc_rejected' : p.code");
    for (const code of [...written, 'kyc_rejected', 'feature_not_active']) expect(failureMeaning(code), code).toMatch(/\w/);
    expect(failureMeaning('something_new')).toBeUndefined();
    expect(failureMeaning(42)).toBeUndefined();
  });

  it('the contract, pay help simulate and the printer say the same meanings', () => {
    const transfer = schemaDescription('Transfer');
    const collection = schemaDescription('Collection');
    const help = simulationText();
    for (const r of FAILURE_REASONS) {
      expect(help).toContain(`${r.code}: ${r.meaning}`);
      expect(transfer.includes(`\`${r.code}\` (${r.meaning}`), r.code).toBe(r.objects.includes('transfer'));
      expect(collection.includes(`\`${r.code}\` (${r.meaning}`), r.code).toBe(r.objects.includes('collection'));
    }
    let out = '';
    const io = {
      ...createIOStreams({ stdoutIsTTY: true, stderrIsTTY: true, terminalWidth: 200, noColor: true }),
      out: (t: string) => void (out += t),
      err: () => {},
    };
    const p = new Printer(io, { format: 'table', fields: undefined, header: true }, [
      { header: 'FAILURE', path: 'failure_reason', meaning: 'failure_reason' },
    ]);
    p.printObject({ id: 'tr_1', failure_reason: 'kyc_rejected', status: 'failed' });
    expect(out).toMatch(/failure_reason\s+kyc_rejected \(a holder failed KYC\)\n/);
    out = '';
    p.printObject({ id: 'tr_1', failure_reason: 'new_code\x1b[31m' });
    expect(out).toMatch(/failure_reason\s+new_code\\x1b\[31m\n/);
  });
});

const WORD = fc.oneof(
  fc.constantFrom(
    'cus_0mx12va450000k2ok9m3prqe',
    'pay',
    'transfers',
    'send',
    '--feature',
    'kyc_rejected',
    '(*)',
    'KYC',
    'a',
    'international_transfers',
    '漢字',
  ),
  fc.stringMatching(/^[a-z]{1,12}$/),
);
const SENTENCE = fc.array(WORD, { minLength: 1, maxLength: 30 }).map((w) => w.join(' '));
const LINE = fc.oneof(
  SENTENCE,
  fc.tuple(fc.integer({ min: 1, max: 6 }), SENTENCE).map(([n, s]) => ' '.repeat(n) + s),
  fc
    .tuple(fc.integer({ min: 1, max: 4 }), WORD, fc.integer({ min: 2, max: 12 }), SENTENCE)
    .map(([n, l, g, s]) => `${' '.repeat(n)}${l}${' '.repeat(g)}${s}`),
  fc.constant(''),
);

describe('fitText: help topics fit the terminal without splitting a word', () => {
  it('every word kept whole and in order; no line wider than the width unless it is one word', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.array(LINE, { maxLength: 12 }), fc.integer({ min: 20, max: 140 }), (lines, width) => {
        runs++;
        const text = `${lines.join('\n')}\n`;
        const fitted = fitText(text, width);
        expect(fitted.split(/\s+/).filter(Boolean)).toEqual(text.split(/\s+/).filter(Boolean));
        for (const l of fitted.split('\n')) if (displayWidth(l) > width) expect(l.trim().split(' ')).toHaveLength(1);
        // Lines that fitted are left as written.
        if (lines.every((l) => displayWidth(l) <= width)) expect(fitted).toBe(text);
      }),
      { numRuns: 400, seed: 2828 },
    );
    expect(runs).toBe(400);
  });
});
