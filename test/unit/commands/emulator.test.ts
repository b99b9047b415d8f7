// The pieces of `pay emulator …` and zero-config `pay webhooks listen`, in process: the duration
// parser (fast-check), the detection of an emulator (a server that is not one, in generated
// variants, is refused with exit 2 and asked nothing but its health; a hosted base URL is asked
// nothing at all; nothing answering is exit 6), the request filters, and the rule that a listen
// gives the emulator's webhook URL back only while it is still its own (generated sequences of
// takes, releases and hand-set URLs against a real in-process emulator), also when a signal comes
// while it starts (generated moments: registering, registered, printing Ready, probing).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../src/emulator/index.js';
import { LOG_MAX_COUNT, RequestLog, type ReceivedRequest } from '../../../src/emulator/request-log.js';
import { DURATION_FORMS, formatDuration, MAX_ADVANCE_SECONDS, parseDuration } from '../../../src/shared/duration.js';
import { EMULATOR_HEADER, EMULATOR_NAME, EMULATOR_VERSION } from '../../../src/shared/emulator-id.js';
import { pathMatcher, statusMatcher } from '../../../src/shared/request-filter.js';
import { bufferIOStreams } from '../../../src/io/iostreams.js';
import { fakeSignals, pay } from './harness.js';
import { until } from '../../helpers/wait.js';

const UNITS = [
  ['w', 604_800],
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
] as const;

describe("durations (pay emulator clock advance and the lists' --since/--until: one grammar)", () => {
  it('reads the documented forms', () => {
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('15m')).toBe(900);
    expect(parseDuration('25h')).toBe(90_000);
    expect(parseDuration('7d')).toBe(604_800);
    expect(parseDuration('2w')).toBe(1_209_600);
    expect(parseDuration('1h30m')).toBe(5_400);
    expect(parseDuration('2d12h')).toBe(216_000);
    expect(parseDuration('1w2d3h4m5s')).toBe(788_645);
    expect(parseDuration(' 1H30M ')).toBe(5_400);
    expect(DURATION_FORMS).toMatch(/90s, 15m, 25h, 7d, 2w, 1h30m/);
  });

  it('any combination of units, largest first, is the sum of its parts', () => {
    const part = fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined });
    fc.assert(
      fc.property(fc.tuple(part, part, part, part, part), fc.boolean(), (counts, upper) => {
        const text = counts.map((n, i) => (n === undefined ? '' : `${n}${UNITS[i]![0]}`)).join('');
        const sum = counts.reduce<number>((acc, n, i) => acc + (n ?? 0) * UNITS[i]![1], 0);
        const expected = text !== '' && sum > 0 ? sum : undefined;
        expect(parseDuration(upper ? text.toUpperCase() : text), text).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('formatDuration and parseDuration are inverses', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ADVANCE_SECONDS }), (s) => {
        expect(parseDuration(formatDuration(s))).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses everything else: no unit, units out of order or repeated, decimals, signs, spaces inside, zero', () => {
    for (const bad of ['', '90', 's', '1.5h', '-5m', '+5m', '1h 30m', '30m1h', '1h1h', '1d1w', '0s', '0d0h', '1e3s', '٣s', '1hh', '1mo'])
      expect(parseDuration(bad), bad).toBeUndefined();
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        const n = parseDuration(text);
        if (n !== undefined) {
          expect(text.trim().toLowerCase()).toMatch(/^(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?$/);
          expect(n).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('request log filters', () => {
  it('--status: a class or one code', () => {
    expect(statusMatcher('4xx')!(404)).toBe(true);
    expect(statusMatcher('4XX')!(500)).toBe(false);
    expect(statusMatcher('404')!(404)).toBe(true);
    expect(statusMatcher('404')!(400)).toBe(false);
    expect(statusMatcher('5xx')!(null)).toBe(false);
    for (const bad of ['', '4x', '6xx', '40', '4040', 'xx', 'all', '4xx,5xx']) expect(statusMatcher(bad), bad).toBeUndefined();
  });

  it('--path: a prefix, or a glob (* in a segment, ** across); relative patterns under /v1/', () => {
    expect(pathMatcher('/v1/customers')!('/v1/customers/cus_1')).toBe(true);
    expect(pathMatcher('customers')!('/v1/customers')).toBe(true);
    expect(pathMatcher('customers')!('/v2/customers')).toBe(false);
    expect(pathMatcher('customers/*/kyc')!('/v1/customers/cus_1/kyc')).toBe(true);
    expect(pathMatcher('customers/*/kyc')!('/v1/customers/a/b/kyc')).toBe(false);
    expect(pathMatcher('/v1/**/kyc')!('/v1/customers/a/b/kyc')).toBe(true);
    expect(pathMatcher('/v1/a.b')!('/v1/aXb')).toBe(false);
    for (const bad of ['', 'a b', 'x?y', 'x#y', 'x\u0007', 'x'.repeat(513)]) expect(pathMatcher(bad), bad).toBeUndefined();
  });
});

/** A loopback server answering every request with `answer`; it records what it was asked. */
async function fakeServer(answer: (req: IncomingMessage) => { status: number; headers?: Record<string, string>; body?: string }): Promise<{
  server: Server;
  base: string;
  asked: string[];
}> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    req.resume();
    const a = answer(req);
    res.writeHead(a.status, a.headers ?? {});
    res.end(a.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`, asked };
}

const VERBS: string[][] = [
  ['emulator', 'status'],
  ['emulator', 'reset', '--yes'],
  ['emulator', 'clock', 'advance', '1h'],
  ['emulator', 'webhook-url'],
  ['emulator', 'webhook-url', 'http://127.0.0.1:9/x'],
  ['emulator', 'webhook-url', '--clear'],
  ['emulator', 'faults'],
  ['emulator', 'faults', '--clear'],
  ['emulator', 'requests'],
];

describe('detection: pay emulator … acts only on an emulator', () => {
  it('a base URL that is not a loopback address is refused (exit 2) and asked nothing', async () => {
    for (const argv of VERBS) {
      const r = await pay(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: https:\/\/api\.example\.com\/v1\/ \(base URL from PAY_BASE_URL\) is not a local emulator/);
      expect(r.requests).toEqual([]);
    }
  });

  it('a server that answers 200 to everything is not an emulator: exit 2, asked only its health, nothing reset', async () => {
    const fake = await fakeServer(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' }));
    try {
      for (const argv of VERBS) {
        fake.asked.length = 0;
        const r = await pay(argv, { env: { PAY_BASE_URL: fake.base }, loopback: true });
        expect(r.code, argv.join(' ')).toBe(2);
        expect(r.stderr).toContain(`error: the server at ${fake.base} (base URL from PAY_BASE_URL) is not a pay emulator`);
        expect(r.stderr).toMatch(
          /is not a pay emulator: its answer has no pay-emulator header; nothing was changed\nhint: start one with pay emulator start/,
        );
        expect(fake.asked).toEqual(['GET /__emulator/health']);
      }
    } finally {
      fake.server.close();
    }
  });

  it('generated look-alikes (some of the marks, not all; other statuses, bodies, sizes) are refused before anything else is asked', async () => {
    const variant = fc.record({
      status: fc.constantFrom(200, 200, 200, 204, 301, 403, 404, 500),
      header: fc.option(fc.constantFrom(EMULATOR_VERSION, '9.9.9', '', 'x'.repeat(70)), { nil: undefined }),
      name: fc.option(fc.constantFrom(EMULATOR_NAME, 'pay', 'Pay-Emulator', 'pay-emulator '), { nil: undefined }),
      version: fc.option(fc.constantFrom(EMULATOR_VERSION, '9.9.9', 1, '<script>'), { nil: undefined }),
      ok: fc.constantFrom(true, 'true', undefined),
      shape: fc.constantFrom('json', 'html', 'empty', 'array', 'big'),
    });
    let current: Record<string, unknown> = {};
    const fake = await fakeServer(() => {
      const v = current as {
        status: number;
        header?: string;
        name?: string;
        version?: unknown;
        ok?: unknown;
        shape: string;
      };
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (v.header !== undefined) headers[EMULATOR_HEADER] = v.header;
      const body = { ok: v.ok, emulator: v.name, version: v.version };
      const text =
        v.shape === 'json'
          ? JSON.stringify(body)
          : v.shape === 'html'
            ? '<html>ok</html>'
            : v.shape === 'array'
              ? JSON.stringify([body])
              : v.shape === 'big'
                ? JSON.stringify({ ...body, pad: 'x'.repeat(2 ** 20 + 10) })
                : '';
      return { status: v.status, headers, body: v.status === 204 ? '' : text };
    });
    try {
      const samples = fc
        .sample(variant, { numRuns: 60, seed: 14 })
        // The one combination that is an emulator's answer is not a look-alike (a 1 MiB one is refused as too large).
        .filter(
          (v) =>
            !(
              v.status === 200 &&
              v.header === EMULATOR_VERSION &&
              v.name === EMULATOR_NAME &&
              v.version === EMULATOR_VERSION &&
              v.ok === true &&
              v.shape === 'json'
            ),
        );
      for (const v of samples) {
        current = v;
        fake.asked.length = 0;
        const r = await pay(['emulator', 'reset', '--yes'], {
          env: { PAY_BASE_URL: fake.base, PAY_MAX_RESPONSE_BYTES: '1MiB' },
          loopback: true,
        });
        expect(r.code, JSON.stringify(v)).toBe(2);
        expect(r.stderr).toMatch(/^error: .*(is not a pay emulator|larger than)/);
        expect(fake.asked, JSON.stringify(v)).toEqual(['GET /__emulator/health']);
      }
    } finally {
      fake.server.close();
    }
  });

  it('nothing answering is exit 6 (a network failure), with how to start one', async () => {
    const fake = await fakeServer(() => ({ status: 200 }));
    const base = fake.base;
    await new Promise<void>((r) => fake.server.close(() => r()));
    const r = await pay(['emulator', 'status'], { env: { PAY_BASE_URL: base }, loopback: true });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      /^error: no emulator answers at http:\/\/127\.0\.0\.1:\d+\/v1\/ \(base URL from PAY_BASE_URL\): connection refused\nhint: start one with pay emulator start/,
    );
  });
});

describe('against a real emulator (in process)', () => {
  let emu: Emulator;
  const env = (): Record<string, string> => ({ PAY_BASE_URL: emu.baseUrl });
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it('status names it and its version; bad values are exit 2 before anything is sent', async () => {
    const s = await pay(['emulator', 'status', '--json'], { env: env(), loopback: true });
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({
      base_url: emu.baseUrl,
      version: EMULATOR_VERSION,
      url: emu.url,
      webhook_urls: { sandbox: null, live: null },
    });
    // --wide, accepted wherever a table can print (README), so one command line works everywhere.
    for (const argv of [
      ['emulator', 'status', '--wide'],
      ['emulator', 'faults', '--wide'],
      ['emulator', 'status', '-o', 'table', '--wide'],
    ]) {
      const w = await pay(argv, { env: env(), loopback: true });
      expect(w.code, `${argv.join(' ')}\n${w.stderr}`).toBe(0);
      expect(w.stdout, argv.join(' ')).not.toBe('');
    }
    for (const argv of [
      ['emulator', 'clock', 'advance', '1.5h'],
      ['emulator', 'webhook-url', 'ftp://x/'],
      ['emulator', 'webhook-url', 'http://x/', '--clear'],
      ['emulator', 'faults', '--fail-rate', '2'],
      ['emulator', 'faults', '--latency', '9-1'],
      ['emulator', 'faults', '--rate-limit', 'lots'],
      ['emulator', 'faults', '--clear', '--fail-rate', '0.1'],
      ['emulator', 'requests', '--status', '6xx'],
      ['emulator', 'requests', '--path', 'a b'],
      ['emulator', 'requests', '--limit', '0'],
      ['emulator', 'requests', '--follow', '--limit', '5'],
    ]) {
      const r = await pay(argv, { env: { PAY_BASE_URL: 'http://127.0.0.1:9/v1/' }, loopback: true });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/^error: /);
    }
  });

  it('reset takes --json: the dry run prints the request as JSON and sends no reset; a run prints {reset, emulator}', async () => {
    const before = await pay(['emulator', 'clock', 'advance', '1h', '--json'], { env: env(), loopback: true });
    expect(before.code, before.stderr).toBe(0);
    const offset = (JSON.parse(before.stdout) as { offset_ms: number }).offset_ms;
    for (const flags of [['--json'], ['--jq', '.']]) {
      const dry = await pay(['emulator', 'reset', '--dry-run', ...flags], { env: env(), loopback: true });
      expect(dry.code, dry.stderr).toBe(0);
      expect(JSON.parse(dry.stdout)).toMatchObject({ method: 'POST' });
    }
    // Nothing was reset: the clock is still ahead.
    const status = await pay(['emulator', 'status', '--json'], { env: env(), loopback: true });
    expect(JSON.stringify(JSON.parse(status.stdout))).toContain(`${offset}`);
    const r = await pay(['emulator', 'reset', '--yes', '--json'], { env: env(), loopback: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ reset: true, emulator: new URL(emu.baseUrl).origin });
  });

  it('clock advance takes weeks and units together (2w, 1w2d3h), the grammar --since takes', async () => {
    let total = 0;
    for (const [text, seconds] of [
      ['2w', 1_209_600],
      ['1w2d3h', 788_400],
      ['1H30M', 5_400],
    ] as const) {
      const r = await pay(['emulator', 'clock', 'advance', text, '--json'], { env: env(), loopback: true });
      expect(r.code, r.stderr).toBe(0);
      total += seconds;
      expect(JSON.parse(r.stdout)).toMatchObject({ advanced_s: seconds, offset_ms: total * 1000 });
    }
    const far = await pay(['emulator', 'clock', 'advance', '522w'], { env: env(), loopback: true });
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/^error: invalid duration "522w": a whole number and a unit s, m, h, d or w, .*, at most 10 years\n$/);
  });

  it("the admin client runs on the API client's plumbing: its pool, its --debug lines, its redaction (the emulator's secret too)", async () => {
    const { EmulatorAdmin } = await import('../../../src/api/emulator-admin.js');
    const { defaultDispatcher } = await import('../../../src/api/transport.js');
    const lines: string[] = [];
    const profileKey = 'sk_test_profileprofileprofile9876';
    const make = (dispatcher?: Dispatcher) =>
      new EmulatorAdmin({
        baseUrl: emu.baseUrl,
        baseUrlOrigin: 'PAY_BASE_URL',
        timeoutMs: 5000,
        maxResponseBytes: 1 << 20,
        dispatcher,
        secrets: [profileKey],
        debug: (line) => lines.push(line),
      });
    expect((make() as unknown as { dispatcher: unknown }).dispatcher).toBe(defaultDispatcher());
    const agent = new Agent();
    const admin = make(agent);
    const answer = await admin.get<{ secret: string }>('webhook-secret', { mode: 'sandbox', note: profileKey });
    expect(answer.secret).toBe(emu.webhookSecret);
    const all = lines.join('\n');
    expect(all).toMatch(new RegExp(`^> GET ${emu.url}/__emulator/health$`, 'm'));
    expect(all).toMatch(/^< 200 OK \(\d+ ms\)$/m);
    expect(all).toMatch(/^< pay-emulator: /m);
    // The emulator's webhook secret nobody named, and the profile's key, are masked wherever they appear.
    expect(all).not.toContain(emu.webhookSecret);
    expect(all).toContain(`whsec_…${emu.webhookSecret.slice(-4)}`);
    expect(all).not.toContain(profileKey);
    expect(all).toContain('sk_test_…9876');
    await agent.close();
  });

  it('reset off a terminal without --yes is exit 2 and asks the emulator nothing', async () => {
    const fake = await fakeServer(() => ({ status: 500 }));
    try {
      const r = await pay(['emulator', 'reset'], { env: { PAY_BASE_URL: fake.base }, loopback: true });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('error: refusing to reset the emulator without confirmation: pass --yes\nhint: nothing was reset\n');
      expect(fake.asked).toEqual([]);
    } finally {
      fake.server.close();
    }
  });

  it('a listen gives the webhook URL back only while it is its own: two listens at once, and a URL set by hand, are never clobbered', async () => {
    emu.admin.setWebhookUrl('http://127.0.0.1:1/original');
    const SECRET = emu.webhookSecret;
    const start = (signals: ReturnType<typeof fakeSignals>) => ({
      run: pay(['webhooks', 'listen', '--port', '0', '--secret', SECRET], { env: env(), loopback: true, signals }),
    });
    const url = async (): Promise<string | null> =>
      ((await (await fetch(`${emu.url}/__emulator/webhook-url`)).json()) as { url: string | null }).url;
    const waitFor = async (want: (u: string | null) => boolean): Promise<string | null> =>
      (
        await until('the webhook URL to change', async () => {
          const u = await url();
          return want(u) && { u };
        })
      ).u;
    const a = fakeSignals();
    const A = start(a);
    const urlA = await waitFor((u) => u !== 'http://127.0.0.1:1/original');
    const b = fakeSignals();
    const B = start(b);
    const urlB = await waitFor((u) => u !== urlA);
    // A stops first: the URL is B's, so A leaves it.
    a.emit('SIGINT');
    const ra = await A.run;
    expect(ra.code).toBe(0);
    expect(ra.stderr).toContain(`Left the emulator's Sandbox webhook URL as it is (${urlB}): it was changed after this listen registered`);
    expect(await url()).toBe(urlB);
    // B stops: it restores what A had taken over (A is gone), not A's dead URL.
    b.emit('SIGTERM');
    const rb = await B.run;
    expect(rb.code).toBe(0);
    expect(rb.stderr).toContain("Gave the emulator's Sandbox webhook URL back: http://127.0.0.1:1/original");
    expect(await url()).toBe('http://127.0.0.1:1/original');
    // A URL set by hand while a listen runs stays when it stops.
    const c = fakeSignals();
    const C = start(c);
    await waitFor((u) => u !== 'http://127.0.0.1:1/original');
    const set = await pay(['emulator', 'webhook-url', 'http://127.0.0.1:1/by-hand'], { env: env(), loopback: true });
    expect(set.code, set.stderr).toBe(0);
    c.emit('SIGINT');
    expect((await C.run).code).toBe(0);
    expect(await url()).toBe('http://127.0.0.1:1/by-hand');
    emu.admin.setWebhookUrl(null);
  });

  it('a signal at any moment of the start (registering, registered, printing Ready, probing the forward target) stops the listen and gives the URL back', async () => {
    emu.admin.setWebhookUrl('http://127.0.0.1:1/original');
    type Moment = 'registering' | 'registered' | 'ready' | 'probing';
    let signals = fakeSignals();
    let moment: Moment = 'ready';
    let signal: 'SIGINT' | 'SIGTERM' = 'SIGINT';
    /** What the listen had installed when the signal came (0: the signal went nowhere). */
    let heardBy = -1;
    const send = () => {
      heardBy = signals.count();
      signals.emit(signal);
    };
    // A proxy in front of the emulator that sends the signal when the registration arrives, or
    // after the emulator took it but before pay hears the answer.
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          const body = Buffer.concat(chunks);
          const registering =
            req.method === 'POST' && req.url === '/__emulator/webhook-url?mode=sandbox' && body.includes('"listener":true');
          if (registering && moment === 'registering') send();
          const r = await fetch(`${emu.url}${req.url}`, {
            method: req.method,
            headers: { 'content-type': 'application/json' },
            ...(body.length > 0 ? { body } : {}),
          });
          const text = await r.text();
          if (registering && moment === 'registered') send();
          const headers = Object.fromEntries(
            [...r.headers].filter(([k]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)),
          );
          res.writeHead(r.status, headers);
          res.end(text);
        })();
      });
    });
    // The forward target: the probe's connection is the moment.
    const target = createServer();
    target.on('connection', (socket) => {
      if (moment === 'probing') send();
      socket.destroy();
    });
    await Promise.all([
      new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r)),
      new Promise<void>((r) => target.listen(0, '127.0.0.1', r)),
    ]);
    const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1/`;
    const forward = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hooks`;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Moment>('registering', 'registered', 'ready', 'probing'),
          fc.constantFrom<'SIGINT' | 'SIGTERM'>('SIGINT', 'SIGTERM'),
          fc.boolean(),
          async (m, sig, forwarding) => {
            moment = m;
            signal = sig;
            signals = fakeSignals();
            heardBy = -1;
            const io = bufferIOStreams();
            const write = io.err;
            (io as { err: (t: string) => void }).err = (t) => {
              write(t);
              if (moment === 'ready' && t.includes('(Ctrl-C to stop)')) send();
            };
            const args = ['webhooks', 'listen', '--port', '0', ...(forwarding || m === 'probing' ? ['--forward-to', forward] : [])];
            const run = pay(args, { env: { PAY_BASE_URL: base }, loopback: true, signals, io });
            // A hang guard, not a timer the test leans on: a signal that went nowhere leaves the listen running.
            let guard: NodeJS.Timeout | undefined;
            const hung = new Promise<'hung'>((r) => (guard = setTimeout(() => r('hung'), 60_000)));
            const r = await Promise.race([run, hung]);
            clearTimeout(guard);
            if (r === 'hung') {
              signals.emit('SIGINT');
              await run;
            }
            const label = `${m} ${sig}${forwarding ? ' forwarding' : ''}`;
            expect(heardBy, `${label}: listeners when the signal came`).toBe(2);
            expect(r, label).not.toBe('hung');
            const done = r as Awaited<typeof run>;
            expect(done.code, `${label}\n${done.stderr}`).toBe(0);
            expect(done.stderr, label).toContain("Gave the emulator's Sandbox webhook URL back: http://127.0.0.1:1/original\n");
            expect(done.stderr.endsWith('Stopped.\n'), label).toBe(true);
            // Ready is said only while it is true.
            expect(done.stderr.includes('(Ctrl-C to stop)'), label).toBe(m === 'ready' || m === 'probing');
            expect(done.stderr, label).not.toContain('nothing answers');
            expect(signals.count(), label).toBe(0);
            const now = ((await (await fetch(`${emu.url}/__emulator/webhook-url`)).json()) as { url: unknown }).url;
            expect(now, label).toBe('http://127.0.0.1:1/original');
          },
        ),
        { numRuns: 16, seed: 2 },
      );
    } finally {
      proxy.close();
      target.close();
      proxy.closeAllConnections();
      emu.admin.setWebhookUrl(null);
    }
  });

  it('generated sequences of takes, releases and hand-set URLs in both modes: a release never changes a URL that is not the releaser’s, releasing every take restores the URL from before, and one mode never touches the other’s', async () => {
    type M = 'sandbox' | 'live';
    const post = async (body: unknown, mode: M): Promise<Record<string, unknown>> => {
      const res = await fetch(`${emu.url}/__emulator/webhook-url?mode=${mode}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get(EMULATOR_HEADER)).toBe(EMULATOR_VERSION);
      const answer = (await res.json()) as Record<string, unknown>;
      expect(answer.mode).toBe(mode);
      return answer;
    };
    // The same listener URLs in both modes: claims are per mode even for one URL.
    const L = (n: number) => `http://127.0.0.1:${20_000 + n}/`;
    const current = async (mode: M): Promise<unknown> =>
      ((await (await fetch(`${emu.url}/__emulator/webhook-url?mode=${mode}`)).json()) as { url: unknown }).url;
    const mode = fc.constantFrom<M>('sandbox', 'live');
    const op = fc.oneof(
      fc.record({ kind: fc.constant('take' as const), n: fc.integer({ min: 0, max: 4 }), mode }),
      fc.record({ kind: fc.constant('release' as const), n: fc.integer({ min: 0, max: 4 }), mode }),
      // A URL set by hand: another, or one a listener uses.
      fc.record({ kind: fc.constant('set' as const), n: fc.integer({ min: 0, max: 2 }), theirs: fc.boolean(), mode }),
    );
    const other = (m: M): M => (m === 'live' ? 'sandbox' : 'live');
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 16 }), fc.boolean(), fc.boolean(), async (ops, sandboxUrl, liveUrl) => {
        const first: Record<M, string | null> = {
          sandbox: sandboxUrl ? 'http://127.0.0.1:1/first' : null,
          live: liveUrl ? 'http://127.0.0.1:1/first-live' : null,
        };
        await post({ url: first.sandbox }, 'sandbox');
        await post({ url: first.live }, 'live');
        const setByHand: Record<M, boolean> = { sandbox: false, live: false };
        const holding: Record<M, Set<number>> = { sandbox: new Set(), live: new Set() };
        for (const o of ops) {
          const m = o.mode;
          const before = await current(m);
          const theirs = await current(other(m));
          if (o.kind === 'take') {
            const r = await post({ url: L(o.n), listener: true }, m);
            expect(r.url).toBe(L(o.n));
            // It took over what was there (unless it is the same listener again, which keeps its first claim).
            if (!(holding[m].has(o.n) && before === L(o.n))) expect(r.previous).toBe(before);
            holding[m].add(o.n);
          } else if (o.kind === 'release') {
            const r = await post({ release: L(o.n) }, m);
            // Not its URL (or not its claim): nothing changes.
            if (before !== L(o.n) || !holding[m].has(o.n)) expect(r).toEqual({ mode: m, url: before, restored: false });
            else expect(r.restored).toBe(true);
            holding[m].delete(o.n);
          } else {
            await post({ url: o.theirs ? L(o.n) : `http://127.0.0.1:1/hand${o.n}` }, m);
            setByHand[m] = true;
            holding[m].clear();
          }
          // The other mode's URL never moves.
          expect(await current(other(m))).toBe(theirs);
        }
        // Every listener still holding a claim stops, in any order (here: newest first, then the rest).
        for (const m of ['sandbox', 'live'] as const) {
          const last = await current(m);
          for (const n of [...holding[m]].reverse()) await post({ release: L(n) }, m);
          const end = await current(m);
          const mine = ops.filter((o) => o.mode === m);
          if (!setByHand[m] && mine.some((o) => o.kind === 'take')) expect(end).toBe(first[m]);
          if (mine.length === 0) expect(end).toBe(first[m]);
          // A URL set by hand after the last take is never clobbered by releases.
          const lastTakeAt = mine.map((o) => o.kind).lastIndexOf('take');
          const lastSetAt = mine.map((o) => o.kind).lastIndexOf('set');
          if (lastSetAt > lastTakeAt) expect(end).toBe(last);
        }
      }),
      { numRuns: 150, seed: 14 },
    );
    await post({ url: null }, 'sandbox');
    await post({ url: null }, 'live');
  });
});

describe('the request log read on from a number (requests --follow)', () => {
  it('a reader polling at any moment sees every answered request once, in order, whatever is still in flight (generated interleavings)', () => {
    const op = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'arrive' as const }) },
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('finish' as const), k: fc.nat() }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), limit: fc.integer({ min: 1, max: 4 }) }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), fc.boolean(), (ops, filtered) => {
        const log = new RequestLog();
        const open: ReceivedRequest[] = [];
        const match = filtered ? (r: ReceivedRequest) => r.seq % 2 === 0 : undefined;
        let after = log.list({ limit: 0 }).nextAfter;
        const seen: number[] = [];
        const read = (limit: number) => {
          const page = log.list({ after, limit, match });
          expect(page.dropped).toBe(0);
          for (const r of page.data) {
            expect(r.done).toBe(true);
            seen.push(r.seq);
          }
          after = page.nextAfter;
          return page.data.length;
        };
        for (const o of ops) {
          if (o.kind === 'arrive') open.push(log.record('GET', '/v1/x', {}, {}));
          else if (o.kind === 'finish' && open.length > 0) open.splice(o.k % open.length, 1)[0]!.finish(200);
          else if (o.kind === 'read') read(o.limit);
        }
        for (const r of open) r.finish(null);
        while (read(3) > 0);
        const all = log.items.map((r) => r.seq).filter((n) => !match || n % 2 === 0);
        expect(seen).toEqual(all);
      }),
      { numRuns: 500, seed: 14 },
    );
  });

  it('requests that left the log before they were read are counted; a number past the log is not taken for another run', () => {
    const log = new RequestLog();
    const first = log.record('GET', '/v1/a', {}, {});
    first.finish(200);
    const after = log.list({ limit: 0 }).nextAfter;
    expect(after).toBe(1);
    for (let i = 0; i < LOG_MAX_COUNT + 25; i++) log.record('GET', '/v1/b', {}, {}).finish(200);
    const page = log.list({ after, limit: 1000 });
    expect(page.dropped).toBe(25);
    expect(page.data[0]!.seq).toBe(27);
    // A number past this log's: nothing after it yet. Whether it came from another run of the
    // emulator is for the reader to tell by started_at (--follow, below); the log does not guess.
    const fresh = new RequestLog();
    for (let i = 0; i < 3; i++) fresh.record('GET', '/v1/c', {}, {}).finish(404);
    expect(fresh.list({ after: 500, limit: 10 })).toEqual({ data: [], nextAfter: 500, dropped: 0 });
    expect(fresh.list({ after: 2, limit: 10 }).data.map((r) => r.seq)).toEqual([3]);
  });

  it('--follow reads on from where the emulator says, warns about dropped requests, and starts over when the emulator restarted', async () => {
    const asked: string[] = [];
    const pages: Array<Record<string, unknown>> = [
      { data: [{ seq: 6 }, { seq: 7 }], next_after: 7, dropped: 0, started_at: 'A' },
      { data: [{ seq: 11 }], next_after: 11, dropped: 3, started_at: 'A' },
      { data: [], next_after: 2, dropped: 0, started_at: 'B' },
      { data: [{ seq: 1 }, { seq: 2 }], next_after: 2, dropped: 0, started_at: 'B' },
    ];
    const signals = fakeSignals();
    let done = false;
    const fake = await fakeServer((req) => {
      const url = new URL(req.url!, 'http://x');
      const marks = { 'content-type': 'application/json', [EMULATOR_HEADER]: EMULATOR_VERSION };
      if (url.pathname === '/__emulator/health')
        return { status: 200, headers: marks, body: JSON.stringify({ ok: true, emulator: EMULATOR_NAME, version: EMULATOR_VERSION }) };
      asked.push(url.search);
      let page = url.searchParams.get('limit') === '0' ? { data: [], next_after: 5, dropped: 0, started_at: 'A' } : pages.shift();
      if (page === undefined) {
        // Every scripted page was read: stop the follower (Ctrl-C).
        if (!done) setImmediate(() => signals.emit('SIGINT'));
        done = true;
        page = { data: [], next_after: 2, dropped: 0, started_at: 'B' };
      }
      return { status: 200, headers: marks, body: JSON.stringify(page) };
    });
    try {
      const r = await pay(['emulator', 'requests', '--follow', '-o', 'ndjson'], {
        env: { PAY_BASE_URL: fake.base },
        loopback: true,
        signals,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { seq: number }).seq),
      ).toEqual([6, 7, 11, 1, 2]);
      expect(r.stderr).toContain("warning: 3 requests left the emulator's log (it keeps the last 1000) before they could be shown\n");
      expect(r.stderr).toMatch(/note: the emulator at http:\/\/127\.0\.0\.1:\d+ restarted; following its new log\n/);
      expect(r.stderr.endsWith('Stopped.\n')).toBe(true);
      const afters = asked.map((q) => new URLSearchParams(q).get('after'));
      expect(afters.slice(0, 6)).toEqual([null, '5', '7', '11', '0', '2']);
    } finally {
      fake.server.close();
    }
  });
});
