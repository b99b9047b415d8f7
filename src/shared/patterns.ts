// The shapes the contract states and the emulator enforces, written once: the contract's schemas
// carry them as `pattern`s (src/api/contract/), the emulator checks requests with the same
// expressions (src/emulator/). ECMAScript regular expressions, as JSON Schema's `pattern` is.

/**
 * What "a control character" is, everywhere input is checked: C0 (U+0000-U+001F), DEL (U+007F),
 * C1 (U+0080-U+009F: U+009B is a terminal's CSI) and the line and paragraph separators (U+2028,
 * U+2029). The body of a character class, so each check below is built from it.
 */
export const CONTROL_CHARS = '\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029';

/** Matches a string holding a control character (CONTROL_CHARS). */
export const CONTROL = new RegExp(`[${CONTROL_CHARS}]`);

/** No control characters (CONTROL_CHARS): every free-text field and filter. */
export const FREE_TEXT_PATTERN = `^[^${CONTROL_CHARS}]*$`;

/**
 * Free text that is a word someone chose, not prose: no control characters, not blank, and no space
 * at either end (JavaScript's `\s`, what `String.prototype.trim` removes): a customer's type and
 * gender, whose known values are compared as written.
 */
export const TRIMMED_TEXT_PATTERN = `^[^\\s${CONTROL_CHARS}](?:[^${CONTROL_CHARS}]*[^\\s${CONTROL_CHARS}])?$`;

/** A list's `cursor` as the service issues it (`next_cursor`): 1-200 base64url characters. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,200}$';

/** A year from 1800 on (dates before 1800 are refused everywhere). */
const YEAR = '(?:1[89]|[2-9][0-9])[0-9]{2}';
/** Leap years from 1800 on: divisible by 4 and not by 100, or by 400. */
const LEAP_YEAR = '(?:(?:1[89]|[2-9][0-9])(?:0[48]|[2468][048]|[13579][26])|(?:2[048]|[3579][26]|[468][048])00)';
/** A real calendar date `YYYY-MM-DD` from 1800-01-01 on (29 February only in leap years). */
const DATE =
  `(?:${YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))` +
  `|${LEAP_YEAR}-02-29)`;
const OFFSET = '(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])';
const HH_MM = '(?:[01][0-9]|2[0-3]):[0-5][0-9]';

/** A real calendar date `YYYY-MM-DD`, 1800-01-01 or later. */
export const DATE_PATTERN = `^${DATE}$`;

/** An RFC 3339 time (`T` and `Z` in either case, RFC 3339 §5.6) on a real date from 1800 on. */
export const DATE_TIME_PATTERN = `^${DATE}[Tt]${HH_MM}:[0-5][0-9](?:\\.[0-9]{1,9})?${OFFSET}$`;

/** What the lists' `from` and `to` take as a time: DATE_TIME_PATTERN, the seconds optional (`2026-01-31T12:00Z`). */
export const TIME_FILTER_PATTERN = `^${DATE}[Tt]${HH_MM}(?::[0-5][0-9](?:\\.[0-9]{1,9})?)?${OFFSET}$`;

/**
 * An e-mail address as the service takes it: a local part of letters, digits and
 * ``.!#$%&'*+/=?^_`{|}~-``, `@`, and a domain of at least two dot-separated labels (letters,
 * digits, inner hyphens, at most 63 characters each). At most 254 characters (a `maxLength`).
 * The same rule as checkEmail (src/shared/validate.ts); a test holds the two together.
 */
export const EMAIL_PATTERN =
  "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$";
