// The filters of the emulator's request log (`pay emulator requests --status … --path …`), one
// reading for the CLI (which checks them before asking: exit 2) and the emulator's admin route
// (which applies them, so --limit counts matching requests).

export const STATUS_FILTER_FORMS = '2xx, 3xx, 4xx, 5xx or one code such as 404';
export const PATH_FILTER_FORMS =
  'a path prefix (/v1/customers), or a glob where * matches within one segment and ** across segments (/v1/customers/*/kyc); without a leading /, under /v1/';

/** --status: a class (`4xx`) or one code (`404`); undefined when it is neither. */
export function statusMatcher(raw: string): ((status: number | null) => boolean) | undefined {
  const v = raw.trim().toLowerCase();
  const cls = /^([1-5])xx$/.exec(v);
  if (cls) {
    const c = Number(cls[1]);
    return (s) => s !== null && Math.floor(s / 100) === c;
  }
  if (/^[1-5]\d\d$/.test(v)) {
    const code = Number(v);
    return (s) => s === code;
  }
  return undefined;
}

/**
 * --path: without `*`, a prefix of the path; with it, a glob over the whole path (`*` any characters
 * but `/`, `**` any characters). A pattern not starting with `/` is read under `/v1/`. Undefined
 * for an empty pattern, one over 512 characters, or one with a control character, a space, `?` or `#`.
 */
export function pathMatcher(raw: string): ((path: string) => boolean) | undefined {
  if (raw === '' || raw.length > 512 || /[\u0000-\u0020\u007f-\u009f?#]/.test(raw)) return undefined;
  const pattern = raw.startsWith('/') ? raw : `/v1/${raw}`;
  if (!pattern.includes('*')) return (p) => p.startsWith(pattern);
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        re += '.*';
        while (pattern[i + 1] === '*') i++;
      } else re += '[^/]*';
    } else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const r = new RegExp(`${re}$`);
  return (p) => r.test(p);
}
