// Trains the V8 code caches of dist/cli.cjs and dist/impl.cjs (src/scripts/build.mjs, step 3), for one
// kind of command or for all (see KINDS):
// loads them through bin/load.js as `pay` does, runs the commands people run most, in this one
// process, against a stub service on a loopback port, then writes each bundle's cache, which holds
// every function compiled by then. A command that does not exit 0 (its flags changed? the stub's
// answer refused?) fails the training, and with it the build: a cache trained on an error path
// would not hold the command's path. test/unit/start-up.test.ts checks that pay uses the caches.
// The stub answers the service's object paths (src/shared/domain.ts OBJECT_KINDS, read from the
// built dist/cli.cjs): a list page of one object for a collection, the object for a path ending in
// an id, and a new object of the path's kind, with its id prefix, for a POST; anything else 404.
//
// `node train-cache.mjs --check [-- <pay argv>…]` runs every command (and the one given) without
// writing a cache: how test/unit/train-cache.test.ts holds every training command to exit 0.
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

const check = process.argv[2] === '--check';
const extra = check && process.argv[3] === '--' ? [process.argv.slice(4)] : [];
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

const kind = check ? undefined : process.argv[2];
if (kind !== undefined && !(kind in KINDS)) throw new Error(`train-cache: no kind ${kind} (have: ${Object.keys(KINDS).join(', ')})`);
const COMMANDS = kind === undefined ? [...Object.values(KINDS).flat(), ...MORE, ...extra] : KINDS[kind];
for (const argv of COMMANDS) {
  const is = loader.kindOf(argv);
  if (kind !== undefined && is !== kind) throw new Error(`train-cache: pay ${argv.join(' ')} is of kind ${is}, not ${kind}`);
}

const dist = join(root, 'dist');

/**
 * The V8 flags pay sets while it runs (src/lib/v8-flags.ts FLAGS_PAY_SETS, read from the bundle
 * that holds it; here the HTTP client sets the wasm tier-up budget, a bulk run would set the young
 * generation's growth). V8 stamps a code cache with a hash of the flags at the moment it is written
 * and refuses it when the flags differ at the moment it is read; at run time the bundles are read
 * before pay sets a flag, so the caches are written with every flag back at V8's default (read
 * from `node --v8-options`). No bundle that holds pay's flag setter loaded: no flag was set.
 * test/unit/start-up.test.ts fails when a cache is refused.
 */
function restoreFlags() {
  const holder = loader.loaded().find((b) => b.file === join(dist, 'impl.cjs'));
  if (holder === undefined) return;
  const { FLAGS_PAY_SETS } = loader.load(holder.file).load('lib/v8-flags');
  const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  for (const flag of FLAGS_PAY_SETS) {
    const value = new RegExp(`default: --${flag}=(\\S+)`).exec(options)?.[1];
    if (value === undefined) throw new Error(`train-cache: no default for --${flag} in node --v8-options`);
    setFlagsFromString(`--${flag}=${value}`);
  }
}

/** The stub's objects: each kind with a path of its own (OBJECT_KINDS), by path. */
let kinds;
/** The kind a path under the base URL is of: the longest kind path it starts with, and what follows it. */
function kindAt(path) {
  kinds ??= Object.entries(loader.load(join(dist, 'cli.cjs')).load('shared/domain').OBJECT_KINDS)
    .filter(([, k]) => k.path !== undefined)
    .sort(([, a], [, b]) => b.path.length - a.path.length);
  const at = path.join('/');
  const found = kinds.find(([, k]) => at === k.path || at.startsWith(`${k.path}/`));
  return found && { object: found[0], prefix: found[1].prefix, rest: path.slice(found[1].path.split('/').length) };
}

function object(kind, id, extra = {}) {
  const now = '2026-01-01T00:00:00.000Z';
  return { id, object: kind, livemode: false, created_at: now, updated_at: now, status: 'active', ...extra };
}

/** A made-up id of the prefix: 24 lower-case letters or digits after it (ID_SHAPE). */
const newId = (prefix) => `${prefix}train0000000000000000001`;

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const path = new URL(req.url ?? '/', 'http://stub').pathname.split('/').filter(Boolean);
    const kind = path[0] === 'v1' ? kindAt(path.slice(1)) : undefined;
    let status = 200;
    let answer;
    if (kind === undefined || kind.rest.length > 1) {
      status = 404;
      answer = {
        error: { type: 'invalid_request_error', code: 'not_found', message: `the training's stub has no ${req.method} ${req.url}` },
      };
    } else if (req.method === 'POST' && kind.rest.length === 0) {
      status = 201;
      let sent = {};
      try {
        sent = JSON.parse(body || '{}');
      } catch {
        // answered anyway
      }
      answer = object(kind.object, newId(kind.prefix), sent);
    } else if (kind.rest.length === 1) {
      answer = object(kind.object, kind.rest[0]);
    } else {
      answer = { object: 'list', data: [object(kind.object, newId(kind.prefix))], has_more: false, next_cursor: null };
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
  const { main } = loader.load(join(dist, 'cli.cjs'));
  const failed = [];
  for (const argv of COMMANDS) {
    const code = await main(argv);
    if (code !== 0) failed.push(`train-cache: pay ${argv.join(' ')} exited ${code}`);
  }
  if (failed.length > 0) {
    process.stderr.write(`${failed.join('\n')}\ntrain-cache: every trained command must exit 0 (see its error above); no cache written\n`);
    process.exitCode = 1;
  } else if (!check) {
    if (kind === undefined) for (const bundle of readdirSync(dist).filter((f) => f.endsWith('.cjs'))) loader.load(join(dist, bundle));
    restoreFlags();
    loader.saveCaches(kind);
    process.exitCode = 0;
  }
} finally {
  server.close();
  server.closeAllConnections();
  rmSync(configDir, { recursive: true, force: true });
}
