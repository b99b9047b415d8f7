// Bulk create: rows streamed from the input, N requests in flight, one NDJSON result per row on
// stdout as it completes, a progress bar on a terminal, a summary on stderr. Each row's
// Idempotency-Key comes from the input's identity and the row's text, so a re-run replays the
// rows that were created instead of duplicating them; --resume skips them without a request.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { ApiClient } from '../api/client.js';
import type { Progress } from '../io/progress.js';
import { PayError, UsageError } from '../lib/errors.js';
import { readProblem } from '../lib/read-limited.js';
import { linesOf, type Row } from './input.js';

export interface BulkOptions {
  client: ApiClient;
  path: string;
  rows: AsyncIterable<Row>;
  /** Row → request body, or throws a UsageError naming the field at fault. */
  toBody: (value: Record<string, unknown>, row: Row) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Input identity (e.g. tenant, mode, file name); part of every key. */
  identity: string;
  concurrency: number;
  failFast: boolean;
  /** Lines a previous run created (from --resume). */
  done?: LineSet;
  out: Writable;
  progress: Progress;
}

export interface BulkSummary {
  rows: number;
  created: number;
  replayed: number;
  failed: number;
  skipped: number;
  ms: number;
}

interface Result {
  line: number;
  id?: string | null;
  status: 'created' | 'replayed' | 'failed' | 'skipped';
  error?: string;
  idempotency_key?: string;
}

export function rowKey(identity: string, text: string): string {
  return `bulk_${createHash('sha256').update(`${identity}\n${text}`).digest('hex').slice(0, 40)}`;
}

export async function runBulk(o: BulkOptions): Promise<BulkSummary> {
  const started = Date.now();
  const s: BulkSummary = { rows: 0, created: 0, replayed: 0, failed: 0, skipped: 0, ms: 0 };
  let stop = false;
  let pending = '';
  let flushing: Promise<void> | undefined;
  const emit = (r: Result) => {
    s[r.status]++;
    o.progress.tick();
    pending += `${JSON.stringify(r)}\n`;
    if (pending.length > 16_384) void flush();
  };
  const flush = async () => {
    if (!pending) return;
    const chunk = pending;
    pending = '';
    if (!o.out.write(chunk)) {
      flushing ??= new Promise<void>((r) => o.out.once('drain', () => ((flushing = undefined), r())));
    }
  };

  const handle = async (row: Row): Promise<void> => {
    if (row.error || !row.value) return emit({ line: row.line, status: 'failed', error: row.error ?? 'empty row' });
    const key = rowKey(o.identity, row.text);
    let body: Record<string, unknown>;
    try {
      body = await o.toBody(row.value, row);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      return emit({ line: row.line, status: 'failed', error: err.message });
    }
    try {
      const res = await o.client.request<{ id?: string }>({ method: 'POST', path: o.path, body, idempotencyKey: key });
      emit({ line: row.line, id: res.body?.id ?? null, status: res.replayed ? 'replayed' : 'created' });
    } catch (err) {
      if (!(err instanceof PayError)) throw err;
      emit({ line: row.line, status: 'failed', error: err.message, idempotency_key: key });
    }
  };

  // A counter and one waiter, not Promise.race over the in-flight set: race attaches a reaction
  // to every pending request per row (O(concurrency) garbage per row at 16-256 in flight).
  let active = 0;
  let fatal: { err: unknown } | undefined;
  let wake: (() => void) | undefined;
  const settled = () => {
    active--;
    const w = wake;
    wake = undefined;
    w?.();
  };
  const slot = () => new Promise<void>((r) => (wake = r));
  // An input that turns bad half-way (a row too long, a JSON array cut short) stops reading, but
  // the rows already sent finish and their results are written before the error is reported.
  let inputError: { err: unknown } | undefined;
  try {
    await feed();
  } catch (err) {
    inputError = { err };
  }
  while (active > 0) await slot();
  await flush();
  if (flushing) await flushing;
  if (fatal) throw fatal.err;
  if (inputError) throw inputError.err;
  o.progress.done();
  s.ms = Date.now() - started;
  return s;

  async function feed(): Promise<void> {
    for await (const row of o.rows) {
      if (stop || fatal) break;
      s.rows++;
      if (o.done?.has(row.line)) {
        emit({ line: row.line, status: 'skipped' });
        continue;
      }
      active++;
      handle(row)
        .then(
          () => {
            if (o.failFast && s.failed > 0) stop = true;
          },
          (err: unknown) => {
            fatal ??= { err };
          },
        )
        .then(settled);
      while (active >= o.concurrency) await slot();
      if (flushing) await flushing;
    }
  }
}

/** A set of line numbers in a bitmap: a million lines cost 125 kB. */
export class LineSet {
  private bits = new Uint8Array(1024);
  add(n: number): void {
    const i = n >> 3;
    if (i >= this.bits.length) {
      const next = new Uint8Array(Math.max(this.bits.length * 2, i + 1));
      next.set(this.bits);
      this.bits = next;
    }
    this.bits[i]! |= 1 << (n & 7);
  }
  has(n: number): boolean {
    const i = n >> 3;
    return i < this.bits.length && (this.bits[i]! & (1 << (n & 7))) !== 0;
  }
}

/** Lines a previous run's results file says were created or replayed. */
export async function readResume(path: string): Promise<LineSet> {
  const done = new LineSet();
  const stream = createReadStream(path, { encoding: 'utf8' });
  try {
    // One result is short: a line past 64 KiB means the wrong file.
    const tooLong = () => new UsageError(`--resume: ${path} is not a results file of pay (a line longer than 64 KiB)`);
    for await (const text of linesOf(stream, 65_536, tooLong)) {
      if (!text.trim()) continue;
      let r: Result;
      try {
        r = JSON.parse(text) as Result;
      } catch {
        continue; // a torn last line from a killed run
      }
      if (Number.isInteger(r.line) && (r.status === 'created' || r.status === 'replayed' || r.status === 'skipped')) done.add(r.line);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--resume: cannot read ${path} (${readProblem(err)})`);
  } finally {
    stream.destroy();
  }
  return done;
}
