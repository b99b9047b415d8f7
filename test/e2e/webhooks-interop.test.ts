// Webhooks with the libraries receivers use: every delivery the emulator makes (first attempts
// and retries) verifies with the `standardwebhooks` and `svix` libraries, with the secret as
// printed and without its `whsec_` prefix, under the Standard Webhooks header names and the Svix
// ones; and pay verifies what those libraries sign: `pay webhooks verify` and `listen` take the
// svix-* header names and a secret without `whsec_`. The shared verifier agrees with both
// libraries on generated deliveries, good and spoiled (fast-check).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '../../src/shared/signature.js';
import { PAY_BIN, registerSecret, tempDir } from '../helpers/run-pay.js';
import { customerBody, startWorld, until, type Obj, type World } from './groups/helpers.js';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

let w: World;
let receiver: Server;
const deliveries: Delivery[] = [];
/** Deliveries the receiver still answers 500 (to see the emulator's retries). */
let failNext = 0;
let secret: string;
let bare: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (failNext > 0) {
        failNext--;
        res.writeHead(500).end();
      } else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  w = await startWorld({ webhookUrl: url, webhookRetryScale: 0.001 });
  secret = w.emu.webhookSecret;
  bare = secret.slice('whsec_'.length);
  registerSecret(bare);
});
afterAll(async () => {
  await w?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** The delivery's three headers under their Standard Webhooks names, or renamed to Svix's. */
function headersOf(d: Delivery, family: 'webhook' | 'svix'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['id', 'timestamp', 'signature']) out[`${family}-${name}`] = String(d.headers[`webhook-${name}`]);
  return out;
}

describe('emulator deliveries, verified by the standardwebhooks and svix libraries', () => {
  it('every delivery, first attempts and retries, verifies with both libraries, with and without whsec_', async () => {
    failNext = 1;
    const customer = await w.api('POST', 'customers', customerBody());
    await w.api('POST', 'accounts', { customer_id: customer.id, currency: 'USD' });
    // customer.created (refused once, then retried) and account.created: at least three deliveries.
    await until('three deliveries', () => deliveries.length >= 3);

    const ids = new Set<string>();
    for (const d of deliveries) {
      const event = JSON.parse(d.body) as Obj;
      ids.add(String(d.headers['webhook-id']));
      expect(d.headers['webhook-id']).toBe(event.id);
      for (const key of [secret, bare]) {
        expect(new StandardWebhook(key).verify(d.body, headersOf(d, 'webhook'))).toEqual(event);
        expect(new SvixWebhook(key).verify(d.body, headersOf(d, 'webhook'))).toEqual(event);
        expect(new SvixWebhook(key).verify(d.body, headersOf(d, 'svix'))).toEqual(event);
      }
      // Not vacuous: one byte more, and neither library accepts it.
      expect(() => new StandardWebhook(secret).verify(`${d.body} `, headersOf(d, 'webhook'))).toThrow(/No matching signature/);
      expect(() => new SvixWebhook(secret).verify(`${d.body} `, headersOf(d, 'svix'))).toThrow(/No matching signature/);
    }
    // The retry carried the same webhook-id as the refused first attempt.
    expect(deliveries.length).toBeGreaterThan(ids.size);
  }, 60_000);
});

describe('pay verifies what the libraries sign, under either header family', () => {
  it('the shared verifier agrees with both libraries on generated deliveries (fast-check)', () => {
    const headerName = (family: string, name: string, upper: boolean) => {
      const h = `${family}-${name}`;
      return upper ? h.toUpperCase() : h;
    };
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.boolean(),
        fc.constantFrom('webhook', 'svix'),
        fc.boolean(),
        fc.json(),
        fc.constantFrom('none', 'body', 'id', 'timestamp', 'secret', 'stale', 'extra-signature'),
        (keyBytes, prefixed, family, upper, body, spoil) => {
          const base64 = Buffer.from(keyBytes).toString('base64');
          const key = prefixed ? `whsec_${base64}` : base64;
          const id = `evt_${randomBytes(12).toString('hex')}`;
          const now = Math.floor(Date.now() / 1000);
          const ts = spoil === 'stale' ? now - 600 : now;
          const signer = spoil === 'secret' ? new StandardWebhook(randomBytes(24).toString('base64')) : new StandardWebhook(key);
          let signature = signer.sign(id, new Date(ts * 1000), body);
          if (spoil === 'extra-signature') signature = `v1,${randomBytes(32).toString('base64')} ${signature}`;
          const sent = {
            [headerName(family, 'id', upper)]: spoil === 'id' ? `${id}x` : id,
            [headerName(family, 'timestamp', upper)]: String(spoil === 'timestamp' ? ts + 1 : ts),
            [headerName(family, 'signature', upper)]: signature,
          };
          const payload = spoil === 'body' ? `${body} ` : body;
          const accepts = (f: () => unknown) => {
            try {
              f();
              return true;
            } catch {
              return false;
            }
          };
          const ours = verify(key, sent, payload, now).ok;
          const svix = accepts(() => new SvixWebhook(key).verify(payload, sent));
          expect(ours, `${spoil} ${family}`).toBe(svix);
          expect(ours).toBe(spoil === 'none' || spoil === 'extra-signature');
          if (family === 'webhook') expect(accepts(() => new StandardWebhook(key).verify(payload, sent))).toBe(ours);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('pay webhooks verify: svix-* headers and a secret without whsec_ (flag or environment); a spoiled body is invalid', async () => {
    const d = deliveries.at(-1)!;
    const dir = tempDir('pay-svix-');
    const body = join(dir, 'body.json');
    writeFileSync(body, d.body);
    const headerArgs = Object.entries(headersOf(d, 'svix')).flatMap(([k, v]) => ['--header', `${k}: ${v}`]);

    const byFlag = await w.pay(['webhooks', 'verify', '--payload', body, ...headerArgs, '--secret', bare]);
    expect({ code: byFlag.code, out: byFlag.stdout, err: byFlag.stderr }).toEqual({ code: 0, out: 'valid\n', err: '' });
    const byEnv = await w.pay(['webhooks', 'verify', '--payload', '-', ...headerArgs, '--json'], {
      stdin: d.body,
      env: { PAY_WEBHOOK_SECRET: bare },
    });
    expect(byEnv.code, byEnv.stderr).toBe(0);
    expect(JSON.parse(byEnv.stdout)).toMatchObject({ valid: true, webhook_id: d.headers['webhook-id'] });

    writeFileSync(body, `${d.body} `);
    const spoiled = await w.pay(['webhooks', 'verify', '--payload', body, ...headerArgs, '--secret', bare]);
    expect({ code: spoiled.code, out: spoiled.stdout, err: spoiled.stderr }).toEqual({
      code: 1,
      out: '',
      err: 'invalid: no signature matches\n',
    });
    const missing = await w.pay(['webhooks', 'verify', '--payload', body, ...headerArgs.slice(0, 4), '--secret', bare]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing the webhook-signature header/);
  }, 60_000);

  it('pay webhooks listen --secret <without whsec_> takes a delivery the svix library signed, sent with svix-* headers', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const listener: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [PAY_BIN, 'webhooks', 'listen', '--port', String(port), '--json', '--secret', bare],
      // A hosted base URL: this listen does not take the emulator's webhook URL (the receiver keeps it).
      { env: { ...w.env, PAY_BASE_URL: 'https://api.example.com/v1/' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    listener.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    listener.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    try {
      const url = `http://127.0.0.1:${port}/`;
      // Ready when it answers (a GET is 405 there).
      await until('the listener to answer', async () => (await fetch(url).catch(() => undefined))?.status === 405);
      const event = {
        id: 'evt_0123456789abcdefghijsvix',
        type: 'customer.created',
        created_at: new Date().toISOString(),
        data: { object: {} },
      };
      const body = JSON.stringify(event);
      const svix = new SvixWebhook(secret);
      const signed = (id: string, payload: string) => ({
        'svix-id': id,
        'svix-timestamp': String(Math.floor(Date.now() / 1000)),
        'svix-signature': svix.sign(id, new Date(), payload),
        'content-type': 'application/json',
      });
      const good = await fetch(url, { method: 'POST', headers: signed(event.id, body), body });
      expect(good.status, err).toBe(200);
      await until('the event line', () => out.includes('\n'));
      expect(JSON.parse(out.trim())).toMatchObject({ webhook_id: event.id, type: event.type, repeat: 1, forward: null, event });

      const forged = await fetch(url, { method: 'POST', headers: signed('evt_0123456789abcdefghijforg', body), body: `${body} ` });
      expect(forged.status).toBe(400);
      await until('the rejection line', () => /rejected evt_0123456789abcdefghijforg: no signature matches/.test(err));
      expect(out.trim().split('\n')).toHaveLength(1);
    } finally {
      listener.kill('SIGINT');
      await new Promise((resolve) => (listener.exitCode === null ? listener.once('exit', resolve) : resolve(undefined)));
    }
  }, 60_000);
});
