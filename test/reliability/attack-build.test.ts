// Attack: an installed package whose build is damaged in place. The package is packed (npm pack,
// of this checkout's build) and installed globally into a temporary prefix, as a user installs it;
// then, one file at a time, single bytes and blocks of bytes at generated places (fast-check, fixed
// seed) are changed in each V8 code cache (dist/*.cache), each bundle (dist/*.cjs), the bundles'
// checksums (dist/checksums.txt) and two help pages, and the installed `pay` runs `--version`, a
// help page, an API command against an emulator, and a command that reads the damaged file (its
// kind's cache; every bundle for a bundle). Before, a damaged cache crashed V8 (`Fatal error …
// unreachable code`, exit 133, or a segfault), printed a stack trace, or ran other code. Now:
//  - never a signal, an exit of 128 or more, or a stack trace;
//  - a damaged cache changes nothing: each command prints what it printed undamaged, same exit;
//  - a damaged bundle (or its line of checksums.txt, or a page) is the one-line damaged-build error,
//    exit 1, for each command that reads it, and nothing for the others.
// Counts: 2 variants a file by default (a byte, a block), 8 with PAY_RELIABILITY_FULL=1.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, count, record, spawnEmulator, stackTrace, tempRoot, type EmulatorProcess } from './helpers.js';
import { copyDependencies, npmEnvironment, runtimeDependencyPaths } from '../helpers/package.js';
import { ADA_BODY_NO_STATE } from '../helpers/fixtures.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SEED = 24;
const PER_FILE = count(2, 8);
const DAMAGED = 'error: pay is not built or its build is damaged: run npm run build\n';
const BUNDLES = ['cli.cjs', 'impl.cjs', 'more.cjs'] as const;
type Bundle = (typeof BUNDLES)[number];

let work: string;
/** The installed package's folder (…/lib/node_modules/pay-cli) and its `pay` (the link npm made in …/bin). */
let installed: string;
let bin: string;
let emu: EmulatorProcess;
let env: Record<string, string>;
let customer: string;

/** npm without this process's npm_* settings. */
function npm(args: string[], cwd: string): void {
  const r = spawnSync('npm', args, { cwd, env: npmEnvironment(), encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
}

/**
 * The package as `npm pack` makes it from this checkout's build (test/e2e/package.test.ts packs a
 * clean checkout, which builds first; here the build the other tests run is the one packed), with
 * its runtime dependencies bundled; installed globally, offline, into a temporary prefix.
 */
function installPackage(): void {
  const from = join(work, 'package');
  for (const f of ['package.json', 'README.md', 'LICENSE']) if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(from, f));
  for (const d of ['bin', 'dist', 'completions']) cpSync(join(ROOT, d), join(from, d), { recursive: true });
  copyDependencies(ROOT, from, runtimeDependencyPaths(ROOT));
  npm(['pack', '--ignore-scripts', '--pack-destination', work], from);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  npm(['install', '--global', '--offline', '--prefix', join(work, 'prefix'), join(work, tarball)], work);
  const name = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;
  installed = join(work, 'prefix', 'lib', 'node_modules', name);
  bin = join(work, 'prefix', 'bin', 'pay');
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The installed `pay <argv>`, stdout and stderr pipes (so help and --version print their pages); a hang guard only. */
function pay(argv: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A command, and the bundles it loads (none: it prints a page, `page`). */
interface Command {
  argv: () => string[];
  loads: readonly Bundle[];
  page?: string;
}
const COMMANDS = {
  version: { argv: () => ['--version'], loads: [], page: 'help/_version.txt' },
  help: { argv: () => ['customers', '--help'], loads: [], page: 'help/customers.txt' },
  list: { argv: () => ['customers', 'list', '--json'], loads: ['cli.cjs', 'impl.cjs'] },
  api: { argv: () => ['api', 'GET', 'customers'], loads: ['cli.cjs', 'impl.cjs'] },
  get: { argv: () => ['customers', 'get', customer, '--json'], loads: ['cli.cjs', 'impl.cjs'] },
  // Refused before sending (no such accounts: ids of another shape), after both bundles load.
  send: {
    argv: () => ['transfers', 'send', '--from', 'acc_nope', '--to', 'acc_nope2', '--amount', '1.00', '--currency', 'USD'],
    loads: ['cli.cjs', 'impl.cjs'],
  },
  // Through the CLI (no page): the help kind's caches, and every bundle.
  helpCommand: { argv: () => ['help', 'customers'], loads: ['cli.cjs', 'impl.cjs', 'more.cjs'] },
  // A verb no kind is trained on: each bundle's own cache (<bundle>.cache), every bundle.
  overview: { argv: () => ['customers', 'overview', customer, '--json'], loads: ['cli.cjs', 'impl.cjs', 'more.cjs'] },
} satisfies Record<string, Command>;
type Name = keyof typeof COMMANDS;

/** The command that reads a file of dist/ (its kind's cache, every bundle, a page). */
function readerOf(file: string): Name {
  if (file === 'help/_version.txt') return 'version';
  if (file === 'help/customers.txt') return 'help';
  const kind = /^[a-z]+\.cjs\.([a-z]+)\.cache$/.exec(file)?.[1];
  if (kind === undefined) return 'overview';
  if (kind === 'help') return 'helpCommand';
  if (kind === 'list' || kind === 'api' || kind === 'get' || kind === 'send') return kind;
  throw new Error(`attack-build: no command of kind ${kind} (a new kind of cache: add it to COMMANDS)`);
}

/** The bundles a damage of bytes [at, end) of dist/checksums.txt unlists: those whose line (with its newline) it touches. */
function unlisted(text: string, at: number, end: number): Bundle[] {
  const out: Bundle[] = [];
  let start = 0;
  for (const line of text.split('\n')) {
    const stop = start + line.length + 1;
    const name = line.split(' ')[1] as Bundle;
    if (at < stop && end > start && BUNDLES.includes(name)) out.push(name);
    start = stop;
  }
  return out;
}

beforeAll(async () => {
  work = tempRoot('build');
  installPackage();
  emu = await spawnEmulator(['--port', '0'], cleanEnv({ PAY_CONFIG_DIR: join(work, 'emulator-config') }));
  env = cleanEnv({
    PAY_CONFIG_DIR: join(work, 'config'),
    PAY_BASE_URL: emu.baseUrl,
    PAY_API_KEY: emu.keys.sandbox.secret,
    PAY_TENANT_ID: emu.tenantId,
    NO_COLOR: '1',
  });
  const created = await pay(['customers', 'create', '--json', '--data', JSON.stringify(ADA_BODY_NO_STATE)]);
  if (created.code !== 0) throw new Error(`pay customers create: ${created.stderr}`);
  customer = (JSON.parse(created.stdout) as { id: string }).id;
}, 600_000);

afterAll(async () => {
  await emu?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('attack: a damaged build of an installed package', () => {
  it(`bytes and blocks changed in each code cache, bundle, checksums.txt and help page (${PER_FILE} a file, seed ${SEED}): a cache costs nothing, a bundle is one line, never a crash`, async () => {
    const startedAt = Date.now();
    // What each command prints undamaged (twice: each is the same every time, or comparing means nothing).
    const baseline = new Map<Name, Run>();
    for (const name of Object.keys(COMMANDS) as Name[]) {
      const [a, b] = [await pay(COMMANDS[name].argv()), await pay(COMMANDS[name].argv())];
      expect(b, `pay ${COMMANDS[name].argv().join(' ')} twice`).toEqual(a);
      baseline.set(name, a);
    }
    expect(baseline.get('version')).toMatchObject({ code: 0, stderr: '' });
    expect(baseline.get('list')!.code).toBe(0);
    expect(baseline.get('list')!.stdout).toContain(customer);
    expect(baseline.get('send')!.code).toBe(2);
    for (const name of ['help', 'api', 'get', 'helpCommand', 'overview'] as const) expect(baseline.get(name)!.code, name).toBe(0);

    const dist = join(installed, 'dist');
    const files = [
      ...readdirSync(dist).filter((f) => f.endsWith('.cache') || (BUNDLES as readonly string[]).includes(f)),
      'checksums.txt',
      'help/_version.txt',
      'help/customers.txt',
    ].sort();
    expect(files.filter((f) => f.endsWith('.cache')).length).toBeGreaterThanOrEqual(BUNDLES.length);
    const t = { variants: 0, tried: 0, passed: 0, crashes: 0, stackTraces: 0, damagedSaid: 0, cacheVariants: 0, bundleVariants: 0 };
    const failures: string[] = [];
    for (const [f, file] of files.entries()) {
      const path = join(dist, file);
      const original = readFileSync(path);
      // Half single bytes, half blocks (up to 4 KiB); a place in the first 64 bytes (ids, CRCs, headers) or anywhere.
      const variants = fc.sample(
        fc.record({
          at: fc.oneof(fc.integer({ min: 0, max: Math.min(63, original.length - 1) }), fc.integer({ min: 0, max: original.length - 1 })),
          block: fc.integer({ min: 2, max: 4096 }),
          xor: fc.integer({ min: 1, max: 255 }),
        }),
        { seed: SEED + f, numRuns: PER_FILE },
      );
      for (const [i, v] of variants.entries()) {
        const end = Math.min(original.length, v.at + (i % 2 === 0 ? 1 : v.block));
        const damaged = Buffer.from(original);
        for (let k = v.at; k < end; k++) damaged[k]! ^= v.xor;
        writeFileSync(path, damaged);
        t.variants++;
        const isCache = file.endsWith('.cache');
        if (isCache) t.cacheVariants++;
        else t.bundleVariants++;
        const hit: readonly string[] = file === 'checksums.txt' ? unlisted(original.toString('latin1'), v.at, end) : isCache ? [] : [file];
        const names = [...new Set<Name>(['version', 'help', 'list', readerOf(file)])];
        try {
          const runs = await Promise.all(names.map((name) => pay(COMMANDS[name].argv())));
          for (const [j, name] of names.entries()) {
            const r = runs[j]!;
            const c: Command = COMMANDS[name];
            const what = `${file} bytes ${v.at}..${end - 1} ^ ${v.xor}: pay ${c.argv().join(' ')}`;
            t.tried++;
            if (r.signal !== null || r.code === null || r.code >= 128) {
              t.crashes++;
              failures.push(`${what}: crashed (${r.signal ?? r.code}): ${r.stderr.slice(0, 300)}`);
              continue;
            }
            const trace = stackTrace(r.stdout + r.stderr);
            if (trace !== undefined) {
              t.stackTraces++;
              failures.push(`${what}: a stack trace (${trace})`);
              continue;
            }
            const reads = c.page === file || c.loads.some((b) => hit.includes(b));
            const want = reads ? { code: 1, signal: null, stdout: '', stderr: DAMAGED } : baseline.get(name)!;
            if (r.code === want.code && r.stdout === want.stdout && r.stderr === want.stderr) {
              t.passed++;
              if (reads) t.damagedSaid++;
            } else
              failures.push(
                `${what}: exit ${r.code}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}, stdout ${r.stdout === want.stdout ? 'as undamaged' : JSON.stringify(r.stdout.slice(0, 120))}; wanted exit ${want.code}${reads ? ', the damaged-build line' : ', as undamaged'}`,
              );
          }
        } finally {
          writeFileSync(path, original);
        }
      }
    }
    await record(
      'attack.build-damage',
      'A byte or a block changed in each code cache, bundle, checksums.txt and help page of an installed package',
      {
        tried: t.tried,
        passed: t.passed,
        lost: 0,
        duplicated: 0,
        leaked: 0,
        extra: {
          files: files.length,
          variants: t.variants,
          cache_variants: t.cacheVariants,
          bundle_variants: t.bundleVariants,
          damaged_build_said: t.damagedSaid,
          crashes: t.crashes,
          stack_traces: t.stackTraces,
        },
      },
      startedAt,
    );
    expect(failures).toEqual([]);
    expect(t.damagedSaid).toBeGreaterThan(0);
  }, 900_000);
});
