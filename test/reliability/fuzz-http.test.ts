// Bad-input fuzzing of the emulator over raw sockets (node:net), so nothing in a client library
// tidies the request: bad JSON, wrong types, oversized bodies (> 1 MiB, with and without a
// Content-Length), header injection attempts (CR/LF in values, bare LF, NUL, obs-fold),
// request smuggling shapes (Content-Length with Transfer-Encoding, duplicate lengths), path
// traversal (/v1/../etc/passwd and its encoded variants), bad methods, and slowloris-style
// partial headers and bodies with a time bound. The emulator runs as a child process
// (`pay emulator start`, no fault injection), so a crash is seen and its memory can be sampled.
//
// Properties: every request gets an answer within the bound; never a 5xx; every 4xx is
// application/problem+json whose body names the same status and a code; a 2xx only ever with a
// valid secret key (no auth bypass); no /etc/passwd in any answer and no injected header in any
// response; the health route answers after every batch; no internal error is counted; the
// resident memory stays bounded. Slow clients are cut off by the server's own timeouts.
//
// Reproduce: PAY_FUZZ_SEED=<seed> npm run test:reliability -- fuzz-http
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, count, FULL, pool, record, rssOf, sleep, spawnEmulator, tempRoot, type EmulatorProcess } from './helpers.js';
import { until } from '../helpers/wait.js';

const RUNS = count(300, 2000);
const BATCH = 50;
const PARALLEL = 8;
const SLOW = count(12, 60);
const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
/** The emulator's own bounds (src/emulator/server.ts): headers 20 s, whole request 30 s, checked every second. */
const HEADERS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 30_000;
const MAX_RSS_GROWTH = 200 * 1024 * 1024;

let emu: EmulatorProcess;
const fixture: Record<string, string> = {};

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 exchange: write the bytes (optionally in pieces, with gaps), read ONE response.

interface Answer {
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed (or reset) the connection before a whole response. */
  closedEarly: boolean;
  error?: string;
  ms: number;
  timedOut: boolean;
}

function exchange(pieces: Array<string | Buffer>, opts: { head?: boolean; timeoutMs: number; gapMs?: number }): Promise<Answer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(emu.port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let done = false;
    let error: string | undefined;
    const finish = (a: Omit<Answer, 'ms' | 'error'>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...a, ms: Date.now() - started, ...(error ? { error } : {}) });
    };
    const timer = setTimeout(
      () => finish({ headers: {}, body: buf.toString('latin1'), closedEarly: false, timedOut: true }),
      opts.timeoutMs,
    );
    const parse = (final: boolean): void => {
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) break;
        const head = buf.subarray(0, end).toString('latin1').split('\r\n');
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1]);
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const i = line.indexOf(':');
          if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
        }
        const rest = buf.subarray(end + 4);
        if (status >= 100 && status < 200) {
          buf = rest; // 100 Continue: the real answer follows
          continue;
        }
        if (opts.head || status === 204 || status === 304)
          return finish({ status, headers, body: '', closedEarly: false, timedOut: false });
        if (headers['content-length'] !== undefined) {
          const len = Number(headers['content-length']);
          if (rest.length >= len)
            return finish({ status, headers, body: rest.subarray(0, len).toString('utf8'), closedEarly: false, timedOut: false });
        } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
          const text = rest.toString('latin1');
          if (/(^|\r\n)0\r\n\r\n/.test(text)) {
            const body = text.replace(/([0-9a-f]+)\r\n([\s\S]*?)\r\n/gi, (_m, _n, chunk: string) => chunk);
            return finish({ status, headers, body, closedEarly: false, timedOut: false });
          }
        } else if (final) {
          return finish({ status, headers, body: rest.toString('utf8'), closedEarly: false, timedOut: false });
        }
        break;
      }
      if (final) finish({ headers: {}, body: buf.toString('latin1'), closedEarly: true, timedOut: false });
    };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      parse(false);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => parse(true));
    void (async () => {
      for (const p of pieces) {
        if (done || socket.destroyed) return;
        await new Promise<void>((r) => socket.write(p, () => r()));
        if (opts.gapMs) await sleep(opts.gapMs);
      }
    })().catch(() => {});
  });
}

// ---------------------------------------------------------------------------------------------
// Requests

interface Req {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: Buffer | undefined;
  framing: 'length' | 'chunked' | 'none' | 'both' | 'short-length' | 'dup-length';
  apiKey: 'sandbox' | 'live' | 'public' | 'bad' | 'none' | 'injected';
}

function toBytes(r: Req): Buffer {
  const lines = [`${r.method} ${r.target} HTTP/1.1`, 'Host: 127.0.0.1', ...r.headers.map(([k, v]) => `${k}: ${v}`)];
  const body = r.body ?? Buffer.alloc(0);
  let payload = body;
  if (r.body !== undefined) {
    switch (r.framing) {
      case 'length':
        lines.push(`Content-Length: ${body.length}`);
        break;
      case 'short-length':
        lines.push(`Content-Length: ${Math.max(0, body.length - 3)}`);
        break;
      case 'dup-length':
        lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
        break;
      case 'chunked':
      case 'both': {
        if (r.framing === 'both') lines.push(`Content-Length: ${body.length}`);
        lines.push('Transfer-Encoding: chunked');
        const parts: Buffer[] = [];
        for (let i = 0; i < body.length; i += 64 * 1024) {
          const c = body.subarray(i, i + 64 * 1024);
          parts.push(Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n'));
        }
        parts.push(Buffer.from('0\r\n\r\n'));
        payload = Buffer.concat(parts);
        break;
      }
      case 'none':
        break;
    }
  }
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}

const customer = (tag: string) => ({
  first_name: 'Fuzz',
  last_name: tag,
  email: `${tag.replace(/[^a-z0-9]/gi, '') || 'x'}@fuzz.example.com`,
  phone: '+14155550123',
  type: 'individual',
  date_of_birth: '1990-01-01',
  address: { address_line1: '1 Main St', city: 'SF', country: 'US', postal_code: '94105', state: 'US-CA' },
});

const TRAVERSALS = [
  '/v1/../etc/passwd',
  '/v1/%2e%2e/%2e%2e/etc/passwd',
  '/v1/..%2f..%2f..%2fetc%2fpasswd',
  '/v1/customers/..%252f..%252fetc%252fpasswd',
  '/v1/customers/%2e%2e%5c%2e%2e%5cetc%5cpasswd',
  '/v1/customers/../../../../etc/passwd',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/v1/./customers/../../etc/passwd',
  '/v1/customers/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd',
  '/v1/customers/....//....//etc/passwd',
  '/v1/customers%00.json',
  '/v1/customers;/../../etc/passwd',
  '/v1/../__emulator/reset',
  '/__emulator/../v1/customers',
  '/v1/customers/..',
  '//etc/passwd',
  '/v1//customers',
  '/v1/customers/%2F%2Fetc%2Fpasswd',
  '/v1/customers/cus_0123456789abcdefghijklm%0d%0aX-Injected:%201',
  '/v1/kyc/status/cus_%0d%0aX-Injected:1',
  'http://evil.example.com/v1/customers',
  '*',
];

function requestArb(): fc.Arbitrary<Req> {
  const ids = Object.values(fixture);
  const seg = fc.oneof(
    fc.constantFrom(...ids),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
    fc.string({ unit: 'grapheme', maxLength: 10 }).map(encodeURIComponent),
    fc.constantFrom('..', '.', '%2e%2e', '%00', '%ff', '', 'cus_' + 'a'.repeat(5000), '__proto__', 'constructor'),
  );
  /** [method it expects, route]: {c} a customer id, {a} an account id, {k} a card id. */
  const ROUTES: Array<[string, string]> = [
    ['POST', '/v1/customers'],
    ['GET', '/v1/customers'],
    ['GET', '/v1/customers/{c}'],
    ['PATCH', '/v1/customers/{c}'],
    ['POST', '/v1/customers/{c}/kyc'],
    ['POST', '/v1/customers/{c}/kyc/documents'],
    ['GET', '/v1/customers/{c}/kyc'],
    ['GET', '/v1/customers/{c}/features/cards'],
    ['POST', '/v1/customers/{c}/features/fx/activate'],
    ['POST', '/v1/kyc/verify'],
    ['POST', '/v1/kyc/documents'],
    ['GET', '/v1/kyc/status/{c}'],
    ['POST', '/v1/accounts'],
    ['GET', '/v1/accounts'],
    ['GET', '/v1/accounts/{a}'],
    ['POST', '/v1/accounts/{a}/close'],
    ['POST', '/v1/external-accounts'],
    ['POST', '/v1/transfers'],
    ['GET', '/v1/transfers'],
    ['POST', '/v1/cards'],
    ['GET', '/v1/cards/{k}'],
    ['POST', '/v1/cards/{k}/freeze'],
    ['POST', '/v1/cards/{k}/unfreeze'],
    ['POST', '/v1/collections'],
    ['POST', '/v1/wallets'],
    ['POST', '/v1/payment-links'],
    ['GET', '/v1/fx/rates'],
    ['POST', '/v1/fx/quotes'],
    ['POST', '/v1/fx/trades'],
    ['GET', '/v1/transactions'],
    ['GET', '/v1/webhooks/events'],
    ['GET', '/v1/features'],
  ];
  const route = fc.tuple(fc.constantFrom(...ROUTES), fc.boolean(), seg).map(([[m, r], own, other]) => ({
    method: m,
    path: r
      .replace('{c}', own ? fixture.customer! : other)
      .replace('{a}', own ? fixture.account! : other)
      .replace('{k}', own ? fixture.card! : other),
  }));
  const path = fc.oneof(
    { weight: 12, arbitrary: route },
    { weight: 3, arbitrary: fc.constantFrom(...TRAVERSALS).map((p) => ({ method: 'GET', path: p })) },
    { weight: 1, arbitrary: fc.array(seg, { maxLength: 5 }).map((x) => ({ method: 'GET', path: `/${x.join('/')}` })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('/__emulator/health', '/__emulator/stats', '/', '/v1', '/v1/', '/v2/customers', '/V1/CUSTOMERS')
        .map((p) => ({ method: 'GET', path: p })),
    },
  );
  const query = fc.oneof(
    { weight: 6, arbitrary: fc.constant('') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '?limit=abc',
        '?limit=1&limit=2',
        '?limit=0',
        '?limit=100000',
        '?%zz=1',
        '?__proto__[x]=1',
        '?cursor=' + 'x'.repeat(3000),
        '?email=%0d%0aX-Injected:1',
        '?base=../../etc',
        '?symbols=' + 'EUR,'.repeat(500),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 })
        .map((d) => `?${new URLSearchParams(d).toString()}`),
    },
  );
  const apiKey = fc.constantFrom<Req['apiKey']>(
    'sandbox',
    'sandbox',
    'sandbox',
    'sandbox',
    'sandbox',
    'live',
    'public',
    'bad',
    'none',
    'injected',
  );
  // Most requests are well-formed HTTP whose content is bad (they reach the handlers); about one
  // in five is malformed on the wire (bad tokens, control characters, framing).
  const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
  const wireValue = fc.constantFrom(
    'a\r\nX-Injected: 1',
    'a\nX-Injected: 1',
    'a\rX-Injected: 1',
    'a\0b',
    'ü-\u00ff',
    'x'.repeat(9000),
    '() { :; }; echo pwned',
    '\u0001\u0002',
  );
  const extraHeaders = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.array(
        fc.tuple(
          fc.constantFrom(
            'x-custom',
            'accept',
            'x-forwarded-for',
            'origin',
            'cookie',
            'te',
            'content-encoding',
            'range',
            'x-request-id',
            'idempotency-key',
            'x-tenant-id',
          ),
          ascii,
        ),
        { maxLength: 3 },
      ),
    },
    {
      weight: 2,
      arbitrary: fc.array(
        fc.oneof(
          fc.tuple(fc.constantFrom('x-custom', 'x-tenant-id', 'idempotency-key', 'api-key', 'expect', 'upgrade'), wireValue),
          fc.tuple(fc.constantFrom('X Bad', 'X:Colon', 'Ünïcode', '', ' x-lead', 'x-\0'), ascii),
        ),
        { minLength: 1, maxLength: 2 },
      ),
    },
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    '',
  );
  const body = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.string({ maxLength: 12 }).map((t) => Buffer.from(JSON.stringify(customer(t)))) },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
    {
      weight: 3,
      arbitrary: fc
        .record(
          {
            customer_id: fc.oneof(fc.constantFrom(...ids), fc.jsonValue()),
            account_id: fc.oneof(fc.constantFrom(...ids), fc.string()),
            source_account_id: fc.constantFrom(...ids),
            destination_id: fc.constantFrom(...ids),
            amount: fc.oneof(fc.constantFrom('1.00', '-1', '1e3', '0.001', '99999999999999999999', '1.13'), fc.double(), fc.string()),
            currency: fc.constantFrom('USD', 'usd', 'EUR', 'XXX', 'BTC', ''),
            type: fc.constantFrom('virtual', 'physical', 'checking', 'x'),
            method: fc.constantFrom('card', 'mobile_money', 'x'),
          },
          { requiredKeys: [] },
        )
        .map((v) => Buffer.from(JSON.stringify(v))),
    },
    { weight: 2, arbitrary: fc.object({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v) ?? '{}')) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          '{',
          '{"a":}',
          'NaN',
          "{'a':1}",
          '{"a":1}{"b":2}',
          '\ufeff{"a":1}',
          '{"amount":1e400,"currency":"USD"}',
          '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}',
          'null',
          '[]',
          '"str"',
          '\u0000\u0001\u0002',
        )
        .map((s) => Buffer.from(s)),
    },
    { weight: 1, arbitrary: fc.integer({ min: 33, max: 5000 }).map((d) => Buffer.from(`${'{"a":'.repeat(d)}1${'}'.repeat(d)}`)) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 100_000, max: 900_000 }).map((n) => Buffer.from(JSON.stringify({ first_name: 'x'.repeat(n) }))),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1024 * 1024 + 1, max: 3 * 1024 * 1024 }).map((n) => Buffer.alloc(n, 0x61)) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 300 }).map((a) => Buffer.from(a)) },
  );
  return fc
    .record({
      method: fc.oneof(
        { weight: 14, arbitrary: fc.constant('') }, // the route's own method
        { weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'PURGE') },
        { weight: 1, arbitrary: fc.constantFrom('get', 'G ET', 'M-SEARCH', 'BREW', 'CONNECTX', ' ') },
      ),
      path,
      query,
      apiKey,
      idem: fc.oneof(
        { weight: 6, arbitrary: fc.uuid() },
        { weight: 2, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.constantFrom('', 'k'.repeat(300), 'a\u0001b', 'ключ', ' ', 'a b') },
      ),
      tenant: fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 3, arbitrary: fc.constant('own') },
        { weight: 2, arbitrary: fc.constantFrom('other_biz', '../../etc', 'x'.repeat(65), 'ü', '', 'a%2fb') },
      ),
      contentType,
      extra: extraHeaders,
      body,
      framing: fc.oneof(
        { weight: 8, arbitrary: fc.constant<Req['framing']>('length') },
        { weight: 2, arbitrary: fc.constantFrom<Req['framing']>('chunked', 'none', 'both', 'short-length', 'dup-length') },
      ),
    })
    .map((g): Req => {
      const headers: Array<[string, string]> = [];
      const key = {
        sandbox: emu.keys.sandbox.secret,
        live: emu.keys.live.secret,
        public: emu.keys.sandbox.public,
        bad: 'sk_test_' + 'Z'.repeat(32),
        none: '',
        injected: `${emu.keys.sandbox.secret}\r\nX-Injected: 1`,
      }[g.apiKey];
      if (g.apiKey !== 'none') headers.push(['Api-Key', key]);
      if (g.tenant !== undefined) headers.push(['x-tenant-id', g.tenant === 'own' ? emu.tenantId : g.tenant]);
      if (g.idem !== undefined) headers.push(['Idempotency-Key', g.idem]);
      if (g.body !== undefined && g.contentType !== '') headers.push(['Content-Type', g.contentType]);
      headers.push(...g.extra);
      return {
        method: g.method || g.path.method,
        target: g.path.path + g.query,
        headers,
        body: g.body,
        framing: g.framing,
        apiKey: g.apiKey,
      };
    });
}

// ---------------------------------------------------------------------------------------------
// Judging one answer

function judge(r: Req, a: Answer): string | undefined {
  if (a.timedOut) return `no answer within ${a.ms} ms`;
  if (a.status === undefined) {
    // A body over 1 MiB: the server answers 413 and closes; the client may still be writing and
    // see the reset first. Accepted only for such bodies.
    if ((r.body?.length ?? 0) > 1024 * 1024 && a.closedEarly) return undefined;
    return `closed without an answer${a.error ? ` (${a.error})` : ''}`;
  }
  if (a.status >= 500) return `answered ${a.status}: ${a.body.slice(0, 200)}`;
  if (/root:.*:0:0:/.test(a.body)) return 'answered with /etc/passwd';
  if (Object.keys(a.headers).some((h) => h === 'x-injected')) return 'an injected header came back in the response';
  if (a.status >= 200 && a.status < 300) {
    const admin = r.target.startsWith('/__emulator/');
    // 'injected' is a valid key followed by an injected header line.
    if (!admin && r.apiKey !== 'sandbox' && r.apiKey !== 'live' && r.apiKey !== 'injected')
      return `answered ${a.status} to a request with ${r.apiKey} key`;
    return undefined;
  }
  if (a.status >= 400) {
    if (!/^application\/problem\+json/.test(a.headers['content-type'] ?? ''))
      return `answered ${a.status} as ${a.headers['content-type'] ?? 'no content type'}: ${a.body.slice(0, 100)}`;
    if (r.method.toUpperCase() === 'HEAD') return undefined;
    try {
      const p = JSON.parse(a.body) as { status?: unknown; code?: unknown };
      if (p.status !== a.status || typeof p.code !== 'string') return `problem body does not match: ${a.body.slice(0, 200)}`;
    } catch {
      return `problem body is not JSON: ${a.body.slice(0, 200)}`;
    }
  }
  return undefined;
}

async function health(): Promise<boolean> {
  try {
    const r = await fetch(`${emu.url}/__emulator/health`, { signal: AbortSignal.timeout(5_000) });
    return r.status === 200 && ((await r.json()) as { ok?: boolean }).ok === true;
  } catch {
    return false;
  }
}

async function stats(): Promise<{ internal_errors: number; requests: number }> {
  return (await (await fetch(`${emu.url}/__emulator/stats`)).json()) as { internal_errors: number; requests: number };
}

beforeAll(async () => {
  emu = await spawnEmulator(['--port', '0', '--settle-after', '100'], cleanEnv({ PAY_CONFIG_DIR: tempRoot('fuzz-http') }));
  const h = { 'api-key': emu.keys.sandbox.secret, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(emu.baseUrl + path, { method: 'POST', headers: { ...h, 'idempotency-key': randomUUID() }, body: JSON.stringify(body) })
    ).json()) as { id: string };
  fixture.customer = (await post('customers', customer('fixture'))).id;
  // The business rules: a card needs the customer's KYC approved (the review settles in 100 ms) and cards active.
  await post(`customers/${fixture.customer}/kyc`, { level: 'basic' });
  await post(`customers/${fixture.customer}/kyc/documents`, { type: 'passport', country: 'GB', number: '123456789' });
  await until("the fixture's KYC approved", async () => {
    const c = (await (await fetch(`${emu.baseUrl}customers/${fixture.customer}`, { headers: h })).json()) as { kyc_status: string };
    return c.kyc_status === 'approved';
  });
  await post(`customers/${fixture.customer}/features/cards/activate`, {});
  fixture.account = (await post('accounts', { customer_id: fixture.customer, currency: 'USD' })).id;
  fixture.card = (await post('cards', { customer_id: fixture.customer, account_id: fixture.account, type: 'virtual' })).id;
});

afterAll(async () => {
  await emu?.stop();
});

describe('fuzz: malformed HTTP against the emulator', () => {
  it(`${RUNS} random malformed requests in batches of ${BATCH}, slow clients alongside: never a 5xx or a crash, problem+json 4xx, bounded memory (seed ${SEED})`, async () => {
    const started = Date.now();
    const failures: string[] = [];
    const statuses: Record<string, number> = {};

    // Slowloris alongside: half trickle their headers a byte at a time, half stall in the body.
    const slowStarted = Date.now();
    // The partial bodies wait for the server's 30 s cut-off in the full run; by default they are
    // held for the whole fuzz run (the server must keep serving) and then dropped by the client.
    const slow = Array.from({ length: SLOW }, (_, i) => {
      const head = `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${emu.keys.sandbox.secret}\r\nIdempotency-Key: slow-${i}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
      return i % 2 === 0
        ? exchange(head.split(''), { gapMs: 700, timeoutMs: HEADERS_TIMEOUT_MS + 8_000 }).then((a) => ({ kind: 'headers', a }))
        : exchange([head, '{"first_name":'], { timeoutMs: FULL ? REQUEST_TIMEOUT_MS + 8_000 : HEADERS_TIMEOUT_MS }).then((a) => ({
            kind: 'body',
            a,
          }));
    });

    // Warm up, then the memory baseline.
    await exchange([`GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${emu.keys.sandbox.secret}\r\nConnection: close\r\n\r\n`], {
      timeoutMs: 5_000,
    });
    const rssBefore = rssOf(emu.pid) ?? 0;
    const before = await stats();

    const requests = fc.sample(requestArb(), { numRuns: RUNS, seed: SEED });
    let unhealthy = 0;
    let passed = 0;
    for (let b = 0; b < requests.length; b += BATCH) {
      const batch = requests.slice(b, b + BATCH);
      const results = await pool(batch, PARALLEL, async (r) => {
        const a = await exchange([toBytes(r)], { head: r.method === 'HEAD', timeoutMs: 15_000 });
        statuses[String(a.status ?? 'closed')] = (statuses[String(a.status ?? 'closed')] ?? 0) + 1;
        const why = judge(r, a);
        if (why)
          failures.push(`${r.method} ${r.target.slice(0, 100)} [key ${r.apiKey}, ${r.framing}, body ${r.body?.length ?? 0} B]: ${why}`);
        return !why;
      });
      passed += results.filter(Boolean).length;
      if (!(await health())) {
        unhealthy++;
        failures.push(`the health route did not answer after batch ${b / BATCH + 1}`);
        if (emu.child.exitCode !== null) break;
      }
    }
    const fuzzMs = Date.now() - started;
    const after = await stats();
    const rssAfter = rssOf(emu.pid) ?? 0;

    // The slow clients: each cut off by the server (408 or closed) within its bound.
    const slowResults = await Promise.all(slow);
    let slowOk = 0;
    for (const { kind, a } of slowResults) {
      if (kind === 'body' && !FULL) {
        // Held open through the fuzz run, then given up by the client: the server must not have answered it as complete.
        if (a.status !== undefined && a.status < 400) failures.push(`slow client (body): answered ${a.status} to a partial body`);
        else slowOk++;
        continue;
      }
      const bound = (kind === 'headers' ? HEADERS_TIMEOUT_MS : REQUEST_TIMEOUT_MS) + 3_000;
      const cut = !a.timedOut && (a.status === 408 || a.status === 400 || (a.status === undefined && a.closedEarly));
      if (cut && a.ms <= bound + (Date.now() - slowStarted > bound ? 5_000 : 0)) slowOk++;
      else failures.push(`slow client (${kind}): ${a.timedOut ? 'still open' : `status ${a.status}`} after ${a.ms} ms`);
      if (a.status !== undefined && a.status >= 400 && !/^application\/problem\+json/.test(a.headers['content-type'] ?? ''))
        failures.push(`slow client (${kind}): ${a.status} not problem+json`);
    }
    const alive = emu.child.exitCode === null && (await health());
    const internal = after.internal_errors - before.internal_errors;
    const growth = rssAfter - rssBefore;

    await record(
      'fuzz.http',
      'malformed HTTP (raw sockets) against the emulator',
      {
        tried: RUNS + SLOW,
        passed: passed + slowOk,
        lost: 0,
        duplicated: 0,
        leaked: 0,
        extra: {
          seed: SEED,
          slow_clients: SLOW,
          fuzz_ms: fuzzMs,
          internal_errors: internal,
          rss_before_mib: Math.round(rssBefore / 1048576),
          rss_after_mib: Math.round(rssAfter / 1048576),
          ...Object.fromEntries(Object.entries(statuses).map(([s, n]) => [`status_${s}`, n])),
        },
      },
      started,
    );
    expect(alive, 'the emulator is still up').toBe(true);
    expect(unhealthy).toBe(0);
    expect(failures.slice(0, 30), `seed ${SEED}`).toEqual([]);
    expect(internal, 'internal errors counted by the emulator').toBe(0);
    expect(rssBefore).toBeGreaterThan(0);
    expect(growth, `RSS ${Math.round(rssBefore / 1048576)} → ${Math.round(rssAfter / 1048576)} MiB`).toBeLessThan(MAX_RSS_GROWTH);
  }, 900_000);

  it('fixed attack catalogue: traversal, smuggling, injection, odd methods and versions', async () => {
    const started = Date.now();
    const key = emu.keys.sandbox.secret;
    const pollution = '{"__proto__":{"admin":true},"constructor":{"x":true}}';
    /** [name, request bytes, a 2xx is acceptable (a valid key alone, a target that routes)]. */
    const catalogue: Array<[string, string | Buffer, boolean?]> = [
      ...TRAVERSALS.map((t): [string, string, boolean] => [
        `traversal ${t}`,
        `GET ${t} HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nConnection: close\r\n\r\n`,
        t === '/v1//customers',
      ]),
      [
        'CL+TE smuggling',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n0\r\n\r\nGET /v1/customers HTTP/1.1\r\nHost: localhost\r\n\r\n`,
      ],
      [
        'TE obfuscated',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nTransfer-Encoding: xchunked\r\nContent-Type: application/json\r\n\r\n`,
      ],
      [
        'TE gzip',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nTransfer-Encoding: gzip\r\nContent-Type: application/json\r\n\r\n`,
      ],
      [
        'two lengths',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\nContent-Type: application/json\r\n\r\n{}`,
      ],
      [
        'negative length',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\nContent-Type: application/json\r\n\r\n{}`,
      ],
      [
        'length 2^64',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nIdempotency-Key: k\r\nContent-Length: 18446744073709551616\r\nContent-Type: application/json\r\n\r\n{}`,
      ],
      [
        'length 10 GiB',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nIdempotency-Key: k\r\nContent-Length: 10737418240\r\nContent-Type: application/json\r\n\r\n{}`,
      ],
      [
        'CRLF in header value',
        `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nX-A: a\r\nX-Injected: 1\r\nConnection: close\r\n\r\n`,
        true,
      ],
      ['bare LF lines', `GET /v1/customers HTTP/1.1\nHost: localhost\nApi-Key: ${key}\nConnection: close\n\n`, true],
      ['bare CR in value', `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\rX-Injected: 1\r\nConnection: close\r\n\r\n`],
      ['NUL in header', `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\0\r\nConnection: close\r\n\r\n`],
      ['obs-fold', `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\n X-Injected: 1\r\nConnection: close\r\n\r\n`],
      ['header over 16 KiB', `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`],
      [
        '150 headers',
        `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\n${Array.from({ length: 150 }, (_, i) => `X-H${i}: 1\r\n`).join('')}Connection: close\r\n\r\n`,
      ],
      ['lower-case method', `get /v1/customers HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`],
      ['unknown method', `BREW /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nConnection: close\r\n\r\n`],
      ['TRACE', `TRACE /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nConnection: close\r\n\r\n`],
      ['HTTP/0.9 line', `GET /v1/customers\r\n\r\n`],
      ['HTTP/9.9', `GET /v1/customers HTTP/9.9\r\nHost: localhost\r\n\r\n`],
      ['HTTP/1.0 no host', `GET /v1/customers HTTP/1.0\r\n\r\n`],
      ['NUL in path', `GET /v1/cus\0tomers HTTP/1.1\r\nHost: localhost\r\n\r\n`],
      [
        'raw UTF-8 in path',
        Buffer.concat([
          Buffer.from('GET /v1/customers/cus_'),
          Buffer.from('é😀', 'utf8'),
          Buffer.from(` HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nConnection: close\r\n\r\n`),
        ]),
      ],
      [
        'absolute-form target',
        `GET http://evil.example.com/v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nConnection: close\r\n\r\n`,
      ],
      ['asterisk target', `OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`],
      [
        'upgrade: websocket',
        `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: bad\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
      ],
      [
        'expect 100-continue',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nIdempotency-Key: ${randomUUID()}\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
        true,
      ],
      [
        'form body',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nIdempotency-Key: ${randomUUID()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\nConnection: close\r\n\r\na=1`,
      ],
      [
        'JSON in UTF-16',
        Buffer.concat([
          Buffer.from(
            `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nIdempotency-Key: ${randomUUID()}\r\nContent-Type: application/json; charset=utf-16\r\nContent-Length: 16\r\nConnection: close\r\n\r\n`,
          ),
          Buffer.from('\ufeff{"a":1}', 'utf16le'),
        ]),
      ],
      [
        'prototype pollution',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${key}\r\nIdempotency-Key: ${randomUUID()}\r\nContent-Type: application/json\r\nContent-Length: ${pollution.length}\r\nConnection: close\r\n\r\n${pollution}`,
      ],
      ['public key', `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${emu.keys.sandbox.public}\r\nConnection: close\r\n\r\n`],
      ['key with spaces', `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key:   ${key}   \r\nConnection: close\r\n\r\n`, true],
      ['two api keys', `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: bad\r\nApi-Key: ${key}\r\nConnection: close\r\n\r\n`],
      [
        'admin from traversal',
        `POST /v1/../__emulator/reset HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      ],
    ];
    const failures: string[] = [];
    const beforeStats = await stats();
    const results = await pool(catalogue, PARALLEL, async ([name, bytes, may2xx]) => {
      const a = await exchange([bytes], { timeoutMs: 10_000 });
      const r: Req = { method: 'GET', target: '/v1/x', headers: [], body: undefined, framing: 'none', apiKey: may2xx ? 'sandbox' : 'bad' };
      const why = judge(r, a);
      if (why) failures.push(`${name}: ${why}`);
      return !why;
    });
    const afterStats = await stats();
    // The reset through traversal must not have reached the admin route: the fixture still exists.
    const still = await fetch(`${emu.baseUrl}customers/${fixture.customer}`, { headers: { 'api-key': emu.keys.sandbox.secret } });
    if (still.status !== 200) failures.push(`the fixture customer is gone (${still.status}): an admin route was reached`);
    await record(
      'fuzz.http-catalogue',
      'fixed HTTP attack catalogue (traversal, smuggling, injection)',
      {
        tried: catalogue.length,
        passed: results.filter(Boolean).length,
        lost: still.status === 200 ? 0 : 1,
        duplicated: 0,
        leaked: 0,
        extra: { internal_errors: afterStats.internal_errors - beforeStats.internal_errors },
      },
      started,
    );
    expect(failures).toEqual([]);
    expect(afterStats.internal_errors - beforeStats.internal_errors).toBe(0);
    expect(await health()).toBe(true);
  }, 120_000);

  // Found by this suite and fixed in server.ts: CONNECT was dropped without an answer, and an
  // Expect other than 100-continue got Node's bare 417.
  it('CONNECT and an unsupported Expect get a problem+json 4xx', async () => {
    const cases: Array<[string, string, number]> = [
      ['CONNECT', `CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n`, 405],
      [
        'Expect: foo',
        `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
        417,
      ],
    ];
    for (const [name, bytes, status] of cases) {
      const a = await exchange([bytes], { timeoutMs: 5_000 });
      const r: Req = { method: 'X', target: '/v1/x', headers: [], body: undefined, framing: 'none', apiKey: 'bad' };
      expect(judge(r, a), name).toBeUndefined();
      expect(a.status, name).toBe(status);
    }
    expect(await health()).toBe(true);
  }, 30_000);
});
