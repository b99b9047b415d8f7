// pay webhooks get <evt_…> as a person reads it on a terminal: the event's fields with its payload
// folded to the object's top-level fields (a nested object or list is one line naming what it
// holds; --wide unfolds it), then each delivery attempt as a block: its time, status, duration
// and id on one line, the full URL (never cut: it is copied) and the first bytes the app answered
// (response_excerpt, escaped: control characters and ANSI shown as escapes, never acted on),
// wrapped to the terminal's width. Every other output (--json, -o, --fields, --jq, a pipe's
// table) is the generic get's.
import type { Factory } from '../../cmdutil/factory.js';
import type { VerbContext } from '../../cmdutil/spec.js';
import { escapeText, escapeValue } from '../../io/escape.js';
import { formatTime, Printer } from '../../io/output.js';
import type { TimeView } from '../../io/time.js';
import { displayWidth } from '../../io/width.js';
import { clientNeeds, columnsOf, prepare, printResult, send } from '../../verbs/steps.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A nested value as one line: `{3 fields: a, b, c}` or `[2 items]` (names escaped; the line is cut to the terminal later). */
export function foldedText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length} ${value.length === 1 ? 'item' : 'items'}]`;
  const keys = Object.keys(value as Json);
  return `{${keys.length} ${keys.length === 1 ? 'field' : 'fields'}${keys.length ? `: ${keys.map(escapeText).join(', ')}` : ''}}`;
}

/** The event with its payload (`data`) folded: data.object's top-level fields kept, anything nested below them one line. */
export function foldPayload(event: Json): Json {
  const data = event.data;
  if (!isObject(data)) return event;
  const fold = (o: Json): Json =>
    Object.fromEntries(
      Object.entries(o).map(([k, v]) => [
        k,
        v !== null && typeof v === 'object' && (!Array.isArray(v) || v.length > 0) ? foldedText(v) : v,
      ]),
    );
  const folded: Json = {};
  for (const [k, v] of Object.entries(data)) folded[k] = isObject(v) ? fold(v) : v;
  return { ...event, data: folded };
}

/** One attempt's lines: `#n  time  status  duration  id` (the time in the view's zone, as the event's own times), then the URL whole and the answer's first bytes, escaped and wrapped to `width` (none: not wrapped). */
export function attemptLines(a: unknown, n: number, width: number | undefined, view?: TimeView): string[] {
  const at = isObject(a) ? a : {};
  const text = (v: unknown): string => (v === undefined || v === null || v === '' ? '-' : escapeValue(v));
  const code =
    typeof at.response_code === 'number' ? `HTTP ${at.response_code}` : at.error ? `no answer (${escapeValue(at.error)})` : 'no answer';
  const time = typeof at.attempted_at === 'string' ? escapeText(formatTime(at.attempted_at, view)) : '-';
  const ms = typeof at.duration_ms === 'number' ? `${at.duration_ms} ms` : '-';
  const head = [`#${n}`, time, code, ms, text(at.id)].join('  ');
  const lines = width ? wrapWords(head, width) : [head];
  const indent = '    ';
  // The URL is copied: never cut or broken (a terminal wraps a longer one itself).
  lines.push(`${indent}url     ${text(at.url)}`);
  const excerpt = at.response_excerpt;
  const answer = typeof excerpt === 'string' && excerpt !== '' ? escapeText(excerpt) : '-';
  const label = `${indent}answer  `;
  if (!width || displayWidth(label) + displayWidth(answer) <= width) lines.push(`${label}${answer}`);
  else {
    const room = Math.max(20, width - displayWidth(label));
    const parts = breakAnywhere(answer, room);
    lines.push(`${label}${parts[0]!}`, ...parts.slice(1).map((p) => `${' '.repeat(displayWidth(label))}${p}`));
  }
  return lines;
}

/** Wraps at the spaces only (a line of ids and codes: no word is broken; a word wider than the line stays whole). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split('  ')) {
    if (line && displayWidth(line) + 2 + displayWidth(word) > width) {
      lines.push(line);
      line = `    ${word}`;
    } else line = line ? `${line}  ${word}` : word;
  }
  lines.push(line);
  return lines;
}

/** An escaped excerpt in lines of `room` columns, broken anywhere but inside an escape (`\u001b`, `\n`): the text is what was answered, not words. */
function breakAnywhere(text: string, room: number): string[] {
  const tokens = text.match(/\\u\{[0-9a-fA-F]+\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\.|[\s\S]/gu) ?? [];
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const t of tokens) {
    const w = displayWidth(t);
    if (used + w > room && line) {
      lines.push(line);
      line = '';
      used = 0;
    }
    line += t;
    used += w;
  }
  lines.push(line);
  return lines.length ? lines : [''];
}

export async function run(f: Factory, ctx: VerbContext): Promise<void> {
  const req = await prepare(f, ctx);
  const client = await f.client(clientNeeds(ctx));
  const res = await send(f, ctx, client, req);
  const event = res.body;
  const { output } = ctx;
  if (output.format !== 'table' || output.fields || output.jq || !isObject(event)) return printResult(f, ctx, event, res.replayed);
  const printer = new Printer(f.io, output, columnsOf(ctx));
  const { attempts, ...rest } = event;
  printer.printObject(output.wide ? rest : foldPayload(rest));
  const list = Array.isArray(attempts) ? attempts : [];
  const width = f.io.stdoutIsTTY && !output.wide ? f.io.terminalWidth : undefined;
  const lines = [``, `Delivery attempts (${list.length})`];
  list.forEach((a, i) => lines.push(...attemptLines(a, i + 1, width, output.time)));
  f.io.out(`${lines.join('\n')}\n`);
}
