// `pay emulator status | reset | clock advance | webhook-url | faults | requests [--follow]`: the
// built CLI against a real emulator (in process, loopback, port 0), with the base URL from the
// environment like any command. Each verb's output formats and its bad input (exit 2, nothing
// sent), reset refused against a server that is not an emulator (it is asked only its health),
// events made while no webhook URL was set delivered once one is, and `requests --follow` printing a
// request made after it started until SIGINT (exit 0).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_VERSION } from '../../src/shared/emulator-id.js';
import { PAY_BIN } from '../helpers/run-pay.js';
import { ID, ISO, customerBody, json, ndjson, ok, startWorld, table, tsv, until, type Obj, type World } from './groups/helpers.js';

let w: World;
let app: Server;
let appUrl: string;
const received: Array<{ id: string; type: string }> = [];

beforeAll(async () => {
  w = await startWorld();
  app = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ id: String(req.headers['webhook-id']), type: (JSON.parse(body) as { type: string }).type });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await w?.stop();
  await new Promise((r) => app?.close(r));
});

/** Exit 0 and stdout one JSON document (stderr may carry the success line). */
function data(r: { code: number | null; stdout: string; stderr: string }): Obj {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Obj;
}

/** Exit 2, one error line (and maybe a hint), nothing on stdout. */
function usage(r: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
  expect(r.stderr).toMatch(/^error: [^\n]+\n(hint: [^\n]+\n)?$/);
  expect(r.stderr).toMatch(message);
}

describe('pay emulator status', () => {
  it('names the emulator, its version, clock, webhook URLs, faults and object counts (json, tsv, table)', async () => {
    await w.api('POST', 'customers', customerBody());
    const [j, t, tb] = await Promise.all([
      w.pay(['emulator', 'status', '--json']),
      w.pay(['emulator', 'status']),
      w.pay(['emulator', 'status', '-o', 'table']),
    ]);
    const s = json(j);
    expect(s).toMatchObject({
      base_url: w.emu.baseUrl,
      version: EMULATOR_VERSION,
      url: w.emu.url,
      started_at: expect.stringMatching(ISO),
      uptime_s: expect.any(Number),
      data_dir: null,
      clock: { now: expect.stringMatching(ISO), offset_ms: expect.any(Number) },
      webhook_urls: { sandbox: null, live: null },
      faults: { fail_rate: 0, latency_ms: null, reset_rate: 0, rate_limit: null },
      webhooks: { pending: expect.any(Number), delivered: expect.any(Number), failed: expect.any(Number) },
      journal: { enabled: false },
    });
    expect(s.objects.customer).toBeGreaterThanOrEqual(1);
    const row = tsv(t).rows[0]!;
    expect(row.base_url).toBe(w.emu.baseUrl);
    expect(row.version).toBe(EMULATOR_VERSION);
    expect(ok(tb)).toMatch(new RegExp(`^base_url +${w.emu.baseUrl.replace(/[./]/g, '\\$&')} *$`, 'm'));
    expect(ok(tb)).toMatch(/^objects\.customer +[1-9]\d* *$/m);
    expect(ok(await w.pay(['emulator', 'status', '--jq', '.version']))).toBe(`${EMULATOR_VERSION}\n`);
  });
});

describe('pay emulator reset', () => {
  it('never runs against a server that is not an emulator: exit 2, asked only its health', async () => {
    const asked: string[] = [];
    const fake = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"url":"x"}');
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1/`;
      const r = await w.pay(['emulator', 'reset', '--yes'], { env: { PAY_BASE_URL: base } });
      usage(
        r,
        /^error: the server at http:\/\/127\.0\.0\.1:\d+\/v1\/ \(base URL from PAY_BASE_URL\) is not a pay emulator: its answer has no pay-emulator header; nothing was changed\n/,
      );
      expect(asked).toEqual(['GET /__emulator/health']);
      // A hosted base URL is not even asked.
      const hosted = await w.pay(['emulator', 'reset', '--yes'], { env: { PAY_BASE_URL: 'https://api.example.com/v1/' } });
      usage(hosted, /is not a local emulator: pay emulator commands drive an emulator on this machine/);
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });

  it('off a terminal without --yes: exit 2, nothing reset; with --yes: the data is gone, the keys still work', async () => {
    const c = await w.api('POST', 'customers', customerBody());
    const m = w.mark();
    const r = await w.pay(['emulator', 'reset']);
    usage(r, /refusing to reset the emulator without confirmation: pass --yes\nhint: nothing was reset/);
    expect(w.since(m)).toEqual([]);
    expect((await w.raw('GET', `customers/${c.id}`)).status).toBe(200);
    const yes = await w.pay(['emulator', 'reset', '--yes']);
    expect({ code: yes.code, stdout: yes.stdout }).toEqual({ code: 0, stdout: '' });
    expect(yes.stderr).toBe(`✓ Emulator reset: ${w.emu.url} holds no data now (its keys, webhook URLs and faults stay)\n`);
    expect((await w.raw('GET', `customers/${c.id}`)).status).toBe(404);
    expect((await w.pay(['customers', 'list', '--json'])).stdout).toBe('[]\n');
  });
});

describe('pay emulator clock advance', () => {
  it('moves the clock (what became due settles) and prints the new time; bad durations are exit 2 with the valid forms', async () => {
    const before = json(await w.pay(['emulator', 'status', '--json'])).clock.offset_ms as number;
    const r = await w.pay(['emulator', 'clock', 'advance', '1h30m']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\n$/);
    expect(Date.parse(r.stdout.trim()) - Date.now()).toBeGreaterThan(before + 90 * 60_000 - 60_000);
    expect(r.stderr).toMatch(
      /^✓ Emulator clock moved forward 1h30m \(now [0-9dhms]+ ahead of real time\); what became due has happened\n$/,
    );
    const j = json(await w.pay(['emulator', 'clock', 'advance', '90s', '--json']));
    expect(j).toEqual({ now: expect.stringMatching(ISO), offset_ms: before + 5_400_000 + 90_000, caught_up: true, advanced_s: 90 });
    // A collection started now settles when the clock passes its settle time.
    const cus = await w.api('POST', 'customers', customerBody());
    const acc = await w.api('POST', 'accounts', { customer_id: cus.id, currency: 'USD' });
    await w.api('POST', `customers/${cus.id}/features/collections/activate`); // the business rules
    const col = await w.api('POST', 'collections', { account_id: acc.id, amount: '10.00', currency: 'USD', method: 'card' });
    expect(col.status).toBe('pending');
    expect((await w.pay(['emulator', 'clock', 'advance', '10m'])).code).toBe(0);
    expect((await w.api('GET', `collections/${col.id}`)).status).not.toBe('pending');
    for (const bad of ['1.5h', '90', '1h 30m', '30m1h', '0s', '3653d', '522w', '-1d']) {
      const b = await w.pay(['emulator', 'clock', 'advance', '--', bad]);
      usage(
        b,
        /^error: invalid duration "[^"]*": a whole number and a unit s, m, h, d or w, or several from the largest down \(90s, 15m, 25h, 7d, 2w, 1h30m, 2d12h\), at most 10 years\n$/,
      );
    }
  }, 120_000);
});

describe('pay emulator webhook-url', () => {
  it('none set: nothing on stdout and a note; set: events made meanwhile are delivered; --clear unsets it', async () => {
    const none = await w.pay(['emulator', 'webhook-url']);
    expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 0, stdout: '' });
    expect(none.stderr).toMatch(
      /^No Sandbox webhook URL set: Sandbox events stay pending\. Set one with pay emulator webhook-url <url>, or run pay webhooks listen\n$/,
    );
    expect(data(await w.pay(['emulator', 'webhook-url', '--json']))).toEqual({ mode: 'sandbox', url: null });
    // Made while no URL is set: pending, no attempt due.
    const c = await w.api('POST', 'customers', customerBody());
    const ev = (await w.api('GET', 'webhooks/events?type=customer.created&limit=100')).data.find((e: Obj) => e.data.object.id === c.id);
    expect(ev.delivery).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: null });
    const set = await w.pay(['emulator', 'webhook-url', appUrl]);
    expect(set).toEqual({
      code: 0,
      stdout: `${appUrl}\n`,
      stderr: '✓ Sandbox webhook URL set: Sandbox events still pending delivery go out to it now\n',
    });
    await until('the pending event at the app', () => received.some((x) => x.id === ev.id));
    expect(received.find((x) => x.id === ev.id)!.type).toBe('customer.created');
    expect(ok(await w.pay(['emulator', 'webhook-url']))).toBe(`${appUrl}\n`);
    expect(ok(await w.pay(['emulator', 'status', '--jq', '.webhook_urls.sandbox']))).toBe(`${appUrl}\n`);
    const clear = await w.pay(['emulator', 'webhook-url', '--clear', '--json']);
    expect(clear).toEqual({
      code: 0,
      stdout: '{\n  "mode": "sandbox",\n  "url": null\n}\n',
      stderr: '✓ Sandbox webhook URL cleared: new Sandbox events stay pending until one is set\n',
    });
    usage(
      await w.pay(['emulator', 'webhook-url', 'ftp://example.com/x']),
      /^error: invalid webhook URL "ftp:\/\/example\.com\/x": must be an http\(s\) URL\n/,
    );
    usage(await w.pay(['emulator', 'webhook-url', appUrl, '--clear']), /give a URL or --clear, not both/);
    expect(data(await w.pay(['emulator', 'webhook-url', '--json']))).toEqual({ mode: 'sandbox', url: null });
  }, 120_000);
});

describe('pay emulator faults', () => {
  it('prints the settings, changes those named (the API feels them), --clear switches all off', async () => {
    expect(json(await w.pay(['emulator', 'faults', '--json']))).toEqual({
      fail_rate: 0,
      latency_ms: null,
      reset_rate: 0,
      rate_limit: null,
    });
    const set = await w.pay(['emulator', 'faults', '--fail-rate', '1', '--latency', '1-2', '--rate-limit', '500/s', '--json']);
    expect(data(set)).toEqual({ fail_rate: 1, latency_ms: [1, 2], reset_rate: 0, rate_limit: { per_second: 500, burst: 500 } });
    expect(set.stderr).toBe('✓ Faults changed\n');
    const failing = await w.pay(['customers', 'list', '--max-retries', '0']);
    expect(failing.code).toBe(6);
    expect(failing.stderr).toMatch(/injected fault/);
    const t = tsv(await w.pay(['emulator', 'faults']));
    expect(t.rows).toEqual([
      { fail_rate: '1', latency_ms: '[1,2]', reset_rate: '0', 'rate_limit.per_second': '500', 'rate_limit.burst': '500' },
    ]);
    expect(data(await w.pay(['emulator', 'faults', '--latency', 'off', '--rate-limit', 'off', '--json']))).toMatchObject({
      latency_ms: null,
      rate_limit: null,
      fail_rate: 1,
    });
    const clear = await w.pay(['emulator', 'faults', '--clear', '--json']);
    expect(clear.stderr).toBe('✓ Faults cleared: the emulator answers normally\n');
    expect(JSON.parse(clear.stdout)).toEqual({ fail_rate: 0, latency_ms: null, reset_rate: 0, rate_limit: null });
    expect((await w.pay(['customers', 'list', '--max-retries', '0'])).code).toBe(0);
    usage(await w.pay(['emulator', 'faults', '--fail-rate', '1.5']), /invalid --fail-rate "1\.5" \(a number from 0 to 1/);
    usage(await w.pay(['emulator', 'faults', '--clear', '--latency', '5']), /--clear switches every fault off: give it alone/);
  }, 120_000);
});

describe('pay emulator requests', () => {
  it('lists method, path, status, duration, request id, idempotency key and replayed, keys masked; filters by status and path', async () => {
    const key = `k-${Date.now()}`;
    const body = JSON.stringify(customerBody());
    const first = await w.pay(['customers', 'create', '--data', body, '--idempotency-key', key, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const again = await w.pay(['customers', 'create', '--data', body, '--idempotency-key', key, '--json']);
    expect(again.code).toBe(0);
    expect((await w.pay(['customers', 'get', 'cus_000000000000000000000000'])).code).toBe(4);
    const all = json(await w.pay(['emulator', 'requests', '--json', '--limit', '1000'])) as unknown as Obj[];
    const creates = all.filter((r) => r.method === 'POST' && r.path === '/v1/customers' && r.idempotency_key === key);
    expect(creates.map((r) => [r.status, r.replayed])).toEqual([
      [201, false],
      [201, true],
    ]);
    expect(creates[0]).toMatchObject({
      seq: expect.any(Number),
      received_at: expect.stringMatching(ISO),
      duration_ms: expect.any(Number),
      request_id: expect.stringMatching(ID('req_')),
    });
    expect(creates[0]!.headers['api-key']).toMatch(/^sk_test_…[A-Za-z0-9]{4}$/);
    expect(JSON.stringify(all)).not.toContain(w.emu.keys.sandbox.secret);
    // Oldest first, numbered in order.
    const seqs = all.map((r) => r.seq as number);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const notFound = ndjson(await w.pay(['emulator', 'requests', '--status', '4xx', '-o', 'ndjson', '--fields', 'method,path,status']));
    expect(notFound.at(-1)).toEqual({ method: 'GET', path: '/v1/customers/cus_000000000000000000000000', status: 404 });
    expect(notFound.every((r) => r.status >= 400 && r.status < 500)).toBe(true);
    expect(ndjson(await w.pay(['emulator', 'requests', '--status', '404', '-o', 'ndjson'])).every((r) => r.status === 404)).toBe(true);
    const byPath = ndjson(await w.pay(['emulator', 'requests', '--path', 'customers/*', '-o', 'ndjson', '--fields', 'path']));
    expect(byPath.length).toBeGreaterThan(0);
    expect(byPath.every((r) => /^\/v1\/customers\/[^/]+$/.test(r.path))).toBe(true);
    const t = tsv(await w.pay(['emulator', 'requests', '--limit', '2']));
    expect(t.header).toEqual(['received_at', 'method', 'path', 'status', 'duration_ms', 'request_id', 'idempotency_key', 'replayed']);
    expect(t.rows).toHaveLength(2);
    expect(t.rows[1]).toMatchObject({
      method: 'GET',
      path: '/v1/customers/cus_000000000000000000000000',
      status: '404',
      idempotency_key: '',
    });
    const tb = table(await w.pay(['emulator', 'requests', '--limit', '3', '-o', 'table']));
    expect(tb.header).toEqual(['RECEIVED', 'METHOD', 'PATH', 'STATUS', 'MS', 'REQUEST ID', 'IDEMPOTENCY KEY', 'REPLAYED']);
    const csv = ok(await w.pay(['emulator', 'requests', '--limit', '1', '-o', 'csv', '--fields', 'method,status']));
    expect(csv).toBe('method,status\r\nGET,404\r\n');
    const none = await w.pay(['emulator', 'requests', '--path', '/nowhere/']);
    expect(none).toEqual({ code: 0, stdout: '', stderr: 'No requests found.\n' });
    usage(await w.pay(['emulator', 'requests', '--fields', 'nope']), /--fields: unknown field "nope"/);
  }, 120_000);

  it('--follow prints each request answered after it started, once, until SIGINT (exit 0); tsv and ndjson lines streamed', async () => {
    for (const format of [[], ['-o', 'ndjson']]) {
      const child: ChildProcessWithoutNullStreams = spawn(
        process.execPath,
        [PAY_BIN, 'emulator', 'requests', '--follow', '--path', '/v1/customers', ...format],
        {
          env: w.env,
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      try {
        await until('requests --follow to start', () => err.includes('(Ctrl-C to stop)'));
        expect(err).toBe(`Following the requests to the emulator at ${w.emu.url} (Ctrl-C to stop)\n`);
        expect(out).toBe('');
        const made: string[] = [];
        for (let i = 0; i < 3; i++) made.push((await w.api('POST', 'customers', customerBody())).id);
        await w.api('GET', 'accounts'); // filtered out by --path
        await until('three requests printed', () => out.split('\n').filter(Boolean).length >= (format.length ? 3 : 4));
        child.kill('SIGINT');
        expect(await exited).toBe(0);
        expect(err.endsWith('Stopped.\n')).toBe(true);
        const lines = out.trimEnd().split('\n');
        if (format.length) {
          const rows = lines.map((l) => JSON.parse(l) as Obj);
          expect(rows.map((r) => [r.method, r.path, r.status])).toEqual([
            ['POST', '/v1/customers', 201],
            ['POST', '/v1/customers', 201],
            ['POST', '/v1/customers', 201],
          ]);
          expect(new Set(rows.map((r) => r.seq)).size).toBe(3);
        } else {
          expect(lines[0]).toBe('received_at\tmethod\tpath\tstatus\tduration_ms\trequest_id\tidempotency_key\treplayed');
          expect(lines.slice(1).map((l) => l.split('\t').slice(1, 4))).toEqual([
            ['POST', '/v1/customers', '201'],
            ['POST', '/v1/customers', '201'],
            ['POST', '/v1/customers', '201'],
          ]);
        }
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }
  }, 120_000);
});

describe('--dry-run on the verbs that change the emulator', () => {
  it('prints the admin POST (method, URL, body; JSON with --json) instead of sending it: nothing changes; reset asks nothing', async () => {
    const c = await w.api('POST', 'customers', customerBody());
    const state = async (): Promise<Obj> => {
      const s = json(await w.pay(['emulator', 'status', '--json']));
      return { offset: s.clock.offset_ms, urls: s.webhook_urls, faults: s.faults };
    };
    const before = await state();
    const admin = `${w.emu.url}/__emulator`;
    const cases: Array<{ argv: string[]; url: string; body: unknown }> = [
      { argv: ['emulator', 'reset'], url: `${admin}/reset`, body: {} },
      { argv: ['emulator', 'clock', 'advance', '1d'], url: `${admin}/clock/advance`, body: { seconds: 86_400 } },
      { argv: ['emulator', 'webhook-url', appUrl], url: `${admin}/webhook-url?mode=sandbox`, body: { url: appUrl } },
      { argv: ['--live', 'emulator', 'webhook-url', '--clear'], url: `${admin}/webhook-url?mode=live`, body: { url: null } },
      { argv: ['emulator', 'faults', '--fail-rate', '0.5'], url: `${admin}/faults`, body: { fail_rate: 0.5 } },
    ];
    for (const { argv, url, body } of cases) {
      const label = argv.join(' ');
      const text = await w.pay([...argv, '--dry-run']);
      expect({ code: text.code, stderr: text.stderr }, label).toEqual({ code: 0, stderr: 'dry run: nothing was sent\n' });
      expect(text.stdout, label).toBe(
        `POST ${url}\naccept: application/json\nuser-agent: pay-cli\ncontent-type: application/json\n\n${JSON.stringify(body, null, 2)}\n`,
      );
      if (argv.includes('reset')) continue; // reset prints no JSON
      const j = await w.pay([...argv, '--dry-run', '--json']);
      expect(data(j), label).toEqual({
        method: 'POST',
        url,
        headers: { accept: 'application/json', 'user-agent': 'pay-cli', 'content-type': 'application/json' },
        body,
      });
    }
    // Nothing was sent: the data, the clock, the webhook URLs and the faults are as they were.
    expect(await state()).toEqual(before);
    expect((await w.api('GET', `customers/${c.id}`)).id).toBe(c.id);
    // The health check is still made: no emulator there is exit 6, as without --dry-run.
    const gone = await w.pay(['emulator', 'reset', '--dry-run', '--base-url', 'http://127.0.0.1:1/v1/']);
    expect({ code: gone.code, stdout: gone.stdout }).toEqual({ code: 6, stdout: '' });
  }, 120_000);
});
