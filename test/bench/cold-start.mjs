// Cold start of `pay --version` and `pay --help` against `node -e 0`, interleaved runs,
// median of each. Target: at most 1.3x for both. As in the commands section, when
// NODE_EXTRA_CA_CERTS is set the same cases also run without it in the same rounds (a second
// table), and both are judged. stdout is /dev/null (where pay prints help from its pages, as to a
// pipe or a file; a terminal gets commander's help fitted to its width).
import { spawnSync } from 'node:child_process';

const BIN = new URL('../../bin/pay.js', import.meta.url).pathname;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

function time(args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'ignore'], env });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run() {
  const bare = { ...process.env };
  delete bare.NODE_EXTRA_CA_CERTS;
  const envs = process.env.NODE_EXTRA_CA_CERTS
    ? [
        ['as the environment is', process.env],
        ['without NODE_EXTRA_CA_CERTS', bare],
      ]
    : [['as the environment is', process.env]];
  const args = { node: ['-e', '0'], version: [BIN, '--version'], help: [BIN, '--help'] };
  const cases = envs.flatMap(([where, env]) => Object.entries(args).map(([k, a]) => ({ where, env, k, a, samples: [] })));
  for (const c of cases) time(c.a, c.env); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const c of cases) c.samples.push(time(c.a, c.env));
  let ok = true;
  console.log(`runs: ${RUNS} each, interleaved`);
  for (const [where] of envs) {
    const of = (k) => cases.find((c) => c.where === where && c.k === k).samples;
    const base = median(of('node'));
    console.log(`${where}: median node -e 0 = ${base.toFixed(1)} ms`);
    for (const k of ['version', 'help']) {
      const ratio = median(of(k)) / base;
      if (ratio > 1.3) ok = false;
      console.log(
        `  pay --${k}: ${median(of(k)).toFixed(1)} ms = ${ratio.toFixed(2)}x node -e 0 (target <= 1.3x) ${ratio <= 1.3 ? 'OK' : 'OVER'}`,
      );
    }
  }
  return ok;
}
