// The journal's automatic compaction (snapshot written a slice per loop turn, fsynced in the thread pool,
// commits meanwhile carried into the new generation's journal): nothing committed is lost, and
// the data dir loads whatever step a restart finds it at. Under disk errors: acknowledgement in
// order, refusal and reload, reads waiting for commits in flight, recovery, torn last lines.
import { appendFileSync, readdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
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
    // fdatasyncs are held until the test releases them (the second one fails).
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
    await turn(); // batch 1 written, its fdatasync started
    put('b', 2);
    await turn(); // batch 2 written: it waits for the fdatasync in flight
    put('c', 3);
    await turn(); // batch 3 too
    expect(held).toHaveLength(1);
    const release = async (n: number) => {
      // Once the real fdatasync has returned.
      await expect.poll(() => held[n - 1]?.fire !== undefined, { timeout: 10_000 }).toBe(true);
      held[n - 1]!.fire!();
      await turn();
    };
    expect(settled).toEqual([]);
    // The first returns: its commit is acknowledged, and ONE fdatasync follows for batches 2 and 3.
    await release(1);
    expect(settled).toEqual(['a ok']);
    expect(held).toHaveLength(2);
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
    await release(3);
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

  it('group commit, for any order of commits, loop turns and fdatasync returns: one fdatasync in flight, each commit acknowledged in order and only after an fdatasync started after its write, a failure refusing the rest', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant('commit' as const), fc.constant('turn' as const), fc.constant('return' as const)), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.option(fc.nat(8), { nil: undefined }),
        async (steps, failing) => {
          const dir = tempDir();
          const state: State = new Map();
          let written = 0; // writes so far
          const inFlight: Array<{ after: number; fire?: () => void; done: boolean }> = [];
          let maxInFlight = 0;
          let syncs = 0;
          const layer: FileLayer = {
            ...realFiles,
            writeSync: (fd, buf, offset, length) => {
              written++;
              return realFiles.writeSync(fd, buf, offset, length);
            },
            fdatasync: (fd, cb) => {
              const n = syncs++;
              const entry: { after: number; fire?: () => void; done: boolean } = { after: written, done: false };
              inFlight.push(entry);
              maxInFlight = Math.max(maxInFlight, inFlight.filter((x) => !x.done).length);
              realFiles.fdatasync(fd, (err) => {
                entry.fire = () => {
                  entry.done = true;
                  cb(err ?? (n === failing ? Object.assign(new Error('EIO: injected'), { code: 'EIO' }) : null));
                };
              });
            },
          };
          const j = new Journal(dir, { files: layer, retryMs: 60_000 });
          j.open(apply(state));
          j.onLost = () => {
            state.clear();
            j.replay(apply(state));
          };
          const turn = () => new Promise((r) => setImmediate(r));
          // Per commit: the write that carried it (1-based), and how it ended.
          const commits: Array<{ write?: number; end?: 'ok' | 'refused'; syncedBy?: number }> = [];
          let failed = false;
          const fire = async () => {
            const next = inFlight.find((x) => !x.done);
            if (!next) return;
            await expect.poll(() => next.fire !== undefined, { timeout: 10_000 }).toBe(true);
            const after = next.after;
            next.fire!();
            for (const c of commits) if (c.end === undefined && c.write !== undefined && c.write <= after) c.syncedBy = after;
            await turn();
          };
          for (const step of [...steps, 'turn' as const]) {
            if (step === 'commit' && j.writable) {
              const c: { write?: number; end?: 'ok' | 'refused'; syncedBy?: number } = {};
              commits.push(c);
              state.set(`k${commits.length}`, commits.length);
              j.commit([putOp(`k${commits.length}`, commits.length)]).then(
                () => (c.end = 'ok'),
                () => ((c.end = 'refused'), (failed = true)),
              );
              // Written in the next turn (check phase): the write count then.
              void turn().then(() => (c.write ??= written));
            } else if (step === 'turn') await turn();
            else await fire();
          }
          // Let everything finish.
          for (let i = 0; i < 200 && inFlight.some((x) => !x.done); i++) await fire();
          await turn();
          expect(maxInFlight).toBeLessThanOrEqual(1);
          // In order: no commit ends ok after an earlier one was refused, nor before an earlier one is ok.
          const ends = commits.map((c) => c.end);
          const firstRefused = ends.indexOf('refused');
          if (firstRefused >= 0) expect(ends.slice(firstRefused).every((e) => e === 'refused' || e === undefined)).toBe(true);
          for (let i = 1; i < ends.length; i++) if (ends[i] === 'ok') expect(ends[i - 1]).toBe('ok');
          // Acknowledged only after an fdatasync that started after its write returned.
          for (const c of commits) if (c.end === 'ok') expect(c.syncedBy).toBeGreaterThanOrEqual(c.write!);
          if (!failed) expect(ends.every((e) => e === 'ok')).toBe(true);
          await j.close();
        },
      ),
      { numRuns: 40 },
    );
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

describe('a compaction never removes a journal another process wrote to', () => {
  // Issue 24 item 7: with LOCK removed by hand a second emulator ran on the same data dir, and the
  // first one's compaction deleted journal-0.jsonl holding the second one's acknowledged writes.
  // The old journal is removed only if it is the file this process wrote (same inode) of exactly
  // the length it wrote; else it is kept, the log says so, and no further compaction runs.
  const others: Array<{ name: string; act: (dir: string, state: State) => Promise<void> }> = [
    {
      name: 'another journal on the same dir appended to it',
      act: async (dir) => {
        const other = journalOn(dir, new Map());
        for (let i = 0; i < 10; i++) await other.commit([putOp(`other${i}`, i)]);
        await other.close();
      },
    },
    {
      name: 'it was replaced by a copy (renamed over it)',
      act: async (dir) => {
        writeFileSync(join(dir, 'copy'), readFileSync(join(dir, 'journal-0.jsonl')));
        renameSync(join(dir, 'copy'), join(dir, 'journal-0.jsonl'));
      },
    },
    {
      name: 'it was cut',
      act: async (dir) => truncateSync(join(dir, 'journal-0.jsonl'), 100),
    },
  ];
  for (const o of others)
    it(`${o.name}: kept, logged; a restart refuses naming it, --set-aside-unknown moves it aside`, async () => {
      const dir = tempDir();
      const state: State = new Map();
      const j = journalOn(dir, state);
      const logged: string[] = [];
      j.log = (l) => logged.push(l);
      for (let i = 0; i < 5; i++) {
        state.set(`mine${i}`, i);
        await j.commit([putOp(`mine${i}`, i)]);
      }
      await o.act(dir, state);
      const kept = readFileSync(join(dir, 'journal-0.jsonl'));
      state.set('mine9', 9);
      await j.commit([putOp('mine9', 9)]);
      j.compact();
      await j.close();
      expect(readdirSync(dir).sort()).toEqual(['journal-0.jsonl', 'journal-1.jsonl', 'snapshot-1.jsonl']);
      expect(readFileSync(join(dir, 'journal-0.jsonl')).subarray(0, kept.length)).toEqual(kept);
      expect(logged).toEqual([
        expect.stringMatching(/^warning: compacted into generation 1 but kept journal-0\.jsonl: journal-0\.jsonl is /),
      ]);
      expect(() => journalOn(dir, new Map())).toThrow(/journal-0\.jsonl \(not the journal compacted into journal-1\.jsonl/);
      const again = new Journal(dir, {});
      again.open(() => {}, { setAsideUnknown: true });
      await again.close();
      expect(again.notices.join('\n')).toMatch(/^set aside into .*journal-0\.jsonl/);
    });

  it('refuses to compact once its LOCK is not its own, and says so once', async () => {
    const dir = tempDir();
    const state: State = new Map();
    const j = journalOn(dir, state);
    const logged: string[] = [];
    j.log = (l) => logged.push(l);
    const lock: { lost?: string } = {};
    j.lockLost = () => lock.lost;
    await j.commit([putOp('a', 1)]);
    j.compact();
    expect(readdirSync(dir).sort()).toEqual(['journal-1.jsonl', 'snapshot-1.jsonl']);
    lock.lost = 'its lock /x/LOCK was removed';
    expect(() => j.compact()).toThrow(/not compacting: its lock \/x\/LOCK was removed/);
    expect(() => j.compact()).toThrow(/not compacting/);
    await expect(j.reset()).rejects.toThrow(/not compacting/);
    expect(readdirSync(dir).sort()).toEqual(['journal-1.jsonl', 'snapshot-1.jsonl']);
    expect(logged).toEqual([
      expect.stringMatching(/^warning: its lock \/x\/LOCK was removed; another emulator may be using the data dir .*: not compacting/),
    ]);
    await j.close();
  });
});
