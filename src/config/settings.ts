// Precedence for every setting: flag, then environment, then the profile, then the default.
// Each resolved value remembers where it came from (pay doctor prints that).
import { UsageError } from '../lib/errors.js';
import { isLoopbackHost } from '../shared/validate.js';
import { checkProfileName, DEFAULT_PROFILE, type ConfigStore, type Mode, type Profile } from './store.js';

export type Source = 'flag' | 'env' | 'profile' | 'default';
export interface Setting<T> {
  value: T;
  source: Source;
  /** The flag or variable name it came from, for messages. */
  origin: string;
}

/** Global flags as commander parses them. */
export interface GlobalFlags {
  profile?: string;
  live?: boolean;
  apiKey?: string;
  tenant?: string;
  baseUrl?: string;
  input?: boolean;
  debug?: boolean;
  color?: boolean;
  /** `--no-pager`: false. */
  pager?: boolean;
  quiet?: boolean;
  /** `--no-names`: false. */
  names?: boolean;
  /** `--time <mode>`: checked where output is resolved (src/io/time.ts). */
  time?: string;
  timeout?: string;
  maxRetries?: string;
  maxResponseBytes?: string;
}

export interface Settings {
  profileName: Setting<string>;
  profileExists: boolean;
  mode: Setting<Mode>;
  apiKey: Setting<string | undefined>;
  publicKey: Setting<string | undefined>;
  webhookSecret: Setting<string | undefined>;
  tenant: Setting<string | undefined>;
  baseUrl: Setting<string>;
  timeoutMs: Setting<number>;
  maxRetries: Setting<number>;
  /** The cap on one answer's body, in bytes. */
  maxResponseBytes: Setting<number>;
}

/** With no profile base URL, pay talks to the local emulator's default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787/v1/';
export const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

function pick<T>(candidates: Array<[Source, string, T | undefined]>, fallback: [string, T]): Setting<T> {
  for (const [source, origin, value] of candidates) {
    if (value !== undefined && value !== '') return { value, source, origin };
  }
  return { value: fallback[1], source: 'default', origin: fallback[0] };
}

export function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv, store: ConfigStore | undefined): Settings {
  const profileName = pick<string>(
    [
      ['flag', '--profile', flags.profile],
      ['env', 'PAY_PROFILE', env.PAY_PROFILE],
      ['profile', 'current profile', store?.currentProfile],
    ],
    ['default', DEFAULT_PROFILE],
  );
  checkProfileName(profileName.value);
  const profile: Profile | undefined = store?.profile(profileName.value);

  const envMode = env.PAY_MODE?.trim().toLowerCase();
  if (envMode && envMode !== 'live' && envMode !== 'sandbox') {
    throw new UsageError(`invalid PAY_MODE "${env.PAY_MODE}" (use sandbox or live)`);
  }
  const mode = pick<Mode>(
    [
      ['flag', '--live', flags.live ? 'live' : undefined],
      ['env', 'PAY_MODE', envMode as Mode | undefined],
    ],
    ['default', 'sandbox'],
  );
  const ms = profile?.[mode.value];
  const fromProfile = `profile "${profileName.value}" (${mode.value})`;

  const apiKey = pick<string | undefined>(
    [
      ['flag', '--api-key', flags.apiKey],
      ['env', 'PAY_API_KEY', env.PAY_API_KEY],
      ['profile', fromProfile, ms?.secret_key],
    ],
    ['none', undefined],
  );
  const tenant = pick<string | undefined>(
    [
      ['flag', '--tenant', flags.tenant],
      ['env', 'PAY_TENANT_ID', env.PAY_TENANT_ID],
      ['profile', `profile "${profileName.value}"`, profile?.tenant_id],
    ],
    ['none', undefined],
  );
  if (tenant.value !== undefined && !TENANT_PATTERN.test(tenant.value)) {
    throw new UsageError(`invalid tenant id "${tenant.value}" from ${tenant.origin} (letters, digits, "-" and "_", up to 64)`);
  }
  const baseUrl = pick<string>(
    [
      ['flag', '--base-url', flags.baseUrl],
      ['env', 'PAY_BASE_URL', env.PAY_BASE_URL],
      ['profile', fromProfile, ms?.base_url],
    ],
    ['default', DEFAULT_BASE_URL],
  );
  baseUrl.value = normalizeBaseUrl(baseUrl.value, baseUrl.origin);

  return {
    profileName,
    profileExists: profile !== undefined,
    mode,
    apiKey,
    publicKey: pick<string | undefined>([['profile', fromProfile, ms?.public_key]], ['none', undefined]),
    webhookSecret: pick<string | undefined>(
      [
        ['env', 'PAY_WEBHOOK_SECRET', env.PAY_WEBHOOK_SECRET],
        ['profile', fromProfile, ms?.webhook_secret],
      ],
      ['none', undefined],
    ),
    tenant,
    baseUrl,
    timeoutMs: numberSetting(flags.timeout, env.PAY_TIMEOUT, '--timeout', 'PAY_TIMEOUT', 30, 0.1, 3600, (s) => Math.round(s * 1000)),
    maxRetries: numberSetting(flags.maxRetries, env.PAY_MAX_RETRIES, '--max-retries', 'PAY_MAX_RETRIES', 3, 0, 10, (n) => {
      if (!Number.isInteger(n)) throw new UsageError('--max-retries must be a whole number');
      return n;
    }),
    maxResponseBytes: byteSetting(flags.maxResponseBytes, env.PAY_MAX_RESPONSE_BYTES),
  };
}

const BYTE_UNITS: Record<string, number> = { '': 1, k: 2 ** 10, kib: 2 ** 10, m: 2 ** 20, mib: 2 ** 20, g: 2 ** 30, gib: 2 ** 30 };
export const MAX_RESPONSE_BYTES_DEFAULT = 32 * 2 ** 20;

/** --max-response-bytes / PAY_MAX_RESPONSE_BYTES: bytes, or with KiB, MiB, GiB (K, M, G); 1 KiB to 512 MiB. */
function byteSetting(flag: string | undefined, envValue: string | undefined): Setting<number> {
  const s = pick<string>(
    [
      ['flag', '--max-response-bytes', flag],
      ['env', 'PAY_MAX_RESPONSE_BYTES', envValue],
    ],
    ['default', String(MAX_RESPONSE_BYTES_DEFAULT)],
  );
  const m = /^\s*(\d{1,12})\s*([a-z]*)\s*$/i.exec(s.value);
  const n = m ? Number(m[1]) * (BYTE_UNITS[m[2]!.toLowerCase()] ?? NaN) : NaN;
  if (!(n >= 2 ** 10 && n <= 2 ** 29)) {
    throw new UsageError(`invalid ${s.origin} "${s.value}" (bytes from 1024 to 512 MiB, e.g. 33554432 or 32MiB)`);
  }
  return { value: n, source: s.source, origin: s.origin };
}

function numberSetting(
  flag: string | undefined,
  envValue: string | undefined,
  flagName: string,
  envName: string,
  fallback: number,
  min: number,
  max: number,
  convert: (n: number) => number,
): Setting<number> {
  const s = pick<string>(
    [
      ['flag', flagName, flag],
      ['env', envName, envValue],
    ],
    ['default', String(fallback)],
  );
  const n = Number(s.value);
  if (!/^\d+(\.\d+)?$/.test(s.value.trim()) || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`invalid ${s.origin} "${s.value}" (a number from ${min} to ${max})`);
  }
  return { value: convert(n), source: s.source, origin: s.origin };
}

export { isLoopbackHost };

/** HTTPS only; http:// for loopback alone; the path must end in /v1/ (a missing final slash is added). */
export function normalizeBaseUrl(raw: string, origin: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid base URL "${raw}" from ${origin}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`base URL from ${origin} must use https:// (got ${url.protocol}//)`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `refusing plain http:// to ${url.hostname} (from ${origin}): use https://, or http:// only for localhost or 127.0.0.1`,
    );
  }
  if (url.username || url.password) throw new UsageError(`base URL from ${origin} must not contain credentials`);
  if (url.search || url.hash) throw new UsageError(`base URL from ${origin} must not have a query or fragment`);
  if (url.pathname.endsWith('/v1')) url.pathname += '/';
  if (!url.pathname.endsWith('/v1/')) {
    throw new UsageError(`base URL from ${origin} must end with /v1/ (got ${url.pathname})`);
  }
  return url.toString();
}
