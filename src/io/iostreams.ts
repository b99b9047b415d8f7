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
  /** Columns of the terminal (terminalColumns): what tables on it and the picker fit. */
  readonly terminalWidth: number;
  /** Rows of the terminal (`LINES`, else stdout's): what the pager is for; unknown off a terminal. */
  readonly terminalRows?: number | undefined;
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
  terminalRows?: number;
}

/** Colour is off with NO_COLOR (any non-empty value), --no-color, TERM=dumb, or no terminal; FORCE_COLOR turns it on. */
export function colorWanted(env: NodeJS.ProcessEnv, isTTY: boolean, noColorFlag: boolean): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

/** Wider than any line pay prints: a larger COLUMNS is taken as this. */
export const MAX_COLUMNS = 1_000_000;

/**
 * `COLUMNS` as a width: a positive whole number (digits only; one past MAX_COLUMNS, however long,
 * is MAX_COLUMNS: it fits everything); anything else (empty, 0, negative, a fraction, garbage) is
 * not one and is ignored.
 */
export function parseColumns(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim().replace(/^0+(?=\d)/, '');
  if (!/^\d+$/.test(text)) return undefined;
  if (text.length > 7) return MAX_COLUMNS;
  const n = Number(text);
  return n >= 1 ? Math.min(n, MAX_COLUMNS) : undefined;
}

/**
 * The terminal's width in columns: `COLUMNS` when it is valid (parseColumns), else what the
 * terminal says (stdout's, or stderr's when stdout is not one), else 80.
 */
export function terminalColumns(env: NodeJS.ProcessEnv, ...streams: unknown[]): number {
  const given = parseColumns(env.COLUMNS);
  if (given !== undefined) return given;
  for (const s of streams) {
    const cols = (s as { columns?: unknown }).columns;
    if (typeof cols === 'number' && Number.isInteger(cols) && cols > 0) return cols;
  }
  return 80;
}

/** The terminal's rows: `LINES` when valid, else stdout's when it is a terminal. */
export function terminalRows(env: NodeJS.ProcessEnv, stdout: unknown): number | undefined {
  const given = parseColumns(env.LINES);
  if (given !== undefined) return given;
  const rows = (stdout as { rows?: unknown }).rows;
  return typeof rows === 'number' && Number.isInteger(rows) && rows > 0 ? rows : undefined;
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
    terminalWidth: init.terminalWidth ?? terminalColumns(env, stdout, stderr),
    terminalRows: init.terminalRows ?? terminalRows(env, stdout),
    out: (text) => void stdout.write(text),
    err: (text) => void stderr.write(text),
  };
}

/** A test double: collects what is written; TTY-ness is a parameter. */
export function bufferIOStreams(opts: { tty?: boolean; color?: boolean; stdin?: string; width?: number; rows?: number } = {}): IOStreams & {
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
    terminalWidth: opts.width ?? 120,
    terminalRows: opts.rows,
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    stdoutText: () => out,
    stderrText: () => err,
  };
}
