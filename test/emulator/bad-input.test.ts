// Hostile and broken input: the server answers with a problem and keeps serving.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, client, customerBody, start, type Api, type Emulator } from './helpers.js';
import { HANG_MS } from '../helpers/wait.js';

let emu: Emulator;
let api: Api;

beforeAll(async () => {
  emu = await start();
  api = client(emu);
});
afterAll(() => emu.stop());

/**
 * Sends raw bytes on a fresh connection; resolves with the first whole answer (its head and the
 * Content-Length of body) or, without one, with what came before the server closed. It waits for
 * that answer, not for a stretch of time (a hang is left to HANG_MS).
 */
function raw(text: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(emu.port, '127.0.0.1');
    let out = '';
    const done = () => {
      clearTimeout(guard);
      s.destroy();
      resolve(out);
    };
    const whole = (): boolean => {
      const head = out.indexOf('\r\n\r\n');
      if (head < 0) return false;
      const length = /^content-length:\s*(\d+)\r?$/im.exec(out.slice(0, head));
      return length !== null && Buffer.byteLength(out.slice(head + 4), 'latin1') >= Number(length[1]);
    };
    s.on('data', (d) => {
      out += d.toString('latin1');
      if (whole()) done();
    });
    s.on('error', done);
    s.on('close', done);
    const guard = setTimeout(done, HANG_MS);
    s.write(text);
  });
}

describe('bad input', () => {
  it('malformed JSON is 400 invalid_json; a non-object body is 422', async () => {
    const r = await api('POST', 'customers', undefined, { raw: '{"first_name": "Ada",' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_json');
    expect((await api('POST', 'customers', undefined, { raw: '[1,2]' })).status).toBe(422);
    expect((await api('POST', 'customers', undefined, { raw: 'null' })).status).toBe(422);
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    expect((await api('POST', 'customers', undefined, { raw: deep })).status).toBe(422);
  });

  it('validation errors list every field with a dotted path; unknown fields are errors', async () => {
    const body = {
      ...customerBody(),
      email: 'not-an-email',
      phone: '0123',
      date_of_birth: '2990-02-30',
      nickname: 'x',
      address: { address_line1: '1 Main', city: 'X', country: 'GB', postal_code: '1', state: 'US-CA', extra: 1 },
    };
    const r = await api('POST', 'customers', body);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('validation_error');
    const fields = r.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['address.extra', 'address.state', 'date_of_birth', 'email', 'nickname', 'phone']);
    expect(r.body.errors.find((e: { field: string }) => e.field === 'nickname').code).toBe('unknown_field');
    const future = await api('POST', 'customers', { ...customerBody(), date_of_birth: '2999-01-01' });
    expect(future.body.errors[0]).toMatchObject({ field: 'date_of_birth', message: expect.stringMatching(/future/) });
    const types = await api('POST', 'customers', { ...customerBody(), first_name: 42, address: 'London' });
    expect(types.body.errors.map((e: { code: string }) => e.code)).toEqual(['type', 'type']);
    const empty = await api('PATCH', `customers/${(await api('POST', 'customers', customerBody())).body.id}`, {});
    expect(empty.status).toBe(422);
  });

  it('a body over 1 MiB is 413 and the server keeps serving', async () => {
    const big = JSON.stringify({ first_name: 'x'.repeat(1024 * 1024 + 10) });
    const r = await api('POST', 'customers', undefined, { raw: big });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('payload_too_large');
    // Chunked, with no length: cut off at the limit.
    const chunked = await raw(
      `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${emu.keys.sandbox.secret}\r\nIdempotency-Key: big-1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `100000\r\n${'x'.repeat(0x100000)}\r\n100000\r\n${'x'.repeat(0x100000)}\r\n0\r\n\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413/);
    const declared = await raw(
      `POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${emu.keys.sandbox.secret}\r\nIdempotency-Key: big-2\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{`,
    );
    expect(declared).toMatch(/^HTTP\/1\.1 413/);
    expect((await api('GET', 'features')).status).toBe(200);
  });

  it('a body without Content-Type: application/json is 415', async () => {
    const r = await api('POST', 'customers', undefined, {
      raw: 'first_name=Ada',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(415);
    expect(r.body.code).toBe('unsupported_media_type');
  });

  it('garbage and traversal paths are 404 route_not_found; wrong methods are 405 with Allow', async () => {
    for (const p of [
      '/v1/nope',
      '/v1/customers/../accounts',
      '/v1/%2e%2e/etc/passwd',
      '/v1//customers',
      '/v1/customers%2Fx',
      '/etc/passwd',
      '/',
      '/v2/customers',
      `/v1/${'a'.repeat(2000)}`,
    ]) {
      const text = await raw(`GET ${p} HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${emu.keys.sandbox.secret}\r\nConnection: close\r\n\r\n`);
      expect(text, p).toMatch(/^HTTP\/1\.1 404/);
      expect(text).toContain('route_not_found');
    }
    const r = await api('DELETE', 'customers');
    expect(r.status).toBe(405);
    expect(r.body.code).toBe('method_not_allowed');
    expect(r.headers.get('allow')).toBe('GET, POST');
    expect((await api('PUT', 'customers')).status).toBe(405);
  });

  it('header abuse and broken HTTP get a 4xx, not a crash', async () => {
    expect(await raw('GARBAGE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(`GET /v1/features HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431/);
    const dupTenant = await raw(
      `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${emu.keys.sandbox.secret}\r\nx-tenant-id: a\r\nx-tenant-id: b\r\nConnection: close\r\n\r\n`,
    );
    expect(dupTenant).toMatch(/^HTTP\/1\.1 400/);
    expect(dupTenant).toContain('invalid_tenant');
    const ctl = await api('POST', 'customers', { ...customerBody(), first_name: 'A\u0000B' });
    expect(ctl.status).toBe(422);
    expect((await api('GET', 'features')).status).toBe(200);
    expect((await admin(emu, 'GET', 'stats')).body.internal_errors).toBe(0);
  });

  it('records the requests it received (bounded), visible in-process and on the admin route', async () => {
    await api('GET', 'customers?limit=3');
    const last = emu.received.at(-1)!;
    expect(last).toMatchObject({ method: 'GET', path: '/v1/customers', query: { limit: '3' } });
    expect(emu.received.length).toBeLessThanOrEqual(1000);
    const fromRoute = (await admin(emu, 'GET', 'requests?limit=1')).body.data;
    expect(fromRoute[0].path).toBe('/v1/customers');
  });
});
