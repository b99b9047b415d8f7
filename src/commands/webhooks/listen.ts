// pay webhooks listen: a local receiver for deliveries. Verifies each with the webhook secret
// (constant time, 5-minute tolerance), refuses replayed webhook-ids, prints accepted events on
// stdout, optionally forwards the raw body and headers; stops cleanly on SIGINT/SIGTERM (exit 0).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isLoopbackHost } from '../../config/settings.js';
import type { IOStreams } from '../../io/iostreams.js';
import { resolveOutput } from '../../io/output.js';
import { ExitCode, PayError, UsageError } from '../../lib/errors.js';
import type { Factory } from '../../lib/factory.js';
import { checkInt } from '../../lib/validate.js';
import { TOLERANCE_SECONDS, verify } from '../../webhooks/signature.js';
import type { VerbContext } from '../spec.js';
import { printable } from '../values.js';
import { webhookSecret } from './secret.js';

const MAX_BODY = 1024 * 1024;
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer', 'proxy-connection']);

export interface ListenOptions {
  host: string;
  port: number;
  secret: string;
  forwardTo?: URL | undefined;
  json: boolean;
  io: IOStreams;
  /** Unix seconds (tests move the clock). */
  now?: () => number;
}

export interface Listener {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function run(f: Factory, ctx: VerbContext): Promise<void> {
  const o = ctx.opts;
  const output = resolveOutput(o, f.io);
  const port = String(o.port ?? '8788');
  const portProblem = checkInt(0, 65535)(port);
  if (portProblem) throw new UsageError(`--port ${portProblem}`);
  const host = typeof o.host === 'string' && o.host !== '' ? o.host : '127.0.0.1';
  const forwardTo = o.forwardTo === undefined ? undefined : checkForwardUrl(String(o.forwardTo));
  const secret = webhookSecret(f, o.secret);
  const listener = await startListener({
    host,
    port: Number(port),
    secret,
    forwardTo,
    json: output.format === 'json' || output.format === 'ndjson',
    io: f.io,
  });
  if (!isLoopbackHost(host)) f.io.err(`warning: listening on ${host}, reachable from other machines\n`);
  f.io.err(`Ready, listening on ${listener.url}${forwardTo ? `, forwarding to ${forwardTo.toString()}` : ''} (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
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
  /** webhook-id → its timestamp, kept while a replay could still pass the time check. */
  const seen = new Map<string, number>();
  /** webhook-ids being forwarded now: a copy arriving meanwhile is a replay too. */
  const inFlight = new Set<string>();
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.io.err(`error: ${(err as Error).message}\n`);
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' }, { allow: 'POST' });
    const body = await readBody(req);
    if (body === undefined) return reply(res, 413, { error: 'body larger than 1 MiB' });
    const id = header(req, 'webhook-id');
    const reject = (reason: string) => {
      opts.io.err(`${stamp()} rejected ${printable(id ?? '-')}: ${reason}\n`);
      reply(res, 400, { error: reason });
    };
    const t = now();
    const result = verify(opts.secret, req.headers, body, t);
    if (!result.ok) return reject(result.reason);
    for (const [k, ts] of seen) if (Math.abs(t - ts) > TOLERANCE_SECONDS * 2) seen.delete(k);
    // A webhook-id is accepted once (Standard Webhooks: it is the message's idempotency key). A
    // copy of an accepted one (a replay, a sender's retry after a lost answer, a resend) is not
    // forwarded or printed again, but acknowledged with 200 so the sender stops retrying and
    // records the event as delivered, which it was. A copy arriving while the first is being
    // forwarded gets 409: the sender retries, and gets through if that forward failed.
    if (seen.has(result.id)) {
      opts.io.err(`${stamp()} duplicate ${printable(result.id)}: replayed webhook-id, already accepted; acknowledged, not forwarded again\n`);
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
          opts.io.err(`${stamp()} forward of ${printable(result.id)} to ${opts.forwardTo!.toString()} failed: ${(err as Error).message}\n`);
          return undefined;
        })
        .finally(() => inFlight.delete(result.id));
      if (status === undefined) return reply(res, 502, { error: 'forward failed' });
      if (status < 200 || status > 299) {
        opts.io.err(`${stamp()} forward of ${printable(result.id)} answered ${status}\n`);
        return reply(res, status >= 400 ? status : 502, { error: `forward answered ${status}` });
      }
    }
    seen.set(result.id, result.timestamp);
    const type = typeof event?.type === 'string' ? event.type : '-';
    opts.io.out(opts.json ? `${JSON.stringify(event ?? { id: result.id, raw: body.toString('utf8') })}\n` : `${stamp()} ${printable(result.id)} ${printable(type)}\n`);
    reply(res, 200, { received: true });
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        new PayError(
          err.code === 'EADDRINUSE' ? `port ${opts.port} on ${opts.host} is already in use` : `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`,
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

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
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

