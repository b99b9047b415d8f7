// The log of API requests received (every request outside the admin routes, also rejected
// ones), bounded in count (1000) and in bytes (8 MiB): the oldest go first. A body is kept as
// the text received, its first 64 KiB at most, never parsed (`body` parses it when read).
// In-process (tests) the headers are as received; GET /__emulator/requests shows each request
// through toJSON(), with keys and anything secret-looking masked.
import type { IncomingHttpHeaders } from 'node:http';
import { maskKey } from '../shared/keys.js';

export const LOG_MAX_COUNT = 1000;
export const LOG_MAX_BYTES = 8 * 1024 * 1024;
export const LOG_BODY_MAX = 64 * 1024;

/** Fixed cost counted per entry besides its strings (object, arrays, bookkeeping). */
const ENTRY_OVERHEAD = 256;

/** Header and query names whose values are secrets whatever they look like. */
const SECRET_NAME = /key|secret|token|auth|passw|signature|cookie|session|credential/i;
const NOT_SECRET = new Set(['idempotency-key']);
/** Values that look like secrets wherever they appear. */
const SECRET_VALUE = /\b(?:sk|rk|pk)_(?:test|live)_[A-Za-z0-9]{4,}|\bwhsec_[A-Za-z0-9+/=]{4,}|\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

const maskValue = (v: string): string => (v.length > 512 ? `${maskKey(v.slice(0, 512))}` : maskKey(v));

/** Text with every secret-looking token replaced by its masked form. */
export function maskText(s: string): string {
  return s.replace(SECRET_VALUE, (m, scheme: string | undefined) => (scheme ? `${scheme} …` : maskKey(m)));
}

const maskField = (name: string, v: string): string =>
  SECRET_NAME.test(name) && !NOT_SECRET.has(name.toLowerCase()) ? maskValue(v) : maskText(v);

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
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.query)) query[k] = maskField(k, v);
    let body: unknown;
    if (this.bodyText !== undefined) {
      const text = maskText(this.bodyText);
      body = text;
      if (!this.bodyTruncated) {
        try {
          body = JSON.parse(text) as unknown;
        } catch {
          // Not JSON: the text.
        }
      }
    }
    return {
      method: this.method,
      path: maskText(this.path),
      query,
      headers,
      body,
      body_bytes: this.bodyBytes,
      body_truncated: this.bodyTruncated,
    };
  }
}

export class RequestLog {
  /** Oldest first. Exposed as is (Emulator.received); only this class adds or removes. */
  readonly items: ReceivedRequest[] = [];
  private bytes = 0;

  get size(): number {
    return this.bytes;
  }

  record(method: string, path: string, query: Record<string, string>, headers: IncomingHttpHeaders): ReceivedRequest {
    const r = new ReceivedRequest(method, path, query, headers);
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
}
