// Outside attack on `--from-file` bulk runs: interrupted, cut off, edited between runs, refused.
// A gate (a loopback HTTP server in front of an in-process emulator) counts the POSTs each run
// sends and holds answers on command, so every moment is reached by a condition, never a sleep:
// - interrupt: SIGINT/SIGTERM once the gate has answered N rows and holds the rows in flight;
//   either they are let through within the grace (written as they are) or the grace runs out
//   (written as interrupted with their key; the gate then forwards them late, earlier, or never).
//   No row may be sent after the signal, exit 130, and a --resume run completes the file with
//   each customer created exactly once.
// - epipe: the reader closes stdout after k lines: no row sent after that, exit 1, summary on
//   stderr; --resume from the k lines kept sends exactly the rest, each customer once.
// - resume: the file edited between runs (rows inserted, moved, deleted), the first results cut
//   short (a torn last line): --resume sends exactly the rows not done, recognised by content.
// - retry: transfers refused for insufficient funds, the account topped up (in part, then in
//   full), --resume until done: refused rows go out under a new key, every transfer exactly once,
//   and the hints name --resume rather than the same command (which would replay the refusal).
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, count, pay, pool, record, registerSecret, secretsOf, spawnPay, stackTrace, tempRoot, type Spawned } from './helpers.js';
import { until } from '../helpers/wait.js';

const PARALLEL = 2;
const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUN = randomBytes(3).toString('hex');
const LONG = 120_000;

let emu: Emulator;
let root: string;

beforeAll(async () => {
  root = tempRoot('attack-bulk');
  emu = await startEmulator({ port: 0, settleAfterMs: 0 });
  registerSecret(...secretsOf(emu));
});
afterAll(async () => {
  await emu?.stop();
});

// ---------------------------------------------------------------------------------------------
// The emulator, straight

async function api(tenant: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'api-key': emu.keys.sandbox.secret, 'x-tenant-id': tenant, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method === 'POST') headers['idempotency-key'] = `att-${randomBytes(8).toString('hex')}`;
  const res = await fetch(emu.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function listAll(tenant: string, path: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const r = await api(tenant, 'GET', `${path}?${q.toString()}`);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    cursor = r.body.next_cursor;
  }
}

// ---------------------------------------------------------------------------------------------
// The gate: forwards to the emulator, counts POSTs, holds answers on command

type Policy = 'pass' | 'hold' | 'hold-forwarded';

interface Held {
  email: string;
  key: string;
  /** Sends the request to the emulator (once) without answering pay. */
  forward(): Promise<void>;
  /** Forwards if not yet, then answers pay. */
  release(): Promise<void>;
}

interface Gate {
  baseUrl: string;
  posts: Array<{ email: string; key: string; body: any }>;
  held: Held[];
  close(): Promise<void>;
}

/** `policy`: what to do with the POST that arrived `index`-th, carrying `email` (its row's identity). */
async function startGate(policy: (index: number, email: string) => Policy): Promise<Gate> {
  const posts: Gate['posts'] = [];
  const held: Held[] = [];
  const forwardOf = async (req: IncomingMessage, body: string) => {
    const headers: Record<string, string> = {};
    for (const h of ['api-key', 'x-tenant-id', 'idempotency-key', 'content-type', 'accept']) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    const res = await fetch(`${emu.url}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
    const out: Record<string, string> = { 'content-type': res.headers.get('content-type') ?? 'application/json' };
    for (const h of ['idempotent-replayed', 'request-id', 'retry-after']) {
      const v = res.headers.get(h);
      if (v !== null) out[h] = v;
    }
    return { status: res.status, headers: out, text: await res.text() };
  };
  const answer = (res: ServerResponse, a: { status: number; headers: Record<string, string>; text: string }) => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(a.status, a.headers);
    res.end(a.text);
  };
  const server: Server = createServer((req, res) => {
    res.on('error', () => {});
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      if (req.method !== 'POST')
        return void forwardOf(req, body).then(
          (a) => answer(res, a),
          () => res.destroy(),
        );
      const json = JSON.parse(body);
      const key = String(req.headers['idempotency-key']);
      const index = posts.length;
      posts.push({ email: String(json.email ?? json.reference), key, body: json });
      const p = policy(index, String(json.email ?? json.reference));
      if (p === 'pass')
        return void forwardOf(req, body).then(
          (a) => answer(res, a),
          () => res.destroy(),
        );
      let forwarded: Promise<Awaited<ReturnType<typeof forwardOf>>> | undefined;
      const forward = () => (forwarded ??= forwardOf(req, body));
      if (p === 'hold-forwarded') void forward();
      held.push({
        email: String(json.email ?? json.reference),
        key,
        forward: async () => void (await forward()),
        release: async () => answer(res, await forward()),
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1/`,
    posts,
    held,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Rows, runs, results

interface Customer {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  type: string;
  date_of_birth: string;
  address: { address_line1: string; city: string; country: string; postal_code: string; state: string };
}

function customer(tag: string, i: number): Customer {
  return {
    first_name: `Att${i}`,
    last_name: 'Bulk',
    email: `${tag}-${i}@bulk.example.com`,
    phone: `+1415${String(2000000 + i)}`,
    type: 'individual',
    date_of_birth: '1990-01-01',
    address: { address_line1: `${i} Market St`, city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
  };
}

type Format = 'ndjson' | 'csv' | 'json';
const CSV_COLUMNS = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'type',
  'date_of_birth',
  'address.address_line1',
  'address.city',
  'address.country',
  'address.postal_code',
  'address.state',
];

/** The file's text, and the line (NDJSON, CSV) or element (JSON) number of each row. */
function fileOf(rows: Customer[], format: Format): { text: string; lineOf: (i: number) => number } {
  if (format === 'ndjson') return { text: rows.map((r) => `${JSON.stringify(r)}\n`).join(''), lineOf: (i) => i + 1 };
  if (format === 'json') return { text: `[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`, lineOf: (i) => i + 1 };
  const cell = (r: Customer, c: string) => c.split('.').reduce<any>((o, k) => o[k], r) as string;
  return {
    text: `${CSV_COLUMNS.join(',')}\n${rows.map((r) => `${CSV_COLUMNS.map((c) => cell(r, c)).join(',')}\n`).join('')}`,
    lineOf: (i) => i + 2,
  };
}

interface Result {
  line: number;
  id?: string;
  status: string;
  error?: string;
  code?: string;
  refused?: boolean;
  replayed?: boolean;
  idempotency_key?: string;
  attempt?: number;
}

function results(stdout: string): Result[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Result);
}

function envFor(tenant: string, baseUrl: string, more: Record<string, string> = {}): Record<string, string> {
  return cleanEnv({
    PAY_CONFIG_DIR: join(root, 'config'),
    PAY_BASE_URL: baseUrl,
    PAY_API_KEY: emu.keys.sandbox.secret,
    PAY_TENANT_ID: tenant,
    PAY_MAX_RETRIES: '2',
    ...more,
  });
}

/** Each e-mail's number of customers in the tenant: what was lost and what was duplicated. */
async function tally(tenant: string, emails: string[]): Promise<{ lost: number; duplicated: number; problems: string[] }> {
  const stored = (await listAll(tenant, 'customers')).map((c) => c.email as string);
  const n = new Map<string, number>();
  for (const e of stored) n.set(e, (n.get(e) ?? 0) + 1);
  const lost = emails.filter((e) => !n.has(e));
  const duplicated = [...n.values()].reduce((s, k) => s + Math.max(0, k - 1), 0);
  const extra = stored.filter((e) => !emails.includes(e));
  const problems = [
    ...(lost.length ? [`lost ${lost.join(', ')}`] : []),
    ...(duplicated ? [`${duplicated} duplicated`] : []),
    ...(extra.length ? [`unexpected ${extra.join(', ')}`] : []),
  ];
  return { lost: lost.length, duplicated, problems };
}

function checkStderr(what: string, stderr: string, problems: string[]): void {
  const stack = stackTrace(stderr);
  if (stack) problems.push(`${what}: a stack trace (${stack})`);
  if (!/^customers create: \d+ rows?: |^transfers send: \d+ rows?: /m.test(stderr))
    problems.push(`${what}: no summary on stderr: ${stderr.trim().slice(-400)}`);
}

async function finished(p: Spawned, what: string): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([p.closed, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), LONG)))]);
  clearTimeout(timer);
  if (code === 'timeout') {
    p.child.kill('SIGKILL');
    throw new Error(`${what}: pay did not exit: ${p.err().slice(-500)}`);
  }
  return code;
}

// ---------------------------------------------------------------------------------------------

describe('attack: bulk runs interrupted, cut off, edited, refused', () => {
  it(`SIGINT/SIGTERM/SIGHUP at generated moments: no row after the signal, each row a result or resumable, each customer once (seed ${SEED})`, async () => {
    const started = Date.now();
    const N = count(3, 1000);
    const cases = fc.sample(
      fc.record({
        rows: fc.integer({ min: 2, max: 12 }),
        conc: fc.integer({ min: 1, max: 4 }),
        answered: fc.nat(),
        grace: fc.constantFrom('finish', 'expire'),
        late: fc.constantFrom('forwarded', 'late', 'never'),
        signal: fc.constantFrom<NodeJS.Signals>('SIGINT', 'SIGTERM', 'SIGHUP'),
      }),
      { numRuns: N, seed: SEED },
    );
    const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    let lost = 0;
    let duplicated = 0;
    let leaked = 0;
    let interrupted = 0;
    let reordered = 0;
    const failures: string[] = [];
    const outcomes = await pool(cases, PARALLEL, async (c0, i) => {
      // Each stop signal at least once, however few the cases (a closed terminal's SIGHUP among them).
      const signal = i < STOP_SIGNALS.length ? STOP_SIGNALS[i]! : c0.signal;
      const c = { ...c0, signal, answered: c0.answered % c0.rows };
      const what = `case ${i} ${JSON.stringify(c)}`;
      const problems: string[] = [];
      const tenant = `int-${RUN}-${i}`;
      const dir = join(root, tenant);
      mkdirSync(dir);
      const rows = Array.from({ length: c.rows }, (_, k) => customer(tenant, k));
      const file = join(dir, 'rows.ndjson');
      writeFileSync(file, fileOf(rows, 'ndjson').text);
      const expire = c.grace === 'expire';
      // Which rows are answered is decided by the row a POST carries, not by the order POSTs arrive
      // in: rows in flight together reach the gate in any order (one socket each), and the checks
      // below name rows by their place in the file (a later row arriving first was answered in
      // place of an earlier one: "row 7: created, not interrupted" under load).
      const gate = await startGate((_, email) =>
        rows.findIndex((r) => r.email === email) < c.answered ? 'pass' : expire && c.late === 'forwarded' ? 'hold-forwarded' : 'hold',
      );
      try {
        const p = spawnPay(
          ['customers', 'create', '--from-file', file, '--concurrency', String(c.conc)],
          envFor(tenant, gate.baseUrl, { PAY_BULK_GRACE_MS: expire ? '100' : '600000' }),
        );
        const inFlight = Math.min(c.conc, c.rows - c.answered);
        let exited = false;
        void p.closed.then(() => (exited = true));
        // The signal comes once the answered rows' results are out and the rest are held in flight.
        const lines = () => p.out().split('\n').length - 1;
        await until(
          `${what}: ${c.answered} results and ${inFlight} rows held`,
          () => (gate.held.length === inFlight && lines() >= c.answered) || exited,
        );
        if (exited) throw new Error(`${what}: pay exited early: ${p.err()}`);
        p.child.kill(c.signal);
        await until(`${what}: pay to stop`, () => /starting no new row/.test(p.err()) || exited);
        if (!expire) for (const h of gate.held) await h.release();
        const code = await finished(p, what);
        if (code !== 130) problems.push(`exit ${code}, not 130: ${p.err().trim().slice(-300)}`);
        checkStderr('interrupted run', p.err(), problems);
        if (!/^error: interrupted/m.test(p.err())) problems.push(`no "interrupted" error: ${p.err().trim().slice(-300)}`);
        if (gate.posts.length !== c.answered + inFlight)
          problems.push(`${gate.posts.length} rows sent, not ${c.answered + inFlight}: a row went out after the signal`);
        const r1 = results(p.out());
        const byLine = new Map(r1.map((r) => [r.line, r]));
        if (r1.length !== byLine.size) problems.push('a row has two results');
        for (let k = 0; k < c.answered + inFlight; k++) {
          const r = byLine.get(k + 1);
          const heldRow = k >= c.answered;
          const want = heldRow && expire ? 'interrupted' : 'created';
          if (r?.status !== want) problems.push(`row ${k + 1}: ${JSON.stringify(r)}, not ${want}`);
          const sent = gate.posts.find((q) => q.email === rows[k]!.email);
          if (r && r.idempotency_key !== sent?.key)
            problems.push(`row ${k + 1}: key ${r.idempotency_key} is not the key sent (${sent?.key})`);
        }
        for (const r of r1) if (r.line > c.answered + inFlight) problems.push(`a result for row ${r.line}, which was never sent`);
        interrupted += r1.filter((r) => r.status === 'interrupted').length;
        const order = gate.posts.map((q) => rows.findIndex((r) => r.email === q.email));
        if (order.some((k, j) => j > 0 && k < order[j - 1]!)) reordered++;
        // Rows given up on reach the service late, or never.
        if (expire && c.late === 'late') for (const h of gate.held) await h.forward();
        if (expire && c.late === 'forwarded') for (const h of gate.held) await h.forward();
        const resumeFile = join(dir, 'r1.ndjson');
        writeFileSync(resumeFile, p.out());
        const again = await pay(['customers', 'create', '--from-file', file, '--concurrency', String(c.conc), '--resume', resumeFile], {
          env: envFor(tenant, emu.baseUrl),
          timeoutMs: LONG,
        });
        leaked += again.leaks.length;
        if (again.code !== 0) problems.push(`--resume exit ${again.code}: ${again.stderr.trim().slice(-300)}`);
        const r2 = results(again.stdout);
        for (let k = 0; k < c.rows; k++) {
          const r = r2.find((x) => x.line === k + 1);
          const done = byLine.get(k + 1)?.status === 'created';
          const reached = expire && c.late !== 'never' && k >= c.answered && k < c.answered + inFlight;
          const want = done ? 'skipped' : reached ? 'replayed' : 'created';
          if (r?.status !== want) problems.push(`--resume row ${k + 1}: ${JSON.stringify(r)}, not ${want}`);
        }
        const t = await tally(
          tenant,
          rows.map((r) => r.email),
        );
        lost += t.lost;
        duplicated += t.duplicated;
        problems.push(...t.problems);
      } finally {
        await gate.close();
      }
      if (problems.length) failures.push(`${what}:\n  ${problems.join('\n  ')}`);
      return problems.length === 0;
    });
    await record(
      'attack.bulk-interrupt',
      'bulk run interrupted by SIGINT/SIGTERM, then --resume',
      {
        tried: N,
        passed: outcomes.filter(Boolean).length,
        lost,
        duplicated,
        leaked,
        extra: { interrupted_rows: interrupted, arrived_out_of_order: reordered },
      },
      started,
    );
    expect(failures.slice(0, 5).join('\n')).toBe('');
  }, 900_000);

  it(`stdout closed after k lines: no row sent after it, exit 1, --resume sends exactly the rest (seed ${SEED})`, async () => {
    const started = Date.now();
    const N = count(3, 1000);
    const cases = fc.sample(fc.record({ rows: fc.integer({ min: 1, max: 20 }), conc: fc.integer({ min: 1, max: 4 }), k: fc.nat() }), {
      numRuns: N,
      seed: SEED + 1,
    });
    let lost = 0;
    let duplicated = 0;
    let leaked = 0;
    let unwritten = 0;
    const failures: string[] = [];
    const outcomes = await pool(cases, PARALLEL, async (c0, i) => {
      const c = { ...c0, k: c0.k % c0.rows };
      const what = `case ${i} ${JSON.stringify(c)}`;
      const problems: string[] = [];
      const tenant = `pipe-${RUN}-${i}`;
      const dir = join(root, tenant);
      mkdirSync(dir);
      const rows = Array.from({ length: c.rows }, (_, j) => customer(tenant, j));
      const file = join(dir, 'rows.ndjson');
      writeFileSync(file, fileOf(rows, 'ndjson').text);
      const gate = await startGate((idx) => (idx < c.k ? 'pass' : 'hold'));
      try {
        const p = spawnPay(['customers', 'create', '--from-file', file, '--concurrency', String(c.conc)], envFor(tenant, gate.baseUrl));
        let text = '';
        p.child.stdout.on('data', (d: string) => (text += d));
        const lines = () => text.split('\n').length - 1;
        const inFlight = Math.min(c.conc, c.rows - c.k);
        let exited = false;
        void p.closed.then(() => (exited = true));
        await until(`${what}: ${c.k} lines and ${inFlight} rows held`, () => (lines() >= c.k && gate.held.length === inFlight) || exited);
        if (exited) throw new Error(`${what}: pay exited early: ${p.err()}`);
        const kept = text
          .split('\n')
          .slice(0, c.k)
          .map((l) => `${l}\n`)
          .join('');
        const pipeClosed = new Promise((r) => p.child.stdout.once('close', r));
        p.child.stdout.destroy();
        await pipeClosed;
        const sentBefore = gate.posts.length;
        for (const h of gate.held) await h.release();
        const code = await finished(p, what);
        if (code !== 1) problems.push(`exit ${code}, not 1: ${p.err().trim().slice(-300)}`);
        checkStderr('cut-off run', p.err(), problems);
        if (!/^error: stdout was closed: \d+ results? could not be written/m.test(p.err()))
          problems.push(`no "stdout was closed" error: ${p.err().trim().slice(-300)}`);
        unwritten += Number(/(\d+) results? could not be written/.exec(p.err())?.[1] ?? 0);
        if (gate.posts.length !== sentBefore) problems.push(`${gate.posts.length - sentBefore} rows sent after stdout was closed`);
        const keptResults = results(kept);
        const keptEmails = new Set(keptResults.map((r) => rows[r.line - 1]!.email));
        const resumeFile = join(dir, 'kept.ndjson');
        writeFileSync(resumeFile, kept);
        const gate2 = await startGate(() => 'pass');
        try {
          const again = await pay(['customers', 'create', '--from-file', file, '--concurrency', String(c.conc), '--resume', resumeFile], {
            env: envFor(tenant, gate2.baseUrl),
            timeoutMs: LONG,
          });
          leaked += again.leaks.length;
          if (again.code !== 0) problems.push(`--resume exit ${again.code}: ${again.stderr.trim().slice(-300)}`);
          const want = rows
            .map((r) => r.email)
            .filter((e) => !keptEmails.has(e))
            .sort();
          const sent = gate2.posts.map((q) => q.email).sort();
          if (JSON.stringify(sent) !== JSON.stringify(want))
            problems.push(`--resume sent ${JSON.stringify(sent)}, not ${JSON.stringify(want)}`);
        } finally {
          await gate2.close();
        }
        const t = await tally(
          tenant,
          rows.map((r) => r.email),
        );
        lost += t.lost;
        duplicated += t.duplicated;
        problems.push(...t.problems);
      } finally {
        await gate.close();
      }
      if (problems.length) failures.push(`${what}:\n  ${problems.join('\n  ')}`);
      return problems.length === 0;
    });
    await record(
      'attack.bulk-epipe',
      'bulk run whose stdout closes after k lines, then --resume',
      { tried: N, passed: outcomes.filter(Boolean).length, lost, duplicated, leaked, extra: { results_not_written: unwritten } },
      started,
    );
    expect(failures.slice(0, 5).join('\n')).toBe('');
  }, 900_000);

  it(`files edited between runs (rows inserted, moved, deleted; results cut short): --resume sends exactly the rows not done (seed ${SEED})`, async () => {
    const started = Date.now();
    const N = count(5, 1000);
    const cases = fc.sample(
      fc.record({
        format: fc.constantFrom<Format>('ndjson', 'csv', 'json'),
        first: fc.integer({ min: 1, max: 10 }),
        // v2: which rows of v1 stay, how many new ones, and an order for all of them
        keep: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        added: fc.integer({ min: 0, max: 4 }),
        order: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 14, maxLength: 14 }),
        // how much of the first run's results survives, and whether a torn line follows
        kept: fc.nat(),
        torn: fc.boolean(),
      }),
      { numRuns: N, seed: SEED + 2 },
    );
    let lost = 0;
    let duplicated = 0;
    let leaked = 0;
    let skipped = 0;
    const failures: string[] = [];
    const outcomes = await pool(cases, PARALLEL, async (c, i) => {
      const what = `case ${i} ${JSON.stringify(c)}`;
      const problems: string[] = [];
      const tenant = `res-${RUN}-${i}`;
      const dir = join(root, tenant);
      mkdirSync(dir);
      const v1 = Array.from({ length: c.first }, (_, j) => customer(tenant, j));
      const fresh = Array.from({ length: c.added }, (_, j) => customer(tenant, 100 + j));
      const v2 = [...v1.filter((_, j) => c.keep[j]), ...fresh]
        .map((r, j) => ({ r, o: c.order[j]! }))
        .sort((a, b) => a.o - b.o)
        .map((x) => x.r);
      const f1 = join(dir, `v1.${c.format}`);
      const f2 = join(dir, `v2.${c.format}`);
      writeFileSync(f1, fileOf(v1, c.format).text);
      const layout2 = fileOf(v2, c.format);
      writeFileSync(f2, layout2.text);
      const args = (f: string) => ['customers', 'create', '--from-file', f, '--batch-id', 'attack-batch', '--concurrency', '3'];

      const first = await pay(args(f1), { env: envFor(tenant, emu.baseUrl), timeoutMs: LONG });
      leaked += first.leaks.length;
      if (first.code !== 0) problems.push(`first run exit ${first.code}: ${first.stderr.trim().slice(-300)}`);
      const lines1 = first.stdout.split('\n').filter(Boolean);
      const keepLines = c.kept % (lines1.length + 1);
      const done = new Set(results(lines1.slice(0, keepLines).join('\n')).map((r) => v1[r.line - 1 - (c.format === 'csv' ? 1 : 0)]!.email));
      const torn = c.torn && keepLines < lines1.length ? lines1[keepLines]!.slice(0, Math.floor(lines1[keepLines]!.length / 2)) : '';
      const resumeFile = join(dir, 'r1.ndjson');
      writeFileSync(
        resumeFile,
        `${lines1
          .slice(0, keepLines)
          .map((l) => `${l}\n`)
          .join('')}${torn}`,
      );

      const gate = await startGate(() => 'pass');
      try {
        const second = await pay([...args(f2), '--resume', resumeFile], { env: envFor(tenant, gate.baseUrl), timeoutMs: LONG });
        leaked += second.leaks.length;
        if (second.code !== 0) problems.push(`--resume exit ${second.code}: ${second.stderr.trim().slice(-300)}`);
        const want = v2
          .map((r) => r.email)
          .filter((e) => !done.has(e))
          .sort();
        const sent = gate.posts.map((q) => q.email).sort();
        if (JSON.stringify(sent) !== JSON.stringify(want))
          problems.push(`--resume sent ${JSON.stringify(sent)}, not ${JSON.stringify(want)}`);
        const r2 = results(second.stdout);
        if (r2.length !== v2.length) problems.push(`${r2.length} results for ${v2.length} rows`);
        v2.forEach((row, j) => {
          const r = r2.find((x) => x.line === layout2.lineOf(j));
          const was = v1.includes(row);
          const want2 = done.has(row.email) ? 'skipped' : was ? 'replayed' : 'created';
          if (r?.status !== want2) problems.push(`v2 row ${j + 1} (${row.email}): ${JSON.stringify(r)}, not ${want2}`);
        });
        skipped += r2.filter((r) => r.status === 'skipped').length;
      } finally {
        await gate.close();
      }
      const all = [...new Set([...v1, ...v2].map((r) => r.email))];
      const t = await tally(tenant, all);
      lost += t.lost;
      duplicated += t.duplicated;
      problems.push(...t.problems);
      if (problems.length) failures.push(`${what}:\n  ${problems.join('\n  ')}`);
      return problems.length === 0;
    });
    await record(
      'attack.bulk-resume',
      'bulk file edited between runs, then --resume',
      { tried: N, passed: outcomes.filter(Boolean).length, lost, duplicated, leaked, extra: { rows_recognised_done: skipped } },
      started,
    );
    expect(failures.slice(0, 5).join('\n')).toBe('');
  }, 900_000);

  it(`transfers refused (insufficient funds), account topped up, --resume: each transfer exactly once under a new key (seed ${SEED})`, async () => {
    const started = Date.now();
    const N = count(3, 1000);
    const cases = fc.sample(
      fc.record({
        amounts: fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 2, maxLength: 6 }),
        funded: fc.nat(),
        plainRerun: fc.boolean(),
        partial: fc.boolean(),
        conc: fc.integer({ min: 1, max: 3 }),
      }),
      { numRuns: N, seed: SEED + 3 },
    );
    let lost = 0;
    let duplicated = 0;
    let leaked = 0;
    let refusedRetried = 0;
    const failures: string[] = [];
    const outcomes = await pool(cases, PARALLEL, async (c, i) => {
      const what = `case ${i} ${JSON.stringify(c)}`;
      const problems: string[] = [];
      const tenant = `ret-${RUN}-${i}`;
      const dir = join(root, tenant);
      mkdirSync(dir);
      const total = c.amounts.reduce((a, b) => a + b, 0);
      // Less than the whole file needs, so at least one row is refused.
      const funding = c.funded % total;
      const cus = await api(tenant, 'POST', 'customers', { ...customer(tenant, 0), type: 'business' });
      await api(tenant, 'POST', `customers/${cus.body.id}/features/collections/activate`); // the business rules
      const from = (await api(tenant, 'POST', 'accounts', { customer_id: cus.body.id, currency: 'USD' })).body.id as string;
      const to = (await api(tenant, 'POST', 'accounts', { customer_id: cus.body.id, currency: 'USD', type: 'savings' })).body.id as string;
      const available = async () => Number((await api(tenant, 'GET', `accounts/${from}`)).body.balance.available);
      let balance = 0;
      const topUp = async (dollars: number) => {
        if (dollars <= 0) return;
        const was = await available();
        const col = await api(tenant, 'POST', 'collections', {
          account_id: from,
          amount: `${dollars}.00`,
          currency: 'USD',
          method: 'bank_transfer',
        });
        if (col.status !== 201) throw new Error(`${what}: collection ${col.status} ${JSON.stringify(col.body)}`);
        balance += dollars;
        // Settles at once (settleAfterMs 0), on the emulator's next request: poll until it shows.
        await until(`${what}: the balance to reach ${was + dollars}`, async () => (await available()) === was + dollars);
      };
      await topUp(funding);
      const refs = c.amounts.map((_, j) => `ref-${tenant}-${j}`);
      const file = join(dir, 'transfers.ndjson');
      writeFileSync(
        file,
        c.amounts
          .map(
            (a, j) =>
              `${JSON.stringify({ source_account_id: from, destination_id: to, amount: `${a}.00`, currency: 'USD', reference: refs[j] })}\n`,
          )
          .join(''),
      );
      const resultsFile = join(dir, 'results.ndjson');
      writeFileSync(resultsFile, '');
      const args = ['transfers', 'send', '--from-file', file, '--concurrency', String(c.conc)];
      const env = envFor(tenant, emu.baseUrl);
      const transfers = async () => (await listAll(tenant, 'transfers')).map((t) => t.reference as string);

      const first = await pay(args, { env, timeoutMs: LONG });
      leaked += first.leaks.length;
      appendFileSync(resultsFile, first.stdout);
      const r1 = results(first.stdout);
      const refused1 = r1.filter((r) => r.refused);
      if (first.code !== 1 || refused1.length === 0)
        problems.push(`first run: exit ${first.code} with ${refused1.length} refused: ${first.stderr.trim().slice(-300)}`);
      for (const r of refused1) {
        if (r.status !== 'failed' || r.code !== 'insufficient_funds' || !r.idempotency_key)
          problems.push(`refused row ${JSON.stringify(r)}`);
      }
      for (const r of r1) if (r.status !== 'created' && !r.refused) problems.push(`row neither created nor refused: ${JSON.stringify(r)}`);
      checkStderr('first run', first.stderr, problems);
      const hint1 = /^hint: (.*)$/m.exec(first.stderr)?.[1] ?? '';
      if (!/--resume/.test(hint1) || !/new key/.test(hint1) || /run the same command again/.test(hint1))
        problems.push(`hint does not say --resume sends refused rows with a new key: ${hint1}`);
      const createdFirst = (await transfers()).length;

      if (c.plainRerun) {
        // The same command again, no --resume: the same keys, so the service replays the refusals.
        const plain = await pay(args, { env, timeoutMs: LONG });
        leaked += plain.leaks.length;
        appendFileSync(resultsFile, plain.stdout);
        const rp = results(plain.stdout);
        if (plain.code !== 1 || rp.filter((r) => r.refused).length !== refused1.length)
          problems.push(`plain re-run: exit ${plain.code}, ${rp.filter((r) => r.refused).length} refused, not ${refused1.length}`);
        if ((await transfers()).length !== createdFirst) problems.push('a plain re-run created transfers');
      }

      let rounds = 0;
      let last = first;
      while (last.code !== 0 && rounds < 4) {
        rounds++;
        const before = results(readFileSync(resultsFile, 'utf8'));
        const isDone = (line: number) =>
          before.some((x) => x.line === line && (x.status === 'created' || x.status === 'replayed' || x.status === 'skipped'));
        const owed = c.amounts.reduce((sum, a, j) => sum + (isDone(j + 1) ? 0 : a), 0);
        const need = Math.max(0, owed - (await available()));
        // Partial top-ups first (some rows refused again: their next attempt), then what is missing.
        await topUp(c.partial && rounds < 3 ? Math.ceil(need / 2) : need);
        last = await pay([...args, '--resume', resultsFile], { env, timeoutMs: LONG });
        leaked += last.leaks.length;
        appendFileSync(resultsFile, last.stdout);
        for (const r of results(last.stdout)) {
          const refusals = before.filter((x) => x.line === r.line && x.refused);
          if (r.status === 'skipped' || refusals.length === 0) continue;
          const next = Math.max(...refusals.map((x) => x.attempt ?? 1)) + 1;
          if (r.attempt !== next || r.idempotency_key !== `${refusals[0]!.idempotency_key!.replace(/_\d+$/, '')}_${next}`) {
            problems.push(`round ${rounds}: refused row ${r.line} not sent as attempt ${next} under its key: ${JSON.stringify(r)}`);
          }
          if (r.status === 'created') refusedRetried++;
        }
        if (last.code !== 0) {
          const hint = /^hint: (.*)$/m.exec(last.stderr)?.[1] ?? '';
          if (!/--resume/.test(hint)) problems.push(`round ${rounds}: hint without --resume: ${hint}`);
        }
      }
      if (last.code !== 0) problems.push(`not done after ${rounds} rounds: ${last.stderr.trim().slice(-300)}`);
      const stored = await transfers();
      const n = new Map<string, number>();
      for (const r of stored) n.set(r, (n.get(r) ?? 0) + 1);
      const missing = refs.filter((r) => !n.has(r));
      const twice = [...n.values()].reduce((s, k) => s + Math.max(0, k - 1), 0);
      lost += missing.length;
      duplicated += twice;
      if (missing.length) problems.push(`transfers missing: ${missing.join(', ')}`);
      if (twice) problems.push(`${twice} transfers stored twice`);
      if (stored.length !== refs.length) problems.push(`${stored.length} transfers, not ${refs.length}`);
      const left = await available();
      if (left !== balance - total) problems.push(`balance ${left}, not ${balance - total}`);
      if (problems.length) failures.push(`${what}:\n  ${problems.join('\n  ')}`);
      return problems.length === 0;
    });
    await record(
      'attack.bulk-retry',
      'bulk rows refused, account topped up, --resume',
      { tried: N, passed: outcomes.filter(Boolean).length, lost, duplicated, leaked, extra: { refused_rows_sent_again: refusedRetried } },
      started,
    );
    expect(failures.slice(0, 5).join('\n')).toBe('');
  }, 900_000);
});
