// Bad-input fuzzing of the CLI with fast-check: argv vectors built from the real command tree
// (every command but those that serve until stopped: `emulator start`, `webhooks listen`, and
// `emulator requests` without its --follow) with
// random flags and values (unicode, huge values, control characters, wrong types, numbers that
// are not), malformed JSON/CSV/NDJSON/YAML files for --data @file, --from-file and friends, and
// random standard input; `pay` runs against an in-process emulator (nothing slow, nothing leaves
// the machine). Whatever the input, pay never prints a stack trace or an uncaught error dump,
// never reports an internal error ("unexpected: …"), never hangs, and only exits with a
// documented code (0-7, 130). A table of adversarial files (endless, huge, binary) is run
// against every flag that reads a file, with a time bound.
//
// Reproduce a failing vector: PAY_FUZZ_SEED=<seed printed in the failure> npm run test:reliability -- fuzz-cli
import { closeSync, mkdirSync, openSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel, type FlagModel } from '../../src/completion/model.js';
import { buildProgram } from '../../src/commands/tree.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import {
  cleanEnv,
  count,
  DOCUMENTED_EXIT_CODES,
  pay,
  pool,
  record,
  registerSecret,
  secretsOf,
  shown,
  stackTrace,
  tempIn,
  tempRoot,
  type Run,
} from './helpers.js';

const RUNS = count(150, 2000);
const PARALLEL = 4;
const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
/** Commands that serve until stopped: not fuzzed (a vector would just wait). */
const EXCLUDED = new Set(['emulator start', 'webhooks listen']);

let emu: Emulator;
let root: string;
let files: Record<string, string>;
const envs: Array<Record<string, string>> = [];
const ids: string[] = [];

const model = buildModel(buildProgram());
const leaves = model.commands.filter(
  (c) => c.subcommands.length === 0 && c.path.length > 0 && !EXCLUDED.has(c.path.join(' ')) && c.path[0] !== 'help',
);

function malformedFiles(dir: string): Record<string, string> {
  const f = (name: string, content: string | Buffer): string => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };
  const big = join(dir, 'big-sparse.json');
  closeSync(openSync(big, 'w'));
  truncateSync(big, 64 * 1024 * 1024); // 64 MiB of NULs, no disk used
  const sub = join(dir, 'a-directory.json');
  mkdirSync(sub, { recursive: true });
  return {
    truncatedJson: f('truncated.json', '{"first_name": "Ada",'),
    arrayJson: f('array.json', '[1, 2, {"a": 3}]'),
    nullJson: f('null.json', 'null'),
    numberJson: f('number.json', '1e999'),
    deepJson: f('deep.json', `${'['.repeat(50_000)}${']'.repeat(50_000)}`),
    deepObject: f('deep-object.json', `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`),
    protoJson: f('proto.json', '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "first_name": "Ada"}'),
    wrongTypes: f('wrong-types.json', '{"first_name": 1, "email": [], "address": "x", "amount": 10.5, "currency": {"$ne": null}}'),
    bomUtf16: f('utf16.json', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":1}', 'utf16le')])),
    binary: f('binary.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))),
    nulJson: f('nul.json', '{"first_name": "A\u0000da"}\u0000'),
    empty: f('empty.json', ''),
    spaces: f('spaces.ndjson', '   \n\n\t\n'),
    ragged: f('ragged.csv', 'first_name,last_name,email\nAda\nGrace,Hopper,g@example.com,extra,extra\n"unterminated,quote\n'),
    headerOnly: f('header-only.csv', 'first_name,last_name\n'),
    formula: f('formula.csv', "first_name,last_name,email\n=cmd|' /C calc'!A0,@SUM(1+1),+1-1\n"),
    dupHeaders: f('dup.csv', 'email,email,address.country,address\nx@example.com,y@example.com,US,oops\n'),
    crlfBom: f('crlf.csv', '\ufefffirst_name,last_name\r\n"Ada ""the first""",Lovelace\r\n'),
    hugeField: f('huge-field.csv', `first_name,last_name\n${'x'.repeat(3 * 1024 * 1024)},y\n`),
    mixedNdjson: f('mixed.ndjson', '{"first_name":"Ada"}\nnot json\n[1,2]\n"str"\n{"a":\n{}\n'),
    hugeLine: f('huge-line.ndjson', `{"first_name":"${'y'.repeat(3 * 1024 * 1024)}"}\n`),
    unclosedArray: f('unclosed.json', '[{"first_name":"Ada"}, {"first_name":'),
    yamlBomb: f(
      'bomb.yaml',
      `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ncustomers: {x: {first_name: *f}}\n`,
    ),
    yamlTags: f('tags.yaml', 'customers:\n  x: !!js/function "function(){ return 1 }"\n  y: !!binary AAAA\n  z: {first_name: !!int abc}\n'),
    yamlDup: f('dup.yaml', 'customers:\n  a: {first_name: A}\n  a: {first_name: B}\n'),
    seedSelfRef: f('self.yaml', 'accounts:\n  a: {customer_id: "${accounts.a.id}", currency: USD}\n'),
    seedEnv: f('env.yaml', 'customers:\n  a: {first_name: "${env.NOPE_NOT_SET}"}\n'),
    bigSparse: big,
    directory: sub,
    missing: join(dir, 'does-not-exist.json'),
    devNull: '/dev/null',
    devZero: '/dev/zero',
  };
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Strings that can travel in argv (no NUL: no shell can pass one). */
const noNul = (a: fc.Arbitrary<string>): fc.Arbitrary<string> => a.map((s) => s.replace(/\u0000/g, ''));

const controlChars = fc.string({
  unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c === 0 ? 0x1b : c)),
  maxLength: 12,
});
/** 10-100 kB in UTF-8 (one argv string may hold at most 128 KiB). */
const huge = fc
  .tuple(fc.constantFrom('a', 'é', '😀', '0', '{', '\\', ' ', '%s'), fc.integer({ min: 10_000, max: 100_000 }))
  .map(([c, n]) => c.repeat(Math.floor(n / Buffer.byteLength(c))));
const numbers = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '-1',
    '1e3',
    '1e309',
    'NaN',
    'Infinity',
    '-Infinity',
    '0x10',
    '0b1',
    '1_000',
    '١٢٣',
    '１２３',
    '00',
    '.5',
    '5.',
    '1,000.00',
    '9'.repeat(40),
    '0.000000000000000000001',
    '10.123',
    '-10.50',
    '+3',
  ),
  fc.double().map(String),
  fc.bigInt().map(String),
);
const lookalikes = fc.oneof(
  fc.constantFrom(
    'cus_',
    'acc_0123456789abcdefghijklmn',
    'cus_0123456789ABCDEFGHIJKLMN',
    'tr_../../etc/passwd',
    '../../../../etc/passwd',
    '%2e%2e%2f',
    'cus_0123456789abcdefghijklm\n',
    '--',
    '-',
    '@-',
    '@',
    'true',
    'false',
    'null',
    '{}',
    '[]',
    '{"a":',
    "'",
    '"',
    '`id`',
    '$(id)',
    '${env.HOME}',
    '%n%n%n',
    '\u202eevil',
    'ｃｕｓ＿',
    'US',
    'us-ca',
    'XX',
    '2024-02-30',
    '9999-12-31',
    '1990-01-01T00:00:00Z',
    'a@b',
    '+1',
    '+141555501234567890',
    'USD',
    'usd',
    'BTC',
    'virtual',
    'physical',
    'mobile_money',
    'json',
    'ndjson',
    'table',
    'tsv',
    'bash',
    'zsh',
    'fish',
    'GET',
    'POST',
    'DELETE',
    '/v1/../admin',
    'customers',
    '__proto__',
    'constructor',
  ),
  fc.uuid(),
  fc.emailAddress(),
);
const baseUrls = (emuBase: string) =>
  fc.constantFrom(
    emuBase,
    'http://127.0.0.1:1/v1/',
    'http://example.com/v1/',
    'http://0.0.0.0:1/v1/',
    'ftp://127.0.0.1/v1/',
    'not a url',
    'http://user:pw@127.0.0.1:1/v1/',
    'http://[::1]:1/v1/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'http://127.0.0.1:1/v2/',
    'http://127.0.0.1:1/v1/?x=1#y',
    'http://127.0.0.1:1',
  );

function valueArb(emuBase: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 3, arbitrary: noNul(fc.string({ unit: 'grapheme', maxLength: 30 })) },
    { weight: 2, arbitrary: noNul(fc.string({ unit: 'binary', maxLength: 30 })) },
    { weight: 2, arbitrary: controlChars },
    { weight: 1, arbitrary: huge },
    { weight: 3, arbitrary: numbers },
    { weight: 4, arbitrary: lookalikes },
    { weight: 2, arbitrary: fc.constantFrom(...ids) },
    { weight: 3, arbitrary: fc.constantFrom(...Object.values(files)).chain((p) => fc.constantFrom(p, `@${p}`)) },
    { weight: 2, arbitrary: noNul(fc.json({ maxDepth: 3 })) },
    { weight: 1, arbitrary: baseUrls(emuBase) },
  );
}

/** One argv vector: a command (rarely a made-up one), then flags and arguments in any order. */
function argvArb(emuBase: string): fc.Arbitrary<{ argv: string[]; stdin: string }> {
  const value = valueArb(emuBase);
  const flagToken = (flags: FlagModel[]) =>
    fc.constantFrom(...flags).chain((f) => {
      const name = fc.constantFrom(...f.names);
      if (!f.takesValue) return name.map((n) => [n]);
      const v = f.choices?.length
        ? fc.oneof(fc.constantFrom(...f.choices), value)
        : f.names.includes('--base-url')
          ? baseUrls(emuBase)
          : value;
      return fc.tuple(name, v, fc.boolean()).map(([n, x, joined]) => (joined && n.startsWith('--') ? [`${n}=${x}`] : [n, x]));
    });
  const unknownFlag = fc.oneof(
    fc.string({ minLength: 1, maxLength: 12 }).map((s) => [`--${s}`]),
    fc.constantFrom(
      ['-'],
      ['--'],
      ['-xyz'],
      ['---json'],
      ['--json=yes'],
      ['--no-json'],
      ['-oo'],
      ['--=x'],
      ['--help'],
      ['-h'],
      ['--version'],
    ),
  );
  return fc
    .tuple(fc.oneof({ weight: 19, arbitrary: fc.constantFrom(...leaves) }, { weight: 1, arbitrary: fc.constant(undefined) }), fc.boolean())
    .chain(([cmd, truncate]) => {
      // `emulator requests --follow` serves until stopped, like the excluded commands: fuzzed without it.
      const flags = [...(cmd?.flags ?? []).filter((f) => !f.names.includes('--follow')), ...model.globalFlags];
      const head: fc.Arbitrary<string[]> = cmd
        ? fc.constant(truncate && cmd.path.length > 1 && Math.random() < 0.1 ? cmd.path.slice(0, 1) : cmd.path)
        : fc.array(fc.oneof(value, fc.constantFrom(...model.commands.map((c) => c.path[0] ?? 'help'))), { minLength: 1, maxLength: 2 });
      const token = fc.oneof(
        { weight: 6, arbitrary: flagToken(flags) },
        { weight: 2, arbitrary: value.map((v) => [v]) },
        { weight: 1, arbitrary: unknownFlag },
      );
      const stdin = fc.oneof(
        { weight: 6, arbitrary: fc.constant('') },
        { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
        { weight: 1, arbitrary: noNul(fc.json()) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'sk_test_' + 'A'.repeat(32) + '\nwhsec_AAAA\n',
            '{"first_name":"Ada"}\n{"bad"\n',
            'first_name,email\n"x,y\n',
          ),
        },
      );
      return fc
        .tuple(head, fc.array(token, { maxLength: 7 }), stdin)
        .map(([h, tokens, input]) => ({ argv: [...h, ...tokens.flat()], stdin: input }));
    });
}

// ---------------------------------------------------------------------------------------------

interface Verdict {
  ok: boolean;
  why?: string;
}

function judge(r: Run): Verdict {
  if (r.timedOut) return { ok: false, why: `no exit within the time bound (${r.ms} ms)` };
  if (r.code === null) return { ok: false, why: `killed by ${r.signal}` };
  if (!DOCUMENTED_EXIT_CODES.has(r.code)) return { ok: false, why: `undocumented exit code ${r.code}` };
  const trace = stackTrace(r.stderr) ?? stackTrace(r.stdout);
  if (trace) return { ok: false, why: `stack trace / error dump: ${trace.slice(0, 200)}` };
  if (/^error: unexpected:/m.test(r.stderr) || /"code":"internal"/.test(r.stderr))
    return { ok: false, why: `internal error: ${r.stderr.trim().slice(0, 300)}` };
  if (r.code !== 0 && r.stderr.trim() === '') return { ok: false, why: 'failed without a word on stderr' };
  if (r.leaks.length) return { ok: false, why: `printed a secret whole` };
  return { ok: true };
}

beforeAll(async () => {
  root = tempRoot('fuzz-cli');
  emu = await startEmulator({ port: 0, settleAfterMs: 100 });
  registerSecret(...secretsOf(emu));
  files = malformedFiles(tempIn(root, 'files-'));
  for (let i = 0; i < PARALLEL; i++) {
    const home = tempIn(root, `home${i}-`);
    envs.push(
      cleanEnv({
        PAY_CONFIG_DIR: join(home, 'config'),
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        PAY_BASE_URL: emu.baseUrl,
        PAY_API_KEY: emu.keys.sandbox.secret,
        PAY_TENANT_ID: emu.tenantId,
        PAY_WEBHOOK_SECRET: emu.webhookSecrets.sandbox,
        PAY_MAX_RETRIES: '1',
        PAY_TIMEOUT: '5',
      }),
    );
  }
  // A few real ids, so some vectors reach real objects.
  const h = { 'api-key': emu.keys.sandbox.secret, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(emu.baseUrl + path, {
        method: 'POST',
        headers: { ...h, 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify(body),
      })
    ).json()) as { id: string };
  const cus = await post('customers', {
    first_name: 'Fuzz',
    last_name: 'Target',
    email: 'fuzz@example.com',
    phone: '+14155550199',
    type: 'individual',
    date_of_birth: '1990-01-01',
    address: { address_line1: '1 Main St', city: 'SF', country: 'US', postal_code: '94105', state: 'US-CA' },
  });
  const acc = await post('accounts', { customer_id: cus.id, currency: 'USD' });
  ids.push(cus.id, acc.id);
});

afterAll(async () => {
  await emu?.stop();
});

describe('fuzz: pay argv, files and stdin', () => {
  it(`${RUNS} random argv vectors: documented exit codes only, no stack trace, no internal error (seed ${SEED})`, async () => {
    const started = Date.now();
    const vectors = fc.sample(argvArb(emu.baseUrl), { numRuns: RUNS, seed: SEED });
    const failures: string[] = [];
    const codes: Record<string, number> = {};
    let leaked = 0;
    const results = await pool(vectors, PARALLEL, async (v, i) => {
      const r = await pay(v.argv, { env: envs[i % PARALLEL]!, stdin: v.stdin, timeoutMs: 30_000 });
      codes[String(r.code)] = (codes[String(r.code)] ?? 0) + 1;
      leaked += r.leaks.length;
      const verdict = judge(r);
      if (!verdict.ok) failures.push(`#${i} ${shown(v.argv)} (stdin ${JSON.stringify(v.stdin.slice(0, 40))}): ${verdict.why}`);
      return verdict.ok;
    });
    await record(
      'fuzz.cli',
      'random argv, values and files against pay',
      {
        tried: RUNS,
        passed: results.filter(Boolean).length,
        lost: 0,
        duplicated: 0,
        leaked,
        extra: { seed: SEED, ...Object.fromEntries(Object.entries(codes).map(([c, n]) => [`exit_${c}`, n])) },
      },
      started,
    );
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 900_000);

  it('adversarial files on every flag that reads one: bounded time, documented exit, one-line error', async () => {
    const started = Date.now();
    const cases = adversarialCases();
    const failures: string[] = [];
    const results = await pool(cases, PARALLEL, async (argv, i) => {
      // Bounded means it ends on its own: a reader without a limit never ends on /dev/zero or an
      // endless fifo, and the hang detector kills it (judge: "no exit within the time bound"). No
      // wall-clock limit below that: one of 10 s failed at 12 s with both cores busy.
      const r = await pay(argv, { env: envs[i % PARALLEL]!, timeoutMs: 90_000 });
      const verdict = judge(r);
      if (!verdict.ok) failures.push(`${shown(argv)}: ${verdict.why} [${r.stderr.trim().split('\n')[0]?.slice(0, 160)}]`);
      return verdict.ok;
    });
    await record(
      'fuzz.cli-files',
      'adversarial files (endless, huge, binary, deep) on every file flag',
      { tried: cases.length, passed: results.filter(Boolean).length, lost: 0, duplicated: 0, leaked: 0 },
      started,
    );
    expect(failures).toEqual([]);
  }, 300_000);
});

function adversarialCases(): string[][] {
  const readers: Array<(p: string) => string[]> = [
    (p) => ['customers', 'create', '--data', `@${p}`],
    (p) => ['customers', 'create', '--from-file', p],
    (p) => ['transfers', 'send', '--from-file', p, '--from', ids[1]!, '--currency', 'USD'],
    (p) => [
      'webhooks',
      'verify',
      '--payload',
      p,
      '--id',
      'evt_1',
      '--timestamp',
      String(Math.floor(Date.now() / 1000)),
      '--signature',
      'v1,AAAA',
    ],
    (p) => ['seed', 'plan', p],
    (p) => ['customers', 'create', '--from-file', files.empty!, '--resume', p],
  ];
  const adversarial = [
    'devZero',
    'bigSparse',
    'directory',
    'binary',
    'hugeLine',
    'hugeField',
    'deepJson',
    'deepObject',
    'yamlBomb',
    'missing',
    'devNull',
    'nulJson',
    'bomUtf16',
  ];
  return adversarial.flatMap((name) => readers.map((mk) => mk(files[name]!)));
}
