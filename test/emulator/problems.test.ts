// Every problem the emulator answers has the proper title for its status (RFC 9457 `title`): the
// contract's words for the statuses it lists, the HTTP reason phrase otherwise, never a bare
// `Error` (417 said `Error` before). Checked for every 4xx and 5xx status, and on the wire for
// the ones the emulator answers outside its handlers (417, 431, 405).
import { STATUS_CODES } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/api/contract/responses.js';
import { problemTitle } from '../../src/emulator/problems.js';
import { start, type Emulator } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.stop());

/** Sends raw bytes and reads the whole answer (the server closes the connection after these). */
function exchange(bytes: string): Promise<{ status: number; headers: string; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(emu.port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      resolve({ status, headers: head, body: body ? JSON.parse(body) : undefined });
    });
    socket.end(bytes);
  });
}

describe('problem titles', () => {
  it("every 4xx and 5xx status has a title: the contract's where it lists the status, else the reason phrase", () => {
    const contract = new Map(Object.values(PROBLEMS).map((p) => [p.status, p.title]));
    for (const [code, reason] of Object.entries(STATUS_CODES)) {
      const status = Number(code);
      if (status < 400) continue;
      const title = problemTitle(status);
      expect(title, String(status)).not.toBe('Error');
      expect(title, String(status)).toBe(contract.get(status) ?? `${reason![0]}${reason!.slice(1).toLowerCase()}`);
    }
    expect(problemTitle(417)).toBe('Expectation failed');
    expect(problemTitle(599)).toBe('Server error');
  });

  it('on the wire: 417 (an Expect other than 100-continue), 431 (headers too large), 405', async () => {
    const expectation = await exchange(
      'POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(expectation.status).toBe(417);
    expect(expectation.body).toMatchObject({ status: 417, title: 'Expectation failed', code: 'expectation_failed' });

    const huge = await exchange(`GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge.status).toBe(431);
    expect(huge.body).toMatchObject({ status: 431, title: 'Request header fields too large' });

    const method = await fetch(`${emu.baseUrl}customers`, { method: 'PUT', headers: { 'Api-Key': emu.keys.sandbox.secret } });
    expect(method.status).toBe(405);
    expect(await method.json()).toMatchObject({ status: 405, title: 'Method not allowed' });
  });
});
