// pay webhooks get as a person reads it: the emulator keeps the first 200 bytes the app answered
// per attempt (response_excerpt), and the view shows each attempt's time, status, duration, full
// URL and that excerpt escaped, whatever bytes the app sent (fast-check: control characters,
// ANSI sequences, bidi marks, bytes that are not UTF-8, bodies longer than the excerpt); the
// payload is folded to data.object's top-level fields unless --wide.
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerBody, json, keyValues, ok, startWorld, type Obj, type World } from './helpers.js';

let w: World;
let server: Server;
let hookUrl: string;
/** What the app answers next: status and body bytes. */
let answer: { status: number; body: Buffer } = { status: 500, body: Buffer.from('boom') };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'text/plain' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks/pay?tenant=support-desk-with-a-long-query`;
  // Retries far away: each event has exactly the one attempt the settle waits for.
  w = await startWorld({ webhookUrl: hookUrl, webhookRetryScale: 100 });
});
afterAll(async () => {
  await w?.stop();
  await new Promise((r) => server?.close(r));
});

/** Creates a customer (one customer.created event), lets its delivery run, and returns the event id. */
async function eventAnswered(status: number, body: Buffer, extra: Obj = {}): Promise<string> {
  answer = { status, body };
  const c = await w.api('POST', 'customers', customerBody(extra));
  await w.settle(1);
  const list = await w.api('GET', `webhooks/events?object_id=${c.id}&limit=10`);
  const e = (list.data as Obj[]).find((x) => x.type === 'customer.created')!;
  return e.id as string;
}

const CONTROL = fc.constantFrom(
  '\x1b[31m',
  '\x1b]0;pwned\x07',
  '\x1b[2J',
  '\r',
  '\n',
  '\t',
  '\x00',
  '\x7f',
  '\u009b',
  '\u202e',
  '\u200b',
  'é',
  '漢',
);
const BYTES = fc.oneof(
  fc.array(fc.oneof(CONTROL, fc.string({ maxLength: 8 })), { maxLength: 40 }).map((parts) => Buffer.from(parts.join(''), 'utf8')),
  fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a)),
);

describe('webhooks get: attempts a person can read', () => {
  it('keeps the first 200 bytes answered, shows them escaped, never raw (generated bodies)', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(200, 400, 500, 503), BYTES, async (status, body) => {
        runs++;
        const id = await eventAnswered(status, body);
        const [j, t] = await Promise.all([w.pay(['webhooks', 'get', id, '--json']), w.pay(['webhooks', 'get', id, '-o', 'table'])]);
        const e = json(j);
        const a = e.attempts[0];
        const expected = body.length === 0 ? null : new TextDecoder().decode(body.subarray(0, 200));
        expect(a.response_excerpt).toBe(expected);
        expect(a.response_code).toBe(status);
        const text = ok(t);
        // Nothing a terminal acts on: every control character was written as an escape.
        expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\u200b]/);
        expect(text).toContain(`HTTP ${status}`);
        expect(text).toContain(`\n    url     ${hookUrl}\n`);
        expect(text).toMatch(/\n {4}answer {2}/);
      }),
      { numRuns: 12, seed: 2811 },
    );
    expect(runs).toBe(12);
  });

  it('a body longer than 200 bytes is cut to its first 200', async () => {
    const long = Buffer.from('x'.repeat(150) + '\x1b[31mRED' + 'y'.repeat(300));
    const id = await eventAnswered(502, long);
    const e = json(await w.pay(['webhooks', 'get', id, '--json']));
    expect(e.attempts[0].response_excerpt).toBe(long.subarray(0, 200).toString('utf8'));
    const text = ok(await w.pay(['webhooks', 'get', id, '-o', 'table']));
    expect(text).toContain('\\x1b[31mRED');
    expect(text).not.toContain('y'.repeat(60));
  });

  it('the payload is folded to its top-level fields unless --wide', async () => {
    const id = await eventAnswered(200, Buffer.from('{"ok":true}'));
    const e = json(await w.pay(['webhooks', 'get', id, '--json']));
    const city = e.data.object.address.city as string;
    const folded = keyValues(await w.pay(['webhooks', 'get', id, '-o', 'table']));
    expect(folded.get('data.object.address')).toMatch(/^\{\d+ fields: .*city.*\}$/);
    expect(folded.has('data.object.address.city')).toBe(false);
    const wide = keyValues(await w.pay(['webhooks', 'get', id, '-o', 'table', '--wide']));
    expect(wide.get('data.object.address.city')).toBe(city);
    expect(wide.has('data.object.address')).toBe(false);
  });
});
