// pay webhooks listen's forwarding: each verified delivery POSTed on to --forward-to (https://, or
// http:// to loopback; never the listen itself) with its raw body and headers and a hop header that
// stops two listens forwarding to each other, and the check at start that something answers there.
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { isLoopbackHost } from '../../config/settings.js';
import { escapeText } from '../../io/escape.js';
import { UsageError } from '../../lib/errors.js';
import { isOwnAddress } from '../../shared/validate.js';
import { printable } from '../../verbs/values.js';

/** The forward target's time to answer, as the emulator gives a delivery (src/emulator/deliveries.ts ATTEMPT_TIMEOUT_MS). */
export const FORWARD_TIMEOUT_MS = 10_000;

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

/**
 * The header a listen puts on each delivery it forwards. A delivery that arrives with it came
 * through another listen's forward (two listens forwarding to each other would pass each delivery
 * back and forth forever): answered 508 Loop Detected, never forwarded.
 */
export const HOP_HEADER = 'pay-listen-hop';

/**
 * Whether something accepts connections at the forward target (a TCP connect, nothing sent): the
 * reason when not. Given up, with no reason, when `until` settles first (the listen is stopping).
 */
export function probe(url: URL, until: Promise<void>, timeoutMs = 2_000): Promise<string | undefined> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (why: string | undefined) => {
      socket.destroy();
      resolve(why);
    };
    void until.then(() => done(undefined));
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' ? 'connection refused' : err.code === 'ENOTFOUND' ? 'host not found' : (err.code ?? err.message)),
    );
  });
}

/** Exit 2 when --forward-to is the listener's own address (its port, on loopback or the host it binds). */
export function refuseForwardToSelf(forwardTo: URL, host: string, port: string): void {
  if (!isOwnAddress(forwardTo, { hostname: host, port })) return;
  throw new UsageError(
    `--forward-to ${escapeText(forwardTo.toString())} is this listen's own address (port ${port}): each delivery would be forwarded to itself, forever`,
    { hint: "forward to your app's address, e.g. --forward-to http://localhost:3000/webhooks" },
  );
}

/** https://, or http:// to a loopback host only. */
export function checkForwardUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to "${printable(raw)}" is not a URL`);
  }
  // A user name or password would show in the Ready line and every <-- line (and the app gets
  // the delivery's signature to trust instead), as `pay emulator webhook-url` refuses them.
  if (url.username !== '' || url.password !== '')
    throw new UsageError(
      `--forward-to must not carry a user name or password (got ${url.protocol}//…@${escapeText(url.host)}): it would show in every line; deliveries are signed instead`,
    );
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new UsageError(`--forward-to must use https://, or http:// to localhost or 127.0.0.1 (got ${url.protocol}//${url.hostname})`);
}

export async function forward(url: URL, req: IncomingMessage, body: Buffer, timeoutMs: number, stopping: AbortSignal): Promise<number> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  headers[HOP_HEADER] = '1';
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stopping]);
  const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal });
  // The app's answer body is not needed: cancelled, so an endless one costs nothing.
  await res.body?.cancel().catch(() => undefined);
  return res.status;
}

/** Why a forward got no answer, in a few words (connection refused, timed out after 10 s, …). */
export function describeForwardError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `timed out after ${timeoutMs / 1000} s`;
  const code = e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  return code ?? e.cause?.message ?? e.message ?? String(err);
}
