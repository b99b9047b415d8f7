// Edit distance (Levenshtein) and closeness, for "did you mean": the one way every name a user
// mistyped is guessed (commands, options, help topics, --fields, pay trigger's event types and
// --override names, webhooks listen --events): didYouMean(closeNames(typed, names)).
// A leaf, small enough for the start-up path; src/lib/distance.ts re-exports it for the CLI side.
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/**
 * Whether `suggested` is close to what was typed (dashes and case aside): the same but for them
 * (`Transfer.Failed` → `transfer.failed`), typed is a prefix of it (`cust` → `customers`, `l` →
 * `list`), or it is one letter off from three letters on (`seeds` → `seed`), two from four on
 * (`frze` → `freeze`). `tx` is not close to `fx`: a two-letter guess is no help with money.
 */
export function isClose(typed: string, suggested: string): boolean {
  const a = typed.replace(/^-+/, '').toLowerCase();
  const b = suggested.replace(/^-+/, '').toLowerCase();
  if (a === '' || typed === suggested) return false;
  if (b.startsWith(a)) return true;
  // More than two letters longer is never two edits away (and a long typed text costs nothing).
  if (a.length < 3 || a.length > b.length + 2) return false;
  const d = editDistance(a, b);
  return d <= 1 || (a.length >= 4 && d <= 2);
}

/**
 * The names close to `typed` (isClose): those it begins, in the given order; failing that, the
 * nearest (`--limt` → `--limit`, not `--live` too). None when more than `max` are: a guess among
 * many is no help.
 */
export function closeNames(typed: string, names: readonly string[], max = 5): string[] {
  const a = typed.replace(/^-+/, '').toLowerCase();
  const bare = (n: string) => n.replace(/^-+/, '').toLowerCase();
  const close = [...new Set(names)].filter((n) => isClose(typed, n));
  const prefix = close.filter((n) => bare(n).startsWith(a));
  if (prefix.length > 0) return prefix.length > max ? [] : prefix;
  const best = Math.min(...close.map((n) => editDistance(a, bare(n))));
  const nearest = close.filter((n) => editDistance(a, bare(n)) === best);
  return nearest.length > max ? [] : nearest;
}

/** "did you mean x?", "did you mean x or y?", "did you mean one of x, y, z?"; undefined for none. */
export function didYouMean(names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  if (names.length === 1) return `did you mean ${names[0]}?`;
  if (names.length === 2) return `did you mean ${names[0]} or ${names[1]}?`;
  return `did you mean one of ${names.join(', ')}?`;
}
