// The HTTP client (contract section 4): one keep-alive pool, an injectable dispatcher, the
// headers every request carries, one Idempotency-Key per command reused across retries,
// exponential backoff with full jitter that honours Retry-After (also on a 409
// idempotency_request_in_progress: the first request with the key is waited out), a per-attempt
// timeout, typed errors, --debug logging with secrets redacted, and a page iterator that refuses a
// cursor that repeats. Every URL is built by resolveUnder(): it stays under the base URL or the
// request is a usage error before anything is sent. An answer counts only as a 2xx with the JSON
// the caller expects (no redirect is followed), read with a byte cap (--max-response-bytes).
// Its parts: the plumbing shared with the emulator's admin client (transport.ts), the URL builder
// (url.ts), what an answer must be (answers.ts) and the errors a failed request throws (errors.ts).
import type { Dispatcher } from 'undici';
import { maskKey } from '../config/keys.js';
import { MAX_RESPONSE_BYTES_DEFAULT } from '../config/settings.js';
import { damagedIn, DryRunStop, ExitCode, NetworkError, PayError } from '../lib/errors.js';
import {
  badAnswer,
  badPage,
  filteredBy,
  MAX_EMPTY_PAGES,
  parseBody,
  parseRetryAfter,
  problemCode,
  RETRY_STATUS,
  type Expect,
  type ListPage,
} from './answers.js';
import { attempts, badResponse, refused, tooLarge, type Credential } from './errors.js';
import { DebugLog, defaultDispatcher, describeNetworkError, sendOnce, TooLarge } from './transport.js';
import { printable, resolveUnder, type Query } from './url.js';

export type { Expect, ListPage } from './answers.js';
export type { Query } from './url.js';

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

export class ApiClient {
  private readonly base: URL;
  private readonly dispatcher: Dispatcher;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly secrets: (string | undefined)[];
  private readonly log: DebugLog;
  private readonly credential: Credential;
  /** Targets of query-less requests by path: a bulk create sends thousands to one path. */
  private readonly plainTargets = new Map<string, Target>();

  constructor(private readonly opts: ClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.dispatcher = opts.dispatcher ?? defaultDispatcher();
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = opts.random ?? Math.random;
    this.secrets = [opts.apiKey, ...(opts.secrets ?? [])];
    this.log = new DebugLog(opts.debug, this.secrets);
    this.credential = { label: opts.credentialLabel, hint: opts.credentialHint };
  }

  /**
   * A client like this one with some settings of its own (the name lookups': no retry, a short
   * timeout, no replay note), sharing its connections.
   */
  derive(over: Partial<Pick<ClientOptions, 'timeoutMs' | 'maxRetries' | 'maxResponseBytes' | 'onReplay'>>): ApiClient {
    return new ApiClient({ ...this.opts, dispatcher: this.dispatcher, ...over });
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
        if (err instanceof TooLarge) throw tooLarge(what, maxBytes, idempotencyKey);
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
          idempotencyKey,
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
        const err = refused(this.credential, this.secrets, init, url, status, body, requestId, idempotencyKey, attempt, replayed);
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
        throw badResponse(
          this.secrets,

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
      if (problem) throw badResponse(this.secrets, what, res.status, problem, res.requestId, undefined, 'bad_response');
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
