// `pay webhooks listen` with no configuration against the emulator, the built CLI as a child
// process: the emulator (in process, no webhook URL, no webhook secret in the environment) is
// found behind the base URL, listen takes its webhook URL, the events made before it started are
// delivered and forwarded to the app, a resend reaches the app again (marked as a repeat), and
// SIGINT gives the URL back. Also: the line formats and --json, --skip-duplicates, --events,
// --print-secret, two listens at once, a forward target that is down, and a base URL that is not
// an emulator (the paragraph saying what to register, and listening as before).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAY_BIN } from '../helpers/run-pay.js';
import { customerBody, startWorld, until, type Obj, type World } from './groups/helpers.js';

let w: World;
let app: Server;
let appPort: number;
let appUrl: string;
/** What the app received: webhook-id and type, in order. */
const got: Array<{ id: string; type: string }> = [];

interface Listen {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  /** The listener's own URL (from its ready line). */
  url: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `pay webhooks listen --port 0 …` against the world's emulator and waits for its ready line. */
async function listen(args: string[], env: Record<string, string> = {}): Promise<Listen> {
  const child = spawn(process.execPath, [PAY_BIN, 'webhooks', 'listen', '--port', '0', ...args], {
    env: { ...w.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  try {
    await until('listen to be ready', () => err.includes('(Ctrl-C to stop)\n') && err.split('\n').length > 2);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${err}`, { cause: e });
  }
  const url = /Ready, listening on (http:\/\/\S+?)[,\s]/.exec(err)![1]!;
  return {
    child,
    out: () => out,
    err: () => err,
    url,
    stop: async (signal = 'SIGINT') => {
      if (child.exitCode === null) child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await closed;
      clearTimeout(t);
      return code;
    },
  };
}

/** Runs pay to its end without runPay's check for printed secrets (--print-secret prints one by design). */
function raw(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PAY_BIN, ...args], { env: { ...w.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const t = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

const webhookUrl = async (): Promise<string | null> =>
  ((await (await fetch(`${w.emu.url}/__emulator/webhook-url`)).json()) as { url: string | null }).url;
const eventFor = async (type: string, objectId: string): Promise<Obj> =>
  (await w.api('GET', `webhooks/events?type=${type}&limit=100`)).data.find((e: Obj) => e.data.object.id === objectId);
const lines = (text: string): string[] => text.split('\n').filter(Boolean);
const esc = (s: string): string => s.replace(/[./]/g, '\\$&');

beforeAll(async () => {
  w = await startWorld({ webhookRetryScale: 100 });
  app = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      got.push({ id: String(req.headers['webhook-id']), type: (JSON.parse(body) as { type: string }).type });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appPort = (app.address() as AddressInfo).port;
  appUrl = `http://127.0.0.1:${appPort}/hooks`;
});
afterAll(async () => {
  await w?.stop();
  await new Promise((r) => app?.close(r));
});

describe('pay webhooks listen, zero-config against the emulator', () => {
  it('takes the webhook URL, gets the events made before it started, forwards each, a resend again (repeat 2); SIGINT gives the URL back', async () => {
    expect(await webhookUrl()).toBeNull();
    // Made before listen: pending, no attempt due.
    const c = await w.api('POST', 'customers', customerBody());
    const ev = await eventFor('customer.created', c.id);
    expect(ev.delivery).toMatchObject({ status: 'pending', next_attempt_at: null });

    const l = await listen(['--forward-to', appUrl]);
    expect(l.err()).toBe(
      `Ready, listening on ${l.url}, forwarding to ${appUrl} (Ctrl-C to stop)\n` +
        `Registered ${l.url} as the webhook URL of the emulator at ${w.emu.url} for Sandbox events (it was none; given back when this stops); Sandbox events still pending delivery come now.\n`,
    );
    expect(await webhookUrl()).toBe(l.url);
    await until('the pending event at the app', () => got.some((g) => g.id === ev.id));
    await until('the two lines of the delivery', () => lines(l.out()).length >= 2);
    expect(l.out()).toMatch(
      new RegExp(`^--> customer\\.created \\[${ev.id}\\]\\n<-- \\[200\\] POST ${esc(appUrl)} \\(\\d+ ms\\) \\[${ev.id}\\]\\n$`),
    );
    await until('delivered', async () => (await w.api('GET', `webhooks/events/${ev.id}`)).delivery.status === 'delivered');

    // The event happens again for the app: a resend reaches it, marked as a repeat.
    const resend = await w.pay(['webhooks', 'resend', ev.id, '--json']);
    expect(resend.code, resend.stderr).toBe(0);
    await until('the resent event at the app', () => got.filter((g) => g.id === ev.id).length === 2);
    await until('the lines of the resend', () => lines(l.out()).length >= 4);
    expect(lines(l.out()).slice(2)).toEqual([
      `--> customer.created [${ev.id}] (repeat 2)`,
      expect.stringMatching(new RegExp(`^<-- \\[200\\] POST .* \\[${ev.id}\\]$`)),
    ]);

    // An event made while listening goes straight through.
    const a = await w.api('POST', 'accounts', { customer_id: c.id, currency: 'USD' });
    const evA = await until('the account event', () => eventFor('account.created', a.id));
    await until('the new event at the app', () => got.some((g) => g.id === evA.id));

    expect(await l.stop('SIGINT')).toBe(0);
    expect(l.err()).toMatch(/Gave the emulator's Sandbox webhook URL back: none\nStopped\.\n$/);
    expect(await webhookUrl()).toBeNull();
    const none = await w.pay(['emulator', 'webhook-url']);
    expect(none.stdout).toBe('');
  }, 180_000);

  it('--json: one object per delivery with the forward result; --skip-duplicates: a resend is acknowledged, not forwarded', async () => {
    const l = await listen(['--forward-to', appUrl, '--json', '--skip-duplicates']);
    try {
      const c = await w.api('POST', 'customers', customerBody());
      const ev = await until('the event', () => eventFor('customer.created', c.id));
      await until('the delivery', () => lines(l.out()).length >= 1);
      const [d] = lines(l.out()).map((x) => JSON.parse(x) as Obj);
      expect(d).toEqual({
        webhook_id: ev.id,
        type: 'customer.created',
        repeat: 1,
        received_at: expect.any(String),
        forward: { url: appUrl, status: 200, duration_ms: expect.any(Number), error: null },
        event: { id: ev.id, type: 'customer.created', created_at: ev.created_at, data: { object: c } },
      });
      await until('delivered', async () => (await w.api('GET', `webhooks/events/${ev.id}`)).delivery.status === 'delivered');
      const before = got.filter((g) => g.id === ev.id).length;
      expect((await w.pay(['webhooks', 'resend', ev.id])).code).toBe(0);
      await until('the second attempt', async () => (await w.api('GET', `webhooks/events/${ev.id}`)).attempts.length === 2);
      const e = await w.api('GET', `webhooks/events/${ev.id}`);
      expect(e.attempts[1]).toMatchObject({ response_code: 200, url: l.url });
      expect(l.err()).toContain(
        `duplicate ${ev.id}: replayed webhook-id, already accepted; acknowledged, not forwarded again (--skip-duplicates)`,
      );
      expect(got.filter((g) => g.id === ev.id)).toHaveLength(before);
      expect(lines(l.out())).toHaveLength(1);
    } finally {
      expect(await l.stop('SIGTERM')).toBe(0);
    }
    expect(await webhookUrl()).toBeNull();
  }, 180_000);

  it('--events: only those types are printed and forwarded; the others are acknowledged (delivered) silently', async () => {
    const l = await listen(['--forward-to', appUrl, '--events', 'account.created']);
    try {
      const c = await w.api('POST', 'customers', customerBody());
      const a = await w.api('POST', 'accounts', { customer_id: c.id, currency: 'USD' });
      const evC = await until('customer event', () => eventFor('customer.created', c.id));
      const evA = await until('account event', () => eventFor('account.created', a.id));
      await until('the account event at the app', () => got.some((g) => g.id === evA.id));
      await until('customer delivered', async () => (await w.api('GET', `webhooks/events/${evC.id}`)).delivery.status === 'delivered');
      expect(got.some((g) => g.id === evC.id)).toBe(false);
      await until('the lines', () => lines(l.out()).length >= 2);
      expect(lines(l.out())[0]).toBe(`--> account.created [${evA.id}]`);
      expect(l.out()).not.toContain(evC.id);
    } finally {
      expect(await l.stop()).toBe(0);
    }
    const bad = await w.pay(['webhooks', 'listen', '--port', '0', '--events', 'customer.creatd,transfer.failed']);
    expect({ code: bad.code, stdout: bad.stdout }).toEqual({ code: 2, stdout: '' });
    expect(bad.stderr).toBe(
      'error: --events: unknown event type "customer.creatd"\nhint: did you mean customer.created? pay webhooks list --help lists every event type (--type)\n',
    );
  }, 180_000);

  it('two listens at once: the second takes over, the first leaves it when it stops, the second gives back what was there before both', async () => {
    w.emu.admin.setWebhookUrl(appUrl);
    const a = await listen([]);
    const b = await listen([]);
    expect(b.err()).toContain(`(it was ${a.url}; given back when this stops)`);
    expect(await webhookUrl()).toBe(b.url);
    expect(await a.stop()).toBe(0);
    expect(a.err()).toContain(`Left the emulator's Sandbox webhook URL as it is (${b.url}): it was changed after this listen registered\n`);
    expect(await webhookUrl()).toBe(b.url);
    expect(await b.stop()).toBe(0);
    expect(b.err()).toContain(`Gave the emulator's Sandbox webhook URL back: ${appUrl}\n`);
    expect(await webhookUrl()).toBe(appUrl);
    w.emu.admin.setWebhookUrl(null);
  }, 180_000);

  it("one URL per mode: a Sandbox listen and a --live listen each get only their mode's events (no rejected lines), and each gives back its own", async () => {
    const url = async (mode: string): Promise<string | null> =>
      ((await (await fetch(`${w.emu.url}/__emulator/webhook-url?mode=${mode}`)).json()) as { url: string | null }).url;
    const liveApi = async (method: string, path: string, body?: unknown): Promise<Obj> => {
      const res = await fetch(`${w.emu.baseUrl}${path}`, {
        method,
        headers: {
          'api-key': w.emu.keys.live.secret,
          'x-tenant-id': w.emu.tenantId,
          'content-type': 'application/json',
          ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, path).toBeLessThan(300);
      return (await res.json()) as Obj;
    };
    // Live activity before any listen: its events wait for the Live URL, never for the Sandbox one.
    const early = await liveApi('POST', 'customers', customerBody());
    const sandbox = await listen([]);
    const live = await listen(['--live'], { PAY_API_KEY: w.emu.keys.live.secret });
    try {
      expect(live.err()).toContain(
        `Registered ${live.url} as the webhook URL of the emulator at ${w.emu.url} for Live events (it was none;`,
      );
      expect(await url('sandbox')).toBe(sandbox.url);
      expect(await url('live')).toBe(live.url);
      const s1 = await w.api('POST', 'customers', customerBody());
      const l1 = await liveApi('POST', 'customers', customerBody());
      const evS = await until('the Sandbox event', () => eventFor('customer.created', s1.id));
      const liveEvent = async (id: string): Promise<Obj | undefined> =>
        (await liveApi('GET', 'webhooks/events?type=customer.created&limit=100')).data.find((e: Obj) => e.data.object.id === id);
      const evL = await until('the Live event', () => liveEvent(l1.id));
      const evEarly = await until('the early Live event', () => liveEvent(early.id));
      await until('the Sandbox delivery', () => sandbox.out().includes(evS.id));
      await until('the Live deliveries', () => live.out().includes(evL.id) && live.out().includes(evEarly.id));
      for (const id of [evL.id, evEarly.id])
        await until('delivered', async () => (await liveApi('GET', `webhooks/events/${id}`)).delivery.status === 'delivered');
      expect(lines(sandbox.out())).toEqual([`--> customer.created [${evS.id}]`]);
      expect(lines(live.out()).sort()).toEqual([`--> customer.created [${evEarly.id}]`, `--> customer.created [${evL.id}]`].sort());
      for (const l of [sandbox, live]) expect(l.err()).not.toContain('rejected');
    } finally {
      expect(await live.stop()).toBe(0);
      expect(await sandbox.stop()).toBe(0);
    }
    expect(live.err()).toContain("Gave the emulator's Live webhook URL back: none\n");
    expect(sandbox.err()).toContain("Gave the emulator's Sandbox webhook URL back: none\n");
    expect([await url('sandbox'), await url('live')]).toEqual([null, null]);
    // pay emulator webhook-url acts on the mode it runs in; status shows both.
    const hooks = `${appUrl}?live`;
    const set = await w.pay(['--live', 'emulator', 'webhook-url', hooks, '--json']);
    expect({ code: set.code, out: JSON.parse(set.stdout) as unknown }).toEqual({ code: 0, out: { mode: 'live', url: hooks } });
    expect(set.stderr).toBe('✓ Live webhook URL set: Live events still pending delivery go out to it now\n');
    expect((await w.pay(['emulator', 'webhook-url'])).stderr).toBe(
      'No Sandbox webhook URL set: Sandbox events stay pending. Set one with pay emulator webhook-url <url>, or run pay webhooks listen\n',
    );
    const status = JSON.parse((await w.pay(['emulator', 'status', '--json'])).stdout) as Obj;
    expect(status.webhook_urls).toEqual({ sandbox: null, live: hooks });
    expect((await w.pay(['--live', 'emulator', 'webhook-url', '--clear'])).code).toBe(0);
    expect(await url('live')).toBeNull();
  }, 180_000);

  it("a port in use: one error line, exit 1, and the emulator's webhook URL left alone", async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    try {
      w.emu.admin.setWebhookUrl(appUrl);
      const r = await raw(['webhooks', 'listen', '--port', String(port)]);
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: port ${port} on 127.0.0.1 is already in use\nhint: choose another --port (0 picks a free one)\n`,
      });
      expect(await webhookUrl()).toBe(appUrl);
    } finally {
      w.emu.admin.setWebhookUrl(null);
      await new Promise((r) => busy.close(r));
    }
  }, 120_000);

  it("--print-secret prints the secret deliveries are verified with (the emulator's, none being configured) and exits", async () => {
    const r = await raw(['webhooks', 'listen', '--print-secret']);
    expect(r).toEqual({ code: 0, stdout: `${w.emu.webhookSecret}\n`, stderr: '' });
    const live = await raw(['webhooks', 'listen', '--print-secret', '--live'], { PAY_API_KEY: w.emu.keys.live.secret });
    expect(live.stdout).toBe(`${w.emu.webhookSecrets.live}\n`);
    // A configured secret wins (precedence); one that is not the emulator's is said to be wrong.
    const other = 'whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldA==';
    const mine = await raw(['webhooks', 'listen', '--print-secret'], { PAY_WEBHOOK_SECRET: other });
    expect(mine.stdout).toBe(`${other}\n`);
    expect(mine.stderr).toMatch(
      /^warning: the webhook secret from PAY_WEBHOOK_SECRET is not the one the emulator at http:\/\/127\.0\.0\.1:\d+ signs with: its deliveries will be rejected/,
    );
    expect(mine.stderr).not.toContain(w.emu.webhookSecret);
  }, 120_000);

  it('a forward target that is down: a warning at start; each delivery gets one <-- [error] line and the emulator a 502 (it retries)', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/hooks`;
    await new Promise<void>((r) => dead.close(() => r()));
    const l = await listen(['--forward-to', deadUrl]);
    try {
      await until('the warning', () => l.err().includes('warning: nothing answers'));
      expect(l.err()).toContain(
        `warning: nothing answers at ${deadUrl} yet (connection refused): each delivery gets <-- [error] and a 502, so the sender retries it, until it does\n`,
      );
      const c = await w.api('POST', 'customers', customerBody());
      const ev = await until('the event', () => eventFor('customer.created', c.id));
      await until('the lines', () => lines(l.out()).length >= 2);
      expect(lines(l.out())).toEqual([
        `--> customer.created [${ev.id}]`,
        expect.stringMatching(new RegExp(`^<-- \\[error\\] POST ${esc(deadUrl)} \\(\\d+ ms\\) \\[evt_\\w+\\]: connection refused$`)),
      ]);
      const e = await until('the failed attempt', async () => {
        const x = await w.api('GET', `webhooks/events/${ev.id}`);
        return x.attempts.length >= 1 ? x : undefined;
      });
      expect(e.attempts[0].response_code).toBe(502);
      expect(e.delivery.status).toBe('pending');
    } finally {
      expect(await l.stop()).toBe(0);
    }
  }, 180_000);

  it('a base URL that is not an emulator: one paragraph saying what to register, nothing registered, and it listens as before', async () => {
    const fake = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1/`;
    try {
      const l = await listen(['--secret', w.emu.webhookSecret], { PAY_BASE_URL: base });
      const [ready, paragraph, ...rest] = lines(l.err());
      expect(ready).toBe(`Ready, listening on ${l.url} (Ctrl-C to stop)`);
      expect(paragraph).toBe(
        `The server at ${base.slice(0, -4)} is not a pay emulator, so nothing was registered: start one (pay emulator start) and run listen again, ` +
          `or register ${l.url} as the webhook endpoint of the service that sends the events, signing with the secret this listen verifies with (pay webhooks listen --print-secret prints it).`,
      );
      expect(rest).toEqual([]);
      // It receives what is sent to it (here: the emulator, pointed at it by hand).
      w.emu.admin.setWebhookUrl(l.url);
      const c = await w.api('POST', 'customers', customerBody());
      const ev = await until('the event', () => eventFor('customer.created', c.id));
      await until('the delivery', () => l.out().includes(ev.id));
      expect(l.out()).toBe(`--> customer.created [${ev.id}]\n`);
      expect(await l.stop()).toBe(0);
      expect(l.err()).not.toContain('Gave');
      expect(await webhookUrl()).toBe(l.url);
      w.emu.admin.setWebhookUrl(null);
    } finally {
      await new Promise((r) => fake.close(r));
    }
    expect(await webhookUrl()).toBeNull();
  }, 180_000);
});
