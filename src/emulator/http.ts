// Low-level HTTP pieces: reading a bounded JSON body, parsing query strings against a route's
// parameters, and writing responses (every one carries Request-Id).
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { CURSOR_PATTERN } from '../shared/patterns.js';
import { ApiProblem, fieldName, problemBody, type FieldProblem } from './problems.js';
import type { Json, Route } from './types.js';

export const MAX_BODY = 1024 * 1024;
const MAX_DEPTH = 32;
const JSON_TYPE = /^application\/json\s*(;|$)/i;
const CURSOR = new RegExp(CURSOR_PATTERN);

export function send(res: ServerResponse, status: number, body: string, requestId: string, headers?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  const h: OutgoingHttpHeaders = {
    'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Request-Id': requestId,
  };
  if (headers) Object.assign(h, headers);
  res.writeHead(status, h);
  res.end(body);
}

export function sendProblem(res: ServerResponse, p: ApiProblem, requestId: string, headers?: Record<string, string>): void {
  send(res, p.status, problemBody(p, requestId), requestId, p.headers ? { ...headers, ...p.headers } : headers);
}

const tooLarge = (): ApiProblem =>
  new ApiProblem(413, 'payload_too_large', `the body is over ${MAX_BODY} bytes`, undefined, { Connection: 'close' });

/**
 * The raw body ('' when there is none). Refuses a declared length over the limit without
 * reading, and stops collecting (and answers 413) as soon as a chunked body passes it.
 */
export function readBody(req: IncomingMessage): Promise<string> {
  const len = req.headers['content-length'];
  if ((len === undefined || len === '0') && req.headers['transfer-encoding'] === undefined) return Promise.resolve('');
  const type = req.headers['content-type'];
  if (type === undefined || !JSON_TYPE.test(type)) {
    return Promise.reject(
      new ApiProblem(415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json', undefined, {
        Connection: 'close',
      }),
    );
  }
  if (len !== undefined && Number(len) > MAX_BODY) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > MAX_BODY) {
        cleanup();
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    };
    const onClose = (): void => {
      cleanup();
      reject(new ApiProblem(400, 'aborted', 'the client went away before sending the whole body'));
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onClose);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onClose);
    req.on('close', onClose);
  });
}

/** The body as a JSON object ({} when empty); 400 invalid_json, or 422 when it is not an object. */
export function parseBody(raw: string): Json {
  if (raw === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new ApiProblem(400, 'invalid_json', `the body is not valid JSON (${(e as Error).message.slice(0, 120)})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new ApiProblem(422, 'validation_error', 'the body must be a JSON object', [
      { field: 'body', code: 'type', message: 'must be a JSON object' },
    ]);
  }
  if (depth(v, 0) > MAX_DEPTH) {
    throw new ApiProblem(422, 'validation_error', 'the body is nested too deeply', [
      { field: 'body', code: 'invalid', message: `must not nest deeper than ${MAX_DEPTH} levels` },
    ]);
  }
  return v as Json;
}

function depth(v: unknown, d: number): number {
  if (d > MAX_DEPTH || v === null || typeof v !== 'object') return d;
  let max = d;
  for (const x of Array.isArray(v) ? v : Object.values(v as Json)) {
    if (x !== null && typeof x === 'object') max = Math.max(max, depth(x, d + 1));
    if (max > MAX_DEPTH) break;
  }
  return max;
}

/** Query parameters checked against the route: unknown, repeated or invalid ones are 400 invalid_parameter. */
export function parseQuery(route: Route, pairs: ReadonlyArray<[string, string]>): Map<string, string> {
  const out = new Map<string, string>();
  if (pairs.length === 0) return out;
  const errors: FieldProblem[] = [];
  for (const [k, v] of pairs) {
    let problem: string | undefined;
    if (out.has(k)) problem = 'is given more than once';
    else if (route.list && k === 'limit')
      problem = /^[0-9]{1,3}$/.test(v) && Number(v) >= 1 && Number(v) <= 100 ? undefined : 'must be a whole number from 1 to 100';
    else if (route.list && k === 'cursor')
      problem = CURSOR.test(v) ? undefined : 'must be the next_cursor of a previous page: 1-200 letters, digits, "_" or "-"';
    else if (route.query && Object.hasOwn(route.query, k)) problem = route.query[k]!(v);
    else problem = 'is not a parameter of this operation';
    if (problem) errors.push({ field: fieldName(k), code: 'invalid', message: problem });
    else out.set(k, v);
  }
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new ApiProblem(
      400,
      'invalid_parameter',
      errors.length === 1 ? `query parameter ${first.field}: ${first.message}` : `${errors.length} query parameters are invalid`,
      errors,
    );
  }
  return out;
}
