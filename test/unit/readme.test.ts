// The README's generated parts and tables must match the code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandReference, REFERENCE_END, REFERENCE_START, spliceReference } from '../../src/docs/reference.js';
import { ENVIRONMENT, EXIT_CODES } from '../../src/lib/reference.js';
import { buildProgram } from '../../src/commands/tree.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('opens with exactly the two set-up commands', () => {
    expect(readme.split('\n').slice(0, 6).join('\n')).toBe('# pay\n\n```sh\nnpm install && npm run demo\nnpm test\n```');
  });

  it('has the command reference the tree generates (run npm run generate when this fails)', () => {
    expect(readme).toContain(REFERENCE_START);
    expect(readme).toContain(REFERENCE_END);
    expect(spliceReference(readme, commandReference(buildProgram()))).toBe(readme);
  });

  it('the reference names every verb of every group', () => {
    const ref = commandReference(buildProgram());
    for (const g of buildProgram().commands)
      for (const v of g.commands) if (v.name() !== 'help') expect(ref).toContain(`pay ${g.name()} ${v.name()}`);
  });

  it('no shell block polls with sleep: the commands that wait have --wait (the README says "no sleep")', () => {
    const blocks = [...readme.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    for (const b of blocks) expect(b, b).not.toMatch(/\bsleep\b|^\s*(until|while)\b/m);
  });

  it('has the exit-code and environment tables pay help prints', () => {
    for (const [code, meaning] of EXIT_CODES) expect(readme).toContain(`| ${code} | ${meaning} |`);
    for (const [variable, flag, meaning] of ENVIRONMENT)
      expect(readme).toContain(`| \`${variable}\` | ${flag ? `\`${flag}\` ` : ''}| ${meaning} |`);
  });
});
