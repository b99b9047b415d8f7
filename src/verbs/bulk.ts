// `--from-file` on create verbs: every row of an NDJSON, CSV or JSON-array file (or stdin) is one
// create, validated like --data (the command line's flags apply to every row and win over its
// fields), sent with a per-row deterministic Idempotency-Key, N at a time. SIGINT/SIGTERM stop
// it (no new row, a grace for the rows in flight, every result written, the summary, exit 130);
// a closed stdout stops it too (exit 1); the hints say what will finish the job.
import { constants, fstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { basename, isAbsolute, relative } from 'node:path';
import { checkInput, countRows, formatFor, openInput, readRows, type InputFormat, type Row } from '../bulk/input.js';
import { identityTag, readResume, rowKey, type ResumeIndex } from '../bulk/resume.js';
import { runBulk, type BulkSummary, type Result } from '../bulk/run.js';
import { escapeText } from '../io/escape.js';
import { Printer } from '../io/output.js';
import { progressBar } from '../io/progress.js';
import { ExitCode, PayError, UsageError } from '../lib/errors.js';
import type { Factory } from '../cmdutil/factory.js';
import { checkInt } from '../shared/validate.js';
import { currencyExponent } from '../shared/iso.js';
import { fromMinor, toMinor } from '../shared/money.js';
import { checkConstraints } from './constraints.js';
import { clientNeeds, confirmLiveRun, describeBody, quoteLine } from './steps.js';
import { needsConfirmation } from '../shared/confirm.js';
import type { VerbContext } from '../cmdutil/spec.js';
import { checkDataSize } from './data.js';
import { buildBody, fillBody, fillPath, loadTablesFor, requireFields } from './values.js';
import { asText } from '../lib/text.js';

export async function runBulkVerb(f: Factory, ctx: VerbContext): Promise<void> {
  const { verb, group, opts } = ctx;
  const file = String(opts.fromFile);
  const problem = checkInt(1, 256)(asText(opts.concurrency ?? 8));
  if (problem) throw new UsageError(`--concurrency ${problem}`);
  // A dry run prints the rows' requests in the file's order: one at a time.
  const dryRun = f.dryRun !== undefined;
  const concurrency = dryRun ? 1 : Number(opts.concurrency ?? 8);
  if (opts.data !== undefined) throw new UsageError('--from-file and --data cannot be used together: put shared fields in flags');
  if (opts.idempotencyKey !== undefined)
    throw new UsageError('--from-file derives one Idempotency-Key per row; --idempotency-key cannot be used with it');
  if (opts.batchId !== undefined && !/^[\x21-\x7e]{1,100}$/.test(asText(opts.batchId)))
    throw new UsageError('--batch-id must be 1-100 printable characters');
  const s = f.settings();
  const done = typeof opts.resume === 'string' ? await readResume(opts.resume) : undefined;
  const format = file === '-' ? undefined : formatFor(file);
  const name = file === '-' ? 'standard input' : file;
  // A file with a key __proto__, constructor or prototype, or a bad CSV header, is refused before any row is sent.
  await checkInput(file, format, name);
  const client = await f.client(clientNeeds(ctx));
  const identity = [
    s.tenant.value ?? '',
    s.mode.value,
    verb.operationId,
    asText(opts.batchId ?? (file === '-' ? 'stdin' : basename(file))),
  ].join('|');
  const flagOpts = { ...opts, fromFile: undefined };
  // Per row, the flags with the row as --data. A prototype instead of a spread of every option
  // per row, and a JSON row's own text instead of re-serialising it (both showed in profiles).
  const rowOpts = (data: string): Record<string, unknown> => Object.assign(Object.create(flagOpts) as Record<string, unknown>, { data });

  if (done) checkResume(f, String(opts.resume), done, identity);

  // Rows may carry a state: checked against the ISO 3166-2 table.
  await loadTablesFor(verb);
  const toBody = (value: Record<string, unknown>, row: Row): Promise<Record<string, unknown>> | Record<string, unknown> => {
    const finish = (body: Record<string, unknown>) => {
      requireFields(verb, body);
      checkConstraints(verb, body, 'body');
      return body;
    };
    // The row went in as --data; its errors name the row's fields, not --data. The positional, like
    // the flags, wins over the row's field (fx trade <quote-id>: every row trades that quote), as a
    // positional that fills the path sends every row there.
    const rename = (err: unknown): never => {
      if (err instanceof UsageError) throw new UsageError(err.message.replace(/^--data:\s*/, ''));
      throw err;
    };
    if (row.json) {
      // A JSON row is its own --data text, already parsed into `value` (used only here): what
      // buildBody would do without reading and parsing the text again, and without awaiting.
      try {
        checkDataSize(row.text);
        return finish(fillBody(verb, rowOpts(row.text), value, ctx.argValue));
      } catch (err) {
        return rename(err);
      }
    }
    return buildBody(f, verb, rowOpts(JSON.stringify(value)), ctx.argValue).then(finish, rename);
  };
  // Live mode, a verb that moves money or destroys (src/shared/confirm.ts): one question for the
  // run, made from every row's body, read and built before it; the run then sends those bodies.
  const planned =
    needsConfirmation({ method: verb.method, operationId: verb.operationId }, s.mode.value) && !dryRun && opts.yes !== true
      ? await confirmRows(f, ctx, file, { format, name, toBody, identity, ...(done ? { done } : {}) })
      : undefined;
  const progress = progressBar(f.io, `${group.name} ${verb.name}`);
  if (planned) progress.total(planned.rows.length);
  else if (f.io.stderrIsTTY) void countRows(file, format).then((n) => n !== undefined && progress.total(n));
  // The argument fills the path (kyc verify <customer-id>): every row goes to the same one. Checked
  // before the input is opened, so a bad argument is its one-line error, not a stream left unread.
  const path = fillPath(verb, ctx.argValue, opts);
  const input = planned ? undefined : openInput(file, f.io.stdin);
  // Each result line as the output flags say: JSON (escaped on a terminal), or --jq's output for it.
  // A filter that fails on one result says so for its line and the run goes on (exit 1 at the end).
  const printer = new Printer(f.io, ctx.output, []);
  let jqFailed: PayError | undefined;
  let replayedId: string | undefined;
  const line = (r: Result): string => {
    if (r.status === 'replayed' && typeof r.id === 'string') replayedId ??= r.id;
    try {
      return printer.lineText(r);
    } catch (err) {
      if (!(err instanceof PayError)) throw err;
      jqFailed ??= err;
      f.io.err(`line ${r.line}: ${escapeText(err.message)}\n`);
      return '';
    }
  };
  const signals = onSignals(f, progress, graceMs(f.env));
  const sm = await runBulk({
    client,
    path,
    expect: verb.creates ? { prefix: verb.creates } : 'resource',
    rows: planned ? rowsOf(planned.rows) : readRows(input!, format, name),
    toBody: planned ? planned.bodyOf : toBody,
    identity,
    concurrency,
    failFast: Boolean(opts.failFast),
    ...(done ? { resume: done } : {}),
    out: f.io.stdout,
    progress,
    stop: signals.stop,
    abandon: signals.abandon,
    graceMs: signals.graceMs,
    closeInput: () => void input?.destroy(),
    line,
    ...(dryRun ? { dryRun: { err: (t: string) => f.io.err(t) } } : {}),
  }).finally(() => signals.off());
  // Rows given up on are still in flight (their sockets, their retry timers): nothing else may
  // keep pay from exiting once the error below is printed (the entry ends the process then).
  const exitNow = sm.interrupted > 0;
  const rate = sm.rows / Math.max(0.001, sm.ms / 1000);
  if (dryRun) {
    f.io.err(
      `${group.name} ${verb.name}: ${rowsText(sm.rows)}: ${sm.shown} ${sm.shown === 1 ? 'request' : 'requests'} shown, ${sm.skipped} skipped, ${sm.failed} failed; dry run: nothing was sent\n`,
    );
    if (sm.failed > 0)
      throw new PayError(`${sm.failed} of ${rowsText(sm.rows)} failed`, ExitCode.ERROR, 'bulk_failed', {
        hint: 'fix the rows named above (line N: …); the dry run sent nothing',
      });
    return;
  }
  f.io.err(
    `${group.name} ${verb.name}: ${rowsText(sm.rows)}: ${sm.created} created, ${sm.replayed} replayed, ${sm.skipped} skipped, ${sm.failed} failed${sm.interrupted ? `, ${sm.interrupted} interrupted` : ''}${sm.unwritten ? ` (${sm.unwritten === 1 ? '1 result' : `${sm.unwritten} results`} not written: stdout was closed)` : ''} in ${(sm.ms / 1000).toFixed(1)} s (${rate.toFixed(0)}/s)\n`,
  );
  if (sm.replayed > 0) {
    // The command that shows such an object (the replay note's rule 1), with <id> for the row's id.
    const { getById } = await import('../cmdutil/replay.js');
    const see = replayedId === undefined ? undefined : getById(replayedId, await f.groups())?.replace(replayedId, '<id>');
    f.io.err(
      `note: ${sm.replayed === 1 ? '1 row was a replay' : `${sm.replayed} rows were replays`} ("replayed", with its idempotency key): made before this run, the service answered with what it stored for the first request with that key; the object may have changed since${see ? `: see it now with ${see}` : ''}${sm.replayedOnRetry > 0 ? `; ${sm.replayedOnRetry === 1 ? '1 came back on a retry' : `${sm.replayedOnRetry} came back on a retry`}: this run's own first attempt may have made ${sm.replayedOnRetry === 1 ? 'it' : 'them'} (pay could not tell)` : ''}\n`,
    );
  }
  const again = resumeAdvice(f);
  if (sm.stopped === 'signal') {
    throw new PayError(
      `interrupted: no row was started after the signal${sm.interrupted ? `; ${sm.interrupted === 1 ? '1 row in flight was' : `${sm.interrupted} rows in flight were`} given up on and written as "interrupted" with ${sm.interrupted === 1 ? 'its' : 'their'} key` : ''}`,
      ExitCode.CANCELLED,
      'cancelled',
      {
        hint: `to finish, run the same command with ${again}: done rows are skipped, interrupted ones sent again with their key (replayed if they went through), the rest sent`,
        exitNow,
      },
    );
  }
  if (sm.stopped === 'stdout') {
    throw new PayError(
      `stdout was closed: ${sm.unwritten === 1 ? '1 result' : `${sm.unwritten} results`} could not be written, and no row was started after that`,
      ExitCode.ERROR,
      'stdout_closed',
      {
        hint: `keep every result: run the same command with --resume <the results that were kept> into a file; the rows whose results are missing are sent again with their key (replayed, not duplicated)`,
        exitNow,
      },
    );
  }
  if (sm.failed > 0) {
    throw new PayError(`${sm.failed} of ${rowsText(sm.rows)} failed`, ExitCode.ERROR, 'bulk_failed', {
      hint: failureHint(sm, again),
      exitNow,
    });
  }
  if (jqFailed) throw jqFailed;
}

/** "1 row", "2 rows": counts agree in number. */
function rowsText(n: number): string {
  return n === 1 ? '1 row' : `${n} rows`;
}

/** One hint for the failures: what will actually get each kind of row through. */
function failureHint(s: BulkSummary, again: string): string {
  const rows = (n: number) => (n === 1 ? '1 row was' : `${n} rows were`);
  const parts: string[] = [];
  if (s.refused > 0) {
    const replays =
      s.replayedRefusals > 0
        ? ` (${s.replayedRefusals === 1 ? 'one was a replay' : `${s.replayedRefusals} were replays`} of an earlier refusal: the same key gets the same answer, so the same command again would fail the same way)`
        : '';
    parts.push(
      `${rows(s.refused)} refused and nothing was created${replays}: fix what ${s.refused === 1 ? 'it needs' : 'they need'} (the row, or e.g. top up the account), then run the same command with ${again}: refused rows are sent with a new key`,
    );
  }
  if (s.unknown > 0) {
    parts.push(
      `${s.unknown === 1 ? '1 row' : `${s.unknown} rows`} failed in a way that may pass (network, 5xx, conflict): run the same command with ${again}; ${s.unknown === 1 ? 'it is sent with the same key (replayed if it did go through)' : 'they are sent with the same key (replayed if they did go through)'}`,
    );
  }
  if (s.invalid > 0)
    parts.push(
      `${s.invalid === 1 ? '1 row is invalid (its result names the field): fix it' : `${s.invalid} rows are invalid (each result names the field): fix them`}; a fixed row is sent as a new row`,
    );
  return parts.join('; ');
}

/**
 * `--resume <file>` as the user will type it: the file stdout writes to when that is a regular
 * file (Linux names it in /proc), with the advice to write the next results elsewhere or append.
 */
function resumeAdvice(f: Factory): string {
  const generic = "--resume <this run's results>, writing to a new file or appending (>>)";
  if (f.io.stdout !== process.stdout) return generic;
  try {
    if (!fstatSync(1).isFile()) return generic;
    const path = readlinkSync('/proc/self/fd/1');
    if (!isAbsolute(path)) return generic;
    const rel = relative(process.cwd(), path);
    const shown = rel && !rel.startsWith('..') && !/[\s'"$`\\]/.test(rel) ? rel : path;
    return `--resume ${shown} >> ${shown} (appending: > would empty it before pay reads it)`;
  } catch {
    return generic;
  }
}

/**
 * Whether stdout was opened for appending (`>>`): then an empty --resume file that is stdout is a
 * first run (the shell created it), not one that `>` emptied. Linux says so in /proc; elsewhere
 * the answer is no (the refusal stays, with its hint).
 */
function stdoutAppends(): boolean {
  try {
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/fdinfo/1', 'utf8'))?.[1];
    return flags !== undefined && (parseInt(flags, 8) & constants.O_APPEND) !== 0;
  } catch {
    return false;
  }
}

/**
 * Refuses a --resume file that cannot help: the one stdout writes to, emptied by the shell's `>`
 * before pay could read it; or one whose rows were sent as another input (another file name,
 * --batch-id, command, tenant or mode), whose keys match none of this run's rows, so every row
 * would be sent again under a new key.
 */
function checkResume(f: Factory, path: string, done: ResumeIndex, identity: string): void {
  if (f.io.stdout === process.stdout) {
    try {
      const a = statSync(path);
      const b = fstatSync(1);
      if (a.size === 0 && a.dev === b.dev && a.ino === b.ino && !stdoutAppends()) {
        throw new UsageError(`--resume ${path} is the file stdout writes to, emptied by the shell's > before pay could read it`, {
          hint: 'write the results to another file, or append to it with >>',
        });
      }
    } catch (err) {
      if (err instanceof UsageError) throw err;
    }
  }
  if (done.size > 0 && !done.tags.has(identityTag(identity))) {
    throw new UsageError(
      `--resume ${path}: its rows were sent as another input (another file name, --batch-id, command, tenant or mode), so none of them can match a row of this one`,
      {
        hint: 'if the input file was renamed, pass its first name as --batch-id <name>',
      },
    );
  }
}

/** PAY_BULK_GRACE_MS: how long the rows in flight get to finish after SIGINT/SIGTERM (default 5000). */
function graceMs(env: NodeJS.ProcessEnv): number {
  const v = env.PAY_BULK_GRACE_MS;
  if (v === undefined || v === '') return 5000;
  if (!/^\d{1,7}$/.test(v)) throw new UsageError('PAY_BULK_GRACE_MS must be a whole number of milliseconds (0-9999999)');
  return Number(v);
}

/**
 * SIGINT/SIGTERM/SIGHUP (STOP_SIGNALS) during the run: the first stops it (no new row) and says so; the next gives up on
 * the rows in flight at once. Handlers are on only while rows are being sent. Other listeners are
 * set aside meanwhile and put back after: an exit hook a library installs (signal-exit, when-exit)
 * re-raises the signal (a second signal, as if the user had pressed Ctrl-C twice) and, once ours is
 * gone, would end pay by the signal instead of exit 130.
 */
function onSignals(
  f: Factory,
  progress: { done(): void },
  grace: number,
): { stop: AbortSignal; abandon: AbortSignal; graceMs: number; off(): void } {
  const stop = new AbortController();
  const abandon = new AbortController();
  const handler = (sig: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      progress.done();
      f.io.err(
        `\n${sig}: starting no new row; waiting up to ${(grace / 1000).toFixed(1)} s for the rows in flight (again to stop waiting)\n`,
      );
      stop.abort();
    } else abandon.abort();
  };
  const putBack = f.signals.alone(handler);
  return {
    stop: stop.signal,
    abandon: abandon.signal,
    graceMs: grace,
    off: putBack,
  };
}

async function* rowsOf(rows: readonly Row[]): AsyncGenerator<Row> {
  yield* rows;
}

interface PlannedRows {
  rows: Row[];
  bodyOf: (value: Record<string, unknown>, row: Row) => Record<string, unknown>;
}

/** The most rows or accounts the question names one by one; the rest are counted. */
const NAMED = 10;

/**
 * The live question of a --from-file run: every row read and built first (the file is read once,
 * here), then one question naming how many rows will be sent, the total per currency, and the
 * accounts and other objects they touch; the run sends the bodies built here (`bodyOf`), so what
 * was asked about is what is sent. Off a terminal: exit 2 naming --yes, nothing read or sent.
 * Standard input cannot both hold the rows and answer: --yes.
 */
async function confirmRows(
  f: Factory,
  ctx: VerbContext,
  file: string,
  o: {
    format: InputFormat | undefined;
    name: string;
    toBody: (value: Record<string, unknown>, row: Row) => Promise<Record<string, unknown>> | Record<string, unknown>;
    identity: string;
    done?: ResumeIndex;
  },
): Promise<PlannedRows> {
  const what = `"pay ${ctx.group.name} ${ctx.verb.name}${ctx.argValue ? ` ${ctx.argValue}` : ''} --from-file ${file}"`;
  if (!f.canPrompt) await confirmLiveRun(f, what, false);
  if (file === '-')
    throw new UsageError(`refusing to run ${what} in live mode without --yes: standard input holds the rows, so it cannot answer`, {
      hint: 'nothing was sent; pass --yes, or give the rows as a file',
    });
  const rows: Row[] = [];
  const built = new Map<Row, { body?: Record<string, unknown>; error?: UsageError }>();
  const tag = identityTag(o.identity);
  const totals = new Map<string, bigint>();
  const odd: string[] = [];
  const touched = new Map<string, number>();
  let sending = 0;
  let invalid = 0;
  let skipped = 0;
  for await (const row of readRows(openInput(file, f.io.stdin), o.format, o.name)) {
    rows.push(row);
    if (row.error || !row.value) {
      invalid++;
      continue;
    }
    if (o.done?.get(rowKey(o.identity, row.text, tag))?.done) {
      skipped++;
      continue;
    }
    try {
      const body = await o.toBody(row.value, row);
      built.set(row, { body });
      sending++;
      const currency = typeof body.currency === 'string' ? body.currency : undefined;
      const amount = typeof body.amount === 'string' || typeof body.amount === 'number' ? String(body.amount) : undefined;
      const e = currency === undefined ? undefined : currencyExponent(currency);
      if (amount !== undefined && currency !== undefined && e !== undefined && /^[0-9]{1,15}(\.[0-9]+)?$/.test(amount)) {
        totals.set(currency, (totals.get(currency) ?? 0n) + toMinor(amount, e));
      } else if (amount !== undefined || currency !== undefined) {
        odd.push(`line ${row.line}: ${describeBody(body)}`);
      }
      for (const k of Object.keys(body).filter((k) => k.endsWith('_id') && typeof body[k] === 'string'))
        touched.set(body[k] as string, (touched.get(body[k] as string) ?? 0) + 1);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      built.set(row, { error: err });
      invalid++;
    }
  }
  const total = [...totals].map(([c, m]) => `${fromMinor(m, currencyExponent(c)!)} ${c}`);
  const lines = [
    `${sending === 1 ? '1 row' : `${sending} rows`} to send${total.length ? `: ${total.join(', ')} in all` : ''}` +
      `${invalid ? `; ${invalid} invalid (reported, not sent)` : ''}${skipped ? `; ${skipped} done before (--resume: skipped)` : ''}`,
    ...odd.slice(0, NAMED),
    ...(odd.length > NAMED ? [`and ${odd.length - NAMED} more rows whose amount is not added up`] : []),
  ];
  const ids = [...touched];
  if (ids.length)
    lines.push(
      `existing objects they name: ${ids
        .slice(0, NAMED)
        .map(([id, n]) => `${id}${n > 1 ? ` (${n} rows)` : ''}`)
        .join(', ')}${ids.length > NAMED ? `, and ${ids.length - NAMED} more` : ''}`,
    );
  // An FX trade row's amounts are its quote's: the first quotes read (GETs) and named, the rest said so.
  if (ctx.verb.operationId === 'createFxTrade' && sending > 0) {
    const quotes = [...new Set([...built.values()].map((b) => b.body?.quote_id).filter((q): q is string => typeof q === 'string'))];
    const client = await f.client(clientNeeds(ctx));
    for (const q of quotes.slice(0, NAMED))
      lines.push(/^fxq_[A-Za-z0-9]+$/.test(q) ? await quoteLine(client, q) : `the amounts are quote ${q}'s (not read)`);
    lines.push(`each row's amounts are its quote's${quotes.length > NAMED ? `; ${quotes.length - NAMED} more quotes not read` : ''}`);
  }
  await confirmLiveRun(
    f,
    `${what}: send ${sending === 1 ? '1 row' : `${sending} rows`}${total.length ? `, ${total.join(', ')}` : ''}`,
    false,
    lines,
  );
  return {
    rows,
    bodyOf: (_value, row) => {
      const b = built.get(row);
      if (b?.error) throw b.error;
      if (!b?.body) throw new Error(`internal: line ${row.line} was not built before the question`);
      return b.body;
    },
  };
}
