// Trains the V8 code caches of dist/cli.cjs and dist/impl.cjs (src/scripts/build.mjs, step 3):
// loads them through bin/load.js as `pay` does, runs the commands people run most, in this one
// process, against a stub service on a loopback port, then writes each bundle's cache, which holds
// every function compiled by then. A command that does not exit 0 (its flags changed?) is reported
// and the caches are still written from what ran: they only make pay faster, and
// test/unit/start-up.test.ts checks that pay uses them.
// The stub answers any path: a list page of one object for a collection, the object for a path
// ending in an id, and a new object for a POST, so the commands run their whole path.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');
const loader = require(join(root, 'bin', 'load.js'));

/** The commands trained on: API commands people script (and the bench measures), help, tables. */
const COMMANDS = [
  ['--help'],
  ['customers', '--help'],
  ['customers', 'list'],
  ['customers', 'list', '-o', 'table'],
  ['customers', 'get', 'cus_train0000000000000000001'],
  ['accounts', 'list', '--json'],
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
  ['api', 'GET', 'customers'],
];

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

try {
  // Loading the entry runs it once, with this argv.
  process.argv = [process.execPath, join(root, 'bin', 'pay.js'), '--version'];
  const { main } = loader.load(join(root, 'dist', 'cli.cjs'));
  for (const argv of COMMANDS) {
    const code = await main(argv);
    if (code !== 0) console.warn(`train-cache: warning: pay ${argv.join(' ')} exited ${code}; the caches will not hold all of its path`);
  }
  restoreFlags();
  loader.saveCaches();
} finally {
  server.close();
  server.closeAllConnections();
  rmSync(configDir, { recursive: true, force: true });
}
process.exitCode = 0;
