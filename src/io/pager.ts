// The pager (issue 28, item 3): a table, a get view or a help topic longer than the terminal goes
// through PAY_PAGER, then PAGER, default `less -FRX` (src/io/output-options.ts pagerCommand), on a
// terminal only: never into a pipe or a file, never for --json, --jq or -o. The text is written
// to the pager's stdin; the pager draws on pay's own terminal (stdout inherited). Quitting it
// early (`q`: its stdin closes, EPIPE) is a normal end, exit 0. Ctrl-C reaches the pager and pay
// alike (one process group): pay does not die under the pager's feet (the terminal would be left
// to a pager that still draws), it waits for the pager to end and then exits 130, cancelled. A
// pager that cannot start (not found: the shell's 127, or no shell) loses nothing: the text is
// written as it would have been, with one line saying so. Notes about the data (columns hidden,
// more exist) wait until the pager ended, so they are not drawn over (afterPager).
import type { ChildProcess } from 'node:child_process';
import { CancelledError } from '../lib/errors.js';
import type { IOStreams } from './iostreams.js';
import { escapeText } from './escape.js';
import { pagerState } from './output-options.js';
import { displayWidth } from './width.js';

let running: Promise<void> | undefined;
let interrupted = false;
const after: Array<() => void> = [];

/** How many terminal lines `text` takes at `width` columns (long lines wrap). */
export function screenLines(text: string, width: number): number {
  const lines = text.replace(/\n$/, '').split('\n');
  let n = 0;
  for (const l of lines) n += Math.max(1, Math.ceil(displayWidth(l) / Math.max(1, width)));
  return n;
}

/** Runs `fn` now, or once the pager running ended (a note must not be drawn over by it). */
export function afterPager(fn: () => void): void {
  if (running) after.push(fn);
  else fn();
}

/**
 * Writes `text` to stdout, through `command` when stdout is a terminal and the text is longer
 * than the terminal's `rows` (the last row is the pager's prompt). Returns at once; pagerDone()
 * waits for the pager's end.
 */
export function page(io: IOStreams, text: string, command: string | undefined, rows: number | undefined): void {
  if (!command || !io.stdoutIsTTY || rows === undefined || running || screenLines(text, io.terminalWidth) < rows) {
    io.out(text);
    return;
  }
  const { spawn } = process.getBuiltinModule('node:child_process');
  let child: ChildProcess;
  const env = { ...process.env };
  // As git and gh do: less and lv get their options for colour and no screen clear unless the user set them.
  env.LESS ??= 'FRX';
  env.LV ??= '-c';
  const onSignal = (): void => {
    interrupted = true;
  };
  process.on('SIGINT', onSignal);
  pagerState.started = true;
  running = new Promise<void>((resolve) => {
    let done = false;
    const finish = (failed: string | undefined): void => {
      if (done) return;
      done = true;
      process.off('SIGINT', onSignal);
      running = undefined;
      if (failed !== undefined) {
        io.out(text);
        io.err(`warning: the pager "${escapeText(command)}" ${failed}; printed without it (PAY_PAGER= or --no-pager turns it off)\n`);
      }
      for (const fn of after.splice(0)) fn();
      resolve();
    };
    try {
      child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env });
    } catch (err) {
      finish(`could not start (${(err as Error).message})`);
      return;
    }
    child.on('error', (err) => finish(`could not start (${err.message})`));
    child.on('close', (code, signal) => {
      if (signal === 'SIGINT') interrupted = true;
      // The shell's "not found" and "not executable": nothing was shown.
      finish(code === 127 || code === 126 ? `could not start (exit ${code})` : undefined);
    });
    // A pager quit before it read everything closes its stdin: EPIPE here is its normal end.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(text);
  });
}

/** Waits for the pager (if one runs) to end; Ctrl-C while it ran is exit 130 after it ended. */
export async function pagerDone(): Promise<void> {
  while (running) await running;
  if (interrupted) {
    interrupted = false;
    throw new CancelledError('cancelled');
  }
}
