// Outside attack on the config store (issue 11, class 7). Three generated classes:
//
// writers  Rounds of pay processes started together on one config folder: `login --with-key` and
//          `profiles set` of distinct profiles, several writers on one shared profile (each its own
//          field), `emulator start --configure-profile`, `logout`, `profiles remove` and `profiles use`
//          of profiles already there. After each round every write is in the file, nothing else
//          changed, and every process exited 0.
// shape    A valid config.json with exactly one defect: a wrong type at any key path, an unknown or
//          polluting key (`__proto__`, `constructor`, `prototype`) at any level, a bad profile name,
//          or text that is not JSON. Each run of a read or write command is exit 2 with one line
//          naming the file and the key path, prints no secret, and leaves the folder byte for byte
//          as it was (nothing written, no lock or temporary file left).
// perms    The file with any mode (group/world-writable is refused, exit 2 with a chmod hint; any
//          other mode is read, and a write leaves it 0600), a symbolic link (to a file, to nothing),
//          a FIFO, a folder, a file of another user (root chowns it to nobody); the folder a shared
//          1777 one or an existing 0755 one (pay leaves its mode and owner alone), or missing
//          (created 0700); a stale lock left by a killed pay is taken over.
//
// Reproduce a failing vector: PAY_FUZZ_SEED=<seed printed in the failure> npx vitest run … attack-config
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanEnv,
  count,
  FULL,
  pay,
  pool,
  record,
  registerSecret,
  shown,
  spawnEmulator,
  stackTrace,
  tempIn,
  tempRoot,
  type Run,
} from './helpers.js';

const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const root = tempRoot('attack-config');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** Keys pay accepts (the shape checks the value, not the text). */
const key = (mode: 'test' | 'live', tag: string): string => `sk_${mode}_${tag.replace(/[^A-Za-z0-9]/g, '')}${'k'.repeat(24)}`.slice(0, 48);
const whsec = (tag: string): string => `whsec_${Buffer.from(`secret-${tag}`).toString('base64').replace(/=+$/, '')}`;

const mode = (p: string): number => statSync(p).mode & 0o7777;

/** The folder's file names and bytes (symlinks by their target), for "nothing written". */
function snapshot(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((n) => {
      const p = join(dir, n);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) return `${n} -> link`;
      if (st.isFile()) return `${n} ${(st.mode & 0o7777).toString(8)} ${readFileSync(p).toString('base64')}`;
      return `${n} ${st.isDirectory() ? 'dir' : 'other'} ${(st.mode & 0o7777).toString(8)}`;
    })
    .join('\n');
}

function problemsOf(r: Run, want: number): string[] {
  const out: string[] = [];
  if (r.code !== want) out.push(`exit ${r.code} (want ${want}): ${r.stderr.trim().slice(0, 300)}`);
  if (r.timedOut) out.push('timed out');
  const trace = stackTrace(r.stderr);
  if (trace) out.push(`stack trace ${trace}`);
  if (/unexpected:/.test(r.stderr)) out.push('internal error');
  if (r.leaks.length) out.push(`printed a secret whole (${r.leaks.map((s) => `${s.slice(0, 8)}…`).join(', ')})`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// writers

type WriteOp =
  | { kind: 'login'; live: boolean; tenant: boolean }
  | { kind: 'set'; field: 'tenant_id' | 'sandbox.base_url' | 'live.webhook_secret' | 'sandbox.public_key' }
  | { kind: 'shared'; field: 'login-sandbox' | 'login-live' | 'tenant' | 'sandbox-url' | 'live-url' | 'sandbox-whsec' }
  | { kind: 'emulator' };

const writeOp: fc.Arbitrary<WriteOp> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('login' as const), live: fc.boolean(), tenant: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      field: fc.constantFrom(
        'tenant_id' as const,
        'sandbox.base_url' as const,
        'live.webhook_secret' as const,
        'sandbox.public_key' as const,
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('shared' as const),
      field: fc.constantFrom(
        'login-sandbox' as const,
        'login-live' as const,
        'tenant' as const,
        'sandbox-url' as const,
        'live-url' as const,
        'sandbox-whsec' as const,
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'emulator' as const }) },
);

const ROUND = 10;
const WRITERS = count(20, 1000);
const ROUNDS = Math.ceil(WRITERS / ROUND);

/** Profiles in the folder before each round: kept ones must stay, one is removed, one logged out, one made current. */
function seedConfig(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const profiles: Record<string, unknown> = {
    keep_a: { tenant_id: 'biz_keep_a', sandbox: { secret_key: key('test', 'keepa'), base_url: 'https://a.example.com/v1/' } },
    keep_b: { tenant_id: 'biz_keep_b', live: { secret_key: key('live', 'keepb') } },
    gone: { tenant_id: 'biz_gone', sandbox: { secret_key: key('test', 'gone') } },
    out: {
      tenant_id: 'biz_out',
      sandbox: { secret_key: key('test', 'out'), public_key: 'pk_test_outoutout1', base_url: 'https://out.example.com/v1/' },
    },
    shared: { tenant_id: 'biz_shared_old' },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ current_profile: 'keep_a', profiles }), { mode: 0o600 });
}

interface Expect {
  what: string;
  ok: (cfg: any) => boolean;
}

describe('attack: parallel writers', () => {
  it(
    'never lose a profile',
    async () => {
      const started = Date.now();
      let tried = 0;
      let passed = 0;
      let lost = 0;
      let processes = 0;
      let round = 0;
      const failures: string[] = [];
      const result = await fc.check(
        fc.asyncProperty(fc.array(writeOp, { minLength: ROUND, maxLength: ROUND }), async (ops) => {
          round++;
          const dir = join(tempIn(root, 'writers-'), 'cfg');
          seedConfig(dir);
          const env = cleanEnv({ PAY_CONFIG_DIR: dir });
          const expects: Expect[] = [];
          const runs: Array<() => Promise<Run | string | undefined>> = [];
          ops.forEach((op, i) => {
            const name = `w${round}_${i}`;
            if (op.kind === 'login') {
              const k = key(op.live ? 'live' : 'test', name);
              registerSecret(k);
              const args = [
                'login',
                '--with-key',
                '-p',
                name,
                ...(op.live ? ['--live'] : []),
                ...(op.tenant ? ['--tenant', `biz_${name}`] : []),
              ];
              runs.push(() => pay(args, { env, stdin: k }));
              expects.push({
                what: `${shown(args)} stored`,
                ok: (c) =>
                  c.profiles[name]?.[op.live ? 'live' : 'sandbox']?.secret_key === k &&
                  (!op.tenant || c.profiles[name]?.tenant_id === `biz_${name}`),
              });
            } else if (op.kind === 'set') {
              const value = {
                tenant_id: `biz_${name}`,
                'sandbox.base_url': `https://${name.replace(/_/g, '-')}.example.com/v1/`,
                'live.webhook_secret': whsec(name),
                'sandbox.public_key': `pk_test_${name.replace(/_/g, '')}publickey`,
              }[op.field];
              const args = ['profiles', 'set', '-p', name, op.field, value];
              runs.push(() => pay(args, { env }));
              const [m, f] = op.field.includes('.') ? op.field.split('.') : [undefined, op.field];
              expects.push({
                what: `${shown(args)} stored`,
                ok: (c) => (m ? c.profiles[name]?.[m]?.[f] : c.profiles[name]?.[f]) === value,
              });
            } else if (op.kind === 'shared') {
              // Several writers on one profile, each its own field: none may undo another.
              const tag = `${name}`;
              const cases = {
                'login-sandbox': {
                  args: ['login', '--with-key', '-p', 'shared'],
                  stdin: key('test', tag),
                  check: (c: any) => c.profiles.shared?.sandbox?.secret_key === key('test', tag),
                },
                'login-live': {
                  args: ['login', '--with-key', '--live', '-p', 'shared'],
                  stdin: key('live', tag),
                  check: (c: any) => c.profiles.shared?.live?.secret_key === key('live', tag),
                },
                tenant: {
                  args: ['profiles', 'set', '-p', 'shared', 'tenant_id', `biz_${tag}`],
                  stdin: undefined,
                  check: (c: any) => c.profiles.shared?.tenant_id === `biz_${tag}`,
                },
                'sandbox-url': {
                  args: ['profiles', 'set', '-p', 'shared', 'sandbox.base_url', `https://${tag.replace(/_/g, '-')}.example.com/v1/`],
                  stdin: undefined,
                  check: (c: any) => c.profiles.shared?.sandbox?.base_url === `https://${tag.replace(/_/g, '-')}.example.com/v1/`,
                },
                'live-url': {
                  args: ['profiles', 'set', '-p', 'shared', 'live.base_url', `https://${tag.replace(/_/g, '-')}.example.com/v1/`],
                  stdin: undefined,
                  check: (c: any) => c.profiles.shared?.live?.base_url === `https://${tag.replace(/_/g, '-')}.example.com/v1/`,
                },
                'sandbox-whsec': {
                  args: ['profiles', 'set', '-p', 'shared', 'sandbox.webhook_secret', whsec(tag)],
                  stdin: undefined,
                  check: (c: any) => c.profiles.shared?.sandbox?.webhook_secret === whsec(tag),
                },
              }[op.field];
              // Two writers of the same field race for it: only distinct fields are checked.
              if (ops.slice(0, i).some((o) => o.kind === 'shared' && o.field === op.field)) return;
              if (cases.stdin) registerSecret(cases.stdin);
              runs.push(() => pay(cases.args, { env, ...(cases.stdin ? { stdin: cases.stdin } : {}) }));
              expects.push({ what: `${shown(cases.args)} stored`, ok: cases.check });
            } else {
              runs.push(async () => {
                const emu = await spawnEmulator(['--port', '0', '--configure-profile', name], env).catch((e: Error) => e);
                if (emu instanceof Error) return `emulator --configure-profile ${name}: ${emu.message.slice(0, 300)}`;
                await emu.stop();
                expects.push({
                  what: `emulator --configure-profile ${name} stored`,
                  ok: (c) =>
                    c.profiles[name]?.tenant_id === emu.tenantId &&
                    c.profiles[name]?.sandbox?.secret_key === emu.keys.sandbox.secret &&
                    c.profiles[name]?.live?.secret_key === emu.keys.live.secret,
                });
                return undefined;
              });
            }
          });
          // The profiles already there: one removed, one logged out, one made current, the rest kept.
          const fixed: Array<[string[], Expect]> = [
            [['profiles', 'remove', 'gone', '--yes'], { what: 'profiles remove gone', ok: (c) => !('gone' in c.profiles) }],
            [
              ['logout', '-p', 'out'],
              {
                what: 'logout -p out (tenant and base URL stay)',
                ok: (c) =>
                  c.profiles.out?.tenant_id === 'biz_out' &&
                  c.profiles.out?.sandbox?.base_url === 'https://out.example.com/v1/' &&
                  !c.profiles.out?.sandbox?.secret_key &&
                  !c.profiles.out?.sandbox?.public_key,
              },
            ],
            [['profiles', 'use', 'keep_b'], { what: 'profiles use keep_b', ok: (c) => c.current_profile === 'keep_b' }],
          ];
          for (const [args, e] of fixed) {
            runs.push(() => pay(args, { env }));
            expects.push(e);
          }
          expects.push({
            what: 'keep_a untouched',
            ok: (c) =>
              JSON.stringify(c.profiles.keep_a) ===
              JSON.stringify({
                tenant_id: 'biz_keep_a',
                sandbox: { secret_key: key('test', 'keepa'), base_url: 'https://a.example.com/v1/' },
              }),
          });
          expects.push({
            what: 'keep_b untouched',
            ok: (c) =>
              JSON.stringify(c.profiles.keep_b) === JSON.stringify({ tenant_id: 'biz_keep_b', live: { secret_key: key('live', 'keepb') } }),
          });
          // All at once: every process is started before any is awaited.
          const results = await Promise.all(runs.map((r) => r()));
          processes += results.length;
          const bad: string[] = [];
          for (const r of results) {
            if (typeof r === 'string') bad.push(r);
            else if (r) bad.push(...problemsOf(r, 0).map((p) => `${shown(r.args)}: ${p}`));
          }
          let cfg: any;
          try {
            cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
          } catch (err) {
            bad.push(`config.json unreadable after the round: ${(err as Error).message}`);
          }
          for (const e of expects) {
            tried++;
            if (cfg && e.ok(cfg)) passed++;
            else {
              lost++;
              bad.push(`lost: ${e.what}`);
            }
          }
          const left = readdirSync(dir).filter((n) => n !== 'config.json');
          if (left.length) bad.push(`left in the folder: ${left.join(', ')}`);
          if (mode(join(dir, 'config.json')) !== 0o600) bad.push(`config.json is ${mode(join(dir, 'config.json')).toString(8)}`);
          failures.push(...bad);
          return bad.length === 0;
        }),
        { numRuns: ROUNDS, seed: SEED, endOnFailure: true },
      );
      await record(
        'attack.config-writers',
        'parallel config writers lose no profile',
        { tried, passed, lost, duplicated: 0, leaked: 0, extra: { rounds: round, processes, round_size: ROUND } },
        started,
      );
      expect(failures, `seed ${SEED}`).toEqual([]);
      expect(result.failed, `seed ${SEED}`).toBe(false);
    },
    FULL ? 3_600_000 : 600_000,
  );
});

// ---------------------------------------------------------------------------------------------
// shape

const BASE_SECRET = key('test', 'shapebase');
const BASE_LIVE = key('live', 'shapebase');
registerSecret(BASE_SECRET, BASE_LIVE);

function baseConfig(): any {
  return {
    current_profile: 'acme',
    profiles: {
      acme: {
        tenant_id: 'biz_acme',
        sandbox: {
          secret_key: BASE_SECRET,
          public_key: 'pk_test_acmeacme1',
          base_url: 'http://127.0.0.1:9/v1/',
          webhook_secret: whsec('acme'),
        },
        live: { secret_key: BASE_LIVE },
      },
      other: { tenant_id: 'biz_other' },
    },
  };
}

/** Where an object or a string is expected, as key paths into baseConfig(). */
const OBJECT_PATHS: string[][] = [
  [],
  ['profiles'],
  ['profiles', 'acme'],
  ['profiles', 'other'],
  ['profiles', 'acme', 'sandbox'],
  ['profiles', 'acme', 'live'],
];
const STRING_PATHS: string[][] = [
  ['current_profile'],
  ['profiles', 'acme', 'tenant_id'],
  ['profiles', 'other', 'tenant_id'],
  ...['secret_key', 'public_key', 'base_url', 'webhook_secret'].map((k) => ['profiles', 'acme', 'sandbox', k]),
  ['profiles', 'acme', 'live', 'secret_key'],
];
const ALLOWED: Record<string, string[]> = {
  '': ['current_profile', 'profiles'],
  'profiles.acme': ['tenant_id', 'sandbox', 'live'],
  'profiles.other': ['tenant_id', 'sandbox', 'live'],
  'profiles.acme.sandbox': ['secret_key', 'public_key', 'base_url', 'webhook_secret'],
  'profiles.acme.live': ['secret_key', 'public_key', 'base_url', 'webhook_secret'],
};
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The key path as pay prints it: words joined by dots, anything else quoted: profiles["a b"]. */
function printed(path: readonly string[]): string {
  if (path.length === 0) return '(top level)';
  const clip = (s: string): string => (s.length > 64 ? `${s.slice(0, 64)}…` : s);
  return path.map((s, i) => (/^[A-Za-z0-9_-]+$/.test(s) ? `${i ? '.' : ''}${s}` : `[${JSON.stringify(clip(s))}]`)).join('');
}

function at(obj: any, path: readonly string[]): any {
  return path.reduce((o, k) => o[k], obj);
}

/** Sets an own, enumerable key (also `__proto__`) so JSON.stringify writes it. */
function put(obj: any, k: string, v: unknown): void {
  Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
}

interface Defect {
  text: string;
  /** The key path pay must name; undefined for text that is not JSON. */
  path: string | undefined;
  why: RegExp;
  label: string;
}

const notString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
);
const notObject = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.array(fc.integer(), { maxLength: 3 }),
);

const defect: fc.Arbitrary<Defect> = fc.oneof(
  fc.record({ path: fc.constantFrom(...STRING_PATHS), v: notString }).map(({ path, v }) => {
    const c = baseConfig();
    at(c, path.slice(0, -1))[path[path.length - 1]!] = v;
    return { text: JSON.stringify(c, null, 2), path: printed(path), why: /must be a string/, label: `wrong type at ${printed(path)}` };
  }),
  fc.record({ path: fc.constantFrom(...OBJECT_PATHS), v: notObject }).map(({ path, v }) => {
    const c = path.length ? baseConfig() : v;
    if (path.length) at(c, path.slice(0, -1))[path[path.length - 1]!] = v;
    return { text: JSON.stringify(c, null, 2), path: printed(path), why: /must be an object/, label: `wrong type at ${printed(path)}` };
  }),
  fc
    .record({
      where: fc.constantFrom(...Object.keys(ALLOWED)),
      k: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype'), fc.string({ minLength: 1, maxLength: 80 })),
      v: fc.jsonValue({ maxDepth: 2 }),
    })
    .filter(({ where, k }) => !ALLOWED[where]!.includes(k))
    .map(({ where, k, v }) => {
      const c = baseConfig();
      const path = where ? where.split('.') : [];
      put(at(c, path), k, v);
      return {
        text: JSON.stringify(c),
        path: printed([...path, k]),
        why: ['__proto__', 'constructor', 'prototype'].includes(k) ? /is not allowed/ : /unknown key/,
        label: `key ${JSON.stringify(k.slice(0, 20))} in ${where || 'top level'}`,
      };
    }),
  fc.constantFrom('__proto__', 'constructor', 'prototype').map((k) => {
    const c = baseConfig();
    put(c.profiles, k, { tenant_id: 'biz_x' });
    return { text: JSON.stringify(c), path: printed(['profiles', k]), why: /is not allowed/, label: `profile named ${k}` };
  }),
  fc
    .oneof(fc.string({ maxLength: 70 }), fc.constantFrom('', 'a b', '-lead', '_x', 'x'.repeat(65), 'ünï', 'a/b', 'a.b'))
    .filter((n) => !PROFILE_NAME.test(n) && !['__proto__', 'constructor', 'prototype'].includes(n))
    .chain((name) => fc.record({ name: fc.constant(name), asCurrent: fc.boolean() }))
    .map(({ name, asCurrent }) => {
      const c = baseConfig();
      if (asCurrent) c.current_profile = name;
      else put(c.profiles, name, { tenant_id: 'biz_x' });
      const path = asCurrent ? ['current_profile'] : ['profiles', name];
      return {
        text: JSON.stringify(c),
        path: printed(path),
        why: asCurrent ? /must be a profile name/ : /not a valid profile name/,
        label: `bad profile name ${asCurrent ? 'as current' : 'as key'}`,
      };
    }),
  fc
    .record({ cut: fc.nat(), junk: fc.constantFrom('', '}', ']', ',', 'x', '"', '{') })
    .map(({ cut, junk }) => {
      const full = JSON.stringify(baseConfig(), null, 2);
      const at = 1 + (cut % (full.length - 2));
      return { text: full.slice(0, at) + junk, path: undefined, why: /not valid JSON|is empty/, label: 'not JSON' };
    })
    .filter((d) => {
      try {
        JSON.parse(d.text);
        return false;
      } catch {
        return true;
      }
    }),
);

const COMMANDS: Array<{ args: string[]; stdin?: string }> = [
  { args: ['profiles', 'list'] },
  { args: ['profiles', 'show', 'acme'] },
  { args: ['customers', 'list'] },
  { args: ['login', '--with-key', '-p', 'newone'], stdin: key('test', 'newone') },
  { args: ['profiles', 'set', 'tenant_id', 'biz_changed'] },
  { args: ['profiles', 'use', 'other'] },
  { args: ['profiles', 'remove', 'other', '--yes'] },
  { args: ['logout', '-p', 'acme'] },
];
registerSecret(key('test', 'newone'));

describe('attack: malformed config files', () => {
  it(
    'are exit 2 naming the file and the key path, and nothing is written',
    async () => {
      const started = Date.now();
      const cases = fc.sample(fc.tuple(defect, fc.nat(COMMANDS.length - 1)), { numRuns: count(24, 1000), seed: SEED });
      let passed = 0;
      let leaked = 0;
      const failures: string[] = [];
      await pool(cases, 3, async ([d, ci], i) => {
        const dir = tempIn(root, 'shape-');
        chmodSync(dir, 0o700);
        const file = join(dir, 'config.json');
        writeFileSync(file, d.text, { mode: 0o600 });
        const before = snapshot(dir);
        const cmd = COMMANDS[ci]!;
        const r = await pay(cmd.args, {
          env: cleanEnv({ PAY_CONFIG_DIR: dir, PAY_PROFILE: undefined }),
          ...(cmd.stdin ? { stdin: cmd.stdin } : {}),
          secrets: [BASE_SECRET, BASE_LIVE],
        });
        const bad = problemsOf(r, 2);
        leaked += r.leaks.length;
        const first = r.stderr.split('\n')[0] ?? '';
        const named = `configuration ${file}${d.path ? ` at ${d.path}` : ''}: `;
        if (!first.startsWith('error: ') || !first.includes(named))
          bad.push(`first line does not name ${JSON.stringify(named)}: ${JSON.stringify(first.slice(0, 300))}`);
        else if (!d.why.test(first)) bad.push(`first line does not say ${d.why}: ${JSON.stringify(first.slice(0, 300))}`);
        if (
          r.stderr
            .split('\n')
            .filter(Boolean)
            .some((l) => !/^(error|hint): /.test(l))
        )
          bad.push(`more than an error and a hint: ${JSON.stringify(r.stderr.slice(0, 400))}`);
        if (snapshot(dir) !== before) bad.push('the folder changed');
        if (r.stdout !== '') bad.push(`stdout: ${JSON.stringify(r.stdout.slice(0, 200))}`);
        if (bad.length) failures.push(`#${i} ${d.label} / ${shown(cmd.args)}: ${bad.join('; ')}`);
        else passed++;
      });
      await record(
        'attack.config-shape',
        'malformed config files: exit 2 naming file and key, nothing written',
        { tried: cases.length, passed, lost: 0, duplicated: 0, leaked, extra: { seed: SEED } },
        started,
      );
      expect(failures.slice(0, 20), `seed ${SEED}`).toEqual([]);
    },
    FULL ? 3_600_000 : 600_000,
  );
});

// ---------------------------------------------------------------------------------------------
// perms

interface PermCase {
  label: string;
  /** Makes the folder (or not), returns PAY_CONFIG_DIR and what must hold after the run. */
  setup: (dir: string) => { configDir: string; after: (r: Run) => string[] };
  args: string[];
  stdin?: string;
  want: number;
}

const GOOD = JSON.stringify({
  current_profile: 'acme',
  profiles: { acme: { tenant_id: 'biz_perm', sandbox: { secret_key: BASE_SECRET } } },
});
const READ = ['profiles', 'list'];
const WRITE = ['profiles', 'set', 'tenant_id', 'biz_written'];

function refused(r: Run, file: string, why: RegExp, hint?: RegExp): string[] {
  const out: string[] = [];
  const first = r.stderr.split('\n')[0] ?? '';
  if (!first.startsWith(`error: refusing the configuration ${file}: `) || !why.test(first))
    out.push(`first line: ${JSON.stringify(first.slice(0, 300))}`);
  if (hint && !hint.test(r.stderr)) out.push(`no hint ${hint}: ${JSON.stringify(r.stderr.slice(0, 300))}`);
  return out;
}

/** A config file with `fileMode`; a group/world-writable one is refused, any other is read, and written back 0600. */
function modeCase(fileMode: number, write: boolean): PermCase {
  const writable = (fileMode & 0o022) !== 0;
  return {
    label: `file mode ${fileMode.toString(8).padStart(3, '0')}, ${write ? 'write' : 'read'}`,
    args: write ? WRITE : READ,
    want: writable ? 2 : 0,
    setup: (dir) => {
      mkdirSync(dir, { mode: 0o700 });
      const file = join(dir, 'config.json');
      writeFileSync(file, GOOD);
      chmodSync(file, fileMode);
      const before = snapshot(dir);
      return {
        configDir: dir,
        after: (r) => {
          if (writable)
            return [
              ...refused(r, file, /group or others may write it/, new RegExp(`chmod 600 '${file}'`)),
              ...(snapshot(dir) !== before ? ['the folder changed'] : []),
            ];
          const out: string[] = [];
          const stored = JSON.parse(readFileSync(file, 'utf8'));
          if (write && (stored.profiles.acme.tenant_id !== 'biz_written' || mode(file) !== 0o600))
            out.push(`after the write: tenant ${stored.profiles.acme.tenant_id}, mode ${mode(file).toString(8)}`);
          if (!write && snapshot(dir) !== before) out.push('a read changed the folder');
          if (!write && !r.stdout.includes('acme')) out.push(`list: ${JSON.stringify(r.stdout)}`);
          return out;
        },
      };
    },
  };
}

function fixedCases(): PermCase[] {
  const cases: PermCase[] = [];
  for (const args of [READ, WRITE, ['login', '--with-key']]) {
    const stdin = args[0] === 'login' ? key('test', 'permlogin') : undefined;
    const both = { args, want: 2, ...(stdin ? { stdin } : {}) };
    cases.push({
      ...both,
      label: `symlink to a good file, ${args.slice(0, 2).join(' ')}`,
      setup: (dir) => {
        mkdirSync(dir, { mode: 0o700 });
        writeFileSync(join(dir, 'real.json'), GOOD, { mode: 0o600 });
        symlinkSync(join(dir, 'real.json'), join(dir, 'config.json'));
        const before = snapshot(dir);
        return {
          configDir: dir,
          after: (r) => [
            ...refused(r, join(dir, 'config.json'), /symbolic link/),
            ...(snapshot(dir) !== before ? ['the folder changed'] : []),
          ],
        };
      },
    });
    cases.push({
      ...both,
      label: `dangling symlink, ${args.slice(0, 2).join(' ')}`,
      setup: (dir) => {
        mkdirSync(dir, { mode: 0o700 });
        symlinkSync(join(dir, 'elsewhere.json'), join(dir, 'config.json'));
        const before = snapshot(dir);
        return {
          configDir: dir,
          after: (r) => [
            ...refused(r, join(dir, 'config.json'), /symbolic link/),
            ...(snapshot(dir) !== before || existsSync(join(dir, 'elsewhere.json')) ? ['the folder changed'] : []),
          ],
        };
      },
    });
    cases.push({
      ...both,
      label: `FIFO, ${args.slice(0, 2).join(' ')}`,
      setup: (dir) => {
        mkdirSync(dir, { mode: 0o700 });
        execFileSync('mkfifo', [join(dir, 'config.json')]);
        return { configDir: dir, after: (r) => refused(r, join(dir, 'config.json'), /not a regular file/) };
      },
    });
    if (isRoot) {
      cases.push({
        ...both,
        label: `file of another user, ${args.slice(0, 2).join(' ')}`,
        setup: (dir) => {
          mkdirSync(dir, { mode: 0o700 });
          const file = join(dir, 'config.json');
          writeFileSync(file, GOOD, { mode: 0o600 });
          chownSync(file, NOBODY, NOBODY);
          const before = snapshot(dir);
          return {
            configDir: dir,
            after: (r) => [
              ...refused(r, file, /belongs to another user/, /chown/),
              ...(snapshot(dir) !== before || statSync(file).uid !== NOBODY ? ['the file or folder changed'] : []),
            ],
          };
        },
      });
    }
  }
  // Folders: a shared 1777 one (also one of another owner), an existing 0755 one, a missing one.
  const login = (label: string, make: (dir: string) => { configDir: string; check: () => string[] }): PermCase => ({
    label,
    args: ['login', '--with-key', '-p', 'acme'],
    stdin: key('test', 'permlogin'),
    want: 0,
    setup: (dir) => {
      const m = make(dir);
      return {
        configDir: m.configDir,
        after: () => {
          const out = m.check();
          const file = join(m.configDir, 'config.json');
          if (!existsSync(file) || mode(file) !== 0o600) out.push(`config.json ${existsSync(file) ? mode(file).toString(8) : 'missing'}`);
          else if (JSON.parse(readFileSync(file, 'utf8')).profiles.acme?.sandbox?.secret_key !== key('test', 'permlogin'))
            out.push('the key is not stored');
          return out;
        },
      };
    },
  });
  cases.push(
    login('shared 1777 folder', (dir) => {
      mkdirSync(dir);
      chmodSync(dir, 0o1777);
      return { configDir: dir, check: () => (mode(dir) !== 0o1777 ? [`the folder is now ${mode(dir).toString(8)}`] : []) };
    }),
  );
  if (isRoot) {
    cases.push(
      login('shared 1777 folder of another user', (dir) => {
        mkdirSync(dir);
        chmodSync(dir, 0o1777);
        chownSync(dir, NOBODY, NOBODY);
        return {
          configDir: dir,
          check: () =>
            mode(dir) !== 0o1777 || statSync(dir).uid !== NOBODY
              ? [`the folder is now ${mode(dir).toString(8)} uid ${statSync(dir).uid}`]
              : [],
        };
      }),
    );
  }
  cases.push(
    login('existing 0755 folder', (dir) => {
      mkdirSync(dir);
      chmodSync(dir, 0o755);
      return { configDir: dir, check: () => (mode(dir) !== 0o755 ? [`the folder is now ${mode(dir).toString(8)}`] : []) };
    }),
    login('a stale lock left by a killed pay', (dir) => {
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, 'config.json'), GOOD, { mode: 0o600 });
      mkdirSync(join(dir, 'config.json.lock'));
      const old = new Date(Date.now() - 60_000);
      utimesSync(join(dir, 'config.json.lock'), old, old);
      return {
        configDir: dir,
        check: () => [
          ...(existsSync(join(dir, 'config.json.lock')) ? ['the lock is still there'] : []),
          ...(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.acme?.tenant_id !== 'biz_perm'
            ? ['the tenant was lost']
            : []),
        ],
      };
    }),
    login('missing nested folders', (dir) => {
      mkdirSync(dir);
      chmodSync(dir, 0o755);
      const deep = join(dir, 'a', 'b');
      return {
        configDir: deep,
        check: () => [
          ...(mode(dir) !== 0o755 ? [`the existing parent is now ${mode(dir).toString(8)}`] : []),
          ...[join(dir, 'a'), deep].filter((d) => mode(d) !== 0o700).map((d) => `${d} is ${mode(d).toString(8)}`),
        ],
      };
    }),
  );
  return cases;
}

describe('attack: config file and folder permissions', () => {
  it(
    'refuses links, foreign and writable files; leaves folders it did not create alone',
    async () => {
      const started = Date.now();
      // Not root: the owner keeps read and write (else the kernel, not pay, says no).
      const generated = fc
        .sample(fc.tuple(fc.integer({ min: 0, max: 0o777 }), fc.boolean()), { numRuns: count(12, 1000), seed: SEED })
        .map(([m, w]) => modeCase(isRoot ? m : m | 0o600, w));
      const cases = [...fixedCases(), ...generated];
      let passed = 0;
      let leaked = 0;
      const failures: string[] = [];
      await pool(cases, 3, async (c, i) => {
        const { configDir, after } = c.setup(join(tempIn(root, 'perm-'), 'cfg'));
        const r = await pay(c.args, {
          env: cleanEnv({ PAY_CONFIG_DIR: configDir }),
          ...(c.stdin ? { stdin: c.stdin } : {}),
          secrets: [BASE_SECRET],
          timeoutMs: 60_000,
        });
        leaked += r.leaks.length;
        const bad = [...problemsOf(r, c.want), ...after(r)];
        if (bad.length) failures.push(`#${i} ${c.label}: ${bad.join('; ')}`);
        else passed++;
      });
      await record(
        'attack.config-perms',
        'config perms: links, foreign/writable files refused; folders left alone',
        {
          tried: cases.length,
          passed,
          lost: 0,
          duplicated: 0,
          leaked,
          extra: { generated_modes: generated.length, fixed: cases.length - generated.length, as_root: isRoot ? 1 : 0 },
        },
        started,
      );
      expect(failures.slice(0, 20), `seed ${SEED}`).toEqual([]);
    },
    FULL ? 3_600_000 : 600_000,
  );
});
