// Ids: prefix + 24 chars of [0-9a-z]. The first 13 chars encode the creation time and a
// per-millisecond sequence, so ids sort in creation order (lists page by id, no sorting);
// the last 11 are random. Random bytes come from a pool (one crypto call per 4 KiB).
import { randomFillSync } from 'node:crypto';
import { isId as isAnId } from '../shared/domain.js';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const pool = Buffer.alloc(4096);
let pos = pool.length;

function byte(): number {
  if (pos >= pool.length) {
    randomFillSync(pool);
    pos = 0;
  }
  return pool[pos++]!;
}

/** n random characters of an alphabet (default [0-9a-z]). */
export function randomChars(n: number, alphabet = ALPHABET): string {
  let out = '';
  const len = alphabet.length;
  // Reject bytes past the largest multiple of len, so every character is equally likely.
  const limit = 256 - (256 % len);
  while (out.length < n) {
    const b = byte();
    if (b < limit) out += alphabet[b % len];
  }
  return out;
}

export const randomDigits = (n: number): string => randomChars(n, '0123456789');

export class IdGen {
  private last = 0;
  private seq = 0;

  /** The creation time encoded in the newest id. */
  get lastMs(): number {
    return this.last;
  }

  /** A new id for an object created at `ms` (a Clock.stamp()). */
  make(prefix: string, ms: number): string {
    if (ms > this.last) {
      this.last = ms;
      this.seq = 0;
    } else {
      this.seq++;
      if (this.seq >= 36 ** 4) {
        this.last++;
        this.seq = 0;
      }
    }
    return prefix + this.last.toString(36).padStart(9, '0') + this.seq.toString(36).padStart(4, '0') + randomChars(11);
  }

  /** After a replay: new ids sort after every id seen. */
  seen(id: string): void {
    const body = id.slice(id.indexOf('_') + 1);
    const ms = parseInt(body.slice(0, 9), 36);
    if (Number.isFinite(ms) && ms >= this.last) {
      this.last = ms + 1;
      this.seq = 0;
    }
  }

  reset(): void {
    this.last = 0;
    this.seq = 0;
  }
}

/** Path ids: `^<prefix>[0-9a-z]{24}$` (the one id shape, src/shared/domain.ts). */
export const isId = (prefix: string, value: string): boolean => isAnId(value, prefix);
