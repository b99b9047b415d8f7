// --jq: a real jq (jq 1.8, compiled to WebAssembly by the jq-wasm package), loaded only when a
// command is given --jq (the dispatcher imports this module then; nothing on the start-up path
// does). The filter is compiled once before anything is sent: a syntax error, an undefined
// function or variable, or a module import is exit 2 naming --jq. jq then runs over the JSON text
// pay would have printed (a list as one array, every page with --all) and its output is printed
// exactly as jq prints it, except that strings are printed raw (as `jq -r` does, and gh's --jq):
// `--jq '.[].email'` gives one address a line. On a terminal, those raw strings come from the
// service: they are shown escaped (src/io/escape.ts), line breaks and tabs kept.
// The WebAssembly sandbox has no files and no environment of yours: `$ENV`, `env`, `input_filename`
// and `import`/`include` see an empty emulated system, so a filter cannot read pay's secrets.
import { loadJq, type Jq } from 'jq-wasm';
import { ExitCode, PayError, UsageError } from '../lib/errors.js';
import { escapeMultiline } from './escape.js';
import type { JqFilter } from './output-options.js';

/** jq --seq puts this before every value (RFC 7464): the one way to tell one output value's text from the next. */
const RS = '\u001e';
/** Longer filters are refused: jq programs in a command line are short; this bounds what is compiled. */
const MAX_FILTER = 64 * 1024;

let loaded: Promise<Jq> | undefined;

/** The first line of jq's message without its `jq: error…:` prefix, e.g. `syntax error, unexpected end of file at line 1, column 6`. */
function jqMessage(stderr: string): string {
  const first = stderr.split('\n').find((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l)) ?? '';
  return first
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/ at <top-level>, /, ' at ')
    .replace(/:$/, '')
    .trim();
}

/**
 * Loads jq and compiles `expr` (over no input, so nothing runs: a filter that would loop forever
 * is still only compiled). A filter jq refuses is a UsageError (exit 2) naming --jq.
 */
export async function compileJq(expr: string, opts: { tty: boolean; warn: (text: string) => void }): Promise<JqFilter> {
  if (expr.trim() === '') throw new UsageError('--jq needs a filter, e.g. --jq ".[].id"');
  if (expr.length > MAX_FILTER) throw new UsageError(`--jq: the filter is longer than ${MAX_FILTER / 1024} KiB`);
  loaded ??= loadJq();
  const jq = await loaded;
  const check = jq.raw('', expr, []);
  if (check.exitCode !== 0) {
    const why = jqMessage(check.stderr) || `jq refused the filter (exit status ${check.exitCode})`;
    throw new UsageError(`--jq: ${why}`, {
      hint: 'a jq filter such as ".[].id" or "map(select(.status == \\"active\\"))"; nothing was sent (jq manual: https://jqlang.org/manual/)',
    });
  }
  return {
    expr,
    run(json: string, write: (text: string) => void): void {
      // --seq frames the input too: one text, after a record separator.
      const r = jq.raw(`${RS}${json}\n`, expr, ['--seq']);
      // What jq printed before an error is printed too, as jq does.
      const out = render(r.stdout, opts.tty);
      if (out) write(out);
      // debug, stderr and warnings: jq's own messages, on stderr (escaped: they may quote the data).
      if (r.exitCode === 0 && r.stderr) opts.warn(`${escapeMultiline(r.stderr)}\n`);
      if (r.exitCode !== 0) {
        throw new PayError(`--jq: ${jqMessage(r.stderr) || `jq stopped with exit status ${r.exitCode}`}`, ExitCode.ERROR, 'jq_error', {
          hint: 'the filter failed on this data',
        });
      }
    },
  };
}

/**
 * jq's --seq output → what `jq -r` prints: every value on its own line, strings without their
 * quotes, everything else as jq formatted it (2-space indent, numbers as jq writes them).
 */
export function render(stdout: string, tty: boolean): string {
  let out = '';
  for (const chunk of stdout.split(RS)) {
    if (chunk === '') continue;
    const text = chunk.endsWith('\n') ? chunk : `${chunk}\n`;
    if (text.startsWith('"')) {
      const s = JSON.parse(text) as string;
      out += `${tty ? escapeMultiline(s) : s}\n`;
    } else out += text;
  }
  return out;
}
