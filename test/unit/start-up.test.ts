// What `pay --version` and `pay --help` load: one CommonJS file with commander, the declarations
// and the group specs; everything else in dist/impl.cjs, loaded through bin/load.js when a command
// runs, each bundle with the V8 code cache the build trained (contract: cheap start-up).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
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

  it('the built entry requires node built-ins and the loader only; the rest comes from dist/impl.cjs, and no import() is left', () => {
    const entry = readFileSync(dist('cli.cjs'), 'utf8');
    expect(requires(entry).filter((r) => !isBuiltin(r) && r !== '../bin/load.js')).toEqual([]);
    const lazy = [...entry.matchAll(/\.join\(__dirname, ?"impl\.cjs"\)\)\.load\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(lazy.length).toBeGreaterThan(10);
    expect(lazy).toContain('cmdutil/dispatch');
    expect(entry).not.toMatch(/\bimport\(/);
    for (const dep of ['undici', 'proper-lockfile', 'chalk', '@inquirer/prompts', 'yaml', 'jq-wasm', 'child_process']) {
      expect(entry).not.toContain(`"${dep}"`);
      expect(entry).not.toContain(`"node:${dep}"`);
    }
  });

  it('dist/impl.cjs requires built-ins and the four packages it leaves in node_modules only, and holds no import()', () => {
    const impl = readFileSync(dist('impl.cjs'), 'utf8');
    // (node:sqlite is not a built-in of Node 20: undici only probes for it)
    const packages = new Set(requires(impl).filter((r) => !isBuiltin(r) && !r.startsWith('node:')));
    expect([...packages].sort()).toEqual(['@inquirer/prompts', 'jq-wasm', 'proper-lockfile', 'yaml']);
    expect(impl).not.toMatch(/\bimport\("/);
    // undici is bundled as its Agent: none of the parts pay does not use.
    for (const part of ['lib/web/fetch/index.js', 'lib/web/websocket/', 'lib/mock/', 'lib/cache/', 'lib/interceptor/'])
      expect(impl).not.toContain(`node_modules/undici/${part}`);
  });

  it('each bundle starts with its build id, and `pay` loads both with their trained code caches', () => {
    for (const name of ['cli.cjs', 'impl.cjs']) {
      const id = /^\/\* pay bundle ([0-9a-f]{16}) \*\//.exec(readFileSync(dist(name), 'utf8'))?.[1];
      expect(id, name).toBeDefined();
      expect(readFileSync(dist(`${name}.cache`)).toString('latin1', 0, 16), `${name}.cache`).toBe(id);
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
      { file: dist('cli.cjs'), cache: 'used' },
      { file: dist('impl.cjs'), cache: 'used' },
    ]);
  });
});
