// A damaged build (a bundle empty, cut short, missing or not a regular file) is one `error:` line
// and exit 1 (cli-contract §6), never a stack trace, a silent exit 0 or a hang; a code cache that
// is a fifo or /dev/zero is not read (the command runs as without it). Each case runs the built
// bin/pay.js from a copy of bin/ and dist/, damaged one way.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repo = new URL('../..', import.meta.url).pathname;
const copies: string[] = [];
afterAll(() => {
  for (const c of copies) rmSync(c, { recursive: true, force: true });
});

/** A copy of bin/ and dist/, damaged by `damage`, then `pay <argv>` run from it (a hang guard only). */
function payDamaged(damage: (dist: string) => void, argv: string[]) {
  const copy = mkdtempSync(join(tmpdir(), 'pay-damaged-'));
  copies.push(copy);
  cpSync(join(repo, 'bin'), join(copy, 'bin'), { recursive: true });
  cpSync(join(repo, 'dist'), join(copy, 'dist'), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'));
  damage(join(copy, 'dist'));
  return spawnSync(process.execPath, [join(copy, 'bin', 'pay.js'), ...argv], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH, PAY_CONFIG_DIR: join(copy, 'config'), NO_COLOR: '1' },
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
      expect(r.stdout).toBe(readFileSync(join(repo, 'dist', 'help', 'customers.txt'), 'utf8'));
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
