// Persistence: an append-only journal, one JSON line per committed mutation, made durable
// (write + fdatasync) BEFORE the response is sent, in group commits (journal-commit.ts), compacted
// into a snapshot and a new generation when it grows (compaction.ts). Journal is those two and the
// load: on start the data dir is judged first (data-dir.ts: a file it cannot account for refuses the
// start, nothing is deleted that is not provably superseded), then the newest snapshot (checked
// against its trailer's length and SHA-256) and its journal are replayed (journal-load.ts; a torn
// last line is dropped and cut off), what a compaction left is removed once proven covered, and the
// journal is opened (O_APPEND|O_NOFOLLOW, created 0600, a regular file of this user:
// journal-files.ts). reset() and close() wait for what is in flight (drain).
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  coverageFault,
  DataDirRefused,
  findCoverage,
  inspectDataDir,
  journalName,
  readRegular,
  setAside,
  sha256,
  showName,
  snapshotName,
  syncDir,
  uncoveredFault,
} from './data-dir.js';
import { CompactingJournal } from './compaction.js';
import { cutTo, openJournal } from './journal-files.js';
import { copyFault, type Op, replayJournal, replaySnapshot } from './journal-load.js';

export { type JournalOptions } from './compaction.js';
export { DiskUnavailable, realFiles, type FileLayer } from './journal-files.js';
export { OpNotUnderstood, type Op } from './journal-load.js';

export class Journal extends CompactingJournal {
  /** Warnings of the last open() (a torn last line dropped, a journal others could read made 0600). */
  readonly warnings: string[] = [];
  /** What the last open() did besides loading (files a compaction left, removed). */
  readonly notices: string[] = [];

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
}
