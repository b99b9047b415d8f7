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

/** The mode a key's prefix shows, if it shows one. */
export function keyMode(key: string): 'sandbox' | 'live' | undefined {
  const m = KEY_PREFIX.exec(key);
  if (!m) return undefined;
  return m[2] === 'live' ? 'live' : 'sandbox';
}
