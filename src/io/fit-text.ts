// Text for people (a help topic, a status line) fitted to a width without splitting a word (an
// id, a command, a code): a paragraph of prose (lines at the left edge) wider than the width is
// reflowed as one; a row of two cells (`label  text`) wraps its text under the text, so the
// labels stay a column; any other indented line wraps under its own indent. Lines that fit are
// left as written. A word is never broken: one wider than the room has a line of its own (the
// terminal wraps it; it is still one word to copy). Text only: escape data before (escape.ts);
// this adds no colour and removes none.
import { displayWidth } from './width.js';

/** The least room a row's text keeps beside its label before the text goes under the label instead. */
const ROW_TEXT_MIN = 24;

const ROW = /^( *)(\S(?:.*?\S)?)( {2,})(\S.*)$/;

const isProse = (line: string): boolean => line !== '' && !line.startsWith(' ') && !ROW.test(line);

export function fitText(text: string, width: number): string {
  const room = Math.max(20, Math.floor(width));
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    if (isProse(lines[i]!)) {
      const para: string[] = [];
      do para.push(lines[i++]!);
      while (i < lines.length && isProse(lines[i]!) && !para[para.length - 1]!.endsWith(':'));
      if (para.every((l) => displayWidth(l) <= room)) out.push(...para);
      else out.push(...wrapWords(para.join(' '), room));
      continue;
    }
    out.push(...fitLine(lines[i++]!, room));
  }
  return out.join('\n');
}

/** One line (a row, an indented line) at most `room` wide, continued under its text. */
export function fitLine(line: string, room: number): string[] {
  if (displayWidth(line) <= room) return [line];
  const row = ROW.exec(line);
  if (row) {
    const [, indent, label, gap, rest] = row;
    const hang = displayWidth(indent! + label! + gap!);
    if (room - hang >= ROW_TEXT_MIN) {
      const parts = wrapWords(rest!, room - hang);
      return [`${indent}${label}${gap}${parts[0]!}`, ...parts.slice(1).map((p) => ' '.repeat(hang) + p)];
    }
  }
  const indent = /^ */.exec(line)![0];
  const under = Math.min(indent.length, Math.floor(room / 2));
  return wrapWords(line.slice(indent.length), room - under).map((p) => ' '.repeat(under) + p);
}

/** `text` in lines of at most `room` columns, broken at spaces only (runs of spaces between words count as one). */
export function wrapWords(text: string, room: number): string[] {
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of text.split(' ')) {
    if (word === '') continue;
    const w = displayWidth(word);
    if (line !== '' && used + 1 + w > room) {
      lines.push(line);
      line = '';
      used = 0;
    }
    used += line === '' ? w : 1 + w;
    line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/**
 * Status lines (a listen's `-->`/`<--` lines, a warning) for a terminal `width` wide: each line
 * longer than the width is broken at its spaces, its continuation indented by `hang` columns, so
 * no id is split by the terminal's own wrapping. A word wider than its line keeps a line of its own.
 */
export function fitStatus(text: string, width: number, hang = 4): string {
  const room = Math.max(20, Math.floor(width));
  return text
    .split('\n')
    .map((line) => {
      if (displayWidth(line) <= room) return line;
      const [first, ...rest] = wrapWords(line, room);
      if (rest.length === 0) return first!;
      return [first!, ...wrapWords(rest.join(' '), room - hang).map((p) => ' '.repeat(hang) + p)].join('\n');
    })
    .join('\n');
}
