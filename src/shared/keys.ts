// Key shapes both sides know: which mode a key's prefix shows, and how a key is shown masked.
// A leaf: no imports (the CLI's key checks are in src/config/keys.ts; the emulator masks keys in its request log).
const KEY_PREFIX = /^(sk|pk|rk)_(test|live)_/;

/** `sk_test_…a1b2`: the type prefix and at most the last 4 characters; short keys show nothing. */
export function maskKey(key: string | undefined | null): string {
  if (!key) return '(none)';
  const prefix = KEY_PREFIX.exec(key)?.[0] ?? (key.startsWith('whsec_') ? 'whsec_' : '');
  const rest = key.slice(prefix.length);
  return rest.length >= 12 ? `${prefix}…${rest.slice(-4)}` : `${prefix}…`;
}

/**
 * Tokens shaped like a key (`sk_`, `rk_`, `pk_` then `test_` or `live_`) or a webhook signing
 * secret (`whsec_`), wherever they appear in a text: what the CLI's --debug lines and errors
 * (src/config/keys.ts redact) and the emulator's request log mask even when nobody named them.
 * Glued to what comes before (`xsk_test_…`) or after (a second key, `_`, base64's `+/=`), the
 * whole run is one token: masked, its last 4 characters and what follows can never spell a key.
 * Linear: a literal start, then one character class.
 */
export const SECRET_SHAPE = /(?:(?:sk|rk|pk)_(?:test|live)_|whsec_)[A-Za-z0-9+/=_]{4,}/g;

/** Text with every SECRET_SHAPE token masked (maskKey), also where the text encodes it (see maskSecrets). */
export function maskSecretShapes(text: string): string {
  return maskSecrets(text, []);
}

/** What may encode a character: a percent escape, JSON's `\uXXXX`, `\/` or `\\`. */
const ESCAPE = /%[0-9A-Fa-f]{2}|\\[u/\\]/;
const HEX4 = /^[0-9A-Fa-f]{4}$/;
/** Decoding rounds (a value percent-encoded twice, `%252B`, or a JSON string holding a URL): more is never needed to spell a key. */
const MAX_ROUNDS = 4;

/**
 * One decoding pass over `text`: percent escapes of ASCII (`%2B`, `%2b`), JSON's `\uXXXX` of ASCII,
 * `\/` and `\\`; anything else is kept as it is. `from[i]` is where the i-th decoded character
 * starts in `text` (`from[out.length]` is text.length).
 */
function decodeOnce(text: string): { out: string; from: number[] } {
  let out = '';
  const from: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    let code = -1;
    let len = 1;
    if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      code = parseInt(text.slice(i + 1, i + 3), 16);
      len = 3;
    } else if (c === '\\' && text[i + 1] === 'u' && HEX4.test(text.slice(i + 2, i + 6))) {
      code = parseInt(text.slice(i + 2, i + 6), 16);
      len = 6;
    } else if (c === '\\' && (text[i + 1] === '/' || text[i + 1] === '\\')) {
      code = text.charCodeAt(i + 1);
      len = 2;
    }
    if (code >= 0 && code < 0x80) {
      from.push(i);
      out += String.fromCharCode(code);
      i += len;
    } else {
      from.push(i);
      out += c;
      i += 1;
    }
  }
  from.push(text.length);
  return { out, from };
}

/**
 * Text with every secret masked (maskKey): each of `secrets` (6 characters or more) and every
 * SECRET_SHAPE token, found in the text as it is and as it decodes (percent escapes in any case,
 * `+` kept as the character it is in a key, JSON string escapes, several rounds of them): a key
 * in a query string (`whsec_…%2B…`), a path, a header or a JSON string (`"\u0073k_test_…"`) is
 * masked whole, in place, the text around it left as it was.
 */
export function maskSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let view = text;
  let from: number[] | undefined;
  for (let round = 0; round < MAX_ROUNDS && ESCAPE.test(view); round++) {
    const d = decodeOnce(view);
    if (d.out === view) break;
    const prev = from;
    from = prev ? d.from.map((k) => prev[k]!) : d.from;
    view = d.out;
  }
  const spans: Array<[number, number]> = [];
  for (const s of secrets) {
    if (!s || s.length < 6) continue;
    for (let at = view.indexOf(s); at >= 0; at = view.indexOf(s, at + s.length)) spans.push([at, at + s.length]);
  }
  for (const m of view.matchAll(SECRET_SHAPE)) spans.push([m.index, m.index + m[0].length]);
  if (spans.length === 0) return text;
  spans.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const raw = (k: number): number => (from ? from[k]! : k);
  let out = '';
  let last = 0;
  let cur: [number, number] | undefined;
  const flush = (span: [number, number]) => {
    out += text.slice(last, raw(span[0])) + maskKey(view.slice(span[0], span[1]));
    last = raw(span[1]);
  };
  for (const span of spans) {
    if (cur && span[0] < cur[1]) cur[1] = Math.max(cur[1], span[1]);
    else {
      if (cur) flush(cur);
      cur = [span[0], span[1]];
    }
  }
  flush(cur!);
  return out + text.slice(last);
}

/** The mode a key's prefix shows, if it shows one. */
export function keyMode(key: string): 'sandbox' | 'live' | undefined {
  const m = KEY_PREFIX.exec(key);
  if (!m) return undefined;
  return m[2] === 'live' ? 'live' : 'sandbox';
}
