// A damaged build (a file of bin/ or dist/ empty, cut short, missing, not a regular file, or with
// bytes changed in place: the bundles, their checksums, bin/load.js, llhttp's WebAssembly, the help
// pages) is one `error:` line and exit 1 (cli-contract §6), never a stack trace, a silent exit 0,
// a network error, a hang, or other code run; so is a package pay loads from node_modules when it
// needs it (jq-wasm, yaml, proper-lockfile, …), named, with how to get it back. A code cache that
// is a fifo, /dev/zero or damaged is not used (the command runs as without it; --debug says so).
// Each case runs the built bin/pay.js from a copy of bin/ and dist/ (and, for a package, of
// node_modules' links), damaged one way; where the cut or the change falls is generated.
// (test/reliability/attack-build.test.ts changes bytes of every cache and bundle of an installed package.)
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = new URL('../..', import.meta.url).pathname;
const copies: string[] = [];
afterAll(() => {
  for (const c of copies) rmSync(c, { recursive: true, force: true });
});

/** A copy of bin/ and dist/, damaged by `damage`, then `pay <argv>` run from it (a hang guard only). */
function payDamaged(damage: (dist: string) => void, argv: string[], env: Record<string, string> = {}) {
  const copy = mkdtempSync(join(tmpdir(), 'pay-damaged-'));
  copies.push(copy);
  cpSync(join(repo, 'bin'), join(copy, 'bin'), { recursive: true });
  cpSync(join(repo, 'dist'), join(copy, 'dist'), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'));
  damage(join(copy, 'dist'));
  return spawnSync(process.execPath, [join(copy, 'bin', 'pay.js'), ...argv], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH, PAY_CONFIG_DIR: join(copy, 'config'), NO_COLOR: '1', ...env },
  });
}

const cut = (file: string, keep: (length: number) => number) => {
  const bytes = readFileSync(file);
  writeFileSync(file, bytes.subarray(0, keep(bytes.length)));
};
const fifo = (file: string) => {
  rmSync(file, { force: true });
  expect(spawnSync('mkfifo', [file]).status).toBe(0);
};
/** The text `from` replaced by `to` (of the same length) in the file, once. */
const edit = (file: string, from: string, to: string) => {
  const text = readFileSync(file, 'latin1');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to), 'latin1');
};
/** The byte at `at(length)` of the file changed (xor `mask`, a bit of a letter's case by default). */
const flip = (file: string, at: (length: number) => number, mask = 0x20) => {
  const bytes = readFileSync(file);
  bytes[at(bytes.length)]! ^= mask;
  writeFileSync(file, bytes);
};
const DAMAGED = 'error: pay is not built or its build is damaged: run npm run build\n';

describe('a damaged build', () => {
  const cases: Array<[string, (dist: string) => void, string[]]> = [
    ['dist/cli.cjs empty', (d) => writeFileSync(join(d, 'cli.cjs'), ''), ['customers', 'list']],
    ['dist/cli.cjs cut short', (d) => cut(join(d, 'cli.cjs'), (n) => n >> 1), ['customers', 'list']],
    ['dist/cli.cjs missing', (d) => rmSync(join(d, 'cli.cjs')), ['--version', '--json']],
    ['dist/cli.cjs a fifo', (d) => fifo(join(d, 'cli.cjs')), ['customers', 'list']],
    ['dist/impl.cjs missing', (d) => rmSync(join(d, 'impl.cjs')), ['api', 'GET', 'customers']],
    ['dist/impl.cjs cut short', (d) => cut(join(d, 'impl.cjs'), (n) => n - 100), ['api', 'GET', 'customers']],
    ['dist/impl.cjs a fifo', (d) => fifo(join(d, 'impl.cjs')), ['api', 'GET', 'customers']],
    ['dist/more.cjs cut short', (d) => cut(join(d, 'more.cjs'), (n) => n >> 2), ['openapi']],
    ['dist/more.cjs missing', (d) => rmSync(join(d, 'more.cjs')), ['openapi']],
    // Same length, build id intact, still JavaScript: it would run, and say "no API kez".
    [
      'dist/impl.cjs a letter changed in the middle',
      (d) => edit(join(d, 'impl.cjs'), 'no API key', 'no API kez'),
      ['api', 'GET', 'customers'],
    ],
    ['dist/cli.cjs a byte changed', (d) => flip(join(d, 'cli.cjs'), (n) => n >> 1), ['customers', 'list']],
    ['dist/checksums.txt missing', (d) => rmSync(join(d, 'checksums.txt')), ['customers', 'list']],
    ['dist/cli.cjs not in dist/checksums.txt', (d) => edit(join(d, 'checksums.txt'), ' cli.cjs', ' cli.cjx'), ['customers', 'list']],
    [
      'dist/impl.cjs of another CRC in dist/checksums.txt',
      (d) => {
        const list = join(d, 'checksums.txt');
        const crc = /^([0-9a-f]{8}) impl\.cjs$/m.exec(readFileSync(list, 'latin1'))![1]!;
        edit(list, `${crc} impl.cjs`, `${crc[0] === 'f' ? 'e' : 'f'}${crc.slice(1)} impl.cjs`);
      },
      ['api', 'GET', 'customers'],
    ],
    ['dist/help/_version.txt a digit changed', (d) => flip(join(d, 'help', '_version.txt'), (n) => n - 2, 1), ['--version']],
    [
      'dist/help/customers.txt a letter changed',
      (d) => edit(join(d, 'help', 'customers.txt'), 'customer', 'cusTomer'),
      ['customers', '--help'],
    ],
  ];
  for (const [what, damage, argv] of cases)
    it(`${what}: pay ${argv.join(' ')} prints one error line, exit 1`, () => {
      const r = payDamaged(damage, argv);
      expect(r.error).toBeUndefined(); // no hang
      expect(r.stderr).toBe(DAMAGED);
      expect(r.stdout).toBe('');
      expect(r.status).toBe(1);
    });
});

describe('a help page that is not a regular file', () => {
  for (const [what, make] of [
    ['a fifo', fifo],
    ['/dev/zero', (file: string) => (rmSync(file, { force: true }), symlinkSync('/dev/zero', file))],
  ] as const)
    it(`${what} is not read: the CLI prints the help`, () => {
      const r = payDamaged((d) => make(join(d, 'help', 'customers.txt')), ['customers', '--help']);
      expect(r.error).toBeUndefined();
      expect(r.stdout).toBe(readFileSync(join(repo, 'dist', 'help', 'customers.txt'), 'utf8').replace(/^pay page \d+ [0-9a-f]{8}\n/, ''));
      expect(r.status).toBe(0);
    });
});

describe('a code cache that is not a regular file', () => {
  for (const [what, make] of [
    ['a fifo', fifo],
    ['/dev/zero', (file: string) => (rmSync(file, { force: true }), symlinkSync('/dev/zero', file))],
  ] as const)
    it(`${what} is not read: the command runs as without it`, () => {
      // `pay api GET customers` without a key: loads both bundles, then stops before sending (exit 3).
      const r = payDamaged(
        (d) => {
          make(join(d, 'cli.cjs.api.cache'));
          make(join(d, 'impl.cjs.api.cache'));
        },
        ['api', 'GET', 'customers'],
      );
      expect(r.error).toBeUndefined();
      expect(r.stderr).toMatch(/^error: no API key/);
      expect(r.status).toBe(3);
    });
});

describe('a code cache with bytes changed (V8 would crash on it, or run other code): not used, the command runs as without it', () => {
  // Commands that load the cache, and whose output does not depend on a service (no key: exit 3 before sending).
  const CACHES: Array<[string, string[]]> = [
    ['cli.cjs.api.cache', ['api', 'GET', 'customers']],
    ['impl.cjs.api.cache', ['api', 'GET', 'customers']],
    ['impl.cjs.list.cache', ['customers', 'list']],
    // A verb no kind is trained on: the bundles' own caches.
    ['cli.cjs.cache', ['customers', 'overview', 'cus_0123456789abcdefghijklmn']],
    ['impl.cjs.cache', ['customers', 'overview', 'cus_0123456789abcdefghijklmn']],
    ['more.cjs.cache', ['openapi']],
  ];
  const undamaged = new Map<string, ReturnType<typeof payDamaged>>();
  const as = (argv: string[]) => {
    const key = argv.join(' ');
    if (!undamaged.has(key))
      undamaged.set(
        key,
        payDamaged(() => {}, argv),
      );
    return undamaged.get(key)!;
  };
  for (const [i, [cache, argv]] of CACHES.entries()) {
    // A byte of the header (the build id, the CRCs), a byte and a block of V8's data: places generated, seeded.
    const [head, byte, block] = fc.sample(fc.tuple(fc.integer({ min: 0, max: 31 }), fc.double({ min: 0.01, max: 0.99, noNaN: true })), {
      seed: 24 + i,
      numRuns: 3,
    });
    for (const [what, damage] of [
      [`byte ${head![0]} of the header`, (f: string) => flip(f, () => head![0], 0x01)],
      [`a byte at ${(byte![1] * 100).toFixed(0)}% of V8's data`, (f: string) => flip(f, (n) => 32 + Math.floor((n - 32) * byte![1]), 0xff)],
      [
        `a block of 64 bytes at ${(block![1] * 100).toFixed(0)}%`,
        (f: string) => {
          const bytes = readFileSync(f);
          const at = 32 + Math.floor((bytes.length - 96) * block![1]);
          for (let k = at; k < at + 64; k++) bytes[k]! ^= 0x5a;
          writeFileSync(f, bytes);
        },
      ],
    ] as const)
      it(`dist/${cache}, ${what}: pay ${argv.join(' ')} as undamaged`, () => {
        const want = as(argv);
        const r = payDamaged((d) => damage(join(d, cache)), argv);
        expect(r.error).toBeUndefined();
        expect({ status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr }).toEqual({
          status: want.status,
          signal: null,
          stdout: want.stdout,
          stderr: want.stderr,
        });
      });
  }

  it('with --debug (or PAY_DEBUG=1), one line says which cache was not used and what was loaded instead', () => {
    const argv = ['api', 'GET', 'customers'];
    const damage = (d: string) => flip(join(d, 'impl.cjs.api.cache'), (n) => n - 100, 0xff);
    const line = (copy: string) =>
      `debug: code cache ${copy}/dist/impl.cjs.api.cache not used: damaged (its CRC does not match); impl.cjs.cache used instead\n`;
    for (const [args, env] of [
      [[...argv, '--debug'], {}],
      [argv, { PAY_DEBUG: '1' }],
    ] as const) {
      const r = payDamaged(damage, [...args], env);
      const copy = /debug: code cache (\S+)\/dist\//.exec(r.stderr)?.[1] ?? '?';
      expect(r.stderr.split('\n').filter((l) => l.startsWith('debug: code cache'))).toHaveLength(1);
      expect(r.stderr).toContain(line(copy));
      expect(r.stderr).toMatch(/^error: no API key/m);
      expect(r.status).toBe(3);
    }
    // Without it, nothing is said.
    expect(payDamaged(damage, argv).stderr).toBe(as(argv).stderr);
  });
});

// ---------------------------------------------------------------------------------------------
// The whole class: every file of the build, missing, empty or cut short at a generated point, and
// every package loaded from node_modules when needed, missing or damaged.

/** A server that takes connections and never answers: a command gets as far as its HTTP parser. */
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer(() => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/**
 * A copy of bin/, and of dist/ and node_modules as links (one per file of dist/, one per package),
 * with `own` (a path in the copy) a file of its own, to damage.
 */
function install(own?: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'pay-damaged-'));
  copies.push(copy);
  cpSync(join(repo, 'bin'), join(copy, 'bin'), { recursive: true });
  const link = (from: string, to: string) => {
    if (lstatSync(from).isDirectory()) {
      mkdirSync(to);
      for (const name of readdirSync(from)) link(join(from, name), join(to, name));
    } else if (own !== undefined && to === join(copy, own)) cpSync(from, to);
    else symlinkSync(from, to);
  };
  link(join(repo, 'dist'), join(copy, 'dist'));
  const modules = join(repo, 'node_modules');
  mkdirSync(join(copy, 'node_modules'));
  for (const name of readdirSync(modules)) {
    if (name.startsWith('@') && lstatSync(join(modules, name)).isDirectory()) {
      mkdirSync(join(copy, 'node_modules', name));
      for (const sub of readdirSync(join(modules, name))) symlinkSync(join(modules, name, sub), join(copy, 'node_modules', name, sub));
    } else symlinkSync(join(modules, name), join(copy, 'node_modules', name));
  }
  return copy;
}

/** `pay <argv>` from the copy, asynchronously (the server above answers in this process); a hang guard only. */
function run(
  copy: string,
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(copy, 'bin', 'pay.js'), ...argv], {
      env: {
        PATH: process.env.PATH,
        PAY_CONFIG_DIR: join(copy, 'config'),
        NO_COLOR: '1',
        PAY_BASE_URL: base,
        PAY_API_KEY: 'sk_test_0123456789abcdefghijklmn',
        PAY_TENANT_ID: 'biz_1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

type Damage = { what: string; apply: (file: string) => void };
/** The seed test/setup/fuzz-seed.ts chose for this run (PAY_FUZZ_SEED reproduces it). */
function runSeed(): number {
  const seed = fc.readConfigureGlobal().seed;
  if (seed === undefined) throw new Error('no fast-check seed: run with --config test/vitest.config.ts (its setup file sets one)');
  return seed;
}
const DAMAGES: Damage[] = [
  { what: 'missing', apply: (f) => rmSync(f) },
  { what: 'empty', apply: (f) => writeFileSync(f, '') },
  // Cut short at a generated point (a byte at least, a byte short at most), drawn from the run's
  // fast-check seed (test/setup/fuzz-seed.ts: fixed in npm test, printed on failure).
  ...fc.sample(fc.double({ min: 0.001, max: 0.999, noNaN: true }), { numRuns: 1, seed: runSeed() }).map((at) => ({
    what: `cut at ${(at * 100).toFixed(1)}%`,
    apply: (f: string) => cut(f, (n) => Math.min(n - 1, Math.max(1, Math.floor(n * at)))),
  })),
];

/** Each file of the build with a command that needs it (and the environment that makes it needed). */
const FILES: Array<{ file: string; argv: string[]; env?: Record<string, string>; missingIsFine?: boolean }> = [
  { file: 'bin/load.js', argv: ['customers', 'list'] },
  { file: 'dist/cli.cjs', argv: ['customers', 'list'] },
  { file: 'dist/impl.cjs', argv: ['api', 'GET', 'customers'] },
  { file: 'dist/more.cjs', argv: ['openapi'] },
  // (its last line lists dist/more.cjs: any cut unlists it, the newline alone too)
  { file: 'dist/checksums.txt', argv: ['openapi'] },
  // llhttp, undici's HTTP parser: the SIMD build, and the other one where SIMD is off.
  { file: 'dist/llhttp_simd.wasm', argv: ['customers', 'list'] },
  { file: 'dist/llhttp.wasm', argv: ['customers', 'list'], env: { UNDICI_NO_WASM_SIMD: '1' } },
  { file: 'dist/llhttp_simd.wasm', argv: ['emulator', 'status'] },
  { file: 'dist/help/_version.txt', argv: ['--version'] },
  { file: 'dist/help/_root.txt', argv: ['--help'] },
  // A missing page of a command: the CLI answers (the page may be of no command at all).
  { file: 'dist/help/customers.txt', argv: ['customers', '--help'], missingIsFine: true },
  { file: 'dist/help/emulator.clock.advance.txt', argv: ['emulator', 'clock', 'advance', '--help'], missingIsFine: true },
];

describe('every file of the build, missing, empty or cut short: one error line, exit 1', () => {
  for (const { file, argv, env, missingIsFine } of FILES)
    for (const damage of DAMAGES) {
      if (missingIsFine && damage.what === 'missing') continue;
      it(`${file} ${damage.what}: pay ${argv.join(' ')}`, async () => {
        const copy = install(file);
        damage.apply(join(copy, file));
        const r = await run(copy, argv, env);
        expect(r.stderr).toBe(DAMAGED);
        expect(r.stdout).toBe('');
        expect(r.code).toBe(1);
      });
    }

  it('a missing help page of a command: the CLI prints the same help', async () => {
    const copy = install('dist/help/customers.txt');
    rmSync(join(copy, 'dist/help/customers.txt'));
    const r = await run(copy, ['customers', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(repo, 'dist', 'help', 'customers.txt'), 'utf8').replace(/^pay page \d+ [0-9a-f]{8}\n/, ''));
  });
});

describe('a package pay loads when needed, missing or damaged: one line naming it, exit 1', () => {
  /** Replaces the package's link by a copy with `file` (in the package) damaged. */
  const damageIn = (copy: string, pkg: string, file: string, damage: Damage) => {
    const at = join(copy, 'node_modules', pkg);
    rmSync(at);
    cpSync(join(repo, 'node_modules', pkg), at, { recursive: true, dereference: true });
    damage.apply(join(at, file));
  };
  const PACKAGES: Array<{ pkg: string; argv: string[]; files: string[] }> = [
    { pkg: 'jq-wasm', argv: ['customers', 'list', '--jq', '.'], files: ['dist/index.cjs', 'dist/build/jq.wasm'] },
    { pkg: 'yaml', argv: ['openapi', '--yaml'], files: ['dist/index.js', 'dist/public-api.js'] },
  ];
  for (const { pkg, argv, files } of PACKAGES) {
    const line = `error: pay's dependency ${pkg} is missing or damaged: reinstall pay (npm ci)\n`;
    it(`${pkg} missing: pay ${argv.join(' ')}`, async () => {
      const copy = install();
      rmSync(join(copy, 'node_modules', pkg));
      const r = await run(copy, argv);
      expect(r.stderr).toBe(line);
      expect(r.stdout).toBe('');
      expect(r.code).toBe(1);
    });
    for (const file of files)
      // Emptied, or cut in the middle of a statement (a cut that leaves whole statements, valid
      // JavaScript with fewer exports, is beyond what a loader can tell: see the README).
      for (const damage of [
        DAMAGES[1]!,
        { what: 'cut in the middle', apply: (f: string) => cut(f, (n) => readFileSync(f, 'latin1').indexOf('(', n >> 1) + 1) },
      ])
        it(`${pkg}/${file} ${damage.what}: pay ${argv.join(' ')}`, async () => {
          const copy = install();
          damageIn(copy, pkg, file, damage);
          const r = await run(copy, argv);
          expect(r.stderr).toBe(line);
          expect(r.stdout).toBe('');
          expect(r.code).toBe(1);
        });
  }
});
