// Idempotency keys per the IETF draft: required on POST, replay, reuse with another body, in flight,
// and the draft's own spelling (an RFC 8941 quoted string) as the same key as the bare token.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, client, customerBody, start, until, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;

beforeAll(async () => {
  emu = await start();
  api = client(emu);
});
afterAll(() => emu.stop());

const customers = async (): Promise<number> => (await admin(emu, 'GET', 'stats')).body.objects.customer ?? 0;

describe('Idempotency-Key', () => {
  it('a POST without a key is 400 missing_idempotency_key and creates nothing', async () => {
    const before = await customers();
    const r = await api('POST', 'customers', customerBody(), { idem: null });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('missing_idempotency_key');
    expect(await customers()).toBe(before);
  });

  it('a key that is not 1-255 printable ASCII is 400 invalid_idempotency_key', async () => {
    const r = await api('POST', 'customers', customerBody(), { idem: 'k'.repeat(256) });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_idempotency_key');
  });

  it('same key + same body (any key order) replays the stored response with Idempotent-Replayed: true', async () => {
    const before = await customers();
    const first = await api('POST', 'customers', customerBody(7), { idem: 'replay-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const reordered = Object.fromEntries(Object.entries(customerBody(7)).reverse());
    const again = await api('POST', 'customers', reordered, { idem: 'replay-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
    expect(await customers()).toBe(before + 1);
  });

  it('stored 4xx responses replay too (status < 500 is stored)', async () => {
    const bad = { ...customerBody(), email: 'nope' };
    const first = await api('POST', 'customers', bad, { idem: 'replay-422' });
    expect(first.status).toBe(422);
    const again = await api('POST', 'customers', bad, { idem: 'replay-422' });
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('same key + another body is 422 idempotency_key_reused', async () => {
    await api('POST', 'customers', customerBody(8), { idem: 'reuse-1' });
    const r = await api('POST', 'customers', customerBody(9), { idem: 'reuse-1' });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('idempotency_key_reused');
    // Same body on another path is another request too.
    const other = await api('POST', 'accounts', customerBody(8), { idem: 'reuse-1' });
    expect(other.body.code).toBe('idempotency_key_reused');
  });

  it('same key while the first request is in flight is 409 idempotency_request_in_progress', async () => {
    // The first is held (injected latency: processing time) for far longer than the second needs;
    // the second is sent once the emulator has the first (its body read, its key taken), not after a guess.
    emu.admin.setFaults({ latencyMs: [5000, 5000] });
    try {
      const first = api('POST', 'customers', customerBody(10), { idem: 'inflight-1' });
      await until('the first request in flight', () =>
        emu.received.some((r) => r.headers['idempotency-key'] === 'inflight-1' && r.bodyText !== undefined && !r.done),
      );
      const second = await api('POST', 'customers', customerBody(10), { idem: 'inflight-1' });
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('idempotency_request_in_progress');
      expect((await first).status).toBe(201);
    } finally {
      emu.admin.setFaults({ latencyMs: null });
    }
    const third = await api('POST', 'customers', customerBody(10), { idem: 'inflight-1' });
    expect(third.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keys are scoped by API key (mode) and tenant', async () => {
    const a = await api('POST', 'customers', customerBody(11), { idem: 'scoped-1' });
    const b = await api('POST', 'customers', customerBody(11), { idem: 'scoped-1', tenant: 'biz_other' });
    const c = await api('POST', 'customers', customerBody(11), { idem: 'scoped-1', key: emu.keys.live.secret });
    for (const r of [a, b, c]) expect(r.status).toBe(201);
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keys expire after 24 hours of emulator time', async () => {
    const first = await api('POST', 'customers', customerBody(12), { idem: 'ttl-1' });
    emu.admin.advance(23 * 3600);
    expect((await api('POST', 'customers', customerBody(12), { idem: 'ttl-1' })).headers.get('idempotent-replayed')).toBe('true');
    emu.admin.advance(2 * 3600);
    const later = await api('POST', 'customers', customerBody(12), { idem: 'ttl-1' });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
  });

  /** A key as the IETF draft writes it: an RFC 8941 string, `"` and `\\` escaped. */
  const quoted = (key: string): string => `"${key.replace(/["\\]/g, '\\$&')}"`;
  const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
  let run = 0;

  it('an RFC 8941 quoted key ("abc") and the bare token (abc) are the same key, either first (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Any printable ASCII, quotes and backslashes included; a bare value cannot start with `"` (that
        // is the quoted form) nor carry outer spaces (HTTP trims them), so a prefix stands first.
        fc.string({ unit: fc.constantFrom(...PRINTABLE), minLength: 0, maxLength: 240 }).map((s) => s.trimEnd()),
        fc.boolean(),
        fc.boolean(),
        async (tail, quotedFirst, sameBody) => {
          const key = `k${run++}-${tail}`;
          const spellings = quotedFirst ? [quoted(key), key] : [key, quoted(key)];
          const first = await api('POST', 'customers', customerBody(100), { idem: spellings[0]! });
          expect(first.status, spellings[0]).toBe(201);
          const second = await api('POST', 'customers', customerBody(sameBody ? 100 : 101), { idem: spellings[1]! });
          if (sameBody) {
            expect(second.status, spellings[1]).toBe(201);
            expect(second.headers.get('idempotent-replayed')).toBe('true');
            expect(second.body.id).toBe(first.body.id);
          } else {
            expect(second.status, spellings[1]).toBe(422);
            expect(second.body.code).toBe('idempotency_key_reused');
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  it('a quoted key that is not one RFC 8941 string is 400 invalid_idempotency_key and creates nothing (fast-check)', async () => {
    const before = await customers();
    const inner = fc.string({ unit: fc.constantFrom(...PRINTABLE.filter((c) => c !== '"' && c !== '\\')), minLength: 1, maxLength: 40 });
    const malformed = fc.oneof(
      inner.map((k) => `"${k}`), // unterminated
      inner.map((k) => `"${k}";a=1`), // parameters
      inner.map((k) => `"${k}" x`), // more after the string
      fc.tuple(inner, inner).map(([a, b]) => `"${a}"${b}"`), // an unescaped quote inside
      fc.tuple(inner, fc.constantFrom('x', 'n', 'u', '0', ' ')).map(([k, c]) => `"${k}\\${c}"`), // an escape RFC 8941 does not have
      fc.constant('""'), // empty
      fc.constant(`"${'k'.repeat(256)}"`), // 256 characters inside
    );
    await fc.assert(
      fc.asyncProperty(malformed, async (value) => {
        const r = await api('POST', 'customers', customerBody(102), { idem: value });
        expect(r.status, value).toBe(400);
        expect(r.body.code).toBe('invalid_idempotency_key');
      }),
      { numRuns: 60 },
    );
    expect(await customers()).toBe(before);
  }, 60_000);
});
