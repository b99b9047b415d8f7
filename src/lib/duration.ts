// Durations as people write them for `pay emulator clock advance`: a number and a unit, or several
// from the largest unit down, with nothing between them: `90s`, `15m`, `25h`, `7d`, `1h30m`,
// `2d12h`, `1d2h3m4s`. Whole numbers only; at most 10 years (what the emulator accepts).

export const DURATION_FORMS = 'a number and a unit s, m, h or d, or several from the largest down (90s, 15m, 25h, 7d, 1h30m, 2d12h)';
export const MAX_DURATION_SECONDS = 10 * 365 * 86_400;

const UNITS = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
] as const;

const SHAPE = /^(?:(\d{1,10})d)?(?:(\d{1,10})h)?(?:(\d{1,10})m)?(?:(\d{1,10})s)?$/;

/** Seconds (> 0, ≤ MAX_DURATION_SECONDS), or undefined when `text` is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const m = SHAPE.exec(text.trim().toLowerCase());
  if (!m || m.slice(1).every((g) => g === undefined)) return undefined;
  let seconds = 0;
  UNITS.forEach(([, size], i) => {
    const g = m[i + 1];
    if (g !== undefined) seconds += Number(g) * size;
  });
  return seconds > 0 && seconds <= MAX_DURATION_SECONDS ? seconds : undefined;
}

/** Seconds as the same notation, largest unit first (`5400` → `1h30m`; `0` → `0s`). */
export function formatDuration(seconds: number): string {
  let rest = Math.max(0, Math.round(seconds));
  if (rest === 0) return '0s';
  let out = '';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}
