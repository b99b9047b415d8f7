// The committed generated files must be what the command tree generates today: completions/ and
// the groups' heads the entry starts from (src/commands/group-index.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GROUP_HEADS, GROUP_LOADERS, type GroupName } from '../../src/commands/group-index.js';
import { allGroups } from '../../src/commands/groups.js';
import { generateCompletions } from '../../src/completion/generate.js';
import { groupIndex } from '../../src/scripts/generated.js';
import { generatedFiles as contractFiles } from '../../src/scripts/generated-operations.js';
import { operationFiles } from '../../src/scripts/operation-facts.js';
import * as enums from '../../src/shared/enums.js';
import { openapi } from '../../src/api/openapi.js';
import { COMPLETIONS } from './shells.js';

const { files } = generateCompletions();

describe('completions/ matches the command tree', () => {
  for (const [name, text] of Object.entries(files)) {
    it(`completions/${name} is up to date`, () => {
      let committed: string | undefined;
      try {
        committed = readFileSync(join(COMPLETIONS, name), 'utf8');
      } catch {
        committed = undefined;
      }
      if (committed === text) return;
      let where = 'the file is missing';
      if (committed !== undefined) {
        const a = committed.split('\n');
        const b = text.split('\n');
        const i = a.findIndex((l, n) => l !== b[n]);
        const line = i === -1 ? a.length : i;
        where = `first difference at line ${line + 1}:\n  committed: ${JSON.stringify(a[line]?.slice(0, 160))}\n  generated: ${JSON.stringify(b[line]?.slice(0, 160))}`;
      }
      expect.fail(`completions/${name} is out of date with the command tree (${where}).\nRun: npm run generate`);
    });
  }
});

describe("src/commands/<group>/operations.ts match the contract", () => {
  const { files: ops } = contractFiles();

  it('one file per group of the contract (its tags), each what npm run generate writes today', () => {
    expect(Object.keys(ops).sort()).toEqual(allGroups.map((g) => `src/commands/${g.name}/operations.ts`).sort());
    for (const [name, text] of Object.entries(ops)) {
      const committed = readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');
      expect(committed, `${name} is stale: run npm run generate`).toBe(text);
    }
  });

  it('a contract changed makes them stale (the check can fail), and a set of choices is named from src/shared/enums.ts', () => {
    const post = openapi.paths['/transfers']!.post!;
    const changed = { ...openapi, paths: { ...openapi.paths, '/transfers': { ...openapi.paths['/transfers'], post: { ...post, operationId: 'sendTransfer' } } } };
    const text = operationFiles(enums, changed)['src/commands/transfers/operations.ts']!;
    expect(text).toContain('sendTransfer:');
    expect(text).not.toBe(ops['src/commands/transfers/operations.ts']);
    expect(ops['src/commands/transfers/operations.ts']).toContain('choices: TRANSFER_STATUSES');
  });
});

describe('src/commands/group-index.ts matches the group specs', () => {
  it('is what npm run generate writes from the specs today', () => {
    const committed = readFileSync(new URL('../../src/commands/group-index.ts', import.meta.url), 'utf8');
    expect(committed, 'src/commands/group-index.ts is stale: run npm run generate').toBe(groupIndex());
  });

  it('a summary edited in a spec makes it stale (the check can fail)', () => {
    const g = allGroups.find((x) => x.name === 'transfers')! as { summary: string };
    const before = g.summary;
    try {
      g.summary = `${before} (edited)`;
      expect(groupIndex()).not.toBe(readFileSync(new URL('../../src/commands/group-index.ts', import.meta.url), 'utf8'));
      expect(groupIndex()).toContain('(edited)');
    } finally {
      g.summary = before;
    }
  });

  it('the entry starts from the heads: names, summaries and deprecations are the specs\'', async () => {
    for (const spec of allGroups) {
      const head = GROUP_HEADS[spec.name as GroupName];
      expect(head).toEqual({ name: spec.name, summary: spec.summary, ...(spec.deprecated ? { deprecated: spec.deprecated } : {}) });
      expect(await GROUP_LOADERS[spec.name as GroupName]()).toBe(spec);
    }
  });
});
