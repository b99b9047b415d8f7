// Shell completion cost on TAB: a bash that sources completions/pay.bash and completes `pay cu`
// once, against a bash that runs `true`, interleaved runs, median of each. The difference is what
// a user waits for on the first TAB of a shell (sourcing the script) plus one completion.
// Target: under 20 ms of overhead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const SCRIPT = new URL('../../completions/pay.bash', import.meta.url).pathname;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const TARGET_MS = 20;
const ENV = { PATH: '/usr/bin:/bin', HOME: '/nonexistent', LANG: 'C' };

const COMPLETE = 'source "$1" || exit 9; COMP_WORDS=(pay cu); COMP_CWORD=1; _pay; [[ ${COMPREPLY[*]} == customers ]] || exit 8';
const cases = {
  base: ['--norc', '--noprofile', '-c', 'true'],
  completion: ['--norc', '--noprofile', '-c', COMPLETE, 'bash', SCRIPT],
};

function time(args) {
  const t = process.hrtime.bigint();
  const r = spawnSync('bash', args, { stdio: ['ignore', 'ignore', 'pipe'], env: ENV });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`bash ${args.slice(3).join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run() {
  if (!existsSync(SCRIPT)) {
    console.log('completions/pay.bash is missing: run npm run generate');
    return false;
  }
  if (spawnSync('bash', ['-c', 'true']).status !== 0) {
    console.log('bash is not available');
    return false;
  }
  const samples = { base: [], completion: [] };
  for (const args of Object.values(cases)) time(args); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const [k, args] of Object.entries(cases)) samples[k].push(time(args));
  const base = median(samples.base);
  const comp = median(samples.completion);
  const overhead = comp - base;
  const ok = overhead < TARGET_MS;
  console.log(`runs: ${RUNS} each, interleaved; median bash -c true = ${base.toFixed(1)} ms`);
  console.log(
    `bash sourcing completions/pay.bash + one completion of "pay cu": ${comp.toFixed(1)} ms = ` +
      `+${overhead.toFixed(1)} ms, ${(comp / base).toFixed(2)}x bash -c true (target < ${TARGET_MS} ms overhead) ${ok ? 'OK' : 'OVER'}`,
  );
  return ok;
}
