// The HTTP plumbing the API client and the emulator's admin client (src/api/emulator-admin.ts)
// share: the one keep-alive pool, one request sent once within a timeout and read with a byte cap,
// the --debug log (secrets redacted), and what a network failure is called.
import { EventEmitter } from 'node:events';
import { Agent, type Dispatcher } from 'undici';
import { maskKey, redact } from '../config/keys.js';

/**
 * Bounds a whole attempt (connect, headers, body) as AbortSignal.timeout(ms) would, and ends it
 * with the same TimeoutError; undici takes an EventEmitter that emits 'abort' as its signal. An
 * AbortSignal with its listeners costs several microseconds per request, which showed in bulk
 * create profiles; this costs a timer.
 */
class AttemptTimeout extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.reason = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      this.emit('abort');
    }, ms);
    this.timer.unref();
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

let sharedAgent: Agent | undefined;
/** The process's one keep-alive pool: the API client's and the emulator admin's (src/api/emulator-admin.ts), unless a test injects a dispatcher. */
export function defaultDispatcher(): Agent {
  if (!sharedAgent) {
    sharedAgent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 64, pipelining: 1 });
  }
  return sharedAgent;
}

/**
 * A pool of its own for a probe that may be given up (one of several asked at once): destroy() ends
 * its requests still in flight and closes its connections, leaving the shared pool alone.
 */
export function ownDispatcher(): Dispatcher {
  return new Agent({ pipelining: 1 });
}

/** An answer as read off the wire: lower-case header names, the body as text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * One request, sent once (no retry): the plumbing the API client's attempts and the emulator's
 * admin client share. The whole exchange (connect, headers, body) within `timeoutMs`; the body
 * read up to `maxBytes` (TooLarge past it); no redirect followed (undici follows one only through
 * its redirect interceptor). Network failures throw as undici throws them (describeNetworkError).
 */
export async function sendOnce(
  dispatcher: Dispatcher,
  req: {
    origin: string;
    path: string;
    method: Dispatcher.HttpMethod;
    headers: Record<string, string>;
    body: string | undefined;
    timeoutMs: number;
    maxBytes: number;
  },
): Promise<RawAnswer> {
  const deadline = new AttemptTimeout(req.timeoutMs);
  try {
    // dispatcher.request is what request(url, {dispatcher}) calls once it has split the URL.
    const res = await dispatcher.request({
      origin: req.origin,
      path: req.path,
      method: req.method,
      headers: req.headers,
      body: req.body,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      signal: deadline,
    });
    const headers = flattenHeaders(res.headers);
    const text = await readCapped(res.body, headers['content-length'], req.maxBytes);
    return { status: res.statusCode, headers, text };
  } finally {
    deadline.clear();
  }
}

/**
 * --debug lines of requests and answers (method and URL, headers, body cut at 2000 characters;
 * status, time, headers, body), every line redacted (src/config/keys.ts redact: the secrets given,
 * and anything shaped like a key or a webhook secret). Shared by the API client and the emulator's
 * admin client; nothing is formatted when --debug is off.
 */
export class DebugLog {
  constructor(
    private readonly sink: ((line: string) => void) | undefined,
    private readonly secrets: readonly (string | undefined)[],
  ) {}

  line(text: string): void {
    this.sink?.(redact(text, this.secrets));
  }

  request(method: string, url: URL, headers: Record<string, string>, body: string | undefined, attempt = 1): void {
    if (!this.sink) return;
    this.line(`> ${method} ${url.toString()}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
    for (const [k, v] of Object.entries(headers)) this.line(`> ${k}: ${k === 'api-key' ? maskKey(v) : v}`);
    if (body !== undefined) this.line(`> ${truncate(body)}`);
  }

  response(status: number, headers: Record<string, string>, text: string, ms: number): void {
    if (!this.sink) return;
    this.line(`< ${status} ${httpReason(status)} (${ms} ms)`);
    for (const [k, v] of Object.entries(headers)) this.line(`< ${k}: ${v}`);
    if (text) this.line(`< ${truncate(text)}`);
  }
}

function truncate(s: string): string {
  return s.length > 2000 ? `${s.slice(0, 2000)}… (${s.length} bytes)` : s;
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(h)) {
    const v = h[k];
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Thrown by readCapped when the body passes its cap. */
export class TooLarge extends Error {}

/**
 * The body as text, read chunk by chunk and never past `max` bytes: a larger Content-Length is
 * refused before reading, and a body that grows past the cap is destroyed (the connection is
 * dropped) instead of buffered.
 */
export async function readCapped(body: Dispatcher.ResponseData['body'], contentLength: string | undefined, max: number): Promise<string> {
  // Destroying the body makes undici emit a RequestAbortedError on it: expected, so swallowed.
  const stop = (): never => {
    body.on('error', () => {});
    body.destroy();
    throw new TooLarge();
  };
  if (contentLength !== undefined && /^\d+$/.test(contentLength) && Number(contentLength) > max) stop();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) stop();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
}

export function describeNetworkError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return `timed out after ${timeoutMs / 1000} s`;
  }
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  return code ? `${code}` : (e.message ?? 'network error');
}

const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
export function httpReason(status: number): string {
  return REASONS[status] ?? 'HTTP error';
}
