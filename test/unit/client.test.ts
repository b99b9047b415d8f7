// The HTTP client with undici's MockAgent as the injected dispatcher: no sockets at all.
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { MAX_EMPTY_PAGES, parseRetryAfter } from '../../src/api/answers.js';
import { ApiClient } from '../../src/api/client.js';
import { ApiError, NetworkError, PayError, UsageError } from '../../src/lib/errors.js';

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
    pool
      .intercept({ path: '/v1/accounts', method: 'GET' })
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))
      .times(2);
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
    const page = (ids: number[], next: string | null) => ({
      object: 'list',
      data: ids.map((id) => ({ id })),
      has_more: next !== null,
      next_cursor: next,
    });
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

  it('refuses paths that leave the base URL (exit 2), and builds those that stay', () => {
    const { client } = setup();
    for (const bad of [
      '../admin',
      'https://evil.example.com/',
      '//evil.example.com/v1/',
      'customers/%2e%2e/x',
      'customers/..%2fx',
      'a\\b',
      'customers/c\tus',
      '%252e%252e/x',
      'customers/%255c',
      '\uff0e\uff0e/x',
    ]) {
      const err = (() => {
        try {
          client.url(bad);
        } catch (e) {
          return e;
        }
      })() as UsageError;
      expect(err, bad).toBeInstanceOf(UsageError);
      expect(err.exitCode).toBe(2);
      expect(err.message).toMatch(/^refused API path/);
    }
    expect(client.url('/customers/cus_1', { limit: 5, cursor: undefined }).toString()).toBe(`${ORIGIN}/v1/customers/cus_1?limit=5`);
    expect(client.url('customers?email=a%40b.c', { limit: 1 }).toString()).toBe(`${ORIGIN}/v1/customers?email=a%40b.c&limit=1`);
  });

  it('waits out 409 idempotency_request_in_progress with the same key, honouring Retry-After, then returns the result', async () => {
    const sleeps: number[] = [];
    const { pool, client } = setup({ sleeps });
    const keys: string[] = [];
    const capture = (o: { headers?: unknown }) => void keys.push((o.headers as Record<string, string>)['idempotency-key']!);
    const inProgress = { code: 'idempotency_request_in_progress', detail: 'still running' };
    pool
      .intercept({ path: '/v1/transfers', method: 'POST' })
      .reply(409, (o) => (capture(o), inProgress), { headers: { 'retry-after': '2' } });
    pool
      .intercept({ path: '/v1/transfers', method: 'POST' })
      .reply(409, (o) => (capture(o), inProgress), { headers: { 'retry-after': '1' } });
    pool
      .intercept({ path: '/v1/transfers', method: 'POST' })
      .reply(201, (o) => (capture(o), { id: 'tr_1', object: 'transfer' }), { headers: { 'idempotent-replayed': 'true' } });
    const res = await client.request({ method: 'POST', path: 'transfers', body: { a: 1 } });
    expect(res.body).toEqual({ id: 'tr_1', object: 'transfer' });
    expect(res.replayed).toBe(true);
    expect(sleeps).toEqual([2000, 1000]);
    expect(new Set(keys).size).toBe(1);
  });

  it('a 409 in progress past the retry budget is exit 5 with the key to retry with; other 409s are not retried', async () => {
    const { pool, client } = setup({ maxRetries: 1 });
    pool
      .intercept({ path: '/v1/transfers', method: 'POST' })
      .reply(409, { code: 'idempotency_request_in_progress', detail: 'still running' })
      .times(2);
    const err = (await client
      .request({ method: 'POST', path: 'transfers', body: {}, idempotencyKey: 'k1' })
      .catch((e: unknown) => e)) as ApiError;
    expect(err.exitCode).toBe(5);
    // The facts; the hint is the command's to write (src/cmdutil/hints.ts).
    expect([err.apiCode, err.idempotencyKey, err.hint]).toEqual(['idempotency_request_in_progress', 'k1', undefined]);
    pool.intercept({ path: '/v1/cards/card_1/freeze', method: 'POST' }).reply(409, { code: 'invalid_state', detail: 'terminated' });
    const other = (await client.request({ method: 'POST', path: 'cards/card_1/freeze' }).catch((e: unknown) => e)) as ApiError;
    expect(other.exitCode).toBe(5);
    expect(other.apiCode).toBe('invalid_state');
  });

  it('a success is a 2xx with the JSON expected: redirects, empty, non-JSON and wrong kinds are exit 1', async () => {
    const { pool, client } = setup();
    const cases: Array<[number, string, Record<string, string>, string, RegExp]> = [
      [
        302,
        '',
        { location: 'https://evil.example.com/' },
        'object',
        /answered 302 \(a redirect to https:\/\/evil\.example\.com\/\); pay follows no redirect/,
      ],
      [204, '', {}, 'object', /answered 204 with no body where a JSON object was expected/],
      [200, '<html>portal</html>', { 'content-type': 'text/html' }, 'object', /text\/html that is not JSON/],
      [200, '[1,2]', {}, 'object', /JSON array where a JSON object was expected/],
      [200, '{"object":"customer"}', {}, 'resource', /without an "id"/],
      [200, '{"id":"cus_2","object":"customer"}', {}, 'cus_1', /object cus_2 where cus_1 was expected/],
      [200, '{"id":7}', {}, 'object', /"id" is not a string/],
    ];
    for (const [status, body, headers, expect_, message] of cases) {
      pool.intercept({ path: '/v1/customers/cus_1', method: 'GET' }).reply(status, body, { headers });
      const expectation = expect_ === 'object' || expect_ === 'resource' ? expect_ : { id: expect_ };
      const err = (await client
        .request({ method: 'GET', path: 'customers/cus_1', expect: expectation })
        .catch((e: unknown) => e)) as PayError;
      expect(err, `${status} ${body}`).toBeInstanceOf(PayError);
      expect(err.exitCode).toBe(1);
      expect(err.message).toMatch(message);
    }
    pool.intercept({ path: '/v1/customers/cus_1', method: 'DELETE' }).reply(204, '');
    expect((await client.request({ method: 'DELETE', path: 'customers/cus_1', expect: 'any' })).body).toBeUndefined();
  });

  it('refuses an answer over the byte cap, error answers too, without retrying', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(ORIGIN);
    const client = new ApiClient({
      baseUrl: `${ORIGIN}/v1/`,
      apiKey: KEY,
      userAgent: 't',
      timeoutMs: 1000,
      maxRetries: 3,
      dispatcher: agent,
      credentialLabel: 'x',
      sleep: async () => {},
      maxResponseBytes: 1024,
    });
    pool
      .intercept({ path: '/v1/customers', method: 'GET' })
      .reply(200, JSON.stringify({ object: 'list', data: [], pad: 'x'.repeat(2000) }));
    const err = (await client.request({ method: 'GET', path: 'customers' }).catch((e: unknown) => e)) as PayError;
    expect(err.code).toBe('response_too_large');
    expect(err.message).toBe('GET /v1/customers: the answer is larger than 1 KiB; pay stopped reading it');
    pool.intercept({ path: '/v1/customers', method: 'GET' }).reply(503, 'y'.repeat(5000));
    const err5 = (await client.request({ method: 'GET', path: 'customers' }).catch((e: unknown) => e)) as PayError;
    expect(err5.code).toBe('response_too_large');
    expect(err5.exitCode).toBe(1);
  });

  it('a cursor that repeats, or has_more without a cursor, ends --all with exit 1', async () => {
    const { pool, client } = setup();
    const page = (ids: number[], next: string | null, hasMore = next !== null) => ({
      object: 'list',
      data: ids.map((id) => ({ id: `x_${id}` })),
      has_more: hasMore,
      next_cursor: next,
    });
    pool.intercept({ path: '/v1/transfers?limit=100', method: 'GET' }).reply(200, page([1], 'a'));
    pool.intercept({ path: '/v1/transfers?limit=100&cursor=a', method: 'GET' }).reply(200, page([2], 'b'));
    pool.intercept({ path: '/v1/transfers?limit=100&cursor=b', method: 'GET' }).reply(200, page([3], 'a'));
    const seen: string[] = [];
    const err = (await (async () => {
      for await (const p of client.pages<{ id: string }>('transfers', {}, { all: true })) seen.push(...p.map((x) => x.id));
    })().catch((e: unknown) => e)) as PayError;
    expect(seen).toEqual(['x_1', 'x_2', 'x_3']);
    expect(err.exitCode).toBe(1);
    expect(err.code).toBe('cursor_loop');
    expect(err.message).toMatch(/gave a cursor it had given before/);
    // An empty page that says has_more is followed when its cursor moves on (test/unit/pagination.test.ts); one that repeats it is not.
    for (const bad of [page([1], 'a', true), page([1], null, true), page([], 'a', true)]) {
      pool.intercept({ path: '/v1/transfers?limit=100&cursor=a', method: 'GET' }).reply(200, bad);
      pool.intercept({ path: '/v1/transfers?limit=100', method: 'GET' }).reply(200, page([1], 'a'));
      const e = (await (async () => {
        for await (const _ of client.pages('transfers', {}, { all: true }));
      })().catch((x: unknown) => x)) as PayError;
      expect(e.code).toBe('cursor_loop');
    }
  });
});

describe('ApiClient.pages: every item checked against what was asked', () => {
  it("checkFilters: an item whose *_id field is not the filter asked for is the service's fault (exit 1); items without the field pass", async () => {
    const { pool, client } = setup();
    const A = 'cus_aaaaaaaaaaaaaaaaaaaaaaaa';
    const B = 'cus_bbbbbbbbbbbbbbbbbbbbbbbb';
    const list = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null });
    const variants: Array<[unknown[], boolean]> = [
      [[{ id: 'acc_1', object: 'account', customer_id: A }], true],
      [[{ id: 'trf_1', object: 'transfer' }], true],
      [
        [
          { id: 'acc_1', object: 'account', customer_id: A },
          { id: 'acc_2', object: 'account', customer_id: B },
        ],
        false,
      ],
      [[{ id: 'acc_2', object: 'account', customer_id: '' }], false],
      [[{ id: 'acc_2', object: 'account', customer_id: `${A}\u001b[2J` }], false],
    ];
    for (const [data, fine] of variants) {
      pool.intercept({ path: `/v1/accounts?customer_id=${A}&limit=100`, method: 'GET' }).reply(200, list(data));
      const got: unknown[] = [];
      const err = await (async () => {
        for await (const p of client.pages('accounts', { customer_id: A }, { all: true, checkFilters: true })) got.push(...p);
      })().catch((e: unknown) => e);
      if (fine) {
        expect(err).toBeUndefined();
        expect(got).toEqual(data);
      } else {
        expect(err).toBeInstanceOf(PayError);
        expect((err as PayError).exitCode).toBe(1);
        expect((err as PayError).message).toMatch(
          /^GET \/v1\/accounts: the service answered a list holding account acc_2 whose customer_id is .*, where customer_id=cus_a+ was asked for$/,
        );
        expect((err as PayError).message).not.toMatch(/[\x00-\x1f]/);
      }
    }
  });
});

describe('ApiClient.pages: empty pages', () => {
  it(`follows empty pages whose cursor moves on, up to ${MAX_EMPTY_PAGES} in a row; past that the list is called endless (exit 1)`, async () => {
    for (const [empties, ends] of [
      [MAX_EMPTY_PAGES, true],
      [MAX_EMPTY_PAGES + 5, false],
    ] as const) {
      const { pool, client } = setup();
      let hits = 0;
      pool
        .intercept({ path: (p) => p.startsWith('/v1/transfers'), method: 'GET' })
        .reply(() => {
          const n = hits++;
          // Page 0 holds an item, then `empties` empty pages, then the last item.
          const data = n === 0 || n === empties + 1 ? [{ id: `x_${n}` }] : [];
          return {
            statusCode: 200,
            data: { object: 'list', data, has_more: n <= empties, next_cursor: n <= empties ? `c${n + 1}` : null },
          };
        })
        .persist();
      const seen: string[] = [];
      const err = await (async () => {
        for await (const p of client.pages<{ id: string }>('transfers', {}, { all: true })) seen.push(...p.map((x) => x.id));
      })().catch((e: unknown) => e);
      if (ends) {
        expect(err).toBeUndefined();
        expect(seen).toEqual(['x_0', `x_${empties + 1}`]);
      } else {
        expect((err as PayError).code).toBe('cursor_loop');
        expect((err as PayError).message).toMatch(new RegExp(`gave ${MAX_EMPTY_PAGES} empty pages in a row`));
        expect(seen).toEqual(['x_0']);
      }
    }
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
