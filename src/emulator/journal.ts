// Persistence: an append-only journal, one JSON line per committed mutation, made durable
// (write + fdatasync) BEFORE the response is sent. Group commit: every commit queued during one
// turn of the event loop goes out in ONE write, made in the loop's check phase right after the
// poll phase that queued them, then ONE fdatasync in the thread pool; when it returns, all of
// them are answered. Writes stay in order (they are synchronous; page cache, microseconds),
// and the event loop keeps serving and forming the next batch while the disk works. One
// fdatasync per journal file is in flight at a time: what is written meanwhile waits for it to
// return, then ONE more covers all of it (an fdatasync covers every write made before it starts).
// Each fdatasync wakes a thread-pool thread, which on a busy machine costs the event loop far
// more than the call (measured: ~1 ms per call, under load, when 7 in 10 overlapped).
// On start the journal is replayed (a torn last line is dropped and cut off). When it grows past
// 64 MiB and twice the last snapshot, the state is compacted into a snapshot (written to a temp
// file, fsynced, renamed) and a new journal generation starts (amortized: compaction never
// writes more than the journal did). The automatic compaction is incremental: the snapshot is
// written 10 ms at a time, 40 ms apart, and fsynced in the thread pool, while requests go on
// being served; what is journaled from its start on is also written to the new
// journal, and replayed after the snapshot (a put replaces the whole record, so a record the
// snapshot caught later than the start ends as the journal left it).
// Disk errors (ENOSPC, EIO, a short write): commits are acknowledged in journal order, each only
// once its own fdatasync and every earlier one succeeded. On the first failure every commit not
// yet acknowledged is refused (DiskUnavailable), the journal is cut back to the end of the last
// acknowledged one, and `onLost` has the app reload its state from disk (so nothing refused stays
// visible, in memory or as a stored idempotent response). Until a probe (a no-op line written and
// fdatasynced every retryMs) succeeds, the journal is not writable; then it recovers by itself.
// All writes go through a FileLayer (tests inject one that fails).
import * as nodeFs from 'node:fs';
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

/** A put of a record, a stored idempotent response (body as JSON in `j`, or a record's JSON by id in `r`), or the clock offset. */
export type Op =
  /** `d`: o.data.object is the object of record `d` at this point of the journal (an event about it). */
  | { p: string; s: string; o: Record<string, unknown>; x?: Record<string, unknown>; d?: string }
  | { i: string; f: string; s: number; t: number; j: unknown }
  /** A stored idempotent response whose body is the JSON of record `r` at that point of the journal. */
  | { i: string; f: string; s: number; t: number; r: string }
  | { c: number };

/** The file operations a commit, a compaction and a recovery make (tests inject failures here). */
export interface FileLayer {
  openSync(path: string, flags: string | number, mode?: number): number;
  writeSync(fd: number, buf: Buffer, offset: number, length: number): number;
  fdatasync(fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void;
  fdatasyncSync(fd: number): void;
  fsync(fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, len: number): void;
  renameSync(from: string, to: string): void;
}

export const realFiles: FileLayer = {
  openSync: (path, flags, mode) => nodeFs.openSync(path, flags, mode),
  writeSync: (fd, buf, offset, length) => nodeFs.writeSync(fd, buf, offset, length),
  fdatasync: (fd, cb) => nodeFs.fdatasync(fd, cb),
  fdatasyncSync: (fd) => nodeFs.fdatasyncSync(fd),
  fsync: (fd, cb) => nodeFs.fsync(fd, cb),
  fsyncSync: (fd) => nodeFs.fsyncSync(fd),
  ftruncateSync: (fd, len) => nodeFs.ftruncateSync(fd, len),
  renameSync: (from, to) => nodeFs.renameSync(from, to),
};

/** A commit refused because the disk could not make it durable (the API answers 503 + Retry-After). */
export class DiskUnavailable extends Error {
  constructor(
    readonly retryAfterS: number,
    readonly reason: string,
  ) {
    super(`the data dir cannot be written (${reason}); nothing of this request was kept`);
  }
}

/** Tests make these small, to compact often and over many turns. */
export interface JournalOptions {
  /** The file layer (default: node:fs). */
  files?: FileLayer;
  /** While the disk fails: how often to probe it (default 1000 ms; also the Retry-After). */
  retryMs?: number;
  /** The journal size from which it compacts (default 64 MiB). */
  compactAt?: number;
  /** How long a background compaction may hold the event loop at a time (default 10 ms)... */
  sliceMs?: number;
  /** ...and how long it leaves it alone after each slice (default 40 ms; 0: the next turn). */
  pauseMs?: number;
  /** Ops per snapshot line (default 500). */
  opsPerLine?: number;
  /** The journal must also be this many times the last snapshot's size (default 2: compaction never writes more than the journal did). */
  overSnapshot?: number;
  /**
   * For tests: a background compaction hands each next step to this instead of the timer, in the
   * state named (`snapshot`: the snapshot's .tmp being written; `catching up`: the new journal
   * opened beside it, before its fsync), so a test can act at every step, not by chance.
   */
  stepGate?: (state: 'snapshot' | 'catching up', next: () => void) => void;
}

/** A background compaction: what is journaled meanwhile (and its size), and when it has ended. */
interface Background {
  tail: Buffer[];
  tailBytes: number;
  done: Promise<void>;
  /** A commit failed meanwhile: the tail may hold refused commits, so the compaction is abandoned. */
  aborted: boolean;
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** One write of queued commits: acknowledged in order, once its fdatasync and every earlier one succeeded. */
interface Batch {
  gen: number;
  /** The journal file it was written to. */
  fd: number;
  /** The journal's length after it (in generation `gen`). */
  end: number;
  waiters: Waiter[];
  synced: boolean;
}

const COMPACT_AT = 64 * 1024 * 1024;
/**
 * A new generation's journal: emptied, and appending (a journal cut back after a failed write
 * must be written at its new end, not at the old file position, which would leave a hole).
 */
const NEW_JOURNAL = nodeFs.constants.O_WRONLY | nodeFs.constants.O_CREAT | nodeFs.constants.O_TRUNC | nodeFs.constants.O_APPEND;
const OPS_PER_SNAPSHOT_LINE = 500;
/**
 * The background compaction takes the event loop for SLICE_MS, then leaves it for PAUSE_MS: a
 * fifth of the time, so requests keep most of it and none waits more than a slice. (Slices in
 * every turn cost far more than their CPU: a journaled request takes three turns, each made
 * longer by a slice, and with a bounded number in flight that cuts throughput several times.)
 */
const SLICE_MS = 10;
const PAUSE_MS = 40;
/** The tail left for the switch itself to write and sync in the event loop (at most). */
const CATCH_UP_REST = 1024 * 1024;

function writeAllSync(files: FileLayer, fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += files.writeSync(fd, buf, offset, buf.length - offset);
}

const errText = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message ?? String(err);

export class Journal {
  private fd: number | undefined;
  private gen = 0;
  private bytes = 0;
  private queue: string[] = [];
  private waiters: Waiter[] = [];
  private scheduled: Promise<void> | undefined;
  /** Written batches not yet acknowledged, oldest first. */
  private batches: Batch[] = [];
  /** The journal's length up to the last acknowledged commit (what a failure cuts it back to). */
  private durable = 0;
  /** Set while the disk fails: why, and whether the journal still has to be cut back. */
  private failure: { reason: string; trimmed: boolean; timer: NodeJS.Timeout | undefined } | undefined;
  /** The state in memory could not be reloaded from disk: nothing may be served until it is. */
  private stale = false;
  private closed = false;
  /** Disk-error episodes, and probes that failed. */
  readonly diskErrors = { episodes: 0, probes: 0, last: '' };
  /** Called on a failure, before the refused commits' callers hear of it: reload the state from disk (replay()). */
  onLost: (() => void) | undefined;
  /** Called when the disk works again (with onLost: pause and resume background work). */
  onRecovered: (() => void) | undefined;
  /** Warnings of the last open() (a torn last line dropped). */
  readonly warnings: string[] = [];
  /** fdatasyncs in flight, and a promise for when there are none. */
  private syncing = 0;
  private idle: Array<() => void> = [];
  private compactWanted = false;
  /** After a failed compaction: the journal size from which to try again. */
  private retryAt = 0;
  private snapshotBytes = 0;
  /** A background compaction: its snapshot is being written; `tail` collects what is journaled meanwhile. */
  private bg: Background | undefined;
  /** fdatasyncs in flight per file descriptor, and old journals to close once theirs return. */
  private syncsOn = new Map<number, number>();
  /** Journal files written to while their fdatasync was in flight: one more follows when it returns. */
  private syncAgain = new Set<number>();
  private retired = new Set<number>();
  /** Files of older generations being removed. */
  private removals = new Set<Promise<void>>();
  /** Background compactions started, and the longest turn one of them held the loop (ms). */
  readonly compactions = { started: 0, longestSliceMs: 0 };
  /** Every op describing the whole current state (for compaction). */
  snapshotOps: (() => Iterable<string>) | undefined;
  readonly stats = { commits: 0, writes: 0, syncs: 0, bytes: 0 };

  private readonly compactAt: number;
  private readonly sliceMs: number;
  private readonly pauseMs: number;
  private readonly stepGate: JournalOptions['stepGate'];
  private readonly opsPerLine: number;
  private readonly overSnapshot: number;
  private readonly files: FileLayer;
  private readonly retryMs: number;

  constructor(
    readonly dir: string | undefined,
    opts: JournalOptions = {},
  ) {
    this.compactAt = opts.compactAt ?? COMPACT_AT;
    this.sliceMs = opts.sliceMs ?? SLICE_MS;
    this.pauseMs = opts.pauseMs ?? PAUSE_MS;
    this.stepGate = opts.stepGate;
    this.opsPerLine = opts.opsPerLine ?? OPS_PER_SNAPSHOT_LINE;
    this.overSnapshot = opts.overSnapshot ?? 2;
    this.files = opts.files ?? realFiles;
    this.retryMs = opts.retryMs ?? 1000;
  }

  /** Whether commits can be made now (false while the disk fails). */
  get writable(): boolean {
    return this.failure === undefined && !this.stale;
  }

  /** Whether the state in memory is the one on disk (false only if a reload after a failure failed). */
  get readable(): boolean {
    return !this.stale;
  }

  /** The error to answer with while not writable. */
  unavailable(): DiskUnavailable {
    return new DiskUnavailable(Math.max(1, Math.ceil(this.retryMs / 1000)), this.failure?.reason ?? 'reload failed');
  }

  /**
   * Resolves once every commit made so far is acknowledged; rejects if one is refused. Undefined
   * when there is none in flight (a read made now shows only durable state).
   */
  barrier(): Promise<void> | undefined {
    const last = this.queue.length > 0 ? this.waiters : this.batches[this.batches.length - 1]?.waiters;
    if (!last) return undefined;
    return new Promise<void>((resolve, reject) => last.push({ resolve, reject }));
  }

  get enabled(): boolean {
    return this.dir !== undefined;
  }

  /**
   * Whether a background compaction runs. What is journaled meanwhile is replayed after a
   * snapshot whose records may have been caught later than the op was made: an op may then refer
   * to a record only if the record was put after the snapshot began (its put is in the journal
   * before the op). App.refOk applies this.
   */
  get compacting(): boolean {
    return this.bg !== undefined;
  }

  /** Replays the newest snapshot and its journal through `apply`, then opens the journal for appending. */
  open(apply: (op: Op) => void): void {
    const dir = this.dir;
    if (!dir) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const files = readdirSync(dir);
    const gens = (re: RegExp) =>
      files
        .map((f) => re.exec(f))
        .filter((m): m is RegExpExecArray => !!m)
        .map((m) => Number(m[1]));
    const snapshots = gens(/^snapshot-(\d+)\.jsonl$/);
    this.gen = snapshots.length ? Math.max(...snapshots) : 0;
    this.warnings.length = 0;
    if (snapshots.length) this.snapshotBytes = replayFile(join(dir, `snapshot-${this.gen}.jsonl`), apply, false);
    const journal = join(dir, `journal-${this.gen}.jsonl`);
    this.bytes = files.includes(`journal-${this.gen}.jsonl`) ? replayFile(journal, apply, true, Infinity, (w) => this.warnings.push(w)) : 0;
    this.durable = this.bytes;
    for (const f of files) {
      const m = /^(snapshot|journal)-(\d+)\.jsonl(\.tmp)?$/.exec(f);
      // Older generations, and leftovers of an interrupted compaction (temp files, a newer empty journal).
      if (m && (Number(m[2]) !== this.gen || m[3])) rmSync(join(dir, f), { force: true });
    }
    this.fd = this.files.openSync(journal, 'a', 0o600);
    // A journal loaded past its size compacts in the background after the first commit (the
    // snapshot's ops are only known once the app has opened).
    syncDir(dir);
  }

  /** Replays what is durable of the current generation (after a failure: the app's reload). */
  replay(apply: (op: Op) => void): void {
    const dir = this.dir;
    if (!dir) return;
    const snapshot = join(dir, `snapshot-${this.gen}.jsonl`);
    if (existsSync(snapshot)) replayFile(snapshot, apply, false);
    const journal = join(dir, `journal-${this.gen}.jsonl`);
    if (existsSync(journal)) replayFile(journal, apply, true, this.durable);
  }

  /**
   * Resolves once the ops are durable (at once without persistence); rejects with DiskUnavailable
   * if they cannot be made so. The caller has applied them in memory already: a refusal reloads
   * the state from disk first (onLost).
   */
  commit(ops: string[]): Promise<void> {
    if (this.dir === undefined || ops.length === 0 || this.closed) return Promise.resolve();
    if (!this.writable || this.fd === undefined) {
      // Made while the disk fails (background work): memory is ahead of the disk again.
      this.reload();
      return Promise.reject(this.unavailable());
    }
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
    const batch: Batch = { gen: this.gen, fd, end: this.bytes + data.length, waiters: this.waiters, synced: false };
    this.queue = [];
    this.waiters = [];
    this.batches.push(batch);
    try {
      writeAllSync(this.files, fd, data);
    } catch (err) {
      // Part of it may be in the file: lose() cuts it back.
      return this.lose(err);
    }
    if (this.bg) {
      this.bg.tail.push(data);
      this.bg.tailBytes += data.length;
    }
    this.bytes += data.length;
    this.stats.writes++;
    this.stats.bytes += data.length;
    if (this.syncsOn.has(fd)) this.syncAgain.add(fd);
    else this.sync(fd);
    if (this.bg === undefined && !this.compactWanted && this.tooBig()) {
      this.compactWanted = true;
      setImmediate(() => this.tryCompact());
    }
  }

  /** One fdatasync of `fd`, in the thread pool: it covers every batch written to `fd` so far. */
  private sync(fd: number): void {
    const covers = this.batches.filter((b) => b.fd === fd && !b.synced);
    this.stats.syncs++;
    this.syncing++;
    this.syncsOn.set(fd, (this.syncsOn.get(fd) ?? 0) + 1);
    this.files.fdatasync(fd, (err) => {
      // Written while this one was in flight: the next sync starts first (drain() waits on `syncing`).
      const again = this.syncAgain.delete(fd);
      if (again && !err && fd === this.fd) this.sync(fd);
      const left = this.syncsOn.get(fd)! - 1;
      if (left > 0) this.syncsOn.set(fd, left);
      else {
        this.syncsOn.delete(fd);
        // A journal of an older generation, switched away from while this sync was in flight.
        if (this.retired.delete(fd)) closeQuietly(fd);
      }
      // Refused meanwhile (an earlier batch failed) or not: a batch of an older generation is in
      // its snapshot or new journal, both synced, whatever this sync says (and so is one written
      // to the old journal after this sync started, which waited for it).
      for (const batch of covers) {
        if (!this.batches.includes(batch)) continue;
        if (err && batch.gen === this.gen) {
          this.lose(err);
          break;
        }
        batch.synced = true;
      }
      if (again && fd !== this.fd) for (const b of this.batches) if (b.fd === fd && b.gen !== this.gen) b.synced = true;
      this.acknowledge();
      if (--this.syncing === 0) for (const f of this.idle.splice(0)) f();
    });
  }

  /** Answers the synced batches at the front, in order. */
  private acknowledge(): void {
    while (this.batches.length > 0 && this.batches[0]!.synced) {
      const b = this.batches.shift()!;
      if (b.gen === this.gen) this.durable = Math.max(this.durable, b.end);
      for (const w of b.waiters) w.resolve();
    }
  }

  /**
   * A write or fdatasync failed: every commit not yet acknowledged is refused, the journal cut
   * back to the last acknowledged one, the state reloaded from disk (onLost), a running
   * compaction abandoned, and probes start. Until one succeeds, the journal is not writable.
   */
  private lose(err: unknown): void {
    const refused = [...this.batches.flatMap((b) => b.waiters), ...this.waiters];
    this.batches = [];
    this.syncAgain.clear();
    this.queue = [];
    this.waiters = [];
    this.bytes = this.durable;
    if (this.bg) this.bg.aborted = true;
    const reason = errText(err);
    this.diskErrors.episodes++;
    this.diskErrors.last = reason;
    this.failure = { reason, trimmed: false, timer: undefined };
    this.trim();
    this.reload();
    const e = this.unavailable();
    for (const w of refused) w.reject(e);
    this.scheduleProbe();
  }

  /** Cuts the journal back to its acknowledged part (again on each probe until it works). */
  private trim(): void {
    const f = this.failure;
    if (!f || f.trimmed || this.fd === undefined) return;
    try {
      this.files.ftruncateSync(this.fd, this.durable);
      this.files.fdatasyncSync(this.fd);
      f.trimmed = true;
    } catch {
      // The probe tries again; nothing is appended meanwhile.
    }
  }

  /** Has the app reload its state from disk; if that fails, nothing is served until a probe manages it. */
  private reload(): void {
    try {
      this.onLost?.();
      this.stale = false;
    } catch (err) {
      this.stale = true;
      this.diskErrors.last = `reload: ${errText(err)}`;
    }
  }

  private scheduleProbe(): void {
    const f = this.failure;
    if (!f || f.timer) return;
    f.timer = setTimeout(() => {
      f.timer = undefined;
      this.probe();
    }, this.retryMs);
    f.timer.unref();
  }

  /** While the disk fails: cut back, reload if needed, then write and sync a no-op line; success ends the episode. */
  private probe(): void {
    const f = this.failure;
    if (!f || this.closed) return;
    if (this.fd === undefined) {
      // A reset could not open its new journal.
      try {
        this.fd = this.files.openSync(join(this.dir!, `journal-${this.gen}.jsonl`), 'a', 0o600);
      } catch {
        this.diskErrors.probes++;
        return this.scheduleProbe();
      }
    }
    this.trim();
    if (this.stale) this.reload();
    if (f.trimmed && !this.stale) {
      const line = Buffer.from('{"ops":[]}\n');
      try {
        writeAllSync(this.files, this.fd, line);
        this.files.fdatasyncSync(this.fd);
        this.bytes = this.durable += line.length;
        this.failure = undefined;
        this.onRecovered?.();
        return;
      } catch {
        f.trimmed = false;
        this.trim();
      }
    }
    this.diskErrors.probes++;
    this.scheduleProbe();
  }

  private tooBig(): boolean {
    return this.bytes > this.compactAt && this.bytes > this.overSnapshot * this.snapshotBytes && this.bytes > this.retryAt;
  }

  /** Starts a background compaction; a failure leaves the journal as it is (retried once it has grown). */
  private tryCompact(): void {
    this.compactWanted = false;
    // Not while the disk fails: the episode ends first (the probe), then a commit asks again.
    if (this.bg || !this.tooBig() || !this.writable) return;
    try {
      this.startBackground();
    } catch {
      this.retryAt = this.bytes + this.compactAt;
    }
  }

  /**
   * Compaction off the hot path, in three steps, none of which waits for the commits in flight:
   * 1. the snapshot's lines are made and written (page cache) in slices of sliceMs, pauseMs
   *    apart, then fsynced in the thread pool, while commits go on into the current journal and
   *    are also kept in `tail` (from the first slice on);
   * 2. the tail is written to the new generation's journal, in slices as the snapshot, until less
   *    than CATCH_UP_REST is left, and fsynced in the thread pool;
   * 3. what came meanwhile (a few milliseconds' worth) is written and fsynced here, the snapshot
   *    renamed into place, and commits go to the new journal. The old journal is closed once the
   *    fdatasyncs in flight on it return (what they cover is in the new journal too, synced).
   * The same files, in the same order of steps, as compact(): until the rename, the old
   * generation is the one a restart loads. reset() and close() wait for it to end (drain).
   */
  private startBackground(): void {
    const dir = this.dir;
    if (!dir || this.fd === undefined || !this.snapshotOps || this.bg) return;
    // What is queued now was made before the snapshot's start (and may refer to records): it goes
    // to the current journal only, so that the tail holds exactly what is made from here on.
    this.flush();
    const gen = this.gen + 1;
    const tmp = join(dir, `snapshot-${gen}.jsonl.tmp`);
    const nextJournal = join(dir, `journal-${gen}.jsonl`);
    let snapshot: number | undefined = this.files.openSync(tmp, 'w', 0o600);
    let next: number | undefined;
    let finish!: () => void;
    const bg: Background = { tail: [], tailBytes: 0, done: new Promise<void>((r) => (finish = r)), aborted: false };
    const ops = this.snapshotOps()[Symbol.iterator]();
    this.bg = bg;
    this.compactions.started++;
    let written = 0;
    let caughtUp = 0;
    const later = (state: 'snapshot' | 'catching up', step: () => void): void => {
      if (this.stepGate) this.stepGate(state, step);
      else if (this.pauseMs > 0) setTimeout(step, this.pauseMs);
      else setImmediate(step);
    };
    const end = (): void => {
      this.bg = undefined;
      finish();
    };
    const fail = (): void => {
      if (snapshot !== undefined) closeQuietly(snapshot);
      if (next !== undefined) closeQuietly(next);
      rmSync(tmp, { force: true });
      rmSync(nextJournal, { force: true });
      this.retryAt = this.bytes + this.compactAt;
      end();
    };

    // 1. The snapshot.
    const slice = (): void => {
      // Written first, so that the snapshot holds no change that is not in a write (and, if
      // that write fails, the compaction is abandoned).
      this.flush();
      if (bg.aborted) return fail();
      const began = performance.now();
      let finished: boolean;
      try {
        const w = this.writeLines(snapshot!, ops, began + this.sliceMs);
        written += w.bytes;
        finished = w.finished;
      } catch {
        return fail();
      }
      this.compactions.longestSliceMs = Math.max(this.compactions.longestSliceMs, performance.now() - began);
      if (!finished) return later('snapshot', slice);
      this.files.fsync(snapshot!, (err) => {
        closeQuietly(snapshot!);
        snapshot = undefined;
        if (err || bg.aborted) return fail();
        catchUp();
      });
    };

    // 2. The tail, into the new journal: a slice at a time (as the snapshot), until what is left
    // is small; then fsynced in the thread pool.
    const catchUp = (): void => {
      if (bg.aborted) return fail();
      const began = performance.now();
      try {
        next ??= this.files.openSync(nextJournal, NEW_JOURNAL, 0o600);
        for (let chunk = bg.tail.shift(); chunk; chunk = performance.now() - began < this.sliceMs ? bg.tail.shift() : undefined) {
          writeAllSync(this.files, next, chunk);
          bg.tailBytes -= chunk.length;
          caughtUp += chunk.length;
        }
      } catch {
        return fail();
      }
      if (bg.tailBytes > CATCH_UP_REST) return later('catching up', catchUp);
      const sync = (): void => this.files.fsync(next!, (err) => (err || bg.aborted ? fail() : switchOver()));
      if (this.stepGate) this.stepGate('catching up', sync);
      else sync();
    };

    // 3. The rest, and the switch.
    const switchOver = (): void => {
      if (bg.aborted) return fail();
      const rest = Buffer.concat(bg.tail);
      try {
        writeAllSync(this.files, next!, rest);
        this.files.fsyncSync(next!);
        this.files.renameSync(tmp, join(dir, `snapshot-${gen}.jsonl`));
        syncDir(dir);
      } catch {
        return fail();
      }
      // Unlinking hundreds of MB can take the file system a while: in the thread pool. (A restart
      // meanwhile removes them itself: only the newest generation is loaded.)
      this.adopt(gen, next!, written, caughtUp + rest.length, (...paths) => this.removeLater(...paths));
      end();
    };

    slice();
  }

  private removeLater(...paths: string[]): void {
    for (const path of paths) {
      const done: Promise<void> = rm(path, { force: true })
        .catch(() => {})
        .finally(() => this.removals.delete(done));
      this.removals.add(done);
    }
  }

  /**
   * Writes the ops to `fd`, `opsPerLine` per line, until they run out or (with `until`) the
   * clock passes it after a line.
   */
  private writeLines(fd: number, ops: Iterator<string>, until = Infinity): { bytes: number; finished: boolean } {
    let bytes = 0;
    for (;;) {
      const line = nextLine(ops, this.opsPerLine);
      if (!line) return { bytes, finished: true };
      writeAllSync(this.files, fd, line);
      bytes += line.length;
      if (performance.now() >= until) return { bytes, finished: false };
    }
  }

  /** Waits until every queued commit is written and synced, and a background compaction has ended. */
  async drain(): Promise<void> {
    for (;;) {
      if (this.scheduled) await this.scheduled;
      else if (this.bg) await this.bg.done;
      else if (this.syncing > 0) await new Promise<void>((r) => this.idle.push(r));
      // Before a reset reuses their names.
      else if (this.removals.size > 0) await Promise.all(this.removals);
      else return;
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
    // What is queued goes to the current journal first: the snapshot then holds only written changes.
    this.flush();
    if (!this.writable) throw this.unavailable();
    const gen = this.gen + 1;
    const tmp = join(dir, `snapshot-${gen}.jsonl.tmp`);
    const nextJournal = join(dir, `journal-${gen}.jsonl`);
    let written: number;
    let next: number | undefined;
    try {
      const fd = this.files.openSync(tmp, 'w', 0o600);
      try {
        written = this.writeLines(fd, this.snapshotOps()[Symbol.iterator]()).bytes;
        this.files.fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      next = this.files.openSync(nextJournal, NEW_JOURNAL, 0o600);
      this.files.renameSync(tmp, join(dir, `snapshot-${gen}.jsonl`));
      syncDir(dir);
    } catch (err) {
      // The old generation stays the one a restart loads; the journal goes on as it was.
      if (next !== undefined) closeQuietly(next);
      rmSync(tmp, { force: true });
      rmSync(nextJournal, { force: true });
      throw new DiskUnavailable(Math.max(1, Math.ceil(this.retryMs / 1000)), `compaction: ${errText(err)}`);
    }
    this.adopt(gen, next, written, 0, (...paths) => {
      for (const path of paths) rmSync(path, { force: true });
    });
  }

  /**
   * Makes generation `gen` (its snapshot renamed into place, its journal open as `next`) the
   * current one: later commits go to `next`; the old journal is closed (once the fdatasyncs in
   * flight on it return) and the old generation's files removed with `remove`.
   */
  private adopt(gen: number, next: number, snapshotBytes: number, journalBytes: number, remove: (...paths: string[]) => void): void {
    const dir = this.dir!;
    const old = this.fd!;
    if (this.syncsOn.has(old)) this.retired.add(old);
    else closeSync(old);
    this.fd = next;
    remove(join(dir, `journal-${this.gen}.jsonl`), join(dir, `snapshot-${this.gen}.jsonl`));
    this.gen = gen;
    // All of it synced: also the commits whose fdatasync on the old journal is still in flight.
    this.bytes = this.durable = journalBytes;
    this.snapshotBytes = snapshotBytes;
    this.retryAt = 0;
  }

  /** Forgets everything on disk (admin reset); also ends a disk-error episode (the space is freed). */
  async reset(): Promise<void> {
    const dir = this.dir;
    if (!dir || this.fd === undefined) return;
    await this.drain();
    closeSync(this.fd);
    this.fd = undefined;
    for (const f of readdirSync(dir)) if (/^(snapshot|journal)-\d+\.jsonl(\.tmp)?$/.test(f)) rmSync(join(dir, f), { force: true });
    this.gen = 0;
    this.bytes = this.durable = 0;
    this.snapshotBytes = 0;
    this.retryAt = 0;
    this.stale = false;
    if (this.failure?.timer) clearTimeout(this.failure.timer);
    this.failure = undefined;
    try {
      this.fd = this.files.openSync(join(dir, 'journal-0.jsonl'), 'a', 0o600);
    } catch (err) {
      // The probe opens it once it can.
      this.failure = { reason: errText(err), trimmed: true, timer: undefined };
      this.scheduleProbe();
      throw this.unavailable();
    }
    syncDir(dir);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.failure?.timer) clearTimeout(this.failure.timer);
    await this.drain();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  get size(): number {
    return this.bytes;
  }
}

/**
 * Applies every line of a file (of its first `limit` bytes); returns the length of its good part.
 * In the journal (`tolerant`) a torn last line (a write never acknowledged: the process or the
 * disk failed during it) is dropped with a warning and, when the whole file is read, cut off;
 * anywhere else a bad line is an error.
 */
function replayFile(path: string, apply: (op: Op) => void, tolerant: boolean, limit = Infinity, warn?: (w: string) => void): number {
  const whole = readFileSync(path);
  const text = (limit < whole.length ? whole.subarray(0, limit) : whole).toString('utf8');
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
      throw new Error(`${path}: line ${lineNo} is damaged (${(e as Error).message}); move the file away to start empty`, { cause: e });
    }
    for (const op of ops) apply(op);
    good += Buffer.byteLength(line) + 1;
    start = end + 1;
  }
  if (tolerant && limit === Infinity && good < whole.length) {
    warn?.(`${path}: dropped a torn last line (${whole.length - good} bytes of a write that was never acknowledged)`);
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

/** The next snapshot line: up to `perLine` ops; undefined when there are none left. */
function nextLine(ops: Iterator<string>, perLine: number): Buffer | undefined {
  const batch: string[] = [];
  for (let r = ops.next(); !r.done; r = ops.next()) {
    batch.push(r.value);
    if (batch.length >= perLine) break;
  }
  return batch.length ? Buffer.from(`{"ops":[${batch.join(',')}]}\n`) : undefined;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed, or an error the sync reported
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
