// The rooms of src/ and what each may import (ARCHITECTURE.md quotes ROOMS and the rules below;
// a case here checks that the paths it names exist and that it lists every room).
// Every import of every source file — static `import`/`export … from` and dynamic `import()`,
// read with the TypeScript compiler's parser — is checked against the table; failures name the
// file, the import and the rule. A synthetic tree with forbidden imports proves the checker fails.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// ---------------------------------------------------------------------------------------------
// The table: room → the other rooms and npm packages it may import (its own room and node:
// builtins always). A room is a top folder of src/, or one of the two entry files.
const ROOMS: Record<string, { rooms: string[]; packages: string[] }> = {
  // The entry: argv in, exit code out; builds the tree and the one Factory.
  entry: { rooms: ['cmdutil', 'commands', 'lib'], packages: ['commander'] },
  // Command plumbing: Factory, declaration types, registration, dispatcher, the root command.
  cmdutil: { rooms: ['api', 'commands', 'config', 'io', 'lib', 'shared', 'verbs'], packages: ['commander', 'undici'] },
  // One folder per command or group: declarations (index.ts) and their run modules.
  commands: { rooms: ['api', 'bulk', 'cmdutil', 'config', 'docs', 'emulator', 'io', 'lib', 'seed', 'shared', 'verbs'], packages: [] },
  // The resource-verb engine: dispatcher, shared steps, values, constraints, --data, bulk.
  verbs: { rooms: ['api', 'bulk', 'cmdutil', 'config', 'io', 'lib', 'shared'], packages: [] },
  // The HTTP client and the contract (OpenAPI) pay speaks.
  api: { rooms: ['config', 'io', 'lib', 'shared'], packages: ['undici', 'yaml'] },
  // Settings (flag > env > profile > default) and the config store.
  config: { rooms: ['lib', 'shared'], packages: [] },
  // Streams, printers (tables fitted to the terminal by their own layout), prompts, escaping, progress.
  io: { rooms: ['lib', 'shared'], packages: ['chalk', '@inquirer/prompts', 'jq-wasm'] },
  // Engines of bulk creates and seed files.
  bulk: { rooms: ['api', 'io', 'lib', 'shared'], packages: [] },
  seed: { rooms: ['api', 'config', 'io', 'lib', 'shared'], packages: ['yaml'] },
  // Shell completion scripts and the README's command reference, generated from the tree.
  completion: { rooms: ['cmdutil', 'commands', 'shared'], packages: ['commander'] },
  docs: { rooms: ['io', 'lib', 'shared'], packages: ['commander'] },
  // Small CLI-side utilities: errors and their printing, bounded reads, safe JSON, the version.
  lib: { rooms: ['io', 'shared'], packages: [] },
  // Leaf modules both sides use (validation, domains, ISO tables, keys, signatures, events).
  shared: { rooms: [], packages: [] },
  // The emulator: sealed, it reaches only the shared leaves.
  emulator: { rooms: ['shared'], packages: [] },
  // Build, generate and demo tooling.
  scripts: { rooms: ['cmdutil', 'commands', 'completion', 'docs'], packages: ['esbuild'] },
};

/** Only these files reach into the emulator, and only through its index. */
const EMULATOR_DOOR = { importers: /^src\/commands\/emulator\//, target: 'src/emulator/index.ts' };

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
    /^src\/api\/client\.ts$/,
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

function importsOf(file: string, text: string): Import[] {
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
    const rule = ROOMS[room];
    if (!rule) {
      problems.push(`${file}: room "${room}" is not in the table (add it to ROOMS and ARCHITECTURE.md)`);
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
        else if (to !== room && !rule.rooms.includes(to)) problems.push(`${at}: room "${room}" may not import room "${to}"`);
        if (to === 'emulator' && room !== 'emulator' && (!EMULATOR_DOOR.importers.test(file) || i.target !== EMULATOR_DOOR.target)) {
          problems.push(`${at}: the emulator is sealed: only src/commands/emulator/ imports it, and only ${EMULATOR_DOOR.target}`);
        }
      } else {
        const pkg = packageOf(i.spec);
        if (!rule.packages.includes(pkg) && !i.typeOnly) problems.push(`${at}: room "${room}" may not use the package "${pkg}"`);
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
    expect(folders.sort()).toEqual(
      Object.keys(ROOMS)
        .filter((r) => r !== 'entry')
        .sort(),
    );
  });

  it('ARCHITECTURE.md matches the tree: every path it names exists, every room is in its table', () => {
    const map = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const paths = [...map.matchAll(/`((?:src|test|bin|completions)\/[\w./<>-]*)`/g)].map((m) => m[1]!.replace(/\/$/, ''));
    expect(paths.length).toBeGreaterThan(40);
    const missing = paths.filter((p) => !/[<>]/.test(p) && !existsSync(join(ROOT, p)));
    expect(missing, 'paths ARCHITECTURE.md names that are not in the tree').toEqual([]);
    const table = map.slice(map.indexOf('## Rooms'), map.indexOf('Three rules on top of the table'));
    for (const room of Object.keys(ROOMS)) {
      expect(table, `room ${room} in ARCHITECTURE.md's table`).toMatch(
        room === 'entry' ? /\| entry: `src\/cli\.ts`/ : new RegExp(`\`src/${room}/\``),
      );
    }
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
    expect(found).toContain('src/nowhere/x.ts: room "nowhere" is not in the table');
    expect(found).toContain('start-up bundle: src/cli.ts → src/commands/index.ts → chalk');
    expect(found).toContain('start-up bundle: src/cli.ts → src/verbs/run.ts: load it with import()');
    // A declaration imported with import() is part of the start-up bundle; any other module is not.
    expect(found).toContain(
      'start-up bundle: src/cli.ts → src/commands/index.ts → src/commands/cards/index.ts → src/io/output.ts: load it',
    );
    expect(found).not.toContain('src/verbs/bulk.ts: load it');
  });
});
