// Tables that fit the terminal: `pay transactions list --account <id> --all` printed as a table
// against TSV over the same 10,000 transactions (each with a description), as child processes.
// A table is collected, then laid out (src/io/table.ts): measured unfitted (`-o table` into a
// file) and fitted to 100 columns (a pseudo-terminal from script(1), COLUMNS=100; skipped without
// script). Figure: wall time of each over TSV's written the same way (into a file, or through the
// pseudo-terminal with colour off), median of 5 runs interleaved, process start included.
// Target: <= 1.5x. (cli-table3, which laid tables out before, took about 54 s for this in one
// process: its time grew with the square of the rows.)
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { BIN, cleanEnv, spawnEmulator } from './emulator-process.mjs';
import { collectingAccount, post } from './transactions.mjs';

const ROWS = Number(process.env.BENCH_TABLE_ROWS ?? 10_000);
const TARGET = 1.5;
const RUNS = 5;

function hasScript() {
  return spawnSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' }).status === 0;
}

/**
 * One run of pay, its stdout into a file (a pipe to this process would time this process's
 * reading too, and a table is written all at once at the end where TSV is written page by page):
 * wall ms, and the lines it printed.
 */
function once(argv, env, pty) {
  return new Promise((resolve, reject) => {
    const cmd = [process.execPath, BIN, ...argv].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
    const dir = mkdtempSync(join(tmpdir(), 'pay-bench-tables-out-'));
    const file = join(dir, 'out');
    const fd = openSync(file, 'w');
    const started = process.hrtime.bigint();
    const child = pty
      ? spawn('script', ['-qec', cmd, '/dev/null'], {
          stdio: ['ignore', fd, 'pipe'],
          env: { ...env, COLUMNS: '100', TERM: 'xterm', NO_COLOR: '1' },
        })
      : spawn(process.execPath, [BIN, ...argv], { stdio: ['ignore', fd, 'pipe'], env });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      closeSync(fd);
      const out = readFileSync(file);
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) return reject(new Error(`pay ${argv.join(' ')} exited ${code}: ${err.slice(-500)}`));
      let lines = 0;
      for (let i = out.indexOf(10); i !== -1; i = out.indexOf(10, i + 1)) lines++;
      resolve({ ms, lines });
    });
  });
}

/** Each variant run RUNS times, interleaved (a load that comes and goes hits them alike); the median of each. */
async function medians(variants) {
  const runs = variants.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [k, v] of variants.entries()) runs[k].push(await once(...v));
  return runs.map((r) => r.sort((a, b) => a.ms - b.ms)[Math.floor(RUNS / 2)]);
}

export async function run() {
  const configDir = mkdtempSync(join(tmpdir(), 'pay-bench-tables-cfg-'));
  const emu = await spawnEmulator(['--settle-after', '86400000']);
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000, pipelining: 1 });
  try {
    const acc = await collectingAccount(emu, agent, 'Tables');
    await post(emu, agent, 'collections', ROWS, (i) => ({
      account_id: acc.id,
      amount: `${1 + (i % 997)}.${String((i * 7) % 100 === 13 ? 14 : (i * 7) % 100).padStart(2, '0')}`,
      currency: 'USD',
      method: 'card',
      description:
        i % 3 ? `Card payment ${randomUUID()} for the shared office at 221B Baker Street` : '家賃の分担、ベーカー街221Bの共有オフィス',
    }));
    const env = cleanEnv({ PAY_CONFIG_DIR: configDir, PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.key, PAY_TENANT_ID: emu.tenant });
    const list = ['transactions', 'list', '--account', acc.id, '--all', '--limit', '1000'];
    const pty = hasScript();
    const [tsv, table, tsvPty, fitted] = await medians([
      [[...list, '-o', 'tsv'], env, false],
      [[...list, '-o', 'table'], env, false],
      ...(pty
        ? [
            [[...list, '-o', 'tsv'], env, true],
            [list, env, true],
          ]
        : []),
    ]);
    for (const [name, r] of [
      ['tsv', tsv],
      ['table', table],
      ['tsv on a terminal', tsvPty],
      ['fitted', fitted],
    ]) {
      if (r && r.lines < ROWS + 1) throw new Error(`${name}: ${r.lines} lines for ${ROWS} rows`);
    }
    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const ratio = (r) => r.ms / tsv.ms;
    const ptyRatio = fitted && tsvPty ? fitted.ms / tsvPty.ms : undefined;
    console.log(`${ROWS} transactions with descriptions, --all --limit 1000, median of ${RUNS} runs each (process start included)`);
    console.log(`  -o tsv ${s(tsv.ms)}`);
    console.log(
      `  -o table into a file (laid out, not fitted) ${s(table.ms)}: ${ratio(table).toFixed(2)}x tsv (target <= ${TARGET}x) ${ratio(table) <= TARGET ? 'OK' : 'SLOW'}`,
    );
    if (fitted && tsvPty && ptyRatio !== undefined)
      console.log(
        `  on a 100-column pseudo-terminal: -o tsv ${s(tsvPty.ms)}, the table fitted ${s(fitted.ms)}: ${ptyRatio.toFixed(2)}x (target <= ${TARGET}x) ${ptyRatio <= TARGET ? 'OK' : 'SLOW'}`,
      );
    else console.log('  fitted: skipped (no script(1) for a pseudo-terminal)');
    return ratio(table) <= TARGET && (ptyRatio === undefined || ptyRatio <= TARGET);
  } finally {
    await agent.close();
    await emu.stop();
    rmSync(configDir, { recursive: true, force: true });
  }
}
