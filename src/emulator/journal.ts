// Persistence: an append-only journal, one JSON line per committed mutation, made durable
// (write + fdatasync) BEFORE the response is sent. Group commit: every commit queued during one
// turn of the event loop goes out in ONE write, made in the loop's check phase right after the
// poll phase that queued them, then ONE fdatasync in the thread pool; when it returns, all of
// them are answered. Writes stay in order (they are synchronous; page cache, microseconds);
// the syncs may overlap, so the event loop keeps serving and forming the next batch while the
// disk works (an fdatasync started after a write covers it, whichever sync returns first).
// On start the journal is replayed (a torn last line is dropped and cut off). When it grows past
// 64 MiB and twice the last snapshot, the state is compacted into a snapshot (written to a temp
// file, fsynced, renamed) and a new journal generation starts (amortized: compaction never
// writes more than the journal did). The automatic compaction fsyncs its snapshot in the thread
// pool, not in the event loop; what is journaled meanwhile is also written to the new journal.
import {
  closeSync,
  fdatasync,
  fsync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** A put of a record, a stored idempotent response (body as JSON in `j`, or a record's JSON by id in `r`), or the clock offset. */
export type Op =
  /** `d`: o.data.object is the object of record `d` at this point of the journal (an event about it). */
  | { p: string; s: string; o: Record<string, unknown>; x?: Record<string, unknown>; d?: string }
  | { i: string; f: string; s: number; t: number; j: unknown }
  /** A stored idempotent response whose body is the JSON of record `r` at that point of the journal. */
  | { i: string; f: string; s: number; t: number; r: string }
  | { c: number };

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

const COMPACT_AT = 64 * 1024 * 1024;
const OPS_PER_SNAPSHOT_LINE = 500;

function writeAllSync(fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += writeSync(fd, buf, offset, buf.length - offset);
}

export class Journal {
  private fd: number | undefined;
  private gen = 0;
  private bytes = 0;
  private queue: string[] = [];
  private waiters: Waiter[] = [];
  private scheduled: Promise<void> | undefined;
  /** fdatasyncs in flight, and a promise for when there are none. */
  private syncing = 0;
  private idle: Array<() => void> = [];
  private compactWanted = false;
  private snapshotBytes = 0;
  /** A background compaction: its snapshot is being written; `tail` collects what is journaled meanwhile. */
  private bg: { gen: number; tmp: string; tail: Buffer[]; written: number; ready: boolean; done: Promise<void>; finish: () => void } | undefined;
  /** Every op describing the whole current state (for compaction). */
  snapshotOps: (() => Iterable<string>) | undefined;
  readonly stats = { commits: 0, writes: 0, bytes: 0 };

  /** `compactAt`: the journal size from which it compacts (smaller in tests). */
  constructor(
    readonly dir: string | undefined,
    private readonly compactAt = COMPACT_AT,
  ) {}

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
    if (snapshots.length) this.snapshotBytes = replayFile(join(dir, `snapshot-${this.gen}.jsonl`), apply, false);
    const journal = join(dir, `journal-${this.gen}.jsonl`);
    this.bytes = files.includes(`journal-${this.gen}.jsonl`) ? replayFile(journal, apply, true) : 0;
    for (const f of files) {
      const m = /^(snapshot|journal)-(\d+)\.jsonl(\.tmp)?$/.exec(f);
      // Older generations, and leftovers of an interrupted compaction (temp files, a newer empty journal).
      if (m && (Number(m[2]) !== this.gen || m[3])) rmSync(join(dir, f), { force: true });
    }
    this.fd = openSync(journal, 'a', 0o600);
    syncDir(dir);
    if (this.tooBig()) this.compact();
  }

  /** Resolves once the ops are durable (at once without persistence). */
  commit(ops: string[]): Promise<void> {
    if (this.fd === undefined || ops.length === 0) return Promise.resolve();
    this.stats.commits++;
    this.queue.push(`{"ops":[${ops.join(',')}]}\n`);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.scheduled ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.scheduled = undefined;
        this.flush();
        resolve();
      }),
    );
    return done;
  }

  private flush(): void {
    const fd = this.fd;
    if (this.queue.length === 0 || fd === undefined) return;
    const data = Buffer.from(this.queue.join(''));
    const waiters = this.waiters;
    this.queue = [];
    this.waiters = [];
    try {
      writeAllSync(fd, data);
    } catch (err) {
      for (const w of waiters) w.reject(err as Error);
      return;
    }
    this.bg?.tail.push(data);
    this.bytes += data.length;
    this.stats.writes++;
    this.stats.bytes += data.length;
    this.syncing++;
    fdatasync(fd, (err) => {
      for (const w of waiters) err ? w.reject(err) : w.resolve();
      if (--this.syncing === 0) {
        if (this.bg?.ready) this.finishBackground();
        else if (this.compactWanted) this.tryCompact();
        for (const f of this.idle.splice(0)) f();
      }
    });
    if (this.bg === undefined && this.tooBig()) {
      this.compactWanted = true;
      if (this.syncing === 0) this.tryCompact();
    }
  }

  private tooBig(): boolean {
    return this.bytes > this.compactAt && this.bytes > 2 * this.snapshotBytes;
  }

  /** Starts a background compaction; a failure leaves the journal as it is (retried later). */
  private tryCompact(): void {
    this.compactWanted = false;
    try {
      this.startBackground();
    } catch {
      this.compactWanted = this.tooBig();
    }
  }

  /**
   * Compaction off the hot path: the snapshot's lines are made now (the state at this instant),
   * written and fsynced to the temp file by the thread pool while commits go on into the current
   * journal (and are kept in `tail`). Once it is synced and no fdatasync is in flight, the new
   * generation's journal is written with the tail and synced, and the snapshot renamed into
   * place: the same files, in the same order of steps, as compact().
   */
  private startBackground(): void {
    const dir = this.dir;
    if (!dir || this.fd === undefined || !this.snapshotOps || this.bg) return;
    const gen = this.gen + 1;
    const tmp = join(dir, `snapshot-${gen}.jsonl.tmp`);
    // Written now (page cache) in lines of OPS_PER_SNAPSHOT_LINE ops, as compact() does; only
    // the fsync goes to the thread pool.
    const fd = openSync(tmp, 'w', 0o600);
    let written: number;
    try {
      written = this.writeSnapshot(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw err;
    }
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const bg = { gen, tmp, tail: [] as Buffer[], written, ready: false, done, finish };
    this.bg = bg;
    fsync(fd, (err) => {
      try {
        closeSync(fd);
      } catch {
        // reported by fsync, if at all
      }
      if (this.bg !== bg) return;
      if (err) return this.failBackground(bg);
      bg.ready = true;
      if (this.syncing === 0) this.finishBackground();
    });
  }

  private failBackground(bg: NonNullable<Journal['bg']>): void {
    rmSync(bg.tmp, { force: true });
    if (this.bg === bg) this.bg = undefined;
    this.compactWanted = this.tooBig();
    bg.finish();
  }

  /** Switches to the new generation (no fdatasync in flight on the current journal). */
  private finishBackground(): void {
    const bg = this.bg;
    const dir = this.dir;
    if (!bg || !dir || this.fd === undefined) return;
    const nextJournal = join(dir, `journal-${bg.gen}.jsonl`);
    const tail = Buffer.concat(bg.tail);
    let next: number | undefined;
    try {
      next = openSync(nextJournal, 'w', 0o600);
      writeAllSync(next, tail);
      fsyncSync(next);
      renameSync(bg.tmp, join(dir, `snapshot-${bg.gen}.jsonl`));
      syncDir(dir);
    } catch {
      if (next !== undefined) closeSync(next);
      rmSync(nextJournal, { force: true });
      this.failBackground(bg);
      return;
    }
    closeSync(this.fd);
    this.fd = next;
    rmSync(join(dir, `journal-${this.gen}.jsonl`), { force: true });
    rmSync(join(dir, `snapshot-${this.gen}.jsonl`), { force: true });
    this.gen = bg.gen;
    this.bytes = tail.length;
    this.snapshotBytes = bg.written;
    this.bg = undefined;
    bg.finish();
    if (this.tooBig()) this.compactWanted = true;
  }

  /** Writes every op of the current state to `fd`, OPS_PER_SNAPSHOT_LINE per line; returns the bytes written. */
  private writeSnapshot(fd: number): number {
    let written = 0;
    let batch: string[] = [];
    const flushBatch = (): void => {
      if (batch.length === 0) return;
      const buf = Buffer.from(`{"ops":[${batch.join(',')}]}\n`);
      writeAllSync(fd, buf);
      written += buf.length;
      batch = [];
    };
    for (const op of this.snapshotOps!()) {
      batch.push(op);
      if (batch.length >= OPS_PER_SNAPSHOT_LINE) flushBatch();
    }
    flushBatch();
    return written;
  }

  /** Waits until every queued commit is written and synced. */
  async drain(): Promise<void> {
    for (;;) {
      if (this.scheduled) await this.scheduled;
      else if (this.syncing > 0) await new Promise<void>((r) => this.idle.push(r));
      else if (this.bg) {
        if (this.bg.ready) this.finishBackground();
        else await this.bg.done;
      } else return;
    }
  }

  /**
   * Writes the whole state as a snapshot and starts a new journal generation. Crash-safe at every
   * step: the snapshot only counts once renamed into place, and by then its (empty) journal exists;
   * until then the old generation stays authoritative.
   */
  compact(): void {
    const dir = this.dir;
    if (!dir || this.fd === undefined || !this.snapshotOps) return;
    const gen = this.gen + 1;
    const tmp = join(dir, `snapshot-${gen}.jsonl.tmp`);
    const nextJournal = join(dir, `journal-${gen}.jsonl`);
    let written: number;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      written = this.writeSnapshot(fd);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const next = openSync(nextJournal, 'w', 0o600);
    try {
      renameSync(tmp, join(dir, `snapshot-${gen}.jsonl`));
      syncDir(dir);
    } catch (err) {
      closeSync(next);
      rmSync(nextJournal, { force: true });
      throw err;
    }
    closeSync(this.fd);
    this.fd = next;
    rmSync(join(dir, `journal-${this.gen}.jsonl`), { force: true });
    rmSync(join(dir, `snapshot-${this.gen}.jsonl`), { force: true });
    this.gen = gen;
    this.bytes = 0;
    this.snapshotBytes = written;
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
    this.snapshotBytes = 0;
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
