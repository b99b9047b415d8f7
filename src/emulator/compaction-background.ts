// The background compaction's steps (compaction.ts starts it): the snapshot written a slice at a
// time, then the tail journaled meanwhile copied into the new journal, then the switch. It touches
// only what it creates until the switch; the journal is reached through its host.
import { createHash, type Hash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { journalName, publish, snapshotHeader, snapshotName, snapshotTrailer } from './data-dir.js';
import { closeQuietly, type FileLayer, NEW_JOURNAL, writeAllSync, writeHashed, writeLines } from './journal-files.js';

/** A test's hand on each next step (JournalOptions.stepGate). */
export type StepGate = (state: 'snapshot' | 'catching up' | 'switched', next: () => void) => void;

/** A background compaction: what is journaled meanwhile (and its size), and when it has ended. */
export interface Background {
  tail: Buffer[];
  tailBytes: number;
  done: Promise<void>;
  /** A commit failed meanwhile: the tail may hold refused commits, so the compaction is abandoned. */
  aborted: boolean;
}

/** The tail left for the switch itself to write and sync in the event loop (at most). */
const CATCH_UP_REST = 1024 * 1024;

/** What a background compaction needs of the journal. */
export interface BackgroundHost {
  readonly files: FileLayer;
  readonly dir: string;
  readonly sliceMs: number;
  readonly pauseMs: number;
  readonly opsPerLine: number;
  readonly stepGate: StepGate | undefined;
  /** Writes what is queued to the current journal (and so to the tail). */
  flush(): void;
  /** The new journal's coverage line: the old generation as it is at the switch. */
  coverageLine(): Buffer;
  /** The new generation is in place: its journal open as `next`, synced up to `journalBytes`. */
  switched(next: number, snapshot: { bytes: number; sha256: string }, journalBytes: number, journalHash: Hash): void;
  /** It failed and removed what it created. */
  failed(): void;
  /** It ended, either way. */
  ended(): void;
  /** A slice held the event loop this long (ms). */
  sliced(ms: number): void;
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
export function runBackground(
  host: BackgroundHost,
  bg: Background,
  gen: number,
  ops: Iterator<string>,
  temp: { path: string; fd: number },
): void {
  const dir = host.dir;
  const tmp = temp.path;
  const nextJournal = join(dir, journalName(gen));
  let snapshot: number | undefined = temp.fd;
  let next: number | undefined;
  const hash = createHash('sha256');
  const wholeHash = createHash('sha256');
  const nextHash = createHash('sha256');
  let written = 0;
  let caughtUp = 0;
  const later = (state: 'snapshot' | 'catching up', step: () => void): void => {
    if (host.stepGate) host.stepGate(state, step);
    else if (host.pauseMs > 0) setTimeout(step, host.pauseMs);
    else setImmediate(step);
  };
  const end = (): void => host.ended();
  const fail = (): void => {
    if (snapshot !== undefined) closeQuietly(snapshot);
    // Only what this compaction created, the new journal first (a crash between the two leaves
    // an unfinished snapshot alone, which a start knows to remove).
    if (next !== undefined) {
      closeQuietly(next);
      rmSync(nextJournal, { force: true });
    }
    rmSync(tmp, { force: true });
    host.failed();
    end();
  };

  // 1. The snapshot.
  const slice = (): void => {
    // Written first, so that the snapshot holds no change that is not in a write (and, if
    // that write fails, the compaction is abandoned).
    host.flush();
    if (bg.aborted) return fail();
    const began = performance.now();
    let finished: boolean;
    try {
      if (written === 0) written += writeHashed(host.files, snapshot!, snapshotHeader(gen), hash, wholeHash);
      const w = writeLines(host.files, snapshot!, ops, host.opsPerLine, [hash, wholeHash], began + host.sliceMs);
      written += w.bytes;
      finished = w.finished;
      if (finished) written += writeHashed(host.files, snapshot!, snapshotTrailer(written, hash.digest('hex')), wholeHash);
    } catch {
      return fail();
    }
    host.sliced(performance.now() - began);
    if (!finished) return later('snapshot', slice);
    host.files.fsync(snapshot!, (err) => {
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
        const fd = host.files.openSync(nextJournal, NEW_JOURNAL, 0o600);
        next = fd;
      }
      for (let chunk = bg.tail.shift(); chunk; chunk = performance.now() - began < host.sliceMs ? bg.tail.shift() : undefined) {
        writeAllSync(host.files, next, chunk);
        nextHash.update(chunk);
        bg.tailBytes -= chunk.length;
        caughtUp += chunk.length;
      }
    } catch {
      return fail();
    }
    if (bg.tailBytes > CATCH_UP_REST) return later('catching up', catchUp);
    const sync = (): void => host.files.fsync(next!, (err) => (err || bg.aborted ? fail() : switchOver()));
    if (host.stepGate) host.stepGate('catching up', sync);
    else sync();
  };

  // 3. The rest, and the switch.
  const switchOver = (): void => {
    if (bg.aborted) return fail();
    // The rest, then what the new generation covers: the old journal as it is now, whole (from
    // here on commits go to the new one), and the old snapshot.
    const rest = Buffer.concat([...bg.tail, host.coverageLine()]);
    try {
      writeAllSync(host.files, next!, rest);
      host.files.fsyncSync(next!);
      publish(host.files, tmp, join(dir, snapshotName(gen)), dir);
    } catch {
      return fail();
    }
    nextHash.update(rest);
    // Unlinking hundreds of MB can take the file system a while: in the thread pool. (A restart
    // meanwhile removes them itself once they are proven covered: the coverage line.)
    host.switched(next!, { bytes: written, sha256: wholeHash.digest('hex') }, caughtUp + rest.length, nextHash);
    end();
  };

  slice();
}
