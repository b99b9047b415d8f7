// runBulk and --resume in process, against a fake client and fake outputs: keys by content and
// attempt, what a results file says of each row, refusals, a stop with its grace, a closed output.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiClient, RequestInit } from '../../src/api/client.js';
import type { Row } from '../../src/bulk/input.js';
import { attemptKey, identityTag, readResume, ResumeIndex, rowKey } from '../../src/bulk/resume.js';
import { runBulk, type BulkOptions, type Result } from '../../src/bulk/run.js';
import { ApiError, NetworkError, UsageError } from '../../src/lib/errors.js';

const ID = 't|sandbox|createThing|rows.ndjson';
const NONE = { tick() {}, total() {}, done() {} };

function rowsOf(texts: string[]): AsyncIterable<Row> {
  return (async function* () {
    let line = 0;
    for (const text of texts) yield { line: ++line, text, json: true, value: JSON.parse(text) as Record<string, unknown> };
  })();
}

class Sink extends Writable {
  text = '';
  constructor(private readonly failAfter = Infinity) {
    super();
  }
  override _write(chunk: Buffer, _enc: string, cb: (err?: Error | null) => void): void {
    const lines = this.text.split('\n').length - 1;
    if (lines >= this.failAfter) return cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    this.text += chunk.toString();
    cb();
  }
  results(): Result[] {
    return this.text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Result)
      .sort((a, b) => a.line - b.line);
  }
}

type Answer = (init: RequestInit) => Promise<{ body: { id: string }; replayed: boolean }>;
function client(answer: Answer): ApiClient & { sent: RequestInit[] } {
  const sent: RequestInit[] = [];
  return {
    sent,
    request: (init: RequestInit) => {
      sent.push(init);
      return answer(init);
    },
  } as unknown as ApiClient & { sent: RequestInit[] };
}
const created: Answer = async (init) => ({ body: { id: `obj_${String(init.idempotencyKey).slice(5, 13)}` }, replayed: false });

function opts(c: ApiClient, texts: string[], more: Partial<BulkOptions> & { out: Writable }): BulkOptions {
  return {
    client: c,
    path: 'things',
    rows: rowsOf(texts),
    toBody: (v) => v,
    identity: ID,
    concurrency: 4,
    failFast: false,
    progress: NONE,
    ...more,
  };
}

describe('row keys', () => {
  it('depend on the identity and the text only; the identity shows in the first 8 hex; attempts add a suffix', () => {
    const k = rowKey(ID, '{"a":1}');
    expect(k).toMatch(/^bulk_[0-9a-f]{40}$/);
    expect(k).toBe(rowKey(ID, '{"a":1}'));
    expect(k).not.toBe(rowKey(ID.replace('sandbox', 'live'), '{"a":1}'));
    expect(k).not.toBe(rowKey(ID, '{"a":2}'));
    expect(k.slice(5, 13)).toBe(identityTag(ID));
    expect(attemptKey(k, 1)).toBe(k);
    expect(attemptKey(k, 3)).toBe(`${k}_3`);
  });
});

describe('--resume reads rows by key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pay-resume-'));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((t) => rowKey(ID, t)) as [string, string, string, string, string];

  it('done, refused (next attempt), unknown (same attempt), and the stronger word of two', async () => {
    const lines = [
      { line: 9, status: 'created', idempotency_key: a },
      { line: 1, status: 'failed', refused: true, idempotency_key: b },
      { line: 2, status: 'failed', idempotency_key: c, attempt: 2 },
      { line: 3, status: 'interrupted', idempotency_key: attemptKey(d, 2), attempt: 2 },
      // d: an earlier refusal at attempt 1 does not beat the unknown at attempt 2
      { line: 3, status: 'failed', refused: true, idempotency_key: d },
      // e: a refusal and an unknown at the same attempt: unknown (it may have gone through)
      { line: 4, status: 'failed', refused: true, idempotency_key: e },
      { line: 5, status: 'interrupted', idempotency_key: e },
    ];
    const idx = await readResume(file('r1.ndjson', `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"line":6,"status":"crea`));
    expect(idx.get(a)).toEqual({ done: true, attempt: 1 });
    expect(idx.get(b)).toEqual({ done: false, attempt: 2 });
    expect(idx.get(c)).toEqual({ done: false, attempt: 1 }); // no suffix: attempt 1, whatever the field says
    expect(idx.get(d)).toEqual({ done: false, attempt: 2 });
    expect(idx.get(e)).toEqual({ done: false, attempt: 1 });
    expect(idx.get(rowKey(ID, 'z'))).toBeUndefined();
    expect([...idx.tags.keys()]).toEqual([identityTag(ID)]);
  });

  it('done wins over any failure; old lines without a key and rows failed before sending are passed over', async () => {
    const idx = await readResume(
      file(
        'r2.ndjson',
        [
          JSON.stringify({ line: 1, status: 'failed', refused: true, idempotency_key: attemptKey(a, 3) }),
          JSON.stringify({ line: 1, status: 'replayed', idempotency_key: attemptKey(a, 2) }),
          '{"line":2,"status":"created"}',
          '{"line":3,"status":"failed","error":"email is required"}',
          '',
        ].join('\n'),
      ),
    );
    expect(idx.get(a)).toEqual({ done: true, attempt: 2 });
    expect(idx.size).toBe(1);
  });

  it('refuses a line past 64 KiB and an unreadable file with one usage line', async () => {
    await expect(readResume(file('big', 'x'.repeat(70_000)))).rejects.toThrow(/not a results file of pay/);
    await expect(readResume(join(dir, 'missing'))).rejects.toThrow(
      new UsageError(`--resume: cannot read ${join(dir, 'missing')} (no such file)`),
    );
  });

  it('holds 60,000 keys (the table grows) and finds each', () => {
    const idx = new ResumeIndex();
    const keys = Array.from({ length: 60_000 }, (_, i) => rowKey(ID, String(i)));
    keys.forEach((k, i) => idx.note(k, i % 2 ? 1 : 2));
    expect(idx.size).toBe(60_000);
    let ok = 0;
    keys.forEach((k, i) => (ok += idx.get(k)?.done === (i % 2 === 1) ? 1 : 0));
    expect(ok).toBe(60_000);
    expect(idx.get(rowKey(ID, 'absent'))).toBeUndefined();
  });
});

describe('runBulk', () => {
  it('a refusal is marked refused with its key; a replayed refusal says so; other failures are not refusals', async () => {
    const texts = ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '{"n":5}'];
    const c = client(async (init) => {
      const n = (init.body as { n: number }).n;
      if (n === 2) throw new ApiError('HTTP 422 insufficient_funds: no', { status: 422, apiCode: 'insufficient_funds' });
      if (n === 3)
        throw new ApiError('HTTP 422 insufficient_funds: no', { status: 422, apiCode: 'insufficient_funds', details: { replayed: true } });
      if (n === 4) throw new NetworkError('POST /things failed: connection reset');
      if (n === 5) throw new ApiError('HTTP 409 conflict', { status: 409, apiCode: 'conflict' });
      return created(init);
    });
    const out = new Sink();
    const s = await runBulk(opts(c, texts, { out }));
    const r = out.results();
    expect(r.map((x) => [x.line, x.status, x.refused ?? false, x.replayed ?? false, x.idempotency_key])).toEqual(
      texts.map((t, i) => [i + 1, i === 0 ? 'created' : 'failed', i === 1 || i === 2, i === 2, rowKey(ID, t)]),
    );
    expect(r[1]!.code).toBe('insufficient_funds');
    expect(s).toMatchObject({ rows: 5, created: 1, failed: 4, refused: 2, replayedRefusals: 1, unknown: 2, invalid: 0 });
  });

  it('--resume: done rows skipped by content wherever they are, refused rows sent with the next key', async () => {
    const idx = new ResumeIndex();
    idx.note(rowKey(ID, '{"n":1}'), 1);
    idx.note(rowKey(ID, '{"n":2}'), 2);
    idx.note(attemptKey(rowKey(ID, '{"n":3}'), 2), 3);
    const c = client(created);
    const out = new Sink();
    // n:1 moved to the end, n:0 inserted at the top
    await runBulk(opts(c, ['{"n":0}', '{"n":2}', '{"n":3}', '{"n":1}'], { out, resume: idx }));
    expect(out.results().map((x) => [x.line, x.status, x.attempt])).toEqual([
      [1, 'created', undefined],
      [2, 'created', 2],
      [3, 'created', 2],
      [4, 'skipped', undefined],
    ]);
    expect(c.sent.map((q) => q.idempotencyKey)).toEqual(
      expect.arrayContaining([rowKey(ID, '{"n":0}'), attemptKey(rowKey(ID, '{"n":2}'), 2), attemptKey(rowKey(ID, '{"n":3}'), 2)]),
    );
    expect(c.sent).toHaveLength(3);
  });

  it('a stop starts no new row; past the grace the rows in flight are written as interrupted with their key', async () => {
    const stop = new AbortController();
    const texts = Array.from({ length: 20 }, (_, i) => `{"n":${i}}`);
    const c = client((init) => {
      if (c.sent.length === 6) queueMicrotask(() => stop.abort());
      return (init.body as { n: number }).n < 2 ? created(init) : new Promise(() => {});
    });
    const out = new Sink();
    const s = await runBulk(opts(c, texts, { out, stop: stop.signal, graceMs: 0 }));
    const r = out.results();
    expect(c.sent).toHaveLength(6);
    expect(r.filter((x) => x.status === 'created').map((x) => x.line)).toEqual([1, 2]);
    expect(r.filter((x) => x.status === 'interrupted').map((x) => [x.line, x.idempotency_key])).toEqual(
      [3, 4, 5, 6].map((n) => [n, rowKey(ID, texts[n - 1]!)]),
    );
    expect(s).toMatchObject({ stopped: 'signal', interrupted: 4, created: 2, rows: 6 });
  });

  it('a second signal (abandon) gives up on the rows in flight at once, whatever the grace', async () => {
    const stop = new AbortController();
    const abandon = new AbortController();
    const c = client(() => {
      if (c.sent.length === 2) queueMicrotask(() => stop.abort());
      return new Promise(() => {});
    });
    const out = new Sink();
    const run = runBulk(
      opts(c, ['{"n":1}', '{"n":2}', '{"n":3}'], { out, stop: stop.signal, abandon: abandon.signal, graceMs: 600_000, concurrency: 2 }),
    );
    while (!stop.signal.aborted) await new Promise((r) => setImmediate(r));
    abandon.abort();
    const s = await run;
    expect(out.results().map((x) => [x.line, x.status])).toEqual([
      [1, 'interrupted'],
      [2, 'interrupted'],
    ]);
    expect(s).toMatchObject({ stopped: 'signal', interrupted: 2, rows: 2 });
  });

  it('--fail-fast: no row is started after the first failure', async () => {
    const c = client(async (init) => {
      if ((init.body as { n: number }).n === 2) throw new ApiError('HTTP 400 invalid', { status: 400, apiCode: 'invalid' });
      return created(init);
    });
    const out = new Sink();
    const s = await runBulk(opts(c, ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'], { out, concurrency: 1, failFast: true }));
    expect(c.sent).toHaveLength(2);
    expect(out.results().map((x) => [x.line, x.status])).toEqual([
      [1, 'created'],
      [2, 'failed'],
    ]);
    expect(s).toMatchObject({ stopped: 'fail-fast', refused: 1, rows: 2 });
  });

  it('rows that finish within the grace are written as they are', async () => {
    const stop = new AbortController();
    const release: Array<() => void> = [];
    const c = client((init) => {
      if (c.sent.length === 3) queueMicrotask(() => stop.abort());
      return new Promise((r) => release.push(() => r(created(init))));
    });
    const out = new Sink();
    const run = runBulk(opts(c, ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'], { out, stop: stop.signal, graceMs: 60_000, concurrency: 3 }));
    while (!stop.signal.aborted) await new Promise((r) => setImmediate(r));
    for (const r of release) r();
    const s = await run;
    expect(out.results().map((x) => x.status)).toEqual(['created', 'created', 'created']);
    expect(s).toMatchObject({ stopped: 'signal', interrupted: 0, created: 3 });
  });

  it('a closed output: no row is sent after the failed write; the results not written are counted', async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `{"n":${i}}`);
    const c = client(created);
    const out = new Sink(5);
    const s = await runBulk(opts(c, texts, { out, concurrency: 1 }));
    expect(out.results()).toHaveLength(5);
    // Concurrency 1: the 6th row's result was the first not written; nothing after it was sent.
    expect(c.sent).toHaveLength(6);
    expect(s).toMatchObject({ stopped: 'stdout', unwritten: 1, created: 6 });
  });
});

describe('runBulk counts what this run created apart from what an earlier run did', () => {
  // A fake service with keys: each attempt of a request is lost before the service sees it, lost
  // after it made the object (the answer never came), or answered; a later attempt with the key
  // gets the stored answer, replayed. Some rows were made by an earlier run (seconds to a day
  // before). The service's clock is off from ours by up to an hour either way.
  type Attempt = 'before' | 'after' | 'ok';
  const scenario = fc.record({
    rows: fc.array(
      fc.record({
        earlier: fc.boolean(),
        ageMs: fc.integer({ min: 1000, max: 86_400_000 }),
        attempts: fc.array(fc.constantFrom<Attempt>('before', 'after'), { maxLength: 3 }).map((a): Attempt[] => [...a, 'ok']),
      }),
      { minLength: 1, maxLength: 40 },
    ),
    skewMs: fc.integer({ min: -3_600_000, max: 3_600_000 }),
    concurrency: fc.integer({ min: 1, max: 8 }),
  });

  it('a retry answered "replayed" is this run\'s creation when its first attempt made it; an earlier run\'s stays replayed (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        const now = () => Date.now() + sc.skewMs;
        const stored = new Map<string, { id: string; created_at: string }>();
        const texts = sc.rows.map((_, i) => JSON.stringify({ n: i }));
        const byText = new Map(texts.map((t, i) => [t, sc.rows[i]!]));
        // The earlier run's objects, under the same keys.
        texts.forEach((t, i) => {
          const r = sc.rows[i]!;
          if (r.earlier) stored.set(rowKey(ID, t), { id: `obj_${i}`, created_at: new Date(now() - r.ageMs).toISOString() });
        });
        const c = {
          request: async (init: RequestInit) => {
            const key = String(init.idempotencyKey);
            const row = byText.get(JSON.stringify(init.body))!;
            let attempt = 0;
            for (const how of row.attempts) {
              attempt++;
              await new Promise((r) => setImmediate(r));
              if (how === 'before') continue;
              const had = stored.get(key);
              if (!had) stored.set(key, { id: `obj_new_${key.slice(-6)}`, created_at: new Date(now()).toISOString() });
              if (how === 'after') continue;
              return { body: stored.get(key)!, replayed: had !== undefined, attempts: attempt };
            }
            throw new Error('unreachable');
          },
        } as unknown as ApiClient;
        const out = new Sink();
        const s = await runBulk({ ...opts(c, texts, { out }), concurrency: sc.concurrency });
        const results = out.results();
        // The service's clock is learnt from an object this run made and got answered fresh: with
        // none in the whole run, a replay on a retry cannot be told from an earlier run's, and
        // stays "replayed" (counted apart: the summary says this run may have made it).
        const madeAfter = (r: (typeof sc.rows)[number]) => !r.earlier && r.attempts.find((a) => a !== 'before') === 'after';
        const clockKnown = sc.rows.some((r) => !r.earlier && r.attempts.find((a) => a !== 'before') === 'ok');
        const want = sc.rows.map((r) => (r.earlier || (madeAfter(r) && !clockKnown) ? 'replayed' : 'created'));
        expect(results.map((r) => r.status)).toEqual(want);
        const onRetry = sc.rows.filter(
          (r) => (r.earlier || madeAfter(r)) && r.attempts.length > 1 && want[sc.rows.indexOf(r)] === 'replayed',
        );
        expect({ created: s.created, replayed: s.replayed, replayedOnRetry: s.replayedOnRetry }).toEqual({
          created: want.filter((x) => x === 'created').length,
          replayed: want.filter((x) => x === 'replayed').length,
          replayedOnRetry: onRetry.length,
        });
      }),
      { numRuns: 150, seed: 2405 },
    );
  });
});
