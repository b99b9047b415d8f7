// pay webhooks listen: a local receiver for deliveries. Verifies each with the webhook secret
// (constant time, 5-minute tolerance), recognises repeated webhook-ids for as long as a sender
// may still retry (REPEAT_WINDOW_SECONDS, at most MAX_REMEMBERED_IDS remembered), prints accepted
// events on stdout, optionally forwards the raw body and headers; stops cleanly on SIGINT/SIGTERM
// (exit 0). Every text line it prints quotes the sender's data escaped (src/io/escape.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isLoopbackHost } from '../../config/settings.js';
import { escapeText } from '../../io/escape.js';
import type { IOStreams } from '../../io/iostreams.js';
import { ExitCode, PayError, UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { checkInt } from '../../shared/validate.js';
import { deliveryHeader, verify } from '../../shared/signature.js';
import type { VerbContext } from '../../cmdutil/spec.js';
import { printable } from '../../verbs/values.js';
import { webhookSecret } from './secret.js';
import { asText } from '../../lib/text.js';

const MAX_BODY = 1024 * 1024;

/**
 * How long an accepted webhook-id is remembered, counted from its last delivery: 24 hours. The
 * emulator's schedule (src/emulator/events.ts RETRY_DELAYS_S: 5 s, 30 s, 2 min, 10 min, each
 * attempt allowed 10 s) spans under 14 minutes of its clock, but an emulator stopped with
 * --data-dir resumes its pending deliveries when started again, and hosted Standard Webhooks
 * senders retry for about a day: a day covers them all with margin. A repeat refreshes the time.
 */
export const REPEAT_WINDOW_SECONDS = 24 * 60 * 60;
/**
 * At most this many webhook-ids are remembered (about 10 MB). Past it the least recently seen id
 * is forgotten first (a warning says so, once): a repeat of a forgotten id is accepted again.
 */
export const MAX_REMEMBERED_IDS = 100_000;
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);

export interface ListenOptions {
  host: string;
  port: number;
  secret: string;
  forwardTo?: URL | undefined;
  json: boolean;
  /** With json: prints one event (the shared Printer's printLine: a JSON line, or --jq's output); default a JSON line. */
  line?: (event: unknown) => void;
  io: IOStreams;
  /** Unix seconds (tests move the clock). */
  now?: () => number;
  /** Tests only: a shorter window and a smaller cap than REPEAT_WINDOW_SECONDS and MAX_REMEMBERED_IDS. */
  repeatWindowSeconds?: number;
  maxRemembered?: number;
}

export interface Listener {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function run(f: Factory, ctx: VerbContext): Promise<void> {
  const o = ctx.opts;
  const { output } = ctx;
  const port = asText(o.port ?? '8788');
  const portProblem = checkInt(0, 65535)(port);
  if (portProblem) throw new UsageError(`--port ${portProblem}`);
  const host = typeof o.host === 'string' && o.host !== '' ? o.host : '127.0.0.1';
  const forwardTo = o.forwardTo === undefined ? undefined : checkForwardUrl(asText(o.forwardTo));
  const secret = webhookSecret(f, o.secret);
  const { Printer } = await import('../../io/output.js');
  const printer = new Printer(f.io, output, []);
  const listener = await startListener({
    host,
    port: Number(port),
    secret,
    forwardTo,
    json: output.format === 'json' || output.format === 'ndjson',
    line: (event) => printer.printLine(event),
    io: f.io,
  });
  if (!isLoopbackHost(host)) f.io.err(`warning: listening on ${host}, reachable from other machines\n`);
  f.io.err(`Ready, listening on ${listener.url}${forwardTo ? `, forwarding to ${forwardTo.toString()}` : ''} (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      f.signals.off('SIGINT', stop);
      f.signals.off('SIGTERM', stop);
      resolve();
    };
    f.signals.on('SIGINT', stop);
    f.signals.on('SIGTERM', stop);
  });
  await listener.close();
  f.io.err('Stopped.\n');
}

/** https://, or http:// to a loopback host only. */
export function checkForwardUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to "${printable(raw)}" is not a URL`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new UsageError(`--forward-to must use https://, or http:// to localhost or 127.0.0.1 (got ${url.protocol}//${url.hostname})`);
}

export async function startListener(opts: ListenOptions): Promise<Listener> {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const windowS = opts.repeatWindowSeconds ?? REPEAT_WINDOW_SECONDS;
  const cap = opts.maxRemembered ?? MAX_REMEMBERED_IDS;
  /** webhook-id → when it was last delivered (our clock); least recently seen first. */
  const seen = new Map<string, number>();
  let warnedFull = false;
  const remember = (id: string, t: number) => {
    seen.delete(id); // re-inserted last: the most recently seen
    seen.set(id, t);
    for (const [oldest] of seen) {
      if (seen.size <= cap) break;
      seen.delete(oldest);
      if (!warnedFull) {
        warnedFull = true;
        opts.io.err(
          `${stamp()} warning: more than ${cap} webhook-ids seen within ${windowS % 3600 === 0 ? `${windowS / 3600} h` : `${windowS} s`}; the least recently seen are forgotten, and a repeat of one of them would be accepted again\n`,
        );
      }
    }
  };
  /** Forgets ids last seen longer ago than the window (oldest first, so it stops at the first kept). */
  const expire = (t: number) => {
    for (const [id, last] of seen) {
      if (t - last <= windowS) break;
      seen.delete(id);
    }
  };
  /** webhook-ids being forwarded now: a copy arriving meanwhile is a replay too. */
  const inFlight = new Set<string>();
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.io.err(`error: ${escapeText((err as Error).message)}\n`);
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' }, { allow: 'POST' });
    const body = await readBody(req);
    if (body === undefined) return reply(res, 413, { error: 'body larger than 1 MiB' });
    const id = deliveryHeader(req.headers, 'id');
    const reject = (reason: string) => {
      opts.io.err(`${stamp()} rejected ${printable(id ?? '-')}: ${escapeText(reason)}\n`);
      reply(res, 400, { error: reason });
    };
    const t = now();
    const result = verify(opts.secret, req.headers, body, t);
    if (!result.ok) return reject(result.reason);
    expire(t);
    // A webhook-id is accepted once (Standard Webhooks: it is the message's idempotency key). A
    // copy of an accepted one (a replay, a sender's retry after a lost answer, a resend) is not
    // forwarded or printed again, but acknowledged with 200 so the sender stops retrying and
    // records the event as delivered, which it was. A copy arriving while the first is being
    // forwarded gets 409: the sender retries, and gets through if that forward failed.
    if (seen.has(result.id)) {
      remember(result.id, t);
      opts.io.err(
        `${stamp()} duplicate ${printable(result.id)}: replayed webhook-id, already accepted; acknowledged, not forwarded again\n`,
      );
      return reply(res, 200, { received: true, duplicate: true });
    }
    if (inFlight.has(result.id)) {
      opts.io.err(`${stamp()} rejected ${printable(result.id)}: replayed webhook-id (the first delivery is still being forwarded)\n`);
      return reply(res, 409, { error: 'replayed webhook-id: the first delivery is still being forwarded' }, { 'retry-after': '1' });
    }
    const event = parseEvent(body);
    if (opts.forwardTo) {
      // Held from here to the answer: the await below lets other deliveries in.
      inFlight.add(result.id);
      const status = await forward(opts.forwardTo, req, body)
        .catch((err: unknown) => {
          opts.io.err(
            `${stamp()} forward of ${printable(result.id)} to ${opts.forwardTo!.toString()} failed: ${escapeText((err as Error).message)}\n`,
          );
          return undefined;
        })
        .finally(() => inFlight.delete(result.id));
      if (status === undefined) return reply(res, 502, { error: 'forward failed' });
      if (status < 200 || status > 299) {
        opts.io.err(`${stamp()} forward of ${printable(result.id)} answered ${status}\n`);
        return reply(res, status >= 400 ? status : 502, { error: `forward answered ${status}` });
      }
    }
    remember(result.id, t);
    const type = typeof event?.type === 'string' ? event.type : '-';
    const shown = event ?? { id: result.id, raw: body.toString('utf8') };
    if (!opts.json) opts.io.out(`${stamp()} ${printable(result.id)} ${printable(type)}\n`);
    else if (!opts.line) opts.io.out(`${JSON.stringify(shown)}\n`);
    else {
      try {
        opts.line(shown);
      } catch (err) {
        // A --jq filter that fails on one event: said on stderr; the delivery was still received.
        opts.io.err(`${stamp()} ${printable(result.id)}: ${escapeText((err as Error).message)}\n`);
      }
    }
    reply(res, 200, { received: true });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function forward(url: URL, req: IncomingMessage, body: Buffer): Promise<number> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer().catch(() => undefined);
  return res.status;
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
