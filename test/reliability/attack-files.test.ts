// Outside attack on the files pay and the emulator write (issue 24, class "files opened by name,
// trusted when they are there"), and on their locks. Every writer (src/shared/atomic-write.ts
// directly, the config store, the emulator's keys.json and webhooks.json, a seed state file) is run
// against a table of things planted at its target and at the fixed temporary names pay used to
// write through (`<file>.tmp`): a symbolic link to a victim file, a dangling link, a fifo, a folder,
// a hard link to the victim. The victim never changes; a target that is a link or not a regular file
// is refused with one line naming it; a plant at an old temporary name is not followed (the write
// goes to a fresh temporary); what is written is a regular file of mode 0600; no temporary is left.
// Then the lock (src/shared/lock.ts): dead, reused and live holders, another host, an older
// emulator's bare pid, wrong-type lock paths, N processes taking one stale lock at once (one wins),
// N processes counting through lock + write (nothing lost, no ENOENT); `seed apply` of one file
// twice at once against an emulator; `pay emulator start --configure-profile` with a configuration
// that cannot be written (fails at once, before serving).
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { loadIdentity } from '../../src/emulator/auth.js';
import { saveWebhookSettings } from '../../src/emulator/webhook-file.js';
import { startEmulator } from '../../src/emulator/index.js';
import { writeFileAtomic, openForAppend } from '../../src/shared/atomic-write.js';
import { lock, lockNow, LockError, processStart, type LockHolder } from '../../src/shared/lock.js';
import { customerBody, startWorld, type Obj, type World } from '../e2e/groups/helpers.js';
import { cleanEnv, record, spawnPay, stackTrace, tempIn, tempRoot } from './helpers.js';
import { runPay } from '../helpers/run-pay.js';

const root = tempRoot('files');
const VICTIM = "VICTIM: not pay's file\n";
const isRoot = process.getuid?.() === 0;

/** A victim in a folder of its own: what a planted link points at. */
function victim(): string {
  const d = tempIn(root, 'victim-');
  const p = join(d, 'victim.txt');
  writeFileSync(p, VICTIM, { mode: 0o644 });
  chmodSync(p, 0o644);
  return p;
}

const mode = (p: string) => statSync(p).mode & 0o777;
const isLink = (p: string): boolean => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};
const kindOf = (p: string): string => {
  if (!existsSync(p) && !isLink(p)) return 'nothing';
  const st = lstatSync(p);
  return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'folder' : st.isFIFO() ? 'fifo' : st.isFile() ? 'file' : 'other';
};

interface Plant {
  name: string;
  /** Makes the thing at `at`, pointing at `v` where it points; answers its kind as lstat sees it. */
  make: (at: string, v: string) => void;
}
const PLANTS: Plant[] = [
  { name: 'symlink to a victim', make: (at, v) => symlinkSync(v, at) },
  { name: 'dangling symlink', make: (at, v) => symlinkSync(`${v}.nothing-here`, at) },
  { name: 'symlink to a folder', make: (at, v) => symlinkSync(join(v, '..'), at) },
  { name: 'fifo', make: (at) => execFileSync('mkfifo', [at]) },
  { name: 'folder', make: (at) => mkdirSync(at) },
  { name: 'hard link to a victim', make: (at, v) => linkSync(v, at) },
];

interface Writer {
  name: string;
  file: string;
  /** Runs the writer on the folder `dir` (the target is dir/file). */
  write: (dir: string) => Promise<unknown>;
}
const EMPTY_HOOKS = { sandbox: { url: undefined, claims: [] }, live: { url: undefined, claims: [] } };
const WRITERS: Writer[] = [
  { name: 'writeFileAtomic', file: 'data.json', write: (d) => Promise.resolve(writeFileAtomic(join(d, 'data.json'), '{"new":true}\n')) },
  {
    name: 'config store',
    file: 'config.json',
    write: (d) => new ConfigStore(d).saveProfile('p', { tenant_id: 'biz_files' }),
  },
  { name: 'emulator keys.json', file: 'keys.json', write: (d) => Promise.resolve(loadIdentity(d)) },
  { name: 'emulator webhooks.json', file: 'webhooks.json', write: (d) => Promise.resolve(saveWebhookSettings(d, EMPTY_HOOKS)) },
];

/** Problems with one writer and one plant at `at` (the target or an old temporary name). */
async function attack(w: Writer, plant: Plant, where: 'target' | 'old temporary'): Promise<string[]> {
  const dir = tempIn(root, 'w-');
  chmodSync(dir, 0o700);
  const target = join(dir, w.file);
  const at = where === 'target' ? target : `${target}.tmp`;
  const v = victim();
  plant.make(at, v);
  const plantedKind = kindOf(at);
  const before = new Set(readdirSync(dir));
  let error: Error | undefined;
  try {
    await w.write(dir);
  } catch (err) {
    error = err as Error;
  }
  const bad: string[] = [];
  if (readFileSync(v, 'utf8') !== VICTIM) bad.push('the victim changed');
  if (mode(v) !== 0o644) bad.push(`the victim's mode is now ${mode(v).toString(8)}`);
  if (error) {
    if (stackTrace(error.message)) bad.push('a stack trace');
    if (error.message.includes('\n')) bad.push(`not one line: ${error.message}`);
    if (!error.message.includes(w.file)) bad.push(`the error does not name ${w.file}: ${error.message}`);
    if (where === 'old temporary') bad.push(`refused though only an old temporary name was planted: ${error.message}`);
    if (kindOf(at) !== plantedKind) bad.push(`the planted ${plantedKind} is now a ${kindOf(at)}`);
    // A hard link is a regular file: replaced (the rename leaves the victim alone), or refused for its content.
  } else {
    if (where === 'target' && plant.name !== 'hard link to a victim') bad.push(`a ${plant.name} at the target was not refused`);
    if (kindOf(target) !== 'file') bad.push(`the target is a ${kindOf(target)}`);
    else {
      if (mode(target) !== 0o600) bad.push(`the target's mode is ${mode(target).toString(8)}`);
      if (statSync(target).nlink !== 1) bad.push('the target is still linked to another name');
    }
    if (where === 'old temporary' && kindOf(at) !== plantedKind) bad.push(`the planted ${plantedKind} is now a ${kindOf(at)}`);
  }
  const left = readdirSync(dir).filter((n) => !before.has(n) && n !== w.file && !n.endsWith('.lock'));
  if (left.length) bad.push(`left behind: ${left.join(', ')}`);
  return bad;
}

describe('attack: files pay writes whole', () => {
  it('every writer, every plant at its target and at the old fixed temporary name: the victim untouched, refused or written fresh, 0600', async () => {
    const started = Date.now();
    const failures: string[] = [];
    let tried = 0;
    for (const w of WRITERS)
      for (const plant of PLANTS)
        for (const where of ['target', 'old temporary'] as const) {
          tried++;
          const bad = await attack(w, plant, where);
          if (bad.length) failures.push(`${w.name}, ${plant.name} at the ${where}: ${bad.join('; ')}`);
        }
    await record(
      'attack.files-writers',
      'Writers (atomic write, config, keys.json, webhooks.json) × plants (links, fifo, folder, hard link) at target and old temp name',
      { tried, passed: tried - failures.length, lost: 0, duplicated: 0, leaked: 0 },
      started,
    );
    expect(failures).toEqual([]);
  });

  it('a file opened to append: a link, a fifo or a folder is refused with one line, a regular file is appended to', () => {
    const failures: string[] = [];
    for (const plant of PLANTS) {
      const dir = tempIn(root, 'a-');
      const at = join(dir, 'log.jsonl');
      const v = victim();
      plant.make(at, v);
      try {
        const fd = openForAppend(at);
        writeFileSync(fd, 'x\n');
        if (plant.name !== 'hard link to a victim') failures.push(`${plant.name}: opened`);
      } catch (err) {
        if (plant.name === 'hard link to a victim') failures.push(`${plant.name}: ${(err as Error).message}`);
        else if (!(err as Error).message.includes(at)) failures.push(`${plant.name}: ${(err as Error).message}`);
      }
      // A hard link is a regular file: appending to it is what a hard link means, and no pay file is one unasked.
      if (plant.name !== 'hard link to a victim' && readFileSync(v, 'utf8') !== VICTIM) failures.push(`${plant.name}: the victim changed`);
    }
    expect(failures).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Processes: one child script bundled from src/shared (node builtins only), run N times at once.

let child = '';
beforeAll(async () => {
  const dir = tempIn(root, 'child-');
  const entry = join(dir, 'child.ts');
  const src = new URL('../../src/shared/', import.meta.url).pathname;
  writeFileSync(
    entry,
    `import { readFileSync } from 'node:fs';
import { writeFileAtomic } from ${JSON.stringify(join(src, 'atomic-write.ts'))};
import { lock, lockNow } from ${JSON.stringify(join(src, 'lock.ts'))};
const [what, path, file, n] = process.argv.slice(2);
if (what === 'count') {
  for (let i = 0; i < Number(n); i++) {
    const release = await lock(path, { what: 'the counter', waitMs: 120000 });
    const value = Number(readFileSync(file, 'utf8'));
    writeFileAtomic(file, String(value + 1) + '\\n');
    release();
  }
} else if (what === 'write') {
  for (let i = 0; i < Number(n); i++) writeFileAtomic(file, JSON.stringify({ pid: process.pid, i, pad: 'x'.repeat(4096) }) + '\\n');
} else if (what === 'take') {
  try {
    lockNow(path, 'the data');
    process.stdout.write('held\\n');
  } catch (err) {
    process.stdout.write((err.code ?? 'error') + '\\n');
  }
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}
`,
  );
  child = join(dir, 'child.mjs');
  await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: child, logLevel: 'silent' });
});

function runChild(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('attack: parallel writers and lockers of one file', () => {
  it('N processes count through lock + atomic write: no increment lost; N unlocked writers: no ENOENT, the file always whole', async () => {
    const started = Date.now();
    const dir = tempIn(root, 'par-');
    const counter = join(dir, 'counter');
    writeFileSync(counter, '0\n');
    const N = 6;
    const K = 25;
    const counted = await Promise.all(Array.from({ length: N }, () => runChild(['count', join(dir, 'counter.lock'), counter, String(K)])));
    const shared = join(dir, 'shared.json');
    const written = await Promise.all(Array.from({ length: N }, () => runChild(['write', '', shared, String(K)])));
    const failures = [...counted, ...written].filter((r) => r.code !== 0).map((r) => r.err.split('\n')[0]);
    const total = Number(readFileSync(counter, 'utf8'));
    const last = JSON.parse(readFileSync(shared, 'utf8')) as { i: number };
    const left = readdirSync(dir).filter((n) => n.endsWith('.tmp') || n.includes('.lock'));
    await record(
      'attack.files-parallel',
      `${N} processes × ${K}: counted under the lock, and written whole without one`,
      { tried: 2 * N * K, passed: total + (failures.length === 0 ? N * K : 0), lost: N * K - total, duplicated: 0, leaked: 0 },
      started,
    );
    expect(failures).toEqual([]);
    expect(total).toBe(N * K);
    expect(last.i).toBe(K - 1);
    expect(left).toEqual([]);
  });

  it('N processes find one stale lock at once: exactly one takes it over', async () => {
    const started = Date.now();
    const rounds = 4;
    const N = 5;
    const held: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const dir = tempIn(root, 'stale-');
      const path = join(dir, 'LOCK');
      writeFileSync(path, `${JSON.stringify({ pid: await deadPid(), start: '1', host: hostname(), nonce: `r${r}` })}\n`);
      const kids = Array.from({ length: N }, () => spawn(process.execPath, [child, 'take', path], { stdio: ['pipe', 'pipe', 'pipe'] }));
      const answers = await Promise.all(
        kids.map(
          (k) =>
            new Promise<string>((resolve) => {
              let out = '';
              k.stdout.setEncoding('utf8').on('data', (d: string) => {
                out += d;
                if (out.includes('\n')) resolve(out.trim());
              });
              k.on('close', () => resolve(out.trim() || 'closed'));
            }),
        ),
      );
      for (const k of kids) k.stdin.end();
      await Promise.all(kids.map((k) => new Promise((r) => k.on('close', r))));
      held.push(answers.filter((a) => a === 'held').length);
      expect(
        answers.every((a) => a === 'held' || a === 'lock_busy'),
        answers.join(','),
      ).toBe(true);
    }
    await record(
      'attack.files-stale-takeover',
      `${N} processes at once on a stale lock, ${rounds} rounds: one takes it`,
      { tried: rounds, passed: held.filter((h) => h === 1).length, lost: 0, duplicated: held.filter((h) => h > 1).length, leaked: 0 },
      started,
    );
    expect(held).toEqual(Array.from({ length: rounds }, () => 1));
  });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => p.on('close', r));
  return p.pid!;
}

// ---------------------------------------------------------------------------------------------
// The lock's holders

describe('attack: lock holders', () => {
  let sleeper: ReturnType<typeof spawn>;
  beforeAll(async () => {
    sleeper = spawn(process.execPath, ['-e', 'process.stdout.write("up\\n"); setInterval(() => {}, 1 << 30)'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await new Promise((r) => sleeper.stdout!.once('data', r));
  });
  afterAll(() => {
    sleeper.kill();
  });

  it("a holder gone (dead pid, reused pid, an older bare pid written before its process started) is taken over; a live one or another host's is not", async () => {
    const started = Date.now();
    const live = sleeper.pid!;
    const liveStart = processStart(live);
    expect(liveStart).toBeDefined();
    const cases: Array<{ name: string; text: () => Promise<string>; mtime?: Date; taken: boolean }> = [
      { name: 'dead pid', text: async () => JSON.stringify({ pid: await deadPid(), start: '12345', host: hostname() }), taken: true },
      { name: 'dead pid, no start time', text: async () => JSON.stringify({ pid: await deadPid(), host: hostname() }), taken: true },
      { name: 'older bare dead pid', text: async () => String(await deadPid()), taken: true },
      {
        name: 'reused pid (live, another start time)',
        text: async () => JSON.stringify({ pid: live, start: '1', host: hostname() }),
        taken: true,
      },
      {
        name: 'reused pid (live, start time one tick off)',
        text: async () => JSON.stringify({ pid: live, start: String(Number(liveStart) + 1), host: hostname() }),
        taken: true,
      },
      {
        name: 'older bare pid of a process started after the lock was written',
        text: async () => String(live),
        mtime: new Date(Date.now() - 3_600_000),
        taken: true,
      },
      { name: 'older bare pid of a process started before', text: async () => String(live), taken: false },
      { name: 'live holder', text: async () => JSON.stringify({ pid: live, start: liveStart, host: hostname() }), taken: false },
      { name: 'live holder, no host', text: async () => JSON.stringify({ pid: live, start: liveStart }), taken: false },
      {
        name: 'another host (its pid cannot be checked)',
        text: async () => JSON.stringify({ pid: 2, start: '1', host: 'elsewhere.invalid' }),
        taken: false,
      },
    ];
    const failures: string[] = [];
    for (const c of cases) {
      const path = join(tempIn(root, 'h-'), 'x.lock');
      const text = await c.text();
      writeFileSync(path, text);
      if (c.mtime) utimesSync(path, c.mtime, c.mtime);
      try {
        const release = lockNow(path, 'the thing');
        if (!c.taken) failures.push(`${c.name}: taken over`);
        const mine = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
        if (mine.pid !== process.pid || mine.start !== processStart(process.pid))
          failures.push(`${c.name}: the lock does not name this process`);
        release();
        if (existsSync(path)) failures.push(`${c.name}: not removed on release`);
      } catch (err) {
        if (c.taken) failures.push(`${c.name}: ${(err as Error).message}`);
        else {
          const e = err as LockError;
          if (e.code !== 'lock_busy' || !e.message.includes('pid') || !e.message.includes(path)) failures.push(`${c.name}: ${e.message}`);
          if (readFileSync(path, 'utf8') !== text) failures.push(`${c.name}: the lock changed`);
        }
      }
    }
    await record(
      'attack.files-lock-holders',
      'Lock holders: dead, reused, older bare pid, live, other host',
      { tried: cases.length, passed: cases.length - failures.length, lost: 0, duplicated: 0, leaked: 0 },
      started,
    );
    expect(failures).toEqual([]);
  });

  it('the emulator: a LOCK of a reused pid (or of a pid that is gone) is taken over; one of a live emulator is refused naming it', async () => {
    const liveStart = processStart(sleeper.pid!);
    const cases = [
      { name: 'reused pid', text: JSON.stringify({ pid: sleeper.pid, start: '1', host: hostname() }), starts: true },
      { name: 'dead pid', text: String(await deadPid()), starts: true },
      { name: 'live holder', text: JSON.stringify({ pid: sleeper.pid, start: liveStart, host: hostname() }), starts: false },
      // A pid-only LOCK of a live unrelated process (issue 24 item 10: `echo 1 > LOCK`): refused, saying how to clear it.
      { name: 'bare live pid', text: `${sleeper.pid}\n`, starts: false },
    ];
    for (const c of cases) {
      const dataDir = tempIn(root, 'emu-');
      writeFileSync(join(dataDir, 'LOCK'), c.text);
      const started = await startEmulator({ port: 0, dataDir }).catch((e: unknown) => e as Error);
      if (c.starts) {
        expect(started, c.name).not.toBeInstanceOf(Error);
        await (started as Awaited<ReturnType<typeof startEmulator>>).stop();
        expect(existsSync(join(dataDir, 'LOCK')), c.name).toBe(false);
      } else {
        expect((started as Error).message).toBe(
          `the data dir ${dataDir} is in use by pid ${sleeper.pid}${c.text.includes('start') ? '' : ' (a lock naming only a pid, which another program may have now)'}; its lock is ${join(dataDir, 'LOCK')}; if no pay or emulator is using the data dir ${dataDir}, remove it`,
        );
        expect(readFileSync(join(dataDir, 'LOCK'), 'utf8')).toBe(c.text);
      }
    }
  });

  it('pay profiles set waits for a live holder of config.json.lock, saying so on stderr, then writes', async () => {
    const dir = tempIn(root, 'cfgwait-');
    const release = lockNow(join(dir, 'config.json.lock'), 'the test');
    const p = spawnPay(['profiles', 'set', 'tenant_id', 'biz_waited'], cleanEnv({ PAY_CONFIG_DIR: dir }));
    await new Promise<void>((resolve) => {
      const check = () => (p.err().includes('waiting for the configuration') ? resolve() : undefined);
      p.child.stderr.on('data', check);
      check();
    });
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    release();
    expect(await p.closed, p.err()).toBe(0);
    expect(p.err()).toContain(`in use by pid ${process.pid}`);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain('biz_waited');
  });

  it('a live holder is waited for, saying so once, then a clear error names it (a clock of its own: no real waiting)', async () => {
    const path = join(tempIn(root, 'wait-'), 'x.lock');
    const text = JSON.stringify({ pid: sleeper.pid, start: processStart(sleeper.pid!), host: hostname(), at: '2026-01-02T03:04:05.000Z' });
    writeFileSync(path, text);
    let now = 0;
    const said: string[] = [];
    const err = await lock(path, {
      what: 'the thing',
      waitMs: 5000,
      now: () => now,
      sleep: (ms) => Promise.resolve(void (now += ms)),
      onWait: (_h, line) => said.push(line),
    }).catch((e: unknown) => e as LockError);
    expect(said).toEqual([
      `waiting for the thing: it is in use by pid ${sleeper.pid} since 2026-01-02T03:04:05.000Z (its lock ${path}; up to 5 s)`,
    ]);
    expect(err).toBeInstanceOf(LockError);
    expect((err as LockError).message).toBe(
      `the thing is in use by pid ${sleeper.pid} since 2026-01-02T03:04:05.000Z (waited 5 s); its lock is ${path}; if no pay or emulator is using the thing, remove it`,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('a lock path of the wrong type, or a file that is not a lock, is one line at once; nothing is removed', async () => {
    const started = Date.now();
    const PATHS: Array<{ name: string; make: (at: string) => void; code: string }> = [
      { name: 'empty folder', make: (at) => mkdirSync(at), code: 'lock_wrong_type' },
      { name: 'folder with a file', make: (at) => (mkdirSync(at), writeFileSync(join(at, 'x'), 'x')), code: 'lock_wrong_type' },
      {
        name: "symlink to a dead holder's lock",
        make: (at) => (writeFileSync(`${at}.real`, '999999999'), symlinkSync(`${at}.real`, at)),
        code: 'lock_wrong_type',
      },
      { name: 'dangling symlink', make: (at) => symlinkSync(`${at}.nothing`, at), code: 'lock_wrong_type' },
      { name: 'fifo', make: (at) => execFileSync('mkfifo', [at]), code: 'lock_wrong_type' },
      { name: 'empty file', make: (at) => writeFileSync(at, ''), code: 'lock_unreadable' },
      { name: 'garbage', make: (at) => writeFileSync(at, 'not a lock\n'), code: 'lock_unreadable' },
      { name: 'JSON without a pid', make: (at) => writeFileSync(at, '{"host":"x"}'), code: 'lock_unreadable' },
      { name: 'pid 0', make: (at) => writeFileSync(at, '0'), code: 'lock_unreadable' },
      { name: 'huge file', make: (at) => writeFileSync(at, `${'9'.repeat(8)}${' '.repeat(10_000)}`), code: 'lock_unreadable' },
    ];
    const failures: string[] = [];
    for (const p of PATHS) {
      const path = join(tempIn(root, 'wt-'), 'x.lock');
      p.make(path);
      const kind = kindOf(path);
      try {
        lockNow(path, 'the thing')();
        failures.push(`${p.name}: taken`);
      } catch (err) {
        const e = err as LockError;
        if (e.code !== p.code) failures.push(`${p.name}: ${e.code}: ${e.message}`);
        if (e.message.includes('\n') || !e.message.includes(path)) failures.push(`${p.name}: ${e.message}`);
      }
      if (kindOf(path) !== kind) failures.push(`${p.name}: now a ${kindOf(path)}`);
    }
    // Its folder is a file.
    const file = join(tempIn(root, 'nd-'), 'file');
    writeFileSync(file, 'x');
    try {
      lockNow(join(file, 'x.lock'), 'the thing');
      failures.push('folder is a file: taken');
    } catch (err) {
      if ((err as LockError).code !== 'lock_wrong_type') failures.push(`folder is a file: ${(err as Error).message}`);
    }
    await record(
      'attack.files-lock-paths',
      'Lock paths of the wrong type (folder, links, fifo, not a lock, folder a file)',
      { tried: PATHS.length + 1, passed: PATHS.length + 1 - failures.length, lost: 0, duplicated: 0, leaked: 0 },
      started,
    );
    expect(failures).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the built CLI

describe('attack: seed apply of one file at once, and its state file', () => {
  let w: World;
  let dir: string;
  beforeAll(async () => {
    w = await startWorld({ settleAfterMs: 20 });
    dir = tempIn(root, 'seed-');
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
  });
  const seedFile = (name: string, n: number): string => {
    const customers: Obj = {};
    for (let i = 0; i < n; i++) customers[`c${i}`] = customerBody({ email: `${name}-${i}@files.example.com` });
    const p = join(dir, `${name}.yaml`);
    writeFileSync(p, stringify({ customers }));
    return p;
  };

  it('two applies at once: both exit 0, no entry failed, the state file holds every entry; a third creates nothing', async () => {
    const started = Date.now();
    const N = 16;
    const file = seedFile('twice', N);
    const [a, b] = await Promise.all([
      w.pay(['seed', 'apply', file, '--no-input', '-o', 'ndjson'], { timeoutMs: 120_000 }),
      w.pay(['seed', 'apply', file, '--no-input', '-o', 'ndjson'], { timeoutMs: 120_000 }),
    ]);
    const rows = [a, b].flatMap((r) =>
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Obj),
    );
    const failed = rows.filter((r) => r.status === 'failed' || r.status === 'blocked');
    const state = JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as { entries: Obj };
    const mark = w.mark();
    const third = await w.pay(['seed', 'apply', file, '--no-input', '-o', 'ndjson'], { timeoutMs: 120_000 });
    const posts = w.since(mark, 'POST');
    const customers = (await w.api('GET', 'customers?limit=100')).data as Obj[];
    const made = customers.filter((c) => String(c.email).startsWith('twice-')).length;
    await record(
      'attack.files-seed-twice',
      `seed apply of one ${N}-entry file twice at once, then again`,
      { tried: N, passed: Object.keys(state.entries).length, lost: N - Object.keys(state.entries).length, duplicated: made - N, leaked: 0 },
      started,
    );
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(failed).toEqual([]);
    expect(Object.keys(state.entries).sort()).toEqual(Array.from({ length: N }, (_, i) => `customers.c${i}`).sort());
    expect(third.code, third.stderr).toBe(0);
    expect(posts).toEqual([]);
    expect(made).toBe(N);
  }, 240_000);

  it("a second apply waits for the state file's lock, saying what it waits for, then finds the state", async () => {
    const file = seedFile('waits', 3);
    const release = lockNow(`${file}.state.json.lock`, 'the test');
    const p = spawnPay(['seed', 'apply', file, '--no-input', '--json'], w.env);
    await new Promise<void>((resolve) => {
      const check = () => (p.err().includes('waiting for the state file') ? resolve() : undefined);
      p.child.stderr.on('data', check);
      check();
    });
    const mark = w.mark();
    expect(w.since(mark, 'POST')).toEqual([]);
    release();
    expect(await p.closed, p.err()).toBe(0);
    expect(p.err()).toContain(`in use by pid ${process.pid}`);
    expect(
      p
        .err()
        .split('\n')
        .filter((l) => l.startsWith('waiting for')).length,
    ).toBe(1);
    expect(Object.keys((JSON.parse(readFileSync(`${file}.state.json`, 'utf8')) as { entries: Obj }).entries)).toHaveLength(3);
  }, 120_000);

  it('a link planted at the old <file>.state.json.tmp is not followed; one at the state file itself is refused before anything is sent', async () => {
    const failures: string[] = [];
    for (const plant of PLANTS) {
      const file = seedFile(`plant-${PLANTS.indexOf(plant)}`, 2);
      const v = victim();
      plant.make(`${file}.state.json.tmp`, v);
      const r = await w.pay(['seed', 'apply', file, '--no-input', '--json'], { timeoutMs: 60_000 });
      if (r.code !== 0) failures.push(`${plant.name} at the old temporary: exit ${r.code}: ${r.stderr}`);
      if (readFileSync(v, 'utf8') !== VICTIM || mode(v) !== 0o644) failures.push(`${plant.name} at the old temporary: the victim changed`);
      if (kindOf(`${file}.state.json`) !== 'file' || mode(`${file}.state.json`) !== 0o600)
        failures.push(`${plant.name} at the old temporary: the state file is not a 0600 file`);
    }
    for (const plant of PLANTS.filter((p) => p.name !== 'hard link to a victim')) {
      const file = seedFile(`target-${PLANTS.indexOf(plant)}`, 2);
      const v = victim();
      plant.make(`${file}.state.json`, v);
      const mark = w.mark();
      const r = await w.pay(['seed', 'apply', file, '--no-input'], { timeoutMs: 60_000 });
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
      if (r.code !== 2 || errors.length !== 1 || !errors[0]!.includes(`${file}.state.json`) || stackTrace(r.stderr))
        failures.push(`${plant.name} at the state file: exit ${r.code}: ${r.stderr}`);
      if (w.since(mark, 'POST').length) failures.push(`${plant.name} at the state file: something was sent`);
      if (readFileSync(v, 'utf8') !== VICTIM) failures.push(`${plant.name} at the state file: the victim changed`);
    }
    expect(failures).toEqual([]);
  }, 240_000);
});

describe('attack: emulator start --configure-profile with a configuration it cannot write', () => {
  it('fails at once, before serving, with one line (exit 1, or 2 for a lock path that is not a lock)', async () => {
    const started = Date.now();
    const cases: Array<{ name: string; dir: () => string; code: number }> = [];
    if (!isRoot) {
      cases.push({
        name: 'read-only folder',
        dir: () => {
          const d = tempIn(root, 'ro-');
          chmodSync(d, 0o500);
          return d;
        },
        code: 1,
      });
    }
    // Root writes anywhere but on a read-only file system: /sys is one in a container and most hosts.
    if (existsSync('/sys/fs') && isRoot) cases.push({ name: 'read-only file system (/sys/fs)', dir: () => '/sys/fs', code: 1 });
    cases.push(
      {
        name: 'config folder under a file',
        dir: () => {
          const d = tempIn(root, 'nd-');
          writeFileSync(join(d, 'f'), 'x');
          return join(d, 'f', 'cfg');
        },
        code: 1,
      },
      {
        name: 'config.json.lock is a folder in use',
        dir: () => {
          const d = tempIn(root, 'lk-');
          mkdirSync(join(d, 'config.json.lock'));
          return d;
        },
        code: 2,
      },
      {
        name: 'config.json.lock is a file that is not a lock',
        dir: () => {
          const d = tempIn(root, 'lk-');
          writeFileSync(join(d, 'config.json.lock'), 'junk');
          return d;
        },
        code: 2,
      },
    );
    const failures: string[] = [];
    for (const c of cases) {
      const r = await runPay(['emulator', 'start', '--port', '0', '--configure-profile', 'local'], {
        env: cleanEnv({ PAY_CONFIG_DIR: c.dir() }),
        timeoutMs: 30_000,
      });
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
      if (r.code !== c.code) failures.push(`${c.name}: exit ${r.code}: ${r.stderr}`);
      if (errors.length !== 1 || stackTrace(r.stderr)) failures.push(`${c.name}: ${r.stderr}`);
      if (r.stderr.includes('listening')) failures.push(`${c.name}: it served first`);
    }
    await record(
      'attack.files-configure-profile',
      'emulator start --configure-profile with a configuration it cannot write',
      { tried: cases.length, passed: cases.length - failures.length, lost: 0, duplicated: 0, leaked: 0 },
      started,
    );
    expect(failures).toEqual([]);
  }, 120_000);
});
