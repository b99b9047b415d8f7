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
// On start the data dir is judged first (data-dir.ts: a file it cannot account for refuses the
// start, nothing is deleted that is not provably superseded), then the newest snapshot (checked
// against its trailer's length and SHA-256) and its journal are replayed (a torn last line is
// dropped and cut off). Journals are opened O_APPEND|O_NOFOLLOW, created 0600, and must be
// regular files of this user. When the journal grows past 64 MiB and twice the last snapshot,
// the state is compacted into a snapshot (written to a random temporary name opened
// O_EXCL|O_NOFOLLOW, fsynced, renamed) and a new journal generation starts (amortized: compaction
// never writes more than the journal did); a reset is a compaction to an empty state. The
// automatic compaction is incremental: the snapshot is written 10 ms at a time, 40 ms apart, and fsynced in the thread pool, while requests go on
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
import { createHash, type Hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  coverageFault,
  coverageLine,
  type Coverage,
  DataDirRefused,
  findCoverage,
  inspectDataDir,
  journalName,
  openTemp,
  publish,
  readRegular,
  setAside,
  sha256,
  showName,
  snapshotHeader,
  snapshotName,
  snapshotTrailer,
  syncDir,
  uncoveredFault,
} from './data-dir.js';
import {
  closeQuietly,
  cutTo,
  DiskUnavailable,
  errText,
  type FileLayer,
  NEW_JOURNAL,
  openJournal,
  realFiles,
  writeAllSync,
} from './journal-files.js';
import { copyFault, type Op, replayJournal, replaySnapshot } from './journal-load.js';

export { DiskUnavailable, realFiles, type FileLayer } from './journal-files.js';
export { OpNotUnderstood, type Op } from './journal-load.js';

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
   * opened beside it, before its fsync; `switched`: the new generation in place, the old one's
   * files not yet removed), so a test can act at every step, not by chance.
   */
  stepGate?: (state: 'snapshot' | 'catching up' | 'switched', next: () => void) => void;
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
  /** Warnings of the last open() (a torn last line dropped, a journal others could read made 0600). */
  readonly warnings: string[] = [];
  /** What the last open() did besides loading (files a compaction left, removed). */
  readonly notices: string[] = [];
  /** fdatasyncs in flight, and a promise for when there are none. */
  private syncing = 0;
  private idle: Array<() => void> = [];
  private compactWanted = false;
  /** After a failed compaction: the journal size from which to try again. */
  private retryAt = 0;
  private snapshotBytes = 0;
  /** The current snapshot's length and SHA-256 (of the whole file), for the next compaction's coverage record. */
  private snapshotId: { bytes: number; sha256: string } | undefined;
  /** SHA-256 of the current journal's first `bytes` bytes (undefined after a failure: read from the file when needed). */
  private journalHash: Hash | undefined;
  /** The old generation's files were kept at a compaction (changed by someone else): no compaction until a restart. */
  private keptOld = false;
  /** Runtime lines (a compaction that kept files, the LOCK gone): the emulator's log. */
  log: ((line: string) => void) | undefined;
  /** Why this process no longer owns the data dir's LOCK (undefined: it does); checked before each compaction. */
  lockLost: (() => string | undefined) | undefined;
  private lockLostTold = false;
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

  /**
   * Judges the data dir (data-dir.ts: what it cannot account for throws DataDirRefused; nothing
   * is removed before the load), replays the newest snapshot and its journal through `apply`,
   * removes what a compaction left that the loaded generation provably covers, then opens the
   * journal for appending.
   */
  open(apply: (op: Op) => void, check: { has?: (id: string) => boolean; setAsideUnknown?: boolean } = {}): void {
    const dir = this.dir;
    if (!dir) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const plan = inspectDataDir(dir);
    if (plan.problems.length) throw new DataDirRefused(dir, plan.problems);
    this.gen = plan.gen;
    this.warnings.length = 0;
    this.notices.length = 0;
    this.snapshotId = undefined;
    if (this.gen > 0) {
      let whole: Buffer;
      ({ bytes: this.snapshotBytes, whole } = replaySnapshot(dir, this.gen, apply));
      this.snapshotId = { bytes: whole.length, sha256: sha256(whole) };
    }
    const journal = join(dir, journalName(this.gen));
    // A torn last line is cut off only once the start is sure (below): a refusal changes nothing.
    let torn = 0;
    let current: Buffer = Buffer.alloc(0);
    if (plan.journal) ({ good: this.bytes, torn, whole: current } = replayJournal(journal, apply));
    else this.bytes = 0;
    this.journalHash = createHash('sha256').update(current.subarray(0, this.bytes));
    this.keptOld = false;
    const coverage = findCoverage(current.subarray(0, this.bytes));
    this.durable = this.bytes;
    // Loaded: what the compaction that made this generation left (the generation before it, an
    // unfinished snapshot and its new journal) is covered by it, and goes, once proven: the
    // generation before byte for byte against the coverage line the compaction wrote, the new
    // journal as a copy of a stretch of the current one, an unfinished snapshot record by record
    // (`has`), as the files might have been damaged or changed since. What is not covered refuses
    // the start (or is set aside).
    const uncovered: Array<{ name: string; why: string }> = [];
    const covered: typeof plan.superseded = [];
    for (const f of plan.superseded) {
      const kind = f.name === journalName(this.gen - 1) ? 'journal' : f.name === snapshotName(this.gen - 1) ? 'snapshot' : undefined;
      const buf = readRegular(join(dir, f.name));
      let why: string | undefined;
      if (buf === undefined) why = 'not a regular file';
      // The generation before: only if it is byte for byte what the compaction consumed (it
      // recorded that in the new journal): ids alone do not show a changed record, and another
      // process may have appended to it (a LOCK removed by hand).
      else if (kind) why = coverageFault(buf, kind, this.gen - 1, coverage?.coverage, journalName(this.gen));
      // An unfinished compaction's new journal: a copy of a stretch of the current journal (its
      // coverage line aside, and a torn last line).
      else if (f.name === journalName(this.gen + 1)) why = copyFault(buf, current.subarray(0, this.bytes), journalName(this.gen));
      else if (check.has) why = uncoveredFault(buf, check.has);
      if (why) uncovered.push({ name: f.name, why });
      else covered.push(kind ? { name: f.name, why: `byte for byte what ${journalName(this.gen)} records as compacted` } : f);
    }
    if (uncovered.length && !check.setAsideUnknown) throw new DataDirRefused(dir, uncovered);
    if (uncovered.length) {
      const folder = setAside(
        dir,
        uncovered.map((f) => f.name),
      );
      this.notices.push(
        `set aside into ${showName(`${join(dir, folder)}/`)}: ${uncovered.map((f) => `${showName(f.name)} (${f.why})`).join(', ')}`,
      );
    }
    if (torn > 0) {
      cutTo(journal, this.bytes);
      this.warnings.push(`${journal}: dropped a torn last line (${torn} bytes of a write that was never acknowledged)`);
    }
    for (const f of covered) rmSync(join(dir, f.name), { force: true });
    if (covered.length)
      this.notices.push(
        `removed what a compaction left, covered by the loaded generation ${this.gen}: ${covered.map((f) => `${f.name} (${f.why})`).join(', ')}`,
      );
    this.fd = openJournal(this.files, dir, this.gen, (w) => this.warnings.push(w));
    // A journal loaded past its size compacts in the background after the first commit (the
    // snapshot's ops are only known once the app has opened).
    syncDir(dir);
  }

  /** Replays what is durable of the current generation (after a failure: the app's reload). */
  replay(apply: (op: Op) => void): void {
    const dir = this.dir;
    if (!dir) return;
    if (this.gen > 0) replaySnapshot(dir, this.gen, apply);
    const journal = join(dir, journalName(this.gen));
    if (existsSync(journal)) replayJournal(journal, apply, this.durable);
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
    this.journalHash?.update(data);
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
    // Cut back: its hash is read from the file again when a compaction needs it.
    this.journalHash = undefined;
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

  private tooBig(): boolean {
    return this.bytes > this.compactAt && this.bytes > this.overSnapshot * this.snapshotBytes && this.bytes > this.retryAt;
  }

  /** Starts a background compaction; a failure leaves the journal as it is (retried once it has grown). */
  private tryCompact(): void {
    this.compactWanted = false;
    // Not while the disk fails: the episode ends first (the probe), then a commit asks again.
    // Nor while files of the generation before are still there: a crash then leaves at most one
    // generation behind the current one (which a start can prove covered).
    if (this.bg || !this.tooBig() || !this.writable || this.olderLeft() || this.notOwner()) return;
    try {
      this.startBackground();
    } catch {
      this.retryAt = this.bytes + this.compactAt;
    }
  }

  /** Whether files of an older generation are still there (or being removed); if so, their removal is (re)started. */
  private olderLeft(): boolean {
    if (this.removals.size > 0 || this.keptOld) return true;
    if (this.gen === 0) return false;
    const older = [journalName(this.gen - 1), snapshotName(this.gen - 1)].map((n) => join(this.dir!, n)).filter((p) => existsSync(p));
    if (older.length === 0) return false;
    this.removeLater(...older);
    return true;
  }

  /** Whether the data dir's LOCK is no longer this process's (told once): then nothing is compacted. */
  private notOwner(): boolean {
    const lost = this.lockLost?.();
    if (lost === undefined) return false;
    if (!this.lockLostTold) {
      this.lockLostTold = true;
      this.log?.(
        `warning: ${lost}; another emulator may be using the data dir ${this.dir}: not compacting (which would remove files it may write to); stop both, then start one`,
      );
    }
    return true;
  }

  /** A compaction or reset asked for while the LOCK is not this process's: refused (DiskUnavailable), logged once. */
  private refuseIfNotOwner(): void {
    if (this.notOwner())
      throw new DiskUnavailable(Math.max(1, Math.ceil(this.retryMs / 1000)), `not compacting: ${this.lockLost?.() ?? 'the lock was lost'}`);
  }

  /** The current journal's coverage record, for the next generation's journal (what it is, byte for byte, now). */
  private coverage(): Coverage {
    let digest: string;
    if (this.journalHash) digest = this.journalHash.copy().digest('hex');
    else {
      const buf = readRegular(join(this.dir!, journalName(this.gen))) ?? Buffer.alloc(0);
      digest = sha256(buf.subarray(0, this.bytes));
    }
    return { from: this.gen, journal: { bytes: this.bytes, sha256: digest }, ...(this.snapshotId ? { snapshot: this.snapshotId } : {}) };
  }

  /**
   * Why the old generation's files are not to be removed (undefined: they may): the journal at its
   * path is not the file this process wrote (replaced) or not of the length it wrote (another
   * process appended to it), the snapshot not of the length this process knows, or the LOCK lost.
   */
  private oldChanged(fd: number, bytes: number): string | undefined {
    const dir = this.dir!;
    const name = journalName(this.gen);
    try {
      const mine = fstatSync(fd);
      const there = lstatSync(join(dir, name));
      if (mine.dev !== there.dev || mine.ino !== there.ino) return `${name} is no longer the file this emulator wrote`;
      if (there.size !== bytes) return `${name} is ${there.size} bytes, this emulator wrote ${bytes}: another process wrote to it`;
      if (this.snapshotId) {
        const snap = lstatSync(join(dir, snapshotName(this.gen)));
        if (snap.size !== this.snapshotId.bytes)
          return `${snapshotName(this.gen)} is ${snap.size} bytes, not the ${this.snapshotId.bytes} this emulator loaded or wrote`;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return errText(err);
    }
    return this.lockLost?.();
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
    const temp = openTemp(this.files, dir, snapshotName(gen));
    const tmp = temp.path;
    const nextJournal = join(dir, journalName(gen));
    let snapshot: number | undefined = temp.fd;
    let next: number | undefined;
    const hash = createHash('sha256');
    const wholeHash = createHash('sha256');
    const nextHash = createHash('sha256');
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
      // Only what this compaction created, the new journal first (a crash between the two leaves
      // an unfinished snapshot alone, which a start knows to remove).
      if (next !== undefined) {
        closeQuietly(next);
        rmSync(nextJournal, { force: true });
      }
      rmSync(tmp, { force: true });
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
        if (written === 0) written += this.writeHashed(snapshot!, snapshotHeader(gen), hash, wholeHash);
        const w = this.writeLines(snapshot!, ops, [hash, wholeHash], began + this.sliceMs);
        written += w.bytes;
        finished = w.finished;
        if (finished) written += this.writeHashed(snapshot!, snapshotTrailer(written, hash.digest('hex')), wholeHash);
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
        if (next === undefined) {
          // Set first: a failure of the open itself leaves nothing of ours to remove.
          const fd = this.files.openSync(nextJournal, NEW_JOURNAL, 0o600);
          next = fd;
        }
        for (let chunk = bg.tail.shift(); chunk; chunk = performance.now() - began < this.sliceMs ? bg.tail.shift() : undefined) {
          writeAllSync(this.files, next, chunk);
          nextHash.update(chunk);
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
      // The rest, then what the new generation covers: the old journal as it is now, whole (from
      // here on commits go to the new one), and the old snapshot.
      const rest = Buffer.concat([...bg.tail, coverageLine(this.coverage())]);
      try {
        writeAllSync(this.files, next!, rest);
        this.files.fsyncSync(next!);
        publish(this.files, tmp, join(dir, snapshotName(gen)), dir);
      } catch {
        return fail();
      }
      nextHash.update(rest);
      // Unlinking hundreds of MB can take the file system a while: in the thread pool. (A restart
      // meanwhile removes them itself once they are proven covered: the coverage line.)
      this.adopt(gen, next!, { bytes: written, sha256: wholeHash.digest('hex') }, caughtUp + rest.length, nextHash, (...paths) =>
        this.removeOld(paths),
      );
      end();
    };

    slice();
  }

  /** The old generation's files, removed in the thread pool (a test's stepGate may hold them at `switched`). */
  private removeOld(paths: string[]): void {
    const gate = this.stepGate;
    if (!gate) return this.removeLater(...paths);
    let go!: () => void;
    const held: Promise<void> = new Promise<void>((r) => (go = r))
      .then(() => this.removeLater(...paths))
      .finally(() => this.removals.delete(held));
    this.removals.add(held);
    gate('switched', go);
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
  private writeLines(fd: number, ops: Iterator<string>, hashes: Hash[], until = Infinity): { bytes: number; finished: boolean } {
    let bytes = 0;
    for (;;) {
      const line = nextLine(ops, this.opsPerLine);
      if (!line) return { bytes, finished: true };
      bytes += this.writeHashed(fd, line, ...hashes);
      if (performance.now() >= until) return { bytes, finished: false };
    }
  }

  private writeHashed(fd: number, buf: Buffer, ...hashes: Hash[]): number {
    writeAllSync(this.files, fd, buf);
    for (const h of hashes) h.update(buf);
    return buf.length;
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
    this.refuseIfNotOwner();
    this.switchTo(this.snapshotOps());
  }

  /** Writes `ops` as the next generation's snapshot, with an empty journal, and makes it the current one (compact, reset). */
  private switchTo(ops: Iterable<string>, reset = false): void {
    const dir = this.dir!;
    const gen = this.gen + 1;
    const nextJournal = join(dir, journalName(gen));
    let tmp: string | undefined;
    let written = 0;
    let next: number | undefined;
    const wholeHash = createHash('sha256');
    // The new journal's first line: what this generation covers (the old one, byte for byte).
    const first = coverageLine(this.coverage());
    try {
      const temp = openTemp(this.files, dir, snapshotName(gen));
      tmp = temp.path;
      try {
        const hash = createHash('sha256');
        written += this.writeHashed(temp.fd, snapshotHeader(gen, reset), hash, wholeHash);
        written += this.writeLines(temp.fd, ops[Symbol.iterator](), [hash, wholeHash]).bytes;
        written += this.writeHashed(temp.fd, snapshotTrailer(written, hash.digest('hex')), wholeHash);
        this.files.fsyncSync(temp.fd);
      } finally {
        closeSync(temp.fd);
      }
      next = this.files.openSync(nextJournal, NEW_JOURNAL, 0o600);
      writeAllSync(this.files, next, first);
      this.files.fsyncSync(next);
      publish(this.files, tmp, join(dir, snapshotName(gen)), dir);
    } catch (err) {
      // The old generation stays the one a restart loads; the journal goes on as it was. Only what
      // this created is removed, the new journal first.
      if (next !== undefined) {
        closeQuietly(next);
        rmSync(nextJournal, { force: true });
      }
      if (tmp !== undefined) rmSync(tmp, { force: true });
      throw new DiskUnavailable(Math.max(1, Math.ceil(this.retryMs / 1000)), `compaction: ${errText(err)}`);
    }
    this.adopt(
      gen,
      next,
      { bytes: written, sha256: wholeHash.digest('hex') },
      first.length,
      createHash('sha256').update(first),
      (...paths) => {
        for (const path of paths) rmSync(path, { force: true });
      },
    );
  }

  /**
   * Makes generation `gen` (its snapshot renamed into place, its journal open as `next`) the
   * current one: later commits go to `next`; the old journal is closed (once the fdatasyncs in
   * flight on it return) and the old generation's files removed with `remove`.
   */
  private adopt(
    gen: number,
    next: number,
    snapshot: { bytes: number; sha256: string },
    journalBytes: number,
    journalHash: Hash,
    remove: (...paths: string[]) => void,
  ): void {
    const dir = this.dir!;
    const old = this.fd!;
    // Removed only if they are what this process wrote (checked before the journal is closed):
    // else kept, and no compaction until a restart (which refuses them naming them, as they do not
    // match the coverage line).
    const changed = this.oldChanged(old, this.bytes);
    if (this.syncsOn.has(old)) this.retired.add(old);
    else closeSync(old);
    this.fd = next;
    const oldFiles = [journalName(this.gen), snapshotName(this.gen)];
    if (changed === undefined) remove(...oldFiles.map((n) => join(dir, n)));
    else {
      this.keptOld = true;
      this.log?.(
        `warning: compacted into generation ${gen} but kept ${oldFiles.filter((n) => existsSync(join(dir, n))).join(' and ')}: ${changed}; another emulator may have used the data dir ${dir} (no more compactions until a restart, which will ask what to do with them)`,
      );
    }
    this.gen = gen;
    // All of it synced: also the commits whose fdatasync on the old journal is still in flight.
    this.bytes = this.durable = journalBytes;
    this.journalHash = journalHash;
    this.snapshotBytes = snapshot.bytes;
    this.snapshotId = snapshot;
    this.retryAt = 0;
  }

  /**
   * Forgets everything on disk (admin reset): a compaction to an empty state, so a crash at any
   * step leaves the old generation or the new one. Also ends a disk-error episode (the old
   * generation's space is freed). If it cannot be written, nothing changes (DiskUnavailable).
   */
  async reset(): Promise<void> {
    const dir = this.dir;
    if (!dir || this.fd === undefined) return;
    await this.drain();
    this.refuseIfNotOwner();
    this.switchTo([], true);
    this.stale = false;
    if (this.failure?.timer) clearTimeout(this.failure.timer);
    this.failure = undefined;
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

/** The next snapshot line: up to `perLine` ops; undefined when there are none left. */
function nextLine(ops: Iterator<string>, perLine: number): Buffer | undefined {
  const batch: string[] = [];
  for (let r = ops.next(); !r.done; r = ops.next()) {
    batch.push(r.value);
    if (batch.length >= perLine) break;
  }
  return batch.length ? Buffer.from(`{"ops":[${batch.join(',')}]}\n`) : undefined;
}
