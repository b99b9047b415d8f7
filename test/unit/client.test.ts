// The HTTP client with undici's MockAgent as the injected dispatcher: no sockets at all.
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { ApiClient, parseRetryAfter } from '../../src/api/client.js';
import { ApiError, NetworkError } from '../../src/lib/errors.js';

const KEY = 'sk_test_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4';
const ORIGIN = 'https://api.example.com';

function setup(opts: { maxRetries?: number; debug?: string[]; sleeps?: number[]; timeoutMs?: number } = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const client = new ApiClient({
    baseUrl: `${ORIGIN}/v1/`,
    apiKey: KEY,
    tenant: 'biz_1',
    userAgent: 'pay-cli/test',
    timeoutMs: opts.timeoutMs ?? 1000,
    maxRetries: opts.maxRetries ?? 3,
    dispatcher: agent,
    credentialLabel: 'profile "default" (sandbox)',
    sleep: async (ms) => void opts.sleeps?.push(ms),
    random: () => 0.5,
    ...(opts.debug ? { debug: (l: string) => void opts.debug!.push(l) } : {}),
  });
  return { agent, pool, client };
}

describe('ApiClient', () => {
  it('reuses one Idempotency-Key across retries and backs off exponentially with jitter', async () => {
    const sleeps: number[] = [];
    const { pool, client } = setup({ sleeps });
    const keys: string[] = [];
    const capture = (opts: { headers?: unknown }) => {
      keys.push((opts.headers as Record<string, string>)['idempotency-key']!);
    };
    pool.intercept({ path: '/v1/customers', method: 'POST' }).reply(502, (o) => (capture(o), {}));
    pool.intercept({ path: '/v1/customers', method: 'POST' }).reply(504, (o) => (capture(o), {}));
    pool.intercept({ path: '/v1/customers', method: 'POST' }).reply(201, (o) => (capture(o), { id: 'cus_1' }));
    const res = await client.request({ method: 'POST', path: 'customers', body: { a: 1 } });
    expect(res.status).toBe(201);
    expect(res.attempts).toBe(3);
    expect(new Set(keys).size).toBe(1);
    expect(res.idempotencyKey).toBe(keys[0]);
    // base 250 ms: attempt 1 ceiling 250, attempt 2 ceiling 500; jitter 0.1 + 0.9 * 0.5 = 0.55
    expect(sleeps).toEqual([138, 275]);
  });

  it('honours Retry-After in seconds and never retries other 4xx', async () => {
    const sleeps: number[] = [];
    const { pool, client } = setup({ sleeps });
    pool.intercept({ path: '/v1/accounts', method: 'GET' }).reply(429, {}, { headers: { 'retry-after': '2' } });
    pool.intercept({ path: '/v1/accounts', method: 'GET' }).reply(400, { code: 'invalid_parameter', detail: 'bad limit' });
    const err = await client.request({ method: 'GET', path: 'accounts' }).catch((e: unknown) => e);
    expect(sleeps).toEqual([2000]);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).exitCode).toBe(1);
    expect((err as ApiError).message).toBe('HTTP 400 invalid_parameter: bad limit');
  });

  it('turns a connection error into a NetworkError (exit 6) after the retries', async () => {
    const { pool, client } = setup({ maxRetries: 1 });
    pool.intercept({ path: '/v1/accounts', method: 'GET' }).replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' })).times(2);
    const err = (await client.request({ method: 'GET', path: 'accounts' }).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.exitCode).toBe(6);
    expect(err.message).toBe('GET /v1/accounts failed: connection reset after 2 attempts');
  });

  it('times out an attempt that does not answer', async () => {
    const { pool, client } = setup({ maxRetries: 0, timeoutMs: 50 });
    pool.intercept({ path: '/v1/accounts', method: 'GET' }).reply(200, {}).delay(500);
    const err = (await client.request({ method: 'GET', path: 'accounts' }).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/timed out after 0\.05 s/);
  });

  it('streams pages following next_cursor, and stops at --limit', async () => {
    const { pool, client } = setup();
    const page = (ids: number[], next: string | null) => ({ object: 'list', data: ids.map((id) => ({ id })), has_more: next !== null, next_cursor: next });
    pool.intercept({ path: '/v1/transactions?type=transfer&limit=100', method: 'GET' }).reply(200, page([1, 2], 'c2'));
    pool.intercept({ path: '/v1/transactions?type=transfer&limit=100&cursor=c2', method: 'GET' }).reply(200, page([3], null));
    const seen: number[][] = [];
    for await (const p of client.pages<{ id: number }>('transactions', { type: 'transfer' }, { all: true })) seen.push(p.map((x) => x.id));
    expect(seen).toEqual([[1, 2], [3]]);

    pool.intercept({ path: '/v1/transactions?limit=2', method: 'GET' }).reply(200, page([1, 2], 'c2'));
    const limited: number[] = [];
    for await (const p of client.pages<{ id: number }>('transactions', {}, { limit: 2 })) limited.push(...p.map((x) => x.id));
    expect(limited).toEqual([1, 2]);
  });

  it('debug lines never hold the key whole', async () => {
    const debug: string[] = [];
    const { pool, client } = setup({ debug });
    pool.intercept({ path: '/v1/customers', method: 'POST' }).reply(201, { echoed: KEY });
    await client.request({ method: 'POST', path: 'customers', body: { note: KEY } });
    const all = debug.join('\n');
    expect(all).toContain('> api-key: sk_test_…L5k4');
    expect(all).not.toContain(KEY);
  });

  it('refuses paths that leave the base URL', () => {
    const { client } = setup();
    expect(() => client.url('../admin')).toThrow(/invalid API path/);
    expect(() => client.url('https://evil.example.com/')).toThrow(/invalid API path/);
    expect(client.url('/customers/cus_1', { limit: 5, cursor: undefined }).toString()).toBe(`${ORIGIN}/v1/customers/cus_1?limit=5`);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, capped at a minute', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('999')).toBe(60_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 5_000)).toBe(5000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
