// Persistence: an append-only journal, one JSON line per committed mutation, made durable
// (write + fdatasync) BEFORE the response is sent. Group commit: every commit queued while a
// write is in flight, or in the same tick, goes out in one write+fdatasync, then all of them
// are answered. On start the journal is replayed (a torn last line is dropped and cut off).
// When it grows past a threshold, the state is compacted into a snapshot (written to a temp
// file, fsynced, renamed) and a new journal generation starts.
import {
  closeSync,
  fdatasync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  ftruncateSync,
  write,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export type Op = { p: string; s: string; o: Record<string, unknown>; x?: Record<string, unknown> } | { i: string; r: unknown } | { c: number };

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

const COMPACT_AT = 64 * 1024 * 1024;
const OPS_PER_SNAPSHOT_LINE = 500;

const writeAll = (fd: number, buf: Buffer): Promise<void> =>
  new Promise((resolve, reject) => {
    const next = (offset: number): void =>
      write(fd, buf, offset, buf.length - offset, null, (err, n) => {
        if (err) reject(err);
        else if (offset + n < buf.length) next(offset + n);
        else resolve();
      });
    next(0);
  });

const sync = (fd: number): Promise<void> => new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));

export class Journal {
  private fd: number | undefined;
  private gen = 0;
  private bytes = 0;
  private queue: string[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;
  private flushing: Promise<void> | undefined;
  /** Every op describing the whole current state (for compaction). */
  snapshotOps: (() => Iterable<string>) | undefined;
  readonly stats = { commits: 0, writes: 0, bytes: 0 };

  constructor(readonly dir: string | undefined) {}

  get enabled(): boolean {
    return this.dir !== undefined;
  }

  /** Replays the newest snapshot and its journal through `apply`, then opens the journal for appending. */
  open(apply: (op: Op) => void): void {
    const dir = this.dir;
    if (!dir) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const files = readdirSync(dir);
    const gens = (re: RegExp) => files.map((f) => re.exec(f)).filter((m): m is RegExpExecArray => !!m).map((m) => Number(m[1]));
    const snapshots = gens(/^snapshot-(\d+)\.jsonl$/);
    this.gen = snapshots.length ? Math.max(...snapshots) : 0;
    if (snapshots.length) replayFile(join(dir, `snapshot-${this.gen}.jsonl`), apply, false);
    const journal = join(dir, `journal-${this.gen}.jsonl`);
    this.bytes = files.includes(`journal-${this.gen}.jsonl`) ? replayFile(journal, apply, true) : 0;
    for (const f of files) {
      const m = /^(snapshot|journal)-(\d+)\.jsonl(\.tmp)?$/.exec(f);
      if (m && (Number(m[2]) < this.gen || m[3])) rmSync(join(dir, f), { force: true });
    }
    this.fd = openSync(journal, 'a', 0o600);
    syncDir(dir);
    if (this.bytes > COMPACT_AT) this.compact();
  }

  /** Resolves once the ops are durable (at once without persistence). */
  commit(ops: string[]): Promise<void> {
    if (this.fd === undefined || ops.length === 0) return Promise.resolve();
    this.stats.commits++;
    this.queue.push(`{"ops":[${ops.join(',')}]}\n`);
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!this.flushing && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
        });
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0 && this.fd !== undefined) {
      const data = Buffer.from(this.queue.join(''));
      const waiters = this.waiters;
      this.queue = [];
      this.waiters = [];
      try {
        await writeAll(this.fd, data);
        await sync(this.fd);
        this.bytes += data.length;
        this.stats.writes++;
        this.stats.bytes += data.length;
        for (const w of waiters) w.resolve();
      } catch (err) {
        for (const w of waiters) w.reject(err as Error);
      }
      if (this.bytes > COMPACT_AT) this.compact();
    }
  }

  /** Waits for every queued commit to be written. */
  async drain(): Promise<void> {
    while (this.flushing || this.scheduled || this.queue.length > 0) {
      if (this.flushing) await this.flushing.catch(() => {});
      else await new Promise((r) => setImmediate(r));
    }
  }

  /** Writes the whole state as a snapshot and starts a new journal generation. */
  compact(): void {
    const dir = this.dir;
    if (!dir || this.fd === undefined || !this.snapshotOps) return;
    const gen = this.gen + 1;
    const tmp = join(dir, `snapshot-${gen}.jsonl.tmp`);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      let batch: string[] = [];
      const flushBatch = (): void => {
        if (batch.length) writeSync(fd, `{"ops":[${batch.join(',')}]}\n`);
        batch = [];
      };
      for (const op of this.snapshotOps()) {
        batch.push(op);
        if (batch.length >= OPS_PER_SNAPSHOT_LINE) flushBatch();
      }
      flushBatch();
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(dir, `snapshot-${gen}.jsonl`));
    const next = openSync(join(dir, `journal-${gen}.jsonl`), 'a', 0o600);
    syncDir(dir);
    closeSync(this.fd);
    this.fd = next;
    rmSync(join(dir, `journal-${this.gen}.jsonl`), { force: true });
    rmSync(join(dir, `snapshot-${this.gen}.jsonl`), { force: true });
    this.gen = gen;
    this.bytes = 0;
  }

  /** Forgets everything on disk (admin reset). */
  async reset(): Promise<void> {
    const dir = this.dir;
    if (!dir || this.fd === undefined) return;
    await this.drain();
    closeSync(this.fd);
    for (const f of readdirSync(dir)) if (/^(snapshot|journal)-\d+\.jsonl(\.tmp)?$/.test(f)) rmSync(join(dir, f), { force: true });
    this.gen = 0;
    this.bytes = 0;
    this.fd = openSync(join(dir, 'journal-0.jsonl'), 'a', 0o600);
    syncDir(dir);
  }

  async close(): Promise<void> {
    await this.drain();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  get size(): number {
    return this.bytes;
  }
}

/**
 * Applies every line of a file; returns the length of its good part. In the journal (`tolerant`)
 * a torn last line is dropped and the file is cut back to the last whole line; anywhere else a
 * bad line is an error.
 */
function replayFile(path: string, apply: (op: Op) => void, tolerant: boolean): number {
  const text = readFileSync(path, 'utf8');
  let start = 0;
  let good = 0;
  let lineNo = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const line = end < 0 ? text.slice(start) : text.slice(start, end);
    lineNo++;
    const last = end < 0 || end === text.length - 1;
    let ops: Op[] | undefined;
    try {
      if (end < 0) throw new Error('torn line');
      ops = (JSON.parse(line) as { ops: Op[] }).ops;
      if (!Array.isArray(ops)) throw new Error('no ops');
    } catch (e) {
      if (tolerant && last) break;
      throw new Error(`${path}: line ${lineNo} is damaged (${(e as Error).message}); move the file away to start empty`);
    }
    for (const op of ops) apply(op);
    good += Buffer.byteLength(line) + 1;
    start = end + 1;
  }
  if (tolerant && good < statSync(path).size) {
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, good);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  return good;
}

/**
 * One emulator per data dir: a LOCK file holding the owner's pid. A lock left by a process that
 * no longer runs (kill -9) is taken over. Returns the release function.
 */
export function lockDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new Error(`the data dir ${dir} is in use by another emulator (pid ${pid})`);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`cannot lock the data dir ${dir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot fsync a directory; the data itself is synced.
  }
}
