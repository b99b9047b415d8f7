// Bulk create throughput: 20,000 customers through `pay customers create --from-file <ndjson>
// --concurrency 16` (a child process, its results written to a file), against the same 20,000
// bodies sent by a bare undici loop (same concurrency, same headers, Idempotency-Key included) to
// a fresh emulator: the ceiling for this machine. Each emulator runs in its own process
// (`pay emulator start --port 0`, in memory, no faults). Rounds are interleaved and the medians
// compared, as a busy machine drifts. Targets: pay's rate >= 0.7x the bare loop's, and pay's
// peak RSS < 150 MB.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { BIN, cleanEnv, spawnEmulator } from './emulator-process.mjs';

const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 20_000);
const CONCURRENCY = 16;
const ROUNDS = Number(process.env.BENCH_BULK_ROUNDS ?? 3);
const RATIO_TARGET = 0.7;
const RSS_TARGET_MB = 150;
const TIME = '/usr/bin/time';

function customer(i) {
  const n = String(i).padStart(6, '0');
  return {
    first_name: `Bench${n}`,
    last_name: 'Lovelace',
    email: `bench.${n}@example.com`,
    phone: `+1415${String(2000000 + i)}`,
    type: 'individual',
    gender: 'female',
    date_of_birth: '1990-12-10',
    address: { address_line1: `${i} Main St`, city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
  };
}

/** The emulator, and how many customers it holds. */
async function startEmulator() {
  const emu = await spawnEmulator();
  emu.count = async () => {
    const r = await request(`${emu.url}/__emulator/stats`);
    return (await r.body.json()).objects.customer ?? 0;
  };
  return emu;
}

/** Peak RSS of a pid so far (kB), from /proc. */
function vmHWM(pid) {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** pay customers create --from-file as a child: wall time, peak RSS, its summary line. */
function runPay(emu, file, resultsFile, configDir) {
  return new Promise((resolve, reject) => {
    const useTime = existsSync(TIME);
    const args = [BIN, 'customers', 'create', '--from-file', file, '--concurrency', String(CONCURRENCY)];
    const out = openSync(resultsFile, 'w');
    const env = cleanEnv({ PAY_CONFIG_DIR: configDir, PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.key, PAY_TENANT_ID: emu.tenant });
    const started = process.hrtime.bigint();
    const child = useTime
      ? spawn(TIME, ['-f', 'maxrss_kb=%M cpu_s=%U+%S', process.execPath, ...args], { stdio: ['ignore', out, 'pipe'], env })
      : spawn(process.execPath, args, { stdio: ['ignore', out, 'pipe'], env });
    closeSync(out);
    let err = '';
    let peak = 0;
    const poll = useTime ? undefined : setInterval(() => (peak = Math.max(peak, vmHWM(child.pid))), 20);
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (poll) clearInterval(poll);
      const rss = useTime ? Number(/maxrss_kb=(\d+)/.exec(err)?.[1] ?? 0) : peak;
      const cpu = /cpu_s=([\d.]+)\+([\d.]+)/.exec(err);
      if (code !== 0) return reject(new Error(`pay exited ${code}: ${err.slice(-1000)}`));
      resolve({
        ms,
        rssKb: rss,
        cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined,
        summary: err.split('\n').find((l) => l.startsWith('customers create:')) ?? '',
        how: useTime ? '/usr/bin/time %M' : '/proc VmHWM polled',
      });
    });
  });
}

/** The ceiling: the same bodies, headers and concurrency from a bare undici loop. */
async function runBare(emu, lines) {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: CONCURRENCY });
  const url = new URL('customers', emu.baseUrl);
  const identity = `${emu.tenant}|sandbox|createCustomer|bare.ndjson`;
  let next = 0;
  let failed = 0;
  const cpu0 = process.cpuUsage();
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < lines.length) {
      const text = lines[next++];
      const key = `bulk_${createHash('sha256').update(`${identity}\n${text}`).digest('hex').slice(0, 40)}`;
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'api-key': emu.key,
          accept: 'application/json',
          'user-agent': 'pay-cli/bench',
          'x-tenant-id': emu.tenant,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: text,
      });
      await res.body.text();
      if (res.statusCode !== 201) failed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  await agent.close();
  return { ms, failed, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One round: pay against a fresh emulator, then the bare loop against another fresh one. */
async function round(dir, file, lines) {
  let emu = await startEmulator();
  let payRun;
  try {
    payRun = await runPay(emu, file, join(dir, 'results.ndjson'), join(dir, 'config'));
    const n = await emu.count();
    if (n !== ROWS) throw new Error(`pay created ${n} customers, expected ${ROWS}`);
  } finally {
    await emu.stop();
  }
  const results = readFileSync(join(dir, 'results.ndjson'), 'utf8').trim().split('\n');
  if (results.length !== ROWS) throw new Error(`pay wrote ${results.length} results, expected ${ROWS}`);

  emu = await startEmulator();
  let bare;
  try {
    bare = await runBare(emu, lines);
    const n = await emu.count();
    if (bare.failed || n !== ROWS) throw new Error(`the bare loop: ${bare.failed} failed, ${n} customers`);
  } finally {
    await emu.stop();
  }
  const payRate = ROWS / (payRun.ms / 1000);
  const bareRate = ROWS / (bare.ms / 1000);
  return {
    payRun,
    payRate,
    bareRate,
    ratio: payRate / bareRate,
    rssMb: payRun.rssKb / 1024,
    payCpuUs: payRun.cpuMs === undefined ? undefined : (payRun.cpuMs * 1000) / ROWS,
    bareCpuUs: (bare.cpuMs * 1000) / ROWS,
  };
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'pay-bench-bulk-'));
  try {
    const lines = Array.from({ length: ROWS }, (_, i) => JSON.stringify(customer(i + 1)));
    const file = join(dir, 'customers.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(dir, file, lines));

    const ratio = median(rounds.map((r) => r.ratio));
    const rssMb = median(rounds.map((r) => r.rssMb));
    const ratioOk = ratio >= RATIO_TARGET;
    const rssOk = rssMb > 0 && rssMb < RSS_TARGET_MB;
    const list = (f) => rounds.map(f).join(', ');
    console.log(
      `${ROWS} customers, concurrency ${CONCURRENCY}, ${ROUNDS} interleaved rounds (pay, then the bare loop), each against a fresh in-memory emulator without faults`,
    );
    console.log(`pay customers create --from-file (wall, process start included): ${list((r) => `${r.payRate.toFixed(0)}/s`)}`);
    console.log(`  pay's own summaries: ${list((r) => /\((\d+\/s)\)/.exec(r.payRun.summary)?.[1] ?? '?')}`);
    console.log(`bare undici loop (same bodies, headers, keys): ${list((r) => `${r.bareRate.toFixed(0)}/s`)}`);
    console.log(
      `ratio per round: ${list((r) => r.ratio.toFixed(2))}; median ${ratio.toFixed(2)} (target >= ${RATIO_TARGET}) ${ratioOk ? 'OK' : 'UNDER'}`,
    );
    if (rounds[0].payCpuUs !== undefined) {
      // CPU per row drifts less than rates on a busy machine: it says where a low ratio comes from.
      console.log(
        `client CPU per row (user+sys): pay ${list((r) => `${r.payCpuUs.toFixed(0)} µs`)} (process start included); bare loop ${list((r) => `${r.bareCpuUs.toFixed(0)} µs`)}`,
      );
    }
    console.log(
      `pay peak RSS per round: ${list((r) => `${r.rssMb.toFixed(1)} MB`)} via ${rounds[0].payRun.how}; median ${rssMb.toFixed(1)} MB (target < ${RSS_TARGET_MB} MB) ${rssOk ? 'OK' : 'OVER'}`,
    );
    return ratioOk && rssOk;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
