// The HTTP client (contract section 4): one keep-alive pool, an injectable dispatcher, the
// headers every request carries, one Idempotency-Key per command reused across retries,
// exponential backoff with full jitter that honours Retry-After (also on a 409
// idempotency_request_in_progress: the first request with the key is waited out), a per-attempt
// timeout, typed errors, --debug logging with secrets redacted, and a page iterator that refuses a
// cursor that repeats. Every URL is built by resolveUnder(): it stays under the base URL or the
// request is a usage error before anything is sent. An answer counts only as a 2xx with the JSON
// the caller expects (no redirect is followed), read with a byte cap (--max-response-bytes).
import { escapeText } from '../io/escape.js';
import { EventEmitter } from 'node:events';
import { Agent, type Dispatcher } from 'undici';
import { maskKey, redact } from '../config/keys.js';
import { MAX_RESPONSE_BYTES_DEFAULT } from '../config/settings.js';
import {
  ApiError,
  AuthError,
  damagedIn,
  DryRunStop,
  ExitCode,
  NetworkError,
  PayError,
  UsageError,
  type FieldError,
} from '../lib/errors.js';
import { refusalHint } from '../shared/rules.js';

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
  /** Where the key came from, for 401/403 messages: `PAY_API_KEY`, `--api-key` or `profile "default" (sandbox)`. */
  credentialLabel: string;
  /** What to do about a refused key, for the 401 hint (default: check the profile, or log in again). */
  credentialHint?: string;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Backoff base and cap in ms (tests shorten them). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** The most bytes of one answer's body pay reads (error answers too); default DEFAULT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  /**
   * A dry run (--dry-run): every request but a GET is handed to this, with the key masked,
   * instead of being sent; then request() throws DryRunStop. GETs (reads) are sent.
   */
  dryRun?: ((req: OutgoingRequest) => void) | undefined;
  /** Told of each answer the service replayed (Idempotent-Replayed: true), a refusal too, unless the request is quietReplay. */
  onReplay?: ((replay: Replay) => void | Promise<void>) | undefined;
}

/** A request as it would go on the wire: what a dry run prints. The key in `headers` is masked. */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The JSON body sent, or undefined when none is. */
  body?: unknown;
}

/** An answer the service replayed from an earlier request with the same Idempotency-Key. */
export interface Replay {
  method: string;
  /** The request path under the base URL (`customers`, `cards/card_…/freeze`). */
  path: string;
  idempotencyKey: string | undefined;
  body: unknown;
  /** The stored answer was a refusal (4xx): nothing was tried anew, and the same key only gets it again. */
  refusal?: { status: number; code: string | undefined };
  /**
   * Who used the key first, as far as pay knows: `attempt` when pay chose the key for this request
   * and retried it (the stored answer is its own earlier attempt's: nobody reused a key), `either`
   * when the caller gave the key and pay retried (an earlier attempt, or an earlier use of that key);
   * absent on a first attempt (the key was used before this command).
   */
  earlier?: 'attempt' | 'either';
}

/** 32 MiB: a page of 100 objects is a few hundred KiB; --max-response-bytes / PAY_MAX_RESPONSE_BYTES change it. */
export const DEFAULT_MAX_RESPONSE_BYTES = MAX_RESPONSE_BYTES_DEFAULT;

/**
 * What a 2xx answer must carry for the request to count as a success:
 * - `any`: JSON, or nothing (pay api);
 * - `object`: a JSON object (not an array, not null; `id` and `object`, when present, strings);
 * - `resource`: an object with a string `id` (what a create makes);
 * - `{ id }`: the object with this id (a get, update, delete or action on `<things>/{thing_id}`).
 * - `{ prefix }`: a new object of this kind, its id starting with the prefix (a create: `cus_`).
 */
export type Expect = 'any' | 'object' | 'resource' | { id: string } | { prefix: string };

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestInit {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  query?: Query;
  body?: unknown;
  idempotencyKey?: string;
  /** What the 2xx answer must be; default `object`. */
  expect?: Expect;
  /** A replayed answer is expected and reported by the caller (bulk rows, seed entries): onReplay is not told. */
  quietReplay?: boolean;
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

/** A fresh Idempotency-Key. node:crypto loads on the first (≈ 2 ms): a command that only reads never loads it. */
function newKey(): string {
  return process.getBuiltinModule('node:crypto').randomUUID();
}

let sharedAgent: Agent | undefined;
/** The process's one keep-alive pool: the API client's and the emulator admin's (src/api/emulator-admin.ts), unless a test injects a dispatcher. */
export function defaultDispatcher(): Agent {
  if (!sharedAgent) {
    sharedAgent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 64, pipelining: 1 });
  }
  return sharedAgent;
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

export class ApiClient {
  private readonly base: URL;
  private readonly dispatcher: Dispatcher;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly secrets: (string | undefined)[];
  private readonly log: DebugLog;
  /** Targets of query-less requests by path: a bulk create sends thousands to one path. */
  private readonly plainTargets = new Map<string, Target>();

  constructor(private readonly opts: ClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.dispatcher = opts.dispatcher ?? defaultDispatcher();
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = opts.random ?? Math.random;
    this.secrets = [opts.apiKey, ...(opts.secrets ?? [])];
    this.log = new DebugLog(opts.debug, this.secrets);
  }

  /** The URL of a path under the base URL (`customers/cus_1` or `/customers/cus_1`); UsageError when it would leave it. */
  url(path: string, query?: Query): URL {
    return resolveUnder(this.base, path, query);
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
    const idempotencyKey = isPost ? (init.idempotencyKey ?? newKey()) : init.method === 'PATCH' ? init.idempotencyKey : undefined;
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
    if (this.opts.dryRun && init.method !== 'GET') {
      this.opts.dryRun({
        method: init.method,
        url: url.toString(),
        headers: { ...headers, 'api-key': maskKey(this.opts.apiKey) },
        ...(payload !== undefined ? { body: JSON.parse(payload) as unknown } : {}),
      });
      throw new DryRunStop();
    }
    const what = `${init.method} ${url.pathname}`;
    const maxBytes = this.opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

    const maxAttempts = 1 + this.opts.maxRetries;
    for (let attempt = 1; ; attempt++) {
      this.log.request(init.method, url, headers, payload, attempt);
      const started = Date.now();
      let status: number;
      let resHeaders: Record<string, string>;
      let text: string;
      try {
        ({
          status,
          headers: resHeaders,
          text,
        } = await sendOnce(this.dispatcher, {
          origin: target.origin,
          path: target.path,
          method: init.method,
          headers,
          body: payload,
          timeoutMs: this.opts.timeoutMs,
          maxBytes,
        }));
      } catch (err) {
        if (err instanceof TooLarge) throw this.tooLarge(what, maxBytes, idempotencyKey);
        // A damaged build (llhttp's WebAssembly missing or cut) is not the network's fault: no retry.
        const damaged = damagedIn(err);
        if (damaged) throw damaged;
        const reason = describeNetworkError(err, this.opts.timeoutMs);
        this.log.line(`! ${reason} after ${Date.now() - started} ms`);
        if (attempt < maxAttempts) {
          await this.backoff(attempt, undefined);
          continue;
        }
        throw new NetworkError(`${what} failed: ${reason}${attempts(attempt)}`, {
          hint: idempotencyKey ? `retry safely with --idempotency-key ${idempotencyKey}` : undefined,
          details: { idempotency_key: idempotencyKey, url: url.toString() },
          cause: err,
        });
      }
      this.log.response(status, resHeaders, text, Date.now() - started);
      if (RETRY_STATUS.has(status) && attempt < maxAttempts) {
        await this.backoff(attempt, resHeaders['retry-after']);
        continue;
      }
      const body = parseBody(text);
      // The first request with this key is still running (ours timed out, or a twin is in
      // flight): wait it out with the same key, then its result is replayed.
      if (status === 409 && idempotencyKey && problemCode(body) === 'idempotency_request_in_progress' && attempt < maxAttempts) {
        await this.backoff(attempt, resHeaders['retry-after']);
        continue;
      }
      const requestId = resHeaders['request-id'] ?? resHeaders['x-request-id'] ?? (body as { request_id?: string })?.request_id;
      if (status >= 400) {
        const replayed = resHeaders['idempotent-replayed'] === 'true';
        const err = this.toError(init, url, status, body, requestId, idempotencyKey, attempt, replayed);
        if (replayed && !init.quietReplay)
          await this.opts.onReplay?.({
            method: init.method,
            path: init.path,
            idempotencyKey,
            body,
            refusal: { status, code: problemCode(body) },
            ...earlierOf(attempt, init),
          });
        throw err;
      }
      const problem = badAnswer(status, resHeaders, text, body, init.expect ?? 'object');
      if (problem)
        throw this.badResponse(
          what,
          status,
          problem,
          requestId,
          idempotencyKey,
          status >= 300 && status < 400 ? 'redirect' : 'bad_response',
        );
      const replayed = resHeaders['idempotent-replayed'] === 'true';
      if (replayed && !init.quietReplay)
        await this.opts.onReplay?.({ method: init.method, path: init.path, idempotencyKey, body, ...earlierOf(attempt, init) });
      return { status, headers: resHeaders, body: body as T, requestId, idempotencyKey, replayed, attempts: attempt };
    }
  }

  /**
   * Streams a list page by page, following `next_cursor`. `limit` caps the number of items
   * (undefined with all = every item); the page size is at most 100. Each page must be a list
   * envelope of objects (`badPage`); `belongs`, when given, says why an item is not what was asked
   * for (another customer's account), which is the service's fault too; `checkFilters` adds the
   * query's own filters to it (filteredBy). The contract's rule: a
   * page with `has_more: true` carries a string `next_cursor`, and an empty page that says so is
   * followed (its cursor moves on; at most MAX_EMPTY_PAGES of them in a row). A page that says
   * has_more without a cursor, or a cursor that repeats, is an error naming the service's fault
   * (exit 1) after the items before it were yielded: never an endless --all, never a silent stop.
   */
  async *pages<T>(
    path: string,
    query: Query,
    opts: {
      limit?: number | undefined;
      all?: boolean;
      first?: ApiResponse;
      belongs?: ((item: Record<string, unknown>) => string | undefined) | undefined;
      /** Check each item against the query's `*_id` filters too (filteredBy). */
      checkFilters?: boolean;
      /** Told when the list stops at `limit` while the service has more (has_more, or items left on the page). */
      onMore?: () => void;
    },
  ): AsyncGenerator<T[]> {
    const byFilters = opts.checkFilters ? filteredBy(query) : undefined;
    const own = opts.belongs;
    const belongs = byFilters && own ? (item: Record<string, unknown>) => byFilters(item) ?? own(item) : (byFilters ?? own);
    let remaining = opts.all ? Infinity : (opts.limit ?? 20);
    let cursor: string | undefined;
    const seen = new Set<string>();
    let pages = 0;
    let items = 0;
    let empty = 0;
    // `first`: the first page, already asked for by the caller (pay api --paginate, to tell a list from an object).
    let first = opts.first as ApiResponse<ListPage<T>> | undefined;
    const what = `GET ${this.url(path).pathname}`;
    while (remaining > 0) {
      const pageSize = Math.min(100, opts.all ? (opts.limit ?? 100) : remaining);
      const res = first ?? (await this.request<ListPage<T>>({ method: 'GET', path, query: { ...query, limit: pageSize, cursor } }));
      first = undefined;
      pages++;
      const page = res.body;
      const problem = badPage(page, belongs);
      if (problem) throw this.badResponse(what, res.status, problem, res.requestId, undefined, 'bad_response');
      const taken = opts.all ? page.data : page.data.slice(0, remaining);
      remaining -= taken.length;
      items += taken.length;
      if (taken.length > 0) yield taken;
      if (!page.has_more || remaining <= 0) {
        if (page.has_more || taken.length < page.data.length) opts.onMore?.();
        return;
      }
      const next = page.next_cursor;
      empty = page.data.length === 0 ? empty + 1 : 0;
      let fault: string | undefined;
      if (typeof next !== 'string' || next === '')
        fault = `says has_more: true with ${next === '' ? 'an empty' : 'no'} next_cursor, which the contract forbids (a list with more items must say where they are)`;
      else if (next === cursor) fault = 'gave the same cursor again: the list does not advance';
      else if (seen.has(next)) fault = 'gave a cursor it had given before: the list does not advance';
      else if (empty > MAX_EMPTY_PAGES) fault = `gave ${MAX_EMPTY_PAGES} empty pages in a row, each saying has_more: true`;
      if (fault) {
        throw new PayError(
          `${what}: the service broke the list contract: it ${fault} (after ${pages} ${pages === 1 ? 'page' : 'pages'} and ${items} ${items === 1 ? 'item' : 'items'})`,
          ExitCode.ERROR,
          'cursor_loop',
          {
            details: { path: this.url(path).pathname, cursor: next, pages, items, request_id: res.requestId },
            hint: `the ${items === 1 ? 'item' : `${items} items`} before it ${items === 1 ? 'was' : 'were'} printed and are as the service sent them; the rest of the list is missing: report it to the service${res.requestId ? ` (request ${printable(res.requestId)})` : ''}`,
          },
        );
      }
      seen.add(next as string);
      cursor = next as string;
    }
  }

  private badResponse(
    what: string,
    status: number,
    problem: string,
    requestId: string | undefined,
    idempotencyKey: string | undefined,
    code: string,
  ): PayError {
    const refs = [requestId && `request ${printable(requestId)}`, idempotencyKey && `idempotency key ${idempotencyKey}`].filter(Boolean);
    return new PayError(`${what}: ${redact(problem, this.secrets)}${refs.length ? ` (${refs.join(', ')})` : ''}`, ExitCode.ERROR, code, {
      details: { status, request_id: requestId, idempotency_key: idempotencyKey },
      hint: idempotencyKey
        ? `it may or may not have been done: run it again with --idempotency-key ${idempotencyKey} to get its result without doing it twice`
        : code === 'redirect'
          ? 'pay follows no redirect: check the base URL (pay doctor), or whether a proxy or captive portal answers'
          : 'check the base URL (pay doctor), or whether a proxy or captive portal answers',
    });
  }

  private tooLarge(what: string, max: number, idempotencyKey: string | undefined): PayError {
    return new PayError(
      `${what}: the answer is larger than ${formatBytes(max)}; pay stopped reading it`,
      ExitCode.ERROR,
      'response_too_large',
      {
        details: { max_response_bytes: max, idempotency_key: idempotencyKey },
        hint: `raise the cap with --max-response-bytes or PAY_MAX_RESPONSE_BYTES${idempotencyKey ? `; run it again with --idempotency-key ${idempotencyKey} to get its result without doing it twice` : ''}`,
      },
    );
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
      customer_id?: unknown;
      kyc_status?: unknown;
      feature?: unknown;
    };
    const what = problem.detail || problem.title || (typeof body === 'string' && body ? body.slice(0, 200) : httpReason(status));
    // A replayed refusal names its key as the one whose stored answer this is: retrying with it cannot help.
    const keyRef = idempotencyKey && (replayed ? `replayed for idempotency key ${idempotencyKey}` : `idempotency key ${idempotencyKey}`);
    const refs = [requestId && `request ${requestId}`, keyRef].filter(Boolean);
    const suffix = refs.length ? ` (${refs.join(', ')})` : '';
    const code = problem.code ? ` ${problem.code}` : '';
    // replayed: the service answered a stored refusal of this key again (nothing was tried anew).
    const details = {
      status,
      code: problem.code,
      request_id: requestId,
      idempotency_key: idempotencyKey,
      method: init.method,
      path: url.pathname,
      ...(replayed ? { replayed } : {}),
    };
    if (status === 401) {
      return new ApiError(`HTTP 401${code}: the API key from ${this.opts.credentialLabel} is missing or invalid${suffix}`, {
        status,
        apiCode: problem.code,
        requestId,
        idempotencyKey,
        details,
        hint: this.opts.credentialHint ?? 'check the key with pay profiles show, or log in again with pay login',
      });
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
          ? `the key from ${this.opts.credentialLabel} is not allowed to do this`
          : replayed && idempotencyKey
            ? `the same idempotency key only replays this answer: to try again, send it with a new one (or without --idempotency-key)`
            : (status >= 500 || problem.code === 'idempotency_request_in_progress') && idempotencyKey
              ? `retry safely with --idempotency-key ${idempotencyKey}`
              : // A refusal of the business rules (or a 409 it leads to): what to run (the customers, KYC states and features the answer names, checked).
                status === 422 || status === 409
                ? refusalHint(problem)
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
    this.log.line(`… retrying in ${ms} ms (attempt ${attempt + 1} of ${1 + this.opts.maxRetries})`);
    await this.sleep(ms);
  }
}

/** Replay.earlier: whether a replay may be the answer to this request's own earlier attempt (pay retried it). */
function earlierOf(attempt: number, init: RequestInit): Pick<Replay, 'earlier'> {
  if (attempt <= 1) return {};
  return { earlier: init.idempotencyKey === undefined ? 'attempt' : 'either' };
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

/** A segment may hold RFC 3986 path characters only, `%` only as `%XX`. */
const SEGMENT = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*$/;
const ENCODED = /%[0-9A-Fa-f]{2}/;

/**
 * Why a path may not be sent under the base URL, or undefined. Refused: anything but printable
 * ASCII (tabs and newlines, which a WHATWG parser drops, spaces, unicode look-alikes), `\`, `#`,
 * empty segments (`//host`), a scheme (`https:`), characters a parser would re-encode, and
 * segments that are, or decode (once or more: `%2e%2e`, `%252e`) to, `.` or `..` or hold a
 * `/`, `\`, `?`, `#` or anything but printable ASCII: a server that decodes them would resolve
 * another path.
 */
function pathProblem(pathPart: string): string | undefined {
  if (/[^\x21-\x7e]/.test(pathPart)) return 'it holds a space, a control character or a non-ASCII character';
  if (pathPart.includes('\\')) return 'it holds a backslash';
  if (pathPart.includes('#')) return 'it holds a "#"';
  const rel = pathPart.startsWith('/') ? pathPart.slice(1) : pathPart;
  const segments = rel.split('/');
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(segments[0] ?? '')) return 'it is an absolute URL';
  for (let i = 0; i < segments.length; i++) {
    let seg = segments[i]!;
    if (seg === '') {
      if (i === segments.length - 1 && i > 0) continue; // a trailing slash
      if (rel === '') continue; // the base URL itself
      return 'it has an empty segment ("//")';
    }
    if (!SEGMENT.test(seg)) return `segment "${seg}" holds a character that is not allowed in a path`;
    for (let round = 0; ; round++) {
      // A path parameter (";x") does not hide a dot segment: some servers read "..;" as "..".
      const bare = seg.split(';')[0]!;
      if (bare === '.' || bare === '..') return 'it has a dot segment ("." or "..", encoded or not)';
      if (/[/\\?#]|[^\x21-\x7e]/.test(seg))
        return `segment "${segments[i]}" decodes to a "/", "\\", "?", "#", space, control or non-ASCII character`;
      if (!ENCODED.test(seg)) break;
      if (round === 4) return `segment "${segments[i]}" is percent-encoded too many times`;
      try {
        seg = decodeURIComponent(seg);
      } catch {
        return `segment "${segments[i]}" holds invalid percent-encoding`;
      }
    }
  }
  return undefined;
}

/**
 * The one URL builder: `path` (relative to the base URL; pay api may add `?a=b`) and `query`
 * under `base`. The URL is parsed from the base's own text plus the path, and must come out
 * exactly as written (no dot segment removed, nothing re-encoded), on the base's origin and under
 * its path; anything else is a UsageError (exit 2) before any request.
 */
export function resolveUnder(base: URL, path: string, query?: Query): URL {
  const q = path.indexOf('?');
  const pathPart = q < 0 ? path : path.slice(0, q);
  const queryPart = q < 0 ? '' : path.slice(q + 1);
  const refuse = (why: string) =>
    new UsageError(`refused API path "${printable(path)}": ${why}`, {
      hint: 'a path is relative to the base URL, e.g. customers/cus_…; nothing was sent (pass --base-url to talk to another service)',
    });
  const problem =
    pathProblem(pathPart) ??
    (/[^\x21-\x7e]|#/.test(queryPart) ? 'its query holds a space, "#", a control or a non-ASCII character' : undefined);
  if (problem) throw refuse(problem);
  const href = `${base.href}${pathPart.startsWith('/') ? pathPart.slice(1) : pathPart}`;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw refuse('it does not make a valid URL');
  }
  if (url.href !== href || url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
    throw refuse(`it would resolve to ${printable(url.href)}, not under ${base.href}`);
  }
  if (queryPart) for (const [k, v] of new URLSearchParams(queryPart)) url.searchParams.append(k, v);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  }
  return url;
}

/** At most 80 characters, shown escaped by the one escaping function: for messages that quote input. */
function printable(s: string): string {
  return escapeText(s.length > 80 ? `${s.slice(0, 80)}…` : s);
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

function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return n === 1 ? '1 byte' : `${n} bytes`;
}

function problemCode(body: unknown): string | undefined {
  const code = body && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why a non-error answer is not the success the caller expects, or undefined when it is. */
function badAnswer(status: number, headers: Record<string, string>, text: string, body: unknown, expect: Expect): string | undefined {
  if (status < 200 || status >= 300) {
    const location = headers['location'];
    return status >= 300 && status < 400
      ? `the service answered ${status} (a redirect${location ? ` to ${printable(location)}` : ''}); pay follows no redirect`
      : `the service answered ${status}, not a success`;
  }
  const type = headers['content-type'];
  // Only a 204 (No Content) may be empty, and only for a raw request: every operation of the
  // contract answers JSON, so an empty 200 or 201 is a failure (a create that never happened).
  if (text.trim() === '')
    return expect === 'any' && status === 204
      ? undefined
      : `the service answered ${status} with no body where ${expectText(expect)} was expected`;
  if (typeof body === 'string') {
    return `the service answered ${status} with ${type ? printable(type.split(';')[0]!) : 'a body'} that is not JSON where ${expect === 'any' ? 'JSON' : expectText(expect)} was expected`;
  }
  if (expect === 'any') return undefined;
  if (!isObject(body))
    return `the service answered ${status} with JSON ${Array.isArray(body) ? 'array' : body === null ? 'null' : typeof body} where ${expectText(expect)} was expected`;
  if ('object' in body && typeof body.object !== 'string')
    return `the service answered ${status} with an object whose "object" is not a string`;
  if ('id' in body && (typeof body.id !== 'string' || body.id === ''))
    return `the service answered ${status} with an object whose "id" is not a string`;
  if (expect === 'object') return undefined;
  if (typeof body.id !== 'string')
    return `the service answered ${status} with an object without an "id" where ${expectText(expect)} was expected`;
  if (typeof expect === 'object' && 'id' in expect && body.id !== expect.id)
    return `the service answered ${status} with object ${printable(body.id)} where ${expect.id} was expected`;
  if (typeof expect === 'object' && 'prefix' in expect && !body.id.startsWith(expect.prefix))
    return `the service answered ${status} with object ${printable(body.id)} where a new ${expect.prefix}… object was expected`;
  return undefined;
}

function expectText(expect: Expect): string {
  if (typeof expect === 'object') return 'id' in expect ? `object ${expect.id}` : `a new ${expect.prefix}… object`;
  return expect === 'resource' ? 'an object with an id' : expect === 'object' ? 'a JSON object' : 'JSON';
}

/**
 * The check of a list's items against the filters asked for (pages()' `belongs`): an item that
 * carries a field the query filtered by (`customer_id`, `account_id`, `wallet_id`: any `*_id`)
 * with another value is not what was asked for (another customer's account), and the service's
 * fault. Items without the field are not judged (a transfer lists by account without one).
 */
export function filteredBy(query: Query): ((item: Record<string, unknown>) => string | undefined) | undefined {
  const filters = Object.entries(query).filter(
    (e): e is [string, string] => e[0].endsWith('_id') && typeof e[1] === 'string' && e[1] !== '',
  );
  if (filters.length === 0) return undefined;
  return (item) => {
    for (const [field, value] of filters) {
      const got = item[field];
      if (typeof got === 'string' && got !== value) {
        const what = typeof item.object === 'string' ? item.object : 'item';
        return `${printable(what)} ${typeof item.id === 'string' ? printable(item.id) : '(no id)'} whose ${field} is ${printable(got)}, where ${field}=${printable(value)} was asked for`;
      }
    }
    return undefined;
  };
}

/** Consecutive empty pages with has_more: true that pages() follows before it calls the list endless. */
export const MAX_EMPTY_PAGES = 1000;

/** Why a list answer is not a page of objects (or holds an item `belongs` refuses), or undefined. */
function badPage(page: unknown, belongs?: (item: Record<string, unknown>) => string | undefined): string | undefined {
  if (!isObject(page) || !Array.isArray(page.data)) return 'the service answered a list without a data array';
  if ('has_more' in page && typeof page.has_more !== 'boolean') return 'the service answered a list whose has_more is not true or false';
  if (page.next_cursor !== undefined && page.next_cursor !== null && typeof page.next_cursor !== 'string')
    return 'the service answered a list whose next_cursor is not a string';
  if (!page.data.every(isObject)) return 'the service answered a list whose items are not all objects';
  if (belongs)
    for (const item of page.data) {
      const wrong = belongs(item);
      if (wrong) return `the service answered a list holding ${wrong}`;
    }
  return undefined;
}

/** An answer's text as JSON; the text itself when it is not JSON, undefined when empty. */
export function parseBody(text: string): unknown {
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
function httpReason(status: number): string {
  return REASONS[status] ?? 'HTTP error';
}
