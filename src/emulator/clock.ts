// The emulator's clock: real time (or an injected source) plus an offset that the admin route
// `POST /__emulator/clock/advance` moves forward. Settlement, quote expiry, idempotency-key
// lifetime and webhook retries all read this clock, so tests move time instead of sleeping.
// `stamp()` never goes backwards: ids and created_at come from it, so creation order, id order
// and created_at order agree (lists rely on that).

export class Clock {
  private offsetMs = 0;
  private last = 0;

  constructor(private readonly source: () => number = Date.now) {}

  /** Current emulator time in ms. */
  now(): number {
    return this.source() + this.offsetMs;
  }

  /** A monotonic time for a new object (never below an earlier stamp). */
  stamp(): number {
    const t = this.now();
    this.last = t > this.last ? t : this.last;
    return this.last;
  }

  get offset(): number {
    return this.offsetMs;
  }

  setOffset(ms: number): void {
    this.offsetMs = ms;
  }

  advance(seconds: number): void {
    this.offsetMs += Math.round(seconds * 1000);
  }

  /** After a replay: stamps continue after the newest object seen. */
  atLeast(ms: number): void {
    if (ms > this.last) this.last = ms;
  }

  reset(): void {
    this.offsetMs = 0;
    this.last = 0;
  }
}

let lastMs = NaN;
let lastIso = '';
/** RFC 3339 UTC with milliseconds (the last conversion is cached: many objects share a millisecond). */
export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
