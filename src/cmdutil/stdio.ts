// What the entry writes itself: commander's own output (help, the version, a group's help when the
// verb is missing) and the error report. Straight to file descriptors 1 and 2 (writeSync) while
// they are a pipe, a file or /dev/null and no command has taken the process's streams, so `pay --help` and
// `pay --version` never make process.stdout or process.stderr: for a pipe each is a net.Socket,
// whose modules cost about as much as the rest of the help. A terminal (a character device other
// than /dev/null) keeps the stream: commander asks it for its width. Once a command runs (the entry builds the
// Factory over the process's streams) everything goes through the streams, in the order written.
// A write that would block (a non-blocking pipe) hands the rest to the stream; a reader that went
// away (EPIPE) gets nothing more, as the entry's EPIPE handler does for the streams.
import type { OutputConfiguration } from 'commander';
import { fstatSync, statSync, writeSync } from 'node:fs';

export interface Stdio {
  /** Writes to stdout: the descriptor, or the stream. */
  out(text: string): void;
  /** Writes to stderr: the descriptor, or the stream. */
  err(text: string): void;
  /** commander's output configuration (createProgram applies it before adding any command). */
  commander: OutputConfiguration;
  /** From now on write through the process's streams (a command took them). */
  useStreams(): void;
}

/** commander's colour rule for help when the stream is not a terminal (its useColor()). */
function envColor(env: NodeJS.ProcessEnv): boolean | undefined {
  if (env.NO_COLOR || env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.FORCE_COLOR || env.CLICOLOR_FORCE !== undefined) return true;
  return undefined;
}

/**
 * `stream` makes (or returns) the process's stream for `fd`; `made` is told the first time the
 * writer uses it, so the entry can listen on it.
 */
export function createStdio(
  streams: { stdout: () => NodeJS.WriteStream; stderr: () => NodeJS.WriteStream },
  made: (which: 'stdout' | 'stderr') => void,
  env: NodeJS.ProcessEnv,
): Stdio {
  /** Per descriptor: 'direct' (writeSync), 'stream', or 'closed' (EPIPE: the reader went away). */
  const mode = new Map<1 | 2, 'direct' | 'stream' | 'closed'>();
  const streamOf = (fd: 1 | 2): NodeJS.WriteStream => {
    const which = fd === 1 ? 'stdout' : 'stderr';
    const s = streams[which]();
    made(which);
    return s;
  };
  const modeOf = (fd: 1 | 2): 'direct' | 'stream' | 'closed' => {
    let m = mode.get(fd);
    if (m === undefined) {
      try {
        const stats = fstatSync(fd);
        // A character device other than /dev/null may be a terminal: the stream knows its width.
        m = stats.isCharacterDevice() && stats.rdev !== statSync('/dev/null').rdev ? 'stream' : 'direct';
      } catch {
        m = 'stream';
      }
      mode.set(fd, m);
    }
    return m;
  };
  const write = (fd: 1 | 2, text: string): void => {
    const m = modeOf(fd);
    if (m === 'closed') return;
    if (m === 'stream') {
      streamOf(fd).write(text);
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    let done = 0;
    while (done < bytes.length) {
      try {
        done += writeSync(fd, bytes, done, bytes.length - done);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') {
          mode.set(fd, 'closed');
          return;
        }
        // EAGAIN (a non-blocking pipe that is full), or anything else: the stream writes the rest.
        mode.set(fd, 'stream');
        streamOf(fd).write(bytes.subarray(done));
        return;
      }
    }
  };
  const width = (fd: 1 | 2): number | undefined => {
    if (modeOf(fd) !== 'stream') return undefined;
    const s = streamOf(fd);
    return s.isTTY ? s.columns : undefined;
  };
  const colors = (fd: 1 | 2): boolean => {
    const rule = envColor(env);
    if (modeOf(fd) !== 'stream') return rule ?? false;
    const s = streamOf(fd);
    return rule ?? (s.isTTY && s.hasColors?.() === true);
  };
  return {
    out: (text) => write(1, text),
    err: (text) => write(2, text),
    commander: {
      writeOut: (text) => write(1, text),
      writeErr: (text) => write(2, text),
      // undefined where not a terminal, as commander's own default answers (its typings say number).
      getOutHelpWidth: () => width(1) as number,
      getErrHelpWidth: () => width(2) as number,
      getOutHasColors: () => colors(1),
      getErrHasColors: () => colors(2),
    },
    useStreams() {
      for (const fd of [1, 2] as const) if (mode.get(fd) !== 'closed') mode.set(fd, 'stream');
    },
  };
}
