// The help topics: the reference, written once as Markdown in src/docs/topics/<name>.md and shown
// three ways: `pay help <name>` (renderTopic, wrapped to the terminal), the man page
// pay-<name>(7) and docs/<name>.md of the package (both written by `npm run generate`). The
// Markdown reaches the CLI as strings (topic-texts.ts, generated from the files). A line
// `<!-- pay:NAME -->` in a topic stands for a table the code holds (GENERATED below): the
// environment variables, exit codes, business rules and simulation values, so they are said once.
import { ENVIRONMENT, EXIT_CODES } from '../lib/reference.js';
import { rulesText } from '../shared/rules.js';
import { simulationText } from '../shared/simulation.js';
import { renderTopic, topicTitle } from './render.js';
import { TOPIC_TEXTS } from './topic-texts.js';

/**
 * The topics in the order `pay help` lists them. None is named as a command is (`pay help seed`
 * is the command's help): the seed file's topic is `seed-files`, the emulator's `local-emulator`.
 */
export const TOPIC_NAMES = [
  'environment',
  'exit-codes',
  'config',
  'formatting',
  'http',
  'money',
  'support',
  'rules',
  'simulate',
  'seed-files',
  'local-emulator',
  'webhook-testing',
  'contract',
  'reliability',
  'choices',
  'dependencies',
  'design',
] as const;
export type TopicName = (typeof TOPIC_NAMES)[number];

const cell = (s: string) => s.replace(/\|/g, '\\|');
const fenced = (text: string) => `\`\`\`text\n${text.replace(/\n+$/, '')}\n\`\`\``;

/** What each `<!-- pay:NAME -->` line stands for, as Markdown. */
export const GENERATED: Record<string, () => string> = {
  environment: () =>
    [
      '| variable | flag | meaning |',
      '| --- | --- | --- |',
      ...ENVIRONMENT.map(([v, f, m]) => `| \`${cell(v)}\` | ${f ? `\`${cell(f)}\`` : ''} | ${cell(m)} |`),
    ].join('\n'),
  'exit-codes': () => ['| code | meaning |', '| --- | --- |', ...EXIT_CODES.map(([c, m]) => `| ${c} | ${cell(m)} |`)].join('\n'),
  rules: () => fenced(rulesText()),
  simulate: () => fenced(simulationText()),
};

const MARKER = /^<!-- pay:([a-z-]+) -->$/gm;

/** A topic's Markdown with its generated tables in place. */
export function expandTopic(markdown: string): string {
  return markdown.replace(MARKER, (line, name: string) => GENERATED[name]?.() ?? line);
}

export function isTopic(name: string): name is TopicName {
  return (TOPIC_NAMES as readonly string[]).includes(name);
}

/** The topic's Markdown, expanded. */
export function topicMarkdown(name: TopicName): string {
  return expandTopic(TOPIC_TEXTS[name] ?? '');
}

/** `pay help <name>` for a terminal `width` columns wide. */
export function topicText(name: TopicName, width: number): string {
  return renderTopic(topicMarkdown(name), width);
}

/** The topics, each with its title, and how to read one: what `pay help` adds to the root's help. */
export function topicList(width: number): string {
  return renderTopic(
    [
      '# Help topics',
      '',
      'Read one with `pay help <topic>` (or `man pay-<topic>`), a command with `pay help <command>`.',
      '',
      '| topic | what it covers |',
      '| --- | --- |',
      ...TOPIC_NAMES.map((n) => `| ${n} | ${cell(topicTitle(TOPIC_TEXTS[n] ?? ''))} |`),
    ].join('\n'),
    width,
  );
}
