// npm run demo: build if needed, start the emulator on a free port, run a short tour of real
// `pay` commands against it, stop the emulator. Everything lives in .pay-demo/ (git-ignored).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = `${root}bin/pay.js`;
const home = `${root}.pay-demo/`;
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001b[1m${s}\u001b[22m` : s);

// Always build: a second or two, and never a tour of a stale dist/ after a pull. (The test suite,
// which has just built and runs other tests against dist/ meanwhile, sets PAY_DEMO_BUILT=1.)
if (!process.env.PAY_DEMO_BUILT) {
  console.log(bold('$ npm run build'));
  const b = spawnSync(process.execPath, [`${root}src/scripts/build.mjs`], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
rmSync(home, { recursive: true, force: true });
mkdirSync(home, { recursive: true });
const env = { ...process.env, PAY_CONFIG_DIR: `${home}config`, PAY_PROFILE: 'demo', NO_COLOR: process.env.NO_COLOR ?? '' };
delete env.PAY_API_KEY;
delete env.PAY_BASE_URL;
delete env.PAY_TENANT_ID;
delete env.PAY_MODE;

// 1. The emulator, on a free loopback port, writing a `demo` profile that points at it.
console.log(bold('$ pay emulator start --port 0 --data-dir .pay-demo/data --configure-profile demo --settle-after 300'));
const emulator = spawn(
  process.execPath,
  [bin, 'emulator', 'start', '--port', '0', '--data-dir', `${home}data`, '--configure-profile', 'demo', '--settle-after', '300'],
  {
    env,
    stdio: ['ignore', 'inherit', 'pipe'],
  },
);
let banner = '';
await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`the emulator did not start:\n${banner}`)), 15_000);
  emulator.stderr.setEncoding('utf8').on('data', (d) => {
    banner += d;
    const m = /http:\/\/127\.0\.0\.1:\d+\/v1\//.exec(banner);
    if (m && /configured|profile/i.test(banner)) {
      clearTimeout(timer);
      resolve(m[0]);
    }
  });
  emulator.on('exit', (code) => reject(new Error(`the emulator exited (${code}):\n${banner}`)));
});
// Its banner holds its own generated test keys; show the address and mask the rest.
console.log(
  banner
    .replace(/\b(sk|pk)_(test|live)_[A-Za-z0-9]+/g, (k) => `${k.slice(0, 8)}…${k.slice(-4)}`)
    .replace(/whsec_[A-Za-z0-9+/=]+/g, (k) => `whsec_…${k.slice(-4)}`)
    .trimEnd(),
);

// 2. A webhook receiver: `pay webhooks listen` finds the emulator behind the demo profile, takes its
//    webhook URL (given back when it stops) and verifies each signed delivery.
console.log(bold('\n$ pay webhooks listen --port 0   (in the background)'));
const listener = spawn(process.execPath, [bin, 'webhooks', 'listen', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
const listenUrl = await new Promise((resolve, reject) => {
  let err = '';
  const timer = setTimeout(() => reject(new Error(`the webhook listener did not start:\n${err}`)), 15_000);
  listener.stderr.setEncoding('utf8').on('data', (d) => {
    err += d;
    const m = /Registered (http:\/\/\S+) as the webhook URL/.exec(err);
    if (m) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  });
});
const received = [];
listener.stdout.setEncoding('utf8').on('data', (d) => received.push(...d.split('\n').filter(Boolean)));
console.log(`webhook deliveries go to ${listenUrl} (listen registered itself with the emulator)`);

function pay(args, { show = true, json = false } = {}) {
  if (show) console.log(`\n${bold(`$ pay ${args.map((a) => (/[\s"]/.test(a) ? `'${a}'` : a)).join(' ')}`)}`);
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  if (show && r.stdout) process.stdout.write(r.stdout);
  if (r.stderr) process.stderr.write(r.stderr);
  if (r.status !== 0) throw new Error(`pay ${args.join(' ')} exited ${r.status}`);
  return json ? JSON.parse(r.stdout) : r.stdout;
}
const id = (args) => pay([...args, '--json'], { show: true, json: true }).id;

let failed = false;
try {
  const customer = id([
    'customers',
    'create',
    '--first-name',
    'Ada',
    '--last-name',
    'Lovelace',
    '--email',
    'ada@example.com',
    '--phone',
    '+447700900123',
    '--type',
    'individual',
    '--date-of-birth',
    '1990-12-10',
    '--address-line1',
    '1 Main St',
    '--city',
    'London',
    '--country',
    'GB',
    '--postal-code',
    'SW1A 1AA',
    '--state',
    'GB-LND',
  ]);
  // The business rules (pay help rules): collecting payments and trading FX are features the
  // customer must have active; neither needs KYC approved.
  pay(['features', 'activate', customer, '--feature', 'collections', '-o', 'table']);
  pay(['features', 'activate', customer, '--feature', 'fx', '-o', 'table']);
  const usd = id(['accounts', 'create', '--customer', customer, '--currency', 'USD', '--nickname', 'Operating']);
  const usd2 = id(['accounts', 'create', '--customer', customer, '--currency', 'USD', '--nickname', 'Payroll']);
  const eur = id(['accounts', 'create', '--customer', customer, '--currency', 'EUR']);
  id([
    'collections',
    'create',
    '--account',
    usd,
    '--amount',
    '1000.00',
    '--currency',
    'USD',
    '--method',
    'card',
    '--description',
    'Opening deposit',
  ]);
  await new Promise((r) => setTimeout(r, 600)); // the collection settles and credits the account
  pay(['accounts', 'get', usd, '-o', 'table']);
  pay([
    'transfers',
    'send',
    '--from',
    usd,
    '--to',
    usd2,
    '--amount',
    '125.50',
    '--currency',
    'USD',
    '--description',
    'Payroll top-up',
    '--wait',
    '-o',
    'table',
  ]);
  const quote = id(['fx', 'quote', '--from', 'USD', '--to', 'EUR', '--amount', '200.00']);
  pay(['fx', 'trade', quote, '--from-account', usd, '--to-account', eur, '-o', 'table']);
  pay(['transactions', 'list', '--account', usd, '-o', 'table']);
  pay(['transactions', 'list', '--account', usd, '--json', '--fields', 'id,type,direction,amount,currency,balance_after']);
  pay(['accounts', 'list', '-o', 'table']);
  await new Promise((r) => setTimeout(r, 500)); // the last deliveries arrive
  pay(['webhooks', 'list', '-o', 'table']);
  console.log(`\n${bold('The webhook listener received and verified:')}\n${received.join('\n')}`);
  console.log(
    `\n${bold('Done.')} The emulator kept its state in .pay-demo/data; try: PAY_CONFIG_DIR=.pay-demo/config node bin/pay.js -p demo customers list`,
  );
} catch (err) {
  failed = true;
  console.error(`demo failed: ${err.message}`);
} finally {
  listener.kill('SIGINT');
  emulator.kill('SIGINT');
  await new Promise((r) => emulator.on('exit', r));
  console.log(bold('emulator stopped'));
}
process.exitCode = failed ? 1 : 0;
