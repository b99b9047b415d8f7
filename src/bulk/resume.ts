// Bulk rows' idempotency keys and `--resume`: what a previous run's results file (its stdout)
// says of each row, found by the row's key (its content), not its line number. A key is
// `bulk_<8 hex of the input's identity><32 hex of identity and row text>`, with `_<n>` after it for
// the n-th attempt (n > 1): a row the service refused (a 4xx that created nothing) is sent again
// with the next attempt's key, so the service does not replay the refusal; any other row is sent
// with the key it had, so one that did go through is replayed, never duplicated.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { UsageError } from '../lib/errors.js';
import { readProblem } from '../lib/read-limited.js';
import { linesOf } from './input.js';

/** The 8 hex characters of a key that name the input (tenant, mode, operation, file name or --batch-id). */
export function identityTag(identity: string): string {
  return createHash('sha256').update(identity).digest('hex').slice(0, 8);
}

/** A row's key for its first attempt. */
export function rowKey(identity: string, text: string, tag = identityTag(identity)): string {
  return `bulk_${tag}${createHash('sha256').update(`${identity}\n${text}`).digest('hex').slice(0, 32)}`;
}

/** The key of the n-th attempt of a row whose first key is `base`. */
export function attemptKey(base: string, attempt: number): string {
  return attempt > 1 ? `${base}_${attempt}` : base;
}

const KEY = /^bulk_([0-9a-f]{8})([0-9a-f]{32})(?:_([1-9][0-9]{0,5}))?$/;

/** What a results line says of its row. */
const DONE = 1;
const REFUSED = 2;
const UNKNOWN = 3;

export interface Resumed {
  /** Created or replayed by an earlier run: not sent again. */
  done: boolean;
  /** The attempt to send it as (its key is attemptKey(base, attempt)). */
  attempt: number;
}

/**
 * Row keys a results file names, and the last word on each: an open-addressing table of 64 bits of
 * the key's row part (two Uint32Arrays) and attempt*4+state, so a million rows cost about 24 MB at
 * most, not the 100+ MB of a Map of strings.
 */
export class ResumeIndex {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private info = new Uint32Array(1024);
  private used = 0;
  /** Identity tags seen on keys, with how many keys carry each (a file holds one run's input, or a few). */
  readonly tags = new Map<string, number>();

  /** Records what one results line says of a key; the stronger word wins (see merge). */
  note(key: string, state: typeof DONE | typeof REFUSED | typeof UNKNOWN): boolean {
    const m = KEY.exec(key);
    if (!m) return false;
    const attempt = m[3] === undefined ? 1 : Number(m[3]);
    this.tags.set(m[1]!, (this.tags.get(m[1]!) ?? 0) + 1);
    const row = m[2]!;
    const h = Number.parseInt(row.slice(0, 8), 16) >>> 0;
    const l = Number.parseInt(row.slice(8, 16), 16) >>> 0;
    if ((this.used + 1) * 2 > this.info.length) this.grow();
    const i = this.slot(h, l);
    const next = attempt * 4 + state;
    if (this.info[i] === 0) {
      this.hi[i] = h;
      this.lo[i] = l;
      this.info[i] = next;
      this.used++;
    } else {
      this.info[i] = merge(this.info[i]!, next);
    }
    return true;
  }

  /** What the file says of the row with this first-attempt key, or undefined if nothing. */
  get(base: string): Resumed | undefined {
    const m = KEY.exec(base);
    if (!m) return undefined;
    const row = m[2]!;
    const i = this.slot(Number.parseInt(row.slice(0, 8), 16) >>> 0, Number.parseInt(row.slice(8, 16), 16) >>> 0);
    const v = this.info[i]!;
    if (v === 0) return undefined;
    const attempt = v >>> 2;
    const state = v & 3;
    if (state === DONE) return { done: true, attempt };
    // A refusal created nothing: the next attempt gets a key of its own. An unknown outcome is
    // retried with the same key: if it did go through, the service replays it.
    return { done: false, attempt: state === REFUSED ? attempt + 1 : attempt };
  }

  get size(): number {
    return this.used;
  }

  private slot(h: number, l: number): number {
    const mask = this.info.length - 1;
    let i = (Math.imul(h ^ (l >>> 7), 0x9e3779b1) >>> 0) & mask;
    while (this.info[i] !== 0 && (this.hi[i] !== h || this.lo[i] !== l)) i = (i + 1) & mask;
    return i;
  }

  private grow(): void {
    const { hi, lo, info } = this;
    const n = info.length * 2;
    this.hi = new Uint32Array(n);
    this.lo = new Uint32Array(n);
    this.info = new Uint32Array(n);
    for (let j = 0; j < info.length; j++) {
      if (info[j] === 0) continue;
      const i = this.slot(hi[j]!, lo[j]!);
      this.hi[i] = hi[j]!;
      this.lo[i] = lo[j]!;
      this.info[i] = info[j]!;
    }
  }
}

/**
 * Two words on one row (a file appended to by several runs, or a row twice in the input): done
 * wins; otherwise the later attempt; at the same attempt, unknown beats refused (it may have
 * created something, so its key must be sent again, not a new one).
 */
function merge(a: number, b: number): number {
  if ((a & 3) === DONE) return a;
  if ((b & 3) === DONE) return b;
  if (a >>> 2 !== b >>> 2) return a >>> 2 > b >>> 2 ? a : b;
  return (a & 3) === UNKNOWN ? a : b;
}

interface ResultLine {
  status?: unknown;
  idempotency_key?: unknown;
  refused?: unknown;
}

/** Reads a previous run's results (NDJSON lines of runBulk's Result); other lines are passed over. */
export async function readResume(path: string): Promise<ResumeIndex> {
  const index = new ResumeIndex();
  const stream = createReadStream(path, { encoding: 'utf8' });
  try {
    // One result is short: a line past 64 KiB means the wrong file.
    const tooLong = () => new UsageError(`--resume: ${path} is not a results file of pay (a line longer than 64 KiB)`);
    for await (const text of linesOf(stream, 65_536, tooLong)) {
      if (!text.includes('"idempotency_key"')) continue; // a blank line, a row that failed before sending, another format
      let r: ResultLine;
      try {
        r = JSON.parse(text) as ResultLine;
      } catch {
        continue; // a torn last line from a killed run
      }
      if (r === null || typeof r !== 'object' || typeof r.idempotency_key !== 'string') continue;
      const s = r.status;
      if (s === 'created' || s === 'replayed' || s === 'skipped') index.note(r.idempotency_key, DONE);
      else if (s === 'failed') index.note(r.idempotency_key, r.refused === true ? REFUSED : UNKNOWN);
      else if (s === 'interrupted') index.note(r.idempotency_key, UNKNOWN);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--resume: cannot read ${path} (${readProblem(err)})`);
  } finally {
    stream.destroy();
  }
  return index;
}
