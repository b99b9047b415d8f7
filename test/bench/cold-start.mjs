// Cold start of `pay --version` and `pay --help` against `node -e 0`, interleaved runs,
// median of each. Target: at most 1.3x for both.
import { spawnSync } from 'node:child_process';

const BIN = new URL('../../bin/pay.js', import.meta.url).pathname;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

function time(args) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'ignore'] });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run() {
  const cases = { node: ['-e', '0'], version: [BIN, '--version'], help: [BIN, '--help'] };
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const args of Object.values(cases)) time(args); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const [k, args] of Object.entries(cases)) samples[k].push(time(args));
  const base = median(samples.node);
  let ok = true;
  console.log(`runs: ${RUNS} each, interleaved; median node -e 0 = ${base.toFixed(1)} ms`);
  for (const k of ['version', 'help']) {
    const ratio = median(samples[k]) / base;
    if (ratio > 1.3) ok = false;
    console.log(
      `pay --${k}: ${median(samples[k]).toFixed(1)} ms = ${ratio.toFixed(2)}x node -e 0 (target <= 1.3x) ${ratio <= 1.3 ? 'OK' : 'OVER'}`,
    );
  }
  return ok;
}
