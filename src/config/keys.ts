// Key shapes, masking and the checks that refuse a key before anything is sent.
import { AuthError } from '../lib/errors.js';
import type { Mode } from './store.js';
import { keyMode, maskKey, maskSecrets } from '../shared/keys.js';

export { keyMode, maskKey } from '../shared/keys.js';

export function isPublicKey(key: string): boolean {
  return key.startsWith('pk_');
}

/** Why a public key is refused for `mode` (not pk_test_/pk_live_ and 8+ letters or digits, or the other mode's), if it is. */
export function publicKeyProblem(key: string, mode: Mode): string | undefined {
  if (!/^pk_(test|live)_[A-Za-z0-9]{8,200}$/.test(key)) return 'a public key looks like pk_test_… or pk_live_…';
  return keyMode(key) === mode ? undefined : `the public key is a ${keyMode(key)} key but the mode is ${mode}`;
}

/** Refuses a public key used as the secret key, and a key whose prefix shows the other mode. */
export function checkSecretKey(key: string, mode: Mode, where: string): void {
  // Keys are printable ASCII; anything else cannot even go in a header (undici refuses it).
  if (/[^\x21-\x7e]/.test(key) || key.length > 512) {
    throw new AuthError(`the API key from ${where} is malformed (it contains spaces, control characters or characters outside ASCII)`);
  }
  if (isPublicKey(key)) {
    throw new AuthError(`the key from ${where} is a public key (${maskKey(key)}); API calls need the secret key`, {
      hint: 'secret keys start with sk_; see pay login --help',
    });
  }
  const shown = keyMode(key);
  if (shown && shown !== mode) {
    throw new AuthError(`the key from ${where} is a ${shown} key (${maskKey(key)}) but the mode is ${mode}`, {
      hint: mode === 'live' ? 'drop --live (or PAY_MODE=live) to use Sandbox' : 'add --live to use the Live key pair',
    });
  }
}

/**
 * Text safe to print: every occurrence of the given secrets, and anything shaped like a key or a
 * webhook secret (an answer may hold one nobody named: the emulator's webhook-secret route), masked,
 * also where the text encodes them (a query's percent escapes, a JSON string's escapes: maskSecrets).
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return maskSecrets(text, secrets);
}
