// bin/load.js: a bundle is compiled only when it is of the CRC-32 the build listed beside it
// (dist/checksums.txt), and loaded with a code cache only when the cache was made for exactly it
// (its build id and CRC in the cache's header) and V8's data in it is whole (the CRC the header
// gives) and V8 accepts it; any other cache file (missing, of another build, of a same-length
// edit, a byte or a block damaged, hostile bytes, not a regular file) costs only the compile,
// never the result. A bundle missing, cut short, with a byte changed, not listed or not a regular
// file is PAY_BUILD_DAMAGED, which pay prints as one line (test/e2e/damaged-build.test.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

interface Loader {
  load(file: string): Record<string, unknown>;
  loaded(): Array<{ file: string; cache: 'used' | 'refused' | 'none'; notUsed: Array<[string, string]> }>;
  saveCaches(kind?: string): void;
  kindOf(argv: readonly string[]): string;
  writeChecksums(dir: string, names: string[]): void;
}
const loader = createRequire(import.meta.url)('../../bin/load.js') as Loader;

const dir = mkdtempSync(join(tmpdir(), 'pay-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Lists every bundle of the folder in its checksums.txt, as the build does. */
function seal(folder = dir): void {
  loader.writeChecksums(
    folder,
    readdirSync(folder).filter((f) => f.endsWith('.cjs') && lstatSync(join(folder, f)).isFile()),
  );
}
/** A bundle file (each test its own path: the loader keeps what it loaded), listed as the build lists it. */
function bundle(id: string, body = 'exports.answer = function answer() { return 40 + 2; };'): string {
  const file = join(dir, `b${n++}.cjs`);
  // As the build writes it: the build id, then the CommonJS module function around the code.
  writeFileSync(file, `/* pay bundle ${id} */(function (exports, require, module, __filename, __dirname) {\n${body}\n});\n`);
  seal();
  return file;
}
const status = (file: string) => loader.loaded().find((b) => b.file === file)?.cache;
const notUsed = (file: string) => loader.loaded().find((b) => b.file === file)?.notUsed;
const ID = '0123456789abcdef';
/** A cache's header: the build id, the bundle's CRC and V8's data's CRC, 8 hex digits each. */
const HEAD = 32;
const crcOf = (bytes: Uint8Array) => crc32(bytes).toString(16).padStart(8, '0');

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

  it("ignores a cache whose build id or bundle CRC is not the bundle's", () => {
    const made = bundle(ID);
    loader.load(made);
    loader.saveCaches();
    const other = bundle('fedcba9876543210');
    writeFileSync(`${other}.cache`, readCache(made));
    expect((loader.load(other).answer as () => number)()).toBe(42);
    expect(status(other)).toBe('none');
    expect(notUsed(other)).toEqual([[`${other}.cache`, 'made for another build']]);
    // Same id, other bytes (a bundle rebuilt or edited without a new id): its CRC is not the one the cache was made for.
    const edited = bundle(ID, 'exports.answer = function answer() { return 50 + 2; };');
    writeFileSync(`${edited}.cache`, readCache(made));
    expect((loader.load(edited).answer as () => number)()).toBe(52);
    expect(notUsed(edited)).toEqual([[`${edited}.cache`, 'made for another build']]);
  });

  it('any bytes after the right header, or a header alone: the bundle still loads and works, the cache is not used', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 2048 }), fc.boolean(), (bytes, rightCrc) => {
        const file = bundle(ID);
        const sum = crcOf(readFileSync(file));
        // Hostile bytes, under the CRC of other bytes or (rightCrc) their own: V8 refuses what it cannot read.
        const data = Buffer.from(bytes);
        const head = `${ID}${sum}${rightCrc ? crcOf(data) : crcOf(Buffer.concat([data, Buffer.from('x')]))}`;
        writeFileSync(`${file}.cache`, Buffer.concat([Buffer.from(head, 'latin1'), data]));
        expect((loader.load(file).answer as () => number)()).toBe(42);
        expect(status(file)).not.toBe('used');
        const why = notUsed(file)![0]![1];
        if (data.length === 0) expect(why).toBe('damaged (cut short)');
        else if (!rightCrc) expect(why).toBe('damaged (its CRC does not match)');
        else expect(why).toMatch(/^refused by V8/);
      }),
      { numRuns: 60 },
    );
  });

  it('a real cache with a byte or a block changed at a generated place: the bundle loads and works without it, never crashes', () => {
    // Enough functions for V8's data to be more than its header: each compiled (run) before the cache is made.
    const body = `${Array.from({ length: 40 }, (_, i) => `function f${i}(x) { return x + ${i}; }`).join('\n')}
exports.answer = function answer() { let s = 0; ${Array.from({ length: 40 }, (_, i) => `s += f${i}(1);`).join(' ')} return s; };`;
    const made = bundle(ID, body);
    const want = (loader.load(made).answer as () => number)();
    loader.saveCaches();
    const cache = readCache(made);
    expect(cache.length).toBeGreaterThan(HEAD + 1000);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: cache.length - 1 }),
        fc.integer({ min: 1, max: 256 }),
        fc.integer({ min: 1, max: 255 }),
        (at, length, xor) => {
          const file = join(dir, `b${n++}.cjs`);
          writeFileSync(file, readFileSync(made));
          seal();
          const damaged = Buffer.from(cache);
          for (let i = at; i < Math.min(at + length, damaged.length); i++) damaged[i]! ^= xor;
          writeFileSync(`${file}.cache`, damaged);
          expect((loader.load(file).answer as () => number)()).toBe(want);
          expect(status(file)).toBe('none');
          expect(notUsed(file)).toEqual([[`${file}.cache`, at < HEAD - 8 ? 'made for another build' : 'damaged (its CRC does not match)']]);
        },
      ),
      { numRuns: 60, seed: 24 },
    );
    // …and undamaged, the same copy is used.
    const whole = join(dir, `b${n++}.cjs`);
    writeFileSync(whole, readFileSync(made));
    seal();
    writeFileSync(`${whole}.cache`, cache);
    expect((loader.load(whole).answer as () => number)()).toBe(want);
    expect(status(whole)).toBe('used');
  });

  it('a bundle with any byte or block changed (same length, build id or not) is PAY_BUILD_DAMAGED, never run', () => {
    const body = (k: number) => `exports.answer = function answer() { return ${k} + 2; };`;
    const made = bundle(ID, body(40));
    loader.load(made);
    loader.saveCaches();
    // A same-length edit that compiles and runs (another number), build id kept: what the id alone let through.
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 99 }).filter((k) => k !== 40),
        (k) => {
          const file = join(dir, `b${n++}.cjs`);
          writeFileSync(file, readFileSync(made));
          seal();
          writeFileSync(file, readFileSync(made, 'latin1').replace(body(40), body(k)));
          expect(readFileSync(file).length).toBe(readFileSync(made).length);
          expect(() => loader.load(file)).toThrow(expect.objectContaining({ code: 'PAY_BUILD_DAMAGED' }));
        },
      ),
      { numRuns: 5, seed: 24 },
    );
    const bytes = readFileSync(made);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: bytes.length - 1 }),
        fc.integer({ min: 1, max: 32 }),
        fc.integer({ min: 1, max: 255 }),
        (at, length, xor) => {
          const file = join(dir, `b${n++}.cjs`);
          writeFileSync(file, bytes);
          seal();
          const copy = Buffer.from(bytes);
          for (let i = at; i < Math.min(at + length, copy.length); i++) copy[i]! ^= xor;
          writeFileSync(file, copy);
          writeFileSync(`${file}.cache`, readCache(made));
          expect(() => loader.load(file)).toThrow(
            expect.objectContaining({ code: 'PAY_BUILD_DAMAGED', message: 'pay is not built or its build is damaged: run npm run build' }),
          );
          expect(status(file)).toBeUndefined();
        },
      ),
      { numRuns: 60, seed: 24 },
    );
  });

  it('a bundle not listed in checksums.txt, or that file missing, cut, damaged or not a regular file: PAY_BUILD_DAMAGED', () => {
    const damaged = expect.objectContaining({ code: 'PAY_BUILD_DAMAGED' });
    const own = (damage: (list: string) => void) => {
      const folder = mkdtempSync(join(dir, 'sums-'));
      const file = join(folder, 'x.cjs');
      writeFileSync(file, readFileSync(bundle(ID)));
      seal(folder);
      damage(join(folder, 'checksums.txt'));
      return file;
    };
    expect(() => loader.load(own((list) => rmSync(list)))).toThrow(damaged);
    expect(() => loader.load(own((list) => writeFileSync(list, '')))).toThrow(damaged);
    expect(() => loader.load(own((list) => writeFileSync(list, readFileSync(list, 'latin1').replace('x.cjs', 'y.cjs'))))).toThrow(damaged);
    // Its line cut short, even by its newline alone.
    expect(() => loader.load(own((list) => writeFileSync(list, readFileSync(list, 'latin1').slice(0, -1))))).toThrow(damaged);
    expect(() => loader.load(own((list) => (rmSync(list), spawnSync('mkfifo', [list]))))).toThrow(damaged);
    expect(() => loader.load(own((list) => (rmSync(list), symlinkSync('/dev/zero', list))))).toThrow(damaged);
    // Any one hex digit of the CRC changed.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 15 }), (at, add) => {
        const file = own((list) => {
          const text = readFileSync(list, 'latin1');
          writeFileSync(list, `${text.slice(0, at)}${((parseInt(text[at]!, 16) + add) % 16).toString(16)}${text.slice(at + 1)}`);
        });
        expect(() => loader.load(file)).toThrow(damaged);
      }),
      { numRuns: 20, seed: 24 },
    );
    // Listed, it loads.
    expect((loader.load(own(() => {})).answer as () => number)()).toBe(42);
  });

  it('a cache that is not a regular file (a fifo, /dev/zero, a folder) is not read, never waited on', () => {
    for (const make of [
      (p: string) => spawnSync('mkfifo', [p]),
      (p: string) => symlinkSync('/dev/zero', p),
      (p: string) => spawnSync('mkdir', [p]),
    ]) {
      const file = bundle(ID);
      make(`${file}.cache`);
      expect((loader.load(file).answer as () => number)()).toBe(42);
      expect(status(file)).toBe('none');
    }
  });

  it('a bundle missing, empty, without its first line, cut short, or not a regular file is PAY_BUILD_DAMAGED', () => {
    const damaged = expect.objectContaining({
      code: 'PAY_BUILD_DAMAGED',
      message: 'pay is not built or its build is damaged: run npm run build',
    });
    expect(() => loader.load(join(dir, 'nowhere.cjs'))).toThrow(damaged);
    // Each listed in checksums.txt as it is: what finds it damaged is the loader's other checks.
    const file = (text: string) => {
      const f = join(dir, `b${n++}.cjs`);
      writeFileSync(f, text);
      seal();
      return f;
    };
    expect(() => loader.load(file(''))).toThrow(damaged);
    expect(() => loader.load(file('exports.answer = () => 42;\n'))).toThrow(damaged);
    expect(() => loader.load(file(`/* pay bundle ${ID} */\nexports.answer = () => 42;\n`))).toThrow(damaged); // not wrapped
    const fifo = join(dir, `b${n++}.cjs`);
    spawnSync('mkfifo', [fifo]);
    expect(() => loader.load(fifo)).toThrow(damaged);
    const zero = join(dir, `b${n++}.cjs`);
    symlinkSync('/dev/zero', zero);
    expect(() => loader.load(zero)).toThrow(damaged);
    // Cut anywhere inside the wrapper a built bundle opens on its first line: it no longer compiles.
    const whole = `/* pay bundle ${ID} */(function (exports, require, module, __filename, __dirname) {\nexports.answer = function answer() { return 40 + 2; };\n});\n`;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: whole.lastIndexOf('}') }), (at) => {
        expect(() => loader.load(file(whole.slice(0, at)))).toThrow(damaged);
      }),
      { numRuns: 40 },
    );
    expect((loader.load(file(whole)).answer as () => number)()).toBe(42);
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

describe('bin/load.js kinds of command (which code caches a command loads)', () => {
  it('help for help, --help, -h, --version, -v and nothing; api for pay api; else the verb', () => {
    const cases: Array<[string[], string]> = [
      [[], 'help'],
      [['--help'], 'help'],
      [['customers', '-h'], 'help'],
      [['-v'], 'help'],
      [['help', 'customers'], 'help'],
      [['api', 'GET', 'customers'], 'api'],
      [['customers', 'list'], 'list'],
      [['--json', 'accounts', 'list'], 'list'],
      [['-p', 'prod', 'transfers', 'send', '--amount', '1'], 'send'],
      [['customers'], 'other'],
      [['customers', 'cus_123'], 'other'],
      [['customers', 'list', '--', '--help'], 'list'],
    ];
    for (const [argv, kind] of cases) expect(loader.kindOf(argv), argv.join(' ')).toBe(kind);
  });

  it('any argv makes a kind of lowercase letters and dashes only: it names a file beside the bundle, never another path', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('..', '../x', '/etc/passwd', 'list', '-o', '--help', 'a/b', 'x.y', 'A')), {
          maxLength: 6,
        }),
        (argv) => {
          expect(loader.kindOf(argv)).toMatch(/^[a-z][a-z-]*$/);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("a kind's cache is used before the bundle's own; written by saveCaches(kind)", () => {
    // save: write the caches after loading, for that kind (null: the bundle's own, <bundle>.cache).
    const script = (file: string, argv: string[], save?: string | null) => `
      process.argv = [process.execPath, 'pay', ...${JSON.stringify(argv)}];
      const loader = require(${JSON.stringify(new URL('../../bin/load.js', import.meta.url).pathname)});
      loader.load(${JSON.stringify(file)});
      ${save === undefined ? '' : save === null ? 'loader.saveCaches();' : `loader.saveCaches(${JSON.stringify(save)});`}
      process.stdout.write(JSON.stringify(loader.loaded()));`;
    const entry = (file: string, argv: string[], save?: string | null, env: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, ['-e', script(file, argv, save)], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
      });
      return { stderr: r.stderr, ...(JSON.parse(r.stdout) as Array<{ cache: string; notUsed: Array<[string, string]> }>)[0]! };
    };
    const run = (file: string, argv: string[], save?: string | null) => {
      const r = entry(file, argv, save);
      expect(r.stderr).toBe('');
      return r.cache;
    };
    const file = bundle(ID);
    expect(run(file, ['customers', 'list'], 'list')).toBe('none');
    expect(existsSync(`${file}.list.cache`)).toBe(true);
    expect(existsSync(`${file}.cache`)).toBe(false);
    expect(run(file, ['accounts', 'list'])).toBe('used');
    expect(run(file, ['customers', 'get', 'cus_1'])).toBe('none');
    // The bundle's own cache serves every kind without one of its own.
    expect(run(file, ['customers', 'get', 'cus_1'], null)).toBe('none');
    expect(run(file, ['customers', 'get', 'cus_1'])).toBe('used');
    expect(run(file, ['--help'])).toBe('used');
    // A damaged kind cache is not used: the bundle's own is (the bundle still loads and works), said once with --debug or PAY_DEBUG.
    const kindCache = readFileSync(`${file}.list.cache`);
    kindCache[kindCache.length - 1]! ^= 0x20;
    writeFileSync(`${file}.list.cache`, kindCache);
    const why = 'damaged (its CRC does not match)';
    expect(entry(file, ['customers', 'list'])).toMatchObject({ stderr: '', cache: 'used', notUsed: [[`${file}.list.cache`, why]] });
    const said = `debug: code cache ${file}.list.cache not used: ${why}; ${file.split('/').pop()!}.cache used instead\n`;
    expect(entry(file, ['customers', 'list', '--debug']).stderr).toBe(said);
    expect(entry(file, ['customers', 'list'], undefined, { PAY_DEBUG: '1' }).stderr).toBe(said);
    expect(entry(file, ['customers', 'list'], undefined, { PAY_DEBUG: '0' }).stderr).toBe('');
    // Both damaged: compiled from source, both named.
    writeFileSync(`${file}.cache`, Buffer.from(readFileSync(`${file}.cache`)).fill(0x41, 40, 48));
    expect(entry(file, ['customers', 'list', '--debug'])).toMatchObject({
      stderr: `debug: code cache ${file}.list.cache not used: ${why}\ndebug: code cache ${file}.cache not used: ${why}; ${file.split('/').pop()!} compiled from source\n`,
      cache: 'none',
      notUsed: [
        [`${file}.list.cache`, why],
        [`${file}.cache`, why],
      ],
    });
  });
});

function readCache(file: string): Buffer {
  return readFileSync(`${file}.cache`);
}
