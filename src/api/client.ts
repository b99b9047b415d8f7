// The HTTP client (contract section 4): one keep-alive pool, an injectable dispatcher, the
// headers every request carries, one Idempotency-Key per command reused across retries,
// exponential backoff with full jitter that honours Retry-After, a per-attempt timeout,
// typed errors, --debug logging with secrets redacted, and a page iterator.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Agent, type Dispatcher } from 'undici';
import { maskKey, redact } from '../config/keys.js';
import { ApiError, AuthError, NetworkError, type FieldError } from '../lib/errors.js';

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  tenant?: string | undefined;
  userAgent: string;
  timeoutMs: number;
  maxRetries: number;
  dispatcher?: Dispatcher;
  /** Receives --debug lines (already redacted). */
  debug?: ((line: string) => void) | undefined;
  /** Secrets never to print (the key itself is always included). */
  secrets?: readonly (string | undefined)[];
  /** Names the credentials in 401/403 messages: `profile "default" (sandbox)`. */
  credentialLabel: string;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Backoff base and cap in ms (tests shorten them). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestInit {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  query?: Query;
  body?: unknown;
  idempotencyKey?: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
  requestId: string | undefined;
  idempotencyKey: string | undefined;
  replayed: boolean;
  attempts: number;
}

export interface ListPage<T> {
  object?: string;
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const RETRY_STATUS = new Set([429, 500, 502, 503, 504]);
const MAX_RETRY_AFTER_MS = 60_000;

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

interface Target {
  /** Never mutated: shared by every request to a query-less path. */
  url: URL;
  origin: string;
  path: string;
}

function targetOf(url: URL): Target {
  return { url, origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname };
}

let sharedAgent: Agent | undefined;
function defaultDispatcher(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 64, pipelining: 1 });
  return sharedAgent;
}

export class ApiClient {
  private readonly base: URL;
  private readonly dispatcher: Dispatcher;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly secrets: (string | undefined)[];
  /** Targets of query-less requests by path: a bulk create sends thousands to one path. */
  private readonly plainTargets = new Map<string, Target>();

  constructor(private readonly opts: ClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.dispatcher = opts.dispatcher ?? defaultDispatcher();
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = opts.random ?? Math.random;
    this.secrets = [opts.apiKey, ...(opts.secrets ?? [])];
  }

  /** Resolves a path relative to the base URL (`customers/cus_1` or `/customers/cus_1`). */
  url(path: string, query?: Query): URL {
    const rel = path.replace(/^\/+/, '');
    if (/^[a-z][a-z0-9+.-]*:/i.test(rel) || rel.split('/').some((s) => s === '..' || s === '.')) {
      throw new ApiError(`invalid API path "${path}"`, { status: 0 });
    }
    const url = new URL(rel, this.base);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
    }
    return url;
  }

  /** The URL of a request, and its origin and path as undici's request(url) would split it. */
  private target(path: string, query: Query | undefined): Target {
    if (query !== undefined) return targetOf(this.url(path, query));
    let t = this.plainTargets.get(path);
    if (t === undefined) {
      t = targetOf(this.url(path));
      if (this.plainTargets.size >= 64) this.plainTargets.clear();
      this.plainTargets.set(path, t);
    }
    return t;
  }

  async request<T = unknown>(init: RequestInit): Promise<ApiResponse<T>> {
    const target = this.target(init.path, init.query);
    const url = target.url;
    const isPost = init.method === 'POST';
    // Every POST has a key; a PATCH carries one when the caller derives it (seed updates).
    const idempotencyKey = isPost ? (init.idempotencyKey ?? randomUUID()) : init.method === 'PATCH' ? init.idempotencyKey : undefined;
    const headers: Record<string, string> = {
      'api-key': this.opts.apiKey,
      accept: 'application/json',
      'user-agent': this.opts.userAgent,
    };
    if (this.opts.tenant) headers['x-tenant-id'] = this.opts.tenant;
    let payload: string | undefined;
    if (init.body !== undefined || isPost) {
      payload = init.body === undefined ? '{}' : JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;

    const maxAttempts = 1 + this.opts.maxRetries;
    for (let attempt = 1; ; attempt++) {
      this.logRequest(init.method, url, headers, payload, attempt);
      const started = Date.now();
      let status: number;
      let resHeaders: Record<string, string>;
      let text: string;
      const deadline = new AttemptTimeout(this.opts.timeoutMs);
      try {
        // dispatcher.request is what request(url, {dispatcher}) calls once it has split the URL.
        const res = await this.dispatcher.request({
          origin: target.origin,
          path: target.path,
          method: init.method,
          headers,
          body: payload,
          headersTimeout: this.opts.timeoutMs,
          bodyTimeout: this.opts.timeoutMs,
          signal: deadline,
        });
        status = res.statusCode;
        resHeaders = flattenHeaders(res.headers);
        text = await res.body.text();
        deadline.clear();
      } catch (err) {
        deadline.clear();
        const reason = describeNetworkError(err, this.opts.timeoutMs);
        this.debug(`! ${reason} after ${Date.now() - started} ms`);
        if (attempt < maxAttempts) {
          await this.backoff(attempt, undefined);
          continue;
        }
        throw new NetworkError(`${init.method} ${url.pathname} failed: ${reason}${attempts(attempt)}`, {
          hint: idempotencyKey ? `retry safely with --idempotency-key ${idempotencyKey}` : undefined,
          details: { idempotency_key: idempotencyKey, url: url.toString() },
          cause: err,
        });
      }
      this.logResponse(status, resHeaders, text, Date.now() - started);
      if (RETRY_STATUS.has(status) && attempt < maxAttempts) {
        await this.backoff(attempt, resHeaders['retry-after']);
        continue;
      }
      const body = parseBody(text);
      const requestId = resHeaders['request-id'] ?? resHeaders['x-request-id'] ?? (body as { request_id?: string })?.request_id;
      if (status >= 400) throw this.toError(init, url, status, body, requestId, idempotencyKey, attempt, resHeaders['idempotent-replayed'] === 'true');
      return {
        status,
        headers: resHeaders,
        body: body as T,
        requestId,
        idempotencyKey,
        replayed: resHeaders['idempotent-replayed'] === 'true',
        attempts: attempt,
      };
    }
  }

  /**
   * Streams a list page by page, following `next_cursor`. `limit` caps the number of items
   * (undefined with all = every item); the page size is at most 100.
   */
  async *pages<T>(path: string, query: Query, opts: { limit?: number | undefined; all?: boolean }): AsyncGenerator<T[]> {
    let remaining = opts.all ? Infinity : (opts.limit ?? 20);
    let cursor: string | null | undefined;
    while (remaining > 0) {
      const pageSize = Math.min(100, opts.all ? (opts.limit ?? 100) : remaining);
      const res = await this.request<ListPage<T>>({ method: 'GET', path, query: { ...query, limit: pageSize, cursor } });
      const page = res.body;
      if (!page || !Array.isArray(page.data)) {
        throw new ApiError(`GET ${path}: the service answered a list without a data array`, { status: res.status });
      }
      const items = opts.all ? page.data : page.data.slice(0, remaining);
      remaining -= items.length;
      yield items;
      if (!page.has_more || !page.next_cursor || page.data.length === 0) return;
      cursor = page.next_cursor;
    }
  }

  private toError(
    init: RequestInit,
    url: URL,
    status: number,
    body: unknown,
    requestId: string | undefined,
    idempotencyKey: string | undefined,
    attempt: number,
    replayed = false,
  ): ApiError | AuthError {
    const problem = (body && typeof body === 'object' ? body : {}) as {
      code?: string;
      title?: string;
      detail?: string;
      errors?: FieldError[];
    };
    const what = problem.detail || problem.title || (typeof body === 'string' && body ? body.slice(0, 200) : httpReason(status));
    const refs = [requestId && `request ${requestId}`, idempotencyKey && `idempotency key ${idempotencyKey}`].filter(Boolean);
    const suffix = refs.length ? ` (${refs.join(', ')})` : '';
    const code = problem.code ? ` ${problem.code}` : '';
    // replayed: the service answered a stored refusal of this key again (nothing was tried anew).
    const details = { status, code: problem.code, request_id: requestId, idempotency_key: idempotencyKey, method: init.method, path: url.pathname, ...(replayed ? { replayed } : {}) };
    if (status === 401) {
      return new ApiError(
        `HTTP 401${code}: the API key for ${this.opts.credentialLabel} is missing or invalid${suffix}`,
        { status, apiCode: problem.code, requestId, idempotencyKey, details, hint: 'check the key with pay profiles show, or log in again with pay login' },
      );
    }
    const retried = RETRY_STATUS.has(status) ? attempts(attempt) : '';
    return new ApiError(`HTTP ${status}${code}: ${redact(what, this.secrets)}${retried}${suffix}`, {
      status,
      apiCode: problem.code,
      requestId,
      idempotencyKey,
      details,
      fieldErrors: Array.isArray(problem.errors) ? problem.errors.filter((e) => e && typeof e.field === 'string') : [],
      hint:
        status === 403
          ? `the key for ${this.opts.credentialLabel} is not allowed to do this`
          : status >= 500 && idempotencyKey
            ? `retry safely with --idempotency-key ${idempotencyKey}`
            : undefined,
    });
  }

  private async backoff(attempt: number, retryAfter: string | undefined): Promise<void> {
    let ms = parseRetryAfter(retryAfter);
    if (ms === undefined) {
      const base = this.opts.backoffBaseMs ?? 250;
      const cap = this.opts.backoffCapMs ?? 8_000;
      // Full jitter: uniform in [0, min(cap, base * 2^(attempt-1))], never below 10% of it.
      const ceiling = Math.min(cap, base * 2 ** (attempt - 1));
      ms = Math.round(ceiling * (0.1 + 0.9 * this.random()));
    }
    this.debug(`… retrying in ${ms} ms (attempt ${attempt + 1} of ${1 + this.opts.maxRetries})`);
    await this.sleep(ms);
  }

  private debug(line: string): void {
    this.opts.debug?.(redact(line, this.secrets));
  }

  private logRequest(method: string, url: URL, headers: Record<string, string>, body: string | undefined, attempt: number): void {
    if (!this.opts.debug) return;
    this.debug(`> ${method} ${url.toString()}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
    for (const [k, v] of Object.entries(headers)) this.debug(`> ${k}: ${k === 'api-key' ? maskKey(v) : v}`);
    if (body !== undefined) this.debug(`> ${truncate(body)}`);
  }

  private logResponse(status: number, headers: Record<string, string>, text: string, ms: number): void {
    if (!this.opts.debug) return;
    this.debug(`< ${status} ${httpReason(status)} (${ms} ms)`);
    for (const [k, v] of Object.entries(headers)) this.debug(`< ${k}: ${v}`);
    if (text) this.debug(`< ${truncate(text)}`);
  }
}

function attempts(n: number): string {
  return n > 1 ? ` after ${n} attempts` : '';
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

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Retry-After as seconds or an HTTP date, capped at a minute. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let ms: number | undefined;
  if (/^\d+(\.\d+)?$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (!Number.isNaN(at)) ms = Math.max(0, at - now);
  }
  return ms === undefined ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.round(ms));
}

function describeNetworkError(err: unknown, timeoutMs: number): string {
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
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error',
  502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};
function httpReason(status: number): string {
  return REASONS[status] ?? 'HTTP error';
}
