// Field validators shared by flags, prompts and --data checks (contract sections 7 and 8).
// Each returns an error message, or undefined when the value is fine. The field kinds that people
// type loosely (country, state, phone, e-mail, currency, date, id) are checked here in their
// canonical form only (what the emulator accepts), by the normalisers of fields.ts, so a value
// refused says what it would be ("did you mean US-VA?") in the words the CLI uses.
import { parseDuration } from './duration.js';
import { CONTROL } from './patterns.js';
import {
  COUNTRY_RULE,
  CURRENCY_RULE,
  DATE_RULE,
  EMAIL_RULE,
  idRule,
  isCalendarDate,
  normalAmount,
  normalCountry,
  normalDate,
  normalEmail,
  normalId,
  normalPhone,
  normalState,
  PHONE_RULE,
  STATE_RULE,
  strict,
} from './fields.js';
import type { IsoTables } from './iso-3166.js';
import { currencyExponent } from './iso.js';
import { STATE_PATTERN } from './domain.js';

const STATE = new RegExp(STATE_PATTERN);

export type Check = (value: string) => string | undefined;

export { isCalendarDate };

export const checkEmail: Check = (v) => strict(normalEmail(v), v, EMAIL_RULE);

export const checkPhone: Check = (v) => strict(normalPhone(v), v, PHONE_RULE);

export function checkBirthDate(now: Date = new Date()): Check {
  return (v) => birthDateProblem(v, () => now.toISOString().slice(0, 10));
}

/** checkBirthDate's rule, with today (YYYY-MM-DD, UTC) asked for only when `v` is a real date. */
export function birthDateProblem(v: string, today: () => string): string | undefined {
  if (!isCalendarDate(v)) return strict(normalDate(v), v, DATE_RULE);
  return v > today() ? 'must not be in the future' : undefined;
}

/** An ISO 3166-1 alpha-2 code, upper case; the tables (when loaded) add country names to what "did you mean" finds. */
export function countryCheck(tables?: IsoTables): Check {
  return (v) => strict(normalCountry(v, tables), v, COUNTRY_RULE);
}
export const checkCountry: Check = countryCheck();

/**
 * ISO 3166-2 `<country>-<subdivision>` whose country part equals the country. With the tables
 * (src/shared/iso-3166.ts, loaded by whoever validates a state), the subdivision must also be
 * one ISO 3166-2 lists; without them, only the shape is checked.
 */
export function checkState(country: string | undefined, tables?: IsoTables): Check {
  return (v) => {
    if (tables) return strict(normalState(v, country, tables), v, STATE_RULE);
    const m = STATE.exec(v);
    if (!m) return STATE_RULE;
    if (country && m[1] !== country) return `must start with the country code ${country}- (got ${m[1]}-)`;
    return undefined;
  };
}

/** The id shape, here with the other checks (it lives in domain.ts, which the start-up path can load). */
export { ID_SHAPE, isId } from './domain.js';

/** An id of one of the prefixes (`cus_`, `acc_|ea_`); the message names them. */
export function checkId(prefix: string): Check {
  return (v) => strict(normalId(v, prefix), v, idRule(prefix));
}

/** Any ISO 4217 code or crypto asset pay knows the precision of (an amount's currency); upper case. */
export const checkCurrency: Check = (v) => {
  if (currencyExponent(v) !== undefined) return undefined;
  const up = v.trim().toUpperCase();
  return currencyExponent(up) !== undefined ? `${CURRENCY_RULE}; did you mean ${up}?` : CURRENCY_RULE;
};

/**
 * An RFC 3339 date-time: `T` and `Z` in either case (RFC 3339 §5.6: "may alternatively be lower
 * case"). Seconds may be left out here (`2026-01-31T12:00Z`), which the lists' filters take.
 */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time as it is sent on: `t` and `z` upper-cased (`2026-11-26t17:33:50z` → `2026-11-26T17:33:50Z`). */
export const canonicalTime = (v: string): string => (RFC3339.test(v) ? v.toUpperCase() : v);

/** Date or date-time for filters: YYYY-MM-DD or RFC 3339. */
export const checkDateOrTime: Check = (v) => {
  if (isCalendarDate(v)) return undefined;
  if (RFC3339.test(v) && isCalendarDate(v.slice(0, 10)) && !Number.isNaN(Date.parse(v))) {
    return undefined;
  }
  return 'must be a date (YYYY-MM-DD) or an RFC 3339 time (2026-01-31T12:00:00Z)';
};

/** A hundred years (of 365.25 days): the furthest back a relative time may reach. */
const MAX_RELATIVE_S = 100 * 365.25 * 86_400;

/**
 * A time bound of a list filter as a user writes it (`--since`, `--until`, `--from`, `--to`): a
 * date (YYYY-MM-DD, midnight UTC), an RFC 3339 time, or a duration back from now in the one
 * duration grammar (src/shared/duration.ts): `90s`, `30m`, `2h`, `7d`, `2w`, `1h30m`.
 */
export const checkTimeBound: Check = (v) => {
  const seconds = parseDuration(v);
  if (seconds !== undefined) return seconds <= MAX_RELATIVE_S ? undefined : 'reaches back more than 100 years';
  return checkDateOrTime(v) === undefined
    ? undefined
    : 'must be a date (YYYY-MM-DD), an RFC 3339 time (2026-01-31T12:00:00Z) or a duration back from now (90s, 30m, 2h, 7d, 2w, 1h30m)';
};

/**
 * A checked time bound as the API takes it: a duration becomes the RFC 3339 time that long before
 * `now` (ms); a time is sent with an upper-case `T` and `Z`; a date stays as written.
 */
export function timeBoundValue(v: string, now: number = Date.now()): string {
  const seconds = parseDuration(v);
  return seconds !== undefined ? new Date(now - seconds * 1000).toISOString() : canonicalTime(v);
}

export const checkUrl: Check = (v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'must be an http(s) URL';
  } catch {
    return 'must be a URL';
  }
};

/** localhost, 127.x.x.x or ::1 (bracketed or not): this machine, as the contract names it. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '[::1]') return true;
  return /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(h) && h.split('.').every((p) => Number(p) <= 255);
}

/**
 * Whether `target` reaches the server bound at `own` (the host as bound or named, and its port) on
 * this machine: the same port, and a loopback host, the server's own host name, or an unspecified
 * address (0.0.0.0, [::], which connect to this machine). A request sent there would come back to
 * the server itself: the emulator delivering to its own admin routes, `pay webhooks listen`
 * forwarding to itself forever. Deliberately broad: another server on the same port at a different
 * loopback address counts too.
 */
export function isOwnAddress(target: string | URL, own: { hostname: string; port: string | number }): boolean {
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return false;
  }
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  if (port !== String(own.port)) return false;
  const bare = (h: string): string => h.toLowerCase().replace(/^\[|\]$/g, '');
  const host = bare(u.hostname);
  return isLoopbackHost(host) || host === bare(own.hostname) || host === '0.0.0.0' || host === '::';
}

/**
 * Where webhook deliveries may go (the emulator's webhook URL, `pay emulator webhook-url`,
 * `--webhook-url`): an http(s) URL of at most 2048 characters with no user name or password in it
 * (deliveries are signed; a password in the URL would show in every status and delivery record),
 * plain http only to this machine (loopback), like `pay webhooks listen --forward-to`.
 */
export const checkWebhookTarget: Check = (v) => {
  if (v.length > 2048) return 'must be at most 2048 characters';
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return 'must be a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
  if (u.username !== '' || u.password !== '') return 'must not carry a user name or password (deliveries are signed instead)';
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname))
    return 'must use https://, or http:// to this machine (localhost, 127.x.x.x, [::1])';
  if (u.port === '0') return 'must name a port other than 0';
  return undefined;
};

export function checkInt(min: number, max: number): Check {
  return (v) => (/^\d+$/.test(v) && Number(v) >= min && Number(v) <= max ? undefined : `must be a whole number from ${min} to ${max}`);
}

export function checkNonEmpty(maxLength = 200): Check {
  return (v) => {
    if (v.trim() === '') return 'must not be empty';
    if (v.length > maxLength) return `must be at most ${maxLength} characters`;
    if (CONTROL.test(v)) return 'must not contain control characters';
    return undefined;
  };
}

/**
 * Parses a positive amount exactly (no floating point) and checks it against the currency's
 * precision. Returns the canonical decimal string padded to the currency's exponent.
 */
export function parseAmount(raw: string, currency: string): { value?: string; error?: string } {
  const n = normalAmount(raw, currency);
  return n.error === undefined ? { value: n.value } : { error: n.error };
}
