// bin/load.js: a bundle is loaded with its code cache only when the cache was made for exactly
// its bytes (the build id, then the bundle's bytes) and V8 accepts it; any other cache file
// (missing, of another build, of a same-length edit, damaged, hostile bytes, not a regular file)
// costs only the compile, never the result. A bundle missing, cut short or not a regular file is
// PAY_BUILD_DAMAGED, which pay prints as one line (test/e2e/damaged-build.test.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

interface Loader {
  load(file: string): Record<string, unknown>;
  loaded(): Array<{ file: string; cache: 'used' | 'refused' | 'none' }>;
  saveCaches(kind?: string): void;
  kindOf(argv: readonly string[]): string;
}
const loader = createRequire(import.meta.url)('../../bin/load.js') as Loader;

const dir = mkdtempSync(join(tmpdir(), 'pay-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A bundle file (each test its own path: the loader keeps what it loaded). */
function bundle(id: string, body = 'exports.answer = function answer() { return 40 + 2; };'): string {
  const file = join(dir, `b${n++}.cjs`);
  // As the build writes it: the build id, then the CommonJS module function around the code.
  writeFileSync(file, `/* pay bundle ${id} */(function (exports, require, module, __filename, __dirname) {\n${body}\n});\n`);
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

  it('a cache made for other bytes of the same length (an edit in place) is never used: the edited bundle runs', () => {
    const body = (n: number) => `exports.answer = function answer() { return ${n} + 2; };`;
    const made = bundle(ID, body(40));
    loader.load(made);
    loader.saveCaches();
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 99 }).filter((k) => k !== 40),
        (k) => {
          // Same build id, same length, other text (and the cache's copy of the old bytes after the id).
          const edited = bundle(ID, body(k));
          expect(readFileSync(edited).length).toBe(readFileSync(made).length);
          writeFileSync(`${edited}.cache`, readCache(made));
          expect((loader.load(edited).answer as () => number)()).toBe(k + 2);
          expect(status(edited)).toBe('none');
        },
      ),
      { numRuns: 20 },
    );
    // Any one byte of the bundle changed, anywhere after its first line: the cache is not used.
    const bytes = readFileSync(made);
    const head = bytes.indexOf(10) + 1;
    fc.assert(
      fc.property(fc.integer({ min: head, max: bytes.length - 1 }), fc.integer({ min: 32, max: 126 }), (at, c) => {
        fc.pre(bytes[at] !== c);
        const copy = Buffer.from(bytes);
        copy[at] = c;
        const file = join(dir, `b${n++}.cjs`);
        writeFileSync(file, copy);
        writeFileSync(`${file}.cache`, readCache(made));
        try {
          loader.load(file);
        } catch {
          // the edited text does not compile or throws as it runs: what it says, not what the cache held
        }
        expect(status(file) ?? 'none').toBe('none');
      }),
      { numRuns: 40 },
    );
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
    const file = (text: string) => {
      const f = join(dir, `b${n++}.cjs`);
      writeFileSync(f, text);
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
    const run = (file: string, argv: string[], save?: string | null) => {
      const r = spawnSync(process.execPath, ['-e', script(file, argv, save)], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      return (JSON.parse(r.stdout) as Array<{ cache: string }>)[0]!.cache;
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
    // A damaged kind cache is refused (the bundle still loads and works).
    writeFileSync(`${file}.list.cache`, Buffer.concat([Buffer.from(ID, 'latin1'), readFileSync(file), Buffer.from('garbage')]));
    expect(run(file, ['customers', 'list'])).toBe('refused');
  });
});

function readCache(file: string): Buffer {
  return readFileSync(`${file}.cache`);
}
