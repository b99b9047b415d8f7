// What `pay --version` and `pay --help` load: one CommonJS file with commander and the group
// heads; every dependency and implementation behind an import() (contract: cheap start-up).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GROUP_HEADS } from '../../src/commands/group-index.js';
import { allGroups } from '../../src/commands/groups.js';

describe('start-up path', () => {
  it("the group index lists every group, in order, with the specs' names and summaries", () => {
    expect(Object.keys(GROUP_HEADS)).toEqual(allGroups.map((g) => g.name));
    for (const g of allGroups) expect(GROUP_HEADS[g.name as keyof typeof GROUP_HEADS]).toMatchObject({ name: g.name, summary: g.summary });
  });

  it('the built entry requires node built-ins only; the rest is import()ed from dist/impl', () => {
    const entry = readFileSync(new URL('../../dist/cli.cjs', import.meta.url), 'utf8');
    const required = [...entry.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(required.filter((r) => !r.startsWith('node:'))).toEqual([]);
    const imported = [...entry.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(imported.length).toBeGreaterThan(10);
    expect(imported.every((i) => i.startsWith('./impl/'))).toBe(true);
    for (const dep of ['undici', 'proper-lockfile', 'chalk', '@inquirer/prompts', 'yaml', 'child_process']) {
      expect(entry).not.toContain(`"${dep}"`);
      expect(entry).not.toContain(`"node:${dep}"`);
    }
  });
});
