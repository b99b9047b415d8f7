// One way for a test to wait: for the event itself (a line printed, a request received, a state
// reached), never for a stretch of time. `until` checks the condition again and again (at once,
// then after each turn of the event loop, then every few milliseconds) and returns its first
// truthy value; it has no timing window to miss. The only limit is a hang detector, far above
// anything a busy machine needs and below vitest's test timeout, so a condition that never comes
// fails with its own name and what was seen instead of a bare "test timed out".

/** How long a condition may take before it counts as never coming (a hang, not a speed limit). */
export const HANG_MS = 90_000;

export interface UntilOptions {
  /** What was seen, for the failure message (the output so far, the screen, the last answer). */
  seen?: () => string | Promise<string>;
  /** A shorter hang limit, only where the enclosing hook or test has less time than HANG_MS. */
  hangMs?: number;
}

type Truthy<T> = Exclude<T, undefined | null | false | 0 | ''>;

/**
 * Waits until `check` returns something truthy and returns it. `what` names the event (it is in
 * the failure message: "never happened: <what>"). A `check` that throws fails the wait at once.
 */
export async function until<T>(what: string, check: () => T | Promise<T>, opts: UntilOptions = {}): Promise<Truthy<T>> {
  const hang = opts.hangMs ?? HANG_MS;
  const started = Date.now();
  for (let round = 0; ; round++) {
    const v = await check();
    if (v) return v as Truthy<T>;
    if (Date.now() - started > hang) {
      const seen = opts.seen ? `\nseen:\n${await opts.seen()}` : '';
      throw new Error(`never happened (gave up after ${Math.round(hang / 1000)} s): ${what}${seen}`);
    }
    // A first few rounds on the event loop alone (most events are a callback away), then a pause.
    if (round < 20) await new Promise((r) => setImmediate(r));
    else await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until `read()` matches `re` and returns the match; the failure message shows what was read. */
export function untilMatch(what: string, read: () => string, re: RegExp): Promise<RegExpExecArray> {
  return until(what, () => re.exec(read()), { seen: read });
}
