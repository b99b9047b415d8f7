// Standard Webhooks signatures (contract section 9), shared by the CLI (verify, listen) and the
// emulator (delivery). Secret `whsec_<base64>`; its decoded bytes are the HMAC-SHA256 key; the
// signed content is `${id}.${timestamp}.${body}`; the header holds space-separated `v1,<base64>`.
// Read as the standardwebhooks and svix libraries read it: the secret with or without its
// `whsec_` prefix, and the headers under their Standard Webhooks names (`webhook-id`, …) or the
// Svix names (`svix-id`, `svix-timestamp`, `svix-signature`).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOLERANCE_SECONDS = 5 * 60;

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * A webhook secret: base64 (RFC 4648's alphabet; padding optional, but where it is given it is
 * right) of at least one byte, with or without `whsec_` before it.
 */
export const WEBHOOK_SECRET_SHAPE = /^(?:whsec_)?(?=[A-Za-z0-9+/]{2})(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** What a secret must look like, for error messages. */
export const WEBHOOK_SECRET_HINT = 'a webhook secret is base64, with or without whsec_ before it (whsec_…)';

export const isWebhookSecret = (secret: string): boolean => WEBHOOK_SECRET_SHAPE.test(secret);

function secretBytes(secret: string): Buffer {
  if (!isWebhookSecret(secret)) throw new Error(WEBHOOK_SECRET_HINT);
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** The header families a delivery may use, in the order they are read. */
export const DELIVERY_HEADER_PREFIXES = ['webhook-', 'svix-'] as const;

/**
 * One delivery header (`id`, `timestamp` or `signature`): `webhook-<name>`, else `svix-<name>`.
 * Names are case-insensitive; of a repeated header, the first value.
 */
export function deliveryHeader(
  headers: Record<string, string | string[] | undefined>,
  name: 'id' | 'timestamp' | 'signature',
): string | undefined {
  for (const prefix of DELIVERY_HEADER_PREFIXES) {
    const wanted = `${prefix}${name}`;
    for (const [k, v] of Object.entries(headers)) {
      if (k.toLowerCase() !== wanted) continue;
      const value = Array.isArray(v) ? v[0] : v;
      if (value) return value;
    }
  }
  return undefined;
}

export function sign(secret: string, id: string, timestamp: number | string, body: string | Buffer): string {
  const mac = createHmac('sha256', secretBytes(secret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** The three delivery headers for a body sent now. */
export function signedHeaders(
  secret: string,
  id: string,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(nowSeconds), 'webhook-signature': sign(secret, id, nowSeconds, body) };
}

export type VerifyResult = { ok: true; id: string; timestamp: number } | { ok: false; reason: string };

/**
 * Checks a delivery. Header names are case-insensitive, Standard Webhooks' or Svix's
 * (`deliveryHeader`). Any one of the space-separated `v1,`
 * signatures may match (each exactly as `sign` spells it: canonical base64); each is compared
 * in constant time. Timestamps more than 5 minutes away from now (either way) are refused.
 */
export function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string | Buffer,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = TOLERANCE_SECONDS,
): VerifyResult {
  const id = deliveryHeader(headers, 'id');
  const ts = deliveryHeader(headers, 'timestamp');
  const sigs = deliveryHeader(headers, 'signature');
  if (!id || !ts || !sigs) {
    return {
      ok: false,
      reason: 'missing webhook-id, webhook-timestamp or webhook-signature header (or svix-id, svix-timestamp, svix-signature)',
    };
  }
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, reason: 'webhook-timestamp is not a unix time in seconds' };
  const timestamp = Number(ts);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    return {
      ok: false,
      reason: `timestamp is ${timestamp < nowSeconds ? 'too old' : 'in the future'} (more than ${toleranceSeconds / 60} minutes away)`,
    };
  }
  let expected: Buffer;
  try {
    expected = Buffer.from(sign(secret, id, ts, body).slice(3), 'base64');
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  let match = false;
  // Space-separated; ", " too, which is how Node joins repeated webhook-signature header lines.
  for (const part of sigs.trim().split(/,?\s+/)) {
    const comma = part.indexOf(',');
    const version = part.slice(0, comma);
    const value = part.slice(comma + 1);
    if (comma < 0 || version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    // Only the canonical spelling: Node's decoder skips characters outside the alphabet, takes
    // the URL-safe one too and ignores the unused bits of the last character, so other strings
    // decode to the same bytes. A signature changed in any way must not pass.
    if (given.toString('base64') !== value) continue;
    // Constant time: compare every candidate fully, never stop early.
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  return match ? { ok: true, id, timestamp } : { ok: false, reason: 'no signature matches' };
}
