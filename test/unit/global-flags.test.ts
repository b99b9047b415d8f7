// The global flags are declared once (src/cmdutil/global-flags.json) and every place that needs
// them derives them from it: commander's root command (root.ts), the verbs that take the output,
// --yes and --idempotency-key flags (registry.ts, the command declarations), src/argv.ts (which
// flags are moved after the command, which take a value) and bin/load.js (which take a value, to
// find the command's words: the build writes their names to dist/value-flags.json). Each is checked against commander's tree, the one that parses.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { HOISTING, hoistVerbFlags } from '../../src/argv.js';
import { flagsOf, namesOf, PROGRAM_FLAGS, VERB_FLAGS } from '../../src/cmdutil/global-flags.js';
import { buildProgram } from '../../src/commands/tree.js';

const root = new URL('../../', import.meta.url).pathname;
const loader = createRequire(import.meta.url)('../../bin/load.js') as { kindOf(argv: readonly string[]): string };
const program = buildProgram();
const VERBS = Object.values(VERB_FLAGS);

function* commands(c: Command): Generator<Command> {
  yield c;
  for (const s of c.commands) yield* commands(s);
}
const everyOption: Array<{ path: string; o: Option }> = [...commands(program)].flatMap((c) =>
  c === program ? [] : c.options.map((o) => ({ path: pathOf(c), o })),
);
function pathOf(c: Command): string {
  const names: string[] = [];
  for (let x: Command | null = c; x; x = x.parent) names.unshift(x.name());
  return names.join(' ');
}
const names = (o: Option): string[] => [o.short, o.long].filter((n): n is string => n !== undefined);
const takesValue = (o: Option): boolean => o.required || o.optional;

describe('global flags: one declaration', () => {
  it("the root command's flags are the declaration's program flags, in its order, with its help", () => {
    const registered = program.options.filter((o) => o.long !== '--version');
    expect(registered.map((o) => [o.flags, o.description])).toEqual(PROGRAM_FLAGS.map((f) => [flagsOf(f), f.description]));
    expect(registered.every((o) => o.helpGroupHeading === 'Global flags:')).toBe(true);
  });

  it('no command declares a program flag again', () => {
    const global = new Set(PROGRAM_FLAGS.flatMap(namesOf));
    const again = everyOption.filter(({ o }) => names(o).some((n) => global.has(n))).map(({ path, o }) => `${path}: ${o.flags}`);
    expect(again).toEqual([]);
  });

  it('every verb flag is declared somewhere, and everywhere exactly as the declaration says', () => {
    for (const f of VERBS) {
      const users = everyOption.filter(({ o }) => o.long === f.long || (f.short !== undefined && o.short === f.short));
      expect(users.length, `${f.long} is declared by no command`).toBeGreaterThan(0);
      const other = users.filter(({ o }) => o.flags !== flagsOf(f)).map(({ path, o }) => `${path}: ${o.flags}`);
      expect(other, `${flagsOf(f)} declared otherwise`).toEqual([]);
    }
  });

  it('src/argv.ts moves exactly the verb flags, and knows which flags take a value as commander does', () => {
    const registered = (n: string): Option =>
      program.options.find((o) => names(o).includes(n)) ?? everyOption.find(({ o }) => names(o).includes(n))!.o;
    const programValues = PROGRAM_FLAGS.flatMap(namesOf).filter((n) => takesValue(registered(n)));
    const verbValues = VERBS.flatMap(namesOf).filter((n) => takesValue(registered(n)));
    const verbBooleans = VERBS.flatMap(namesOf).filter((n) => !takesValue(registered(n)));
    expect([...HOISTING.PROGRAM_VALUE_FLAGS].sort()).toEqual(programValues.sort());
    expect([...HOISTING.VERB_VALUE_FLAGS].sort()).toEqual(verbValues.sort());
    expect([...HOISTING.VERB_BOOLEAN_FLAGS].sort()).toEqual(verbBooleans.sort());
    // And it acts on them: each verb flag before the command is moved after it (with its value),
    // each program flag stays where it is (with its value).
    for (const f of VERBS)
      for (const n of namesOf(f)) {
        const flag = takesValue(registered(n)) ? [n, 'v'] : [n];
        expect(hoistVerbFlags([...flag, 'customers', 'list'])).toEqual(['customers', 'list', ...flag]);
      }
    for (const f of PROGRAM_FLAGS)
      for (const n of namesOf(f)) {
        const flag = takesValue(registered(n)) ? [n, 'v'] : [n];
        expect(hoistVerbFlags([...flag, '--json', 'customers', 'list'])).toEqual([...flag, 'customers', 'list', '--json']);
      }
  });

  it("bin/load.js skips a value flag's value, and only a value flag's, to find the command's words", () => {
    expect(existsSync(root + 'dist/value-flags.json'), 'the build writes the value flags to dist/ (npm run build)').toBe(true);
    const registered = [...program.options, ...everyOption.map(({ o }) => o)];
    for (const f of [...PROGRAM_FLAGS, ...VERBS])
      for (const n of namesOf(f)) {
        const value = takesValue(registered.find((o) => names(o).includes(n))!);
        // A value flag's value looks like a word: skipped, the command is still found.
        expect(loader.kindOf(value ? [n, 'prod', 'customers', 'list'] : [n, 'customers', 'list']), n).toBe('list');
        // A flag without a value is no value flag: the word after it is the command's.
        if (!value) expect(loader.kindOf([n, 'customers', 'get', 'x']), n).toBe('get');
        else expect(loader.kindOf([n, 'customers', 'list']), n).not.toBe('list');
      }
  });

  it('no other file of src/ or bin/ lists the global flags by hand', () => {
    // Three or more of them quoted in one file is a second declaration (argv.ts reads --output and
    // --jq by name, to tell the error mode before a command resolved its flags).
    const files = ['src/argv.ts', 'src/commands/root.ts', 'src/cmdutil/spec.ts', 'src/cmdutil/registry.ts', 'bin/load.js', 'bin/pay.js'];
    const quoted = [...PROGRAM_FLAGS, ...VERBS].map((f) => f.long).filter((l) => l !== '--json' && l !== '--yes');
    for (const file of files) {
      const text = readFileSync(root + file, 'utf8');
      const listed = quoted.filter((l) => text.includes(`'${l}'`) || text.includes(`'${l} `));
      expect(listed.length, `${file}: ${listed.join(' ')}`).toBeLessThan(3);
    }
  });
});
