// The rooms of src/ in one order, top to bottom (ARCHITECTURE.md's rooms table is ORDER, checked below;
// a case here checks that the paths it names exist and that it lists every room). A file imports
// from its own room and from the rooms below it: never from a room above, nor from a peer (a room
// on its own line of ORDER). The emulator is sealed, outside the order: it imports only shared.
// Every import of every source file — static `import`/`export … from`, dynamic `import()` and
// `import type` — read with the TypeScript compiler's parser, is checked; failures name the file,
// the import and the rule. Synthetic trees (every pair of rooms, generated graphs, the real tree
// with an upward import added) prove the checker fails on what it must refuse.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// ---------------------------------------------------------------------------------------------
// The order: each line a tier, the rooms on one line peers (neither imports the other). A room is
// a top folder of src/, or `entry` (src/cli.ts and src/argv.ts).
const ORDER: readonly (readonly string[])[] = [
  // argv in, exit code out: builds the tree and the one Factory.
  ['entry'],
  // Build, generate and demo tooling.
  ['scripts'],
  // Shell completion scripts, generated from the tree.
  ['completion'],
  // One folder per command or group, the root command and the whole tree.
  ['commands'],
  // The resource-verb engine: dispatcher, shared steps, values, constraints, --data, bulk runs;
  // the help topics (Markdown rendered to the terminal's width, man pages), which `pay help` shows.
  ['verbs', 'docs'],
  // Command plumbing: Factory, declaration types, registration, the dispatcher, the replay note.
  ['cmdutil'],
  // Engines of bulk creates and seed files.
  ['bulk', 'seed'],
  // The HTTP client and the contract (OpenAPI) pay speaks.
  ['api'],
  // Settings (flag > env > profile > default) and the config store.
  ['config'],
  // Streams, printers, prompts, output flags, progress.
  ['io'],
  // Small CLI-side utilities: errors and their printing, escaping, the poll loop, bounded reads.
  ['lib'],
  // Leaf modules both sides use (validation, domains, ISO tables, keys, signatures, events).
  ['shared'],
];

/** The emulator: sealed, outside the order. It imports only `imports`; only `importers` import it, and only `door`. */
const SEALED = { room: 'emulator', imports: ['shared'], importers: /^src\/commands\/emulator\//, door: 'src/emulator/index.ts' };

/** The npm packages each room may use (type-only imports of any are free). */
const PACKAGES: Record<string, string[]> = {
  entry: ['commander'],
  scripts: ['esbuild'],
  completion: ['commander'],
  docs: ['commander'],
  commands: ['commander'],
  cmdutil: ['commander', 'undici'],
  api: ['undici', 'yaml'],
  io: ['chalk', '@inquirer/prompts', 'jq-wasm'],
  seed: ['yaml'],
};

/** Every room: the order's and the sealed one. */
const ROOMS = [...ORDER.flat(), SEALED.room];

/** A room's tier in ORDER (0 the top), or undefined (the sealed room, or none). */
function tierOf(room: string): number | undefined {
  const i = ORDER.findIndex((line) => line.includes(room));
  return i < 0 ? undefined : i;
}

/** Why room `from` may not import room `to`, or undefined when it may. */
function refusal(from: string, to: string): string | undefined {
  if (from === to) return undefined;
  if (from === SEALED.room)
    return SEALED.imports.includes(to) ? undefined : `the emulator is sealed: it imports only ${SEALED.imports.join(', ')}`;
  if (to === SEALED.room) return from === 'commands' ? undefined : 'the emulator is sealed: only src/commands/emulator/ imports it';
  const [a, b] = [tierOf(from)!, tierOf(to)!];
  if (b < a) return 'it is above it';
  if (b === a) return 'they are peers (one line of the order)';
  return undefined;
}

/**
 * A command's declaration (src/commands/<name>/index.ts): data. The build keeps the ones the start-up
 * path imports with import() (the group specs) inside the start-up bundle, evaluated when first
 * imported (src/scripts/build.mjs, DECLARATION), so they are held to its rules as well.
 */
const DECLARATION = /^src\/commands\/[^/]+\/index\.ts$/;

/**
 * Modules the start-up bundle (src/cli.ts's static imports, transitively, and the declarations it
 * imports with import()) must not hold: each loads when a command runs.
 */
const HEAVY = {
  files: [
    /^src\/api\/(client|transport|url|answers|errors)\.ts$/,
    /^src\/config\/store\.ts$/,
    /^src\/io\/(prompt|output|progress|jq|csv)\.ts$/,
    /^src\/api\/(openapi|response-fields)\.ts$/,
    /^src\/api\/contract\//,
    /^src\/cmdutil\/dry-run\.ts$/,
    /^src\/(seed|bulk|verbs|emulator)\//,
  ],
  packages: ['undici', 'chalk', '@inquirer/prompts', 'yaml', 'jq-wasm'],
};

// ---------------------------------------------------------------------------------------------
// The checker

interface Import {
  from: string;
  spec: string;
  /** The file it names (src/…/x.ts), or the npm package, or node:… */
  target: string;
  dynamic: boolean;
  typeOnly: boolean;
}

function roomOf(file: string): string | undefined {
  if (file === 'src/cli.ts' || file === 'src/argv.ts') return 'entry';
  const m = /^src\/([^/]+)\//.exec(file);
  return m ? m[1] : undefined;
}

function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Parsed imports by file and text: the generated cases below check the real tree many times over. */
const parsed = new Map<string, Import[]>();

function importsOf(file: string, text: string): Import[] {
  const key = `${file}\0${text}`;
  const cached = parsed.get(key);
  if (cached) return cached;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Import[] = [];
  const add = (spec: string, dynamic: boolean, typeOnly: boolean) => {
    const target = spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts') : spec;
    out.push({ from: file, spec, target, dynamic, typeOnly });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      add(n.moduleSpecifier.text, false, Boolean(n.importClause?.isTypeOnly));
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      add(n.moduleSpecifier.text, false, n.isTypeOnly);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = n.arguments[0];
      if (arg && ts.isStringLiteral(arg)) add(arg.text, true, false);
      else out.push({ from: file, spec: '<computed>', target: '<computed>', dynamic: true, typeOnly: false });
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      add(n.argument.literal.text, false, true);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  parsed.set(key, out);
  return out;
}

/** Every broken rule in a tree of files (path relative to the repository → text). */
export function violations(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  const all = new Map<string, Import[]>();
  for (const [file, text] of files) all.set(file, importsOf(file, text));
  for (const [file, imports] of all) {
    const room = roomOf(file);
    if (!room) continue;
    if (!ROOMS.includes(room)) {
      problems.push(`${file}: room "${room}" is not in the order (add it to ORDER and ARCHITECTURE.md)`);
      continue;
    }
    for (const i of imports) {
      const at = `${file}: import "${i.spec}"`;
      if (i.target === '<computed>') {
        problems.push(`${at}: a computed import() cannot be checked`);
        continue;
      }
      if (i.target.startsWith('node:')) continue;
      if (i.spec.startsWith('.')) {
        if (!files.has(i.target)) {
          problems.push(`${at}: no such file ${i.target}`);
          continue;
        }
        if (i.target === 'src/cli.ts') problems.push(`${at}: nothing imports the entry`);
        const to = roomOf(i.target);
        if (!to) problems.push(`${at}: outside src/`);
        else if (!ROOMS.includes(to)) problems.push(`${at}: room "${to}" is not in the order`);
        else {
          const why = refusal(room, to);
          if (why) problems.push(`${at}: room "${room}" may not import room "${to}": ${why}`);
        }
        if (to === SEALED.room && room !== SEALED.room && (!SEALED.importers.test(file) || i.target !== SEALED.door)) {
          problems.push(`${at}: the emulator is sealed: only src/commands/emulator/ imports it, and only ${SEALED.door}`);
        }
      } else {
        const pkg = packageOf(i.spec);
        if (!(PACKAGES[room] ?? []).includes(pkg) && !i.typeOnly) problems.push(`${at}: room "${room}" may not use the package "${pkg}"`);
      }
    }
  }
  // The start-up bundle: what src/cli.ts loads before any command runs.
  if (files.has('src/cli.ts')) {
    const seen = new Set<string>();
    const path = new Map<string, string>();
    const queue = ['src/cli.ts'];
    while (queue.length) {
      const f = queue.shift()!;
      if (seen.has(f)) continue;
      seen.add(f);
      for (const i of all.get(f) ?? []) {
        if (i.typeOnly || i.target.startsWith('node:') || (i.dynamic && !DECLARATION.test(i.target))) continue;
        const via = `${path.get(f) ?? 'src/cli.ts'} → ${i.spec.startsWith('.') ? i.target : i.spec}`;
        if (!i.spec.startsWith('.')) {
          if (HEAVY.packages.includes(packageOf(i.spec)))
            problems.push(`start-up bundle: ${via}: load "${i.spec}" with import() when the command runs`);
          continue;
        }
        if (HEAVY.files.some((re) => re.test(i.target)))
          problems.push(`start-up bundle: ${via}: load it with import() when the command runs`);
        if (!path.has(i.target)) path.set(i.target, via);
        queue.push(i.target);
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// ARCHITECTURE.md: the paths it names and its table of rooms, checked against the tree and ORDER.

/** The paths a map names in backticks (under src/, test/, bin/, completions/), without placeholders. */
function mapPaths(map: string): string[] {
  return [...map.matchAll(/`((?:src|test|bin|completions)\/[\w./<>-]*)`/g)]
    .map((m) => m[1]!.replace(/\/$/, ''))
    .filter((p) => !/[<>]/.test(p));
}

/** The rows of the map's rooms table: `| # | room | its job | may import | npm packages |`. */
function roomRows(map: string): Array<{ line: string; room: string; cells: string[] }> {
  const start = map.indexOf('\n## Rooms\n');
  if (start < 0) return [];
  const end = map.indexOf('\n## ', start + 1);
  const section = map.slice(start, end < 0 ? undefined : end);
  return section
    .split('\n')
    .filter((l) => /^\| (\d+|sealed) \|/.test(l))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      const room = cells[1]!.startsWith('entry:') ? 'entry' : (/^`src\/([^/`]+)\/`/.exec(cells[1]!)?.[1] ?? cells[1]!);
      return { line, room, cells };
    });
}

const listOf = (cell: string): string[] => (cell === '—' ? [] : cell.split(',').map((w) => w.trim()));

/** What is wrong with a map: paths it names that `exists` denies, and rooms table rows that are not ORDER's. */
function mapProblems(map: string, exists: (path: string) => boolean): string[] {
  const problems = mapPaths(map)
    .filter((p) => !exists(p))
    .map((p) => `ARCHITECTURE.md names ${p}, which is not in the tree`);
  if (!map.includes('\n## Rooms\n')) return [...problems, 'ARCHITECTURE.md has no "## Rooms" section'];
  const rows = roomRows(map);
  for (const room of ROOMS) {
    const mine = rows.filter((r) => r.room === room);
    if (mine.length !== 1) problems.push(`room ${room} has ${mine.length === 0 ? 'no row' : `${mine.length} rows`} in the rooms table`);
  }
  for (const { room, cells } of rows) {
    if (!ROOMS.includes(room)) {
      problems.push(`"${room}" is not a room of ORDER (a row of the rooms table)`);
      continue;
    }
    const tier = tierOf(room);
    const number = tier === undefined ? 'sealed' : String(tier + 1);
    if (cells[0] !== number) problems.push(`room ${room}: # is ${cells[0]}, ORDER says ${number}`);
    const may = ROOMS.filter((to) => to !== room && to !== 'entry' && refusal(room, to) === undefined);
    const said = listOf(cells[3] ?? '');
    if ([...said].sort().join() !== [...may].sort().join())
      problems.push(`room ${room}: may import ${said.join(', ') || '—'}; ORDER says ${may.join(', ') || '—'}`);
    const pkgs = PACKAGES[room] ?? [];
    const named = listOf(cells[4] ?? '');
    if ([...named].sort().join() !== [...pkgs].sort().join())
      problems.push(`room ${room}: npm packages ${named.join(', ') || '—'}; PACKAGES says ${pkgs.join(', ') || '—'}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

const ROOT = join(dirname(new URL(import.meta.url).pathname), '../..');

function sourceTree(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mts)$/.test(name)) files.set(relative(ROOT, p).split('\\').join('/'), readFileSync(p, 'utf8'));
      // Data a module imports (src/cmdutil/global-flags.json): a file there, importing nothing.
      else if (name.endsWith('.json')) files.set(relative(ROOT, p).split('\\').join('/'), '');
    }
  };
  walk(join(ROOT, 'src'));
  return files;
}

describe('import rules (the rooms of ARCHITECTURE.md)', () => {
  it('every import in src/ keeps to its room', () => {
    const tree = sourceTree();
    expect(tree.size).toBeGreaterThan(100);
    expect(violations(tree)).toEqual([]);
  });

  it('only the entry ends the process or sets its exit code', () => {
    const offenders = [...sourceTree()]
      .filter(([file, text]) => file !== 'src/cli.ts' && /\bprocess\.(exit\s*\(|exitCode\s*=[^=])/.test(text))
      .map(([file]) => file);
    expect(offenders, 'throw a PayError (exitNow to end at once) instead').toEqual([]);
  });

  it('every top folder of src/ is a room in the table, and every room exists', () => {
    const folders = readdirSync(join(ROOT, 'src')).filter((n) => statSync(join(ROOT, 'src', n)).isDirectory());
    expect(folders.sort()).toEqual(ROOMS.filter((r) => r !== 'entry').sort());
  });

  it('ARCHITECTURE.md matches the tree: every path it names exists, its rooms table is ORDER', () => {
    const map = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    expect(mapPaths(map).length).toBeGreaterThan(40);
    expect(mapProblems(map, (p) => existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('the map check fails on a map that names a missing path or a room wrongly (table of variants)', () => {
    const map = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const exists = (p: string) => existsSync(join(ROOT, p));
    const rows = roomRows(map);
    const rowOf = (room: string) => rows.find((r) => r.room === room)!.line;
    const cut = (text: string, line: string) => text.replace(`${line}\n`, '');
    const swap = (text: string, line: string, cell: number, value: string) => {
      const cells = line.split('|');
      cells[cell + 1] = ` ${value} `;
      return text.replace(line, cells.join('|'));
    };
    const variants: Array<[string, string, RegExp]> = [
      ['a path that is not there', `${map}\nSee \`src/lib/no-such-file.ts\`.\n`, /names src\/lib\/no-such-file\.ts/],
      ['a test path that is not there', `${map}\nSee \`test/unit/gone.test.ts\`.\n`, /names test\/unit\/gone\.test\.ts/],
      ['no rooms section', map.replace('## Rooms', '## Places'), /no "## Rooms" section/],
      [
        'a room that is not in ORDER',
        map.replace(rowOf('lib'), `${rowOf('lib')}\n| 11 | \`src/extra/\` | x | shared | — |`),
        /"extra" is not a room/,
      ],
      ['a room named twice', map.replace(rowOf('lib'), `${rowOf('lib')}\n${rowOf('lib')}`), /room lib has 2 rows/],
      ['a peer given its own number', swap(map, rowOf('docs'), 0, '6'), /room docs: # is 6, ORDER says 5/],
      ['the emulator in the order', swap(map, rowOf('emulator'), 0, '13'), /room emulator: # is 13, ORDER says sealed/],
      [
        'an import the order refuses',
        swap(map, rowOf('io'), 3, 'config, lib, shared'),
        /room io: may import config, lib, shared; ORDER says lib, shared/,
      ],
      ['an import left out', swap(map, rowOf('commands'), 3, 'verbs, docs, cmdutil'), /room commands: may import/],
      ['a package the test does not allow', swap(map, rowOf('lib'), 4, 'chalk'), /room lib: npm packages chalk; PACKAGES says —/],
    ];
    for (const room of ROOMS) variants.push([`room ${room} left out`, cut(map, rowOf(room)), new RegExp(`room ${room} has no row`)]);
    for (const [what, text, expected] of variants) expect(mapProblems(text, exists).join('\n'), what).toMatch(expected);
  });

  it('the checker fails on a tree that breaks each rule', () => {
    const tree = new Map<string, string>([
      ['src/cli.ts', "import { x } from './commands/index.js';\nimport { y } from './verbs/run.js';\n"],
      ['src/argv.ts', ''],
      [
        'src/commands/index.ts',
        "import chalk from 'chalk';\nexport const x = 1;\nconst spec = () => import('./cards/index.js');\nconst run = () => import('../verbs/bulk.js');\n",
      ],
      ['src/commands/cards/index.ts', "import { Printer } from '../../io/output.js';\n"],
      ['src/verbs/bulk.ts', ''],
      ['src/verbs/run.ts', 'export const y = 1;\n'],
      ['src/shared/validate.ts', "import { App } from '../emulator/app.js';\nimport { z } from '../lib/errors.js';\n"],
      ['src/emulator/index.ts', "import { ApiClient } from '../api/client.js';\nimport { request } from 'undici';\n"],
      ['src/emulator/app.ts', 'export class App {}\n'],
      ['src/api/client.ts', "export class ApiClient {}\nconst m = await import('../cli.js');\n"],
      ['src/lib/errors.ts', 'export const z = 1;\n'],
      ['src/commands/seed/run.ts', "import { App } from '../../emulator/app.js';\nconst f = 'x';\nawait import(f);\n"],
      ['src/io/output.ts', "import { resolveSettings } from '../config/settings.js';\n"],
      ['src/config/settings.ts', ''],
      ['src/nowhere/x.ts', ''],
    ]);
    const found = violations(tree).join('\n');
    expect(found).toContain('src/shared/validate.ts: import "../emulator/app.js": room "shared" may not import room "emulator"');
    expect(found).toContain('src/shared/validate.ts: import "../lib/errors.js": room "shared" may not import room "lib"');
    expect(found).toContain('src/emulator/index.ts: import "../api/client.js": room "emulator" may not import room "api"');
    expect(found).toContain('src/emulator/index.ts: import "undici": room "emulator" may not use the package "undici"');
    expect(found).toContain('src/commands/seed/run.ts: import "../../emulator/app.js": the emulator is sealed');
    expect(found).toContain('src/commands/seed/run.ts: import "<computed>": a computed import() cannot be checked');
    expect(found).toContain('src/api/client.ts: import "../cli.js": nothing imports the entry');
    expect(found).toContain('src/io/output.ts: import "../config/settings.js": room "io" may not import room "config"');
    expect(found).toContain('src/nowhere/x.ts: room "nowhere" is not in the order');
    expect(found).toContain('start-up bundle: src/cli.ts → src/commands/index.ts → chalk');
    expect(found).toContain('start-up bundle: src/cli.ts → src/verbs/run.ts: load it with import()');
    // A declaration imported with import() is part of the start-up bundle; any other module is not.
    expect(found).toContain(
      'start-up bundle: src/cli.ts → src/commands/index.ts → src/commands/cards/index.ts → src/io/output.ts: load it',
    );
    expect(found).not.toContain('src/verbs/bulk.ts: load it');
  });

  // The order restated as numbers (a line of ORDER is one number): what the generated cases expect.
  const TIER: Record<string, number> = {
    entry: 0,
    scripts: 1,
    completion: 2,
    commands: 3,
    verbs: 4,
    docs: 4,
    cmdutil: 5,
    bulk: 6,
    seed: 6,
    api: 7,
    config: 8,
    io: 9,
    lib: 10,
    shared: 11,
  };
  /** Whether a file of room `from` may import one of room `to` (the emulator: sealed, reached from commands only). */
  const may = (from: string, to: string): boolean =>
    from === to || (from === 'emulator' ? to === 'shared' : to === 'emulator' ? from === 'commands' : TIER[to]! > TIER[from]!);
  /** A file of the room (the emulator's importers in src/commands/emulator/, its door the index). */
  const fileIn = (room: string, name: string): string =>
    room === 'entry'
      ? 'src/argv.ts'
      : room === 'emulator'
        ? 'src/emulator/index.ts'
        : room === 'commands'
          ? `src/commands/emulator/${name}.ts`
          : `src/${room}/${name}.ts`;
  const spec = (from: string, to: string): string => {
    const rel = posix.relative(posix.dirname(from), to).replace(/\.ts$/, '.js');
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  const refusedIn = (found: readonly string[]) => found.filter((l) => / may not import room /.test(l));

  it('the order restated (TIER) is the one the checker reads', () => {
    expect(ROOMS.filter((r) => r !== 'emulator').sort()).toEqual(Object.keys(TIER).sort());
    for (const [i, line] of ORDER.entries())
      for (const room of line) expect(TIER[room], room).toBe(Object.values(TIER).filter((t, j, a) => a.indexOf(t) === j)[i]);
  });

  it('every pair of rooms: an import up, sideways or into the sealed emulator fails; one down passes (table)', () => {
    // The imports the order was made to refuse (issue 26), and some it allows, spelled out.
    const known: Array<[string, string, boolean]> = [
      ['cmdutil', 'commands', false],
      ['cmdutil', 'verbs', false],
      ['lib', 'io', false],
      ['io', 'config', false],
      ['api', 'cmdutil', false],
      ['shared', 'lib', false],
      ['bulk', 'seed', false],
      ['seed', 'bulk', false],
      ['verbs', 'docs', false],
      ['docs', 'verbs', false],
      ['commands', 'docs', true],
      ['docs', 'io', true],
      ['commands', 'scripts', false],
      ['verbs', 'commands', false],
      ['emulator', 'api', false],
      ['lib', 'emulator', false],
      ['commands', 'cmdutil', true],
      ['verbs', 'cmdutil', true],
      ['cmdutil', 'api', true],
      ['api', 'io', true],
      ['io', 'lib', true],
      ['lib', 'shared', true],
      ['emulator', 'shared', true],
      ['commands', 'emulator', true],
      ['entry', 'commands', true],
      ['scripts', 'completion', true],
    ];
    for (const [from, to, ok] of known) expect(may(from, to), `${from} → ${to}`).toBe(ok);
    let pairs = 0;
    for (const from of ROOMS) {
      for (const to of ROOMS) {
        if (from === to) continue;
        const [a, b] = [fileIn(from, 'a'), fileIn(to, 'b')];
        const found = violations(
          new Map([
            [a, `import { x } from '${spec(a, b)}';\n`],
            [b, 'export const x = 1;\n'],
          ]),
        );
        expect(refusedIn(found).length, `${from} → ${to}: ${found.join('; ')}`).toBe(may(from, to) ? 0 : 1);
        if (may(from, to)) expect(found, `${from} → ${to}`).toEqual([]);
        pairs++;
      }
    }
    expect(pairs).toBe(ROOMS.length * (ROOMS.length - 1));
  });

  it('generated import graphs: exactly the imports that point up or sideways are named (fast-check)', () => {
    const rooms = ROOMS.filter((r) => r !== 'entry');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...rooms), fc.constantFrom(...rooms), fc.boolean()), { minLength: 1, maxLength: 30 }),
        (edges) => {
          const tree = new Map<string, string>();
          const bad = new Set<string>();
          edges.forEach(([from, to, typeOnly], i) => {
            const a =
              from === 'commands'
                ? `src/commands/emulator/f${i}.ts`
                : from === 'emulator'
                  ? `src/emulator/f${i}.ts`
                  : `src/${from}/f${i}.ts`;
            const b = fileIn(to, `t${i}`);
            tree.set(a, `import ${typeOnly ? 'type ' : ''}{ x } from '${spec(a, b)}';\n`);
            if (!tree.has(b)) tree.set(b, 'export const x = 1;\n');
            if (from !== to && !may(from, to)) bad.add(a);
          });
          const named = new Set(refusedIn(violations(tree)).map((l) => l.split(':')[0]));
          expect([...named].sort()).toEqual([...bad].sort());
        },
      ),
      { seed: 2611, numRuns: 200 },
    );
  });

  it('the real tree with one import up added fails, naming it (fast-check)', () => {
    const tree = sourceTree();
    const files = [...tree.keys()].filter((f) => f.endsWith('.ts') && roomOf(f) !== undefined);
    fc.assert(
      fc.property(fc.constantFrom(...files), fc.nat(), (file, pick) => {
        const room = roomOf(file)!;
        const above = files.filter((f) => {
          const to = roomOf(f)!;
          return to !== room && to !== 'emulator' && f !== 'src/cli.ts' && !may(room, to);
        });
        if (above.length === 0) return; // shared's and the emulator's rules: every other room is refused (the table case)
        const target = above[pick % above.length]!;
        const mutated = new Map(tree);
        mutated.set(file, `${tree.get(file)!}\nimport type { Up } from '${spec(file, target)}';\n`);
        const found = refusedIn(violations(mutated));
        expect(found).toHaveLength(1);
        expect(found[0]).toContain(`${file}: import "${spec(file, target)}": room "${room}" may not import room "${roomOf(target)!}"`);
      }),
      { seed: 2612, numRuns: 40 },
    );
  });
});
