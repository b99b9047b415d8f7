// Bulk input is streamed: `pay customers create --from-file` over 100,000 and 1,000,000 NDJSON
// rows, peak RSS of each run and their ratio. Target: flat (1M/100k <= 1.25) and under 150 MB.
// The rows lack required fields, so each fails locally (line number and field in its result)
// and no request is sent: a million requests would take a quarter of an hour and measure the
// emulator, not the reader. Reading, parsing, validating and writing one result per row is the
// whole pipeline a valid row goes through up to the request; the 20k bench covers the requests.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const BIN = new URL('../../bin/pay.js', import.meta.url).pathname;
const SIZES = [Number(process.env.BENCH_BULKMEM_SMALL ?? 100_000), Number(process.env.BENCH_BULKMEM_LARGE ?? 1_000_000)];
const RSS_TARGET_MB = 150;
const RATIO_TARGET = 1.25;

async function writeRows(path, n) {
  const out = createWriteStream(path);
  for (let i = 0; i < n; i++) {
    if (!out.write(`{"first_name":"Row${i}","email":"row-${i}@example.com","city":"Austin"}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function peak(file, dir) {
  return new Promise((resolve, reject) => {
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      PAY_CONFIG_DIR: dir,
      PAY_API_KEY: 'sk_test_benchbenchbenchbenchbench0',
      PAY_TENANT_ID: 'biz_bench',
      PAY_BASE_URL: 'http://127.0.0.1:9/v1/',
    };
    const started = Date.now();
    const child = spawn('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, BIN, 'customers', 'create', '--from-file', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let lines = 0;
    let err = '';
    child.stdout.on('data', (d) => {
      for (let i = 0; i < d.length; i++) if (d[i] === 10) lines++;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const kb = Number(/maxrss_kb=(\d+)/.exec(err)?.[1]);
      if (code !== 1 || !kb) return reject(new Error(`pay exited ${code} (want 1: every row fails): ${err.slice(-500)}`));
      resolve({ kb, lines, ms: Date.now() - started });
    });
  });
}

export async function run() {
  if (!existsSync('/usr/bin/time')) {
    console.log('skipped: /usr/bin/time (GNU time) is missing');
    return true;
  }
  const dir = mkdtempSync(join(tmpdir(), 'pay-bench-bulkmem-'));
  try {
    const results = [];
    for (const n of SIZES) {
      const file = join(dir, `rows-${n}.ndjson`);
      await writeRows(file, n);
      const r = await peak(file, dir);
      if (r.lines !== n) throw new Error(`${r.lines} results for ${n} rows`);
      results.push(r);
      console.log(
        `${n} rows: peak RSS ${(r.kb / 1024).toFixed(1)} MB, ${Math.round(n / (r.ms / 1000))} rows/s (each fails locally: no request)`,
      );
      rmSync(file);
    }
    const ratio = results[1].kb / results[0].kb;
    const maxMb = Math.max(...results.map((r) => r.kb)) / 1024;
    const ok = ratio <= RATIO_TARGET && maxMb < RSS_TARGET_MB;
    console.log(
      `peak RSS ${SIZES[1]}/${SIZES[0]} rows: ${ratio.toFixed(2)}x (target <= ${RATIO_TARGET}x), max ${maxMb.toFixed(1)} MB (target < ${RSS_TARGET_MB} MB) ${ok ? 'OK' : 'MISSED'}`,
    );
    return ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
