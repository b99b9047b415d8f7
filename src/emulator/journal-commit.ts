// Persistence, the hot path: an append-only journal, one JSON line per committed mutation, made
// durable (write + fdatasync) BEFORE the response is sent. Group commit: every commit queued during one
// turn of the event loop goes out in ONE write, made in the loop's check phase right after the
// poll phase that queued them, then ONE fdatasync in the thread pool; when it returns, all of
// them are answered. Writes stay in order (they are synchronous; page cache, microseconds),
// and the event loop keeps serving and forming the next batch while the disk works. One
// fdatasync per journal file is in flight at a time: what is written meanwhile waits for it to
// return, then ONE more covers all of it (an fdatasync covers every write made before it starts).
// Each fdatasync wakes a thread-pool thread, which on a busy machine costs the event loop far
// more than the call (measured: ~1 ms per call, under load, when 7 in 10 overlapped).
// Disk errors (ENOSPC, EIO, a short write): commits are acknowledged in journal order, each only
// once its own fdatasync and every earlier one succeeded. On the first failure every commit not
// yet acknowledged is refused (DiskUnavailable), the journal is cut back to the end of the last
// acknowledged one, and `onLost` has the app reload its state from disk (so nothing refused stays
// visible, in memory or as a stored idempotent response). Until a probe (a no-op line written and
// fdatasynced every retryMs) succeeds, the journal is not writable; then it recovers by itself.
// All writes go through a FileLayer (tests inject one that fails).
// Compaction (compaction.ts) and the load at start (journal.ts, journal-load.ts) build on this.
import type { Hash } from 'node:crypto';
import { closeQuietly, DiskUnavailable, errText, type FileLayer, openJournal, writeAllSync } from './journal-files.js';

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

export class GroupCommit {
  protected fd: number | undefined;
  protected gen = 0;
  protected bytes = 0;
  protected queue: string[] = [];
  protected waiters: Waiter[] = [];
  protected scheduled: Promise<void> | undefined;
  /** Written batches not yet acknowledged, oldest first. */
  protected batches: Batch[] = [];
  /** The journal's length up to the last acknowledged commit (what a failure cuts it back to). */
  protected durable = 0;
  /** Set while the disk fails: why, and whether the journal still has to be cut back. */
  protected failure: { reason: string; trimmed: boolean; timer: NodeJS.Timeout | undefined } | undefined;
  /** The state in memory could not be reloaded from disk: nothing may be served until it is. */
  protected stale = false;
  protected closed = false;
  /** Disk-error episodes, and probes that failed. */
  readonly diskErrors = { episodes: 0, probes: 0, last: '' };
  /** Called on a failure, before the refused commits' callers hear of it: reload the state from disk (replay()). */
  onLost: (() => void) | undefined;
  /** Called when the disk works again (with onLost: pause and resume background work). */
  onRecovered: (() => void) | undefined;
  /** fdatasyncs in flight, and a promise for when there are none. */
  protected syncing = 0;
  protected idle: Array<() => void> = [];
  /** SHA-256 of the current journal's first `bytes` bytes (undefined after a failure: read from the file when needed). */
  protected journalHash: Hash | undefined;
  /** fdatasyncs in flight per file descriptor, and old journals to close once theirs return. */
  protected syncsOn = new Map<number, number>();
  /** Journal files written to while their fdatasync was in flight: one more follows when it returns. */
  protected syncAgain = new Set<number>();
  protected retired = new Set<number>();
  readonly stats = { commits: 0, writes: 0, syncs: 0, bytes: 0 };

  constructor(
    readonly dir: string | undefined,
    protected readonly files: FileLayer,
    protected readonly retryMs: number,
  ) {}

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
    return this.refusal(this.failure?.reason ?? 'reload failed');
  }

  /** A refusal for `reason`, whose Retry-After is the probes' interval. */
  protected refusal(reason: string): DiskUnavailable {
    return new DiskUnavailable(Math.max(1, Math.ceil(this.retryMs / 1000)), reason);
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

  protected flush(): void {
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
    this.written(data);
    this.journalHash?.update(data);
    this.bytes += data.length;
    this.stats.writes++;
    this.stats.bytes += data.length;
    if (this.syncsOn.has(fd)) this.syncAgain.add(fd);
    else this.sync(fd);
    this.grew();
  }

  /** A batch is written (before its sync): a compaction running keeps a copy. */
  protected written(_data: Buffer): void {}

  /** After a flush: the journal may have grown enough to compact. */
  protected grew(): void {}

  /** A write or sync failed: a compaction running is abandoned. */
  protected failed(): void {}

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
    // Cut back: its hash is read from the file again when a compaction needs it.
    this.journalHash = undefined;
    this.failed();
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
        this.fd = openJournal(this.files, this.dir!, this.gen, () => {});
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
        this.journalHash = undefined;
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

  get size(): number {
    return this.bytes;
  }
}
