// What the API client makes of an answer: whether a 2xx is the success the caller expects, whether
// a list page is one (and holds only what was asked for), the body as JSON, Retry-After, and which
// statuses are tried again.
import { printable, type Query } from './url.js';

/**
 * What a 2xx answer must carry for the request to count as a success:
 * - `any`: JSON, or nothing (pay api);
 * - `object`: a JSON object (not an array, not null; `id` and `object`, when present, strings);
 * - `resource`: an object with a string `id` (what a create makes);
 * - `{ id }`: the object with this id (a get, update, delete or action on `<things>/{thing_id}`).
 * - `{ prefix }`: a new object of this kind, its id starting with the prefix (a create: `cus_`).
 */
export type Expect = 'any' | 'object' | 'resource' | { id: string } | { prefix: string };

export interface ListPage<T> {
  object?: string;
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const RETRY_STATUS = new Set([429, 500, 502, 503, 504]);
const MAX_RETRY_AFTER_MS = 60_000;

export function problemCode(body: unknown): string | undefined {
  const code = body && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why a non-error answer is not the success the caller expects, or undefined when it is. */
export function badAnswer(
  status: number,
  headers: Record<string, string>,
  text: string,
  body: unknown,
  expect: Expect,
): string | undefined {
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
export function badPage(page: unknown, belongs?: (item: Record<string, unknown>) => string | undefined): string | undefined {
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
