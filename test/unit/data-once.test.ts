// --data @file and @- are read once per run (src/verbs/data.ts): a create that prompts reads them to
// see what is missing, shows a summary, then builds the body it sends; whatever the file or the pipe
// holds later, each read of the run gives what the first read gave, and a copy of it (a caller that
// changes its copy changes nothing for the next). Generated objects; inline JSON is read as given.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { IOStreams } from '../../src/io/iostreams.js';
import { readData } from '../../src/verbs/data.js';

const dir = mkdtempSync(join(tmpdir(), 'pay-data-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = fc.stringMatching(/^[a-z_]{1,12}$/).filter((k) => !['constructor', 'prototype', '__proto__'].includes(k));
const object = fc.dictionary(key, fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.dictionary(key, fc.string(), { maxKeys: 3 })), {
  minKeys: 1,
  maxKeys: 6,
});
const io = (stdin: NodeJS.ReadableStream = Readable.from([])) => ({ stdin }) as unknown as IOStreams;

describe('readData: --data @file and @- once per run', () => {
  it('a file rewritten between two reads of one run: the second read gives the first content, as a copy', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(object, object, async (first, later) => {
        const file = join(dir, `d${n++}.json`);
        writeFileSync(file, JSON.stringify(first));
        const run = io();
        const a = await readData(`@${file}`, run);
        writeFileSync(file, JSON.stringify(later));
        a.injected = 'x';
        const b = await readData(`@${file}`, run);
        expect(b).toEqual(first);
        // Another run reads the file as it is now.
        expect(await readData(`@${file}`, io())).toEqual(later);
      }),
      { numRuns: 60, seed: 917 },
    );
  });

  it('@- reads standard input once: the second read of the run does not wait on the ended stream', async () => {
    await fc.assert(
      fc.asyncProperty(object, async (value) => {
        const run = io(Readable.from([JSON.stringify(value)]));
        expect(await readData('@-', run)).toEqual(value);
        expect(await readData('@-', run)).toEqual(value);
      }),
      { numRuns: 40, seed: 918 },
    );
  });

  it('inline JSON is parsed each time (a bulk run passes every row that way; nothing is kept)', async () => {
    const run = io();
    expect(await readData('{"a":1}', run)).toEqual({ a: 1 });
    expect(await readData('{"a":2}', run)).toEqual({ a: 2 });
  });
});
