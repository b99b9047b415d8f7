// Attack: the emulator's data dir fails under it. Three generated classes:
//  - disk-inject: an injected file layer fails the Nth write or fdatasync of the journal (ENOSPC,
//    EIO, or a short write followed by ENOSPC) and keeps failing until "space returns", while
//    waves of concurrent POSTs and list GETs run. Every POST answered 201 survives a restart;
//    a POST answered 503 carries Retry-After and is seen nowhere (not in a list read during or
//    after the episode, not replayed for its Idempotency-Key, not after a restart); the emulator
//    recovers by itself once the layer works again, and the refused requests, retried with
//    their keys, are created exactly once.
//  - disk-tmpfs: the same on a real size-limited tmpfs (mounted here; skipped, with the reason
//    printed, where it cannot be), filled up by a file of generated size: writes hit ENOSPC
//    (tmpfs also writes short), then the file is removed.
//  - disk-torn: a journal whose last line is torn (a generated prefix of a real line, NUL
//    bytes, garbage) starts with a warning, keeps every whole line, and is cut back.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { realFiles, type FileLayer } from '../../src/emulator/journal.js';
import { client, customerBody, removeTempDirs, start, tempDir, type Api, type Emulator } from '../emulator/helpers.js';
import { count, record } from './helpers.js';
import { until } from '../helpers/wait.js';

afterAll(() => removeTempDirs());

type Kind = 'write-enospc' | 'write-eio' | 'write-short' | 'sync-enospc' | 'sync-eio';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: injected`), { code });

/** node:fs, except that from the Nth write (or fdatasync) on everything fails until heal(). */
class FailingFiles implements FileLayer {
  writes = 0;
  syncs = 0;
  down = false;
  failures = 0;
  constructor(
    private readonly kind: Kind,
    private readonly nth: number,
  ) {}
  heal(): void {
    this.down = false;
  }
  private fail(code: string): never {
    this.failures++;
    throw errno(code);
  }
  openSync = realFiles.openSync;
  renameSync = realFiles.renameSync;
  ftruncateSync = realFiles.ftruncateSync;
  fsync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void => {
    if (this.down) return void setImmediate(() => cb(errno(this.kind.endsWith('eio') ? 'EIO' : 'ENOSPC')));
    realFiles.fsync(fd, cb);
  };
  fsyncSync = (fd: number): void => {
    if (this.down) this.fail(this.kind.endsWith('eio') ? 'EIO' : 'ENOSPC');
    realFiles.fsyncSync(fd);
  };
  writeSync = (fd: number, buf: Buffer, offset: number, length: number): number => {
    if (this.down) this.fail(this.kind === 'write-eio' || this.kind === 'sync-eio' ? 'EIO' : 'ENOSPC');
    if (this.kind.startsWith('write') && ++this.writes === this.nth) {
      this.down = true;
      if (this.kind === 'write-short' && length > 1) return realFiles.writeSync(fd, buf, offset, length >> 1);
      this.fail(this.kind === 'write-eio' ? 'EIO' : 'ENOSPC');
    }
    return realFiles.writeSync(fd, buf, offset, length);
  };
  fdatasync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void => {
    if (this.down) return void setImmediate(() => cb(errno(this.kind === 'sync-eio' ? 'EIO' : 'ENOSPC')));
    if (this.kind.startsWith('sync') && ++this.syncs === this.nth) {
      this.down = true;
      this.failures++;
      return void realFiles.fdatasync(fd, () => cb(errno(this.kind === 'sync-eio' ? 'EIO' : 'ENOSPC')));
    }
    realFiles.fdatasync(fd, cb);
  };
  fdatasyncSync = (fd: number): void => {
    if (this.down) this.fail(this.kind === 'sync-eio' ? 'EIO' : 'ENOSPC');
    realFiles.fdatasyncSync(fd);
  };
}

interface Post {
  /** The body's variant (a retry sends the same body). */
  i: number;
  email: string;
  key: string;
  status: number;
  id?: string;
  retryAfter: string | null;
  replayed: boolean;
  /** Created by a retry made while the disk was still full (a real disk may have room for it). */
  early?: boolean;
}

/** What one episode saw; `problems` lists every broken promise in words. */
interface Outcome {
  acked: number;
  refused: number;
  lost: number;
  duplicated: number;
  leaked: number;
  problems: string[];
}

const RETRY_MS = 25;

async function post(api: Api, email: string, key: string, i: number): Promise<Post> {
  const r = await api('POST', 'customers', { ...customerBody(i), email }, { idem: key });
  return {
    i,
    email,
    key,
    status: r.status,
    id: r.status === 201 ? (r.body.id as string) : undefined,
    retryAfter: r.headers.get('retry-after'),
    replayed: r.headers.get('idempotent-replayed') === 'true',
  };
}

async function listEmails(api: Api): Promise<{ status: number; emails: string[] }> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const r = await api('GET', `customers?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    if (r.status !== 200) return { status: r.status, emails: out };
    for (const c of r.body.data as Array<{ email: string }>) out.push(c.email);
    if (!r.body.has_more) return { status: 200, emails: out };
    cursor = r.body.next_cursor as string;
  }
}

/**
 * One episode against a running emulator whose disk starts failing at some point and heals
 * when `heal()` is called: waves of `width` POSTs (plus a list GET) until one is refused, checks
 * during the failure, heal, recovery, retries of the refused keys, then a restart on `dir`.
 */
async function episode(
  tag: string,
  dir: string,
  emu: Emulator,
  heal: () => void,
  width: number,
  maxPosts: number,
  failed: () => boolean,
  strict: boolean,
): Promise<Outcome> {
  const problems: string[] = [];
  let api = client(emu);
  const posts: Post[] = [];
  const seenInLists = new Set<string>();
  let n = 0;
  // 1. Waves until something is refused (and the layer is down).
  while (n < maxPosts && !(posts.some((p) => p.status === 503) && failed())) {
    const wave = Array.from({ length: width }, () => {
      const i = n++;
      return post(api, `${tag}-${i}@disk.example.com`, `${tag}-k${i}`, i);
    });
    const [list, ...got] = await Promise.all([listEmails(api), ...wave]);
    if (list.status === 200) for (const e of list.emails) seenInLists.add(e);
    else if (list.status !== 503) problems.push(`a list GET answered ${list.status}`);
    posts.push(...got);
  }
  const refusedOnce = posts.filter((p) => p.status === 503);
  if (refusedOnce.length === 0) problems.push(`no POST was refused in ${n} (the injected failure never hit)`);
  for (const p of posts) {
    if (p.status !== 201 && p.status !== 503) problems.push(`POST ${p.email} answered ${p.status}`);
    if (p.status === 503 && !/^\d+$/.test(p.retryAfter ?? '')) problems.push(`a 503 without a Retry-After (${p.retryAfter})`);
  }

  // 2. While it fails: reads show acknowledged writes only; a new POST is refused with
  // Retry-After, and a refused key is not replayed. (`strict`: the injected layer fails every
  // write; a real full disk may have room again for a small one once the journal was cut back:
  // then the POST is created, never replayed.)
  const during = await listEmails(api);
  if (during.status === 200) for (const e of during.emails) seenInLists.add(e);
  else problems.push(`a list GET while the disk fails answered ${during.status}`);
  const stats = async () =>
    (await (await fetch(`${emu.url}/__emulator/stats`)).json()) as { journal: { writable: boolean; disk_errors: { episodes: number } } };
  if (strict && (await stats()).journal.writable) problems.push('the stats say the journal is writable while the disk fails');
  if (failed()) {
    const extra = await post(api, `${tag}-down@disk.example.com`, `${tag}-down`, 0);
    if (extra.status === 503 && extra.retryAfter) refusedOnce.push(extra);
    else if (!strict && extra.status === 201 && !extra.replayed) posts.push(extra);
    else problems.push(`a POST while the disk fails answered ${extra.status} (Retry-After ${extra.retryAfter})`);
    const again = refusedOnce[0];
    if (again) {
      const r = await post(api, again.email, again.key, again.i);
      if (!strict && r.status === 201 && !r.replayed) again.early = true;
      else if (r.status !== 503)
        problems.push(`the refused key ${again.key} answered ${r.status}${r.replayed ? ' (replayed)' : ''} while the disk fails`);
    }
  }

  // 3. Space returns: the emulator recovers by itself; the refused requests, retried with their
  // keys, are created now (not replayed: nothing of them was kept).
  heal();
  for (const p of refusedOnce) {
    // The emulator recovers on its own timer: the retry is refused (503) until it has.
    const r = await until(`${p.key} to be accepted after the disk healed`, async () => {
      const v = await post(api, p.email, p.key, p.i);
      return v.status !== 503 && v;
    });
    if (r.status !== 201) problems.push(`the retry of ${p.key} answered ${r.status}`);
    // Nothing of a refused request was kept: its retry creates it (unless an early retry did).
    else if (r.replayed !== (p.early === true)) problems.push(`the retry of ${p.key} was ${r.replayed ? '' : 'not '}a replay`);
    p.status = r.status;
    p.id = r.id;
  }
  const after = (await stats()).journal;
  if (!after.writable || after.disk_errors.episodes < 1) problems.push(`the stats after recovery: ${JSON.stringify(after)}`);
  const acked = posts.filter((p) => p.status === 201 && !refusedOnce.includes(p));
  const ackedEmails = new Set(acked.map((p) => p.email));
  const refusedEmails = new Set(refusedOnce.map((p) => p.email));
  // Leaked: a refused write seen in a read made before its retry.
  const leaked = [...seenInLists].filter((e) => refusedEmails.has(e) || !ackedEmails.has(e)).length;
  if (leaked) problems.push(`${leaked} refused write(s) were visible in a list before their retry`);

  // 4. A restart on the same data dir loads every acknowledged write, each once.
  await emu.stop();
  const again = await start({ dataDir: dir });
  try {
    api = client(again);
    const after = await listEmails(api);
    const counts = new Map<string, number>();
    for (const e of after.emails) counts.set(e, (counts.get(e) ?? 0) + 1);
    const all = [...acked, ...refusedOnce.filter((p) => p.status === 201)];
    const lost = all.filter((p) => !counts.has(p.email)).length;
    const duplicated = [...counts.values()].reduce((s, c) => s + c - 1, 0);
    const unknown = [...counts.keys()].filter((e) => !all.some((p) => p.email === e)).length;
    for (const p of all) {
      const r = await api('GET', `customers/${p.id}`);
      if (r.status !== 200 || r.body.email !== p.email) problems.push(`${p.id} (${p.email}) after the restart: ${r.status}`);
    }
    if (lost) problems.push(`${lost} acknowledged write(s) lost across the restart`);
    if (duplicated) problems.push(`${duplicated} duplicate(s) after the restart`);
    if (unknown) problems.push(`${unknown} customer(s) nobody was told about after the restart`);
    return { acked: all.length, refused: refusedOnce.length, lost, duplicated, leaked: leaked + unknown, problems };
  } finally {
    await again.stop();
  }
}

interface Tally {
  tried: number;
  passed: number;
  lost: number;
  duplicated: number;
  leaked: number;
  acked: number;
  refused: number;
  failures: string[];
}
const tally = (): Tally => ({ tried: 0, passed: 0, lost: 0, duplicated: 0, leaked: 0, acked: 0, refused: 0, failures: [] });
function add(t: Tally, o: Outcome, what: string): void {
  t.tried++;
  if (o.problems.length === 0) t.passed++;
  else t.failures.push(`${what}: ${o.problems.join('; ')}`);
  t.lost += o.lost;
  t.duplicated += o.duplicated;
  t.leaked += o.leaked;
  t.acked += o.acked;
  t.refused += o.refused;
}

describe('attack: the data dir fails under the emulator', () => {
  it('injected write/fdatasync failures: acknowledged writes survive, refused ones are seen nowhere, 503 + Retry-After, recovery', async () => {
    const startedAt = Date.now();
    const t = tally();
    const kinds: Kind[] = ['write-enospc', 'write-eio', 'write-short', 'sync-enospc', 'sync-eio'];
    let serial = 0;
    await fc.assert(
      // compact: the journal compacts in the background every few KiB (the failure may hit a
      // snapshot, the new journal, or a commit while a compaction runs).
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        async (kind, nth, width, compact) => {
          const tag = `inj${serial++}`;
          const dir = tempDir('pay-disk-');
          const files = new FailingFiles(kind, nth);
          const tuning = compact ? { compactAt: 4096, overSnapshot: 1, pauseMs: 0, sliceMs: 1, opsPerLine: 2 } : {};
          const emu = await start({ dataDir: dir, journal: { files, retryMs: RETRY_MS, ...tuning } });
          const o = await episode(
            tag,
            dir,
            emu,
            () => files.heal(),
            width,
            80,
            () => files.down,
            true,
          );
          add(t, o, `${kind} #${nth} width ${width}${compact ? ' compacting' : ''}`);
          rmSync(dir, { recursive: true, force: true });
          return true;
        },
      ),
      { numRuns: count(25, 1000), seed: Number(process.env.PAY_FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
    await record(
      'attack.disk-inject',
      'Journal write/fdatasync fails (ENOSPC, EIO, short write), then heals',
      {
        tried: t.tried,
        passed: t.passed,
        lost: t.lost,
        duplicated: t.duplicated,
        leaked: t.leaked,
        extra: { acknowledged: t.acked, refused_503: t.refused },
      },
      startedAt,
    );
    expect(t.failures).toEqual([]);
    expect(t.passed).toBe(t.tried);
  }, 600_000);

  const mountReason = tryMount();
  it.skipIf(mountReason !== undefined)(
    `a real size-limited tmpfs filled up${mountReason ? ` (skipped: ${mountReason})` : ''}`,
    async () => {
      const startedAt = Date.now();
      const t = tally();
      const root = tempDir('pay-disk-tmpfs-');
      let serial = 0;
      try {
        mount(root);
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 0, max: 24 * 1024 }),
            fc.integer({ min: 1, max: 6 }),
            fc.boolean(),
            async (left, width, compact) => {
              const tag = `tmp${serial++}`;
              const dir = join(root, tag);
              mkdirSync(dir);
              const tuning = compact ? { compactAt: 4096, overSnapshot: 1, pauseMs: 0, sliceMs: 1, opsPerLine: 2 } : {};
              const emu = await start({ dataDir: dir, journal: { retryMs: RETRY_MS, ...tuning } });
              // Fill the file system up to `left` bytes (tmpfs counts whole pages).
              const filler = join(root, 'filler');
              fill(filler, left);
              let full = true;
              const o = await episode(
                tag,
                dir,
                emu,
                () => {
                  rmSync(filler, { force: true });
                  full = false;
                },
                width,
                400,
                () => full,
                false,
              );
              add(t, o, `${left} bytes left, width ${width}${compact ? ' compacting' : ''}`);
              rmSync(dir, { recursive: true, force: true });
              return true;
            },
          ),
          { numRuns: count(8, 1000), seed: Number(process.env.PAY_FUZZ_SEED ?? Date.now() % 2 ** 31) },
        );
      } finally {
        unmount(root);
      }
      await record(
        'attack.disk-tmpfs',
        'A real 1 MiB tmpfs fills up under the emulator, then space returns',
        {
          tried: t.tried,
          passed: t.passed,
          lost: t.lost,
          duplicated: t.duplicated,
          leaked: t.leaked,
          extra: { acknowledged: t.acked, refused_503: t.refused },
        },
        startedAt,
      );
      expect(t.failures).toEqual([]);
      expect(t.passed).toBe(t.tried);
    },
    600_000,
  );

  it('a torn last line at start-up is dropped with a warning; every whole line is kept', async () => {
    const startedAt = Date.now();
    const dir = tempDir('pay-disk-torn-');
    // A journal of whole lines to tear copies of.
    const emu = await start({ dataDir: dir });
    const api = client(emu);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await api('POST', 'customers', { ...customerBody(i), email: `torn-${i}@disk.example.com` });
      expect(r.status).toBe(201);
      ids.push(r.body.id as string);
    }
    await emu.stop();
    const journal = join(dir, 'journal-0.jsonl');
    const whole = readFileSync(journal);
    const lines = whole.toString('utf8').split('\n').filter(Boolean);
    const t = tally();
    let serial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          // A prefix of a real line (what a write cut short leaves).
          fc
            .tuple(fc.integer({ min: 0, max: lines.length - 1 }), fc.double({ min: 0, max: 0.999, noNaN: true }))
            .map(([l, f]) => Buffer.from(lines[l]!.slice(0, Math.max(1, Math.floor(lines[l]!.length * f))))),
          // NUL bytes (a file extended before its data reached the disk).
          fc.integer({ min: 1, max: 8192 }).map((n) => Buffer.alloc(n)),
          // Garbage, ending with a newline or not.
          fc
            .tuple(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.boolean())
            .map(([b, nl]) => Buffer.concat([Buffer.from(b.map((x) => (x === 10 ? 32 : x))), Buffer.from(nl ? '\n' : '')])),
        ),
        async (tail) => {
          const problems: string[] = [];
          writeFileSync(journal, whole);
          appendFileSync(journal, tail);
          const logged: string[] = [];
          let e: Emulator | undefined;
          try {
            e = await start({ dataDir: dir, log: (l) => logged.push(l) });
          } catch (err) {
            problems.push(`refused to start: ${(err as Error).message}`);
          }
          if (e) {
            const a = client(e);
            if (!logged.some((l) => /^warning: .*torn last line/.test(l))) problems.push(`no warning logged (${JSON.stringify(logged)})`);
            if (statSync(journal).size !== whole.length)
              problems.push(`journal is ${statSync(journal).size} bytes, expected cut back to ${whole.length}`);
            for (const id of ids) if ((await a('GET', `customers/${id}`)).status !== 200) problems.push(`${id} missing`);
            const r = await a('POST', 'customers', { ...customerBody(9), email: `torn-new-${serial++}@disk.example.com` });
            if (r.status !== 201) problems.push(`a POST after the start answered ${r.status}`);
            await e.stop();
          }
          t.tried++;
          if (problems.length === 0) t.passed++;
          else t.failures.push(problems.join('; '));
          return true;
        },
      ),
      { numRuns: count(30, 1000), seed: Number(process.env.PAY_FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
    await record(
      'attack.disk-torn',
      'Torn last journal line at start-up (prefix, NULs, garbage)',
      { tried: t.tried, passed: t.passed, lost: t.tried - t.passed, duplicated: 0, leaked: 0 },
      startedAt,
    );
    expect(t.failures).toEqual([]);
  }, 600_000);
});

/** Why a tmpfs cannot be mounted here (undefined: it can). */
function tryMount(): string | undefined {
  if (process.platform !== 'linux') return `${process.platform} has no tmpfs mount here`;
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const probe = tempDir('pay-disk-probe-');
  try {
    mount(probe);
    unmount(probe);
    return undefined;
  } catch (err) {
    return `mount -t tmpfs failed: ${(err as Error).message.split('\n')[0]}`;
  }
}

function mount(dir: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    // Not mounted.
  }
}

/** Writes a file that leaves about `left` bytes free on the file system. */
function fill(path: string, left: number): void {
  const free = Number(
    execFileSync('df', ['-B1', '--output=avail', join(path, '..')], { encoding: 'utf8' })
      .trim()
      .split('\n')[1],
  );
  const size = Math.max(0, free - left);
  writeFileSync(path, Buffer.alloc(0));
  let written = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  try {
    while (written < size) {
      appendFileSync(path, chunk.subarray(0, Math.min(chunk.length, size - written)));
      written += Math.min(chunk.length, size - written);
    }
  } catch {
    // Full already.
  }
}
