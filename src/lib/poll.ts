// The one poll loop: ask, and until the answer says it is done, pause and ask again, within a
// deadline, stopped at once by a signal (Ctrl-C), with a spinner on a terminal's stderr. Every
// wait of pay runs on it: --wait (src/verbs/wait.ts), pay trigger's settlements and its event, the
// seed's settlements (src/seed/kyc.ts) and `pay emulator requests --follow`. The clock (now and
// sleep) is a parameter, so tests run a wait of minutes in no time and see every pause.
import { escapeText } from './escape.js';

/** Where the spinner draws: stderr (src/io/iostreams.ts IOStreams is one). */
export interface SpinnerStream {
  readonly stderrIsTTY: boolean;
  err(text: string): void;
}

/** What a wait reads the time from and pauses with. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts (its timer cleared). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The machine's clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** The pauses between polls: `first` before the first poll (0: at once), then each from the one before. */
export interface Pauses {
  first: number;
  next: (ms: number) => number;
}

/** A wait's pauses: the first poll at once, then 0.5 s, growing by half to 2 s. */
export const WAIT_PAUSES: Pauses = { first: 0, next: (ms) => (ms === 0 ? 500 : Math.min(2000, Math.round(ms * 1.5))) };

export interface PollOptions<T> {
  /** One poll: a value ends the wait with it; undefined asks again after the next pause. Its errors end the wait. */
  step: () => Promise<T | undefined>;
  /** When to give up (on the clock's `now`), and what to throw then; without one, only a value or the signal ends it. */
  deadline?: { at: number; error: () => unknown };
  /** Default WAIT_PAUSES. */
  pauses?: Pauses;
  /** Ends the wait at once (pollUntil returns undefined), between polls or in a pause. */
  signal?: AbortSignal;
  clock?: Clock;
  /** A line on stderr while it waits, when stderr is a terminal (cleared at the end). */
  spinner?: { io: SpinnerStream; text: string } | undefined;
}

/** Polls until a step answers a value (returned), the deadline (its error thrown) or the signal (undefined). */
export function pollUntil<T>(o: PollOptions<T> & { signal?: undefined }): Promise<T>;
export function pollUntil<T>(o: PollOptions<T>): Promise<T | undefined>;
export async function pollUntil<T>(o: PollOptions<T>): Promise<T | undefined> {
  const clock = o.clock ?? systemClock;
  const pauses = o.pauses ?? WAIT_PAUSES;
  const spinner = o.spinner?.io.stderrIsTTY ? startSpinner(o.spinner.io, o.spinner.text) : undefined;
  let pause = pauses.first;
  try {
    for (;;) {
      if (o.signal?.aborted) return undefined;
      const left = o.deadline ? o.deadline.at - clock.now() : Infinity;
      if (left <= 0) throw o.deadline!.error();
      if (pause > 0) {
        await clock.sleep(Math.min(pause, left), o.signal);
        if (o.signal?.aborted) return undefined;
      }
      pause = pauses.next(pause);
      const value = await o.step();
      if (value !== undefined) return value;
    }
  } finally {
    spinner?.stop();
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A one-line spinner on stderr (terminals only): `\r` redraws, the line is cleared at the end. */
export function startSpinner(io: SpinnerStream, text: string): { stop(): void } {
  let i = 0;
  const started = Date.now();
  const shown = escapeText(text);
  const draw = () => io.err(`\r${FRAMES[i++ % FRAMES.length]} ${shown} (${Math.floor((Date.now() - started) / 1000)} s)`);
  draw();
  const timer = setInterval(draw, 100);
  timer.unref?.();
  return {
    stop() {
      clearInterval(timer);
      io.err('\r\x1b[2K');
    },
  };
}
