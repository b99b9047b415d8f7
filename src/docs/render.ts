// A help topic's Markdown (src/docs/topics/*.md) as terminal text, every line at most `width`
// columns: what `pay help <topic>` prints. The Markdown is the small subset the topics use:
// headings, paragraphs, `-`/`1.` lists, fenced code, pipe tables, and inline `code`, **bold** and
// [links](url). Prose and list items are wrapped at spaces; a code line or a table cell wider than
// the room is broken too (code continues on the next line, indented), so nothing overflows.
import { displayWidth, padEnd, wrap } from '../io/width.js';

export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'para'; text: string }
  | { kind: 'item'; marker: string; text: string }
  | { kind: 'code'; lines: string[] }
  | { kind: 'table'; rows: string[][] };

/** Inline Markdown to plain text: `code`, **bold**, _emphasis_, [text](url), \| escapes. */
export function inline(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, t: string, u: string) => (t === u || `\`${u}\`` === t ? t : `${t} (${u})`))
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\\([|\\`*_[\]<>#])/g, '$1');
}

/** Split a pipe-table row into its cells (a `\|` stays in its cell). */
export function tableCells(line: string): string[] {
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && body[i + 1] === '|') {
      cell += '\\|';
      i++;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

const ITEM = /^(\s*)([-*]|\d+\.) +(.*)$/;
const SEPARATOR = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** The Markdown's blocks (comments dropped). */
export function parse(markdown: string): Block[] {
  const lines = markdown
    .replace(/\r\n?/g, '\n')
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^(\s*)(```+|~~~+)/.exec(line);
    if (fence) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(fence[2]!)) code.push(lines[i++]!.slice(fence[1]!.length));
      i++;
      blocks.push({ kind: 'code', lines: code });
      continue;
    }
    const heading = /^(#{1,6}) +(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]! });
      i++;
      continue;
    }
    if (line.trimStart().startsWith('|') && i + 1 < lines.length && SEPARATOR.test(lines[i + 1]!)) {
      const rows = [tableCells(line)];
      i += 2;
      while (i < lines.length && lines[i]!.trimStart().startsWith('|')) rows.push(tableCells(lines[i++]!));
      blocks.push({ kind: 'table', rows });
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      let text = item[3]!;
      i++;
      // Continuation lines: indented, not a new item, not blank.
      while (i < lines.length && lines[i]!.trim() !== '' && /^\s+/.test(lines[i]!) && !ITEM.test(lines[i]!))
        text += ` ${lines[i++]!.trim()}`;
      blocks.push({ kind: 'item', marker: item[2]! === '*' ? '-' : item[2]!, text });
      continue;
    }
    let text = line.trim();
    i++;
    while (i < lines.length && lines[i]!.trim() !== '' && !/^(#{1,6} |```|~~~|\s*\|)/.test(lines[i]!) && !ITEM.test(lines[i]!))
      text += ` ${lines[i++]!.trim()}`;
    blocks.push({ kind: 'para', text });
  }
  return blocks;
}

/** `text` wrapped to `width`, the first line after `first`, the others after `rest` (same width). */
function hanging(text: string, width: number, first: string, rest: string): string[] {
  const room = Math.max(1, width - Math.max(displayWidth(first), displayWidth(rest)));
  return wrap(text.replace(/\s+/g, ' ').trim(), room).map((l, n) => (n === 0 ? first : rest) + l);
}

/** A code line: as it is when it fits, else broken at the room and continued two columns further in. */
function codeLines(line: string, width: number, indent: string): string[] {
  const text = line.replace(/\t/g, '    ').trimEnd();
  if (displayWidth(indent) + displayWidth(text) <= width) return [indent + text];
  // The line's own indent, kept while it leaves room for at least a few characters.
  const lead = /^ */.exec(text)![0].slice(0, Math.max(0, width - displayWidth(indent) - 12));
  const inner = `${indent}${lead}  `;
  const room = Math.max(1, width - displayWidth(inner));
  const head = Math.max(1, width - displayWidth(indent) - lead.length);
  const body = text.slice(lead.length);
  const [first, ...more] = wrap(body, head);
  const out = [indent + lead + first!];
  // The rest is wrapped once, at the continuation's room (re-wrapping lines cut at the first
  // line's wider room left one word alone on a line).
  const rest = body.startsWith(first!) ? [body.slice(first!.length).replace(/^ /, '')] : more;
  for (const m of rest) for (const part of wrap(m, room)) out.push(inner + part);
  return out;
}

function table(rows: string[][], width: number, indent: string): string[] {
  const cells = rows.map((r) => r.map(inline));
  const n = Math.max(...cells.map((r) => r.length));
  const widths = Array.from({ length: n }, (_, c) => Math.max(...cells.map((r) => displayWidth(r[c] ?? ''))));
  const total = displayWidth(indent) + widths.reduce((a, b) => a + b, 0) + 2 * (n - 1);
  if (total <= width)
    return cells.map((r) => (indent + r.map((c, ci) => (ci === n - 1 ? c : padEnd(c, widths[ci]!))).join('  ')).trimEnd());
  // Too wide: the columns but the last, with the last wrapped in what is left, while that leaves
  // room enough to read (a third of the width); else each row as a small record.
  const lead = total - widths[n - 1]!;
  if (n > 1 && width - lead >= Math.max(20, Math.floor(width / 3))) {
    const room = width - lead;
    const out: string[] = [];
    for (const r of cells) {
      const left =
        indent +
        r
          .slice(0, n - 1)
          .map((c, ci) => padEnd(c, widths[ci]!))
          .join('  ') +
        '  ';
      const parts = wrap((r[n - 1] ?? '').replace(/\s+/g, ' ').trim(), room);
      out.push((left + parts[0]!).trimEnd(), ...parts.slice(1).map((p) => ' '.repeat(displayWidth(left)) + p));
    }
    return out;
  }
  // Too wide for columns: each row as a small record, its first cell, then "header: value".
  const [header, ...body] = cells;
  const out: string[] = [];
  for (const r of body) {
    out.push(...hanging(r[0] ?? '', width, indent, indent));
    for (let c = 1; c < r.length; c++) {
      if (!r[c]) continue;
      const label = header?.[c] ? `${header[c]}: ` : '';
      out.push(...hanging(`${label}${r[c]}`, width, `${indent}  `, `${indent}    `));
    }
  }
  return out;
}

/** The topic as text for a terminal `width` columns wide (at least 20), ending in a newline. */
export function renderTopic(markdown: string, width: number): string {
  const w = Math.max(20, Math.floor(width));
  const out: string[] = [];
  const gap = () => {
    if (out.length > 0 && out[out.length - 1] !== '') out.push('');
  };
  let prev: Block['kind'] | undefined;
  for (const b of parse(markdown)) {
    if (b.kind === 'heading') {
      gap();
      out.push(...hanging(inline(b.text), w, '', '  '));
    } else if (b.kind === 'para') {
      gap();
      out.push(...hanging(inline(b.text), w, '  ', '  '));
    } else if (b.kind === 'item') {
      if (prev !== 'item') gap();
      out.push(...hanging(inline(b.text), w, `  ${b.marker} `, ' '.repeat(3 + b.marker.length)));
    } else if (b.kind === 'code') {
      gap();
      for (const l of b.lines) out.push(...codeLines(l, w, '    '));
    } else {
      gap();
      out.push(...table(b.rows, w, '  '));
    }
    prev = b.kind;
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return `${out.join('\n')}\n`;
}

/** The topic's title: its first heading. */
export function topicTitle(markdown: string): string {
  const h = parse(markdown).find((b) => b.kind === 'heading');
  return h && h.kind === 'heading' ? inline(h.text) : '';
}
