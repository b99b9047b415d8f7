// Help pages (src/cmdutil/help-pages.ts, written to dist/help/ by the build, printed by bin/pay.js
// without loading the CLI) say exactly what the entry prints through commander where stdout is
// not a terminal: for every command of the tree and each alias, built as src/cli.ts builds its
// tree for that argv (only what argv names whole, the rest as heads), and --version.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Entry } from '../../src/cmdutil/decl.js';
import { helpPages, pageName } from '../../src/cmdutil/help-pages.js';
import { createProgram, groupsFor } from '../../src/commands/root.js';
import { buildProgram } from '../../src/commands/tree.js';
import { VERSION } from '../../src/lib/version.js';

const pages = helpPages(buildProgram(), VERSION);

/** What the entry's tree writes to a stdout that is not a terminal for `argv` (and how commander ended). */
async function entryPrints(argv: string[]): Promise<{ out: string; err: string; code: string }> {
  let out = '';
  let err = '';
  const entry: Entry = {
    factory: () => {
      throw new Error('no command should run');
    },
    output: {
      writeOut: (t) => void (out += t),
      writeErr: (t) => void (err += t),
      getOutHelpWidth: () => undefined as unknown as number,
      getErrHelpWidth: () => undefined as unknown as number,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    },
  };
  const program = createProgram(await groupsFor(argv), entry, (name) => argv.includes(name));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return { out, err, code: 'none' };
  } catch (e) {
    if (e instanceof CommanderError) return { out, err, code: e.code };
    throw e;
  }
}

describe('help pages', () => {
  it('cover every command of the whole tree, each alias, the root and --version', () => {
    const names = new Set<string>();
    const walk = (cmd: ReturnType<typeof buildProgram>, path: string[]) => {
      names.add(pageName(path));
      for (const alias of cmd.aliases()) names.add(pageName([...path.slice(0, -1), alias]));
      for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
    };
    walk(buildProgram(), []);
    expect(new Set([...pages.keys()].filter((n) => n !== '_version'))).toEqual(names);
    expect(pages.get('_version')).toBe(`${VERSION}\n`);
    expect(names.size).toBeGreaterThan(80);
  });

  it('are what the entry prints for <command> --help and -h, and for --version and -v', async () => {
    for (const [name, text] of pages) {
      const words = name === '_root' ? [] : name.split('.');
      const argvs =
        name === '_version'
          ? [['--version'], ['-v']]
          : [
              [...words, '--help'],
              [...words, '-h'],
            ];
      for (const argv of argvs) {
        const r = await entryPrints(argv);
        expect(r.code, argv.join(' ')).toBe(name === '_version' ? 'commander.version' : 'commander.helpDisplayed');
        expect(r.err, argv.join(' ')).toBe('');
        expect(r.out, argv.join(' ')).toBe(text);
      }
    }
  });

  it.runIf(existsSync(new URL('../../dist/help', import.meta.url)))('are the files the build wrote to dist/help/', () => {
    const dir = new URL('../../dist/help/', import.meta.url);
    const files = readdirSync(dir).sort();
    expect(files).toEqual([...pages.keys()].map((n) => `${n}.txt`).sort());
    // (the build's version is the package's; these tests run from source, where it is 0.0.0-dev)
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    // Each after its head line, `pay page <bytes> <sum>` (bin/pay.js refuses a page empty, cut short
    // or changed; test/e2e/damaged-build.test.ts runs it on pages, whole and changed).
    for (const [name, text] of pages) {
      const page = name === '_version' ? `${pkg.version}\n` : text;
      const file = readFileSync(new URL(`${name}.txt`, dir), 'utf8');
      expect(file, name).toMatch(new RegExp(`^pay page ${Buffer.byteLength(page)} [0-9a-f]{8}\n`));
      expect(file.slice(file.indexOf('\n') + 1), name).toBe(page);
    }
  });
});
