// Bulk create: rows streamed from the input, N requests in flight, one NDJSON result per row on
// stdout as it completes, a progress bar on a terminal, a summary on stderr. Each row's
// Idempotency-Key comes from the input's identity and the row's text (resume.ts), so a re-run
// replays the rows that were created instead of duplicating them; --resume skips them without a
// request and sends a refused row again under a new key. A stop (a signal: `stop`) starts no new
// row and gives the rows in flight `graceMs` to finish, then writes them as `interrupted` with
// their key; a closed stdout starts no new row either: a row is sent only once every result
// before it has been written.
import type { Writable } from 'node:stream';
import type { ApiClient, Expect } from '../api/client.js';
import type { Progress } from '../io/progress.js';
import { escapeText } from '../io/escape.js';
import { ApiError, DryRunStop, PayError, UsageError } from '../lib/errors.js';
import { streamingHeap } from '../lib/v8-flags.js';
import type { Row } from './input.js';
import { attemptKey, identityTag, rowKey, type ResumeIndex } from './resume.js';

export interface BulkOptions {
  client: ApiClient;
  path: string;
  /** What each row's 2xx must be (a create: a new object of its kind); default an object with an id. */
  expect?: Expect;
  rows: AsyncIterable<Row>;
  /** Row → request body, or throws a UsageError naming the field at fault. */
  toBody: (value: Record<string, unknown>, row: Row) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Input identity (e.g. tenant, mode, file name); part of every key. */
  identity: string;
  concurrency: number;
  failFast: boolean;
  /** What a previous run's results say of each row (--resume). */
  resume?: ResumeIndex;
  out: Writable;
  progress: Progress;
  /** Aborted: start no new row; the rows in flight have `graceMs` to finish. */
  stop?: AbortSignal;
  /** Aborted: stop waiting for the rows in flight now. */
  abandon?: AbortSignal;
  graceMs?: number;
  /** Called once when the run stops early: ends an input that may never end (stdin). */
  closeInput?: () => void;
  /**
   * A dry run: the client prints each row's request instead of sending it (and throws DryRunStop,
   * counted as `shown`); no result lines are written, a row that fails is told on stderr instead.
   */
  dryRun?: { err(text: string): void };
  /** A result's text on stdout (default: its JSON line): --jq's output for it, JSON escaped on a terminal. */
  line?: (result: Result) => string;
}

export interface BulkSummary {
  /** Rows read. */
  rows: number;
  /** Made by this run: answered fresh, or replayed on a retry whose first attempt made it (see `ours`). */
  created: number;
  /** Made before this run (an earlier run with the same rows, or another process with the same keys). */
  replayed: number;
  /** Of the replayed: answered on a retry, where pay could not prove its own first attempt made it. */
  replayedOnRetry: number;
  failed: number;
  skipped: number;
  /** In flight when the run stopped waiting: outcome unknown, written with their key. */
  interrupted: number;
  /** Of the failed: refused by the service (a 4xx that created nothing). */
  refused: number;
  /** Of the refused: a replay of an earlier refusal (the same key got the same answer). */
  replayedRefusals: number;
  /** Of the failed: outcome unknown (network, 5xx, 409): to retry with the same key. */
  unknown: number;
  /** Of the failed: refused by pay before sending (invalid JSON, a bad field). */
  invalid: number;
  /** Results that could not be written: stdout was closed. */
  unwritten: number;
  /** A dry run: rows whose request was printed instead of sent. */
  shown: number;
  /** Why the run stopped before the end of its input, if it did. */
  stopped?: 'signal' | 'stdout' | 'fail-fast';
  ms: number;
}

export interface Result {
  line: number;
  id?: string | null;
  status: 'created' | 'replayed' | 'failed' | 'skipped' | 'interrupted';
  error?: string;
  /** The API's error code. */
  code?: string;
  /** The service refused the row and created nothing: --resume sends it again with a new key. */
  refused?: true;
  /** This failure is the service's replay of an earlier answer to the same key. */
  replayed?: true;
  idempotency_key?: string;
  /** The attempt the key belongs to, when past the first. */
  attempt?: number;
}

/**
 * A 4xx that created nothing: sending the row again under the same key would only replay it.
 * Not 408/425/429 (retry as is), not 409 (in progress or a conflict whose outcome is not a
 * refusal of this row), not a key reused with another body.
 */
export function isRefusal(err: unknown): err is ApiError {
  if (!(err instanceof ApiError)) return false;
  const s = err.status;
  if (s < 400 || s >= 500 || s === 408 || s === 409 || s === 425 || s === 429) return false;
  return err.apiCode !== 'idempotency_key_reused' && err.apiCode !== 'idempotency_request_in_progress';
}

interface InFlight {
  line: number;
  key: string;
  attempt: number;
}

export async function runBulk(o: BulkOptions): Promise<BulkSummary> {
  streamingHeap();
  const started = Date.now();
  const s: BulkSummary = {
    rows: 0,
    created: 0,
    replayed: 0,
    replayedOnRetry: 0,
    failed: 0,
    skipped: 0,
    interrupted: 0,
    refused: 0,
    replayedRefusals: 0,
    unknown: 0,
    invalid: 0,
    unwritten: 0,
    shown: 0,
    ms: 0,
  };
  const tag = identityTag(o.identity);
  // The service's clock less ours, at least: the largest created_at − (when its answer arrived) of
  // the objects this run made (answered fresh). An object whose created_at is at or after (a row's
  // first send) + this offset was made after that send, so by this run (see `ours`).
  let offsetLow = -Infinity;
  // Rows replayed on a retry before any object of this run came back fresh wait for one, parked
  // (their slot given to the next row), until one comes or no row is left to bring it: without it,
  // whose object it is cannot be told. A parked row's result is written when it is decided.
  let sampleWaiters: Array<() => void> = [];
  let parked = 0;
  let feeding = true;
  const releaseSampleWaiters = () => {
    const all = sampleWaiters;
    sampleWaiters = [];
    for (const r of all) r();
  };

  // Output: results are appended to `pending` and written one write at a time; a write's
  // callback says whether it landed. A write that fails (EPIPE: the reader is gone) closes the
  // output: no row is started after that. `queued` and `landed` count result lines, so a row can
  // wait for the results before it (and only those) to be written.
  let pending = '';
  let pendingLines = 0;
  let writing = 0;
  let queued = 0;
  let landed = 0;
  let closed = false;
  let waiters: Array<{ at: number; r: () => void }> = [];
  // Stays on after the run: a closed stdout must not end the process (src/cli.ts) before the
  // summary and the exit code are out.
  o.out.on('error', () => closeOutput());
  const emit = (r: Result) => {
    s[r.status]++;
    o.progress.tick();
    if (o.dryRun) {
      if (r.status === 'failed') o.dryRun.err(`line ${r.line}: ${escapeText(r.error ?? 'failed')}\n`);
      return;
    }
    if (closed) {
      s.unwritten++;
      return;
    }
    pending += o.line ? o.line(r) : `${JSON.stringify(r)}\n`;
    pendingLines++;
    queued++;
    if (!writing) write();
  };
  const write = () => {
    const chunk = pending;
    writing = pendingLines;
    pending = '';
    pendingLines = 0;
    o.out.write(chunk, (err) => {
      const lines = writing;
      writing = 0;
      if (err || closed) {
        s.unwritten += lines;
        closeOutput();
        return;
      }
      landed += lines;
      if (waiters.length > 0) {
        const ready = waiters.filter((w) => w.at <= landed);
        waiters = waiters.filter((w) => w.at > landed);
        for (const w of ready) w.r();
      }
      if (pending) write();
    });
  };
  function closeOutput(): void {
    if (closed) return;
    closed = true;
    s.unwritten += pendingLines;
    pending = '';
    pendingLines = 0;
    const all = waiters;
    waiters = [];
    for (const w of all) w.r();
    halt('stdout');
  }
  /** Resolves once the first `at` results are written (or the output is closed). */
  const writtenUpTo = (at: number): Promise<void> =>
    closed || landed >= at ? Promise.resolve() : new Promise<void>((r) => waiters.push({ at, r }));

  // Rows in flight, by a sequence number: what an abandoned row is written with.
  const inFlight = new Map<number, InFlight>();
  let seq = 0;
  let abandoned = false;
  const finish = (id: number, r: Result) => {
    if (!inFlight.delete(id)) return; // written as interrupted already
    emit(r);
  };

  const handle = async (row: Row): Promise<void> => {
    if (row.error || !row.value) {
      s.invalid++;
      return emit({ line: row.line, status: 'failed', error: row.error ?? 'empty row' });
    }
    const base = rowKey(o.identity, row.text, tag);
    const before = o.resume?.get(base);
    if (before?.done)
      return emit({ line: row.line, status: 'skipped', idempotency_key: attemptKey(base, before.attempt), ...attemptOf(before.attempt) });
    const attempt = before?.attempt ?? 1;
    const key = attemptKey(base, attempt);
    let body: Record<string, unknown>;
    try {
      body = await o.toBody(row.value, row);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      s.invalid++;
      return emit({ line: row.line, status: 'failed', error: err.message });
    }
    // A row is sent only once every result before it is written: a closed stdout is known first.
    if (landed < queued) await writtenUpTo(queued);
    if (halted) {
      s.rows--; // read, never sent: no result, as for the rows after it
      return;
    }
    const id = seq++;
    inFlight.set(id, { line: row.line, key, attempt });
    try {
      const sentAt = Date.now();
      // Replays are expected here (a re-run): each is a "replayed" result, and the summary says what that means.
      const res = await o.client.request<{ id?: string; created_at?: unknown }>({
        method: 'POST',
        path: o.path,
        body,
        idempotencyKey: key,
        quietReplay: true,
        expect: o.expect ?? 'resource',
      });
      const createdAt = typeof res.body?.created_at === 'string' ? Date.parse(res.body.created_at) : NaN;
      if (!res.replayed && Number.isFinite(createdAt)) {
        offsetLow = Math.max(offsetLow, createdAt - Date.now());
        releaseSampleWaiters();
      }
      if (
        res.replayed &&
        res.attempts > 1 &&
        Number.isFinite(createdAt) &&
        offsetLow === -Infinity &&
        (feeding || active > 1) &&
        !abandoned
      ) {
        active--;
        parked++;
        poke();
        await new Promise<void>((r) => sampleWaiters.push(r));
        parked--;
        active++;
      }
      // A replay on a retry (the first attempt got no answer, a 5xx or "in progress") is this run's
      // own creation when the object was made after the first attempt was sent: its answer was lost.
      // A replay on the first attempt, or of an object older than this row's first send, was made before.
      const ours =
        res.replayed && res.attempts > 1 && Number.isFinite(createdAt) && offsetLow > -Infinity && createdAt >= sentAt + offsetLow;
      if (res.replayed && !ours && res.attempts > 1) s.replayedOnRetry++;
      finish(id, {
        line: row.line,
        id: res.body?.id ?? null,
        status: res.replayed && !ours ? 'replayed' : 'created',
        idempotency_key: key,
        ...attemptOf(attempt),
      });
    } catch (err) {
      if (err instanceof DryRunStop) {
        inFlight.delete(id);
        s.shown++;
        o.progress.tick();
        return;
      }
      if (!(err instanceof PayError)) {
        inFlight.delete(id);
        throw err;
      }
      if (!inFlight.has(id)) return;
      const refused = isRefusal(err);
      const replayed = err instanceof ApiError && err.details.replayed === true;
      s[refused ? 'refused' : 'unknown']++;
      if (refused && replayed) s.replayedRefusals++;
      finish(id, {
        line: row.line,
        status: 'failed',
        error: err.message,
        ...(err instanceof ApiError && err.apiCode ? { code: err.apiCode } : {}),
        ...(refused ? { refused: true as const } : {}),
        ...(replayed ? { replayed: true as const } : {}),
        idempotency_key: key,
        ...attemptOf(attempt),
      });
    }
  };

  // A counter and one waiter, not Promise.race over the in-flight set: race attaches a reaction
  // to every pending request per row (O(concurrency) garbage per row at 16-256 in flight).
  let active = 0;
  let fatal: { err: unknown } | undefined;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const settled = () => {
    active--;
    // Only rows waiting for a fresh object are left in flight: none will come.
    if (!feeding && active === 0) releaseSampleWaiters();
    poke();
  };
  const slot = () => new Promise<void>((r) => (wake = r));

  // Stopping: no new row; a signal also starts the grace for the rows in flight.
  let halted = false;
  let grace: NodeJS.Timeout | undefined;
  function halt(why: NonNullable<BulkSummary['stopped']>): void {
    if (halted) return;
    halted = true;
    s.stopped = why;
    o.closeInput?.();
    poke();
  }
  const abandon = () => {
    if (abandoned) return;
    abandoned = true;
    releaseSampleWaiters();
    poke();
  };
  const onStop = () => {
    halt('signal');
    grace ??= setTimeout(abandon, o.graceMs ?? 5000);
  };
  if (o.stop?.aborted) onStop();
  else o.stop?.addEventListener('abort', onStop, { once: true });
  if (o.abandon?.aborted) abandon();
  else o.abandon?.addEventListener('abort', abandon, { once: true });

  // An input that turns bad half-way (a row too long, a JSON array cut short) stops reading, but
  // the rows already sent finish and their results are written before the error is reported.
  let inputError: { err: unknown } | undefined;
  try {
    try {
      await feed();
    } catch (err) {
      // Ending the input to stop (closeInput) may fail its read: that is no input error.
      if (!halted) inputError = { err };
    } finally {
      feeding = false;
      if (active === 0) releaseSampleWaiters();
    }
    while ((active > 0 && !abandoned) || parked > 0) await slot();
    // Past the grace: the rows still in flight are written with their key, as interrupted.
    for (const r of inFlight.values()) emit({ line: r.line, status: 'interrupted', idempotency_key: r.key, ...attemptOf(r.attempt) });
    inFlight.clear();
    await writtenUpTo(queued);
  } finally {
    if (grace) clearTimeout(grace);
    o.stop?.removeEventListener('abort', onStop);
    o.abandon?.removeEventListener('abort', abandon);
  }
  if (fatal) throw fatal.err;
  if (inputError) throw inputError.err;
  o.progress.done();
  s.ms = Date.now() - started;
  return s;

  async function feed(): Promise<void> {
    for await (const row of o.rows) {
      if (halted || fatal) break;
      s.rows++;
      active++;
      void handle(row)
        .then(
          () => {
            if (o.failFast && s.failed > 0) halt('fail-fast');
          },
          (err: unknown) => {
            fatal ??= { err };
          },
        )
        .then(settled);
      while (active >= o.concurrency && !halted) await slot();
      // Results waiting on a slow reader: wait for them rather than pile them up.
      if (pending.length > 65_536) await writtenUpTo(queued);
      if (halted) break;
    }
  }
}

function attemptOf(attempt: number): { attempt?: number } {
  return attempt > 1 ? { attempt } : {};
}
