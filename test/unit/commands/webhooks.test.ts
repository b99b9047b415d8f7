// webhooks verify (offline signature check) and webhooks listen (a local receiver), with
// signatures made by src/shared/signature.ts sign().
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkForwardUrl, startListener, type Listener, type ListenOptions } from '../../../src/commands/webhooks/listen.js';
import { bufferIOStreams, type IOStreams } from '../../../src/io/iostreams.js';
import { Printer } from '../../../src/io/output.js';
import { sign, verify } from '../../../src/shared/signature.js';
import { isOwnAddress } from '../../../src/shared/validate.js';
import fc from 'fast-check';
import { pay } from './harness.js';
import { until } from '../../helpers/wait.js';

/** What pay webhooks listen hands the listener: the shared Printer's JSON line (escaped on a terminal). */
const printLine = (io: IOStreams) => {
  const printer = new Printer(io, { format: 'json', fields: undefined, header: true }, []);
  return (delivery: unknown) => printer.printLine(delivery);
};

/** A listener on a free loopback port with the test secret, printing text lines to `io` (`opts` on top). */
const listenFor = (io: IOStreams, opts: Partial<ListenOptions> = {}): Promise<Listener> =>
  startListener({ host: '127.0.0.1', port: 0, secret: SECRET, json: false, io, line: printLine(io), ...opts });

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER = 'whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldA==';
const EVT = 'evt_0123456789abcdefghijklmn';
const BODY = JSON.stringify({
  id: EVT,
  type: 'transfer.completed',
  created_at: '2026-01-02T03:04:05.000Z',
  data: { object: { id: 'tr_0123456789abcdefghijklmn' } },
});
const now = () => Math.floor(Date.now() / 1000);

function payloadFile(body = BODY): string {
  const file = join(mkdtempSync(join(tmpdir(), 'pay-wh-')), 'body.json');
  writeFileSync(file, body);
  return file;
}

describe('webhooks verify', () => {
  it('prints valid and exits 0 for a good signature (headers as --header lines)', async () => {
    const ts = now();
    const r = await pay([
      'webhooks',
      'verify',
      '--payload',
      payloadFile(),
      '--secret',
      SECRET,
      '--header',
      `webhook-id: ${EVT}`,
      '--header',
      `Webhook-Timestamp: ${ts}`,
      '--header',
      `webhook-signature: ${sign(SECRET, EVT, ts, BODY)}`,
    ]);
    expect(r).toMatchObject({ code: 0, stdout: 'valid\n', stderr: '', requests: [] });
  });

  it('takes --id, --timestamp, --signature, the payload on stdin and the secret from PAY_WEBHOOK_SECRET', async () => {
    const ts = now();
    const r = await pay(
      [
        'webhooks',
        'verify',
        '--payload',
        '-',
        '--id',
        EVT,
        '--timestamp',
        String(ts),
        '--signature',
        `v1,bm90LXRoaXMtb25l ${sign(SECRET, EVT, ts, BODY)}`,
      ],
      { stdin: BODY, env: { PAY_WEBHOOK_SECRET: SECRET } },
    );
    expect(r).toMatchObject({ code: 0, stdout: 'valid\n', stderr: '', requests: [] });
    const json = await pay(
      [
        'webhooks',
        'verify',
        '--payload',
        payloadFile(),
        '--id',
        EVT,
        '--timestamp',
        String(ts),
        '--signature',
        sign(SECRET, EVT, ts, BODY),
        '--json',
      ],
      { env: { PAY_WEBHOOK_SECRET: SECRET } },
    );
    expect(JSON.parse(json.stdout)).toEqual({ valid: true, webhook_id: EVT, timestamp: ts });
  });

  it.each([
    [
      'a changed body',
      (ts: number) => ({ body: `${BODY} `, sig: sign(SECRET, EVT, ts, BODY), ts, secret: SECRET }),
      'no signature matches',
    ],
    ['another secret', (ts: number) => ({ body: BODY, sig: sign(OTHER, EVT, ts, BODY), ts, secret: SECRET }), 'no signature matches'],
    ['another id', (ts: number) => ({ body: BODY, sig: sign(SECRET, 'evt_other', ts, BODY), ts, secret: SECRET }), 'no signature matches'],
    [
      'a stale timestamp',
      (ts: number) => ({ body: BODY, sig: sign(SECRET, EVT, ts - 600, BODY), ts: ts - 600, secret: SECRET }),
      'timestamp is too old (more than 5 minutes away)',
    ],
    [
      'a future timestamp',
      (ts: number) => ({ body: BODY, sig: sign(SECRET, EVT, ts + 600, BODY), ts: ts + 600, secret: SECRET }),
      'timestamp is in the future (more than 5 minutes away)',
    ],
  ])('prints invalid: <reason> on stderr and exits 1 for %s', async (_name, make, reason) => {
    const c = make(now());
    const r = await pay([
      'webhooks',
      'verify',
      '--payload',
      payloadFile(c.body),
      '--secret',
      c.secret,
      '--id',
      EVT,
      '--timestamp',
      String(c.ts),
      '--signature',
      c.sig,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`invalid: ${reason}\n`);
    expect(r.requests).toEqual([]);
  });

  it('--json: an error object on stderr, nothing on stdout', async () => {
    const ts = now();
    const r = await pay([
      'webhooks',
      'verify',
      '--payload',
      payloadFile('{}'),
      '--secret',
      SECRET,
      '--id',
      EVT,
      '--timestamp',
      String(ts),
      '--signature',
      sign(SECRET, EVT, ts, BODY),
      '--json',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({
      error: { code: 'invalid_signature', message: 'invalid: no signature matches', exit_code: 1 },
    });
  });

  it('is a usage error without a secret, headers or payload, and never prints the secret', async () => {
    const ts = String(now());
    const noSecret = await pay(['webhooks', 'verify', '--payload', payloadFile(), '--id', EVT, '--timestamp', ts, '--signature', 'v1,x']);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/no webhook secret for profile "default" \(sandbox\)/);
    const noHeaders = await pay(['webhooks', 'verify', '--payload', payloadFile(), '--secret', SECRET, '--id', EVT]);
    expect(noHeaders.code).toBe(2);
    expect(noHeaders.stderr).toMatch(/missing the webhook-timestamp, webhook-signature headers/);
    const badSecret = await pay([
      'webhooks',
      'verify',
      '--payload',
      payloadFile(),
      '--secret',
      'hunter2!',
      '--id',
      EVT,
      '--timestamp',
      ts,
      '--signature',
      'v1,x',
    ]);
    expect(badSecret.code).toBe(2);
    expect(badSecret.stderr).toMatch(/--secret is not a webhook secret: a webhook secret is base64, with or without whsec_ before it/);
    expect(badSecret.stderr).not.toContain('hunter2');
    const noFile = await pay([
      'webhooks',
      'verify',
      '--payload',
      '/nonexistent/body.json',
      '--secret',
      SECRET,
      '--id',
      EVT,
      '--timestamp',
      ts,
      '--signature',
      'v1,x',
    ]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/cannot read the file \(no such file\)/);
  });
});

describe('signature: only the signature as signed passes', () => {
  const ts = 1_800_000_000;
  const good = sign(SECRET, EVT, ts, BODY);
  const check = (signature: string) =>
    verify(SECRET, { 'webhook-id': EVT, 'webhook-timestamp': String(ts), 'webhook-signature': signature }, BODY, ts);
  // Node's base64 decoder reads all of these as the same 32 bytes; they were accepted (found by
  // test/reliability/webhooks.test.ts).
  const value = good.slice(3);
  const last = value.length - 2; // 32 bytes: 43 characters and one "="; the 43rd has 2 unused bits
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const unusedBits = value.slice(0, last) + B64[B64.indexOf(value[last]!) ^ 1]! + value.slice(last + 1);
  it.each([
    ['the unused bits of the last character changed', `v1,${unusedBits}`],
    ['no padding', `v1,${value.replace(/=$/, '')}`],
    ['extra padding', `v1,${value}=`],
    ['a character outside the alphabet inside', `v1,${value.slice(0, 10)}!${value.slice(10)}`],
    ['the URL-safe alphabet', `v1,${value.replace(/\+/g, '-').replace(/\//g, '_')}${/[+/]/.test(value) ? '' : '!'}`],
    ['more after a second comma', `${good},x`],
  ])('refuses the signature with %s', (_name, signature) => {
    expect(Buffer.from(signature.slice(3), 'base64').subarray(0, 32).equals(Buffer.from(value, 'base64'))).toBe(true);
    expect(check(signature)).toEqual({ ok: false, reason: 'no signature matches' });
  });

  it('accepts the signature among others, space-separated or as Node joins repeated header lines', () => {
    const other = sign(OTHER, EVT, ts, BODY);
    for (const list of [`${other} ${good}`, `${good} ${other}`, `${other}, ${good}`, `${good}, ${other}`, `  ${good}  `])
      expect(check(list)).toMatchObject({ ok: true });
  });
});

describe('webhooks listen', () => {
  let listener: Listener | undefined;
  const servers: Array<{ close(): void }> = [];
  /** Starts a forwarding target on a free loopback port (closed after the tests); its /hooks URL. */
  async function listening(target: Server): Promise<URL> {
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    servers.push(target);
    return new URL(`http://127.0.0.1:${(target.address() as { port: number }).port}/hooks`);
  }
  afterEach(async () => {
    await listener?.close();
    listener = undefined;
    for (const s of servers.splice(0)) s.close();
  });

  async function deliver(url: string, opts: { id?: string; ts?: number; body?: string; secret?: string } = {}) {
    const id = opts.id ?? EVT;
    const ts = opts.ts ?? now();
    const body = opts.body ?? BODY;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(ts),
        'webhook-signature': sign(opts.secret ?? SECRET, id, ts, body),
      },
      body,
    });
    return { status: res.status, body: await res.text() };
  }

  it('prints one line per delivery, a repeat of a webhook-id marked as such; rejects bad and stale ones with 400', async () => {
    const io = bufferIOStreams();
    listener = await listenFor(io);
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await deliver(listener.url)).toEqual({ status: 200, body: '{"received":true,"repeat":1}' });
    expect(io.stdoutText()).toBe(`--> transfer.completed [${EVT}]\n`);
    // A retry or a resend of the same id: received again, marked.
    expect(await deliver(listener.url)).toEqual({ status: 200, body: '{"received":true,"repeat":2}' });
    expect(await deliver(listener.url, { ts: now() - 60 })).toEqual({ status: 200, body: '{"received":true,"repeat":3}' });
    expect(io.stdoutText()).toBe(
      `--> transfer.completed [${EVT}]\n--> transfer.completed [${EVT}] (repeat 2)\n--> transfer.completed [${EVT}] (repeat 3)\n`,
    );
    expect((await deliver(listener.url, { id: 'evt_abcdefghijklmn0123456789', secret: OTHER })).status).toBe(400);
    expect((await deliver(listener.url, { id: 'evt_abcdefghijklmn0123456789', ts: now() - 3600 })).status).toBe(400);
    const err = io.stderrText().split('\n').filter(Boolean);
    expect(err).toHaveLength(2);
    expect(err[0]).toMatch(/rejected evt_abcdefghijklmn0123456789: no signature matches/);
    expect(err[1]).toMatch(/timestamp is too old/);
    expect(io.stdoutText().split('\n').filter(Boolean)).toHaveLength(3);
    const get = await fetch(listener.url);
    expect(get.status).toBe(405);
  });

  it('--skip-duplicates: accepts a webhook-id once, acknowledges a replay without printing or forwarding it', async () => {
    const io = bufferIOStreams();
    listener = await listenFor(io, { skipDuplicates: true });
    expect((await deliver(listener.url)).status).toBe(200);
    expect(io.stdoutText()).toBe(`--> transfer.completed [${EVT}]\n`);
    const replay = await deliver(listener.url);
    expect(replay).toEqual({ status: 200, body: '{"received":true,"duplicate":true,"repeat":2}' });
    expect(io.stdoutText()).toBe(`--> transfer.completed [${EVT}]\n`);
    const err = io.stderrText().split('\n').filter(Boolean);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(
      new RegExp(`duplicate ${EVT}: replayed webhook-id, already accepted; acknowledged, not forwarded again \\(--skip-duplicates\\)`),
    );
  });

  it('--events: other types are acknowledged (200) and neither printed nor forwarded; a bad signature is still refused', async () => {
    const got: string[] = [];
    const target = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        got.push(String(req.headers['webhook-id']));
        res.writeHead(204).end();
      });
    });
    const io = bufferIOStreams();
    listener = await listenFor(io, { forwardTo: await listening(target), events: new Set(['card.frozen']) });
    const frozen = BODY.replace('transfer.completed', 'card.frozen');
    expect(await deliver(listener.url)).toEqual({ status: 200, body: '{"received":true,"filtered":true}' });
    expect((await deliver(listener.url, { id: 'evt_abcdefghijklmn0123456789', body: frozen })).status).toBe(200);
    expect((await deliver(listener.url, { body: '{"id":1}' })).status).toBe(200); // no type at all: filtered out
    expect((await deliver(listener.url, { secret: OTHER })).status).toBe(400);
    expect(got).toEqual(['evt_abcdefghijklmn0123456789']);
    expect(io.stdoutText()).toMatch(
      /^--> card\.frozen \[evt_abcdefghijklmn0123456789\]\n<-- \[204\] POST http:\/\/127\.0\.0\.1:\d+\/hooks \(\d+ ms\) \[evt_abcdefghijklmn0123456789\]\n$/,
    );
  });

  it('--json prints one JSON line per delivery: the payload, its repeat number and the forward result', async () => {
    const io = bufferIOStreams();
    listener = await listenFor(io, { json: true });
    await deliver(listener.url);
    await deliver(listener.url, { id: 'evt_abcdefghijklmn0123456789', body: BODY.replace('transfer.completed', 'card.frozen') });
    await deliver(listener.url);
    const lines = io
      .stdoutText()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.webhook_id, l.type, l.repeat, l.forward])).toEqual([
      [EVT, 'transfer.completed', 1, null],
      ['evt_abcdefghijklmn0123456789', 'card.frozen', 1, null],
      [EVT, 'transfer.completed', 2, null],
    ]);
    expect(lines[0]!.event).toEqual(JSON.parse(BODY));
    expect(Object.keys(lines[0]!).sort()).toEqual(['event', 'forward', 'received_at', 'repeat', 'type', 'webhook_id']);
    expect(lines[0]!.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("forwards every delivery (the raw body and headers) and answers with the forward's status; each gets a <-- line", async () => {
    const got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    let answer = 500;
    const target = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answer).end();
      });
    });
    const io = bufferIOStreams();
    const to = await listening(target);
    listener = await listenFor(io, { forwardTo: to });
    const ts = now();
    expect((await deliver(listener.url, { ts })).status).toBe(500);
    answer = 204;
    // The sender retries the same delivery: forwarded again, marked as a repeat.
    expect((await deliver(listener.url, { ts })).status).toBe(200);
    // And once more (a resend): forwarded again too.
    expect((await deliver(listener.url, { ts })).status).toBe(200);
    expect(got).toHaveLength(3);
    expect(got[1]!.body).toBe(BODY);
    expect(got[1]!.headers['webhook-id']).toBe(EVT);
    expect(got[1]!.headers['webhook-signature']).toBe(sign(SECRET, EVT, ts, BODY));
    const url = to.toString().replace(/[./]/g, '\\$&');
    expect(io.stdoutText()).toMatch(
      new RegExp(
        `^--> transfer\\.completed \\[${EVT}\\]\\n<-- \\[500\\] POST ${url} \\(\\d+ ms\\) \\[${EVT}\\]\\n` +
          `--> transfer\\.completed \\[${EVT}\\] \\(repeat 2\\)\\n<-- \\[204\\] POST ${url} \\(\\d+ ms\\) \\[${EVT}\\]\\n` +
          `--> transfer\\.completed \\[${EVT}\\] \\(repeat 3\\)\\n<-- \\[204\\] POST ${url} \\(\\d+ ms\\) \\[${EVT}\\]\\n$`,
      ),
    );
    expect(io.stderrText()).toBe('');
  });

  it('every status the app answers that is not 2xx goes back to the sender as it is, 3xx included (never followed); generated statuses', async () => {
    let answer = 307;
    let hits = 0;
    const target = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => res.writeHead(answer, { location: 'http://127.0.0.1:1/elsewhere' }).end());
    });
    const io = bufferIOStreams();
    const to = await listening(target);
    listener = await listenFor(io, { forwardTo: to });
    const url = listener.url;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 300, max: 599 }), async (status) => {
        answer = status;
        const before = hits;
        const r = await deliver(url, { ts: now() });
        expect(r.status, String(status)).toBe(status);
        // (304 carries no body, by HTTP.)
        if (status !== 304) expect(JSON.parse(r.body), String(status)).toEqual({ error: `forward answered ${status}` });
        // Forwarded once, the redirect not followed.
        expect(hits - before).toBe(1);
        expect(io.stdoutText().trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^<-- \\[${status}\\] POST `));
      }),
      { numRuns: 40, seed: 14, examples: [[301], [302], [303], [307], [308], [304]] },
    );
    expect(io.stderrText()).toBe('');
  });

  it('a forward target that does not answer: one <-- [error] line per delivery, 502 to the sender (it retries)', async () => {
    const dead = createServer();
    const to = await listening(dead);
    await new Promise<void>((r) => dead.close(() => r()));
    const io = bufferIOStreams();
    listener = await listenFor(io, { forwardTo: to });
    const r = await deliver(listener.url);
    expect(r.status).toBe(502);
    expect(JSON.parse(r.body)).toEqual({ error: 'forward failed', detail: 'connection refused' });
    expect((await deliver(listener.url)).status).toBe(502);
    const lines = io.stdoutText().split('\n').filter(Boolean);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^<-- \[error\] POST http:\/\/127\.0\.0\.1:\d+\/hooks \(\d+ ms\) \[evt_\w+\]: connection refused$/);
    expect(lines[2]).toBe(`--> transfer.completed [${EVT}] (repeat 2)`);
    expect(lines[3]).toMatch(/^<-- \[error\] /);
    // --json: the error in the forward result.
    const jio = bufferIOStreams();
    await listener.close();
    listener = await listenFor(jio, { json: true, forwardTo: to });
    expect((await deliver(listener.url)).status).toBe(502);
    expect(JSON.parse(jio.stdoutText()).forward).toEqual({
      url: to.toString(),
      status: null,
      duration_ms: expect.any(Number),
      error: 'connection refused',
    });
  });

  it('every copy of a delivery is forwarded, also while an earlier one is in flight, numbered in arrival order', async () => {
    const got: string[] = [];
    let release = (): void => {};
    const held = new Promise<void>((r) => (release = r));
    const target = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        got.push(String(req.headers['webhook-id']));
        void held.then(() => res.writeHead(204).end());
      });
    });
    const io = bufferIOStreams();
    listener = await listenFor(io, { forwardTo: await listening(target) });
    const ts = now();
    const all = [0, 1, 2, 3].map(() => deliver(listener!.url, { ts }));
    await until('the four copies at the target', () => got.length >= 4);
    release();
    expect((await Promise.all(all)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(got).toEqual([EVT, EVT, EVT, EVT]);
    const arrivals = io
      .stdoutText()
      .split('\n')
      .filter((l) => l.startsWith('-->'));
    expect(arrivals).toEqual([
      `--> transfer.completed [${EVT}]`,
      `--> transfer.completed [${EVT}] (repeat 2)`,
      `--> transfer.completed [${EVT}] (repeat 3)`,
      `--> transfer.completed [${EVT}] (repeat 4)`,
    ]);
  });

  it('--skip-duplicates: copies arriving while the first is being forwarded are replays: forwarded and accepted once', async () => {
    // Found by test/reliability/webhooks.test.ts: all four were forwarded and answered 200.
    const got: string[] = [];
    let answer = 503;
    // The target holds its answer until the test releases it: the copies are sure to arrive while
    // the first is being forwarded, however slow the machine.
    let release = (): void => {};
    let held = Promise.resolve();
    const target = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        got.push(String(req.headers['webhook-id']));
        void held.then(() => res.writeHead(answer).end());
      });
    });
    const io = bufferIOStreams();
    listener = await listenFor(io, { forwardTo: await listening(target), skipDuplicates: true });
    const ts = now();
    /** Four copies at once; the target answers once the three copies have been answered. */
    const fourCopies = async (): Promise<number[]> => {
      held = new Promise<void>((r) => (release = r));
      const answered: number[] = [];
      const all = [0, 1, 2, 3].map(() => deliver(listener!.url, { ts }).then((r) => (answered.push(r.status), r.status)));
      await until('three copies answered', () => answered.length >= 3);
      release();
      return (await Promise.all(all)).sort();
    };
    // The target fails: one forward, the copies refused meanwhile; the id stays free for a retry.
    expect(await fourCopies()).toEqual([409, 409, 409, 503]);
    expect(got).toEqual([EVT]);
    answer = 204;
    expect(await fourCopies()).toEqual([200, 409, 409, 409]);
    expect(got).toEqual([EVT, EVT]);
    expect(
      io
        .stdoutText()
        .split('\n')
        .filter((l) => l.startsWith('-->')),
    ).toEqual([`--> transfer.completed [${EVT}]`, `--> transfer.completed [${EVT}] (repeat 2)`]);
    expect(
      io
        .stderrText()
        .split('\n')
        .filter((l) => /replayed webhook-id \(the first delivery is still being forwarded\)/.test(l)),
    ).toHaveLength(6);
    // After it was accepted: acknowledged, not forwarded again.
    expect((await deliver(listener.url, { ts })).status).toBe(200);
    expect(got).toEqual([EVT, EVT]);
  });

  it('forwards only to https or loopback http', () => {
    expect(checkForwardUrl('https://hooks.example.com/x').hostname).toBe('hooks.example.com');
    expect(checkForwardUrl('http://localhost:3000/x').port).toBe('3000');
    expect(() => checkForwardUrl('http://hooks.example.com/x')).toThrow(/must use https:\/\/, or http:\/\/ to localhost/);
    expect(() => checkForwardUrl('ftp://127.0.0.1/x')).toThrow(/must use https/);
  });

  it('the command refuses a bad port or forward URL before listening, and needs a secret', async () => {
    const port = await pay(['webhooks', 'listen', '--port', '70000', '--secret', SECRET]);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port must be a whole number from 0 to 65535/);
    const forward = await pay(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--forward-to', 'http://example.com/']);
    expect(forward.code).toBe(2);
    expect(forward.stderr).toMatch(/--forward-to must use https:\/\/, or http:\/\/ to localhost/);
    const r = await pay(['webhooks', 'listen', '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no webhook secret/);
  });

  it('refuses a --forward-to that is its own address (exit 2 before listening); generated forms of this machine, ports and paths', async () => {
    const self = fc.record({
      host: fc.constantFrom('localhost', 'LOCALHOST', '127.0.0.1', '127.8.9.10', '[::1]', '0.0.0.0', '[::]'),
      bind: fc.constantFrom('127.0.0.1', 'localhost', '::1', '0.0.0.0'),
      port: fc.integer({ min: 1, max: 65535 }),
      path: fc.webPath(),
      https: fc.boolean(),
    });
    fc.assert(
      fc.property(self, fc.integer({ min: 1, max: 65534 }), ({ host, bind, port, path, https }, shift) => {
        const at = `${https ? 'https' : 'http'}://${host}:${port}${path}`;
        expect(isOwnAddress(at, { hostname: bind, port }), at).toBe(true);
        // Another port on the same host is someone else (the app).
        const other = ((port - 1 + shift) % 65535) + 1;
        expect(isOwnAddress(`http://${host}:${other}${path}`, { hostname: bind, port }), at).toBe(false);
      }),
      { seed: 8 },
    );
    // A default port counts as itself; a host elsewhere does not.
    expect(isOwnAddress('http://localhost/x', { hostname: '127.0.0.1', port: 80 })).toBe(true);
    expect(isOwnAddress('https://localhost/x', { hostname: '127.0.0.1', port: '443' })).toBe(true);
    expect(isOwnAddress('https://hooks.example.com:8788/x', { hostname: '127.0.0.1', port: 8788 })).toBe(false);
    expect(isOwnAddress('https://hooks.example.com:8788/x', { hostname: 'hooks.example.com', port: 8788 })).toBe(true);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('localhost', '127.0.0.1', '[::1]', '127.0.0.2'),
        fc.integer({ min: 1, max: 65535 }),
        fc.webPath(),
        fc.constantFrom('http', 'https'),
        async (host, port, path, scheme) => {
          const to = `${scheme}://${host}:${port}${path}`;
          const r = await pay(['webhooks', 'listen', '--port', String(port), '--secret', SECRET, '--forward-to', to]);
          expect({ code: r.code, stdout: r.stdout }, to).toEqual({ code: 2, stdout: '' });
          expect(r.stderr, to).toMatch(
            new RegExp(
              `^error: --forward-to \\S+ is this listen's own address \\(port ${port}\\): each delivery would be forwarded to itself, forever\\nhint: forward to your app's address`,
            ),
          );
          expect(r.stderr, to).not.toContain('Ready');
          expect(r.requests).toEqual([]);
        },
      ),
      { numRuns: 25, seed: 8 },
    );
  });

  it('-o takes only what listen prints (json, ndjson); --print-secret with --json or -o ndjson prints a JSON string', async () => {
    for (const format of ['tsv', 'csv', 'table']) {
      const r = await pay(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '-o', format]);
      expect({ code: r.code, stdout: r.stdout }, format).toEqual({ code: 2, stdout: '' });
      expect(r.stderr, format).toMatch(
        new RegExp(`^error: option '-o, --output <format>' argument '${format}' is invalid\\. Allowed choices are json, ndjson\\.\\n`),
      );
      expect(r.stderr, format).not.toContain('Ready');
    }
    const text = await pay(['webhooks', 'listen', '--secret', SECRET, '--print-secret']);
    expect(text).toMatchObject({ code: 0, stdout: `${SECRET}\n` });
    for (const flags of [['--json'], ['-o', 'json'], ['-o', 'ndjson']]) {
      const r = await pay(['webhooks', 'listen', '--secret', SECRET, '--print-secret', ...flags]);
      expect(r.code, flags.join(' ')).toBe(0);
      expect(JSON.parse(r.stdout), flags.join(' ')).toBe(SECRET);
      expect(r.stdout.trim(), flags.join(' ')).toBe(JSON.stringify(SECRET));
    }
    // --jq's strings print raw, as everywhere.
    expect((await pay(['webhooks', 'listen', '--secret', SECRET, '--print-secret', '--jq', '.'])).stdout).toBe(`${SECRET}\n`);
  });

  it('the command says Ready on stderr and exits 0 on SIGTERM', async () => {
    const run = pay(['webhooks', 'listen', '--port', '0', '--secret', SECRET]);
    // Wait for the listener to be up (it registers its signal handler then), then signal it by
    // calling that handler (a real kill would reach the test runner too).
    const stops = () => process.listeners('SIGTERM').filter((l) => l.name === 'stop');
    await until('the listener to be up', () => stops().length > 0);
    expect(stops()).toHaveLength(1);
    (stops()[0] as () => void)();
    const r = await run;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^Ready, listening on (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl-C to stop\)\nThe service at https:\/\/api\.example\.com\/v1\/ is not a local emulator, so nothing was registered: register \1 as its webhook endpoint .*\(pay webhooks listen --print-secret prints it\)\.\nStopped\.\n$/,
    );
    // A hosted service is never asked anything.
    expect(r.requests).toEqual([]);
    expect(stops()).toHaveLength(0);
    expect(process.listeners('SIGINT').filter((l) => l.name === 'stop')).toHaveLength(0);
  });
});

describe('webhooks listen: credentials, loops between listens, stopping with forwards in flight', () => {
  const open: Array<{ close(): unknown }> = [];
  afterEach(async () => {
    for (const s of open.splice(0).reverse()) await s.close();
  });
  async function deliver(url: string, id = EVT) {
    const ts = now();
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(ts),
        'webhook-signature': sign(SECRET, id, ts, BODY),
      },
      body: BODY,
    });
    return { status: res.status, body: await res.text() };
  }

  it('--forward-to with a user name or password: exit 2, the password never shown (generated)', async () => {
    const part = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.option(part, { nil: '' }),
        part,
        fc.constantFrom('http://127.0.0.1:3901/', 'https://hooks.example.com/x'),
        async (user, pw, at) => {
          const url = at.replace('//', `//${user}${user && pw ? ':' : ''}${user ? '' : ':'}${pw}@`);
          expect(() => checkForwardUrl(url)).toThrow(/--forward-to must not carry a user name or password/);
          const r = await pay(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--forward-to', url]);
          expect(r.code, url).toBe(2);
          expect(r.stderr).toMatch(/^error: --forward-to must not carry a user name or password/);
          expect(r.stderr).not.toContain(`:${pw}@`);
          if (pw.length >= 4) expect(r.stderr).not.toContain(pw);
          expect(r.stdout).toBe('');
        },
      ),
      { numRuns: 25 },
    );
  });

  it('two listens forwarding to each other: each delivery is forwarded once, the other answers 508 with one line, never again', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.boolean(), async (n, toA) => {
        const ioA = bufferIOStreams();
        const ioB = bufferIOStreams();
        // B first, on a port of its own; A forwards to B; then B is replaced by one forwarding to A, on B's port.
        const probe = await listenFor(ioB);
        const portB = new URL(probe.url).port;
        await probe.close();
        const a = await listenFor(ioA, { forwardTo: new URL(`http://127.0.0.1:${portB}/`) });
        open.push(a);
        const b = await startListener({
          host: '127.0.0.1',
          port: Number(portB),
          secret: SECRET,
          json: false,
          io: ioB,
          line: printLine(ioB),
          forwardTo: new URL(a.url),
        });
        open.push(b);
        const [first, firstIo, secondIo] = toA ? [a, ioA, ioB] : [b, ioB, ioA];
        for (let i = 0; i < n; i++) {
          const r = await deliver(first.url, `evt_0123456789abcdefghijk${i}xx`.slice(0, 28));
          expect(r.status).toBe(508);
        }
        // The first forwarded each once (and heard 508); the second forwarded nothing and said so once each.
        expect(firstIo.stdoutText().match(/^<-- \[508\]/gm)).toHaveLength(n);
        expect(secondIo.stdoutText()).toBe('');
        const loops = secondIo.stderrText().split('\n').filter(Boolean);
        expect(loops).toHaveLength(n);
        for (const line of loops)
          expect(line).toMatch(
            / loop: evt_\w+ came through another pay webhooks listen's --forward-to; answered 508 Loop Detected, not forwarded/,
          );
        await b.close();
        await a.close();
        open.splice(0);
      }),
      { numRuns: 4 },
    );
  });

  it('abortForwards cuts off a forward in flight at once: the sender gets 502, the line says cut off', async () => {
    let arrived = 0;
    const target = createServer(() => void arrived++); // never answers
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    open.push({ close: () => (target.closeAllConnections(), new Promise((r) => target.close(r))) });
    const io = bufferIOStreams();
    const to = new URL(`http://127.0.0.1:${(target.address() as { port: number }).port}/`);
    const listener = await listenFor(io, { forwardTo: to, forwardTimeoutMs: 600_000 });
    open.push(listener);
    const sent = deliver(listener.url);
    await until('the forward reached the target', () => arrived === 1);
    expect(listener.abortForwards()).toBe(1);
    expect((await sent).status).toBe(502);
    expect(io.stdoutText()).toMatch(/<-- \[error\] POST .* cut off: the listen is stopping \(the sender retries it later\)\n$/);
  });

  it('the command stopped with a forward in flight stops at once and says what was cut off', async () => {
    let arrived = 0;
    const target = createServer(() => void arrived++);
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    open.push({ close: () => (target.closeAllConnections(), new Promise((r) => target.close(r))) });
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as { port: number }).port;
    await new Promise((r) => free.close(r));
    const to = `http://127.0.0.1:${(target.address() as { port: number }).port}/`;
    const run = pay(['webhooks', 'listen', '--port', String(port), '--secret', SECRET, '--forward-to', to], { loopback: true });
    const stops = () => process.listeners('SIGINT').filter((l) => l.name === 'stop');
    await until('listening', () => stops().length === 1);
    const sent = deliver(`http://127.0.0.1:${port}/`).catch(() => ({ status: 0, body: '' }));
    await until('the forward reached the target', () => arrived === 1);
    (stops()[0] as () => void)();
    const r = await run;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Stopped; 1 delivery being forwarded was cut off: the sender got no answer \(502\) and retries it later\.\n$/);
    expect([502, 0]).toContain((await sent).status);
  });
});
