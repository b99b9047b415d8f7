// The README is the first five minutes: short, the two set-up commands first, a tour by task and
// where the reference lives. The reference is in the help topics (test/unit/topics.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOPIC_NAMES } from '../../src/docs/topics.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('opens with exactly the two set-up commands', () => {
    expect(readme.split('\n').slice(0, 6).join('\n')).toBe('# pay\n\n```sh\nnpm install && npm run demo\nnpm test\n```');
  });

  it('is at most 300 lines', () => {
    expect(readme.endsWith('\n')).toBe(true);
    expect(readme.split('\n').length - 1).toBeLessThanOrEqual(300);
  });

  it('has a tour by task and a table naming every help topic', () => {
    for (const task of [
      '### Log in',
      '### Try everything locally',
      '### Create a customer and move money',
      "### Inspect a customer's money",
      '### Test your webhook handler',
      '### Seed Sandbox data from CI',
      '### Pipe JSON',
    ])
      expect(readme).toContain(`\n${task}\n`);
    const table = readme.slice(readme.indexOf('## Where the reference lives'));
    for (const t of TOPIC_NAMES) expect(table).toContain(`| \`${t}\` |`);
  });

  it('no shell block polls with sleep: the commands that wait have --wait (the README says "no sleep")', () => {
    const blocks = [...readme.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    for (const b of blocks) expect(b, b).not.toMatch(/\bsleep\b|^\s*(until|while)\b/m);
  });
});
