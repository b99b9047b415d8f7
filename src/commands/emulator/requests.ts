// `pay emulator requests [--follow] [--status 4xx] [--path …] [--limit n]`: the emulator's request
// log (GET /__emulator/requests; the emulator filters, so --limit counts matching requests), printed
// through the shared Printer. --follow polls with the sequence number it read up to (`after`): the
// emulator answers only requests already answered and never past one still in flight, so nothing is
// missed or printed twice; the requests that left the log (it keeps 1000) before a poll read them are
// counted in a warning. It stops on SIGINT or SIGTERM with exit 0.
import type { EmulatorAdmin } from '../../api/emulator-admin.js';
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import { escapeText } from '../../io/escape.js';
import { getPath, pickPaths } from '../../io/fields.js';
import type { TableColumn } from '../../io/output.js';
import type { OutputSettings } from '../../io/output-options.js';
import { UsageError } from '../../lib/errors.js';
import { pollUntil } from '../../lib/poll.js';
import { PATH_FILTER_FORMS, pathMatcher, STATUS_FILTER_FORMS, statusMatcher } from '../../shared/request-filter.js';
import { checkInt } from '../../shared/validate.js';

/** Fitted to the terminal: the method, path and status stay longest; the request id is never cut. */
export const COLUMNS: TableColumn[] = [
  { header: 'RECEIVED', path: 'received_at', kind: 'time', priority: 6 },
  { header: 'METHOD', path: 'method', priority: 1 },
  // A path holds ids to copy: shown whole, never cut.
  { header: 'PATH', path: 'path', kind: 'id', priority: 2 },
  { header: 'STATUS', path: 'status', kind: 'number', priority: 3 },
  { header: 'MS', path: 'duration_ms', kind: 'number', priority: 5 },
  { header: 'REQUEST ID', path: 'request_id', kind: 'id', priority: 4 },
  { header: 'IDEMPOTENCY KEY', path: 'idempotency_key', priority: 7 },
  { header: 'REPLAYED', path: 'replayed', priority: 8 },
];

/** How long --follow waits between polls that found nothing new. */
export const FOLLOW_POLL_MS = 250;

interface Page {
  data: Array<Record<string, unknown>>;
  next_after: number;
  dropped: number;
  /** When the emulator started: another value means it restarted, and its numbers started again. */
  started_at?: string;
}

interface Flags {
  follow?: boolean;
  status?: string;
  path?: string;
  limit?: string;
}

/** The filters, checked before anything is sent (exit 2 naming the valid forms). */
export function filters(o: Flags): { status?: string; path?: string } {
  const q: { status?: string; path?: string } = {};
  if (o.status !== undefined) {
    if (!statusMatcher(o.status)) throw new UsageError(`invalid --status "${escapeText(o.status.slice(0, 40))}" (${STATUS_FILTER_FORMS})`);
    q.status = o.status.trim().toLowerCase();
  }
  if (o.path !== undefined) {
    if (!pathMatcher(o.path)) throw new UsageError(`invalid --path "${escapeText(o.path.slice(0, 80))}": use ${PATH_FILTER_FORMS}`);
    q.path = o.path;
  }
  return q;
}

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const o = ctx.opts as Flags;
  const q = filters(o);
  if (o.follow && o.limit !== undefined)
    throw new UsageError('--limit lists the newest requests; --follow prints new ones as they come: give one of them');
  let limit = 20;
  if (o.limit !== undefined) {
    const problem = checkInt(1, 1000)(o.limit);
    if (problem) throw new UsageError(`--limit ${problem}`);
    limit = Number(o.limit);
  }
  const output = ctx.output!;
  const admin = await f.emulator();
  await admin.detect();
  const { Printer } = await import('../../io/output.js');
  if (!o.follow) {
    const page = await admin.get<Page>('requests', { ...q, limit });
    await new Printer(f.io, output, COLUMNS).printList(page.data, 'requests');
    return;
  }
  await follow(f, admin, q, output, Printer);
}

async function follow(
  f: Factory,
  admin: EmulatorAdmin,
  q: { status?: string; path?: string },
  output: OutputSettings,
  Printer: typeof import('../../io/output.js').Printer,
): Promise<void> {
  const stopping = new AbortController();
  const stop = (): void => stopping.abort();
  f.signals.on('SIGINT', stop);
  f.signals.on('SIGTERM', stop);
  try {
    // Where the log stands now: only requests answered after this are printed.
    const start = await admin.get<Page>('requests', { limit: 0 });
    let after = start.next_after;
    let run = start.started_at;
    f.io.err(`Following the requests to the emulator at ${admin.origin} (Ctrl-C to stop)\n`);
    /** One read of the log from `after`: the new requests, or undefined when there are none yet. */
    const read = async (): Promise<Page | undefined> => {
      let page = await admin.get<Page>('requests', { ...q, after, limit: 1000 });
      if (page.started_at !== run) {
        // A new run of the emulator (same address): its log is read from its start.
        f.io.err(`note: the emulator at ${admin.origin} restarted; following its new log\n`);
        run = page.started_at;
        page = await admin.get<Page>('requests', { ...q, after: 0, limit: 1000 });
      }
      if (page.dropped > 0)
        f.io.err(`warning: ${page.dropped} requests left the emulator's log (it keeps the last 1000) before they could be shown\n`);
      // The emulator says where to read on (never behind what was printed, within one run).
      if (Number.isSafeInteger(page.next_after) && page.next_after >= 0) after = page.next_after;
      return page.data.length > 0 ? page : undefined;
    };
    const pages = async function* (): AsyncGenerator<Array<Record<string, unknown>>> {
      // At once first; after a full page at once again (more may be waiting); otherwise every FOLLOW_POLL_MS until new ones come or the signal.
      let first = 0;
      for (;;) {
        const page = await pollUntil({
          step: read,
          pauses: { first, next: () => FOLLOW_POLL_MS },
          signal: stopping.signal,
          clock: f.clock,
        });
        if (page === undefined) return;
        yield page.data;
        first = page.data.length < 1000 ? FOLLOW_POLL_MS : 0;
      }
    };
    if (output.jq) {
      const printer = new Printer(f.io, output, COLUMNS);
      for await (const page of pages()) for (const r of page) printer.printLine(project(r, output));
    } else if (output.format === 'table') {
      for await (const page of pages()) for (const r of page) f.io.out(`${line(r, output.fields)}\n`);
    } else {
      // One object per line for JSON as for NDJSON (the stream has no end to close an array at); TSV and CSV a record per line.
      const streamed: OutputSettings = output.format === 'json' ? { ...output, format: 'ndjson' } : output;
      await new Printer(f.io, streamed, COLUMNS).printList(pages(), 'new requests');
    }
  } finally {
    f.signals.off('SIGINT', stop);
    f.signals.off('SIGTERM', stop);
  }
  f.io.err('Stopped.\n');
}

function project(r: Record<string, unknown>, output: OutputSettings): unknown {
  return output.fields ? pickPaths(r, output.fields) : r;
}

const text = (v: unknown): string =>
  v === null || v === undefined || v === '' ? '-' : escapeText(typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A request as one line on a terminal: time, method, status, duration, path, request id, key,
 * replayed (all escaped); with --fields, those fields.
 */
export function line(r: Record<string, unknown>, fields?: readonly string[]): string {
  if (fields) return fields.map((p) => text(getPath(r, p))).join('  ');
  const time =
    typeof r.received_at === 'string' ? r.received_at.replace(/^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/, '$1 $2Z') : '-';
  const ms = typeof r.duration_ms === 'number' ? `${Math.round(r.duration_ms)} ms` : '-';
  return [
    escapeText(time),
    text(r.method).padEnd(6),
    text(r.status === null ? 'drop' : r.status).padEnd(4),
    ms.padStart(8),
    text(r.path),
    text(r.request_id),
    text(r.idempotency_key),
    ...(r.replayed === true ? ['replayed'] : []),
  ].join('  ');
}
