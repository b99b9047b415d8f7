// The journal's automatic compaction (snapshot written a slice per loop turn, fsynced in the thread pool,
// commits meanwhile carried into the new generation's journal): nothing committed is lost, and
// the data dir loads whatever step a restart finds it at.
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal, type Op } from '../../src/emulator/journal.js';
import { removeTempDirs, tempDir } from './helpers.js';

afterAll(() => removeTempDirs());

type State = Map<string, number>;
const apply = (state: State) => (op: Op) => {
  if ('p' in op) state.set(op.o.id as string, op.o.n as number);
};
const putOp = (id: string, n: number): string => `{"p":"thing","s":"t","o":{"id":"${id}","n":${n},"pad":"${'x'.repeat(200)}"}}`;

function journalOn(dir: string, state: State): Journal {
  const j = new Journal(dir, { compactAt: 16 * 1024 });
  j.open(apply(state));
  j.snapshotOps = function* () {
    for (const [id, n] of state) yield putOp(id, n);
  };
  return j;
}

describe('journal compaction in the background', () => {
  it('keeps every commit, also those made while the snapshot is being synced', async () => {
    const dir = tempDir();
    const state: State = new Map();
    let j = journalOn(dir, state);
    const pending: Promise<void>[] = [];
    for (let i = 0; i < 3000; i++) {
      const id = `t${i % 400}`;
      state.set(id, i);
      pending.push(j.commit([putOp(id, i)]));
      // Several commits per loop turn, and turns in between (some land while a snapshot syncs).
      if (i % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(pending);
    await j.drain();
    const files = readdirSync(dir);
    const gen = Math.max(...files.map((f) => Number(/^snapshot-(\d+)\.jsonl$/.exec(f)?.[1] ?? -1)));
    expect(gen).toBeGreaterThanOrEqual(1);
    expect(files.sort()).toEqual([`journal-${gen}.jsonl`, `snapshot-${gen}.jsonl`]);
    await j.close();

    const loaded: State = new Map();
    j = journalOn(dir, loaded);
    expect(loaded).toEqual(state);
    await j.close();
  });
});
