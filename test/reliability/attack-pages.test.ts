// Hostile and odd page sequences (issue 25 item 3, issue 24 item 5): a small fake service answers
// generated sequences of list pages (random sizes, empty pages with has_more: true whose cursor
// moves on, the last page) and, in some, one broken page: has_more: true with next_cursor null,
// absent or empty, the same cursor again, or a cursor given before. The API client (in process)
// must yield exactly the items of the pages it read, in order, follow every empty page, and end a
// broken sequence with the one `cursor_loop` error naming the service's fault, after the items
// before it. The built pay then runs a sample of the sequences through every output format of a
// list verb and of `pay api --paginate`: stdout holds every item read (nothing printed for a
// non-empty answer is a failure), exit 0 for a whole list, exit 1 with one error line for a broken one.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { PayError } from '../../src/lib/errors.js';

import { cleanEnv, count, pay, pool, record, stackTrace, tempRoot } from './helpers.js';

const SEED = Number(process.env.PAY_FUZZ_SEED ?? 2511);
const KEY = 'sk_test_pages0123456789abcdef';

type Fault = 'null' | 'missing' | 'empty-string' | 'same' | 'repeat';
interface Case {
  sizes: number[];
  fault: { at: number; how: Fault; back: number } | undefined;
  limit: number | undefined;
}

interface Page {
  ids: string[];
  body: Record<string, unknown>;
}

const idOf = (page: number, j: number): string => `cus_${String(page * 10 + j).padStart(24, '0')}`;

/** The pages of a case: page k answers cursor c_k (page 0 no cursor); the fault page's envelope is broken. */
function pagesOf(c: Case): { pages: Page[]; faultAt: number | undefined } {
  const n = c.sizes.length;
  const faultAt = c.fault ? c.fault.at % n : undefined;
  const pages = c.sizes.map((size, k) => {
    const ids = Array.from({ length: size }, (_, j) => idOf(k, j));
    const body: Record<string, unknown> = {
      object: 'list',
      data: ids.map((id) => ({ id, object: 'customer', first_name: `F${id.slice(-4)}`, created_at: '2026-01-01T00:00:00.000Z' })),
      has_more: k < n - 1,
      next_cursor: k < n - 1 ? `c${k + 1}` : null,
    };
    if (k === faultAt) {
      let how = c.fault!.how;
      // On the first page no cursor was given before: it can only lack one.
      if (k === 0 && (how === 'same' || how === 'repeat')) how = 'null';
      body.has_more = true;
      if (how === 'null') body.next_cursor = null;
      else if (how === 'missing') delete body.next_cursor;
      else if (how === 'empty-string') body.next_cursor = '';
      else if (how === 'same') body.next_cursor = `c${k}`;
      else body.next_cursor = `c${1 + (c.fault!.back % k)}`;
    }
    return { ids, body };
  });
  return { pages, faultAt };
}

/** What the client must yield and whether it must fail: the pages read until the limit is met, the list ends or the fault. */
function expected(c: Case): { ids: string[]; requests: number; fails: boolean } {
  const { pages, faultAt } = pagesOf(c);
  let remaining = c.limit ?? Infinity;
  const ids: string[] = [];
  for (let k = 0; k < pages.length; k++) {
    const take = pages[k]!.ids.slice(0, remaining);
    ids.push(...take);
    remaining -= take.length;
    if (remaining <= 0) return { ids, requests: k + 1, fails: false };
    if (k === faultAt) return { ids, requests: k + 1, fails: true };
  }
  return { ids, requests: pages.length, fails: false };
}

const cases = fc.record({
  sizes: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 4 })), { minLength: 1, maxLength: 9 }),
  fault: fc.option(
    fc.record({ at: fc.nat(), how: fc.constantFrom<Fault>('null', 'missing', 'empty-string', 'same', 'repeat'), back: fc.nat() }),
    { nil: undefined, freq: 2 },
  ),
  limit: fc.option(fc.integer({ min: 1, max: 25 }), { nil: undefined, freq: 3 }),
});

/** One fake service for every case: the case is named by the tenant header, the page by the cursor. */
let server: Server;
let base: string;
const served = new Map<string, { pages: Page[]; hits: number }>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const state = served.get(String(req.headers['x-tenant-id']));
    const cursor = url.searchParams.get('cursor');
    const k = cursor === null ? 0 : Number(cursor.slice(1));
    const page = state?.pages[k];
    if (!state || !page || !url.pathname.endsWith('/customers') || (cursor !== null && !/^c\d+$/.test(cursor))) {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ status: 404, code: 'not_found', title: 'Not found' }));
      return;
    }
    state.hits++;
    const text = JSON.stringify(page.body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function client(tenant: string): ApiClient {
  return new ApiClient({ baseUrl: base, apiKey: KEY, tenant, userAgent: 't', timeoutMs: 10_000, maxRetries: 0, credentialLabel: 'test' });
}

describe('page sequences against a fake service', () => {
  it(`the client yields every item of every page it reads, follows empty pages, and names a broken one (seed ${SEED})`, async () => {
    const started = Date.now();
    const sample = fc.sample(cases, { numRuns: count(300, 5000), seed: SEED });
    const failures: string[] = [];
    const failed = new Set<string | number>();
    let lost = 0;
    let duplicated = 0;
    let emptyFollowed = 0;
    let broken = 0;
    for (const [i, c] of sample.entries()) {
      const fail = (m: string): void => {
        failures.push(m);
        failed.add(i);
      };
      const tenant = `biz_in_${i}`;
      const { pages } = pagesOf(c);
      served.set(tenant, { pages, hits: 0 });
      const want = expected(c);
      const got: string[] = [];
      let error: unknown;
      try {
        for await (const page of client(tenant).pages<{ id: string }>('customers', {}, c.limit ? { limit: c.limit } : { all: true })) {
          if (page.length === 0) fail(`case ${i}: an empty page was yielded`);
          got.push(...page.map((x) => x.id));
        }
      } catch (err) {
        error = err;
      }
      const hits = served.get(tenant)!.hits;
      served.delete(tenant);
      const what = `case ${i} ${JSON.stringify(c)}`;
      lost += want.ids.filter((id) => !got.includes(id)).length;
      duplicated += got.length - new Set(got).size;
      if (JSON.stringify(got) !== JSON.stringify(want.ids)) fail(`${what}: yielded ${got.length} items, expected ${want.ids.length}`);
      if (hits !== want.requests) fail(`${what}: ${hits} requests, expected ${want.requests}`);
      if (want.fails) {
        broken++;
        const e = error as PayError | undefined;
        if (
          !(e instanceof PayError) ||
          e.code !== 'cursor_loop' ||
          e.exitCode !== 1 ||
          !/the service broke the list contract/.test(e.message)
        )
          fail(`${what}: expected the cursor_loop error, got ${(error as Error | undefined)?.message ?? 'none'}`);
        else if (e.message.includes('\n')) fail(`${what}: the error is more than one line`);
      } else if (error) fail(`${what}: ${(error as Error).message}`);
      emptyFollowed += pages.slice(0, want.requests - 1).filter((p) => p.ids.length === 0).length;
    }
    await record(
      'attack.page-sequences',
      'list page sequences: random sizes, empty pages with has_more, broken cursors (client)',
      {
        tried: sample.length,
        passed: sample.length - failed.size,
        lost,
        duplicated,
        leaked: 0,
        extra: { empty_pages_followed: emptyFollowed, broken },
      },
      started,
    );
    expect(emptyFollowed).toBeGreaterThan(0);
    expect(broken).toBeGreaterThan(0);
    expect(failures.slice(0, 5).join('\n')).toBe('');
  }, 120_000);

  it(`pay prints every item read in every format of a list verb and of api --paginate, exit 1 on a broken list (seed ${SEED + 1})`, async () => {
    const started = Date.now();
    // Every case has items; half are broken after them.
    const sample = fc.sample(
      cases.filter((c) => expected({ ...c, limit: undefined }).ids.length > 0),
      { numRuns: count(6, 60), seed: SEED + 1 },
    );
    const formats: string[][] = [
      ['customers', 'list', '--all', '-o', 'table'],
      ['customers', 'list', '--all', '-o', 'tsv'],
      ['customers', 'list', '--all', '-o', 'csv'],
      ['customers', 'list', '--all', '-o', 'json'],
      ['customers', 'list', '--all', '-o', 'ndjson'],
      ['customers', 'list', '--all', '--jq', '.[].id'],
      ['api', 'GET', 'customers', '--paginate'],
      ['api', 'GET', 'customers', '--paginate', '-o', 'ndjson'],
      ['api', 'GET', 'customers', '--paginate', '--jq', '.[].id'],
    ];
    const runs = sample.flatMap((c, i) => formats.map((args, j) => ({ c: { ...c, limit: undefined }, i, j, args })));
    const configDir = tempRoot('pages-cfg');
    const failures: string[] = [];
    const failed = new Set<string | number>();
    let lost = 0;
    await pool(runs, 4, async ({ c, i, j, args }) => {
      const fail = (m: string): void => {
        failures.push(m);
        failed.add(`${i}/${j}`);
      };
      const tenant = `biz_pay_${i}_${j}`;
      served.set(tenant, { pages: pagesOf(c).pages, hits: 0 });
      const want = expected(c);
      const env = cleanEnv({
        PAY_API_KEY: KEY,
        PAY_TENANT_ID: tenant,
        PAY_BASE_URL: base,
        PAY_CONFIG_DIR: configDir,
        PAY_MAX_RETRIES: '0',
      });
      const r = await pay(args, { env });
      served.delete(tenant);
      const what = `case ${i} ${JSON.stringify(c)}: pay ${args.join(' ')}`;
      // With --jq the filter sees the whole list: a broken one prints nothing (nothing was complete to filter).
      const printed = want.fails && args.includes('--jq') ? [] : want.ids;
      const missing = printed.filter((id) => !r.stdout.includes(id));
      lost += missing.length;
      if (missing.length > 0) fail(`${what}: ${missing.length} of ${printed.length} items missing from stdout: ${r.stdout.slice(0, 200)}`);
      if (
        r.stdout !== '' &&
        r.stdout
          .replace(/\r?\n$/, '')
          .split(/\r?\n/)
          .some((l) => l.trim() === '')
      )
        fail(`${what}: an empty line on stdout`);
      if (r.code !== (want.fails ? 1 : 0)) fail(`${what}: exit ${r.code}: ${r.stderr.slice(0, 200)}`);
      if (want.fails && !/broke the list contract|does not advance/.test(r.stderr)) fail(`${what}: stderr ${r.stderr.slice(0, 200)}`);
      if (
        want.fails &&
        r.stderr
          .trimEnd()
          .split('\n')
          .filter((l) => l.startsWith('error:') || l.startsWith('{"error"')).length !== 1
      )
        fail(`${what}: not one error: ${r.stderr.slice(0, 300)}`);
      if (stackTrace(r.stderr)) fail(`${what}: a stack trace`);
    });
    await record(
      'attack.page-sequences-print',
      'list page sequences through every output format of a list verb and api --paginate',
      { tried: runs.length, passed: runs.length - failed.size, lost, duplicated: 0, leaked: 0 },
      started,
    );
    expect(failures.slice(0, 5).join('\n')).toBe('');
  }, 600_000);
});
