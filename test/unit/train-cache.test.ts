// The build's training of the code caches (src/scripts/train-cache.mjs): every trained command
// exits 0 against its stub (a create answered with its kind's id prefix, as pay checks), a command
// that fails fails the training (and so the build), and the V8 flags it puts back are those
// src/lib/v8-flags.ts sets, named there only.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';

const trainer = new URL('../../src/scripts/train-cache.mjs', import.meta.url).pathname;
const train = (...args: string[]) =>
  spawnSync(process.execPath, [trainer, '--check', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH }, timeout: 120_000 });

describe('training the code caches', () => {
  it('every trained command exits 0 against the stub, and --check writes no cache', () => {
    const before = readFileSync(new URL('../../dist/cli.cjs.cache', import.meta.url));
    const r = train();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // transfers send: the stub's answer is a new transfer (tr_…), which pay accepts for a create.
    expect(r.stdout).toMatch(/^tr_train0{18}1\t/m);
    expect(readFileSync(new URL('../../dist/cli.cjs.cache', import.meta.url)).equals(before)).toBe(true);
  });

  it('a trained command that exits non-zero fails the training, saying which', () => {
    const r = train('--', 'customers', 'get', 'nope');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('train-cache: pay customers get nope exited 2\n');
    expect(r.stderr).toContain('no cache written');
  });
});

describe('the V8 flags pay sets', () => {
  afterEach(() => {
    vi.doUnmock('node:v8');
    vi.resetModules();
  });

  it('are exactly FLAGS_PAY_SETS, and the training names none of them itself', async () => {
    const set: string[] = [];
    vi.resetModules();
    vi.doMock('node:v8', () => ({ setFlagsFromString: (s: string) => set.push(s) }));
    const flags = await import('../../src/lib/v8-flags.js');
    flags.shortLivedWasm(() => 0);
    flags.streamingHeap();
    const names = new Set(set.map((s) => /^--([a-z-]+)=/.exec(s)?.[1]));
    expect([...names].sort()).toEqual([...flags.FLAGS_PAY_SETS].sort());
    const training = readFileSync(trainer, 'utf8');
    for (const name of flags.FLAGS_PAY_SETS) expect(training).not.toContain(name);
  });
});
