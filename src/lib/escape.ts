// Text from the service or from files, made safe to show (contract section 5): every character
// that could drive a terminal or hide what is shown is written as an escape instead. Used at
// every text sink (tables, get views, TSV, error/field/hint lines, success and warning lines,
// listen lines, prompts, progress, --debug lines). JSON output is the data exactly; on a terminal
// it goes through escapeJson, which writes the same characters as JSON escapes (the same data).
//
// Escaped: C0 controls (tab and newline too, except in `multiline` text), DEL, C1 (U+0080–U+009F),
// bidi marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069), line and paragraph separators (U+2028, U+2029), invisible format characters
// (U+180E, U+200B, U+2060–U+2064, U+206A–U+206F, U+FEFF, U+FFF9–U+FFFB, tags U+E0000–U+E007F)
// and unpaired surrogates. Kept: zero-width (non-)joiners U+200C/U+200D (scripts and emoji need
// them), variation selectors, and every printable character. A backslash is shown as it is.
// Forms: `\t` `\n` `\r`, `\xhh` below U+0100, `\uhhhh`, `\u{hhhhh}` above U+FFFF.

const UNSAFE_ONE_LINE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}\u{d800}-\u{dfff}]/gu;
const UNSAFE_MULTILINE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}\u{d800}-\u{dfff}]/gu;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const cp = ch.codePointAt(0)!;
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\u{${cp.toString(16)}}`;
}

/**
 * One line of text safe for a terminal: every control, bidi and invisible format character
 * (newline and tab included) written as an escape. Strings without any come back unchanged.
 */
export function escapeText(text: string): string {
  // String(): a hostile answer may put a number or an object where a string was promised.
  const s = typeof text === 'string' ? text : String(text);
  UNSAFE_ONE_LINE.lastIndex = 0;
  if (!UNSAFE_ONE_LINE.test(s)) return s;
  return s.replace(UNSAFE_ONE_LINE, escapeChar);
}

/** As escapeText, but newlines and tabs are kept (a stack trace, a text body shown whole). */
export function escapeMultiline(text: string): string {
  const s = typeof text === 'string' ? text : String(text);
  UNSAFE_MULTILINE.lastIndex = 0;
  if (!UNSAFE_MULTILINE.test(s)) return s;
  return s.replace(UNSAFE_MULTILINE, escapeChar);
}

/** Any value as one safe line: strings escaped, objects as their JSON (then escaped), others via String(). */
export function escapeValue(value: unknown): string {
  if (typeof value === 'string') return escapeText(value);
  if (value !== null && typeof value === 'object') return escapeText(JSON.stringify(value));
  return escapeText(String(value));
}

/** What escapeText escapes that JSON.stringify (and jq) leave raw inside strings: DEL, C1, bidi, separators, invisibles, lone surrogates. */
const UNSAFE_IN_JSON =
  /[\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}\u{d800}-\u{dfff}]/gu;

/**
 * JSON text for a terminal: every character a terminal would act on or hide (a raw U+009B is a C1
 * CSI, the start of an escape sequence) written as a JSON escape (`\u009b`; a tag above U+FFFF as
 * its surrogate pair). Such characters can stand only inside strings, so the text parses to the
 * same value: the data is unchanged, only its spelling. Into a pipe or file JSON is written as is.
 */
export function escapeJson(json: string): string {
  UNSAFE_IN_JSON.lastIndex = 0;
  if (!UNSAFE_IN_JSON.test(json)) return json;
  return json.replace(UNSAFE_IN_JSON, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
