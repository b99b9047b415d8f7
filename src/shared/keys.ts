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

/** Text with every SECRET_SHAPE token masked (maskKey). */
export function maskSecretShapes(text: string): string {
  return text.replace(SECRET_SHAPE, (m) => maskKey(m));
}

/** The mode a key's prefix shows, if it shows one. */
export function keyMode(key: string): 'sandbox' | 'live' | undefined {
  const m = KEY_PREFIX.exec(key);
  if (!m) return undefined;
  return m[2] === 'live' ? 'live' : 'sandbox';
}
