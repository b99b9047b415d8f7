// The journal's automatic compaction (snapshot written a slice per loop turn, fsynced in the thread pool,
// commits meanwhile carried into the new generation's journal): nothing committed is lost, and
// the data dir loads whatever step a restart finds it at. Under disk errors: acknowledgement in
// order, refusal and reload, reads waiting for commits in flight, recovery, torn last lines.
import { appendFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal, realFiles, type FileLayer, type Op } from '../../src/emulator/journal.js';
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

/** node:fs with switchable failures of fdatasync (by call number) and of every write. */
function failing(opts: { syncFails?: (n: number) => boolean; writesFail?: () => boolean }): FileLayer & { syncs: number } {
  const layer = {
    ...realFiles,
    syncs: 0,
    writeSync: (fd: number, buf: Buffer, offset: number, length: number): number => {
      if (opts.writesFail?.()) throw Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' });
      return realFiles.writeSync(fd, buf, offset, length);
    },
    fdatasync: (fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void => {
      const n = ++layer.syncs;
      realFiles.fdatasync(fd, (err) =>
        cb(err ?? (opts.syncFails?.(n) ? Object.assign(new Error('EIO: injected'), { code: 'EIO' }) : null)),
      );
    },
  };
  return layer;
}

describe('journal under disk errors', () => {
  it('acknowledges in order: a failed fdatasync refuses its commits and every later one, cuts back and reloads', async () => {
    const dir = tempDir();
    const state: State = new Map();
    // fdatasyncs are held until the test releases them (in any order; the second one fails).
    const held: Array<{ fire?: () => void }> = [];
    const layer: FileLayer = {
      ...realFiles,
      fdatasync: (fd, cb) => {
        const n = held.length + 1;
        const entry: { fire?: () => void } = {};
        held.push(entry);
        realFiles.fdatasync(
          fd,
          (err) => (entry.fire = () => cb(err ?? (n === 2 ? Object.assign(new Error('EIO: injected'), { code: 'EIO' }) : null))),
        );
      },
    };
    const j = new Journal(dir, { files: layer, retryMs: 10 });
    j.open(apply(state));
    let reloads = 0;
    j.onLost = () => {
      reloads++;
      // What the app does: the state becomes what is on disk.
      state.clear();
      j.replay(apply(state));
    };
    const turn = () => new Promise((r) => setImmediate(r));
    const settled: string[] = [];
    const results: Array<Promise<void>> = [];
    const put = (id: string, n: number) => {
      state.set(id, n);
      results.push(
        j.commit([putOp(id, n)]).then(
          () => void settled.push(`${id} ok`),
          (e: Error) => void settled.push(`${id} ${e.constructor.name}`),
        ),
      );
    };
    put('a', 1);
    await turn(); // batch 1 written
    put('b', 2);
    await turn(); // batch 2
    put('c', 3);
    await turn(); // batch 3
    const release = async (n: number) => {
      // Once the real fdatasync has returned.
      await expect.poll(() => held[n - 1]?.fire !== undefined, { timeout: 10_000 }).toBe(true);
      held[n - 1]!.fire!();
      await turn();
    };
    // The third sync succeeds first: nothing may be acknowledged before the earlier ones.
    await release(3);
    expect(settled).toEqual([]);
    await release(1);
    expect(settled).toEqual(['a ok']);
    await release(2);
    await Promise.all(results);
    expect(settled).toEqual(['a ok', 'b DiskUnavailable', 'c DiskUnavailable']);
    expect(reloads).toBe(1);
    expect([...state]).toEqual([['a', 1]]);
    expect(j.writable).toBe(false);
    // A commit while it fails is refused at once (and reloads again: memory was ahead).
    state.set('d', 4);
    await expect(j.commit([putOp('d', 4)])).rejects.toThrow(/cannot be written/);
    expect(state.has('d')).toBe(false);
    // The probe writes again (its sync is synchronous): writable, and a restart loads exactly
    // what was acknowledged.
    await expect.poll(() => j.writable, { timeout: 10_000 }).toBe(true);
    state.set('e', 5);
    const e = j.commit([putOp('e', 5)]);
    await turn();
    await release(4);
    await e;
    await j.close();
    const loaded: State = new Map();
    const again = new Journal(dir);
    again.open(apply(loaded));
    expect([...loaded]).toEqual([
      ['a', 1],
      ['e', 5],
    ]);
    expect(again.warnings).toEqual([]);
    await again.close();
  });

  it('a read waits for the commits in flight and fails with them', async () => {
    const dir = tempDir();
    let down = false;
    const j = new Journal(dir, { files: failing({ writesFail: () => down }), retryMs: 10 });
    const state: State = new Map();
    j.open(apply(state));
    j.onLost = () => {
      state.clear();
      j.replay(apply(state));
    };
    expect(j.barrier()).toBeUndefined();
    const first = j.commit([putOp('a', 1)]);
    const read1 = j.barrier();
    expect(read1).toBeDefined();
    await Promise.all([first, read1]);
    down = true;
    state.set('b', 2);
    const second = j.commit([putOp('b', 2)]);
    const read2 = j.barrier()!;
    await expect(second).rejects.toThrow(/ENOSPC/);
    await expect(read2).rejects.toThrow(/ENOSPC/);
    expect([...state]).toEqual([['a', 1]]);
    down = false;
    await expect.poll(() => j.writable, { timeout: 10_000 }).toBe(true);
    await j.close();
  });

  it('drops a torn last line at start-up with a warning', async () => {
    const dir = tempDir();
    const state: State = new Map();
    const j = journalOn(dir, state);
    await j.commit([putOp('a', 1)]);
    await j.close();
    const path = join(dir, 'journal-0.jsonl');
    const size = statSync(path).size;
    appendFileSync(path, putOp('b', 2).slice(0, 30));
    const loaded: State = new Map();
    const again = journalOn(dir, loaded);
    expect([...loaded]).toEqual([['a', 1]]);
    expect(again.warnings).toEqual([expect.stringMatching(/journal-0\.jsonl: dropped a torn last line \(30 bytes/)]);
    expect(statSync(path).size).toBe(size);
    await again.close();
  });
});
