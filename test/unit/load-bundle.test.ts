// bin/load.js: a bundle is loaded with its code cache only when the cache carries the bundle's
// build id and V8 accepts it; any other cache file (missing, of another build, damaged, hostile
// bytes) costs only the compile, never the result. A missing bundle is MODULE_NOT_FOUND naming it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

interface Loader {
  load(file: string): Record<string, unknown>;
  loaded(): Array<{ file: string; cache: 'used' | 'refused' | 'none' }>;
  saveCaches(): void;
}
const loader = createRequire(import.meta.url)('../../bin/load.js') as Loader;

const dir = mkdtempSync(join(tmpdir(), 'pay-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A bundle file (each test its own path: the loader keeps what it loaded). */
function bundle(id: string, body = 'exports.answer = function answer() { return 40 + 2; };'): string {
  const file = join(dir, `b${n++}.cjs`);
  writeFileSync(file, `/* pay bundle ${id} */\n${body}\n`);
  return file;
}
const status = (file: string) => loader.loaded().find((b) => b.file === file)?.cache;
const ID = '0123456789abcdef';

describe('bin/load.js', () => {
  it('loads a bundle without a cache, then with the cache it wrote', () => {
    const first = bundle(ID);
    expect((loader.load(first).answer as () => number)()).toBe(42);
    expect(status(first)).toBe('none');
    loader.saveCaches();
    // The same text under another name (a new process would load the same path; the loader keeps one per path).
    const second = bundle(ID);
    writeFileSync(`${second}.cache`, readCache(first));
    expect((loader.load(second).answer as () => number)()).toBe(42);
    expect(status(second)).toBe('used');
  });

  it("ignores a cache whose build id is not the bundle's", () => {
    const made = bundle(ID);
    loader.load(made);
    loader.saveCaches();
    const other = bundle('fedcba9876543210');
    writeFileSync(`${other}.cache`, readCache(made));
    expect((loader.load(other).answer as () => number)()).toBe(42);
    expect(status(other)).toBe('none');
  });

  it('any bytes after the right id: the bundle still loads and works, the cache is refused', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 2048 }), (bytes) => {
        const file = bundle(ID);
        writeFileSync(`${file}.cache`, Buffer.concat([Buffer.from(ID, 'latin1'), Buffer.from(bytes)]));
        expect((loader.load(file).answer as () => number)()).toBe(42);
        expect(['refused', 'none']).toContain(status(file));
      }),
      { numRuns: 60 },
    );
  });

  it('a bundle without its first line is compiled from source, its cache never read', () => {
    const file = join(dir, `b${n++}.cjs`);
    writeFileSync(file, 'exports.answer = () => 42;\n');
    writeFileSync(`${file}.cache`, 'garbage');
    expect((loader.load(file).answer as () => number)()).toBe(42);
    expect(status(file)).toBe('none');
  });

  it('a missing bundle is MODULE_NOT_FOUND naming it', () => {
    const missing = join(dir, 'nowhere.cjs');
    expect(() => loader.load(missing)).toThrow(
      expect.objectContaining({ code: 'MODULE_NOT_FOUND', message: `Cannot find module '${missing}'` }),
    );
  });

  it('a bundle gets require, module, __filename and __dirname of its own path, and is loaded once', () => {
    const file = bundle(
      ID,
      "exports.where = [__filename, __dirname]; exports.path = require('node:path').sep; exports.count = (globalThis.__payLoadCount = (globalThis.__payLoadCount ?? 0) + 1);",
    );
    const a = loader.load(file);
    const b = loader.load(file);
    expect(a).toBe(b);
    expect(a.where).toEqual([file, dir]);
    expect(a.count).toBe(1);
  });
});

function readCache(file: string): Buffer {
  return readFileSync(`${file}.cache`);
}
