// pay webhooks listen's receiver: verifies each delivery with the webhook secret (constant time,
// 5-minute tolerance), prints one line per delivery (`--> type [id]`, marked as a repeat when the
// webhook-id came before: REPEAT_WINDOW_SECONDS, at most MAX_REMEMBERED_IDS remembered), forwards
// every delivery (forward.ts; retries and resends included; --skip-duplicates acknowledges a repeat
// of an accepted one instead) with a `<-- [status]` line. Every text line quotes the sender's data
// escaped (src/io/escape.ts). The command around it (registration with the emulator, signals) is
// listen-run.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { escapeText } from '../../io/escape.js';
import { fitStatus } from '../../io/fit-text.js';
import type { IOStreams } from '../../io/iostreams.js';
import { ExitCode, PayError } from '../../lib/errors.js';
import { deliveryHeader, verify } from '../../shared/signature.js';
import { printable } from '../../verbs/values.js';
import { describeForwardError, forward, FORWARD_TIMEOUT_MS, HOP_HEADER } from './forward.js';

export { checkForwardUrl, FORWARD_TIMEOUT_MS, HOP_HEADER } from './forward.js';

const MAX_BODY = 1024 * 1024;

/**
 * How long a webhook-id is remembered (to mark a later delivery of it as a repeat, and with
 * --skip-duplicates to acknowledge it unforwarded), counted from its last delivery: 24 hours. The
 * emulator's schedule (src/emulator/deliveries.ts RETRY_DELAYS_S: 5 s, 30 s, 2 min, 10 min, each
 * attempt allowed 10 s) spans under 14 minutes of its clock, but an emulator stopped with
 * --data-dir resumes its pending deliveries when started again, and hosted Standard Webhooks
 * senders retry for about a day: a day covers them all with margin. A repeat refreshes the time.
 */
export const REPEAT_WINDOW_SECONDS = 24 * 60 * 60;
/**
 * At most this many webhook-ids are remembered (about 10 MB). Past it the least recently seen id
 * is forgotten first (a warning says so, once): a repeat of a forgotten id counts as new again.
 */
export const MAX_REMEMBERED_IDS = 100_000;

export interface ListenOptions {
  host: string;
  port: number;
  secret: string;
  forwardTo?: URL | undefined;
  json: boolean;
  /** With json: prints one delivery (the shared Printer's printLine: a JSON line escaped on a terminal, or --jq's output). */
  line: (delivery: unknown) => void;
  /** Acknowledge (200) a repeat of an accepted webhook-id without printing or forwarding it (the behaviour before every delivery was forwarded). */
  skipDuplicates?: boolean;
  /** Only these event types are printed and forwarded; the others are acknowledged (200) silently. */
  events?: ReadonlySet<string> | undefined;
  io: IOStreams;
  /** Unix seconds (tests move the clock). */
  now?: () => number;
  /** How long the forward target gets to answer (default FORWARD_TIMEOUT_MS). */
  forwardTimeoutMs?: number;
  /** Tests only: a shorter window and a smaller cap than REPEAT_WINDOW_SECONDS and MAX_REMEMBERED_IDS. */
  repeatWindowSeconds?: number;
  maxRemembered?: number;
}

export interface Listener {
  url: string;
  server: Server;
  /**
   * Cuts off the forwards in flight (the listen is stopping): each one's sender gets a 502 and
   * retries it later. How many there were.
   */
  abortForwards(): number;
  close(): Promise<void>;
}

export async function startListener(opts: ListenOptions): Promise<Listener> {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const windowS = opts.repeatWindowSeconds ?? REPEAT_WINDOW_SECONDS;
  const cap = opts.maxRemembered ?? MAX_REMEMBERED_IDS;
  // Status lines on a terminal are broken at spaces to its width (continued indented): the terminal's own wrapping would split an id.
  const io = {
    out: (t: string) => opts.io.out(opts.io.stdoutIsTTY ? fitStatus(t, opts.io.terminalWidth) : t),
    err: (t: string) => opts.io.err(opts.io.stderrIsTTY ? fitStatus(t, opts.io.terminalWidth) : t),
  };
  /**
   * webhook-id → when it was last delivered (our clock), how many times it was (the repeat number),
   * and whether a delivery of it was accepted (forwarded with a 2xx, or received without forwarding);
   * least recently seen first.
   */
  const seen = new Map<string, { t: number; n: number; accepted: boolean }>();
  let warnedFull = false;
  const remember = (id: string, t: number, n: number, accepted: boolean) => {
    seen.delete(id); // re-inserted last: the most recently seen
    seen.set(id, { t, n, accepted });
    for (const [oldest] of seen) {
      if (seen.size <= cap) break;
      seen.delete(oldest);
      if (!warnedFull) {
        warnedFull = true;
        io.err(
          `${stamp()} warning: more than ${cap} webhook-ids seen within ${windowS % 3600 === 0 ? `${windowS / 3600} h` : `${windowS} s`}; the least recently seen are forgotten, and a repeat of one of them would count as new again\n`,
        );
      }
    }
  };
  /** Forgets ids last seen longer ago than the window (oldest first, so it stops at the first kept). */
  const expire = (t: number) => {
    for (const [id, last] of seen) {
      if (t - last.t <= windowS) break;
      seen.delete(id);
    }
  };
  /** webhook-ids being forwarded now (--skip-duplicates: a copy arriving meanwhile gets 409). */
  const inFlight = new Set<string>();
  /** Forwards in flight, and what cuts them off when the listen stops. */
  let forwarding = 0;
  const stopping = new AbortController();
  const target = opts.forwardTo?.toString();
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      io.err(`error: ${escapeText((err as Error).message)}\n`);
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
    });
  });

  /** One delivery for --json: what arrived and what the forward answered. */
  const print = (delivery: Record<string, unknown>, id: string) => {
    try {
      opts.line(delivery);
    } catch (err) {
      // A --jq filter that fails on one delivery: said on stderr; the delivery was still received.
      io.err(`${stamp()} ${printable(id)}: ${escapeText((err as Error).message)}\n`);
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' }, { allow: 'POST' });
    if (req.headers[HOP_HEADER] !== undefined) {
      // Forwarded by another listen: forwarding it again could go round forever.
      const hopId = deliveryHeader(req.headers, 'id');
      io.err(
        `${stamp()} loop: ${printable(hopId ?? '-')} came through another pay webhooks listen's --forward-to; answered 508 Loop Detected, not forwarded (forward to your app, not to a listen)\n`,
      );
      req.resume();
      return reply(res, 508, { error: 'loop detected: this delivery came through another pay webhooks listen' });
    }
    const receivedAt = new Date().toISOString();
    const body = await readBody(req);
    if (body === undefined) return reply(res, 413, { error: 'body larger than 1 MiB' });
    const id = deliveryHeader(req.headers, 'id');
    const reject = (reason: string) => {
      io.err(`${stamp()} rejected ${printable(id ?? '-')}: ${escapeText(reason)}\n`);
      reply(res, 400, { error: reason });
    };
    const t = now();
    const result = verify(opts.secret, req.headers, body, t);
    if (!result.ok) return reject(result.reason);
    expire(t);
    const event = parseEvent(body);
    const type = typeof event?.type === 'string' ? event.type : undefined;
    // Not asked for (--events): acknowledged, so the sender records it delivered and stops.
    if (opts.events && !(type !== undefined && opts.events.has(type))) return reply(res, 200, { received: true, filtered: true });
    const before = seen.get(result.id);
    const repeat = (before?.n ?? 0) + 1;
    if (opts.skipDuplicates) {
      // A copy of an accepted webhook-id (a replay, a retry after a lost answer, a resend) is
      // acknowledged with 200, neither printed nor forwarded again (Standard Webhooks: the id is the
      // message's idempotency key). A copy arriving while the first is being forwarded gets 409:
      // the sender retries, and gets through if that forward failed.
      if (before?.accepted) {
        remember(result.id, t, repeat, true);
        io.err(
          `${stamp()} duplicate ${printable(result.id)}: replayed webhook-id, already accepted; acknowledged, not forwarded again (--skip-duplicates)\n`,
        );
        return reply(res, 200, { received: true, duplicate: true, repeat });
      }
      if (inFlight.has(result.id)) {
        io.err(`${stamp()} rejected ${printable(result.id)}: replayed webhook-id (the first delivery is still being forwarded)\n`);
        return reply(res, 409, { error: 'replayed webhook-id: the first delivery is still being forwarded' }, { 'retry-after': '1' });
      }
    }
    remember(result.id, t, repeat, before?.accepted ?? false);
    if (!opts.json) io.out(`--> ${printable(type ?? '-')} [${printable(result.id)}]${repeat > 1 ? ` (repeat ${repeat})` : ''}\n`);
    let forwarded: { url: string; status: number | null; duration_ms: number; error: string | null } | null = null;
    if (opts.forwardTo) {
      // Held from here to the answer: the await below lets other deliveries in.
      inFlight.add(result.id);
      forwarding++;
      const started = performance.now();
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = await forward(opts.forwardTo, req, body, opts.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS, stopping.signal);
      } catch (err) {
        error = stopping.signal.aborted
          ? 'cut off: the listen is stopping (the sender retries it later)'
          : describeForwardError(err, opts.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS);
      } finally {
        inFlight.delete(result.id);
        forwarding--;
      }
      const ms = Math.round(performance.now() - started);
      forwarded = { url: target!, status, duration_ms: ms, error };
      if (!opts.json)
        io.out(
          status !== null
            ? `<-- [${status}] POST ${escapeText(target!)} (${ms} ms) [${printable(result.id)}]\n`
            : `<-- [error] POST ${escapeText(target!)} (${ms} ms) [${printable(result.id)}]: ${escapeText(error ?? 'failed')}\n`,
        );
    }
    const ok = forwarded === null || (forwarded.status !== null && forwarded.status >= 200 && forwarded.status <= 299);
    const entry = seen.get(result.id);
    if (ok && entry) entry.accepted = true;
    if (opts.json)
      print(
        {
          webhook_id: result.id,
          type: type ?? null,
          repeat,
          received_at: receivedAt,
          forward: forwarded,
          event: event ?? { raw: body.toString('utf8') },
        },
        result.id,
      );
    if (forwarded === null) return reply(res, 200, { received: true, repeat });
    // The sender hears the forward's answer: a failure is retried by it.
    if (forwarded.status === null) return reply(res, 502, { error: 'forward failed', detail: forwarded.error });
    // Any other status the app gave goes back as it is, 3xx included (never followed: a redirect is
    // not a delivery, and the sender retries it as a failure). One no HTTP server may send: 502.
    if (!ok) {
      const status = forwarded.status >= 300 && forwarded.status <= 599 ? forwarded.status : 502;
      return reply(res, status, { error: `forward answered ${forwarded.status}` });
    }
    reply(res, 200, { received: true, repeat });
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        new PayError(
          err.code === 'EADDRINUSE'
            ? `port ${opts.port} on ${opts.host} is already in use`
            : `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`,
          ExitCode.ERROR,
          'listen_failed',
          { hint: err.code === 'EADDRINUSE' ? 'choose another --port (0 picks a free one)' : undefined },
        ),
      );
    };
    server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}/`,
    server,
    abortForwards: () => {
      const cut = forwarding;
      stopping.abort();
      return cut;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(tooBig ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseEvent(body: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function stamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}
