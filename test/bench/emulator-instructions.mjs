// Run by hand (not a section of `npm run bench`: it takes minutes): the instructions the emulator
// executes per persisted POST, counted by `valgrind --tool=callgrind` over all its threads, which a
// busy machine cannot disturb the way it disturbs wall and CPU time (repeatable to a few per cent).
// `pay emulator start --data-dir <tmp>` runs under callgrind with instrumentation off; WARM POSTs
// (the emulator's `emulator` bench body, a unique email and Idempotency-Key each, 64 in flight) let
// V8 compile and optimise; then instrumentation goes on for COUNT more and the counts are dumped.
//   node test/bench/emulator-instructions.mjs [bin/pay.js …]   (default: this checkout's)
//   EMU_INSTR_WARM=4000 EMU_INSTR_COUNT=4000 EMU_INSTR_RUNS=1
// With several builds, runs alternate between them (a, b, a, b, …) and each build's median is printed.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { BIN, cleanEnv } from './emulator-process.mjs';

const WARM = Number(process.env.EMU_INSTR_WARM ?? 4000);
const COUNT = Number(process.env.EMU_INSTR_COUNT ?? 4000);
const RUNS = Number(process.env.EMU_INSTR_RUNS ?? 1);
const CONCURRENCY = 64;
const bins = process.argv.slice(2).length ? process.argv.slice(2) : [BIN];

let serial = 0;
const body = () =>
  JSON.stringify({
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: `bench.${++serial}@example.com`,
    phone: '+14155550100',
    type: 'individual',
    gender: 'female',
    date_of_birth: '1990-12-10',
    address: { address_line1: '1 Main St', city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
  });

/** `n` POST /v1/customers, 64 in flight; every answer must be 201. */
async function posts(pool, emu, n) {
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      const res = await pool.request({
        path: '/v1/customers',
        method: 'POST',
        headers: {
          'api-key': emu.key,
          'x-tenant-id': emu.tenant,
          accept: 'application/json',
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: body(),
      });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`POST /v1/customers → ${res.statusCode}: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** One run: instructions per POST of `bin`'s emulator. */
async function measure(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'pay-bench-emu-instr-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file', // V8's code is made at run time
      '--instr-atstart=no',
      `--callgrind-out-file=${join(dir, 'callgrind.out')}`,
      process.execPath,
      bin,
      'emulator',
      'start',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: cleanEnv({ PAY_CONFIG_DIR: join(dir, 'config') }) },
  );
  let pool;
  try {
    const emu = await new Promise((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`the emulator did not start under valgrind: ${err}`)), 300_000);
      child.once('exit', (code) => reject(new Error(`valgrind exited (${code}): ${err}`)));
      child.stderr.setEncoding('utf8').on('data', (d) => {
        err += d;
        const url = /listening on (http:\/\/\S+)/.exec(err)?.[1];
        const tenant = /tenant id\s+(\S+)/.exec(err)?.[1];
        const key = /sandbox secret key\s+(\S+)/.exec(err)?.[1];
        if (!(url && tenant && key && err.includes('Ctrl-C'))) return;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ url, tenant, key });
      });
    });
    pool = new Pool(emu.url, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 600_000 });
    await posts(pool, emu, WARM);
    execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' });
    await posts(pool, emu, COUNT);
    execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--instr=off', String(child.pid)], { stdio: 'ignore' });
    // The dump callgrind_control asked for (the one written at exit comes after it, numbered 0).
    const dump = readdirSync(dir).find((f) => /^callgrind\.out\.\d+$/.test(f) && !f.endsWith('.0'));
    if (!dump) throw new Error('callgrind wrote no dump');
    const summary = /^summary: (\d+)$/m.exec(readFileSync(join(dir, dump), 'utf8'))?.[1];
    if (!summary) throw new Error('no summary line in the callgrind dump');
    return Number(summary) / COUNT;
  } finally {
    await pool?.close();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
}

const got = new Map(bins.map((b) => [b, []]));
for (let r = 0; r < RUNS; r++) {
  for (const bin of bins) {
    const n = await measure(bin);
    got.get(bin).push(n);
    console.log(`${bin}: ${(n / 1000).toFixed(0)} k instructions per POST (run ${r + 1})`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [bin, xs] of got)
  console.log(
    `${bin}: median ${(median(xs) / 1000).toFixed(0)} k instructions per POST over ${xs.length} run(s), ${WARM} POSTs warm-up, ${COUNT} counted`,
  );
