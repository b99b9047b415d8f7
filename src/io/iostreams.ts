// One object for standard streams, terminal and colour detection (the gh "IOStreams" idea).
// Commands write through it, never through console.*, so tests can say "I am a TTY" or not.
import { Readable, Writable } from 'node:stream';

export interface IOStreams {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Colour on stdout (tables) and stderr (messages). */
  readonly colorEnabled: boolean;
  readonly terminalWidth: number;
  out(text: string): void;
  err(text: string): void;
}

export interface IOStreamsInit {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  stdinIsTTY?: boolean;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  env?: NodeJS.ProcessEnv;
  /** `--no-color` given. */
  noColor?: boolean;
  terminalWidth?: number;
}

/** Colour is off with NO_COLOR (any non-empty value), --no-color, TERM=dumb, or no terminal; FORCE_COLOR turns it on. */
export function colorWanted(env: NodeJS.ProcessEnv, isTTY: boolean, noColorFlag: boolean): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

export function createIOStreams(init: IOStreamsInit = {}): IOStreams {
  const stdout = init.stdout ?? process.stdout;
  const stderr = init.stderr ?? process.stderr;
  const isTTY = (s: unknown) => Boolean((s as { isTTY?: boolean }).isTTY);
  const stdoutIsTTY = init.stdoutIsTTY ?? isTTY(stdout);
  const stderrIsTTY = init.stderrIsTTY ?? isTTY(stderr);
  const env = init.env ?? process.env;
  // process.stdin is a stream made on first use (≈ 2 ms): most commands never read it, and whether
  // it is a terminal is file descriptor 0's answer, which is what process.stdin.isTTY reports.
  let stdin = init.stdin;
  return {
    get stdin() {
      return (stdin ??= process.stdin);
    },
    stdout,
    stderr,
    stdinIsTTY: init.stdinIsTTY ?? (init.stdin ? isTTY(init.stdin) : process.getBuiltinModule('node:tty').isatty(0)),
    stdoutIsTTY,
    stderrIsTTY,
    colorEnabled: colorWanted(env, stdoutIsTTY || stderrIsTTY, init.noColor ?? false),
    terminalWidth: init.terminalWidth ?? ((stdout as { columns?: number }).columns || 100),
    out: (text) => void stdout.write(text),
    err: (text) => void stderr.write(text),
  };
}

/** A test double: collects what is written; TTY-ness is a parameter. */
export function bufferIOStreams(opts: { tty?: boolean; color?: boolean; stdin?: string } = {}): IOStreams & {
  stdoutText(): string;
  stderrText(): string;
} {
  let out = '';
  let err = '';
  const tty = opts.tty ?? false;
  return {
    stdin: Readable.from([opts.stdin ?? '']),
    stdout: new Writable({ write: (c, _e, cb) => ((out += String(c)), cb()) }),
    stderr: new Writable({ write: (c, _e, cb) => ((err += String(c)), cb()) }),
    stdinIsTTY: tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    colorEnabled: opts.color ?? false,
    terminalWidth: 120,
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    stdoutText: () => out,
    stderrText: () => err,
  };
}
