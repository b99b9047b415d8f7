// Shared by the per-group e2e tests: one in-process emulator per test file (loopback, port 0),
// the built bin/pay.js run against it with a clean environment, parsers for the four output
// formats, and fixtures made with plain HTTP (fast; the command under test is always run as pay).
//
// Time: the emulator settles pending things (transfers, collections, KYC reviews, physical cards)
// SETTLE_S seconds of emulator time after they start. Tests never sleep for that: `await w.settle()`
// moves the emulator clock (admin.advance), which runs everything due at once. Real time is far
// from SETTLE_S (10 min), so "pending" states stay put however slow the machine is.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions, type ReceivedRequest } from '../../../src/emulator/index.js';
import { FEATURES } from '../../../src/shared/rules.js';
import { cleanEnv, registerSecret, runPay, tempDir, type PayResult, type PayRunOptions } from '../../helpers/run-pay.js';

export type { Emulator, PayResult, ReceivedRequest };

export const SETTLE_S = 600;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ID = (prefix: string): RegExp => new RegExp(`^${prefix}[0-9a-z]{24}$`);
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The table view of a time: `2026-11-23 09:36:21Z`. */
export const TABLE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/;
/** Every column of `pay transactions list` as a table (--wide, or a terminal wide enough), in order. */
export const TRANSACTION_HEADERS: readonly string[] = [
  'ID',
  'ACCOUNT',
  'WALLET',
  'TYPE',
  'DIRECTION',
  'AMOUNT',
  'BALANCE AFTER',
  'STATUS',
  'SOURCE',
  'CREATED',
  'DESCRIPTION',
];

// API bodies are read field by field in the tests.

export type Obj = Record<string, any>;

export interface World {
  emu: Emulator;
  env: Record<string, string>;
  /** Runs bin/pay.js against this emulator (extra env merged over the world's; undefined removes). */
  pay(args: string[], opts?: { env?: Record<string, string | undefined>; stdin?: string; timeoutMs?: number }): Promise<PayResult>;
  /** A raw API call (fixtures): throws unless 2xx. */
  api(method: string, path: string, body?: unknown): Promise<Obj>;
  /** A raw API call that returns status and body whatever they are. */
  raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: Obj }>;
  /**
   * Moves the emulator clock SETTLE_S (or `seconds`) forward: everything due has settled when it
   * resolves (with a webhook URL set, the advance waits for the deliveries on its way).
   */
  settle(seconds?: number): Promise<void>;
  /** Requests the emulator received since `mark` (an index from `w.mark()`), optionally filtered. */
  since(mark: number, method?: string, path?: string | RegExp): ReceivedRequest[];
  mark(): number;
  stop(): Promise<void>;
}

export async function startWorld(opts: EmulatorOptions = {}): Promise<World> {
  const emu = await startEmulator({ port: 0, host: '127.0.0.1', settleAfterMs: SETTLE_S * 1000, ...opts });
  registerSecret(emu.keys.sandbox.secret, emu.keys.live.secret, emu.webhookSecrets.sandbox, emu.webhookSecrets.live);
  const env = cleanEnv({
    PAY_BASE_URL: emu.baseUrl,
    PAY_API_KEY: emu.keys.sandbox.secret,
    PAY_TENANT_ID: emu.tenantId,
    PAY_CONFIG_DIR: tempDir('pay-groups-cfg-'),
  });
  // `received` keeps the last 1000 requests and drops from the front: count what was dropped
  // so marks stay valid (nothing here sends that many).
  let total = 0;
  const push = emu.received.push.bind(emu.received);
  emu.received.push = (...items: ReceivedRequest[]) => {
    total += items.length;
    return push(...items);
  };
  const raw = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { accept: 'application/json', 'api-key': emu.keys.sandbox.secret, 'x-tenant-id': emu.tenantId };
    if (method === 'POST') headers['idempotency-key'] = randomUUID();
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(emu.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Obj };
  };
  const w: World = {
    emu,
    env,
    pay: (args, o = {}) => {
      const run: PayRunOptions = { env: { ...env, ...o.env } };
      for (const [k, v] of Object.entries(o.env ?? {})) if (v === undefined) delete run.env![k];
      if (o.stdin !== undefined) run.stdin = o.stdin;
      if (o.timeoutMs !== undefined) run.timeoutMs = o.timeoutMs;
      return runPay(args, run);
    },
    raw,
    api: async (method, path, body) => {
      const r = await raw(method, path, body);
      if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path} → ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body;
    },
    settle: (seconds = SETTLE_S) => {
      emu.admin.advance(seconds);
      return emu.admin.advanced();
    },
    mark: () => total,
    since: (mark, method, path) => {
      const dropped = total - emu.received.length;
      return emu.received
        .slice(Math.max(0, mark - dropped))
        .filter((r) => (!method || r.method === method) && (!path || (typeof path === 'string' ? r.path === path : path.test(r.path))));
    },
    stop: () => emu.stop(),
  };
  return w;
}

// ---------------------------------------------------------------- outcomes and formats

/** Exit 0, nothing on stderr; the stdout. */
export function ok(r: PayResult): string {
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return r.stdout;
}

/** Exit 0, nothing on stderr, stdout one JSON document. */
export function json(r: PayResult): Obj {
  const out = ok(r);
  expect(out.endsWith('\n')).toBe(true);
  return JSON.parse(out) as Obj;
}

/** Exit 0, nothing on stderr, stdout one JSON object per line (each line parses alone). */
export function ndjson(r: PayResult): Obj[] {
  const out = ok(r);
  if (out === '') return [];
  expect(out.endsWith('\n')).toBe(true);
  return out
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as Obj);
}

/** Exit 0, nothing on stderr, tsv: a header line then one record per line, every line as wide as the header. */
export function tsv(r: PayResult): { header: string[]; rows: Record<string, string>[] } {
  const out = ok(r);
  expect(out.endsWith('\n')).toBe(true);
  const [head, ...lines] = out.slice(0, -1).split('\n');
  const header = head!.split('\t');
  const rows = lines.map((l) => {
    const cells = l.split('\t');
    expect(cells, `tsv line ${JSON.stringify(l)}`).toHaveLength(header.length);
    return Object.fromEntries(header.map((h, i) => [h, cells[i]!]));
  });
  return { header, rows };
}

/**
 * Exit 0, nothing on stderr, a list table (-o table): the header row (cells split on 2+ spaces)
 * and, per row, its cells. Cells in these tests never contain two spaces in a row.
 */
export function table(r: PayResult): { header: string[]; rows: string[][]; text: string } {
  const out = ok(r);
  expect(out.endsWith('\n')).toBe(true);
  expect(out).not.toMatch(/\x1b\[/); // not a terminal: no colour
  const [head, ...lines] = out.slice(0, -1).split('\n');
  const split = (l: string) => l.trimEnd().split(/ {2,}/);
  return { header: split(head!), rows: lines.map(split), text: out };
}

/** Exit 0, nothing on stderr, the key/value view of one object (-o table off a terminal): key → shown value. */
export function keyValues(r: PayResult): Map<string, string> {
  const out = ok(r);
  expect(out).not.toMatch(/\x1b\[/);
  const kv = new Map<string, string>();
  for (const line of out.split('\n')) {
    if (line.trim() === '') break; // sub-tables follow a blank line
    const m = /^(\S+) {2,}(.*?)\s*$/.exec(line);
    expect(m, `key/value line ${JSON.stringify(line)}`).not.toBeNull();
    kv.set(m![1]!, m![2]!);
  }
  return kv;
}

/**
 * An API error on stderr (exit `exit`, nothing on stdout): `error: HTTP <status> <code>: …`
 * naming the request id, and for a POST the idempotency key. Returns the first stderr line.
 */
export function apiError(r: PayResult, exit: number, status: number, code: string, post = false): string {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: exit, stdout: '' });
  const first = r.stderr.split('\n')[0]!;
  expect(first).toMatch(
    new RegExp(`^error: HTTP ${status} ${code}: .+ \\(request req_[0-9a-z]+${post ? ', idempotency key [0-9a-f-]{36}' : ''}\\)$`),
  );
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return first;
}

/** The --json form of an error: stdout empty, stderr one {"error": {...}} object. */
export function jsonError(r: PayResult, exit: number): Obj {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: exit, stdout: '' });
  const e = JSON.parse(r.stderr) as { error: Obj };
  expect(e.error.exit_code).toBe(exit);
  return e.error;
}

/** A usage error: exit 2, one `error:` line (plus maybe a hint), nothing on stdout. */
export function usageError(r: PayResult, message: RegExp): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
  expect(r.stderr.split('\n')[0]).toMatch(message);
  expect(r.stderr).toMatch(/^error: /);
}

/** Every POST carried a fresh-looking Idempotency-Key, JSON content type, and the key and tenant headers. */
export function expectContractHeaders(reqs: ReceivedRequest[], emu: Emulator): void {
  expect(reqs.length).toBeGreaterThan(0);
  for (const r of reqs) {
    expect(r.headers['api-key'], `${r.method} ${r.path}`).toBe(emu.keys.sandbox.secret);
    expect(r.headers['x-tenant-id'], `${r.method} ${r.path}`).toBe(emu.tenantId);
    expect(r.headers['user-agent']).toMatch(/^pay-cli\/\d+\.\d+\.\d+/);
    if (r.method === 'POST') {
      expect(r.headers['idempotency-key'], `${r.method} ${r.path}`).toMatch(UUID);
      expect(r.headers['content-type']).toBe('application/json');
    }
  }
}

// ---------------------------------------------------------------- fixtures (raw HTTP)

let n = 0;
export function customerBody(extra: Obj = {}): Obj {
  n++;
  return {
    first_name: 'Ada',
    last_name: `Lovelace${n}`,
    email: `ada${n}.${Date.now()}@example.com`,
    phone: '+447700900123',
    type: 'individual',
    date_of_birth: '1990-12-10',
    address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA', state: 'GB-LND' },
    ...extra,
  };
}

export async function customer(w: World, extra: Obj = {}): Promise<string> {
  return (await w.api('POST', 'customers', customerBody(extra))).id as string;
}

export async function account(w: World, customerId: string, currency = 'USD'): Promise<string> {
  return (await w.api('POST', 'accounts', { customer_id: customerId, currency })).id as string;
}

/**
 * A collection into the account; settled at once (moves the clock). The business rules need the
 * collections feature active for the account's holder: it is activated first (a no-op when it is).
 */
export async function fund(w: World, accountId: string, amount: string, currency = 'USD'): Promise<string> {
  const holder = (await w.api('GET', `accounts/${accountId}`)).customer_id as string;
  await w.api('POST', `customers/${holder}/features/collections/activate`);
  const col = await w.api('POST', 'collections', { account_id: accountId, amount, currency, method: 'card' });
  await w.settle();
  return col.id as string;
}

/** KYC started, a document sent, review settled: approved. */
export async function approveKyc(w: World, customerId: string): Promise<void> {
  await w.api('POST', `customers/${customerId}/kyc`, { level: 'basic' });
  await w.api('POST', `customers/${customerId}/kyc/documents`, { type: 'passport', country: 'GB', number: '123456789' });
  await w.settle();
  expect((await w.api('GET', `customers/${customerId}/kyc`)).status).toBe('approved');
}

/** The features a customer gets from enable(): every one. */
const ALL_FEATURES = FEATURES.map((f) => f.key);

/**
 * What the business rules need before a customer can do everything (or the features named): KYC
 * approved (moves the clock) and the features active.
 */
export async function enable(w: World, customerId: string, features: readonly string[] = ALL_FEATURES): Promise<void> {
  await approveKyc(w, customerId);
  for (const f of features) await w.api('POST', `customers/${customerId}/features/${f}/activate`);
}

/** A customer the business rules let do everything: KYC approved, every feature active. */
export async function enabledCustomer(w: World, extra: Obj = {}): Promise<string> {
  const id = await customer(w, extra);
  await enable(w, id);
  return id;
}

// Waits: one until() for the whole suite (test/helpers/wait.ts).
export { until } from '../../helpers/wait.js';
