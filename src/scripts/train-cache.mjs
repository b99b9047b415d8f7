// Trains the V8 code caches of dist/cli.cjs and dist/impl.cjs (src/scripts/build.mjs, step 3), for one
// kind of command or for all (see KINDS):
// loads them through bin/load.js as `pay` does, runs the commands people run most, in this one
// process, against a stub service on a loopback port, then writes each bundle's cache, which holds
// every function compiled by then. A command that does not exit 0 (its flags changed?) is reported
// and the caches are still written from what ran: they only make pay faster, and
// test/unit/start-up.test.ts checks that pay uses them.
// The stub answers any path: a list page of one object for a collection, the object for a path
// ending in an id, and a new object for a POST, so the commands run their whole path.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');
const loader = require(join(root, 'bin', 'load.js'));

/**
 * The commands trained on, by kind (bin/load.js kindOf: help, api, or the verb): API commands
 * people script (and the bench measures), help, tables. `node train-cache.mjs <kind>` trains that
 * kind's commands and writes <bundle>.<kind>.cache; with no kind, every command, for
 * <bundle>.cache (what a command of a kind not trained here loads).
 */
const KINDS = {
  help: [['--help'], ['customers', '--help']],
  list: [
    ['customers', 'list'],
    ['customers', 'list', '-o', 'table'],
    ['accounts', 'list', '--json'],
  ],
  get: [['customers', 'get', 'cus_train0000000000000000001']],
  send: [
    [
      'transfers',
      'send',
      '--from',
      'acc_train0000000000000000001',
      '--to',
      'acc_train0000000000000000002',
      '--amount',
      '1.00',
      '--currency',
      'USD',
    ],
  ],
  api: [['api', 'GET', 'customers']],
};

if (process.argv[2] === '--kinds') {
  process.stdout.write(`${JSON.stringify(Object.keys(KINDS))}\n`);
  process.exit(0);
}
/**
 * Trained for <bundle>.cache only: commands that load dist/more.cjs (the contract, jq, a help
 * topic), whose code no kind holds. Every bundle is loaded before the caches are written, so each
 * has one: a bundle V8 compiles without a cache is parsed whole first (dist/more.cjs: the emulator,
 * seed, trigger, …).
 */
const MORE = [['openapi'], ['customers', 'list', '--jq', '.[].id'], ['help', 'environment']];

const kind = process.argv[2];
if (kind !== undefined && !(kind in KINDS)) throw new Error(`train-cache: no kind ${kind} (have: ${Object.keys(KINDS).join(', ')})`);
const COMMANDS = kind === undefined ? [...Object.values(KINDS).flat(), ...MORE] : KINDS[kind];
for (const argv of COMMANDS) {
  const is = loader.kindOf(argv);
  if (kind !== undefined && is !== kind) throw new Error(`train-cache: pay ${argv.join(' ')} is of kind ${is}, not ${kind}`);
}

/**
 * The V8 flags pay sets while it runs (src/lib/v8-flags.ts; here the HTTP client sets the wasm
 * tier-up budget, a bulk run would set the young generation's growth). V8 stamps a code cache with
 * a hash of the flags at the moment it is written and refuses it when the flags differ at the
 * moment it is read; at run time the bundles are read before pay sets a flag, so the caches are
 * written with every flag back at V8's default (read from `node --v8-options`).
 * test/unit/start-up.test.ts fails when a cache is refused.
 */
const FLAGS_PAY_SETS = ['wasm-tiering-budget', 'semi-space-growth-factor'];

function restoreFlags() {
  const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  for (const flag of FLAGS_PAY_SETS) {
    const value = new RegExp(`default: --${flag}=(\\S+)`).exec(options)?.[1];
    if (value === undefined) throw new Error(`train-cache: no default for --${flag} in node --v8-options`);
    setFlagsFromString(`--${flag}=${value}`);
  }
}

const ID = /^[a-z]+_[A-Za-z0-9]+$/;

function object(id, extra = {}) {
  const now = '2026-01-01T00:00:00.000Z';
  return { id, object: id.split('_')[0], livemode: false, created_at: now, updated_at: now, status: 'active', ...extra };
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const path = new URL(req.url ?? '/', 'http://stub').pathname.split('/').filter(Boolean);
    const last = path.at(-1) ?? '';
    let status = 200;
    let answer;
    if (req.method === 'POST') {
      status = 201;
      let sent = {};
      try {
        sent = JSON.parse(body || '{}');
      } catch {
        // answered anyway
      }
      answer = object('obj_train0000000000000000001', sent);
    } else if (ID.test(last)) {
      answer = object(last);
    } else {
      answer = { object: 'list', data: [object('obj_train0000000000000000001')], has_more: false, next_cursor: null };
    }
    const text = JSON.stringify(answer);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': 'req_train' });
    res.end(text);
  });
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const { port } = server.address();

const configDir = mkdtempSync(join(tmpdir(), 'pay-train-'));
for (const k of Object.keys(process.env)) if (k.startsWith('PAY_') || k === 'CI' || k === 'FORCE_COLOR') delete process.env[k];
Object.assign(process.env, {
  PAY_CONFIG_DIR: configDir,
  PAY_BASE_URL: `http://127.0.0.1:${port}/v1/`,
  PAY_API_KEY: 'sk_test_train0train0train0train0train0',
  PAY_TENANT_ID: 'biz_train',
  PAY_NO_INPUT: '1',
  NO_COLOR: '1',
});

loader.training();
try {
  // Loading the entry runs it once, with this argv.
  process.argv = [process.execPath, join(root, 'bin', 'pay.js'), '--version'];
  const { main } = loader.load(join(root, 'dist', 'cli.cjs'));
  for (const argv of COMMANDS) {
    const code = await main(argv);
    if (code !== 0) console.warn(`train-cache: warning: pay ${argv.join(' ')} exited ${code}; the caches will not hold all of its path`);
  }
  if (kind === undefined)
    for (const bundle of readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.cjs'))) loader.load(join(root, 'dist', bundle));
  restoreFlags();
  loader.saveCaches(kind);
} finally {
  server.close();
  server.closeAllConnections();
  rmSync(configDir, { recursive: true, force: true });
}
process.exitCode = 0;
