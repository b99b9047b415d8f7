// Emulator throughput: requests per second that `pay emulator start --data-dir <tmp>` (its own
// process, persistence on: every POST is written and fdatasynced before it is answered) serves
// over keep-alive with 64 requests in flight, against a bare node:http server (its own process
// too) that answers every request with one fixed JSON body. Same load generator for both: an
// undici Pool (64 keep-alive connections, no pipelining) in this process, each of 64 workers
// sending its next request when the last one is answered, for a fixed time.
//   GET:  GET /v1/customers/<id> (Api-Key, x-tenant-id) vs the bare server's fixed body.
//   POST: POST /v1/customers, a valid body with a unique email and a unique Idempotency-Key per
//         request (each is a new customer, journaled) vs the bare server reading the body and
//         answering 201 with its fixed body.
// Rounds are interleaved (bare GET, emulator GET, bare POST, emulator POST) and the medians of
// the per-round ratios reported, as a busy machine drifts. Every answer must be 200/201.
// Targets: emulator/bare >= 0.5 for GET and >= 0.4 for POST.
// BENCH_COMPARE=/other/checkout/bin/pay.js runs that build's emulator too, in the same rounds
// (before/after figures from one run): its ratios are printed beside, not held to the targets.
// Also printed: each server's CPU per request (from /proc), how busy the generator was, and the
// slowest answer of each round (a compaction shows there: it runs in slices). On 2
// cores the generator itself caps the bare server's rate (and the GET rates), so the CPU figures
// say more about the emulator's own cost than the ratios do. The emulator's state grows through
// the run (every POST leaves a customer, its event and a stored response; the journal compacts
// past 64 MiB), as under any such load.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { cleanEnv, spawnEmulator, stopper } from './emulator-process.mjs';

const CONCURRENCY = 64;
const SECONDS = Number(process.env.BENCH_EMU_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_EMU_ROUNDS ?? 3);
const WARMUP_MS = 1500;
const TARGETS = { GET: 0.5, POST: 0.4 };
const COMPARE = (process.env.BENCH_COMPARE ?? '').split(',').filter(Boolean)[0];

const startEmulator = (dataDir, bin) => spawnEmulator(['--data-dir', dataDir], bin);

// The bare server: node:http defaults (keep-alive on), one fixed JSON body for every request; a
// body, when there is one, is read to its end first (as the emulator must before answering).
const BARE = `
import { createServer } from 'node:http';
const body = Buffer.from(process.env.BENCH_BODY);
const headers = { 'Content-Type': 'application/json', 'Content-Length': body.length };
const server = createServer((req, res) => {
  const status = req.method === 'POST' ? 201 : 200;
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(status, headers); res.end(body); });
});
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
process.on('SIGTERM', () => { server.close(); server.closeAllConnections(); });
`;

function startBare(body) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', BARE], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...cleanEnv(), BENCH_BODY: body },
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the bare server did not start'));
    }, 15_000);
    child.once('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const port = /port (\d+)/.exec(out)?.[1];
      if (!port) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ url: `http://127.0.0.1:${port}`, pid: child.pid, stop: stopper(child) });
    });
  });
}

function customer(n) {
  return {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: `bench.${n}@example.com`,
    phone: '+14155550100',
    type: 'individual',
    gender: 'female',
    date_of_birth: '1990-12-10',
    address: { address_line1: '1 Main St', city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
  };
}

let serial = 0;

/** CPU time (user + system, ms) a process has used so far, from /proc (0 where there is none). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/**
 * CONCURRENCY workers send `make()` requests through `pool` for `ms`; each answer's body is read
 * whole and its status checked. Returns answers per second over the wall time (last answer included).
 */
async function load(pool, ms, make, expect, serverPid) {
  let done = 0;
  const server0 = cpuMs(serverPid);
  const self0 = process.cpuUsage();
  let bad = 0;
  let firstBad = '';
  let slowest = 0;
  const started = process.hrtime.bigint();
  const until = Date.now() + ms;
  const worker = async () => {
    while (Date.now() < until) {
      const sent = performance.now();
      const res = await pool.request(make());
      const text = await res.body.text();
      slowest = Math.max(slowest, performance.now() - sent);
      if (res.statusCode !== expect) {
        bad++;
        firstBad ||= `${res.statusCode}: ${text.slice(0, 300)}`;
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const secs = Number(process.hrtime.bigint() - started) / 1e9;
  const self = process.cpuUsage(self0);
  if (bad) throw new Error(`${bad} of ${done} answers were not ${expect} (first: ${firstBad})`);
  return {
    n: done,
    rate: done / secs,
    serverUs: ((cpuMs(serverPid) - server0) * 1000) / done,
    loadShare: (self.user + self.system) / 1e6 / secs,
    slowestMs: slowest,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'pay-bench-emu-'));
  const emu = await startEmulator(join(dir, 'data'));
  const emuPool = new Pool(emu.url, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 30_000 });
  const other = COMPARE ? await startEmulator(join(dir, 'data-compare'), COMPARE) : undefined;
  const otherPool = other && new Pool(other.url, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 30_000 });
  let bare;
  let barePool;
  try {
    const headers = { 'api-key': emu.key, 'x-tenant-id': emu.tenant, accept: 'application/json' };
    const postHeaders = () => ({ ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() });
    const post = (path) => () => ({ path, method: 'POST', headers: postHeaders(), body: JSON.stringify(customer(++serial)) });

    // The customer every GET reads; its JSON is the bare server's fixed body (same size on the wire).
    const res = await emuPool.request(post('/v1/customers')());
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`POST /v1/customers → ${res.statusCode}: ${text.slice(0, 300)}`);
    const cus = JSON.parse(text);
    bare = await startBare(text);
    barePool = new Pool(bare.url, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 30_000 });

    const cases = [
      ['bare', 'GET', barePool, () => ({ path: '/v1/customers/x', method: 'GET', headers }), 200, bare.pid],
      ['emulator', 'GET', emuPool, () => ({ path: `/v1/customers/${cus.id}`, method: 'GET', headers }), 200, emu.pid],
      ['bare', 'POST', barePool, post('/v1/customers'), 201, bare.pid],
      ['emulator', 'POST', emuPool, post('/v1/customers'), 201, emu.pid],
    ];
    if (other) {
      // The same requests to the other build's emulator (its own customer to read, its own key and tenant).
      const oh = { 'api-key': other.key, 'x-tenant-id': other.tenant, accept: 'application/json' };
      const opost = () => ({
        path: '/v1/customers',
        method: 'POST',
        headers: { ...oh, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(customer(++serial)),
      });
      const ores = await otherPool.request(opost());
      const ocus = JSON.parse(await ores.body.text());
      cases.push(
        ['compare', 'GET', otherPool, () => ({ path: `/v1/customers/${ocus.id}`, method: 'GET', headers: oh }), 200, other.pid],
        ['compare', 'POST', otherPool, opost, 201, other.pid],
      );
    }
    // Warm-up: JIT both servers and this generator, open all connections.
    for (const [, , pool, make, expect] of cases) await load(pool, WARMUP_MS, make, expect);

    const rounds = [];
    const detail = {};
    for (let r = 0; r < ROUNDS; r++) {
      const got = {};
      for (const [who, method, pool, make, expect, pid] of cases) {
        await load(pool, 300, make, expect); // re-open connections idle since the last round
        const m = await load(pool, SECONDS * 1000, make, expect, pid);
        got[`${who} ${method}`] = m.rate;
        (detail[`${who} ${method}`] ??= []).push(m);
      }
      rounds.push(got);
    }
    const statsRes = await emuPool.request({ path: '/__emulator/stats', method: 'GET' });
    const stats = await statsRes.body.json();

    let ok = true;
    const list = (f) => rounds.map(f).join(', ');
    console.log(
      `${CONCURRENCY} in flight over keep-alive (undici Pool, ${CONCURRENCY} connections), ${SECONDS} s per figure, ${ROUNDS} interleaved rounds; ` +
        `\`pay emulator start --data-dir <tmp>\` and the bare node:http server each in its own process`,
    );
    for (const method of ['GET', 'POST']) {
      const what =
        method === 'GET' ? 'GET /v1/customers/<id>' : 'POST /v1/customers (new customer, unique Idempotency-Key, journaled + fdatasync)';
      const ratios = rounds.map((g) => g[`emulator ${method}`] / g[`bare ${method}`]);
      const ratio = median(ratios);
      const met = ratio >= TARGETS[method];
      if (!met) ok = false;
      console.log(`${what}:`);
      console.log(`  bare node:http fixed JSON: ${list((g) => `${g[`bare ${method}`].toFixed(0)}/s`)}`);
      console.log(`  emulator:                  ${list((g) => `${g[`emulator ${method}`].toFixed(0)}/s`)}`);
      console.log(
        `  ratio per round: ${ratios.map((x) => x.toFixed(2)).join(', ')}; median ${ratio.toFixed(2)} (target >= ${TARGETS[method]}) ${met ? 'OK' : 'UNDER'}`,
      );
      if (other) {
        const oratios = rounds.map((g) => g[`compare ${method}`] / g[`bare ${method}`]);
        console.log(`  [${COMPARE}] emulator: ${list((g) => `${g[`compare ${method}`].toFixed(0)}/s`)}`);
        console.log(
          `  [${COMPARE}] ratio per round: ${oratios.map((x) => x.toFixed(2)).join(', ')}; median ${median(oratios).toFixed(2)}; ` +
            `server CPU per request (median) ${median(detail[`compare ${method}`].map((m) => m.serverUs)).toFixed(1)} µs`,
        );
      }
      // Where the time goes: server CPU per request, and how busy the generator was (1.00 = one
      // core): a generator near 1.00 caps both rates and pulls the ratio towards 1.
      const cpu = (who) => median(detail[`${who} ${method}`].map((m) => m.serverUs));
      const gen = (who) => median(detail[`${who} ${method}`].map((m) => m.loadShare));
      console.log(
        `  server CPU per request (median): bare ${cpu('bare').toFixed(1)} µs, emulator ${cpu('emulator').toFixed(1)} µs (${(cpu('bare') / cpu('emulator')).toFixed(2)}); ` +
          `generator CPU share: ${gen('bare').toFixed(2)} vs bare, ${gen('emulator').toFixed(2)} vs emulator`,
      );
      const slow = (who) => detail[`${who} ${method}`].map((m) => `${m.slowestMs.toFixed(0)}`).join(', ');
      console.log(`  slowest answer per round (ms): bare ${slow('bare')}; emulator ${slow('emulator')}`);
    }
    const customers = stats.objects?.customer;
    const journal = stats.journal ? `; journal ${JSON.stringify(stats.journal)}` : '';
    console.log(`emulator at the end: ${customers ?? '?'} customers${journal}`);
    return ok;
  } finally {
    await emuPool.close();
    await barePool?.close();
    await otherPool?.close();
    await emu.stop();
    await other?.stop();
    await bare?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
