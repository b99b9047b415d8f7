// What `pay --version` and `pay --help` load: one CommonJS file with commander, the declarations
// and the group specs; everything else in dist/impl.cjs, loaded through bin/load.js when a command
// runs, each bundle with the V8 code cache the build trained (contract: cheap start-up).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GROUP_HEADS } from '../../src/commands/group-index.js';
import { allGroups } from '../../src/commands/groups.js';

const dist = (name: string) => new URL(`../../dist/${name}`, import.meta.url).pathname;
const requires = (text: string) => [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!);

describe('start-up path', () => {
  it("the group index lists every group, in order, with the specs' names and summaries", () => {
    expect(Object.keys(GROUP_HEADS)).toEqual(allGroups.map((g) => g.name));
    for (const g of allGroups) expect(GROUP_HEADS[g.name as keyof typeof GROUP_HEADS]).toMatchObject({ name: g.name, summary: g.summary });
  });

  it('the built entry requires node built-ins and the loader only; the rest comes from dist/impl.cjs and dist/more.cjs, and no import() is left', () => {
    const entry = readFileSync(dist('cli.cjs'), 'utf8');
    expect(requires(entry).filter((r) => !isBuiltin(r) && r !== '../bin/load.js')).toEqual([]);
    const lazy = [...entry.matchAll(/\.join\(__dirname, ?"(impl|more)\.cjs"\)\)\.load\("([^"]+)"\)/g)].map((m) => `${m[1]!}:${m[2]!}`);
    expect(lazy.length).toBeGreaterThan(10);
    // What every command runs (the dispatcher, the Factory, the error path) is in dist/impl.cjs.
    expect(lazy).toEqual(
      expect.arrayContaining(['impl:cmdutil/dispatch', 'impl:cmdutil/factory', 'impl:lib/errors', 'impl:lib/handle-error']),
    );
    expect(entry).not.toMatch(/\bimport\(/);
    for (const dep of ['undici', 'chalk', '@inquirer/prompts', 'yaml', 'jq-wasm', 'child_process']) {
      expect(entry).not.toContain(`"${dep}"`);
      expect(entry).not.toContain(`"node:${dep}"`);
    }
  });

  it('dist/impl.cjs and dist/more.cjs require built-ins, each other and the three packages left in node_modules only, and hold no import()', () => {
    const bundles = ['impl.cjs', 'more.cjs'].map((name) => readFileSync(dist(name), 'utf8'));
    // (node:sqlite is not a built-in of Node 20: undici only probes for it)
    const packages = new Set(
      bundles.flatMap((b) => requires(b).filter((r) => !isBuiltin(r) && !r.startsWith('node:') && r !== '../bin/load.js')),
    );
    expect([...packages].sort()).toEqual(['@inquirer/prompts', 'jq-wasm', 'yaml']);
    for (const b of bundles) {
      expect(b).not.toMatch(/\bimport\("/);
      // undici is bundled as its Agent: none of the parts pay does not use.
      for (const part of ['lib/web/fetch/index.js', 'lib/web/websocket/', 'lib/mock/', 'lib/cache/', 'lib/interceptor/'])
        expect(b).not.toContain(`node_modules/undici/${part}`);
    }
  });

  it('each module is in one bundle only (one instance of it), and what an API command never runs is in dist/more.cjs', () => {
    // A module's name from its project root (`../…/node_modules/…` where node_modules is a link).
    const named = (m: string) => (m.includes('node_modules/') ? m.slice(m.lastIndexOf('node_modules/')) : m.replace(/^(\.\.\/)+/, ''));
    const modules = (name: string) =>
      new Set(
        [...readFileSync(dist(name), 'utf8').matchAll(/"((?:\.\.\/)*(?:[\w.@-]+\/)*?(?:src|node_modules)\/[\w./@-]+\.[cm]?[jt]s)"\(/g)].map(
          (m) => named(m[1]!),
        ),
      );
    const [impl, more] = [modules('impl.cjs'), modules('more.cjs')];
    expect(impl.size).toBeGreaterThan(10);
    expect(more.size).toBeGreaterThan(10);
    // The build's stand-ins (src/scripts/: the bundle's own URL, chalk's Chalk) are the only modules in both: they hold no state.
    expect([...impl].filter((m) => more.has(m)).sort()).toEqual(['src/scripts/bundle-url.mjs', 'src/scripts/chalk.mjs']);
    expect([...impl]).toEqual(
      expect.arrayContaining(['src/api/client.ts', 'src/io/output.ts', 'src/verbs/run.ts', 'node_modules/undici/lib/dispatcher/agent.js']),
    );
    for (const m of impl)
      expect(m).not.toMatch(/^src\/(emulator|seed|bulk|api\/contract)\/|^src\/io\/jq\.ts$|^node_modules\/undici\/lib\/web\//);
  });

  it('no module of dist/cli.cjs (the group specs, spec.ts, the domain tables) is bundled again in dist/impl.cjs or dist/more.cjs', () => {
    // Every source a bundle holds, by its source map (a module another bundle holds is a stand-in there: no source).
    const sources = (name: string) =>
      new Set(
        (JSON.parse(readFileSync(dist(`${name}.map`), 'utf8')) as { sources: string[] }).sources
          .map((s) => s.replace(/^(\.\.\/)+/, ''))
          .filter((s) => /^(src|node_modules)\//.test(s)),
      );
    const [cli, impl, more] = [sources('cli.cjs'), sources('impl.cjs'), sources('more.cjs')];
    expect([...cli]).toEqual(expect.arrayContaining(['src/commands/customers/index.ts', 'src/cmdutil/spec.ts', 'src/shared/domain.ts']));
    expect([...cli].filter((m) => impl.has(m) || more.has(m))).toEqual([]);
    // …and what they use of it comes from dist/cli.cjs's registry.
    expect(readFileSync(dist('more.cjs'), 'utf8')).toMatch(/\.join\(__dirname, ?"cli\.cjs"\)\)\.load\("commands\/customers\/index"\)/);
  });

  it('each bundle starts with its build id and is listed with its CRC-32, and `pay` loads both with their trained code caches', () => {
    const hex = (bytes: Uint8Array) => crc32(bytes).toString(16).padStart(8, '0');
    const names = ['cli.cjs', 'impl.cjs', 'more.cjs'];
    expect(readFileSync(dist('checksums.txt'), 'latin1')).toBe(names.map((name) => `${hex(readFileSync(dist(name)))} ${name}\n`).join(''));
    // Every cache: the build id, the bundle's CRC, the CRC of V8's data, then V8's data.
    const caches = readdirSync(dist('')).filter((f) => f.endsWith('.cache'));
    expect(caches).toEqual(expect.arrayContaining(names.map((name) => `${name}.cache`)));
    for (const cache of caches) {
      const name = /^[a-z]+\.cjs/.exec(cache)![0];
      const id = /^\/\* pay bundle ([0-9a-f]{16}) \*\//.exec(readFileSync(dist(name), 'utf8'))?.[1];
      expect(id, name).toBeDefined();
      const bytes = readFileSync(dist(cache));
      expect(bytes.toString('latin1', 0, 32), cache).toBe(`${id!}${hex(readFileSync(dist(name)))}${hex(bytes.subarray(32))}`);
    }
    // `pay api GET x` with no key fails before sending: it loads both bundles and prints an error.
    const script = `
      process.argv = [process.execPath, 'pay', 'api', 'GET', 'customers'];
      const loader = require(${JSON.stringify(new URL('../../bin/load.js', import.meta.url).pathname)});
      loader.load(${JSON.stringify(dist('cli.cjs'))});
      process.on('exit', () => process.stdout.write(JSON.stringify(loader.loaded())));`;
    const r = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, PAY_CONFIG_DIR: '/nonexistent-pay-test' },
    });
    expect(r.stderr).toMatch(/^error: no API key/);
    expect(JSON.parse(r.stdout)).toEqual([
      { file: dist('cli.cjs'), cache: 'used', notUsed: [] },
      { file: dist('impl.cjs'), cache: 'used', notUsed: [] },
    ]);
  });
});
