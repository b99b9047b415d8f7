// Compaction: when the journal grows past 64 MiB and twice the last snapshot, the state is
// compacted into a snapshot (written to a random temporary name opened O_EXCL|O_NOFOLLOW, fsynced,
// renamed) and a new journal generation starts (amortized: compaction never writes more than the
// journal did); a reset is a compaction to an empty state. The automatic compaction is
// incremental (compaction-background.ts): the snapshot is written 10 ms at a time, 40 ms apart, and
// fsynced in the thread pool, while requests go on being served; what is journaled from its start
// on is also written to the new journal, and replayed after the snapshot (a put replaces the whole
// record, so a record the snapshot caught later than the start ends as the journal left it).
// The new journal's first line records what it covers (the old journal's and snapshot's length and
// SHA-256), and the old generation's files are removed only if they are still what this process
// wrote, and while it holds the data dir's LOCK.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, lstatSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runBackground, type Background, type BackgroundHost, type StepGate } from './compaction-background.js';
import {
  coverageLine,
  type Coverage,
  journalName,
  openTemp,
  publish,
  readRegular,
  sha256,
  snapshotHeader,
  snapshotName,
  snapshotTrailer,
} from './data-dir.js';
import { GroupCommit } from './journal-commit.js';
import { closeQuietly, errText, type FileLayer, NEW_JOURNAL, realFiles, writeAllSync, writeHashed, writeLines } from './journal-files.js';

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
  stepGate?: StepGate;
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

export class CompactingJournal extends GroupCommit {
  protected compactWanted = false;
  /** After a failed compaction: the journal size from which to try again. */
  protected retryAt = 0;
  protected snapshotBytes = 0;
  /** The current snapshot's length and SHA-256 (of the whole file), for the next compaction's coverage record. */
  protected snapshotId: { bytes: number; sha256: string } | undefined;
  /** The old generation's files were kept at a compaction (changed by someone else): no compaction until a restart. */
  protected keptOld = false;
  /** Runtime lines (a compaction that kept files, the LOCK gone): the emulator's log. */
  log: ((line: string) => void) | undefined;
  /** Why this process no longer owns the data dir's LOCK (undefined: it does); checked before each compaction. */
  lockLost: (() => string | undefined) | undefined;
  protected lockLostTold = false;
  /** A background compaction: its snapshot is being written; `tail` collects what is journaled meanwhile. */
  protected bg: Background | undefined;
  /** Files of older generations being removed. */
  protected removals = new Set<Promise<void>>();
  /** Background compactions started, and the longest turn one of them held the loop (ms). */
  readonly compactions = { started: 0, longestSliceMs: 0 };
  /** Every op describing the whole current state (for compaction). */
  snapshotOps: (() => Iterable<string>) | undefined;
  protected readonly compactAt: number;
  protected readonly sliceMs: number;
  protected readonly pauseMs: number;
  protected readonly stepGate: JournalOptions['stepGate'];
  protected readonly opsPerLine: number;
  protected readonly overSnapshot: number;

  constructor(dir: string | undefined, opts: JournalOptions = {}) {
    super(dir, opts.files ?? realFiles, opts.retryMs ?? 1000);
    this.compactAt = opts.compactAt ?? COMPACT_AT;
    this.sliceMs = opts.sliceMs ?? SLICE_MS;
    this.pauseMs = opts.pauseMs ?? PAUSE_MS;
    this.stepGate = opts.stepGate;
    this.opsPerLine = opts.opsPerLine ?? OPS_PER_SNAPSHOT_LINE;
    this.overSnapshot = opts.overSnapshot ?? 2;
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

  protected override written(data: Buffer): void {
    if (this.bg) {
      this.bg.tail.push(data);
      this.bg.tailBytes += data.length;
    }
  }

  protected override grew(): void {
    if (this.bg === undefined && !this.compactWanted && this.tooBig()) {
      this.compactWanted = true;
      setImmediate(() => this.tryCompact());
    }
  }

  protected override failed(): void {
    if (this.bg) this.bg.aborted = true;
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
  protected refuseIfNotOwner(): void {
    if (this.notOwner()) throw this.refusal(`not compacting: ${this.lockLost?.() ?? 'the lock was lost'}`);
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
   * Starts a background compaction (its steps: runBackground, compaction-background.ts): the same
   * files, in the same order of steps, as compact(); until its rename, the old generation is the one
   * a restart loads. reset() and close() wait for it to end (drain).
   */
  private startBackground(): void {
    const dir = this.dir;
    if (!dir || this.fd === undefined || !this.snapshotOps || this.bg) return;
    // What is queued now was made before the snapshot's start (and may refer to records): it goes
    // to the current journal only, so that the tail holds exactly what is made from here on.
    this.flush();
    const gen = this.gen + 1;
    const temp = openTemp(this.files, dir, snapshotName(gen));
    let finish!: () => void;
    const bg: Background = { tail: [], tailBytes: 0, done: new Promise<void>((r) => (finish = r)), aborted: false };
    const ops = this.snapshotOps()[Symbol.iterator]();
    this.bg = bg;
    this.compactions.started++;
    const host: BackgroundHost = {
      files: this.files,
      dir,
      sliceMs: this.sliceMs,
      pauseMs: this.pauseMs,
      opsPerLine: this.opsPerLine,
      stepGate: this.stepGate,
      flush: () => this.flush(),
      coverageLine: () => coverageLine(this.coverage()),
      // Unlinking hundreds of MB can take the file system a while: in the thread pool. (A restart
      // meanwhile removes them itself once they are proven covered: the coverage line.)
      switched: (next, snapshot, journalBytes, journalHash) =>
        this.adopt(gen, next, snapshot, journalBytes, journalHash, (...paths) => this.removeOld(paths)),
      failed: () => (this.retryAt = this.bytes + this.compactAt),
      ended: () => {
        this.bg = undefined;
        finish();
      },
      sliced: (ms) => (this.compactions.longestSliceMs = Math.max(this.compactions.longestSliceMs, ms)),
    };
    runBackground(host, bg, gen, ops, temp);
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
  protected switchTo(ops: Iterable<string>, reset = false): void {
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
        written += writeHashed(this.files, temp.fd, snapshotHeader(gen, reset), hash, wholeHash);
        written += writeLines(this.files, temp.fd, ops[Symbol.iterator](), this.opsPerLine, [hash, wholeHash]).bytes;
        written += writeHashed(this.files, temp.fd, snapshotTrailer(written, hash.digest('hex')), wholeHash);
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
      throw this.refusal(`compaction: ${errText(err)}`);
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
}
