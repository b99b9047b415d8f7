// The one URL builder of the API client: a path (and query) under the base URL, or a usage error
// before anything is sent.
import { escapeText } from '../io/escape.js';
import { UsageError } from '../lib/errors.js';

export type Query = Record<string, string | number | boolean | undefined | null>;

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
export function printable(s: string): string {
  return escapeText(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}
