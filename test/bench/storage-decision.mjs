// The storage decision's bench, run by hand (not an npm run bench section: better-sqlite3 is not a
// dependency). Persisted POST throughput, as ratios to a bare server measured in the same rounds, of
//  bare      node:http answering 201 with a fixed body (the reference)
//  journal   the same + the emulator's mechanism alone: group commit per loop turn, one write + fdatasync (thread pool)
//  sqlite-F  the same + better-sqlite3, WAL, synchronous=FULL, one transaction per loop turn (durable before the answer)
//  sqlite-N  the same, synchronous=NORMAL (NOT durable before the answer in WAL mode; reference only)
//  emu-new   `pay emulator start --data-dir` of this tree (bin/pay.js)
//  emu-base  the same of another build, when BASE_BIN=<its bin/pay.js> is set
// Same load generator as test/bench/emulator.mjs (undici Pool, 64 in flight); interleaved rounds; median ratios.
// BETTER_SQLITE3=<path to an installed better-sqlite3 package> enables the sqlite servers, e.g.
//   (cd /tmp/sq && npm install better-sqlite3) && BETTER_SQLITE3=/tmp/sq/node_modules/better-sqlite3 node test/bench/storage-decision.mjs
// S (seconds per figure, 4), R (rounds, 3) and WHICH (comma-separated servers) tune it.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { BIN, cleanEnv, stopper } from './emulator-process.mjs';

const SECONDS = Number(process.env.S ?? 4),
  ROUNDS = Number(process.env.R ?? 3),
  C = 64;
const SQLITE = process.env.BETTER_SQLITE3;
const SERVER = `
import { createServer } from 'node:http';
import { openSync, writeSync, fdatasync } from 'node:fs';
import { createRequire } from 'node:module';
const kind = process.env.KIND, dir = process.env.DIR;
const body = Buffer.from('{"id":"cus_x","object":"customer"}');
let commit;
if (kind === 'journal') {
  const fd = openSync(dir + '/j.jsonl', 'a');
  let q = [], w = [], sched = false;
  commit = (line, cb) => { q.push(line); w.push(cb); if (!sched) { sched = true; setImmediate(() => { sched = false; const data = q.join(''); const ws = w; q = []; w = []; writeSync(fd, data); fdatasync(fd, (e) => ws.forEach((f) => f(e))); }); } };
} else if (kind.startsWith('sqlite')) {
  const Database = createRequire(import.meta.url)(process.env.SQLITE);
  const db = new Database(dir + '/db.sqlite');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = ' + (kind === 'sqlite-F' ? 'FULL' : 'NORMAL'));
  db.exec('create table ops (id integer primary key, op text not null)');
  const ins = db.prepare('insert into ops (op) values (?)');
  const tx = db.transaction((lines) => { for (const l of lines) ins.run(l); });
  let q = [], w = [], sched = false;
  commit = (line, cb) => { q.push(line); w.push(cb); if (!sched) { sched = true; setImmediate(() => { sched = false; const lines = q, ws = w; q = []; w = []; let err = null; try { tx(lines); } catch (e) { err = e; } ws.forEach((f) => f(err)); }); } };
}
const server = createServer((req, res) => {
  let chunks = [];
  req.on('data', (d) => chunks.push(d));
  req.on('end', () => {
    const done = (e) => { res.writeHead(e ? 503 : 201, { 'content-type': 'application/json', 'content-length': body.length }); res.end(body); };
    if (!commit) return done(null);
    const o = JSON.parse(Buffer.concat(chunks).toString());
    commit(JSON.stringify({ ops: [{ p: 'customer', o }] }) + '\\n', done);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
process.on('SIGTERM', () => { server.close(); server.closeAllConnections(); process.exit(0); });
`;

function startProto(kind) {
  const dir = mkdtempSync(join(tmpdir(), 'pay-stbench-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...cleanEnv(), KIND: kind, DIR: dir, SQLITE },
    });
    let out = '';
    child.once('exit', (c) => reject(new Error(kind + ' exited ' + c)));
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const p = /port (\d+)/.exec(out)?.[1];
      if (p) {
        child.removeAllListeners('exit');
        resolve({ url: 'http://127.0.0.1:' + p, stop: stopper(child), headers: {} });
      }
    });
  });
}

function startEmu(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'pay-stbench-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '--data-dir', join(dir, 'data')], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: cleanEnv({ PAY_CONFIG_DIR: join(dir, 'cfg') }),
    });
    let err = '';
    child.once('exit', (c) => reject(new Error('emu exited ' + c + err)));
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const url = /listening on (http:\/\/\S+)/.exec(err)?.[1],
        tenant = /tenant id\s+(\S+)/.exec(err)?.[1],
        key = /sandbox secret key\s+(\S+)/.exec(err)?.[1];
      if (!(url && tenant && key && err.includes('Ctrl-C'))) return;
      child.stderr.removeAllListeners('data');
      child.stderr.resume();
      child.removeAllListeners('exit');
      resolve({ url, stop: stopper(child), headers: { 'api-key': key, 'x-tenant-id': tenant } });
    });
  });
}

let serial = 0;
const customer = (n) => ({
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: `bench.${n}@example.com`,
  phone: '+14155550100',
  type: 'individual',
  gender: 'female',
  date_of_birth: '1990-12-10',
  address: { address_line1: '1 Main St', city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
});

async function load(pool, headers, ms) {
  let done = 0,
    bad = 0;
  const t0 = performance.now(),
    until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (Date.now() < until) {
        const res = await pool.request({
          path: '/v1/customers',
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify(customer(++serial)),
        });
        await res.body.text();
        if (res.statusCode !== 201) bad++;
        done++;
      }
    }),
  );
  if (bad) throw new Error(bad + ' bad answers');
  return done / ((performance.now() - t0) / 1000);
}

const names = (process.env.WHICH ?? 'bare,journal,sqlite-F,sqlite-N,emu-base,emu-new')
  .split(',')
  .filter((n) => (n.startsWith('sqlite') ? SQLITE : n === 'emu-base' ? process.env.BASE_BIN : true));
const servers = {};
for (const n of names)
  servers[n] = n === 'emu-base' ? await startEmu(process.env.BASE_BIN) : n === 'emu-new' ? await startEmu(BIN) : await startProto(n);
const pools = Object.fromEntries(
  names.map((n) => [n, new Pool(servers[n].url, { connections: C, pipelining: 1, keepAliveTimeout: 30_000 })]),
);
for (const n of names) await load(pools[n], servers[n].headers, 1500);
const rates = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++)
  for (const n of names) {
    await load(pools[n], servers[n].headers, 300);
    rates[n].push(await load(pools[n], servers[n].headers, SECONDS * 1000));
  }
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const n of names) {
  const ratios = rates[n].map((x, i) => x / rates.bare[i]);
  console.log(
    `${n.padEnd(9)} ${rates[n].map((x) => x.toFixed(0).padStart(6)).join(' ')} /s   ratio to bare per round ${ratios.map((x) => x.toFixed(2)).join(', ')}  median ${med(ratios).toFixed(2)}`,
  );
}
for (const n of names) {
  await pools[n].close();
  await servers[n].stop();
}
