// How wide text is on a terminal, in columns, and cutting or wrapping it to a width: what tables
// and get views use to fit the terminal (src/io/table.ts). Measured per code point as wcwidth
// does (and so tmux, xterm and the Linux console): East Asian wide and fullwidth characters and
// emoji shown as emoji (Emoji_Presentation) take 2 columns, combining marks, enclosing marks and
// format characters (a zero-width joiner, a variation selector) and the Hangul medial vowels and
// final consonants take 0, every other character 1. A ZWJ sequence (a family emoji) counts its
// parts, as wcwidth does: never narrower than a terminal draws it, so a line measured to fit does.
// Measure what is printed: text from the service is escaped first (src/io/escape.ts), so no
// control character reaches here; one that does counts 1, as its escape would at least.

const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}]/u;
const EMOJI = /\p{Emoji_Presentation}/u;
/** Printable ASCII only: its width is its length. */
const ASCII = /^[\x20-\x7e]*$/;

/** East Asian Wide (W) and Fullwidth (F) ranges of Unicode's EastAsianWidth.txt outside emoji. */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], // Hangul Jamo initial consonants
  [0x2329, 0x232a], // angle brackets
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
  [0x3041, 0x3247], // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, enclosed CJK
  [0x3250, 0x4dbf], // enclosed CJK, CJK compatibility, CJK extension A
  [0x4e00, 0xa4cf], // CJK unified ideographs, Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x16fe0, 0x16fe4], // ideographic symbols
  [0x16ff0, 0x16ff1],
  [0x17000, 0x18cff], // Tangut, Khitan
  [0x18d00, 0x18d08],
  [0x1aff0, 0x1b2ff], // Kana supplement and extensions, Nushu
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x2fffd], // CJK extensions B-F, compatibility supplement
  [0x30000, 0x3fffd], // CJK extension G and after
];

function isWide(cp: number): boolean {
  if (cp < 0x1100) return false;
  for (const [lo, hi] of WIDE) {
    if (cp < lo) return false;
    if (cp <= hi) return true;
  }
  return false;
}

/** Widths of code points met so far (text repeats its characters; the property tests are slow). */
const known = new Map<number, number>();

/** Columns one code point takes: 0, 1 or 2. */
export function codePointWidth(cp: number): number {
  // Below U+0300 nothing is wide or combining; the soft hyphen (a format character) is drawn.
  if (cp < 0x300) return 1;
  let w = known.get(cp);
  if (w === undefined) {
    const ch = String.fromCodePoint(cp);
    // Hangul medial vowels and final consonants join the syllable before them.
    if ((cp >= 0x1160 && cp <= 0x11ff) || (cp >= 0xd7b0 && cp <= 0xd7ff) || ZERO_WIDTH.test(ch)) w = 0;
    else w = isWide(cp) || EMOJI.test(ch) ? 2 : 1;
    if (known.size >= 4096) known.clear();
    known.set(cp, w);
  }
  return w;
}

/** The columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let width = 0;
  for (const ch of text) width += codePointWidth(ch.codePointAt(0)!);
  return width;
}

/**
 * The longest start of `text` at most `width` wide: whole characters, each with the marks that
 * follow it (a base is never parted from its combining marks), no zero-width joiner left dangling.
 */
function head(text: string, width: number): { text: string; width: number; rest: string } {
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const w = codePointWidth(ch.codePointAt(0)!);
    if (w > 0 && used + w > width) break;
    used += w;
    end += ch.length;
  }
  let cut = text.slice(0, end);
  // An escape (src/io/escape.ts: \t, \xhh, \uhhhh, \u{h…}) is read as one: never split it
  // across lines or before an ellipsis (`\u202` then `e…` reads as other text).
  const split = splitEscapeAt(text, cut.length);
  if (split) cut = cut.slice(0, split[0]);
  // A joiner at the end would join whatever is drawn next (the ellipsis) into its sequence.
  while (cut.endsWith('\u200d')) cut = cut.slice(0, -1);
  if (cut.length !== end) used = displayWidth(cut);
  return { text: cut, width: used, rest: text.slice(cut.length) };
}

const ESCAPE = /\\(?:[tnr]|x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]{1,6}\})/gy;

/** The escape that `at` would split, as [start, end), or undefined when `at` splits none. */
function splitEscapeAt(text: string, at: number): [number, number] | undefined {
  for (let i = Math.max(0, at - 10); i < at; i++) {
    if (text.charCodeAt(i) !== 0x5c) continue;
    ESCAPE.lastIndex = i;
    const m = ESCAPE.exec(text);
    if (m && i + m[0].length > at) return [i, i + m[0].length];
  }
  return undefined;
}

/** The first character of `text` with the zero-width ones after it, however wide; or the escape it starts with. */
function first(text: string): { text: string; width: number; rest: string } {
  ESCAPE.lastIndex = 0;
  const esc = ESCAPE.exec(text);
  if (esc) return { text: esc[0], width: esc[0].length, rest: text.slice(esc[0].length) };
  let end = 0;
  let width = 0;
  for (const ch of text) {
    const w = codePointWidth(ch.codePointAt(0)!);
    if (end > 0 && w > 0) break;
    width += w;
    end += ch.length;
  }
  return { text: text.slice(0, end), width, rest: text.slice(end) };
}

/** `text` cut to at most `width` columns, ending in `…` when cut (at least the `…`). */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return '…';
  return `${head(text, width - 1).text}…`;
}

/** `text` followed by spaces up to `width` columns (nothing added when it is as wide already). */
export function padEnd(text: string, width: number): string {
  const w = displayWidth(text);
  return w >= width ? text : text + ' '.repeat(width - w);
}

/**
 * `text` as lines of at most `width` columns, broken at spaces where it can be and inside a word
 * longer than a line (a character wider than the whole width gets a line of its own). The spaces
 * a line is broken at are dropped; no line is empty unless `text` is.
 */
export function wrap(text: string, width: number): string[] {
  const room = Math.max(1, Math.floor(width));
  if (displayWidth(text) <= room) return [text];
  const lines: string[] = [];
  let line = '';
  let used = 0;
  let started = false;
  for (const word of text.split(' ')) {
    const w = displayWidth(word);
    if (started) {
      if (used + 1 + w <= room) {
        line += ` ${word}`;
        used += 1 + w;
        continue;
      }
      lines.push(line);
      line = '';
      used = 0;
      started = false;
      if (word === '') continue; // the space the line broke at
    }
    let rest = word;
    let restWidth = w;
    while (restWidth > room) {
      const part = head(rest, room);
      // A character wider than the room still goes out, alone on its line.
      const taken = part.text.length > 0 ? part : first(rest);
      lines.push(taken.text);
      rest = taken.rest;
      restWidth -= taken.width;
    }
    line = rest;
    used = restWidth;
    started = true;
  }
  if (started) lines.push(line);
  return lines;
}
