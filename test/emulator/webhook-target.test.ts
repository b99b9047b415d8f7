// Where the emulator may deliver webhooks: an http(s) URL with no user name or password, plain
// http only to this machine, never the emulator itself (a delivery to POST /__emulator/reset
// wiped its data; one to its own API looped). The shared check (src/shared/validate.ts) over
// generated URLs, the admin route, and the start option.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookTarget, isLoopbackHost } from '../../src/shared/validate.js';
import { admin, client, customerBody, start, type Emulator } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.stop());

const host = fc.oneof(
  fc.constantFrom('localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'example.com', '10.0.0.5', '192.168.1.2', '[fe80::1]', 'evil.test'),
  fc.domain(),
);

describe('checkWebhookTarget', () => {
  it('takes https anywhere and http to loopback only; never credentials or port 0', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https', 'ftp', 'file'),
        fc.option(fc.constantFrom('admin:S3cret@', 'user@', ':pw@'), { nil: undefined }),
        host,
        fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }),
        fc.webPath(),
        (scheme, creds, h, port, path) => {
          const url = `${scheme}://${creds ?? ''}${h}${port === undefined ? '' : `:${port}`}${path}`;
          const problem = checkWebhookTarget(url);
          let u: URL | undefined;
          try {
            u = new URL(url);
          } catch {
            u = undefined;
          }
          const ok =
            u !== undefined &&
            (u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname))) &&
            u.username === '' &&
            u.password === '' &&
            u.port !== '0' &&
            url.length <= 2048;
          expect(problem === undefined, `${url}: ${problem ?? 'taken'}`).toBe(ok);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('the emulator never delivers to itself', () => {
  it('the admin route refuses its own address on any loopback name and path, and the URLs the check refuses; the URL stays as it was', async () => {
    const port = new URL(emu.url).port;
    for (const url of [
      `http://127.0.0.1:${port}/__emulator/reset`,
      `http://localhost:${port}/v1/customers`,
      `http://[::1]:${port}/`,
      `http://127.9.9.9:${port}/x`,
      'http://admin:S3cret@127.0.0.1:39201/x',
      'http://10.0.0.5/h',
      'http://127.0.0.1:0/',
    ]) {
      const r = await admin(emu, 'POST', 'webhook-url', { url });
      expect(r.status, url).toBe(422);
      expect(JSON.stringify(r.body)).not.toContain('S3cret');
      expect((await admin(emu, 'GET', 'webhook-url')).body).toEqual({ url: null });
    }
    // Data survives: nothing was delivered anywhere.
    expect((await client(emu)('POST', 'customers', customerBody())).status).toBe(201);
  });

  it('startEmulator refuses a webhook URL that turns out to be its own address once it listens', async () => {
    const probe = await start();
    const port = Number(new URL(probe.url).port);
    await probe.stop();
    await expect(start({ port, webhookUrl: `http://127.0.0.1:${port}/__emulator/reset` })).rejects.toThrow(/own address/);
    // The port is free again: a plain start there works.
    const again = await start({ port });
    await again.stop();
  });
});
