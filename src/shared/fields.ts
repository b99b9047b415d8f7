// One validator per field kind (country, subdivision, phone, e-mail, currency, amount, enum, date,
// id): what people type in, the API's one canonical form out, or a refusal whose "did you mean"
// comes from the same table the value is looked up in. Flags, prompts, --data, bulk rows and seed
// entries normalise through these (src/verbs/values.ts); the emulator accepts only the canonical
// form, with the same messages (`strict`, and the checks of validate.ts built on it).
import { countryAliases } from './country-aliases.js';
import { closeNames, didYouMean } from './distance.js';
import { FIAT_CURRENCIES, isId, PHONE_PATTERN, STATE_PATTERN } from './domain.js';
import type { IsoTables } from './iso-3166.js';
import { COUNTRY_CODES, currencyExponent } from './iso.js';
import { CONTROL } from './patterns.js';

/** The canonical value, or why not (with `suggestion`, the value meant, when one is close). */
export type Normal =
  { value: string; error?: undefined; suggestion?: undefined } | { value?: undefined; error: string; suggestion?: string };

export type FieldKind = 'country' | 'subdivision' | 'phone' | 'email' | 'currency' | 'amount' | 'enum' | 'date' | 'id';

export const COUNTRY_RULE = 'must be an ISO 3166-1 alpha-2 country code, e.g. US, GB, NG';
export const STATE_RULE = 'must be an ISO 3166-2 code like US-CA or NG-LA';
export const PHONE_RULE = 'must be in international format: + then 8 to 15 digits, e.g. +14155550123';
export const EMAIL_RULE = 'must be an e-mail address like ada@example.com';
export const DATE_RULE = 'must be a real date as YYYY-MM-DD, e.g. 1990-04-21';

const ok = (value: string): Normal => ({ value });
/** A refusal; with a suggestion, the message ends "; did you mean X?" (`shown`: how X is named, `US-VA (Virginia)`). */
function no(error: string, suggestion?: string, shown?: string): Normal {
  if (suggestion === undefined) return { error };
  return { error: `${error}; ${didYouMean([shown ?? suggestion])}`, suggestion };
}

/** Lower case, accents, dots and extra spaces aside: how names are compared ("U.S.A." = "usa", "Türkiye" = "turkiye"). */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[.'\u2019]/g, '')
    .replace(/[\s_,-]+/g, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Country: `US`, `us`, `USA`, `United States`, `Deutschland`? (no: English names and the table's
// common names), `uk`, `germany` → alpha-2.

/** Every name a country goes by (folded) → its code: alpha-3, everyday names, and with the tables the English and common names. */
function countryNames(tables: IsoTables | undefined): Map<string, string> {
  const names = new Map(countryAliases());
  if (tables) {
    for (const c of tables.countries) {
      for (const n of [c.name, ...c.aliases]) {
        const k = fold(n);
        if (!names.has(k)) names.set(k, c.code);
        // "Korea, Republic of" is also "Republic of Korea"; "Bolivia, Plurinational State of" also "Bolivia".
        const comma = n.indexOf(',');
        if (comma > 0) {
          const head = fold(n.slice(0, comma));
          const swapped = fold(`${n.slice(comma + 1)} ${n.slice(0, comma)}`);
          if (!names.has(swapped)) names.set(swapped, c.code);
          if (!names.has(head) && !tables.countries.some((o) => o.code !== c.code && fold(o.name) === head)) names.set(head, c.code);
        }
      }
    }
  }
  return names;
}

const namesCache = new WeakMap<object, Map<string, string>>();
const NO_TABLES = {};
function namesOf(tables: IsoTables | undefined): Map<string, string> {
  const key = tables ?? NO_TABLES;
  let m = namesCache.get(key);
  if (!m) namesCache.set(key, (m = countryNames(tables)));
  return m;
}

/** A country as typed → its ISO 3166-1 alpha-2 code. The tables (loadIsoTables) add the English names. */
export function normalCountry(input: string, tables?: IsoTables): Normal {
  const t = input.trim();
  if (CONTROL.test(t) || t.length > 100) return no(COUNTRY_RULE);
  const up = t.toUpperCase();
  if (/^[A-Z]{2}$/.test(up) && COUNTRY_CODES.has(up)) return ok(up);
  const names = namesOf(tables);
  const k = fold(t);
  const named = names.get(k) ?? names.get(k.replace(/^the /, ''));
  if (named) return ok(named);
  if (k.length < 3) return no(COUNTRY_RULE);
  // Three letters are near an alpha-3 code (`DEX`), more near a name (`Germny`): a long text is never "near" a code.
  const close = closeNames(
    k,
    [...names.keys()].filter((n) => (k.length === 3) === (n.length === 3)),
    8,
  );
  const codes = [...new Set(close.map((n) => names.get(n)!))];
  if (codes.length !== 1) return no(COUNTRY_RULE);
  const code = codes[0]!;
  const name = tables?.country(code)?.name;
  return no(COUNTRY_RULE, code, name ? `${code} (${name})` : code);
}

// ---------------------------------------------------------------------------------------------
// Subdivision: `US-VA`, `us-va`, bare `VA` or `Virginia` with the country → `US-VA`.

const STATE = new RegExp(STATE_PATTERN);

/** A state as typed → its ISO 3166-2 code, given the address's country (when it is known). */
export function normalState(input: string, country: string | undefined, tables: IsoTables): Normal {
  const t = input.trim();
  if (CONTROL.test(t) || t.length > 100) return no(STATE_RULE);
  const up = t.toUpperCase();
  const known = tables.subdivision(up);
  if (known) {
    if (country && !up.startsWith(`${country}-`)) {
      const bare = up.slice(3);
      const own = tables.subdivision(`${country}-${bare}`);
      return no(`must start with the country code ${country}- (got ${up.slice(0, 3)})`, own?.code, own && `${own.code} (${own.name})`);
    }
    return ok(up);
  }
  if (country && /^[A-Z0-9]{1,3}$/.test(up) && tables.subdivision(`${country}-${up}`)) return ok(`${country}-${up}`);
  const among = country ? tables.subdivisionsOf(country) : [];
  const k = fold(t);
  const byName = among.filter((s) => fold(s.name) === k);
  if (byName.length === 1) return ok(byName[0]!.code);
  // Why not, then what was meant (a name or a code of the country's, close to what was typed).
  const m = STATE.exec(up);
  let why: string;
  if (m && country && m[1] !== country) why = `must start with the country code ${country}- (got ${m[1]}-)`;
  else if (m || (country && /^[A-Z0-9]{1,3}$/.test(up))) {
    const cc = m ? m[1]! : country!;
    const list = tables.subdivisionsOf(cc);
    why =
      list.length === 0
        ? `is not an ISO 3166-2 subdivision: ${cc} has none`
        : `is not an ISO 3166-2 subdivision of ${cc} (e.g. ${list
            .slice(0, 3)
            .map((s) => s.code)
            .join(', ')})`;
  } else why = STATE_RULE;
  if (among.length === 0 || k.length < 3) return no(why);
  const keys = new Map<string, string>();
  for (const s of among) keys.set(fold(s.name), s.code);
  const close = [...new Set(closeNames(k, [...keys.keys()], 8).map((n) => keys.get(n)!))];
  if (close.length !== 1) return no(why);
  const code = close[0]!;
  return no(why, code, `${code} (${tables.subdivision(code)?.name ?? code})`);
}

// ---------------------------------------------------------------------------------------------
// Phone: spaces, dashes, dots, slashes and brackets aside → E.164 (`+1 (415) 555-0199` → `+14155550199`).

const PHONE = new RegExp(PHONE_PATTERN);

export function normalPhone(input: string): Normal {
  const t = input.trim();
  if (t.length > 40 || CONTROL.test(t)) return no(PHONE_RULE);
  const bare = t.replace(/[\s.()/\u00a0-]/g, '');
  if (PHONE.test(bare)) return ok(bare);
  // Digits alone (or 00 first): the + is the part that cannot be guessed safely, so it is asked for.
  const digits = /^(?:00)?([1-9][0-9]{7,14})$/.exec(bare);
  return no(PHONE_RULE, digits ? `+${digits[1]}` : undefined);
}

// ---------------------------------------------------------------------------------------------
// E-mail.

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const isEmail = (v: string) => v.length <= 254 && EMAIL.test(v);

export function normalEmail(input: string): Normal {
  const t = input.trim();
  if (isEmail(t)) return ok(t);
  if (t.length > 300 || CONTROL.test(t)) return no(EMAIL_RULE);
  // `mailto:ada@example.com`, `<ada@example.com>`, `ada @ example.com`: the address meant, asked for.
  const guess = t
    .replace(/^mailto:/i, '')
    .replace(/^<(.*)>$/, '$1')
    .replace(/\s+/g, '');
  return no(EMAIL_RULE, guess !== t && isEmail(guess) ? guess : undefined);
}

// ---------------------------------------------------------------------------------------------
// Currency: `usd` → `USD`; within the field's list when it has one.

export const CURRENCY_RULE = 'must be an ISO 4217 currency code (USD, EUR, …) or a crypto asset (BTC, ETH, USDC, USDT)';
const SYMBOLS: Readonly<Record<string, string>> = { $: 'USD', '\u20ac': 'EUR', '\u00a3': 'GBP', '\u00a5': 'JPY', '\u20a6': 'NGN' };

/** The service's currencies (FIAT_CURRENCIES of domain.ts): what a currency field takes unless its flag lists others (the crypto assets). */
export function normalCurrency(input: string, among: readonly string[] = FIAT_CURRENCIES): Normal {
  const t = input.trim();
  const up = t.toUpperCase();
  const known = (c: string) => among.includes(c);
  if (/^[A-Z]{3,4}$/.test(up) && known(up)) return ok(up);
  const rule = `must be one of ${among.join(', ')}`;
  if (t.length > 20 || CONTROL.test(t)) return no(rule);
  const symbol = SYMBOLS[t];
  if (symbol && known(symbol)) return no(rule, symbol);
  const close = closeNames(up, among, 3);
  return no(rule, close.length === 1 ? close[0] : undefined);
}

// ---------------------------------------------------------------------------------------------
// Amount: a positive decimal in the currency's precision, padded (`10.5` USD → `10.50`).

/**
 * Parses a positive amount exactly (no floating point) and checks it against the currency's
 * precision. The value is the canonical decimal string padded to the currency's exponent.
 */
export function normalAmount(raw: string, currency: string): Normal {
  const exp = currencyExponent(currency);
  if (exp === undefined) return no(`unknown currency "${currency}"`);
  const v = raw.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(v);
  const quoted = v.length > 40 ? `${v.slice(0, 40)}…` : v;
  if (!m) {
    // `1,000.50`, `$10`, `10 USD`: the amount meant, asked for (a comma may be a decimal comma elsewhere: never taken).
    const guess = v
      .replace(/^[$\u20ac\u00a3\u00a5\u20a6]\s*/, '')
      .replace(new RegExp(`\\s*${currency}$`, 'i'), '')
      .replace(/^(\d{1,3}(?:,\d{3})+)(\.\d+)?$/, (_a, w: string, f: string | undefined) => w.replace(/,/g, '') + (f ?? ''));
    const again = guess !== v && /^\d+(\.\d+)?$/.test(guess) ? normalAmount(guess, currency) : undefined;
    return no(`"${quoted}" is not an amount (digits with an optional decimal point, e.g. 10.50)`, again?.value);
  }
  const whole = m[1]!.replace(/^0+(?=\d)/, '');
  // The contract's Amount: at most 15 digits before the point (999999999999999).
  if (whole.length > 15) return no(`"${quoted}" has ${whole.length} digits before the decimal point; at most 15 (999999999999999)`);
  const frac = m[2] ?? '';
  if (frac.length > exp) {
    const trimmed = frac.replace(/0+$/, '');
    const error = `${currency} allows ${exp === 0 ? 'no decimals' : `at most ${exp} decimal${exp === 1 ? '' : 's'}`} (got "${v}")`;
    if (trimmed.length > exp) return no(error);
    // `10.500` USD: the same amount in the currency's precision.
    return normalAmount(trimmed ? `${whole}.${trimmed}` : whole, currency);
  }
  if (/^0*$/.test(whole + frac)) return no('the amount must be greater than zero');
  return ok(exp === 0 ? whole : `${whole}.${frac.padEnd(exp, '0')}`);
}

// ---------------------------------------------------------------------------------------------
// Enum: one of the values (`Individual`, `non-binary` → `individual`, `non_binary`); a value close
// to one is refused with it as the suggestion even where other values are allowed (`open`): a typo
// never becomes data. A value far from all of them is taken only when `open`.

export function normalEnum(input: string, choices: readonly string[], open = false, maxLength = 50): Normal {
  const t = input.trim();
  if (choices.includes(t)) return ok(t);
  const k = fold(t);
  const same = choices.find((c) => fold(c) === k);
  if (same) return ok(same);
  const list = choices.join(', ');
  if (t === '') return no('must not be empty');
  if (CONTROL.test(t)) return no('must not contain control characters');
  const close = closeNames(k.replace(/ /g, '_'), choices);
  if (!open) return no(`must be one of ${list}`, close.length === 1 ? close[0] : undefined);
  if (close.length === 1) return no(`is not one of ${list}`, close[0]);
  if ([...t].length > maxLength) return no(`must be at most ${maxLength} characters`);
  return ok(t);
}

// ---------------------------------------------------------------------------------------------
// Date: a real calendar date YYYY-MM-DD (`1990/4/21`, `1990.04.21` → `1990-04-21`).

/** A real calendar date YYYY-MM-DD, from 1800 on. */
export function isCalendarDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && y >= 1800;
}

const pad = (n: string) => n.padStart(2, '0');

/** A date as typed → YYYY-MM-DD; `today` (YYYY-MM-DD) for a date that must not be after it (a birth date). */
export function normalDate(input: string, today?: () => string): Normal {
  const t = input.trim();
  const m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/.exec(t);
  const v = m ? `${m[1]}-${pad(m[2]!)}-${pad(m[3]!)}` : t;
  if (!isCalendarDate(v)) {
    // 21/04/1990 or 04/21/1990: named back when only one reading is a date.
    const dmy = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$/.exec(t);
    const readings = dmy
      ? [`${dmy[3]}-${pad(dmy[2]!)}-${pad(dmy[1]!)}`, `${dmy[3]}-${pad(dmy[1]!)}-${pad(dmy[2]!)}`].filter(isCalendarDate)
      : [];
    return no(DATE_RULE, new Set(readings).size === 1 ? readings[0] : undefined);
  }
  if (today && v > today()) return no('must not be in the future');
  return ok(v);
}

// ---------------------------------------------------------------------------------------------
// Id: taken exactly as typed (trimming would quietly turn `acc_…\u2028` into an id and send it);
// the id meant, when it is only spaces or case away, is the suggestion.

export function idRule(prefix: string): string {
  const prefixes = prefix.split('|');
  return `must be an id like ${prefixes.map((p) => `${p}…`).join(' or ')} (${prefixes[0]} followed by 24 lower-case letters or digits)`;
}

export function normalId(input: string, prefix?: string): Normal {
  // isId narrows its argument: asked of a copy, `input` stays a string after it.
  if (isId(String(input), prefix)) return ok(input);
  const rule = prefix ? idRule(prefix) : 'must be an id (a lower-case prefix, "_" and 24 lower-case letters or digits)';
  if (input.length > 100) return no(rule);
  const guess = input.trim().toLowerCase();
  return no(rule, guess !== input && isId(guess, prefix) ? guess : undefined);
}

// ---------------------------------------------------------------------------------------------

/**
 * The canonical form only (the emulator, and anything else that receives what the CLI sends):
 * the value is fine when normalising leaves it as it is; otherwise the same message as the CLI's,
 * with the canonical value as the "did you mean".
 */
export function strict(normal: Normal, input: string, rule: string): string | undefined {
  if (normal.error !== undefined) return normal.error;
  if (normal.value === input) return undefined;
  return `${rule}; ${didYouMean([normal.value])}`;
}
