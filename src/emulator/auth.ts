// The emulator's identity: one business (default tenant) with a Sandbox and a Live key pair and
// a webhook secret per mode. With a data dir they live in keys.json (0600) and stay stable across
// restarts; without one they are new on every start.
import { lstatSync, readdirSync } from 'node:fs';
import { writeFileAtomic } from '../shared/atomic-write.js';
import { join } from 'node:path';
import { newWebhookSecret } from '../shared/signature.js';
import { randomChars } from './ids.js';
import { ApiProblem } from './problems.js';
import { readSmallFile, settingsFilePresent } from './small-file.js';
import type { Mode } from './types.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TENANT_RE = /^[A-Za-z0-9_-]{1,64}$/;

export interface ModeKeys {
  secret: string;
  public: string;
  webhook_secret: string;
}

export interface Identity {
  tenant_id: string;
  sandbox: ModeKeys;
  live: ModeKeys;
}

function newIdentity(): Identity {
  const pair = (env: 'test' | 'live'): ModeKeys => ({
    secret: `sk_${env}_${randomChars(32, BASE62)}`,
    public: `pk_${env}_${randomChars(32, BASE62)}`,
    webhook_secret: newWebhookSecret(),
  });
  return { tenant_id: `biz_${randomChars(16)}`, sandbox: pair('test'), live: pair('live') };
}

function valid(v: unknown): v is Identity {
  const o = v as Identity;
  const keys = (m: ModeKeys | undefined, env: string) =>
    !!m &&
    new RegExp(`^sk_${env}_[0-9A-Za-z]{32}$`).test(m.secret) &&
    new RegExp(`^pk_${env}_[0-9A-Za-z]{32}$`).test(m.public) &&
    /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(m.webhook_secret);
  return !!o && typeof o.tenant_id === 'string' && TENANT_RE.test(o.tenant_id) && keys(o.sandbox, 'test') && keys(o.live, 'live');
}

function statSize(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

/** A key file is a few hundred bytes; anything past this is not one. */
const MAX_KEY_FILE_BYTES = 1 << 16;

/** Loads the identity from the data dir, or creates (and stores) a new one. */
export function loadIdentity(dataDir: string | undefined): Identity {
  if (!dataDir) return newIdentity();
  const path = join(dataDir, 'keys.json');
  if (settingsFilePresent(path)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readSmallFile(path, MAX_KEY_FILE_BYTES) ?? '');
    } catch {
      parsed = undefined;
    }
    if (!valid(parsed)) throw new Error(`${path} is not an emulator key file; move it away to get new keys`);
    return parsed;
  }
  // The journal's records belong to the tenant and keys that were in keys.json: new ones would
  // start silently with every old object out of sight.
  const held = readdirSync(dataDir).filter((n) => /^(journal|snapshot)-\d+\.jsonl$/.test(n) && statSize(join(dataDir, n)) > 0);
  if (held.length)
    throw new Error(
      `${path} is missing, but the data dir holds ${held.sort().join(', ')}, whose records belong to the tenant and keys it held; put keys.json back (from a backup), or move those files away to start afresh with new keys`,
    );
  const identity = newIdentity();
  // A random temporary name, O_EXCL|O_NOFOLLOW, 0600: a link planted in the data dir cannot take the keys elsewhere.
  writeFileAtomic(path, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  return identity;
}

export interface Caller {
  mode: Mode;
  apiKey: string;
}

export class Auth {
  private readonly keys = new Map<string, { mode: Mode; secret: boolean }>();

  constructor(readonly identity: Identity) {
    for (const mode of ['sandbox', 'live'] as const) {
      this.keys.set(identity[mode].secret, { mode, secret: true });
      this.keys.set(identity[mode].public, { mode, secret: false });
    }
  }

  /** The caller of an `Api-Key` header value, or 401 (with its WWW-Authenticate challenge) or 403. */
  check(value: string | string[] | undefined): Caller {
    if (value === undefined || value === '') throw unauthorized('missing Api-Key header (send the secret key of the mode)');
    const key = Array.isArray(value) ? undefined : this.keys.get(value);
    if (!key) throw unauthorized('invalid Api-Key (not a key of this service)');
    if (!key.secret) throw new ApiProblem(403, 'forbidden', 'a public key cannot call the API; send the secret key (sk_…) as Api-Key');
    return { mode: key.mode, apiKey: value as string };
  }
}

/**
 * The challenge every 401 carries (RFC 9110 section 11.6.1: a 401 must say how to authenticate):
 * the `ApiKey` scheme, the key sent in the `Api-Key` header.
 */
export const WWW_AUTHENTICATE = 'ApiKey realm="pay", header="Api-Key"';

const unauthorized = (detail: string): ApiProblem =>
  new ApiProblem(401, 'unauthorized', detail, undefined, { 'WWW-Authenticate': WWW_AUTHENTICATE });

/**
 * The tenant of a request: the x-tenant-id header, or (without the header, where the operation
 * allows it) the business's default tenant. A header that is there but empty is malformed like any
 * other value outside the pattern: 400 invalid_tenant on every operation, never the default.
 */
export function tenantOf(value: string | string[] | undefined, required: boolean, fallback: string): string {
  if (value === undefined) {
    if (required) throw new ApiProblem(400, 'missing_tenant', 'this operation needs the x-tenant-id header (your business id)');
    return fallback;
  }
  if (Array.isArray(value)) throw new ApiProblem(400, 'invalid_tenant', 'send one x-tenant-id header, not several');
  if (value === '') {
    throw new ApiProblem(
      400,
      'invalid_tenant',
      `x-tenant-id is empty: send your business id (1-64 letters, digits, "_" or "-")${required ? '' : ", or leave the header out for the key's default tenant"}`,
    );
  }
  if (!TENANT_RE.test(value)) throw new ApiProblem(400, 'invalid_tenant', 'x-tenant-id must be 1-64 letters, digits, "_" or "-"');
  return value;
}
