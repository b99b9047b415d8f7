// Writes the reliability suite's figures (test/.tmp/reliability.json, written by record() in
// test/reliability/helpers.ts) into the reliability help topic (src/docs/topics/reliability.md,
// which `pay help reliability`, its man page and docs/ show) as a table, between the markers
// <!-- reliability:start --> and <!-- reliability:end -->. One row per check the suite records
// (the record('<id>', …) calls in test/reliability/*.test.ts, in file order): its full-count
// figure when one was measured (PAY_RELIABILITY_FULL=1), else the default one. A check with no
// figure in the file keeps its row from the topic (a run of part of the suite updates only its
// own rows); rows of checks the suite no longer records go. Written to the topic itself, it then
// runs `npm run generate`, so the CLI's copy, docs/ and the man page follow.
//
//   node test/reliability/report.mjs [figures.json] [topic.md]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const START = '<!-- reliability:start -->';
export const END = '<!-- reliability:end -->';

const here = dirname(fileURLToPath(import.meta.url));
const HEADER = ['check', 'counts', 'tried', 'passed', 'lost', 'duplicated', 'leaked', 'notable extra counts', 'duration', 'measured'];

/** The record ids of the suite's test files, in file order. */
export function recordIds(dir = here) {
  const ids = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.test.ts'))
    .sort()) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/\brecord\(\s*'([^']+)'/g)) if (!ids.includes(m[1])) ids.push(m[1]);
  }
  return ids;
}

const cell = (v) => String(v).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

function duration(ms) {
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(Math.round(s - m * 60)).padStart(2, '0')} s`;
}

/** `extra` as short text: the seed left out, numbered keys (status_404, exit_2) grouped when several. */
function extras(extra) {
  if (!extra) return '';
  const plain = [];
  const groups = new Map();
  for (const [k, v] of Object.entries(extra)) {
    if (k === 'seed') continue;
    const m = /^(.*)_(\d+)$/.exec(k);
    if (m) {
      if (!groups.has(m[1])) groups.set(m[1], []);
      groups.get(m[1]).push(`${m[2]}×${v}`);
    } else plain.push(`${k.replace(/_/g, ' ')} ${v}`);
  }
  for (const [k, parts] of groups)
    plain.push(parts.length > 1 ? `${k.replace(/_/g, ' ')} ${parts.join(' ')}` : `${k.replace(/_/g, ' ')} ${parts[0].replace('×', ': ')}`);
  return plain.join(', ');
}

export function row(id, f) {
  const check = `\`${id}\`${f.title ? ` ${f.title}` : ''}`;
  return `| ${[check, f.mode, f.tried, f.passed, f.lost, f.duplicated, f.leaked, extras(f.extra), duration(f.duration_ms), f.at.slice(0, 10)].map(cell).join(' | ')} |`;
}

/** The table for these ids from the figures, keeping `previous` rows (by id) for ids with none. */
export function table(ids, figures, previous = new Map()) {
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map((h, i) => (i >= 2 && i <= 6 ? ' ---: ' : ' --- ')).join('|')}|`];
  for (const id of ids) {
    const f = figures.tests?.[id]?.full ?? figures.tests?.[id]?.default;
    if (f) lines.push(row(id, f));
    else lines.push(previous.get(id) ?? `| ${cell(`\`${id}\``)} | not measured yet |  |  |  |  |  |  |  |  |`);
  }
  return lines.join('\n');
}

/** Rows of the table now in the README, by id. */
export function previousRows(readme) {
  const out = new Map();
  const i = readme.indexOf(START);
  const j = readme.indexOf(END);
  if (i < 0 || j < i) return out;
  for (const line of readme.slice(i, j).split('\n')) {
    const m = /^\| `([^`]+)`/.exec(line);
    if (m) out.set(m[1], line);
  }
  return out;
}

export function splice(readme, body) {
  const i = readme.indexOf(START);
  const j = readme.indexOf(END);
  if (i < 0 || j < i) throw new Error(`the reliability topic has no ${START} … ${END} markers`);
  return `${readme.slice(0, i + START.length)}\n${body}\n${readme.slice(j)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figuresPath = process.argv[2] ?? join(here, '..', '.tmp', 'reliability.json');
  const topic = join(here, '..', '..', 'src', 'docs', 'topics', 'reliability.md');
  const readmePath = process.argv[3] ?? topic;
  let figures;
  try {
    figures = JSON.parse(readFileSync(figuresPath, 'utf8'));
  } catch (err) {
    console.error(`report: cannot read ${figuresPath} (${err.code ?? err.message}); run the suite first: npm run test:reliability`);
    process.exit(1);
  }
  const readme = readFileSync(readmePath, 'utf8');
  const ids = recordIds();
  let next;
  try {
    next = splice(readme, table(ids, figures, previousRows(readme)));
  } catch (err) {
    console.error(`report: ${readmePath}: ${err.message}`);
    process.exit(1);
  }
  if (next !== readme) writeFileSync(readmePath, next);
  if (next !== readme && readmePath === topic) {
    const g = spawnSync(process.execPath, [join(here, '..', '..', 'src', 'scripts', 'generate.mjs')], { stdio: ['ignore', 2, 2] });
    if (g.status !== 0) {
      console.error('report: npm run generate failed after writing the topic: run it yourself');
      process.exit(1);
    }
  }
  const measured = ids.filter((id) => figures.tests?.[id]);
  console.log(
    `report: ${measured.length} of ${ids.length} checks from ${figuresPath} written to ${readmePath}${next === readme ? ' (unchanged)' : ''}`,
  );
}
