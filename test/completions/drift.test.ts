// The committed completions/ must be what the command tree generates today.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCompletions } from '../../src/completion/generate.js';
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
