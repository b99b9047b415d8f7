// Shared by the emulator tests: start an emulator on a free loopback port, and a tiny raw-HTTP
// client (fetch) that adds the key, tenant and a fresh Idempotency-Key unless told otherwise.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { FEATURES } from '../../src/shared/rules.js';

export type { Emulator };

export function start(opts: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ port: 0, host: '127.0.0.1', settleAfterMs: 60_000, ...opts });
}

const made: string[] = [];

/** A fresh folder under the OS temp dir; removeTempDirs() deletes every one made so far. */
export function tempDir(prefix = 'pay-emu-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Res {
  status: number;
  /** Parsed JSON (tests read arbitrary fields of API bodies, hence any). */
  body: any;
  headers: Headers;
}

export interface CallOptions {
  key?: string | null;
  tenant?: string | null;
  /** Idempotency-Key: a fresh UUID on POST by default; null sends none. */
  idem?: string | null;
  headers?: Record<string, string>;
  /** A raw body (sent as is). */
  raw?: string;
}

export type Api = (method: string, path: string, body?: unknown, o?: CallOptions) => Promise<Res>;

/** A client for one emulator; `defaults` apply to every call (per-call options win). */
export function client(emu: Emulator, defaults: CallOptions = {}): Api {
  return async (method, path, body, o = {}) => {
    const opt = { ...defaults, ...o };
    const headers: Record<string, string> = { accept: 'application/json', ...opt.headers };
    const key = opt.key === undefined ? emu.keys.sandbox.secret : opt.key;
    if (key !== null) headers['api-key'] = key;
    if (opt.tenant) headers['x-tenant-id'] = opt.tenant;
    if (method === 'POST' && opt.idem !== null) headers['idempotency-key'] = opt.idem ?? randomUUID();
    let payload: string | undefined = opt.raw;
    if (payload === undefined && body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    const res = await fetch(emu.baseUrl + path.replace(/^\//, ''), { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: keep the text.
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
}

export function customerBody(i = 0): Record<string, unknown> {
  return {
    first_name: 'Ada',
    last_name: `Lovelace${i}`,
    email: `ada${i}@example.com`,
    phone: '+447700900123',
    type: 'individual',
    gender: 'female',
    date_of_birth: '1990-12-10',
    address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA', state: 'GB-LND' },
  };
}

/** Admin route call (no key). */
export async function admin(emu: Emulator, method: string, path: string, body?: unknown): Promise<Res> {
  const res = await fetch(`${emu.url}/__emulator/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/**
 * What the business rules (src/shared/rules.ts) need before a customer can do everything: KYC
 * started with a document that passes, and the features that need no approval activated. Once the
 * clock has moved past the review (settleAfterMs), finish with activateApproved().
 */
export async function verifyAndActivate(api: Api, customer: string): Promise<void> {
  await api('POST', `customers/${customer}/kyc`, { level: 'basic' });
  await api('POST', `customers/${customer}/kyc/documents`, { type: 'passport', country: 'GB', number: '123456789' });
  for (const f of FEATURES) if (f.kyc === 'not_rejected') await api('POST', `customers/${customer}/features/${f.key}/activate`);
}

/** The features that need KYC approved, once it is (after the clock moved past the review). */
export async function activateApproved(api: Api, customer: string): Promise<void> {
  for (const f of FEATURES) {
    if (f.kyc !== 'approved') continue;
    const r = await api('POST', `customers/${customer}/features/${f.key}/activate`);
    if (r.status !== 200) throw new Error(`activating ${f.key} for ${customer}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

/** A customer the rules let do everything: KYC approved (the clock moves past the review) and every feature active. */
export async function enabledCustomer(emu: Emulator, api: Api, i = 0): Promise<string> {
  const customer = (await api('POST', 'customers', customerBody(i))).body.id as string;
  await verifyAndActivate(api, customer);
  emu.admin.advance(120);
  await activateApproved(api, customer);
  return customer;
}

/**
 * A customer the rules let do everything (KYC approved, every feature active) and one funded
 * account per currency (collections settled by moving the clock).
 */
export async function fundedAccounts(
  emu: Emulator,
  api: Api,
  funds: Record<string, string>,
): Promise<{ customer: string; accounts: Record<string, string> }> {
  const customer = (await api('POST', 'customers', customerBody())).body.id as string;
  await verifyAndActivate(api, customer);
  const accounts: Record<string, string> = {};
  for (const [currency, amount] of Object.entries(funds)) {
    const acc = await api('POST', 'accounts', { customer_id: customer, currency });
    accounts[currency] = acc.body.id;
    if (amount !== '0') await api('POST', 'collections', { account_id: acc.body.id, amount, currency, method: 'card' });
  }
  emu.admin.advance(120);
  await activateApproved(api, customer);
  return { customer, accounts };
}

/** Every page of a list at `limit` a page, following next_cursor (a page that is not a 200 throws). */
export async function allPages(api: Api, path: string, query: Record<string, string>, limit: number): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const q = new URLSearchParams({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    const r = await api('GET', `${path}?${q.toString()}`);
    if (r.status !== 200) throw new Error(`GET ${path}?${q.toString()}: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    cursor = r.body.next_cursor;
  }
  throw new Error('more than 200 pages');
}

// Waits: one until() for the whole suite (test/helpers/wait.ts).
export { until } from '../helpers/wait.js';
