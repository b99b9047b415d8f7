// How fault settings are written on the command line (`pay emulator start` and `pay emulator
// faults` flags) and read by the emulator's admin route: one syntax for both sides.

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export function isRate(p: unknown): p is number {
  return typeof p === 'number' && Number.isFinite(p) && p >= 0 && p <= 1;
}

/** "0.1", ".5", "1" → a share from 0 to 1; undefined for anything else. */
export function parseRate(v: string): number | undefined {
  const n = /^\d*\.?\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return isRate(n) ? n : undefined;
}

/** "10/s", "10" → {perSecond: 10, burst: 10}. */
export function parseRateLimit(v: string): RateLimit | undefined {
  const m = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return n > 0 && n <= 1e6 ? { perSecond: n, burst: Math.max(1, Math.ceil(n)) } : undefined;
}

/** "50-200" or "100" → [min, max] ms. */
export function parseLatency(v: string): [number, number] | undefined {
  const m = /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(v.trim());
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  return a <= b && b <= 60_000 ? [a, b] : undefined;
}
