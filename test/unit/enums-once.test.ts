// Every vocabulary of the API (statuses, types, methods, providers, levels, …) is defined once in
// src/ (src/shared/enums.ts and the shared modules it re-exports), and the contract, the emulator
// and the commands read that one definition. The check reads every hand-written .ts file under
// src/ with the TypeScript parser and fails when the same set of two or more word-like string
// literals (`'pending'`, `'USD'`; not dotted field paths, commands or prose) is written out as an
// array literal twice. Generated files (which name the shared constants) are not read.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;
/** Written by npm run generate or src/scripts/iso-3166.mjs. */
const GENERATED = [/^commands\/[^/]+\/operations\.ts$/, /^commands\/group-index\.ts$/, /^shared\/iso-3166-data\.ts$/];
const WORD = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Sets that are written twice on purpose or outside the API's vocabulary, each with its reason.
 * Keep it short: a set added here is one fewer the check holds.
 */
const KNOWN: ReadonlyArray<{ set: readonly string[]; why: string }> = [
  // A profile's modes: config (src/config/shape.ts), the emulator's keys and events, `pay profiles`.
  // Not the contract's: left for the rooms' round (#26 item 2), which moves those files.
  { set: ['live', 'sandbox'], why: "a profile's modes, in config, the emulator core and pay profiles (not in this change's files)" },
  {
    set: ['json', 'ndjson'],
    why: 'output formats of streaming commands (src/cmdutil/decl.ts, pay api, webhooks listen: tooling commands of #26 item 2)',
  },
  { set: ['base_url', 'public_key', 'secret_key', 'webhook_secret'], why: "a profile's keys (src/config/shape.ts and pay profiles set)" },
  {
    set: ['address_line1', 'city', 'country', 'postal_code', 'state'],
    why: 'address field names, not values (customers overview, pay trigger)',
  },
  {
    set: ['collection', 'transfer'],
    why: 'object kinds, not values of a field: the objects a failure_reason applies to (failure-reasons.ts) and what a trigger recipe makes',
  },
  {
    set: ['currency', 'customer_id'],
    why: "field names, not values: an account create's required fields (the contract) and the emulator's indexes of its accounts list",
  },
];

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts') && !GENERATED.some((g) => g.test(relative(SRC, path)))) yield path;
  }
}

/** Each array literal of two or more word-like string literals: its set (sorted, distinct) and where. */
export function stringSets(file: string, text: string): Array<{ key: string; at: string }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Array<{ key: string; at: string }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node) && node.elements.length >= 2) {
      const values = node.elements.map((e) => (ts.isStringLiteral(e) ? e.text : undefined));
      if (values.every((v): v is string => v !== undefined && WORD.test(v))) {
        const set = [...new Set(values)].sort();
        if (set.length >= 2) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          out.push({ key: JSON.stringify(set), at: `${file}:${line + 1}` });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function repeats(sets: ReadonlyArray<{ key: string; at: string }>): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  for (const { key, at } of sets) seen.set(key, [...(seen.get(key) ?? []), at]);
  const known = new Set(KNOWN.map((k) => JSON.stringify([...k.set].sort())));
  return new Map([...seen].filter(([key, at]) => at.length > 1 && !known.has(key)));
}

/** Every set of src/, read once for both checks. */
let read: Array<{ key: string; at: string }> | undefined;
const allSets = () => (read ??= [...sourceFiles(SRC)].flatMap((f) => stringSets(relative(SRC, f), readFileSync(f, 'utf8'))));

describe('each enum is defined once in src/', () => {
  it('no set of two or more word-like string literals is written out twice (outside generated files)', () => {
    const sets = allSets();
    expect(sets.length).toBeGreaterThan(100);
    const found = [...repeats(sets)].map(([key, at]) => `${key} in ${at.join(', ')}`);
    expect(found, 'define it once in src/shared/enums.ts and import it').toEqual([]);
  });

  it('the known exceptions are still written twice (an exception no longer needed is removed)', () => {
    const counts = new Map<string, number>();
    for (const { key } of allSets()) counts.set(key, (counts.get(key) ?? 0) + 1);
    for (const k of KNOWN) expect(counts.get(JSON.stringify([...k.set].sort())) ?? 0, k.why).toBeGreaterThan(1);
  });

  it('catches a set written twice, in any order, and ignores field paths and single values', () => {
    const files = [
      ['a.ts', "export const A = ['pending', 'completed', 'failed'] as const; const p = ['a.b', 'a.c']; const one = ['x'];"],
      ['b.ts', "f(['failed', 'pending', 'completed', 'pending']); const q = ['a.b', 'a.c']; const two = ['x'];"],
      ['c.ts', "const other = ['pending', 'completed'];"],
    ] as const;
    expect([...repeats(files.flatMap(([f, t]) => stringSets(f, t))).values()]).toEqual([['a.ts:1', 'b.ts:1']]);
  });
});
