// Idempotency keys (draft-ietf-httpapi-idempotency-key-header). Keys are scoped by API key and
// tenant (an API key is one mode here, so: mode + tenant), kept 24 hours of emulator time.
// A request's fingerprint is its method, path and canonical JSON body. Only responses with
// status < 500 are stored, in the same journal line as the mutation they describe; a stored
// response is replayed only once that line is durable (the key stays in flight until then, and a
// refused commit reloads the state from disk, which drops it).
import { hash } from 'node:crypto';
import { ApiProblem } from './problems.js';
import type { Rec } from './types.js';

export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_RE = /^[\x20-\x7e]{1,255}$/;

export interface Stored {
  /** Fingerprint of the request. */
  f: string;
  /** Status and serialized body of the response. */
  s: number;
  b: string;
  /** When it was stored (emulator ms). */
  t: number;
  /** The record whose JSON `b` was when stored: while it still is, the journal refers to the record instead of repeating it. */
  r?: Rec | undefined;
}

/** An RFC 8941 sf-string: printable ASCII in double quotes, `"` and `\\` escaped with a backslash. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The key of an `Idempotency-Key` header. The IETF draft defines the field as an RFC 8941 Item
 * whose value is a String, so it writes keys quoted (`"8e03978e-…"`); clients also send the bare
 * token. Both spellings are one key: a value that starts with `"` is read as an sf-string (its
 * escapes undone; anything else after the closing quote, parameters included, is refused), any
 * other value is the key as it stands. Either way the key is 1-255 printable ASCII characters.
 */
export function checkKey(value: string | string[] | undefined): string {
  if (value === undefined || value === '') {
    throw new ApiProblem(400, 'missing_idempotency_key', 'every POST needs an Idempotency-Key header (a fresh UUID per logical request)');
  }
  if (Array.isArray(value)) throw new ApiProblem(400, 'invalid_idempotency_key', 'send one Idempotency-Key header, not several');
  let key = value;
  if (value.startsWith('"')) {
    const m = SF_STRING.exec(value);
    if (!m) {
      throw new ApiProblem(
        400,
        'invalid_idempotency_key',
        'a quoted Idempotency-Key must be one RFC 8941 string: "…" with only \\" and \\\\ escaped, nothing after it',
      );
    }
    key = m[1]!.replace(/\\(["\\])/g, '$1');
  }
  if (!KEY_RE.test(key)) {
    throw new ApiProblem(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1-255 printable ASCII characters (quoted or not)');
  }
  return key;
}

// JSON.stringify of object keys, which repeat from body to body (bounded: any key can come in,
// so short keys only, and at most 1000 of them).
const quotedKeys = new Map<string, string>();

function quotedKey(k: string): string {
  if (k.length > 64) return JSON.stringify(k);
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size >= 1000) quotedKeys.clear();
    quotedKeys.set(k, q);
  }
  return q;
}

/**
 * A string JSON.stringify writes as it is between two quotes: no quote, backslash, control
 * character or surrogate (JSON.stringify escapes those; a surrogate only when alone).
 */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * JSON with object keys sorted, so equal bodies compare equal whatever their key order. Its
 * output is part of every stored fingerprint (journals keep them): it must never change
 * (test/emulator/fingerprint.test.ts holds the first version as the reference). Loops rather
 * than map/filter/join, as it runs for every POST; a plain string is quoted here rather than by
 * a JSON.stringify call per value (a fifth of the instructions).
 */
export function canonicalJson(v: unknown): string {
  if (typeof v === 'string') return PLAIN.test(v) ? `"${v}"` : JSON.stringify(v);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += ',';
      s += canonicalJson(v[i]) ?? ''; // as join() writes an undefined element
    }
    return `${s}]`;
  }
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    let s = '{';
    let first = true;
    for (const k of keys) {
      const x = o[k];
      if (x === undefined) continue;
      if (!first) s += ',';
      first = false;
      s += `${quotedKey(k)}:${canonicalJson(x)}`;
    }
    return `${s}}`;
  }
  return JSON.stringify(v);
}

export function fingerprint(method: string, path: string, body: unknown): string {
  // One-shot hash (no Hash object per POST); same digest as createHash().update().digest().
  return hash('sha256', `${method} ${path}\n${canonicalJson(body)}`, 'base64url').slice(0, 32);
}

// The body is most often the JSON of a record put in the same journal line (a create's 201):
// then only the record's id is written (`r`; the replay takes the record's JSON at that point).
// A snapshot does the same while the record is unchanged; otherwise the body itself (`j`).
/** `since`: as in event-ops.ts eventOp, a reference only to a record unchanged since a snapshot began. */
const op = (key: string, v: Stored, since = Infinity): string =>
  `{"i":${JSON.stringify(key)},"f":"${v.f}","s":${v.s},"t":${v.t},${v.r !== undefined && v.r.json === v.b && v.r.v <= since ? `"r":"${v.r.id}"` : `"j":${v.b}`}}`;

export class Idempotency {
  private readonly done = new Map<string, Stored>();
  private readonly inflight = new Map<string, string>();
  private sinceSweep = 0;

  static scopeKey(mode: string, tenant: string, key: string): string {
    return `${mode}|${tenant}|${key}`;
  }

  /**
   * The stored response to replay, or undefined when the request should run (and is now in
   * flight). Throws 409 while the same key is in flight and 422 for the same key with another body.
   */
  begin(key: string, fp: string, now: number): Stored | undefined {
    if (this.inflight.has(key)) {
      throw new ApiProblem(
        409,
        'idempotency_request_in_progress',
        'a request with this Idempotency-Key is still being processed; retry shortly',
        undefined,
        { 'Retry-After': '1' },
      );
    }
    const stored = this.done.get(key);
    if (stored && now - stored.t < KEY_TTL_MS) {
      if (stored.f !== fp) {
        throw new ApiProblem(
          422,
          'idempotency_key_reused',
          'this Idempotency-Key was used with another request body or path; use a new key for a new request',
        );
      }
      return stored;
    }
    if (stored) this.done.delete(key);
    this.inflight.set(key, fp);
    return undefined;
  }

  end(key: string): void {
    this.inflight.delete(key);
  }

  /**
   * Records a finished response; returns the journal op (the body embedded as JSON, not
   * re-escaped). `refs` false: the body in full, never as a reference (app.ts refOk).
   */
  store(key: string, value: Stored, refs = true): string {
    this.apply(key, value);
    return op(key, value, refs ? Infinity : -1);
  }

  apply(key: string, value: Stored): void {
    this.done.set(key, value);
    if (++this.sinceSweep >= 10_000) this.sweep(value.t);
  }

  /** Drops keys older than 24 hours. */
  sweep(now: number): void {
    this.sinceSweep = 0;
    for (const [k, v] of this.done) if (now - v.t >= KEY_TTL_MS) this.done.delete(k);
  }

  *ops(since?: number): Iterable<string> {
    for (const [k, v] of this.done) yield op(k, v, since);
  }

  get size(): number {
    return this.done.size;
  }

  clear(): void {
    this.done.clear();
    this.inflight.clear();
  }

  /** Forgets the stored responses only (a reload from disk: requests in flight keep their keys). */
  clearStored(): void {
    this.done.clear();
  }
}
