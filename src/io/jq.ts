// --jq: a real jq (jq 1.8, compiled to WebAssembly by the jq-wasm package), loaded only when a
// command is given --jq (the dispatcher imports this module then; nothing on the start-up path
// does). The filter is compiled once before anything is sent: a syntax error, an undefined
// function or variable, or a module import is exit 2 naming --jq. jq then runs over the JSON text
// pay would have printed (a list as one array, every page with --all) and its output is printed
// as jq prints it, except that strings are printed raw (as `jq -r` does, and gh's --jq):
// `--jq '.[].email'` gives one address a line. On a terminal, a raw string is shown escaped like
// every text from the service (src/io/escape.ts: one line, `\n` and `\t` written so), and JSON
// values have the characters a terminal would act on written as JSON escapes (escapeJson).
//
// Streaming: jq-wasm collects jq's whole output before it returns it; pay instead hands its
// WebAssembly module a write function of its own for jq's stdout (jq-wasm's documented
// instantiateWasm option, wrapping the module's fd_write import), so each value is printed as jq
// makes it, and a closed stdout (`| head -2`) stops jq there: an endless generator
// (`range(1e9)`, `repeat(1)`) is cut like any other writer's output, in constant memory.
//
// The WebAssembly sandbox has no files and no environment of yours, and pay gives the filter an
// empty one: `$ENV` and `env` are `{}` (the emulated system's USER, PATH and HOME are not shown).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadJq, type Jq } from 'jq-wasm';
import { dependencyDamaged, ExitCode, PayError, UsageError } from '../lib/errors.js';
import { escapeJson, escapeMultiline, escapeText } from './escape.js';
import type { JqFilter } from './output-options.js';

/** jq --seq puts this before every value (RFC 7464): the one way to tell one output value's text from the next. */
const RS = '\u001e';
/** Longer filters are refused: jq programs in a command line are short; this bounds what is compiled. */
const MAX_FILTER = 64 * 1024;
/**
 * Put before the user's filter: `$ENV` and `env` are the empty object, whatever the emulated
 * system says. `as` binds over the whole rest of the program, so the filter keeps its meaning
 * (its own definitions, `$__loc__` lines, comments to the end).
 */
const SANDBOX = 'def env: {}; {} as $ENV | ';

/** Thrown from inside jq's write when stdout is closed: unwinds jq, which is then thrown away. */
class StdoutClosed extends Error {}

interface Loaded {
  jq: Jq;
  /** The promise this came from (a stopped jq is not handed out again). */
  self: Promise<Loaded> | undefined;
  /** Stopped mid-write by a closed stdout: left as it was, used no more. */
  stopped: boolean;
  /** While a filter runs: where jq's stdout goes (undefined: jq-wasm collects it, the fallback). */
  stdout: { sink: ((bytes: Uint8Array) => void) | undefined; hooked: boolean };
}

let loaded: Promise<Loaded> | undefined;

/** A WebAssembly instance and module, as this file uses them (this project's lib types have no WebAssembly API). */
interface WasmInstance {
  exports: Record<string, unknown>;
}
type OnSuccess = (instance: WasmInstance, module: unknown) => void;
const Wasm = (
  globalThis as unknown as {
    WebAssembly: {
      instantiate(bytes: Uint8Array, imports: unknown): Promise<{ instance: WasmInstance; module: unknown }>;
      Memory: abstract new (...args: never[]) => { buffer: ArrayBuffer };
    };
  }
).WebAssembly;

/**
 * jq-wasm with jq's stdout handed to `stdout.sink`: the module's imports are wrapped before it is
 * instantiated (the import is found by its function's name, `_fd_write`; a build without it keeps
 * jq-wasm's collected output). Writes to fd 1 go to the sink; everything else as jq-wasm does it.
 */
async function load(): Promise<Loaded> {
  const stdout: Loaded['stdout'] = { sink: undefined, hooked: false };
  let bytes: Uint8Array;
  try {
    bytes = await readFile(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'));
  } catch {
    return { jq: await loadJq(), self: undefined, stopped: false, stdout };
  }
  let memory: { buffer: ArrayBuffer } | undefined;
  // jq-wasm's loader (Emscripten's) has no way to hear that an instantiateWasm it was given failed
  // later: its promise would never settle, and --jq would wait forever. The failure comes here.
  let fail!: (err: unknown) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  const jq = loadJq({
    instantiateWasm(imports: unknown, done: unknown) {
      const onSuccess = done as OnSuccess;
      for (const mod of Object.values(imports as Record<string, unknown>)) {
        if (!mod || typeof mod !== 'object') continue;
        const table = mod as Record<string, unknown>;
        for (const [name, fn] of Object.entries(table)) {
          if (typeof fn !== 'function' || fn.name !== '_fd_write') continue;
          const original = fn as (fd: number, iov: number, iovcnt: number, pnum: number) => number;
          stdout.hooked = true;
          table[name] = (fd: number, iov: number, iovcnt: number, pnum: number): number => {
            if (fd !== 1 || !stdout.sink || !memory) return original(fd, iov, iovcnt, pnum);
            const view = new DataView(memory.buffer);
            let written = 0;
            for (let i = 0; i < iovcnt; i++) {
              const ptr = view.getUint32(iov + i * 8, true);
              const len = view.getUint32(iov + i * 8 + 4, true);
              stdout.sink(new Uint8Array(memory.buffer, ptr, len));
              written += len;
            }
            view.setUint32(pnum, written, true);
            return 0;
          };
        }
      }
      Wasm.instantiate(bytes, imports)
        .then(({ instance, module }) => {
          memory = Object.values(instance.exports).find((e): e is { buffer: ArrayBuffer } => e instanceof Wasm.Memory);
          if (!memory) stdout.hooked = false;
          onSuccess(instance, module);
        })
        .catch(fail);
      return {};
    },
  });
  return { jq: await Promise.race([jq, failed]), self: undefined, stopped: false, stdout };
}

/** jq, loaded once per process; a load that failed is tried again next time. */
function loadOnce(): Promise<Loaded> {
  if (!loaded) {
    const p: Promise<Loaded> = load().then(
      (l) => Object.assign(l, { self: p }),
      (err: unknown) => {
        if (loaded === p) loaded = undefined;
        // jq-wasm's module or its jq.wasm missing, empty or cut short: the install is damaged.
        throw dependencyDamaged('jq-wasm', err);
      },
    );
    loaded = p;
  }
  return loaded;
}

/** The first line of jq's message without its `jq: error…:` prefix, e.g. `syntax error, unexpected end of file at line 1, column 6`. */
function jqMessage(stderr: string): string {
  const first = stderr.split('\n').find((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l)) ?? '';
  const message = first
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/ at <top-level>, /, ' at ')
    .replace(/:$/, '')
    .trim();
  // jq 1.8's `input` past the last input fails with its internal "break"; jq 1.7 said this.
  return message === 'break' ? 'No more inputs (pay gives jq one JSON text: input and inputs have nothing more to read)' : message;
}

function refused(check: { exitCode: number; stderr: string }): UsageError {
  const why = jqMessage(check.stderr) || `jq refused the filter (exit status ${check.exitCode})`;
  return new UsageError(`--jq: ${why}`, {
    hint: 'a jq filter such as ".[].id" or "map(select(.status == \\"active\\"))"; nothing was sent (jq manual: https://jqlang.org/manual/)',
  });
}

export interface JqOptions {
  /** stdout is a terminal: raw strings and JSON are escaped (render). */
  tty: boolean;
  /** jq's own messages (debug, stderr, warnings), escaped, for stderr. */
  warn: (text: string) => void;
  /** Whether stdout was closed (EPIPE: the reader went away); jq stops at its next write then. */
  closed?: () => boolean;
}

/**
 * Loads jq and compiles `expr` (over no input, so nothing runs: a filter that would loop forever
 * is still only compiled). A filter jq refuses is a UsageError (exit 2) naming --jq.
 */
export async function compileJq(expr: string, opts: JqOptions): Promise<JqFilter> {
  if (expr.trim() === '') throw new UsageError('--jq needs a filter, e.g. --jq ".[].id"');
  if (expr.length > MAX_FILTER) throw new UsageError(`--jq: the filter is longer than ${MAX_FILTER / 1024} KiB`);
  const state: Loaded = await loadOnce();
  // The filter as typed first (jq's message names its own line and column), then as it runs.
  for (const program of [expr, SANDBOX + expr]) {
    const check = state.jq.raw('', program, []);
    if (check.exitCode !== 0) throw refused(check);
  }
  const program = SANDBOX + expr;
  return { expr, run: (json, write) => runFilter(state, program, json, write, opts) };
}

/** Runs the program over one JSON text, printing each output value as jq makes it (renderValue). */
function runFilter(state: Loaded, program: string, json: string, write: (text: string) => void, opts: JqOptions): void {
  // stdout was closed during an earlier run (a stream's next line): nothing more can be printed.
  if (state.stopped) {
    if (opts.closed?.()) return;
    throw new PayError('--jq: jq stopped during an earlier value and cannot run again', ExitCode.ERROR, 'jq_error');
  }
  // jq writes a line at a time; its bytes are gathered and written in batches (64 KiB, or what
  // 50 ms made): a write per value cost more than jq. A closed stdout stops jq at the next batch.
  let text = '';
  const values = valueFramer((value) => (text += renderValue(value, opts.tty)));
  const decoder = new TextDecoder();
  const bytes = new Uint8Array(64 * 1024);
  let used = 0;
  let since = Date.now();
  const flush = () => {
    if (used > 0) values.push(decoder.decode(bytes.subarray(0, used), { stream: true }));
    used = 0;
    since = Date.now();
    if (text) write(text);
    text = '';
    if (opts.closed?.()) throw new StdoutClosed();
  };
  const { stdout } = state;
  stdout.sink = !stdout.hooked
    ? undefined
    : (chunk) => {
        if (used + chunk.length > bytes.length) {
          flush();
          if (chunk.length > bytes.length) {
            values.push(decoder.decode(chunk, { stream: true }));
            return;
          }
        }
        bytes.set(chunk, used);
        used += chunk.length;
        if (Date.now() - since >= 50) flush();
      };
  let r;
  try {
    // --seq frames the input too: one text, after a record separator.
    r = state.jq.raw(`${RS}${json}\n`, program, ['--seq']);
    // The collected output (without the hook), then the last value, which no next separator closed.
    flush();
    if (r.stdout) values.push(r.stdout);
    values.end();
    flush();
  } catch (err) {
    // jq was stopped mid-write (or failed inside): its buffers and heap are left as they were, so
    // it is used no more; a later --jq loads a fresh one.
    state.stopped = true;
    if (loaded === state.self) loaded = undefined;
    if (err instanceof StdoutClosed) return;
    throw err;
  } finally {
    stdout.sink = undefined;
  }
  // debug, stderr and warnings: jq's own messages, on stderr (escaped: they may quote the data).
  if (r.exitCode === 0 && r.stderr) opts.warn(`${escapeMultiline(r.stderr)}\n`);
  if (r.exitCode !== 0) {
    throw new PayError(`--jq: ${jqMessage(r.stderr) || `jq stopped with exit status ${r.exitCode}`}`, ExitCode.ERROR, 'jq_error', {
      hint: 'the filter failed on this data',
    });
  }
}

/**
 * jq's --seq output, fed as it comes, to whole values: each value follows a record separator and
 * is whole when the next separator comes or, sooner, when its text is: jq pretty-prints with a
 * 2-space indent, so a value is one line (a string, number, literal, `[]` or `{}`) or ends with
 * its closing bracket alone at the start of a line.
 */
export function valueFramer(emit: (text: string) => void): { push(text: string): void; end(): void } {
  let buf = '';
  const whole = (text: string): boolean => {
    if (!text.endsWith('\n')) return false;
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    if (lastStart === 0) return text !== '[\n' && text !== '{\n';
    const last = text.slice(lastStart, -1);
    return last === ']' || last === '}';
  };
  return {
    push(text) {
      buf += text;
      for (;;) {
        const start = buf.indexOf(RS);
        if (start < 0) return;
        const next = buf.indexOf(RS, start + 1);
        const value = next < 0 ? buf.slice(start + 1) : buf.slice(start + 1, next);
        if (next < 0 && !whole(value)) {
          if (start > 0) buf = buf.slice(start);
          return;
        }
        buf = next < 0 ? '' : buf.slice(next);
        emit(value);
      }
    },
    end() {
      const start = buf.indexOf(RS);
      const value = start < 0 ? '' : buf.slice(start + 1);
      buf = '';
      if (value !== '') emit(value);
    },
  };
}

/**
 * One output value's text (as jq wrote it after --seq's separator) → what `jq -r` prints: a string
 * without its quotes, anything else as jq formatted it (2-space indent, numbers as jq writes
 * them), then a line break. On a terminal the string is one escaped line and JSON has what a
 * terminal would act on written as JSON escapes.
 */
export function renderValue(chunk: string, tty: boolean): string {
  const text = chunk.endsWith('\n') ? chunk : `${chunk}\n`;
  if (text.startsWith('"')) {
    const s = JSON.parse(text) as string;
    return `${tty ? escapeText(s) : s}\n`;
  }
  return tty ? escapeJson(text) : text;
}

/** jq's whole --seq output → what pay prints (renderValue per value). */
export function render(stdout: string, tty: boolean): string {
  let out = '';
  const values = valueFramer((v) => (out += renderValue(v, tty)));
  values.push(stdout);
  values.end();
  return out;
}
