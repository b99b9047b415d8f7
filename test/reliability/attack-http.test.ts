// Issue 11 "Hold under attack", classes 2-5, against hostile loopback HTTP servers and the built
// bin/pay.js as a child process:
//   attack.origin        generated paths for `pay api` (slashes and backslashes in every
//                        combination, control characters, tabs and newlines a WHATWG parser drops,
//                        %2e%2e, %2f, %5c, double encoding, absolute and protocol-relative URLs,
//                        userinfo, dot segments, unicode dots), generated ids for id-taking verbs,
//                        and cursors and ids the server hands back: nothing ever reaches a second
//                        listener (another loopback port), what reaches the service is under /v1/
//                        with no dot segment, and a path a naive resolution would send elsewhere is
//                        exit 2 with nothing sent at all. The URL builder (resolveUnder) is also
//                        run in-process over thousands more generated paths.
//   attack.success-shape redirects (to the second listener), 204s, empty and HTML 2xx, JSON of the
//                        wrong kind, for gets, creates, actions, pay api and transfers send --wait:
//                        exit 1, stdout empty, one error line, never "undefined", no redirect followed.
//   attack.in-progress   k answers 409 idempotency_request_in_progress with Retry-After, then the
//                        replay: waited out with the same key within --max-retries (exit 0, the
//                        original result), else exit 5 naming the key; two identical bulk rows in
//                        flight at once; and a transfer whose first attempt timed out at the real
//                        emulator (injected latency holds its key in flight) is reported, once.
//   attack.bounded       bodies around a generated --max-response-bytes / PAY_MAX_RESPONSE_BYTES
//                        cap (with and without Content-Length, success and error answers): exit 0
//                        exactly when the body fits; a 400 MiB and an endless body are cut off with
//                        pay's peak memory (VmHWM) bounded; cursors that repeat or do not advance
//                        end --all with exit 1 after a bounded number of pages.
//
// Reproduce: PAY_FUZZ_SEED=<seed> npx vitest run --config test/vitest.config.ts test/reliability/attack-http.test.ts
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveUnder } from '../../src/api/url.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { UsageError } from '../../src/lib/errors.js';
import { cleanEnv, count, pay, pool, record, spawnPay, stackTrace, tempRoot, type Run } from './helpers.js';
import { ADA_BODY_NO_STATE } from '../helpers/fixtures.js';

const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const PARALLEL = 4;
const KEY = 'sk_test_attackhttpattackhttpattack0001';
const TENANT = 'biz_attack';
const CUS = 'cus_0123456789abcdefghijklmn';
const ACC = 'acc_0123456789abcdefghijklmn';
const ACC2 = 'acc_abcdefghijklmn0123456789';
const TR = 'tr_0123456789abcdefghijklmn';
const MiB = 1024 * 1024;

interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

interface Listener {
  port: number;
  base: string;
  hits: Hit[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, hit: Hit, hits: Hit[]) => void | Promise<void>;

/** A loopback HTTP server that records every request (raw URL, headers, body) and answers with `handler`. */
async function listen(handler: Handler): Promise<Listener> {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit: Hit = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      hits.push(hit);
      res.on('error', () => {});
      Promise.resolve(handler(req, res, hit, hits)).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}/v1/`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': status >= 400 ? 'application/problem+json' : 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

let configDir: string;
/** The second listener: nothing may ever reach it. */
let elsewhere: Listener;

function envFor(base: string, extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv({ PAY_API_KEY: KEY, PAY_TENANT_ID: TENANT, PAY_BASE_URL: base, PAY_CONFIG_DIR: configDir, ...extra });
}

/** What every failing run must look like: the exit code, nothing on stdout, an `error:` first line, no stack, no "undefined". */
function failedCleanly(r: Run, code: number): string | undefined {
  if (r.timedOut) return 'timed out';
  if (r.code !== code) return `exit ${r.code}, expected ${code}: ${r.stderr.slice(0, 300)}`;
  if (r.stdout !== '') return `stdout not empty: ${r.stdout.slice(0, 200)}`;
  const asJson = r.args.includes('--json') || r.args.join(' ').includes('-o json');
  if (asJson) {
    let e: { error?: { exit_code?: number; message?: string } } | undefined;
    try {
      e = JSON.parse(r.stderr) as typeof e;
    } catch {
      return `stderr is not one JSON error: ${r.stderr.slice(0, 200)}`;
    }
    if (e?.error?.exit_code !== code || typeof e.error.message !== 'string')
      return `stderr JSON error is not exit ${code}: ${r.stderr.slice(0, 200)}`;
  } else if (!r.stderr.startsWith('error: ') || r.stderr.split('\n').filter((l) => l && !l.startsWith('hint: ')).length !== 1) {
    return `stderr is not one "error: " line (and a hint): ${r.stderr.slice(0, 200)}`;
  }
  if (/undefined/.test(r.stderr)) return `"undefined" in stderr: ${r.stderr.slice(0, 300)}`;
  const stack = stackTrace(r.stderr);
  if (stack) return `stack trace: ${stack}`;
  if (r.leaks.length) return 'a secret leaked';
  return undefined;
}

beforeAll(async () => {
  configDir = tempRoot('attack-http');
  elsewhere = await listen((_req, res) => json(res, 200, { object: 'customer', id: CUS, stolen: true }));
});

afterAll(async () => {
  await elsewhere?.close();
});

// ---------------------------------------------------------------------------------------------
// Class 2: the key goes only to the configured origin

/** Path pieces; OTHER is the second listener's port. */
const PREFIXES = [
  '',
  '',
  '/',
  '//',
  '\\',
  '/\\',
  '\\\\',
  '\\/',
  'http://127.0.0.1:OTHER/',
  'HTTP://127.0.0.1:OTHER/v1/',
  'http:/127.0.0.1:OTHER/',
  'http:\\\\127.0.0.1:OTHER\\',
  '//127.0.0.1:OTHER/',
  '\\\\127.0.0.1:OTHER\\',
  '/\\127.0.0.1:OTHER/',
  '\\/127.0.0.1:OTHER/',
  'https:',
  'http:',
  'javascript:',
  'file:///etc/',
  '@127.0.0.1:OTHER/',
  'x:y@127.0.0.1:OTHER/',
  '%2f%2f127.0.0.1:OTHER/',
  '\t//127.0.0.1:OTHER/',
  '/\t/127.0.0.1:OTHER/',
  '\n//127.0.0.1:OTHER/',
  ' //127.0.0.1:OTHER/',
  '/%09/127.0.0.1:OTHER/',
  '\u3002\u3002/',
  '\uff0f\uff0f127.0.0.1:OTHER/',
];
const SAFE_ATOMS = ['customers', CUS, 'v1', '__emulator', 'requests', '127.0.0.1:OTHER', 'user@127.0.0.1:OTHER', 'x', 'a.b', '...', '%40'];
const BAD_ATOMS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%2e',
  '%252e%252e',
  '%25252e%25252e',
  '..%2f',
  '..%5c',
  '%2f',
  '%5c',
  '%2F..',
  '%252f',
  '%255c',
  '..;',
  '..;x=1',
  '.;',
  '%2e%2e;', // a path parameter after a dot segment (Tomcat-style servers read "..;" as "..")
  '\uff0e\uff0e',
  '\u2024\u2024',
  '\u3002',
  '\u2025',
  '.\t.',
  '.\n.',
  '..\t',
  '\r',
  '\x01',
  '\x1b',
  '\x7f',
  '\u0085',
  ' ',
  '%00',
  '%0a',
  '%09',
  '%zz',
  '#',
  '#/../..',
  '?x=/../',
  '..;',
  '..\\',
  '\\..',
  '\f',
  '\v',
  '\u00a0',
  '\u200b',
  '\u2028',
  '%c0%ae%c0%ae',
  '%e3%80%82',
  'localhost:OTHER',
  'HTTP:',
  'a\\b',
];
const SEPARATORS = ['/', '/', '/', '\\', '%2f', '%5c', '%252f', '/\t', '\t/', '//', '/./', '/../'];

const pathArb = fc
  .record({
    prefix: fc.constantFrom(...PREFIXES),
    atoms: fc.array(
      fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...SAFE_ATOMS) }, { weight: 2, arbitrary: fc.constantFrom(...BAD_ATOMS) }),
      { minLength: 1, maxLength: 4 },
    ),
    seps: fc.array(fc.constantFrom(...SEPARATORS), { minLength: 4, maxLength: 4 }),
  })
  .map(({ prefix, atoms, seps }) => prefix + atoms.map((a, i) => (i === 0 ? a : seps[i - 1] + a)).join(''));

/** Segments that decode (repeatedly) to a dot segment or hold a separator a server may decode. */
function decodedTraversal(path: string): boolean {
  const pathPart = path.split(/[?#]/)[0]!;
  return pathPart.split(/[/\\]/).some((seg) => {
    for (let i = 0; i < 6; i++) {
      const bare = seg.split(';')[0]!;
      if (bare === '.' || bare === '..' || /[/\\]/.test(seg)) return true;
      let next: string;
      try {
        next = decodeURIComponent(seg);
      } catch {
        return false;
      }
      if (next === seg) return false;
      seg = next;
    }
    return true;
  });
}

/**
 * True when a WHATWG parser, given the path as a naive client would (relative to the base, or
 * appended to it), lands on another origin or outside /v1/, or normalizes the path (drops tabs and
 * newlines, turns backslashes into slashes, removes dot segments), or a decoding server would.
 */
function leaves(base: string, path: string): boolean {
  const b = new URL(base);
  const candidates: string[] = [];
  // pay reads one leading "/" as "relative to the base URL" (`/customers` is `customers`).
  const rel = path.startsWith('/') ? path.slice(1) : path;
  try {
    candidates.push(new URL(rel, b).href);
  } catch {
    return true;
  }
  try {
    candidates.push(new URL(b.href + rel).href);
  } catch {
    return true;
  }
  for (const c of candidates) {
    const u = new URL(c);
    if (u.origin !== b.origin || !u.pathname.startsWith(b.pathname)) return true;
  }
  // What a naive client might read as a separator or a dot segment counts as leaving, in the path
  // part; the query part (after "?") is data sent as such, checked by the built URL above.
  const q = path.indexOf('?');
  const pathPart = q < 0 ? path : path.slice(0, q);
  if (/[\t\n\r]/.test(path) || pathPart.includes('\\')) return true;
  return decodedTraversal(pathPart);
}

/** A request the service received is under /v1/, with no dot segment, decoded or not. */
function underBase(hit: Hit): boolean {
  const raw = hit.url;
  if (!raw.startsWith('/v1/')) return false;
  return !decodedTraversal(raw.slice(4));
}

describe('attack.origin: the key goes only to the configured origin', () => {
  it('generated pay api paths, id arguments and server-given cursors and ids never leave the base URL', async () => {
    const started = Date.now();
    // The cursor and transfer id the service hands back: set only while one run at a time uses them (part 3).
    let evilCursor: string | undefined;
    let evilTransferId: string | undefined;
    const svc = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if ((url.pathname === '/v1/customers' || url.pathname === '/v1/transactions') && req.method === 'GET') {
        const first = !url.searchParams.has('cursor');
        const more = first && evilCursor !== undefined;
        return json(res, 200, {
          object: 'list',
          data: [{ id: CUS, object: 'customer' }],
          has_more: more,
          next_cursor: more ? evilCursor : null,
        });
      }
      if (url.pathname === '/v1/transfers' && req.method === 'POST') {
        return json(res, 201, { id: evilTransferId ?? TR, object: 'transfer', status: 'pending' });
      }
      const id = /\/((?:cus|acc|tr|card|evt)_[0-9a-z]{24})(?:\/|$)/.exec(url.pathname)?.[1];
      return json(res, 200, { object: 'thing', ...(id ? { id } : {}) });
    });
    const other = String(elsewhere.port);
    const withOther = (s: string) => s.replaceAll('OTHER', other);
    const rng = fc.sample(pathArb, { numRuns: count(24, 1000), seed: SEED }).map(withOther);
    const failures: string[] = [];
    let refused = 0;
    let sent = 0;
    let leaked = 0;

    // 0. The one URL builder in-process, over many more variants: it refuses, or the URL is under the base.
    const many = fc.sample(pathArb, { numRuns: count(3000, 20_000), seed: SEED + 7 }).map(withOther);
    const b = new URL(svc.base);
    let builderRefused = 0;
    for (const path of many) {
      let url: URL | undefined;
      try {
        url = resolveUnder(b, path);
      } catch (e) {
        if (!(e instanceof UsageError)) failures.push(`resolveUnder(${JSON.stringify(path)}) threw ${String(e)}`);
        builderRefused++;
        continue;
      }
      if (leaves(svc.base, path)) failures.push(`resolveUnder(${JSON.stringify(path)}) built ${url.href}`);
      if (url.origin !== b.origin || !url.pathname.startsWith('/v1/') || decodedTraversal(url.pathname.slice(4)))
        failures.push(`resolveUnder(${JSON.stringify(path)}) built ${url.href}`);
    }

    // 1. pay api <METHOD> <path>
    await pool(rng, PARALLEL, async (path, i) => {
      const method = ['GET', 'POST', 'DELETE', 'PATCH'][i % 4]!;
      const before = elsewhere.hits.length;
      const r = await pay(['api', method, path], { env: envFor(svc.base) });
      if (elsewhere.hits.length !== before) leaked++;
      const mustRefuse = leaves(svc.base, path);
      if (r.code === 2) refused++;
      else sent++;
      if (mustRefuse) {
        const bad = failedCleanly(r, 2);
        if (bad) failures.push(`pay api ${method} ${JSON.stringify(path)}: ${bad}`);
      } else if (r.code !== 0 && r.code !== 2) {
        failures.push(`pay api ${method} ${JSON.stringify(path)}: exit ${r.code}: ${r.stderr.slice(0, 200)}`);
      }
    });
    // Refused paths sent nothing at all: every request the service saw is under /v1/.
    for (const h of svc.hits) if (!underBase(h)) failures.push(`the service received ${JSON.stringify(h.url)}`);

    // Paths that stay are sent (the builder is not simply refusing everything).
    for (const path of [
      'customers',
      '/customers',
      `customers/${CUS}`,
      'customers?limit=1',
      'v1/x',
      `user@127.0.0.1:${other}`,
      `127.0.0.1:${other}/x`,
      'a.b/...',
      'customers/%40x',
    ]) {
      const n = svc.hits.length;
      const r = await pay(['api', 'GET', path], { env: envFor(svc.base) });
      if (r.code !== 0 || svc.hits.length !== n + 1 || !svc.hits[n]!.url.startsWith('/v1/'))
        failures.push(`pay api GET ${JSON.stringify(path)} was not sent under /v1/: exit ${r.code} ${r.stderr.slice(0, 200)}`);
      else if (svc.hits[n]!.headers['api-key'] !== KEY) failures.push(`pay api GET ${path}: no key`);
    }

    // 2. ids given to verbs as arguments
    const VERBS: Array<{ args: (id: string) => string[]; prefix: string }> = [
      { args: (id) => ['customers', 'get', id], prefix: 'cus_' },
      { args: (id) => ['customers', 'update', id, '--email', 'a@example.com'], prefix: 'cus_' },
      { args: (id) => ['accounts', 'close', id], prefix: 'acc_' },
      { args: (id) => ['transfers', 'cancel', id], prefix: 'tr_' },
      { args: (id) => ['cards', 'freeze', id], prefix: 'card_' },
      { args: (id) => ['webhooks', 'resend', id], prefix: 'evt_' },
      { args: (id) => ['kyc', 'status', id], prefix: 'cus_' },
      { args: (id) => ['features', 'check', id, '--feature', 'cards'], prefix: 'cus_' },
      { args: (id) => ['transactions', 'list', '--account', id], prefix: 'acc_' },
    ];
    const idArb = fc
      .record({
        verb: fc.nat(VERBS.length - 1),
        valid: fc.boolean(),
        bits: fc.array(fc.oneof(fc.constantFrom(...BAD_ATOMS), fc.constantFrom(...SEPARATORS), fc.constantFrom(...PREFIXES)), {
          minLength: 1,
          maxLength: 3,
        }),
        where: fc.constantFrom('after', 'before', 'instead'),
      })
      .map(({ verb, valid, bits, where }) => {
        const v = VERBS[verb]!;
        const good = `${v.prefix}0123456789abcdefghijklmn`;
        const evil = withOther(bits.join(''));
        return {
          v,
          id: valid && where === 'instead' ? good : where === 'after' ? good + evil : where === 'before' ? evil + good : v.prefix + evil,
        };
      });
    const ids = fc.sample(idArb, { numRuns: count(16, 1000), seed: SEED + 1 });
    await pool(ids, PARALLEL, async ({ v, id }) => {
      const before = elsewhere.hits.length;
      const seen = svc.hits.length;
      const r = await pay([...v.args(id), '--json'], { env: envFor(svc.base) });
      if (elsewhere.hits.length !== before) leaked++;
      const valid = new RegExp(`^${v.prefix}[0-9a-z]{24}$`).test(id);
      if (r.code === 2) refused++;
      else sent++;
      if (!valid) {
        const bad = failedCleanly(r, 2);
        if (bad) failures.push(`pay ${v.args(JSON.stringify(id)).join(' ')}: ${bad}`);
      } else if (r.code !== 0) failures.push(`pay ${v.args(id).join(' ')}: exit ${r.code}: ${r.stderr.slice(0, 200)}`);
      void seen;
    });
    for (const h of svc.hits) if (!underBase(h)) failures.push(`the service received ${JSON.stringify(h.url)}`);

    // 3. what the server hands back: a next_cursor, a transfer id (one run at a time: see above)
    const links = fc.sample(
      fc.array(fc.oneof(fc.constantFrom(...BAD_ATOMS), fc.constantFrom(...PREFIXES), fc.constantFrom(...SEPARATORS)), {
        minLength: 1,
        maxLength: 4,
      }),
      {
        numRuns: count(5, 1000),
        seed: SEED + 2,
      },
    );
    for (const bits of links) {
      const evil = withOther(bits.join(''));
      const before = elsewhere.hits.length;
      const n = svc.hits.length;
      evilCursor = evil;
      const r = await pay(['customers', 'list', '--all', '-o', 'ndjson'], { env: envFor(svc.base) });
      evilCursor = undefined;
      const second = svc.hits[n + 1];
      if (
        r.code !== 0 ||
        !second ||
        new URL(second.url, 'http://x').searchParams.get('cursor') !== evil ||
        new URL(second.url, 'http://x').pathname !== '/v1/customers'
      ) {
        failures.push(
          `cursor ${JSON.stringify(evil)}: exit ${r.code}, second request ${JSON.stringify(second?.url)} ${r.stderr.slice(0, 200)}`,
        );
      }
      const tid = `tr_${evil}`;
      evilTransferId = tid;
      const m = svc.hits.length;
      const w = await pay(
        ['transfers', 'send', '--from', ACC, '--to', ACC2, '--amount', '1.00', '--currency', 'USD', '--wait', '--wait-timeout', '5'],
        { env: envFor(svc.base) },
      );
      evilTransferId = undefined;
      const bad = failedCleanly(w, 1);
      if (bad) failures.push(`transfer id ${JSON.stringify(tid)} --wait: ${bad}`);
      if (svc.hits.length !== m + 1) failures.push(`transfer id ${JSON.stringify(tid)}: ${svc.hits.length - m - 1} GETs followed it`);
      if (elsewhere.hits.length !== before) leaked++;
    }
    for (const h of svc.hits) if (!underBase(h)) failures.push(`the service received ${JSON.stringify(h.url)}`);
    await svc.close();

    const tried = many.length + rng.length + ids.length + links.length * 2;
    await record(
      'attack.origin',
      'paths, ids, cursors and links never take the key to another origin or outside /v1/',
      {
        tried,
        passed: tried - failures.length,
        lost: 0,
        duplicated: 0,
        leaked: leaked + elsewhere.hits.length,
        extra: {
          builder_variants: many.length,
          builder_refused: builderRefused,
          refused_exit_2: refused,
          sent_under_base: sent,
          hits_elsewhere: elsewhere.hits.length,
          seed: SEED,
        },
      },
      started,
    );
    expect(elsewhere.hits, 'requests that reached the second listener').toEqual([]);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 600_000);
});

// ---------------------------------------------------------------------------------------------
// Class 3: success means a 2xx with the JSON the operation promises

interface BadAnswer {
  name: string;
  /** Bad only where an object with an id (or that id) is expected; pay api accepts any JSON. */
  jsonKind: boolean;
  /** Bad only where a specific id or an id at all is expected. */
  idOnly?: boolean;
  send(res: ServerResponse, path: string): void;
}

function answers(otherBase: string): BadAnswer[] {
  const redirect = (status: number, to: (path: string) => string): BadAnswer => ({
    name: `${status} to ${to('/v1/x')}`,
    jsonKind: false,
    send: (res, path) => {
      res.writeHead(status, { location: to(path), 'content-type': 'text/html', 'content-length': '0' });
      res.end();
    },
  });
  const raw = (name: string, status: number, body: string, type?: string, jsonKind = false, idOnly = false): BadAnswer => ({
    name,
    jsonKind,
    idOnly,
    send: (res) => {
      res.writeHead(status, { ...(type ? { 'content-type': type } : {}), 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    },
  });
  return [
    ...[301, 302, 303, 307, 308].flatMap((s) => [
      redirect(s, (p) => `${otherBase.replace(/\/v1\/$/, '')}${p}`),
      redirect(s, () => 'https://captive.example/login'),
      redirect(s, (p) => p),
      redirect(s, () => `//127.0.0.1:${new URL(otherBase).port}/v1/x`),
    ]),
    raw('204 empty', 204, ''),
    raw('200 empty', 200, '', 'application/json'),
    raw('201 empty', 201, '', 'application/json'),
    raw('200 HTML portal', 200, '<!doctype html><html><body>Sign in to Wi-Fi</body></html>', 'text/html'),
    raw('200 text', 200, 'OK', 'text/plain'),
    raw('200 cut JSON', 200, '{"id":"cus_', 'application/json'),
    raw('200 array', 200, '[]', 'application/json', true),
    raw('200 array of one', 200, `[{"id":"${CUS}","object":"customer"}]`, 'application/json', true),
    raw('200 null', 200, 'null', 'application/json', true),
    raw('200 string', 200, '"ok"', 'application/json', true),
    raw('200 number', 200, '42', 'application/json', true),
    raw('200 true', 200, 'true', 'application/json', true),
    raw('200 id a number', 200, '{"id":7,"object":"customer"}', 'application/json', true),
    raw('200 object a number', 200, `{"id":"${CUS}","object":1}`, 'application/json', true),
    raw('200 no id', 200, '{"object":"customer"}', 'application/json', true, true),
    raw('200 {}', 200, '{}', 'application/json', true, true),
  ];
}

describe('attack.success-shape: success is a 2xx with the JSON the operation promises', () => {
  it('redirects, empty, non-JSON and wrong-kind answers are exit 1 with one error line; no redirect is followed', async () => {
    const started = Date.now();
    const bads = answers(elsewhere.base);
    type Case = { cmd: number; bad: number; format: number; onPoll: boolean };
    const FORMATS = [[], ['--json'], ['-o', 'tsv'], ['-o', 'json']];
    const CMDS: Array<{ args: string[]; kind: 'id' | 'resource' | 'any' | 'wait' }> = [
      { args: ['customers', 'get', CUS], kind: 'id' },
      { args: ['accounts', 'create', '--customer', CUS, '--currency', 'USD'], kind: 'resource' },
      { args: ['transfers', 'cancel', TR], kind: 'id' },
      { args: ['webhooks', 'resend', 'evt_0123456789abcdefghijklmn'], kind: 'id' },
      { args: ['kyc', 'status', CUS], kind: 'any' },
      { args: ['api', 'GET', `customers/${CUS}`], kind: 'any' },
      { args: ['api', 'POST', 'customers'], kind: 'any' },
      {
        args: ['transfers', 'send', '--from', ACC, '--to', ACC2, '--amount', '1.00', '--currency', 'USD', '--wait', '--wait-timeout', '10'],
        kind: 'wait',
      },
    ];
    const cases = fc
      .sample(
        fc.record({ cmd: fc.nat(CMDS.length - 1), bad: fc.nat(bads.length - 1), format: fc.nat(FORMATS.length - 1), onPoll: fc.boolean() }),
        { numRuns: count(20, 1000), seed: SEED + 3 },
      )
      .filter((c: Case) => {
        const kind = CMDS[c.cmd]!.kind;
        const bad = bads[c.bad]!;
        if (kind === 'any' && CMDS[c.cmd]!.args[0] === 'api') return !bad.jsonKind && bad.name !== '204 empty'; // pay api takes any JSON, and a 204's empty body
        if (kind === 'any') return !bad.idOnly; // kyc status: an object, no id promised
        return true;
      });
    const failures: string[] = [];
    let leaked = 0;
    await pool(cases, PARALLEL, async (c) => {
      const cmd = CMDS[c.cmd]!;
      const bad = bads[c.bad]!;
      const svc = await listen((req, res, _hit, hits) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        // transfers send --wait: the POST answers a pending transfer, then (onPoll) the GET is the bad one.
        if (cmd.kind === 'wait' && c.onPoll && req.method === 'POST')
          return json(res, 201, { id: TR, object: 'transfer', status: 'pending' });
        if (cmd.kind === 'wait' && c.onPoll && hits.length > 2) return json(res, 200, { id: TR, object: 'transfer', status: 'completed' });
        bad.send(res, path);
      });
      const args = cmd.args[0] === 'api' ? cmd.args : [...cmd.args, ...FORMATS[c.format]!];
      const before = elsewhere.hits.length;
      const r = await pay(args, { env: envFor(svc.base, { PAY_MAX_RETRIES: '0' }) });
      await svc.close();
      if (elsewhere.hits.length !== before) leaked++;
      const why = failedCleanly(r, 1);
      if (why) failures.push(`pay ${args.join(' ')} answered ${bad.name}${cmd.kind === 'wait' && c.onPoll ? ' on the poll' : ''}: ${why}`);
      if (/transfer undefined|was undefined/.test(r.stderr)) failures.push(`pay ${args.join(' ')}: ${r.stderr}`);
      const expectRequests = cmd.kind === 'wait' && c.onPoll ? 2 : 1;
      if (svc.hits.length !== expectRequests)
        failures.push(`pay ${args.join(' ')} answered ${bad.name}: ${svc.hits.length} requests, expected ${expectRequests}`);
    });
    await record(
      'attack.success-shape',
      'redirects, 204s, HTML and wrong-kind JSON are errors, never exit 0',
      {
        tried: cases.length,
        passed: cases.length - failures.length,
        lost: 0,
        duplicated: 0,
        leaked,
        extra: { redirects_followed: leaked, seed: SEED },
      },
      started,
    );
    expect(elsewhere.hits, 'a redirect was followed').toEqual([]);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 600_000);
});

// ---------------------------------------------------------------------------------------------
// Class 4: 409 idempotency_request_in_progress is waited out

describe('attack.in-progress: a request still in flight is waited out with the same key', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, settleAfterMs: 60_000 });
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it('k in-progress answers then the replay; twin bulk rows; a timed-out transfer at the emulator', async () => {
    const started = Date.now();
    const failures: string[] = [];
    let duplicated = 0;
    const CMDS = [
      ['transfers', 'send', '--from', ACC, '--to', ACC2, '--amount', '1.00', '--currency', 'USD', '--json'],
      ['accounts', 'create', '--customer', CUS, '--currency', 'USD', '--json'],
      ['api', 'POST', 'transfers', '-F', 'amount=1.00'],
    ];
    // What the service finally answers each command with: a create is answered with its own kind.
    const ANSWERS = [
      { id: TR, object: 'transfer', status: 'pending' },
      { id: ACC, object: 'account', status: 'active' },
      { id: TR, object: 'transfer', status: 'pending' },
    ];
    const cases = fc.sample(
      fc.record({
        k: fc.integer({ min: 1, max: 4 }),
        retries: fc.integer({ min: 0, max: 3 }),
        after: fc.constantFrom('0', '0.05', '0.2', '0'),
        cmd: fc.nat(CMDS.length - 1),
      }),
      { numRuns: count(8, 1000), seed: SEED + 4 },
    );
    await pool(cases, PARALLEL, async (c) => {
      const svc = await listen((_req, res, _hit, hits) => {
        if (hits.length <= c.k)
          return json(
            res,
            409,
            {
              code: 'idempotency_request_in_progress',
              status: 409,
              detail: 'a request with this Idempotency-Key is still being processed',
            },
            { 'retry-after': c.after },
          );
        json(res, 201, ANSWERS[c.cmd], { 'idempotent-replayed': 'true' });
      });
      const args = CMDS[c.cmd]!;
      const r = await pay(args, { env: envFor(svc.base, { PAY_MAX_RETRIES: String(c.retries) }) });
      await svc.close();
      const keys = new Set(svc.hits.map((h) => h.headers['idempotency-key']));
      const label = `k=${c.k} retries=${c.retries} Retry-After=${c.after} pay ${args.join(' ')}`;
      if (keys.size !== 1) failures.push(`${label}: ${keys.size} keys`);
      for (let i = 1; i < svc.hits.length; i++) {
        const gap = svc.hits[i]!.at - svc.hits[i - 1]!.at;
        if (gap < Number(c.after) * 1000 - 5) failures.push(`${label}: retry after ${gap.toFixed(0)} ms, Retry-After ${c.after} s`);
      }
      if (c.k <= c.retries) {
        if (r.code !== 0 || JSON.parse(r.stdout || '{}').id !== ANSWERS[c.cmd]!.id)
          failures.push(`${label}: exit ${r.code} ${r.stdout.slice(0, 100)} ${r.stderr.slice(0, 200)}`);
        if (svc.hits.length !== c.k + 1) failures.push(`${label}: ${svc.hits.length} requests`);
      } else {
        const why = failedCleanly(r, 5);
        if (why) failures.push(`${label}: ${why}`);
        const key = [...keys][0] as string;
        if (!r.stderr.includes(`--idempotency-key ${key}`)) failures.push(`${label}: the hint does not name the key ${key}: ${r.stderr}`);
        if (svc.hits.length !== c.retries + 1) failures.push(`${label}: ${svc.hits.length} requests`);
      }
    });

    // Two identical bulk rows in flight at once: one key; the first is held until its twin
    // arrives (answered 409 in progress), then both resolve to the one object.
    const twins = count(2, 50);
    for (let t = 0; t < twins; t++) {
      let created = 0;
      let release: (() => void) | undefined;
      const done = new Map<string, unknown>();
      const svc = await listen((req, res) => {
        const key = String(req.headers['idempotency-key']);
        if (done.has(key)) return json(res, 201, done.get(key), { 'idempotent-replayed': 'true' });
        if (release === undefined) {
          release = () => {
            created++;
            const obj = { id: `acc_${String(created).padStart(24, '0')}`, object: 'account' };
            done.set(key, obj);
            json(res, 201, obj);
          };
          return;
        }
        // The twin: the first completes now, the twin hears "in progress" and comes back.
        release();
        json(
          res,
          409,
          { code: 'idempotency_request_in_progress', status: 409, detail: 'still being processed' },
          { 'retry-after': t % 2 ? '0.05' : '0' },
        );
      });
      const root = tempRoot('attack-http-bulk');
      const file = join(root, 'rows.ndjson');
      const row = JSON.stringify({ customer_id: CUS, currency: 'USD', nickname: `twin ${t}` });
      writeFileSync(file, `${row}\n${row}\n`);
      const r = await pay(['accounts', 'create', '--from-file', file, '--concurrency', '2'], { env: envFor(svc.base) });
      await svc.close();
      const results = r.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { status: string; id?: string });
      if (created !== 1) duplicated += Math.max(0, created - 1);
      if (
        r.code !== 0 ||
        results.length !== 2 ||
        results.some((x) => x.status === 'failed') ||
        results[0]!.id !== results[1]!.id ||
        !results[0]!.id
      ) {
        failures.push(`twin rows: exit ${r.code}, results ${r.stdout.trim()} ${r.stderr.slice(0, 300)}`);
      }
    }

    // The real emulator: the first attempt times out while the emulator still works on it (its
    // key in flight), the retry hears 409 with Retry-After, and the next gets the replay.
    const api = async (method: string, path: string, body?: unknown): Promise<Record<string, any>> => {
      const res = await fetch(`${emu.baseUrl}${path}`, {
        method,
        headers: {
          'api-key': emu.keys.sandbox.secret,
          'content-type': 'application/json',
          ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as Record<string, any>;
    };
    const customer = await api('POST', 'customers', ADA_BODY_NO_STATE);
    const from = await api('POST', 'accounts', { customer_id: customer.id, currency: 'USD' });
    const to = await api('POST', 'accounts', { customer_id: customer.id, currency: 'USD' });
    await api('POST', `customers/${customer.id}/features/collections/activate`); // the business rules
    await api('POST', 'collections', { account_id: from.id, amount: '100.00', currency: 'USD', method: 'card' });
    emu.admin.advance(3600);
    const timedOut = count(1, 5);
    let inProgressSeen = 0;
    for (let i = 0; i < timedOut; i++) {
      emu.admin.setFaults({ latencyMs: [1500, 1500] });
      const seen = emu.received.length;
      const r = await pay(
        ['transfers', 'send', '--from', from.id, '--to', to.id, '--amount', '1.00', '--currency', 'USD', '--json', '--timeout', '1'],
        {
          env: cleanEnv({ PAY_API_KEY: emu.keys.sandbox.secret, PAY_BASE_URL: emu.baseUrl, PAY_CONFIG_DIR: configDir }),
        },
      );
      emu.admin.setFaults({ latencyMs: null });
      const posts = emu.received.slice(seen).filter((q) => q.method === 'POST');
      inProgressSeen += posts.length > 1 ? 1 : 0;
      const list = await api('GET', `transfers?account_id=${from.id}&limit=100`);
      const sent = JSON.parse(r.stdout || '{}') as { id?: string };
      if (r.code !== 0 || !sent.id) failures.push(`timed-out transfer ${i}: exit ${r.code} ${r.stderr.slice(0, 300)}`);
      if (list.data.length !== i + 1) {
        duplicated += Math.max(0, list.data.length - (i + 1));
        failures.push(`timed-out transfer ${i}: ${list.data.length} transfers, expected ${i + 1}`);
      }
      if (sent.id && list.data[0]?.id !== sent.id)
        failures.push(`timed-out transfer ${i}: printed ${sent.id}, created ${list.data[0]?.id}`);
    }
    const tried = cases.length + twins + timedOut;
    await record(
      'attack.in-progress',
      '409 in progress waited out with the same key; twins and timed-out sends resolve to one object',
      {
        tried,
        passed: tried - failures.length,
        lost: 0,
        duplicated,
        leaked: 0,
        extra: { emulator_retries_seen: inProgressSeen, seed: SEED },
      },
      started,
    );
    expect(failures.slice(0, 20)).toEqual([]);
  }, 600_000);
});

// ---------------------------------------------------------------------------------------------
// Class 5: bounded answers

function vmHwm(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const HEAD = '{"object":"blob","pad":"';
const TAIL = '"}';
/** A JSON object of exactly `size` bytes (size ≥ 32). */
function bodyOf(size: number): string {
  return HEAD + 'x'.repeat(size - HEAD.length - TAIL.length) + TAIL;
}

describe('attack.bounded: answers are bounded', () => {
  it('bodies around the cap, huge and endless bodies with bounded memory, cursors that loop', async () => {
    const started = Date.now();
    const failures: string[] = [];

    // 1. Bodies around a generated cap: exit 0 exactly when the body fits.
    const sizes = fc.sample(
      fc.record({
        cap: fc.integer({ min: 1024, max: 256 * 1024 }),
        delta: fc.oneof(fc.constantFrom(-1, 0, 1, 2), fc.integer({ min: -1000, max: 100_000 })),
        length: fc.boolean(),
        status: fc.constantFrom(200, 200, 500, 422),
        via: fc.constantFrom('flag', 'env', 'flag-units'),
        chunk: fc.integer({ min: 1, max: 70_000 }),
      }),
      { numRuns: count(8, 1000), seed: SEED + 5 },
    );
    await pool(sizes, PARALLEL, async (c) => {
      const size = Math.max(64, c.cap + c.delta);
      const text = bodyOf(size);
      const svc = await listen(async (_req, res) => {
        res.writeHead(c.status, { 'content-type': 'application/json', ...(c.length ? { 'content-length': String(size) } : {}) });
        for (let at = 0; at < size; at += c.chunk) {
          if (!res.write(text.slice(at, at + c.chunk))) await new Promise<void>((r) => res.once('drain', r));
          if (res.destroyed) return;
        }
        res.end();
      });
      const cap = c.via === 'flag-units' && c.cap % 1024 === 0 ? `${c.cap / 1024}KiB` : String(c.cap);
      const args = c.via === 'env' ? ['api', 'GET', 'blobs'] : ['--max-response-bytes', cap, 'api', 'GET', 'blobs'];
      const env = envFor(svc.base, { PAY_MAX_RETRIES: '0', ...(c.via === 'env' ? { PAY_MAX_RESPONSE_BYTES: cap } : {}) });
      const r = await pay(args, { env });
      await svc.close();
      const label = `${c.status} of ${size} bytes (${c.length ? 'with' : 'without'} Content-Length) under a cap of ${cap} via ${c.via}`;
      if (size > c.cap) {
        const why = failedCleanly(r, 1);
        if (why || !/larger than/.test(r.stderr)) failures.push(`${label}: ${why ?? r.stderr}`);
      } else if (c.status === 200) {
        if (r.code !== 0 || JSON.parse(r.stdout || '{}').pad?.length !== size - HEAD.length - TAIL.length)
          failures.push(`${label}: exit ${r.code} ${r.stderr.slice(0, 200)}`);
      } else if (r.code !== (c.status === 500 ? 6 : 1) || /larger than/.test(r.stderr))
        failures.push(`${label}: exit ${r.code} ${r.stderr.slice(0, 200)}`);
    });

    // 2. A 400 MiB body and an endless one at the default cap (32 MiB): cut off, memory bounded.
    const HUGE = 400 * MiB;
    const huge: Array<{ name: string; args: string[]; length: boolean; endless: boolean; status: number }> = [
      { name: '400 MiB list, chunked', args: ['customers', 'list', '--all', '-o', 'ndjson'], length: false, endless: false, status: 200 },
      { name: '400 MiB object with Content-Length', args: ['customers', 'get', CUS, '--json'], length: true, endless: false, status: 200 },
      { name: 'endless error body', args: ['api', 'GET', 'customers'], length: false, endless: true, status: 503 },
    ];
    let peak = 0;
    const sentBytes: number[] = [];
    for (const h of huge) {
      let pid = 0;
      let hwm = 0;
      let sent = 0;
      const chunk = Buffer.alloc(MiB, 0x61);
      const svc = await listen(async (_req, res) => {
        res.writeHead(h.status, { 'content-type': 'application/json', ...(h.length ? { 'content-length': String(HUGE) } : {}) });
        res.write('{"object":"list","data":[],"pad":"');
        while (h.endless || sent < HUGE) {
          if (res.destroyed || !res.writable) break;
          const ok = res.write(chunk);
          sent += chunk.length;
          hwm = Math.max(hwm, vmHwm(pid) ?? 0);
          if (!ok) {
            const drained = await new Promise<boolean>((r) => {
              res.once('drain', () => r(true));
              res.once('close', () => r(false));
            });
            if (!drained) break;
          }
        }
        if (!res.destroyed) res.end('"}');
      });
      const child = spawnPay(h.args, envFor(svc.base, { PAY_MAX_RETRIES: '0' }));
      pid = child.child.pid!;
      const code = await child.closed;
      await svc.close();
      peak = Math.max(peak, hwm);
      sentBytes.push(sent);
      const label = `${h.name}: pay ${h.args.join(' ')}`;
      if (code !== 1 || child.out() !== '' || !/larger than 32 MiB/.test(child.err()))
        failures.push(`${label}: exit ${code} ${child.err().slice(0, 300)}`);
      if (hwm > 200 * MiB) failures.push(`${label}: pay's peak memory ${Math.round(hwm / MiB)} MiB`);
      if (sent >= HUGE && !h.endless) failures.push(`${label}: pay read the whole body`);
    }

    // 3. Cursors that repeat or do not advance: exit 1 after a bounded number of pages.
    const loops = fc.sample(
      fc.record({
        pages: fc.integer({ min: 1, max: 6 }),
        how: fc.constantFrom('repeat', 'same', 'empty', 'no-cursor'),
        back: fc.nat(5),
        cmd: fc.nat(2),
      }),
      { numRuns: count(8, 1000), seed: SEED + 6 },
    );
    await pool(loops, PARALLEL, async (c) => {
      // Pages 1..pages answer cursors c1..c_pages; then the bad page.
      const svc = await listen((req, res) => {
        const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
        const n = cursor === null ? 1 : Number(cursor.slice(1)) + 1;
        const items = [
          { id: `cus_${String(n * 2).padStart(24, '0')}`, object: 'customer' },
          { id: `cus_${String(n * 2 + 1).padStart(24, '0')}`, object: 'customer' },
        ];
        if (n <= c.pages) return json(res, 200, { object: 'list', data: items, has_more: true, next_cursor: `c${n}` });
        const previous = `c${Math.max(1, n - 1 - (c.back % (n - 1)))}`;
        if (c.how === 'repeat') return json(res, 200, { object: 'list', data: items, has_more: true, next_cursor: previous });
        if (c.how === 'same') return json(res, 200, { object: 'list', data: items, has_more: true, next_cursor: cursor });
        // An empty page whose cursor moves on is followed (test/reliability/attack-pages.test.ts); one that repeats it is a loop.
        if (c.how === 'empty') return json(res, 200, { object: 'list', data: [], has_more: true, next_cursor: cursor });
        return json(res, 200, { object: 'list', data: items, has_more: true, next_cursor: null });
      });
      const args = [
        ['customers', 'list', '--all', '-o', 'ndjson'],
        ['api', 'GET', 'customers', '--paginate'],
        ['transactions', 'list', '--all', '--json'],
      ][c.cmd]!;
      const r = await pay(args, { env: envFor(svc.base) });
      await svc.close();
      const label = `${c.how} after ${c.pages} pages: pay ${args.join(' ')}`;
      if (
        r.code !== 1 ||
        !/^(error: |\{"error")/.test(r.stderr) ||
        !/cursor_loop|does not advance|broke the list contract/.test(r.stderr) ||
        stackTrace(r.stderr)
      )
        failures.push(`${label}: exit ${r.code} ${r.stderr.slice(0, 200)}`);
      if (svc.hits.length !== c.pages + 1) failures.push(`${label}: ${svc.hits.length} requests, expected ${c.pages + 1}`);
      if (c.cmd === 0) {
        const lines = r.stdout.split('\n').filter(Boolean).length;
        const expected = (c.pages + (c.how === 'empty' ? 0 : 1)) * 2;
        if (lines !== expected) failures.push(`${label}: ${lines} lines on stdout, expected ${expected}`);
      }
    });

    // 4. A bad cap is a usage error.
    for (const bad of ['0', '12', 'lots', '-5', '1.5MiB', '2GiB', '32 PiB']) {
      const r = await pay(['--max-response-bytes', bad, 'api', 'GET', 'customers'], { env: envFor(elsewhere.base) });
      const why = failedCleanly(r, 2);
      if (why) failures.push(`--max-response-bytes ${bad}: ${why}`);
      const e = await pay(['api', 'GET', 'customers'], { env: envFor(elsewhere.base, { PAY_MAX_RESPONSE_BYTES: bad }) });
      const whyEnv = failedCleanly(e, 2);
      if (whyEnv || !e.stderr.includes('PAY_MAX_RESPONSE_BYTES')) failures.push(`PAY_MAX_RESPONSE_BYTES=${bad}: ${whyEnv ?? e.stderr}`);
    }

    const tried = sizes.length + huge.length + loops.length + 14;
    await record(
      'attack.bounded',
      'bodies over the cap refused while streaming, memory bounded; looping cursors end --all',
      {
        tried,
        passed: tried - failures.length,
        lost: 0,
        duplicated: 0,
        leaked: 0,
        extra: { peak_vmhwm_mib: Math.round(peak / MiB), max_sent_mib: Math.round(Math.max(...sentBytes) / MiB), seed: SEED },
      },
      started,
    );
    expect(elsewhere.hits, 'nothing reaches the second listener').toEqual([]);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 600_000);
});
