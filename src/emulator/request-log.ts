// The log of API requests received (every request outside the admin routes, also rejected
// ones), bounded in count (1000) and in bytes (8 MiB): the oldest go first. A body is kept as
// the text received, its first 64 KiB at most, never parsed (`body` parses it when read).
// In-process (tests) the headers are as received; GET /__emulator/requests shows each request
// through toJSON(), with keys and anything secret-looking masked, and the values of secret-named
// body fields (password, pin, cvv, token, …) hidden.
//
// Every request gets the next number of a sequence that never goes back (not even on reset), and
// its answer (status, duration, replayed) once sent: `list()` reads the log from a number on
// (`pay emulator requests --follow` polls with the last one it printed), stopping before the first
// request still being answered, so a reader misses none and sees none twice.
import type { IncomingHttpHeaders } from 'node:http';
import { maskKey, maskSecretShapes } from '../shared/keys.js';

export const LOG_MAX_COUNT = 1000;
export const LOG_MAX_BYTES = 8 * 1024 * 1024;
export const LOG_BODY_MAX = 64 * 1024;

/** Fixed cost counted per entry besides its strings (object, arrays, bookkeeping). */
const ENTRY_OVERHEAD = 256;

/** Header and query names whose values are secrets whatever they look like. */
const SECRET_NAME = /key|secret|token|auth|passw|signature|cookie|session|credential/i;
const NOT_SECRET = new Set(['idempotency-key']);
/** Credentials after an auth scheme, wherever they appear. */
const AUTH_VALUE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

const maskValue = (v: string): string => (v.length > 512 ? `${maskKey(v.slice(0, 512))}` : maskKey(v));

/**
 * Text with every secret-looking token replaced by its masked form: keys and webhook secrets (the
 * shared shape), found also where the text encodes them (percent escapes, `+`, JSON escapes:
 * maskSecretShapes), and credentials after an auth scheme.
 */
export function maskText(s: string): string {
  return maskSecretShapes(s).replace(AUTH_VALUE, (_m, scheme: string) => `${scheme} …`);
}

/** Percent escapes undone, `+` kept as it is (in a key it is base64's `+`, whatever a form decoder makes of it). */
function percentDecoded(v: string): string {
  return v.replace(/(?:%[0-9A-Fa-f]{2})+/g, (m) => {
    try {
      return decodeURIComponent(m);
    } catch {
      return m;
    }
  });
}

/**
 * The query as the log shows it, from the raw query string: each value decoded as a form decodes it
 * (`+` a space), unless it holds a secret read with `+` as itself (a key's base64 `+` sent
 * unescaped): then that reading, masked, so no part of the key is shown. The last of a repeated name
 * stands, as in `query`.
 */
function maskedQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    const name = new URLSearchParams(`${rawName}=`).keys().next().value ?? rawName;
    const value = new URLSearchParams(`x=${rawValue}`).get('x') ?? rawValue;
    const literal = percentDecoded(rawValue);
    const secretName = (SECRET_NAME.test(name) || isBodySecret(name)) && !NOT_SECRET.has(name.toLowerCase());
    const shown = secretName ? maskValue(literal) : maskText(literal) !== literal ? maskText(literal) : maskText(value);
    Object.defineProperty(out, maskText(name), { value: shown, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const maskField = (name: string, v: string): string =>
  (SECRET_NAME.test(name) || isBodySecret(name)) && !NOT_SECRET.has(name.toLowerCase()) ? maskValue(v) : maskText(v);

/**
 * Body fields whose values are secrets whatever they look like: passwords, PINs, card security
 * codes, one-time codes, tokens, secrets, keys (not `idempotency_key`), credentials. Matched on
 * the field's name (`password`, `new_passwd`, `card_pin`, `cvv2`, `access_token`, `client_secret`).
 */
const BODY_SECRET_NAME =
  /passw|pwd|secret|token|api_?key|private_?key|auth(?!or)|credential|cookie|session|signature|cvv|cvc|(^|[_-])(pin|otp)([_-]|\d|$)/i;
const isBodySecret = (name: string): boolean => BODY_SECRET_NAME.test(name) && !NOT_SECRET.has(name.toLowerCase().replace(/_/g, '-'));
/** A secret field's value, whatever it is: `…` (even a key's last 4, or a PIN's, would say too much). */
const hideValue = (): string => '…';

/** A parsed body with every secret-named field's value hidden, at any depth; other strings through maskText. */
function maskJson(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return maskText(v);
  if (v === null || typeof v !== 'object' || depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => maskJson(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    Object.defineProperty(out, maskText(k), {
      value: isBodySecret(k) ? hideValue() : maskJson(x, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** A body that is not whole JSON (cut at LOG_BODY_MAX, or another format): `"name": value` and `name=value` of secret names hidden. */
function maskBodyText(text: string): string {
  return maskText(text)
    .replace(/("([A-Za-z0-9_-]{1,64})"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)/g, (m, lead: string, name: string) =>
      isBodySecret(name) ? `${lead}"…"` : m,
    )
    .replace(/(^|[&?\s])([A-Za-z0-9_.-]{1,64})=([^&\s]*)/g, (m, lead: string, name: string) =>
      isBodySecret(name) ? `${lead}${name}=…` : m,
    );
}

const size = (s: string | undefined): number => (s === undefined ? 0 : s.length);

/** One request as received. */
export class ReceivedRequest {
  /** The body's text (at most LOG_BODY_MAX characters); undefined without a body. */
  bodyText: string | undefined = undefined;
  /** The body's whole length in bytes (0 without one). */
  bodyBytes = 0;
  /** Whether bodyText is only the start of the body. */
  bodyTruncated = false;
  /** What this entry counts against LOG_MAX_BYTES. */
  size: number;
  /** Its place in the log's sequence (1, 2, …; set by RequestLog.record). */
  seq = 0;
  /** When it arrived (the emulator's clock, RFC 3339). */
  receivedAt = '';
  /** The Request-Id of its answer. */
  requestId: string | undefined = undefined;
  /** Its answer's status; null while it is being answered, or when the connection closed without one. */
  status: number | null = null;
  /** Milliseconds from arrival to the answer (or to the connection closing); null while in flight. */
  durationMs: number | null = null;
  /** Its answer was a stored one (Idempotent-Replayed: true). */
  replayed = false;
  /** The query string as received (what the log shows is read from it: see maskedQuery). */
  rawQuery: string | undefined = undefined;
  /** Answered, or its connection closed. */
  done = false;
  private readonly startedAt = performance.now();

  constructor(
    readonly method: string,
    readonly path: string,
    readonly query: Record<string, string>,
    readonly headers: IncomingHttpHeaders,
  ) {
    let n = ENTRY_OVERHEAD + method.length + path.length;
    for (const k in query) n += k.length + query[k]!.length;
    for (const k in headers) {
      const v = headers[k];
      n += k.length + (Array.isArray(v) ? v.join('').length : size(v));
    }
    this.size = n;
  }

  /** The body parsed as JSON when it is whole JSON, else its text; undefined without a body. Parsed on every read (never kept). */
  get body(): unknown {
    if (this.bodyText === undefined || this.bodyTruncated) return this.bodyText;
    try {
      return JSON.parse(this.bodyText) as unknown;
    } catch {
      return this.bodyText;
    }
  }

  /** The admin route's view: keys and secret-looking values masked. */
  toJSON(): Record<string, unknown> {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(this.headers)) {
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.map((x) => maskField(k, x)) : maskField(k, v);
    }
    let query: Record<string, string> = {};
    if (this.rawQuery !== undefined) query = maskedQuery(this.rawQuery);
    else for (const [k, v] of Object.entries(this.query)) query[maskText(k)] = maskField(k, v);
    let body: unknown;
    if (this.bodyText !== undefined) {
      body = maskBodyText(this.bodyText);
      if (!this.bodyTruncated) {
        try {
          body = maskJson(JSON.parse(this.bodyText) as unknown);
        } catch {
          // Not JSON: the text, masked.
        }
      }
    }
    const key = this.headers['idempotency-key'];
    return {
      seq: this.seq,
      received_at: this.receivedAt,
      method: this.method,
      path: maskText(this.path),
      status: this.status,
      duration_ms: this.durationMs,
      request_id: this.requestId ?? null,
      idempotency_key: typeof key === 'string' ? maskText(key) : null,
      replayed: this.replayed,
      query,
      headers,
      body,
      body_bytes: this.bodyBytes,
      body_truncated: this.bodyTruncated,
    };
  }

  /** Records its answer (or, with status null, that the connection closed without one). Only the first call counts. */
  finish(status: number | null): void {
    if (this.done) return;
    this.done = true;
    this.status = status;
    this.durationMs = Math.round((performance.now() - this.startedAt) * 10) / 10;
  }
}

export interface LogQuery {
  /** Only requests numbered above this (a reader's last one); without it, the latest. */
  after?: number | undefined;
  /** How many requests at most (0 to ask only where the log stands). */
  limit: number;
  match?: ((r: ReceivedRequest) => boolean) | undefined;
}

export interface LogPage {
  /** Oldest first. */
  data: ReceivedRequest[];
  /** Where the next read continues (`after`): every request up to it was answered and considered. */
  nextAfter: number;
  /** Requests after `after` that left the log (it keeps LOG_MAX_COUNT) before they were read. */
  dropped: number;
}

export class RequestLog {
  /** Oldest first. Exposed as is (Emulator.received); only this class adds or removes. */
  readonly items: ReceivedRequest[] = [];
  private bytes = 0;
  /** The last number given (never reset). */
  private seq = 0;

  get size(): number {
    return this.bytes;
  }

  record(
    method: string,
    path: string,
    query: Record<string, string>,
    headers: IncomingHttpHeaders,
    meta: { requestId?: string; receivedAt?: string; rawQuery?: string } = {},
  ): ReceivedRequest {
    const r = new ReceivedRequest(method, path, query, headers);
    r.rawQuery = meta.rawQuery;
    if (meta.rawQuery !== undefined) r.size += meta.rawQuery.length;
    r.seq = ++this.seq;
    r.requestId = meta.requestId;
    r.receivedAt = meta.receivedAt ?? '';
    this.items.push(r);
    this.bytes += r.size;
    this.trim();
    return r;
  }

  /** Adds the body received for `r` (its first LOG_BODY_MAX characters, copied so the rest can go). */
  attach(r: ReceivedRequest, raw: string): void {
    r.bodyBytes = Buffer.byteLength(raw);
    r.bodyTruncated = raw.length > LOG_BODY_MAX;
    // A slice would keep the whole string alive; a copy through a Buffer does not.
    r.bodyText = r.bodyTruncated ? Buffer.from(raw.slice(0, LOG_BODY_MAX), 'utf8').toString('utf8') : raw;
    const added = r.bodyText.length;
    r.size += added;
    if (this.items.lastIndexOf(r) >= 0) {
      this.bytes += added;
      this.trim();
    }
  }

  private trim(): void {
    let drop = 0;
    let bytes = this.bytes;
    while (this.items.length - drop > 1 && (this.items.length - drop > LOG_MAX_COUNT || bytes > LOG_MAX_BYTES))
      bytes -= this.items[drop++]!.size;
    if (drop > 0) {
      // Once full, one goes per request: shift() makes no array of the removed.
      if (drop === 1) this.items.shift();
      else this.items.splice(0, drop);
      this.bytes = bytes;
    }
  }

  clear(): void {
    this.items.length = 0;
    this.bytes = 0;
  }

  /**
   * A page of answered requests. With `after`: the first `limit` matching ones numbered above it,
   * never past a request still being answered (it and those after it come in a later read).
   * Without: the last `limit` matching answered ones. `nextAfter` is where a reader continues.
   */
  list(q: LogQuery): LogPage {
    const items = this.items;
    // The horizon: everything up to it is answered (a reader may move past it).
    let horizon = this.seq;
    const from = q.after ?? 0;
    for (const r of items) {
      if (r.seq > from && !r.done) {
        horizon = r.seq - 1;
        break;
      }
    }
    const first = items[0]?.seq ?? this.seq + 1;
    if (q.after === undefined) {
      const data: ReceivedRequest[] = [];
      for (let i = items.length - 1; i >= 0 && data.length < q.limit; i--) {
        const r = items[i]!;
        if (r.done && (!q.match || q.match(r))) data.push(r);
      }
      return { data: data.reverse(), nextAfter: horizon, dropped: 0 };
    }
    // A number past the log's is read as it is (nothing after it yet): whether the reader followed
    // another run of the emulator is told by the answer's started_at (admin.ts), which the reader
    // compares (pay emulator requests --follow then reads this run from after=0). A guess from the
    // number alone would be wrong once this run has answered as many requests as the last.
    const after = q.after;
    const dropped = Math.max(0, Math.min(first - 1, horizon) - after);
    const data: ReceivedRequest[] = [];
    let nextAfter = Math.max(after, horizon);
    for (const r of items) {
      if (r.seq <= after) continue;
      if (r.seq > horizon) break;
      if (q.match && !q.match(r)) continue;
      if (data.length === q.limit) {
        nextAfter = data.at(-1)?.seq ?? after;
        break;
      }
      data.push(r);
    }
    if (q.limit === 0) nextAfter = after;
    return { data, nextAfter, dropped };
  }
}
