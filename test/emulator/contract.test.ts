// The emulator serves every operation of the contract table in src/api/DESIGN.md (and nothing
// answers route_not_found or method_not_allowed for them).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, start, type Api, type Emulator } from './helpers.js';

/** [operationId, method, path] from the "Operation ids" table. */
function operations(): Array<[string, string, string]> {
  const md = readFileSync(new URL('../../src/api/DESIGN.md', import.meta.url), 'utf8');
  const table = md.slice(md.indexOf('## Operation ids'));
  const out: Array<[string, string, string]> = [];
  for (const line of table.split('\n')) {
    const m = /^\| ([a-zA-Z /]+) \| (.+) \|$/.exec(line);
    if (!m || m[1]!.trim() === 'operationId') continue;
    const ids = m[1]!.split('/').map((s) => s.trim());
    let method = '';
    let last = '';
    const routes = m[2]!
      .replace(/\s*\((deprecated|202)\)/g, '')
      .split(', ')
      .map((part) => {
        const r = /^(?:(GET|POST|PATCH|DELETE) )?(\S+)$/.exec(part.trim());
        if (!r) throw new Error(`cannot read ${part}`);
        method = r[1] ?? method;
        const path = r[2]!.startsWith('…/') ? last.replace(/\/[^/]+$/, `/${r[2]!.slice(2)}`) : r[2]!;
        last = path;
        return [method, path] as const;
      });
    expect(routes.length, line).toBe(ids.length);
    ids.forEach((id, i) => out.push([id, routes[i]![0], routes[i]![1]]));
  }
  return out;
}

const SAMPLE: Record<string, string> = { feature: 'cards' };
const sample = (path: string) =>
  path.replace(
    /\{(\w+)\}/g,
    (_, name: string) =>
      SAMPLE[name] ??
      `${{ customer_id: 'cus', account_id: 'acc', external_account_id: 'ea', transfer_id: 'tr', card_id: 'card', collection_id: 'col', payment_link_id: 'plink', wallet_id: 'wal', quote_id: 'fxq', trade_id: 'fxt', transaction_id: 'txn', event_id: 'evt' }[name]}_0123456789abcdefghijklmn`,
  );

let emu: Emulator;
let api: Api;
beforeAll(async () => {
  emu = await start();
  api = client(emu, { tenant: 'biz_contract' });
});
afterAll(() => emu.stop());

describe('contract coverage', () => {
  const ops = operations();
  it('reads the whole table', () => {
    expect(ops.length).toBeGreaterThanOrEqual(50);
    expect(new Set(ops.map(([id]) => id)).size).toBe(ops.length);
  });
  it.each(ops)('%s (%s %s) is served', async (_id, method, path) => {
    const r = await api(method, sample(path).replace(/^\//, ''), method === 'POST' || method === 'PATCH' ? {} : undefined);
    expect(r.headers.get('request-id')).toMatch(/^req_/);
    expect(['route_not_found', 'method_not_allowed']).not.toContain(r.body?.code);
    if (r.status >= 400) expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
