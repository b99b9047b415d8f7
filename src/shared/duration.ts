// Durations as people write them, one grammar for every place pay takes one: a whole number and a
// unit (s, m, h, d, w), or several from the largest unit down with nothing between them: `90s`,
// `15m`, `25h`, `7d`, `2w`, `1h30m`, `2d12h`, `1w2d3h4m5s`. Units are read in either case and
// spaces around the whole are ignored (` 1H30M ` is 1h30m). Used by `pay emulator clock advance`
// (how far) and the list filters' `--since`/`--until` (how long back from now), each with its own
// upper bound; the emulator bounds an advance by the same MAX_ADVANCE_SECONDS. A leaf: no imports.

/** The grammar in words, for errors and help. */
export const DURATION_FORMS =
  'a whole number and a unit s, m, h, d or w, or several from the largest down (90s, 15m, 25h, 7d, 2w, 1h30m, 2d12h)';

/** The furthest the emulator's clock moves in one advance: 10 years (of 365.25 days: `3652d` and `87600h` alike fit). */
export const MAX_ADVANCE_SECONDS = 10 * 365.25 * 86_400;

/** Each unit and its seconds, largest first (the order the parts must come in). */
const UNITS = [
  ['w', 604_800],
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
] as const;

const SHAPE = /^(?:(\d{1,10})w)?(?:(\d{1,10})d)?(?:(\d{1,10})h)?(?:(\d{1,10})m)?(?:(\d{1,10})s)?$/;

/** Seconds (a whole number > 0), or undefined when `text` is not a duration. Callers bound it. */
export function parseDuration(text: string): number | undefined {
  const m = SHAPE.exec(text.trim().toLowerCase());
  if (!m || m.slice(1).every((g) => g === undefined)) return undefined;
  let seconds = 0;
  UNITS.forEach(([, size], i) => {
    const g = m[i + 1];
    if (g !== undefined) seconds += Number(g) * size;
  });
  return seconds > 0 ? seconds : undefined;
}

/** Seconds in the same notation, days the largest unit (`5400` → `1h30m`, `691200` → `8d`; `0` → `0s`). */
export function formatDuration(seconds: number): string {
  let rest = Math.max(0, Math.round(seconds));
  if (rest === 0) return '0s';
  let out = '';
  for (const [unit, size] of UNITS) {
    if (unit === 'w') continue;
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}
