// Recovery: replaying a snapshot (checked against its header and trailer first) and a journal
// line by line, through the app's `apply`; a torn last line of a journal is measured for the caller
// to cut off, any other bad line or op refuses the start naming the file and the line.
import { join } from 'node:path';
import {
  DataDirRefused,
  findCoverage,
  isResetSnapshot,
  LINE_KEYS,
  readRegular,
  showField,
  snapshotFault,
  snapshotName,
} from './data-dir.js';

/** A put of a record, a stored idempotent response (body as JSON in `j`, or a record's JSON by id in `r`), or the clock offset. */
export type Op =
  /** `d`: o.data.object is the object of record `d` at this point of the journal (an event about it). */
  | { p: string; s: string; o: Record<string, unknown>; x?: Record<string, unknown>; d?: string }
  | { i: string; f: string; s: number; t: number; j: unknown }
  /** A stored idempotent response whose body is the JSON of record `r` at that point of the journal. */
  | { i: string; f: string; s: number; t: number; r: string }
  | { c: number };

/**
 * Replays snapshot-<gen>.jsonl once its header, length and SHA-256 are checked (DataDirRefused if
 * they fail); returns its length and whether a reset wrote it.
 */
export function replaySnapshot(dir: string, gen: number, apply: (op: Op) => void): { bytes: number; reset: boolean; whole: Buffer } {
  const name = snapshotName(gen);
  const whole = readRegular(join(dir, name));
  if (whole === undefined) throw new DataDirRefused(dir, [{ name, why: 'not a regular file' }]);
  const fault = snapshotFault(whole, gen, true);
  if (fault) throw new DataDirRefused(dir, [{ name, why: fault }]);
  return { bytes: replayBuffer(dir, name, whole, apply, false, Infinity), reset: isResetSnapshot(whole), whole };
}

/**
 * Applies every line of a journal (of its first `limit` bytes); returns the length of its good
 * part and of the torn last line after it (a write never acknowledged: the process or the disk
 * failed during it), which the caller cuts off. A bad line elsewhere throws DataDirRefused.
 */
export function replayJournal(path: string, apply: (op: Op) => void, limit = Infinity): { good: number; torn: number; whole: Buffer } {
  const dir = join(path, '..');
  const name = path.slice(dir.length + 1);
  const whole = readRegular(path);
  if (whole === undefined) throw new DataDirRefused(dir, [{ name, why: 'not a regular file' }]);
  const good = replayBuffer(dir, name, whole, apply, true, limit);
  return { good, torn: limit === Infinity ? whole.length - good : 0, whole };
}

/**
 * Why an unfinished compaction's new journal is not a copy of a stretch of the current one (its
 * catch-up: what was journaled while the snapshot was written), its coverage line and a torn last
 * line aside (undefined: it is).
 */
export function copyFault(buf: Buffer, current: Buffer, currentName: string): string | undefined {
  let body = buf.subarray(0, buf.lastIndexOf(10) + 1);
  const c = findCoverage(body);
  if (c && c.end === body.length) body = body.subarray(0, c.at);
  if (body.length === 0 || current.indexOf(body) >= 0) return undefined;
  return `it holds lines ${currentName} does not (not what a compaction copied from it): it may hold writes the loaded generation lacks`;
}

export function replayBuffer(dir: string, name: string, whole: Buffer, apply: (op: Op) => void, tolerant: boolean, limit: number): number {
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
    let parsed: unknown;
    try {
      if (end < 0) throw new Error('torn line');
      parsed = JSON.parse(line);
      ops = (parsed as { ops: Op[] } | null)?.ops;
      if (!Array.isArray(ops)) throw new Error('no ops');
    } catch (e) {
      if (tolerant && last) break;
      throw new DataDirRefused(dir, [{ name, why: `line ${lineNo} is damaged (${(e as Error).message})` }]);
    }
    // What the emulator does not understand refuses the start (never loaded half, never a raw error).
    const refuse = (why: string): DataDirRefused => new DataDirRefused(dir, [{ name, why: `line ${lineNo} ${why}` }]);
    const unknown = Object.keys(parsed as object).find((k) => !LINE_KEYS.has(k));
    if (unknown !== undefined) throw refuse(`has a field the emulator does not know (${showField(unknown)}): written by a newer version?`);
    ops.forEach((op, i) => {
      try {
        apply(op);
      } catch (e) {
        if (e instanceof DataDirRefused) throw e;
        if (e instanceof OpNotUnderstood) throw refuse(`holds an op the emulator does not understand (op ${i + 1}: ${e.message})`);
        // Its own errors say what is wrong; a TypeError's text would only show the emulator's insides.
        throw refuse(`holds an op that cannot be applied (op ${i + 1}${e instanceof TypeError ? '' : `: ${(e as Error).message}`})`);
      }
    });
    good += Buffer.byteLength(line) + 1;
    start = end + 1;
  }
  return good;
}

/** What `apply` throws for an op that is not one the emulator writes (the load names the file and line). */
export class OpNotUnderstood extends Error {}
