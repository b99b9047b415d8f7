// Fault injection (500/503 before or after the write committed, dropped connections, latency)
// and the per-key rate limit.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admin, client, customerBody, start, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;

beforeAll(async () => {
  emu = await start();
  api = client(emu);
});
afterEach(() => emu.admin.setFaults({ failRate: 0, resetRate: 0, latencyMs: null, rateLimit: null }));
afterAll(() => emu.stop());

const countByEmail = async (email: string): Promise<number> =>
  (await api('GET', `customers?email=${encodeURIComponent(email)}&limit=100`)).body.data.length;

describe('fault injection', () => {
  it('a failure after the commit loses the response, not the write: the idempotent retry replays it, no duplicate', async () => {
    const seen = { after: 0, before: 0 };
    for (let i = 0; i < 40 && (seen.after === 0 || seen.before === 0); i++) {
      const body = customerBody(1000 + i);
      const key = randomUUID();
      emu.admin.setFaults({ failRate: 1 });
      const failed = await api('POST', 'customers', body, { idem: key });
      expect([500, 503]).toContain(failed.status);
      expect(failed.body.code).toBe(failed.status === 503 ? 'service_unavailable' : 'internal_error');
      if (failed.status === 503) expect(['0', '1']).toContain(failed.headers.get('retry-after'));
      emu.admin.setFaults({ failRate: 0 });
      const retry = await api('POST', 'customers', body, { idem: key });
      expect(retry.status).toBe(201);
      if (retry.headers.get('idempotent-replayed') === 'true') seen.after++;
      else seen.before++;
      // Either way exactly one customer exists for this body.
      expect(await countByEmail(body.email as string)).toBe(1);
      const again = await api('POST', 'customers', body, { idem: key });
      expect(again.body.id).toBe(retry.body.id);
    }
    expect(seen.after).toBeGreaterThan(0);
    expect(seen.before).toBeGreaterThan(0);
  });

  it('resetRate drops the connection without an answer; the server keeps serving', async () => {
    emu.admin.setFaults({ resetRate: 1 });
    await expect(api('GET', 'features')).rejects.toThrow();
    emu.admin.setFaults({ resetRate: 0 });
    expect((await api('GET', 'features')).status).toBe(200);
  });

  it('latency delays answers; the admin route sets faults too', async () => {
    const set = await admin(emu, 'POST', 'faults', { latency_ms: [150, 150] });
    expect(set.body).toMatchObject({ latency_ms: [150, 150], fail_rate: 0 });
    const t = Date.now();
    await api('GET', 'features');
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
    expect((await admin(emu, 'POST', 'faults', { fail_rate: 2 })).status).toBe(422);
    expect((await admin(emu, 'POST', 'faults', { latency_ms: null })).body.latency_ms).toBeNull();
  });
});

describe('rate limit', () => {
  it('answers 429 rate_limited with Retry-After past the bucket, per API key', async () => {
    // Slow refill (one token per 2 s) so a slow machine cannot refill the bucket between requests.
    expect((await admin(emu, 'POST', 'faults', { rate_limit: { per_second: 0.5, burst: 3 } })).body.rate_limit).toEqual({
      per_second: 0.5,
      burst: 3,
    });
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<Api>> | undefined;
    for (let i = 0; i < 5; i++) {
      const r = await api('GET', 'features');
      statuses.push(r.status);
      if (r.status === 429) limited = r;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses).toContain(429);
    expect(limited!.body.code).toBe('rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another key has its own bucket.
    expect((await api('GET', 'features', undefined, { key: emu.keys.live.secret })).status).toBe(200);
    const stats = (await admin(emu, 'GET', 'stats')).body;
    expect(stats.faults.rate_limited).toBeGreaterThan(0);
  });
});
