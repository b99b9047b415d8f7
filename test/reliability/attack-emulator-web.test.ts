// Outside attack: a web page trying to reach the local emulator (`pay emulator start`, a child
// process), and a stream of large bodies aimed at its memory.
//
// Host (DNS rebinding): raw requests over loopback with generated Host headers. Accepted:
// localhost and *.localhost (any case, a trailing dot), 127.x.y.z, [::1] in its IPv6 spellings
// ([0:0:…:1], [::ffff:127.x.y.z]), each with or without a port. Refused (403 host_not_allowed,
// nothing recorded): other names (also ones that merely contain "localhost" or 127.0.0.1),
// IPv4 outside 127/8 and loopback written in other forms (127.1, 0177.0.0.1, 2130706433),
// other IPv6 addresses and zone ids, userinfo, bad ports, an empty Host.
// Origin: generated origins; only the two given with --allow-origin are served; `null`, paths,
// userinfo and every other origin are 403 origin_not_allowed. Preflights (OPTIONS with
// Access-Control-Request-*) are refused whatever the Origin. No answer carries Access-Control-*.
// Request log: 1 MiB bodies of generated shapes (long strings, many numbers, many unknown fields)
// with the key and other secrets in headers and body: the emulator serves them all within a 96 MB heap (it would run out of memory if it kept them), the log
// stays within its count and byte bounds, and GET /__emulator/requests shows no secret whole.
import { randomUUID } from 'node:crypto';
import { BlockList, connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, count, FULL, pay, pool, record, rssOf, spawnEmulator, type EmulatorProcess } from './helpers.js';

const HOSTS = count(150, 1000);
const ORIGINS = count(100, 1000);
const PREFLIGHTS = count(40, 1000);
const BODIES = count(60, 1000);
const ALLOWED = ['http://localhost:3000', 'https://app.example.test'];
/** The log's own bounds (src/emulator/request-log.ts). */
const LOG_MAX_COUNT = 1000;
const LOG_MAX_BYTES = 8 * 1024 * 1024;
/** The emulator's old-generation heap in this file, in MB: what a bounded log needs, far less than what a leak would. */
const MAX_OLD_SPACE_MB = 96;

let emu: EmulatorProcess;
/** Host, Origin and preflight figures, recorded together as attack.emulator-host. */
const web = { tried: 0, passed: 0, leaked: 0, startedAt: 0, hosts: 0, origins: 0, preflights: 0 };

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One raw HTTP/1.1 request over loopback (Connection: close); the whole answer. */
function exchange(head: string, body: Buffer | string = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(emu.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${head.split('\r\n')[0]}`));
    }, 30_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {}); // a reset after the answer: what was read counts
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('utf8');
      const end = all.indexOf('\r\n\r\n');
      const lines = all.slice(0, end < 0 ? all.length : end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0), headers, body: end < 0 ? '' : all.slice(end + 4) });
    });
    socket.write(head);
    socket.end(body);
  });
}

const codeOf = (a: Answer): string | undefined => {
  try {
    return (JSON.parse(a.body) as { code?: string }).code;
  } catch {
    return undefined;
  }
};
const cors = (a: Answer): string[] => Object.keys(a.headers).filter((h) => h.startsWith('access-control-'));

async function adminJson<T>(path: string): Promise<T> {
  const res = await fetch(`${emu.url}/__emulator/${path}`);
  return (await res.json()) as T;
}

/** A GET of an API route (or the admin health route) with this Host line (undefined: none). */
function getWithHost(host: string | undefined, api: boolean, extra = ''): Promise<Answer> {
  const target = api ? '/v1/features' : '/__emulator/health';
  const key = api ? `Api-Key: ${emu.keys.sandbox.secret}\r\n` : '';
  return exchange(`GET ${target} HTTP/1.1\r\n${host === undefined ? '' : `Host: ${host}\r\n`}${key}${extra}Connection: close\r\n\r\n`);
}

beforeAll(async () => {
  // A small heap: an emulator that kept what it was sent (a 1 MiB body, its parse) would run out
  // of memory within the stream of bodies below and stop answering; one that keeps only what the
  // request log bounds serves them all. (Resident memory is recorded, not judged: how much of a
  // transient 1 MiB parse V8 hands back, and when, depends on the machine's load.)
  emu = await spawnEmulator(
    ['--port', '0', '--settle-after', '600000', ...ALLOWED.flatMap((o) => ['--allow-origin', o])],
    cleanEnv({ NODE_OPTIONS: `--max-old-space-size=${MAX_OLD_SPACE_MB}` }),
  );
}, 60_000);
afterAll(async () => {
  await emu?.stop();
});

// ---------------------------------------------------------------------------------------------
// Generators

const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const withPort = (h: string, p: number | undefined): string => (p === undefined ? h : `${h}:${p}`);
const randomCase = (s: string, flips: boolean[]): string =>
  [...s].map((c, i) => (flips[i % Math.max(1, flips.length)] ? c.toUpperCase() : c)).join('');
const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const octet = fc.integer({ min: 0, max: 255 });
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Host values that name this machine's loopback: served. */
const goodHost: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.array(label, { maxLength: 3 }), fc.boolean(), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), port)
    .map(([sub, dot, flips, p]) => withPort(randomCase([...sub, 'localhost'].join('.') + (dot ? '.' : ''), flips), p)),
  fc.tuple(octet, octet, octet, port).map(([a, b, c, p]) => withPort(`127.${a}.${b}.${c}`, p)),
  fc
    .tuple(fc.constantFrom('::1', '0:0:0:0:0:0:0:1', '0::1', '::0:1', '0000:0000::0001'), fc.boolean(), port)
    .map(([a, up, p]) => withPort(`[${up ? a.toUpperCase() : a}]`, p)),
  fc
    .tuple(octet, octet, octet, fc.boolean(), port)
    .map(([a, b, c, up, p]) => withPort(`[${up ? '::FFFF' : '::ffff'}:127.${a}.${b}.${c}]`, p)),
);

/** Host values a page could bring (rebinding names, other addresses) or that are not Host values at all: refused. */
const badHost: fc.Arbitrary<string> = fc.oneof(
  // A name under the attacker's control, also ones dressed up as loopback.
  fc
    .tuple(
      fc.array(label, { minLength: 1, maxLength: 3 }),
      fc.constantFrom('com', 'test', 'nip.io', 'localhost.evil.test', 'localdomain', '127.0.0.1.nip.io', 'localhost-x'),
      fc.boolean(),
      port,
    )
    .filter(([sub]) => sub.every((l) => l !== 'localhost'))
    .map(([sub, tld, dot, p]) => withPort(`${sub.join('.')}.${tld}${dot ? '.' : ''}`, p)),
  fc
    .tuple(
      fc.constantFrom(
        'localhost.localdomain',
        'localhostx',
        'xlocalhost',
        'evil-localhost',
        'local',
        'localhost..',
        '.localhost',
        'a..localhost',
      ),
      port,
    )
    .map(([h, p]) => withPort(h, p)),
  // IPv4 outside 127/8, and loopback in forms other than four decimal numbers.
  fc
    .tuple(
      octet.filter((a) => a !== 127),
      octet,
      octet,
      octet,
      port,
    )
    .map(([a, b, c, d, p]) => withPort(`${a}.${b}.${c}.${d}`, p)),
  fc
    .tuple(
      fc.constantFrom(
        '127.1',
        '127.0.1',
        '0177.0.0.1',
        '127.000.000.001',
        '2130706433',
        '0x7f.0.0.1',
        '0x7f000001',
        '127.0.0.1.',
        '127.0.0.256',
      ),
      port,
    )
    .map(([h, p]) => withPort(h, p)),
  // IPv6 other than loopback, zone ids, no brackets.
  fc
    .tuple(
      fc.ipV6().filter((a) => !loopback.check(a, 'ipv6')),
      port,
    )
    .map(([a, p]) => withPort(`[${a}]`, p)),
  fc.constantFrom('[::1%25lo]', '[::1%lo]', '::1', '[::1]x', '[::1', '::1]', '[fe80::1]', '[::]', '[::ffff:10.0.0.1]'),
  // Userinfo, bad ports, junk.
  fc
    .tuple(fc.constantFrom('user@', 'user:pass@', 'evil.test@', '@'), fc.constantFrom('localhost', '127.0.0.1', '[::1]'), port)
    .map(([u, h, p]) => withPort(`${u}${h}`, p)),
  fc
    .tuple(
      fc.constantFrom('localhost', '127.0.0.1', '[::1]'),
      fc.constantFrom('0', '65536', '99999', '123456', 'http', '-1', '80a', ' 80', ''),
    )
    .map(([h, p]) => `${h}:${p}`),
  fc.constantFrom('', 'localhost,evil.test', 'evil.test,localhost', 'localhost/x', 'localhost\\x', 'http://localhost', '*', '%6cocalhost'),
);

/** An origin as a browser serializes it: scheme://host[:port]. */
const origin = fc
  .tuple(
    fc.constantFrom('http', 'https'),
    fc.oneof(
      fc.constantFrom('localhost', '127.0.0.1', '[::1]', 'app.example.test', 'evil.test'),
      label.map((l) => `${l}.test`),
    ),
    fc.option(fc.constantFrom(3000, 8080, 443, 80, 8787), { nil: undefined }),
  )
  .map(([s, h, p]) => ({ text: withPort(`${s}://${h}`, p), allowed: ALLOWED.includes(withPort(`${s}://${h}`, p)) }));
const junkOrigin = fc.constantFrom(
  'null',
  '',
  'HTTP://LOCALHOST:3000',
  'https://app.example.test:443',
  'http://localhost:3000/',
  'http://localhost:3000/x',
  'http://user@localhost:3000',
  'file://',
  'localhost:3000',
  'http://localhost:3000, https://app.example.test',
  'javascript:alert(1)',
);

// ---------------------------------------------------------------------------------------------

describe('attack: a web page reaching the emulator', () => {
  it('Host headers: loopback names and addresses are served, everything else is refused and not recorded', async () => {
    const startedAt = Date.now();
    const good = fc.sample(goodHost, HOSTS);
    const bad = [...fc.sample(badHost, HOSTS), undefined];
    const cases = [...good.map((h) => ({ host: h, ok: true })), ...bad.map((h) => ({ host: h, ok: false }))];
    const before = (await adminJson<{ data: unknown[] }>('requests?limit=1000')).data.length;
    const failures: string[] = [];
    let servedBad = 0;
    let corsSeen = 0;
    const results = await pool(cases, 8, async (c, i) => {
      const a = await getWithHost(c.host, i % 2 === 0);
      if (cors(a).length > 0) corsSeen++;
      const right = c.ok ? a.status === 200 : a.status === 403 || a.status === 400;
      const code = codeOf(a);
      if (!c.ok && a.status === 200) servedBad++;
      if (!right || (!c.ok && a.status === 403 && code !== 'host_not_allowed') || cors(a).length > 0) {
        failures.push(`Host ${JSON.stringify(c.host)} (${i % 2 === 0 ? 'API' : 'admin'}): ${a.status} ${code ?? a.body.slice(0, 80)}`);
        return false;
      }
      return true;
    });
    // Only the served API requests reached the log (every other case was an admin route or refused).
    const apiServed = cases.filter((c, i) => c.ok && i % 2 === 0).length;
    const after = (await adminJson<{ data: unknown[] }>('requests?limit=1000')).data.length;
    const passed = results.filter(Boolean).length;
    web.startedAt = startedAt;
    web.tried += cases.length;
    web.passed += passed;
    web.leaked += servedBad + corsSeen;
    web.hosts = cases.length;
    expect(failures.slice(0, 20)).toEqual([]);
    expect(after - before).toBe(Math.min(apiServed, LOG_MAX_COUNT - before));
  }, 300_000);

  it('Origin headers: only the --allow-origin ones are served; preflights are always refused; never Access-Control-*', async () => {
    const startedAt = Date.now();
    const cases = [...fc.sample(origin, ORIGINS), ...fc.sample(junkOrigin, 20).map((text) => ({ text, allowed: false }))];
    // Every generated run includes the allowed ones, so the served path is exercised too.
    cases.push(...ALLOWED.map((text) => ({ text, allowed: true })));
    const failures: string[] = [];
    let leaked = 0;
    const host = `127.0.0.1:${emu.port}`;
    const results = await pool(cases, 8, async (c, i) => {
      const a = await getWithHost(host, i % 2 === 0, `Origin: ${c.text}\r\n`);
      if (cors(a).length > 0 || (!c.allowed && a.status === 200)) leaked++;
      const right = c.allowed ? a.status === 200 : a.status === 403 && codeOf(a) === 'origin_not_allowed';
      if (!right || cors(a).length > 0) failures.push(`Origin ${JSON.stringify(c.text)}: ${a.status} ${codeOf(a)} ${cors(a).join(',')}`);
      return right && cors(a).length === 0;
    });
    // A page's no-cors GET (no Origin, marked cross-site) is refused too.
    for (const site of ['cross-site', 'same-site']) {
      const a = await getWithHost(host, true, `Sec-Fetch-Site: ${site}\r\nSec-Fetch-Mode: no-cors\r\n`);
      results.push(a.status === 403);
      if (a.status !== 403) failures.push(`Sec-Fetch-Site: ${site}: ${a.status}`);
    }
    const same = await getWithHost(host, true, 'Sec-Fetch-Site: none\r\n');
    expect(same.status).toBe(200);

    // Preflights: generated methods, headers and origins (allowed or not, or none).
    const preflight = fc.tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
      fc.subarray(['api-key', 'content-type', 'idempotency-key', 'x-tenant-id', 'x-custom']),
      fc.option(
        fc.oneof(
          fc.constantFrom(...ALLOWED),
          origin.map((o) => o.text),
        ),
        { nil: undefined },
      ),
      fc.constantFrom('/v1/customers', '/v1/transfers', '/__emulator/reset', '/__emulator/requests', '/v1/nowhere'),
    );
    const pre = fc.sample(preflight, PREFLIGHTS);
    const preResults = await pool(pre, 8, async ([method, hdrs, o, path]) => {
      const a = await exchange(
        `OPTIONS ${path} HTTP/1.1\r\nHost: ${host}\r\n${o ? `Origin: ${o}\r\n` : ''}Access-Control-Request-Method: ${method}\r\n${hdrs.length ? `Access-Control-Request-Headers: ${hdrs.join(',')}\r\n` : ''}Connection: close\r\n\r\n`,
      );
      const right = a.status === 403 && cors(a).length === 0 && ['cors_not_supported', 'origin_not_allowed'].includes(codeOf(a) ?? '');
      if (!right) failures.push(`preflight ${method} ${path} from ${o}: ${a.status} ${codeOf(a)} ${cors(a).join(',')}`);
      if (cors(a).length > 0) leaked++;
      return right;
    });
    const passed = [...results, ...preResults].filter(Boolean).length;
    web.tried += results.length + preResults.length;
    web.passed += passed;
    web.leaked += leaked;
    web.origins = results.length;
    web.preflights = preResults.length;
    await record(
      'attack.emulator-host',
      'Web pages at the emulator: foreign Host headers (DNS rebinding), Origins, CORS preflights',
      {
        tried: web.tried,
        passed: web.passed,
        lost: 0,
        duplicated: 0,
        leaked: web.leaked,
        extra: { hosts: web.hosts, origins: web.origins, preflights: web.preflights },
      },
      web.startedAt || startedAt,
    );
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);

  it('--allow-origin takes origins only: anything else is a usage error (exit 2, one line)', async () => {
    for (const bad of ['null', 'localhost:3000', 'http://localhost:3000/path', 'ftp://x.test', 'http://u@x.test', '']) {
      const r = await pay(['emulator', 'start', '--port', '0', '--allow-origin', bad], { env: cleanEnv(), timeoutMs: 20_000 });
      expect({ code: r.code, first: r.stderr.split('\n')[0] }).toEqual({
        code: 2,
        // An empty value is refused before the command runs, like every flag's (src/commands/root.ts).
        first: expect.stringMatching(bad === '' ? /^error: --allow-origin was given an empty value$/ : /^error: invalid --allow-origin/),
      });
    }
  }, 120_000);
});

describe('attack: a stream of 1 MiB bodies against the request log', () => {
  it(
    'serves every body within a small heap, keeps the log bounded and shows no secret whole',
    async () => {
      const startedAt = Date.now();
      const key = emu.keys.sandbox.secret;
      const secrets = [key, emu.keys.live.secret, emu.webhookSecrets.sandbox, emu.webhookSecrets.live];
      const size = 1024 * 1024 - 64;
      /** A JSON object of about `size` bytes, of a generated shape, with a secret inside. */
      const bodyOf = (shape: number, n: number): string => {
        const head = `{"note":"${secrets[n % secrets.length]}","first_name":`;
        const room = size - head.length - 2;
        if (shape === 0) return `${head}"${'x'.repeat(room - 2)}"}`;
        if (shape === 1) return `${head}[${Array.from({ length: Math.floor((room - 2) / 2) }, () => '1').join(',')}]}`;
        const fields: string[] = [];
        let len = head.length + 4;
        for (let i = 0; len < room - 20; i++) {
          const f = `"f${i}":${i}`;
          fields.push(f);
          len += f.length + 1;
        }
        return `${head}1,${fields.join(',')}}`;
      };
      const shapes = fc.sample(fc.integer({ min: 0, max: 2 }), BODIES);
      const extraHeaders = `Authorization: Bearer ${secrets[2]}\r\nCookie: session=${secrets[3]}\r\nX-Secret-Token: hunter2-${randomUUID()}\r\nX-Tenant-Id: ${emu.tenantId}\r\n`;
      const send = async (shape: number, n: number): Promise<number> => {
        const text = bodyOf(shape, n);
        // A body that is not valid JSON would not test the parse; make sure it is.
        if (n < 3) JSON.parse(text);
        const body = Buffer.from(text);
        const a = await exchange(
          `POST /v1/customers HTTP/1.1\r\nHost: localhost:${emu.port}\r\nApi-Key: ${key}\r\nIdempotency-Key: ${randomUUID()}\r\n${extraHeaders}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
          body,
        );
        return a.status;
      };
      // Warm up, then sample the resident memory.
      for (let i = 0; i < 10; i++) await send(i % 3, i);
      const rssBefore = rssOf(emu.pid) ?? 0;
      const statuses = await pool(shapes, 4, (s, i) => send(s, i + 10));
      const rssAfter = rssOf(emu.pid) ?? 0;
      const answered = statuses.filter((s) => s === 422).length;

      const res = await fetch(`${emu.url}/__emulator/requests?limit=1000`);
      const text = await res.text();
      const log = (
        JSON.parse(text) as { data: Array<{ headers: Record<string, string>; body: unknown; body_bytes: number; body_truncated: boolean }> }
      ).data;
      const leaked = secrets.filter((s) => text.includes(s)).length + (text.includes('hunter2-') ? 1 : 0);
      const last = log.at(-1)!;
      await record(
        'attack.emulator-log',
        'A stream of 1 MiB bodies: memory, request log bounds, masked keys',
        {
          tried: shapes.length,
          passed: answered,
          lost: shapes.length - answered,
          duplicated: 0,
          leaked,
          extra: {
            rss_before_mb: Math.round(rssBefore / 2 ** 20),
            rss_after_mb: Math.round(rssAfter / 2 ** 20),
            log_entries: log.length,
            log_json_kb: Math.round(text.length / 1024),
          },
        },
        startedAt,
      );
      expect(answered).toBe(shapes.length);
      expect(leaked).toBe(0);
      expect(log.length).toBeLessThanOrEqual(LOG_MAX_COUNT);
      // Each kept body is at most 64 KiB, and all of them fit the byte bound.
      // (JSON escaping of the kept bodies' quotes can add a quarter.)
      expect(text.length).toBeLessThan(2 * LOG_MAX_BYTES);
      expect(last.body_bytes).toBeGreaterThan(size - 1024);
      expect(last.body_truncated).toBe(true);
      expect(last.headers['api-key']).toMatch(/^sk_test_…[A-Za-z0-9]{4}$/);
      expect(last.headers['authorization']).not.toContain(secrets[2]!.slice(6, 20));
      // Still serving, within its small heap (an emulator out of memory would have exited).
      expect(emu.child.exitCode).toBeNull();
      expect((await fetch(`${emu.url}/__emulator/health`)).status).toBe(200);
    },
    FULL ? 1_800_000 : 600_000,
  ); // the full count sends a GiB: about 5 minutes on a busy machine
});
