// A package that installs, as the README's Install section says: from a clean checkout (the files
// git tracks, or would, without dist/), `npm pack` builds (prepack) and ships the built CLI with
// its runtime dependencies bundled; the tarball installs globally into a temporary prefix with no
// registry at all (--offline), and the installed `pay` prints its version, starts the emulator
// and runs a command against it. The checkout itself installs too (`npm install -g <path>`, a link
// to it). Both uninstall. npm runs with none of this process's npm_* settings.
//
// The checkout's node_modules holds what `npm ci` would put there for packing: the runtime
// dependencies (the lock file's non-development packages) and esbuild for the build, copied from
// this repository's node_modules (a symlink would make npm pack the bundled packages under
// '../' paths).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/run-pay.js';
import { copyDependencies, npmEnvironment, runtimeDependencyPaths } from '../helpers/package.js';
import { ADA_BODY_NO_STATE } from '../helpers/fixtures.js';
import { until } from '../helpers/wait.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  bundleDependencies: string[];
};

const CUSTOMER = ADA_BODY_NO_STATE;

let work: string;
let checkout: string;
let npmEnv: Record<string, string>;
let tarball: string;

/** npm with this test's environment; its output on failure. */
function npm(args: string[], cwd: string): { status: number | null; out: string } {
  const r = spawnSync('npm', args, { cwd, env: npmEnv, encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

/** Runs an installed pay. */
function pay(bin: string, args: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(bin, args, { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  mkdirSync(join(ROOT, 'test/.tmp'), { recursive: true });
  work = mkdtempSync(join(ROOT, 'test/.tmp/package-'));
  checkout = join(work, 'checkout');
  // The checkout: tracked files and new ones not ignored (what a commit of this tree would hold).
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (files.status !== 0) throw new Error(`git ls-files: ${files.stderr}`);
  for (const file of files.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue; // deleted in the working tree
    cpSync(join(ROOT, file), join(checkout, file));
  }
  copyDependencies(ROOT, checkout, [...runtimeDependencyPaths(ROOT), 'node_modules/esbuild', 'node_modules/@esbuild']);
  npmEnv = npmEnvironment();
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('npm pack from a clean checkout builds first and ships the built CLI, its completions and its runtime dependencies, no source', () => {
    expect(existsSync(join(checkout, 'dist'))).toBe(false);
    const r = npm(['pack', '--json', '--pack-destination', work], checkout);
    expect(r.status, r.out).toBe(0);
    const [report] = JSON.parse(r.out.slice(r.out.indexOf('['), r.out.lastIndexOf(']') + 1)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
      bundled: string[];
    }>;
    tarball = join(work, report!.filename);
    const paths = report!.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'bin/pay.js',
        'bin/load.js',
        'dist/cli.cjs',
        'dist/impl.cjs',
        'completions/pay.bash',
        'src/docs/generated/formatting.md',
        'src/docs/generated/man/pay.1',
        'src/docs/generated/man/pay-customers.1',
        'package.json',
        'README.md',
      ]),
    );
    // The code caches the build trained (src/scripts/train-cache.mjs).
    expect(paths).toEqual(expect.arrayContaining(['dist/cli.cjs.cache', 'dist/impl.cjs.cache']));
    // No source: the generated docs and man pages (src/docs/generated/: Markdown and roff) are the only files under src/.
    const generatedDocs = /^src\/docs\/generated\/(man\/)?[\w.-]+\.(md|1|7)$/;
    expect(paths.filter((p) => (/^(src|test)\//.test(p) && !generatedDocs.test(p)) || p.includes('..'))).toEqual([]);
    // The runtime dependencies and theirs, nothing of development.
    // Every runtime dependency is bundled (one added to dependencies alone would be missing offline).
    expect([...pkg.bundleDependencies].sort()).toEqual(Object.keys(pkg.dependencies).sort());
    expect(report!.bundled).toEqual(expect.arrayContaining(pkg.bundleDependencies));
    expect(report!.bundled.filter((b) => /^(esbuild|@esbuild\/|vitest|typescript|@stoplight\/|@types\/)/.test(b))).toEqual([]);
  }, 180_000);

  describe('installed globally', () => {
    const prefix = () => join(work, 'prefix');
    const linked = () => join(work, 'prefix-checkout');
    let emulator: ChildProcess | undefined;
    let env: Record<string, string>;
    let customerId: string;

    afterAll(async () => {
      if (emulator && emulator.exitCode === null) {
        const exited = new Promise((resolve) => emulator!.once('exit', resolve));
        emulator.kill('SIGINT');
        await exited;
      }
    });

    it('from the tarball, without a registry: pay --version, pay emulator start and a command against it', async () => {
      const r = npm(['install', '--global', '--offline', '--prefix', prefix(), tarball], work);
      expect(r.status, r.out).toBe(0);
      const bin = join(prefix(), 'bin/pay');
      expect(statSync(bin).isFile() || statSync(bin).isSymbolicLink()).toBe(true);
      env = cleanEnv({ PATH: `${join(prefix(), 'bin')}:${process.env.PATH}` });

      const version = pay(bin, ['--version'], env);
      expect({ status: version.status, stdout: version.stdout, stderr: version.stderr }).toEqual({
        status: 0,
        stdout: `${pkg.version}\n`,
        stderr: '',
      });

      emulator = spawn(bin, ['emulator', 'start', '--port', '0', '--configure-profile', 'local'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      emulator.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
      emulator.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
      await until(
        'pay emulator start says where it listens',
        () => {
          if (emulator!.exitCode !== null) throw new Error(`pay emulator start exited ${emulator!.exitCode}:\n${out}`);
          return /listening on http:\/\/127\.0\.0\.1:\d+/.test(out) && /Ctrl-C/.test(out);
        },
        { seen: () => out },
      );

      const created = pay(bin, ['-p', 'local', 'customers', 'create', '--data', JSON.stringify(CUSTOMER), '--json'], env);
      expect(created.stderr).toBe('');
      expect(created.status).toBe(0);
      customerId = (JSON.parse(created.stdout) as { id: string }).id;
      expect(customerId).toMatch(/^cus_[0-9a-z]{24}$/);
    }, 180_000);

    it('man pages: npm links them under the prefix; man renders pay(1), pay-customers(1) and pay-formatting(7)', () => {
      const hasMan = spawnSync('sh', ['-c', 'command -v man'], { stdio: 'ignore' }).status === 0;
      if (!hasMan && !process.env.CI) return void console.warn('man is not installed (test/setup/ensure-tools.mjs installs it): skipped');
      expect(hasMan, 'man is not installed: test/setup/ensure-tools.mjs installs it').toBe(true);
      const installed = join(prefix(), 'lib/node_modules', pkg.name);
      const manEnv = {
        ...env,
        MANPATH: join(prefix(), 'share/man'),
        MANWIDTH: '80',
        MAN_KEEP_FORMATTING: '',
        LANG: 'C.UTF-8',
        PAGER: 'cat',
      };
      for (const [page, section, says] of [
        ['pay', '1', /^NAME\n\s+pay\s+-\s+\S/m],
        ['pay-customers', '1', /^SYNOPSIS\n\s+pay customers create\s*\n/m],
        ['pay-formatting', '7', /^NAME\n\s+pay-formatting\s+-\s+Output:\s+tables/m],
      ] as const) {
        expect(existsSync(join(prefix(), `share/man/man${section}/${page}.${section}`)), page).toBe(true);
        for (const argv of [
          ['-P', 'cat', section, page],
          ['-P', 'cat', '-l', join(installed, `src/docs/generated/man/${page}.${section}`)],
        ]) {
          const r = spawnSync('man', argv, { env: manEnv, encoding: 'utf8' });
          expect(r.status, `man ${argv.join(' ')}: ${r.stderr}`).toBe(0);
          const text = r.stdout.replace(/.\x08/g, '');
          expect(text, page).toContain(`${page.toUpperCase()}(${section})`);
          expect(text, page).toMatch(says);
          expect(r.stderr, page).not.toMatch(/warning|error/i);
        }
      }
    }, 60_000);

    it('from the checkout path (a link to it), against the same emulator', () => {
      const r = npm(['install', '--global', '--offline', '--prefix', linked(), checkout], work);
      expect(r.status, r.out).toBe(0);
      const bin = join(linked(), 'bin/pay');
      const version = pay(bin, ['--version'], env);
      expect(version.stdout).toBe(`${pkg.version}\n`);
      const list = pay(bin, ['-p', 'local', 'customers', 'list', '--json'], env);
      expect({ status: list.status, stderr: list.stderr }).toEqual({ status: 0, stderr: '' });
      expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((c) => c.id)).toEqual([customerId]);
    }, 180_000);

    it('npm uninstall --global removes both', () => {
      for (const p of [prefix(), linked()]) {
        const r = npm(['uninstall', '--global', '--prefix', p, pkg.name], work);
        expect(r.status, r.out).toBe(0);
        expect(existsSync(join(p, 'bin/pay'))).toBe(false);
        expect(existsSync(join(p, 'lib/node_modules', pkg.name))).toBe(false);
        expect(existsSync(join(p, 'share/man/man1/pay.1'))).toBe(false);
      }
      // The checkout a link pointed at is left alone.
      expect(existsSync(join(checkout, 'dist/cli.cjs'))).toBe(true);
    }, 180_000);
  });
});
