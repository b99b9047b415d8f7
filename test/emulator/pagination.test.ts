// Cursor pagination: newest first, limit 1-100 (default 20), opaque cursors, filters, bad params.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, customerBody, start, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;
const created: string[] = [];

beforeAll(async () => {
  emu = await start();
  api = client(emu, { tenant: 'biz_pages' });
  for (let i = 0; i < 45; i++) {
    const body = { ...customerBody(i), type: i % 3 === 0 ? 'business' : 'individual' };
    created.push((await api('POST', 'customers', body)).body.id);
  }
});
afterAll(() => emu.stop());

describe('pagination', () => {
  it('pages through 45 customers 20 at a time: 20, 20, 5, newest first, each once', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const r: {
        body: { object: string; data: Array<{ id: string; created_at: string }>; has_more: boolean; next_cursor: string | null };
      } = await api('GET', `customers?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.body.object).toBe('list');
      sizes.push(r.body.data.length);
      seen.push(...r.body.data.map((c) => c.id));
      expect(r.body.has_more).toBe(r.body.next_cursor !== null);
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([20, 20, 5]);
    expect(seen).toEqual([...created].reverse());
  });

  it('defaults to 20 and accepts 1 and 100', async () => {
    expect((await api('GET', 'customers')).body.data).toHaveLength(20);
    expect((await api('GET', 'customers?limit=1')).body.data).toHaveLength(1);
    const all = await api('GET', 'customers?limit=100');
    expect(all.body.data).toHaveLength(45);
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('created_at is descending, ties broken by id descending', async () => {
    const data: Array<{ id: string; created_at: string }> = (await api('GET', 'customers?limit=100')).body.data;
    for (let i = 1; i < data.length; i++) {
      const [a, b] = [data[i - 1]!, data[i]!];
      expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true);
    }
  });

  it('filters, and pages within a filter', async () => {
    const businesses = created.filter((_, i) => i % 3 === 0).reverse();
    const p1 = await api('GET', 'customers?type=business&limit=10');
    expect(p1.body.data.map((c: { id: string }) => c.id)).toEqual(businesses.slice(0, 10));
    const p2 = await api('GET', `customers?type=business&limit=10&cursor=${p1.body.next_cursor}`);
    expect(p2.body.data.map((c: { id: string }) => c.id)).toEqual(businesses.slice(10));
    expect(p2.body.has_more).toBe(false);
    const one = await api('GET', 'customers?email=ADA7@example.com');
    expect(one.body.data.map((c: { id: string }) => c.id)).toEqual([created[7]]);
  });

  it('bad query parameters are 400 invalid_parameter with per-parameter errors', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1&limit=2', 'cursor=garbage', 'nope=1', 'email=']) {
      const r = await api('GET', `customers?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.code).toBe('invalid_parameter');
      expect(r.body.errors[0].field).toBeTruthy();
    }
    // A cursor only works with the filters it was issued for.
    const p1 = await api('GET', 'customers?type=business&limit=2');
    const r = await api('GET', `customers?limit=2&cursor=${p1.body.next_cursor}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('cursor');
    const bad = await api('GET', 'accounts?currency=XXX&status=open', undefined, { tenant: 'biz_pages' });
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['currency', 'status']);
  });

  it('features list pages too', async () => {
    const p1 = await api('GET', 'features?limit=4');
    expect(p1.body.data).toHaveLength(4);
    const p2 = await api('GET', `features?limit=4&cursor=${p1.body.next_cursor}`);
    expect(p2.body.data).toHaveLength(2);
    expect(p2.body.next_cursor).toBeNull();
  });
});
