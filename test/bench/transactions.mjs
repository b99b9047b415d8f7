// Streaming a long list: `pay transactions list --account <id> --all -o ndjson` over 10,000 and
// then 100,000 transactions of one account, as a child process whose stdout this process counts
// (a pipe: pay writes synchronously to it, so a slow reader cannot make pay buffer). Figures:
// rows per second (wall, process start included) and the child's peak RSS for each size, and the
// 100k/10k RSS ratio. Targets: peak RSS < 120 MB for both and flat (ratio <= 1.15), since the
// pages iterator and the ndjson printer are meant to stream in constant memory.
//
// Data: `pay emulator start --port 0` in its own process (in memory, nothing settles during the
// run), one customer and account, then collections into the account over undici at high
// concurrency: each collection is one transaction (a pending credit) on the account. The
// emulator has no bulk-fixture admin route, so this is the fastest contract-true way in.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { BIN, cleanEnv, spawnEmulator } from './emulator-process.mjs';

const SIZES = [Number(process.env.BENCH_TXN_SMALL ?? 10_000), Number(process.env.BENCH_TXN_LARGE ?? 100_000)];
const CONCURRENCY = 64;
const RSS_TARGET_MB = 120;
const RATIO_TARGET = 1.15;
const TIME = '/usr/bin/time';

const startEmulator = () => spawnEmulator(['--settle-after', '86400000']);

/** POSTs `n` bodies from `make(i)` with CONCURRENCY requests in flight; throws on any non-201. */
export async function post(emu, agent, path, n, make) {
  const url = new URL(path, emu.baseUrl);
  let next = 0;
  const out = new Array(n);
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'api-key': emu.key,
          'x-tenant-id': emu.tenant,
          accept: 'application/json',
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify(make(i)),
      });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`POST ${path} → ${res.statusCode}: ${text.slice(0, 300)}`);
      if (n === 1) out[i] = JSON.parse(text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, n) }, worker));
  return out;
}

/** Peak RSS so far (kB) of a pid, from /proc (when /usr/bin/time is missing). */
/** A customer with the collections feature active (the business rules) and a USD account of theirs, for collections to fill. */
export async function collectingAccount(emu, agent, lastName) {
  const [cus] = await post(emu, agent, 'customers', 1, () => ({
    first_name: 'Bench',
    last_name: lastName,
    email: `bench.${lastName.toLowerCase()}@example.com`,
    phone: '+14155550100',
    type: 'individual',
    date_of_birth: '1990-12-10',
    address: { address_line1: '1 Main St', city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
  }));
  const activated = await request(new URL(`customers/${cus.id}/features/collections/activate`, emu.baseUrl), {
    method: 'POST',
    dispatcher: agent,
    headers: { 'api-key': emu.key, 'x-tenant-id': emu.tenant, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: '{}',
  });
  if (activated.statusCode !== 200) throw new Error(`activating collections → ${activated.statusCode}: ${await activated.body.text()}`);
  await activated.body.text();
  const [acc] = await post(emu, agent, 'accounts', 1, () => ({ customer_id: cus.id, currency: 'USD' }));
  return acc;
}

function vmHWM(pid) {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The list as a child process: rows counted from its stdout, wall time, peak RSS. */
function listAll(emu, account, configDir) {
  return new Promise((resolve, reject) => {
    const useTime = existsSync(TIME);
    const args = [BIN, 'transactions', 'list', '--account', account, '--all', '-o', 'ndjson'];
    const env = cleanEnv({ PAY_CONFIG_DIR: configDir, PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.key, PAY_TENANT_ID: emu.tenant });
    const started = process.hrtime.bigint();
    const child = useTime
      ? spawn(TIME, ['-f', 'maxrss_kb=%M', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env })
      : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let rows = 0;
    let bytes = 0;
    let err = '';
    let peak = 0;
    const poll = useTime ? undefined : setInterval(() => (peak = Math.max(peak, vmHWM(child.pid))), 10);
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (poll) clearInterval(poll);
      if (code !== 0) return reject(new Error(`pay exited ${code}: ${err.slice(-1000)}`));
      const rssKb = useTime ? Number(/maxrss_kb=(\d+)/.exec(err)?.[1] ?? 0) : peak;
      resolve({ rows, bytes, ms, rssKb, how: useTime ? '/usr/bin/time %M' : '/proc VmHWM polled' });
    });
  });
}

export async function run() {
  const [small, large] = SIZES;
  const configDir = mkdtempSync(join(tmpdir(), 'pay-bench-txn-cfg-'));
  const emu = await startEmulator();
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000, pipelining: 1 });
  try {
    const acc = await collectingAccount(emu, agent, 'Ledger');
    // Amounts never end in .13 (the sandbox failure value) and vary so rows are not all alike.
    const body = (i) => ({
      account_id: acc.id,
      amount: `${1 + (i % 997)}.${String((i * 7) % 100 === 13 ? 14 : (i * 7) % 100).padStart(2, '0')}`,
      currency: 'USD',
      method: 'card',
    });

    const results = [];
    let have = 0;
    for (const size of SIZES) {
      const t = process.hrtime.bigint();
      await post(emu, agent, 'collections', size - have, (i) => body(have + i));
      const fillMs = Number(process.hrtime.bigint() - t) / 1e6;
      const created = size - have;
      have = size;
      const r = await listAll(emu, acc.id, configDir);
      if (r.rows !== size) throw new Error(`pay printed ${r.rows} rows, expected ${size}`);
      results.push({ size, ...r, fill: { n: created, ms: fillMs } });
    }

    const [a, b] = results;
    const ratio = b.rssKb / a.rssKb;
    const mb = (kb) => (kb / 1024).toFixed(1);
    const rssOk = results.every((r) => r.rssKb > 0 && r.rssKb / 1024 < RSS_TARGET_MB);
    const flatOk = ratio <= RATIO_TARGET;
    console.log(
      `one account; transactions made by collections over undici (${CONCURRENCY} in flight) to \`pay emulator start\` in its own process`,
    );
    for (const r of results) {
      console.log(`  filled ${r.fill.n} in ${(r.fill.ms / 1000).toFixed(1)} s (${(r.fill.n / (r.fill.ms / 1000)).toFixed(0)}/s)`);
    }
    for (const r of results) {
      console.log(
        `pay transactions list --account … --all -o ndjson, ${r.size} rows: ${(r.ms / 1000).toFixed(2)} s = ${(r.size / (r.ms / 1000)).toFixed(0)} rows/s ` +
          `(process start included; ${(r.bytes / 1048576).toFixed(1)} MiB out), peak RSS ${mb(r.rssKb)} MB (target < ${RSS_TARGET_MB} MB) ${r.rssKb / 1024 < RSS_TARGET_MB ? 'OK' : 'OVER'}`,
      );
    }
    console.log(
      `peak RSS ${large}/${small}: ${ratio.toFixed(2)} (target <= ${RATIO_TARGET}, flat) ${flatOk ? 'OK' : 'GROWS'}; RSS via ${a.how}`,
    );
    return rssOk && flatOk;
  } finally {
    await agent.close();
    await emu.stop();
    rmSync(configDir, { recursive: true, force: true });
  }
}
