// The help topics (src/docs/topics/*.md): every file is a topic `pay help` lists and the other way
// round; the renderer keeps every line within the width for any Markdown, hostile or not; the
// man pages' roff escaping leaves no text line that roff would read as a request; the generated
// copies (src/docs/topic-texts.ts, src/docs/generated/, src/docs/generated/man/) are what `npm run generate` writes today;
// and `pay help` lists the topics, prints one, and suggests a close one for a typo.
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { roffText, topicPage } from '../../src/docs/man.js';
import { renderTopic } from '../../src/docs/render.js';
import { GENERATED, TOPIC_NAMES, topicText } from '../../src/docs/topics.js';
import { TOPIC_TEXTS } from '../../src/docs/topic-texts.js';
import { displayWidth } from '../../src/io/width.js';
import { ENVIRONMENT, EXIT_CODES } from '../../src/lib/reference.js';
import { docFiles, topicTexts } from '../../src/scripts/generated.js';
import { pay } from './commands/harness.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIR = join(ROOT, 'src/docs/topics');
const sources = Object.fromEntries(
  readdirSync(DIR)
    .filter((f) => f.endsWith('.md'))
    .map((f) => [f.slice(0, -3), readFileSync(join(DIR, f), 'utf8')]),
);
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const widest = (text: string) => Math.max(0, ...text.split('\n').map(displayWidth));

describe('the topics', () => {
  it('are the Markdown files, each once, the ones the issue names among them', () => {
    expect(Object.keys(sources).sort()).toEqual([...TOPIC_NAMES].sort());
    for (const t of [
      'environment',
      'exit-codes',
      'config',
      'formatting',
      'http',
      'rules',
      'simulate',
      'seed-files',
      'local-emulator',
      'webhook-testing',
      'reliability',
      'choices',
    ])
      expect(TOPIC_NAMES, t).toContain(t);
    for (const [name, text] of Object.entries(sources)) expect(text, name).toMatch(/^# \S/);
  });

  it("none is named as a command is: pay help <command> stays the command's help", async () => {
    const { buildProgram } = await import('../../src/commands/tree.js');
    const names = buildProgram().commands.flatMap((c) => [c.name(), ...c.aliases()]);
    for (const t of TOPIC_NAMES) expect(names, t).not.toContain(t);
  });

  it('the reasons for the dependencies pay dropped stay findable', () => {
    const deps = sources.dependencies!;
    for (const name of ['conf', 'cli-table3', 'proper-lockfile', 'jq-wasm']) expect(deps, name).toContain(name);
  });

  it('the environment and exit-code tables come from the code, and every marker names a table', () => {
    for (const [name, text] of Object.entries(sources))
      for (const m of text.matchAll(/^<!-- pay:([a-z-]+) -->$/gm)) expect(Object.keys(GENERATED), `${name}: ${m[1]}`).toContain(m[1]);
    const env = topicText('environment', 1000);
    for (const [variable, flag, meaning] of ENVIRONMENT) {
      const line = env.split('\n').find((l) => l.trim().startsWith(`${variable}  `));
      expect(line, variable).toBeDefined();
      if (flag) expect(line).toContain(flag);
      expect(line).toContain(meaning.replace(/`/g, ''));
    }
    const codes = topicText('exit-codes', 1000);
    for (const [code, meaning] of EXIT_CODES)
      expect(codes).toMatch(new RegExp(`^ +${code} +${meaning.replace(/[()|.*+?[\]\\]/g, '\\$&')}$`, 'm'));
  });

  it.each([20, 40, 60, 80, 100, 132])('every topic at %i columns has no line wider than that', (width) => {
    for (const name of TOPIC_NAMES) {
      const text = topicText(name, width);
      expect(widest(text), `${name} at ${width}`).toBeLessThanOrEqual(width);
      expect(text.endsWith('\n')).toBe(true);
    }
  });

  it('no words are lost in the wrapping: the words of a paragraph come out in order', () => {
    const text = topicText('http', 40).replace(/\s+/g, ' ');
    expect(text).toContain('HTTPS only; plain http:// is accepted for loopback addresses');
  });
});

/** Markdown-ish text made of the pieces a topic has, with long words, wide and zero-width characters. */
const word = fc.oneof(
  fc.constantFrom(
    'pay',
    'a',
    '--idempotency-key',
    'https://example.com/a/very/long/path/that/does/not/break',
    '`code`',
    '**bold**',
    '[link](https://x.y)',
    '日本語',
    '👍🏽',
    'e\u0301',
    '\\|',
  ),
  fc.string({ minLength: 1, maxLength: 12 }).map((s) => s.replace(/[\n\r]/g, ' ')),
  fc.string({ minLength: 60, maxLength: 150, unit: fc.constantFrom('x', 'y', '-', '/', '字') }),
);
const line = fc.array(word, { minLength: 1, maxLength: 14 }).map((ws) => ws.join(' '));
const markdownBlock = fc.oneof(
  line.map((l) => `# ${l}`),
  line.map((l) => `### ${l}`),
  fc.array(line, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('\n')),
  fc.array(line, { minLength: 1, maxLength: 3 }).map((ls) => ls.map((l) => `- ${l}\n  ${l}`).join('\n')),
  fc.array(line, { minLength: 1, maxLength: 3 }).map((ls) => ls.map((l, i) => `${i + 1}. ${l}`).join('\n')),
  fc
    .array(fc.tuple(fc.nat(20), line), { minLength: 1, maxLength: 4 })
    .map((ls) => `\`\`\`sh\n${ls.map(([n, l]) => ' '.repeat(n) + l).join('\n')}\n\`\`\``),
  fc
    .tuple(fc.integer({ min: 1, max: 5 }), fc.array(fc.array(word, { minLength: 5, maxLength: 5 }), { minLength: 1, maxLength: 4 }))
    .map(([n, rows]) =>
      [rows[0]!.slice(0, n), Array(n).fill('---'), ...rows.map((r) => r.slice(0, n))].map((r) => `| ${r.join(' | ')} |`).join('\n'),
    ),
);

describe('renderTopic', () => {
  it('keeps every line within the width for any topic-shaped Markdown and any width', () => {
    fc.assert(
      fc.property(fc.array(markdownBlock, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 200 }), (blocks, width) => {
        const text = renderTopic(blocks.join('\n\n'), width);
        expect(widest(text)).toBeLessThanOrEqual(Math.max(20, width));
      }),
      { numRuns: 300 },
    );
  });

  it('a long code line continues filled: no continuation line leaves room for the next word (no word alone on a line)', () => {
    const words = fc.array(fc.stringMatching(/^[a-z(),:*]{1,12}$/), { minLength: 5, maxLength: 60 });
    fc.assert(
      fc.property(words, fc.integer({ min: 30, max: 160 }), (ws, width) => {
        const md = '```\n' + ws.join(' ') + '\n```';
        const lines = renderTopic(md, width).trimEnd().split('\n');
        expect(lines.join(' ').replace(/\s+/g, ' ').trim()).toBe(ws.join(' '));
        for (let i = 1; i < lines.length - 1; i++) {
          const next = lines[i + 1]!.trim().split(' ')[0]!;
          // Greedy: the next line's first word did not fit on this one.
          expect(lines[i]!.length + 1 + next.length, `${width}: ${JSON.stringify(lines)}`).toBeGreaterThan(width);
        }
      }),
      { numRuns: 300, seed: 4211 },
    );
  });

  it('lays a table out in columns when it fits, wraps its last column when not, else one record a row', () => {
    const md = '| code | meaning |\n| --- | --- |\n| 2 | usage |\n| 130 | cancelled: Ctrl-C or Ctrl-D at a prompt, or a signal |';
    expect(renderTopic(md, 80)).toBe('  code  meaning\n  2     usage\n  130   cancelled: Ctrl-C or Ctrl-D at a prompt, or a signal\n');
    expect(renderTopic(md, 40)).toBe(
      '  code  meaning\n  2     usage\n  130   cancelled: Ctrl-C or Ctrl-D at a\n        prompt, or a signal\n',
    );
    const narrow = renderTopic(md, 24);
    expect(narrow).toMatch(/^ {2}2\n {4}meaning: usage\n {2}130\n {4}meaning:/);
    expect(widest(narrow)).toBeLessThanOrEqual(24);
    expect(narrow.replace(/\s+/g, ' ')).toContain('cancelled: Ctrl-C or Ctrl-D at a prompt, or a signal');
  });
});

describe('man pages', () => {
  it('roffText: no text line starts a request, and backslashes and hyphens are escaped', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom('.', "'", '\\', '-', '.TH x', "'br", '\\fB'), fc.string()), { maxLength: 10 }),
        (parts) => {
          const text = parts.join('\n');
          const out = roffText(text);
          for (const l of out.split('\n')) expect(l).not.toMatch(/^[.']/);
          // Every backslash in the output starts one of the three escapes roffText writes.
          expect(out.replace(/\\(e|-|&)/g, '')).not.toContain('\\');
          expect(out.replace(/\\e/g, '\\').replace(/\\-/g, '-').replace(/^\\&/gm, '')).toBe(text.replace(/\r\n?/g, '\n'));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a topic page escapes what its Markdown says: a line starting with a dot in code or prose is text', () => {
    const page = topicPage('x', "# Title\n\n.PP is not a request\n\n```\n.SH nor this\n'br\n```\n", version);
    expect(page).toContain('\\&.PP is not a request');
    expect(page).toContain('\\&.SH nor this');
    expect(page).toContain("\\&'br");
    expect(page.split('\n').filter((l) => /^\.SH /.test(l))).toEqual(['.SH NAME', '.SH SEE ALSO']);
  });
});

describe('generated copies (npm run generate)', () => {
  it('src/docs/topic-texts.ts is the Markdown, in ASCII', () => {
    const committed = readFileSync(join(ROOT, 'src/docs/topic-texts.ts'), 'utf8');
    expect(committed, 'src/docs/topic-texts.ts is stale: run npm run generate').toBe(topicTexts(sources));
    expect(committed).toMatch(/^[\x20-\x7e\n]*$/);
    for (const n of TOPIC_NAMES) expect(TOPIC_TEXTS[n]).toBe(sources[n]);
  });

  it('src/docs/generated/ and src/docs/generated/man/ hold what the tree and the topics generate, and nothing else', () => {
    const files = docFiles(sources, version);
    const listed = ['src/docs/generated', 'src/docs/generated/man'].flatMap((d) =>
      readdirSync(join(ROOT, d), { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => `${d}/${e.name}`),
    );
    expect(listed.sort()).toEqual(Object.keys(files).sort());
    for (const [name, text] of Object.entries(files))
      expect(readFileSync(join(ROOT, name), 'utf8'), `${name} is stale: run npm run generate`).toBe(text);
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining([
        'src/docs/generated/man/pay.1',
        'src/docs/generated/man/pay-customers.1',
        'src/docs/generated/man/pay-formatting.7',
        'src/docs/generated/commands.md',
      ]),
    );
  });
});

describe('pay help', () => {
  it('alone: the root help, then every topic with its title', async () => {
    const r = await pay(['help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: pay /);
    const list = r.stdout.slice(r.stdout.indexOf('\nHelp topics\n'));
    for (const n of TOPIC_NAMES) expect(list).toMatch(new RegExp(`^  ${n} +\\S`, 'm'));
  });

  it('pay help help names every topic (its description lists them)', async () => {
    const r = await pay(['help', 'help']);
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    for (const n of TOPIC_NAMES) expect(text, n).toMatch(new RegExp(`[ ,:]${n}[,. ]`));
  });

  it('a topic prints its Markdown rendered; a typo gets "did you mean" and exit 2', async () => {
    for (const n of TOPIC_NAMES) {
      const r = await pay(['help', n]);
      expect(r.code, n).toBe(0);
      expect(r.stdout.split('\n')[0], n).toBe(sources[n]!.split('\n')[0]!.replace(/^# /, '').replace(/`/g, ''));
    }
    for (const [typed, meant] of [
      ['formating', 'formatting'],
      ['enviroment', 'environment'],
      ['exit-code', 'exit-codes'],
      ['webhook', 'webhooks'],
      ['seed-file', 'seed-files'],
      ['choice', 'choices'],
    ]) {
      const r = await pay(['help', typed!]);
      expect(r.code, typed).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr, typed).toContain(`unknown help topic or command "${typed}"`);
      expect(r.stderr, typed).toMatch(new RegExp(`did you mean (one of )?[^?]*\\b${meant}\\b`));
    }
  });
});
