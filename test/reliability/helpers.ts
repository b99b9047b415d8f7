// Shared by the reliability suite (test/reliability/*.test.ts): the count switch (small by
// default, the full counts with PAY_RELIABILITY_FULL=1), the figures file every test writes its
// counts into (test/.tmp/reliability.json, turned into the README table by report.mjs), a pay
// runner that counts leaked secrets instead of throwing, bounded parallelism, temp folders, a
// scan of files for secrets, and `pay emulator start` as a child process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { cleanEnv, leakedSecrets, PAY_BIN, registerSecret } from '../helpers/run-pay.js';
import { until } from '../helpers/wait.js';

export { cleanEnv, PAY_BIN, registerSecret };

export const FULL = process.env.PAY_RELIABILITY_FULL === '1';
export const MODE: 'full' | 'default' = FULL ? 'full' : 'default';

/** The small count by default, the full one with PAY_RELIABILITY_FULL=1. */
export const count = (small: number, full: number): number => (FULL ? full : small);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Figures

export const FIGURES = new URL('../.tmp/reliability.json', import.meta.url).pathname;

export interface Counts {
  tried: number;
  passed: number;
  lost: number;
  duplicated: number;
  leaked: number;
  /** Anything else worth a number (retries seen, injected faults, RSS growth, …). */
  extra?: Record<string, number | string>;
}

export interface Figure extends Counts {
  title: string;
  mode: 'full' | 'default';
  at: string;
  duration_ms: number;
}

export interface FiguresFile {
  version: 1;
  /** test id → mode → the last figures recorded in that mode. */
  tests: Record<string, Partial<Record<'full' | 'default', Figure>>>;
}

/** A lock by mkdir: test files run in parallel workers and all write the one file. */
async function withLock<T>(fn: () => T): Promise<T> {
  const lock = `${FIGURES}.lock`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock left by a killed run: older than 10 s is stale.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 10_000) rmdirSync(lock);
      } catch {
        // Gone meanwhile.
      }
      // eslint-disable-next-line preserve-caught-error -- no error is caught here: the lock is still held by another run
      if (Date.now() > deadline) throw new Error(`could not lock ${FIGURES}`);
      await sleep(10 + Math.random() * 20);
    }
  }
  try {
    return fn();
  } finally {
    rmdirSync(lock);
  }
}

export function readFigures(): FiguresFile {
  try {
    const f = JSON.parse(readFileSync(FIGURES, 'utf8')) as FiguresFile;
    if (f && f.version === 1 && f.tests && typeof f.tests === 'object') return f;
  } catch {
    // Missing or unreadable: start afresh.
  }
  return { version: 1, tests: {} };
}

/** Records one test's counts (call it before asserting, so a failing run still leaves its figures). */
export async function record(id: string, title: string, counts: Counts, startedAt: number): Promise<void> {
  mkdirSync(join(FIGURES, '..'), { recursive: true });
  const figure: Figure = { title, mode: MODE, ...counts, at: new Date().toISOString(), duration_ms: Date.now() - startedAt };
  await withLock(() => {
    const all = readFigures();
    all.tests[id] = { ...all.tests[id], [MODE]: figure };
    const tmp = `${FIGURES}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`);
    renameSync(tmp, FIGURES);
  });
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Runs fn over items with at most `limit` in flight; results in input order. */
export async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export interface Run {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
  /** Whole secrets found in stdout/stderr (registered ones and the env's key and webhook secret). */
  leaks: string[];
}

export interface PayOptions {
  env: Record<string, string>;
  stdin?: string | Buffer;
  timeoutMs?: number;
  /** Extra secrets to look for in this run's output. */
  secrets?: readonly string[];
  /** Run through `sh -c` with this prefix (e.g. `ulimit -f 0;`). */
  shellPrefix?: string;
}

/**
 * The built bin/pay.js as a child process; never rejects on output, it reports leaks instead.
 * Other engineers rebuild dist/ while tests run (the build empties it first): a run that could
 * not load pay's own modules sent nothing, so it is run again after a pause, up to 5 times.
 */
export async function pay(args: string[], o: PayOptions): Promise<Run> {
  for (let attempt = 1; ; attempt++) {
    const r = await payOnce(args, o);
    const rebuilt =
      /pay is not built|ERR_MODULE_NOT_FOUND|Cannot find module '[^']*\/dist\//.test(r.stderr) &&
      /\/dist\/|pay is not built/.test(r.stderr);
    if (!rebuilt || attempt >= 5) return r;
    await sleep(2000 * attempt);
  }
}

function payOnce(args: string[], o: PayOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = o.shellPrefix
      ? spawn('sh', ['-c', `${o.shellPrefix} exec "$0" "$@"`, process.execPath, PAY_BIN, ...args], {
          env: o.env,
          stdio: ['pipe', 'pipe', 'pipe'],
        })
      : spawn(process.execPath, [PAY_BIN, ...args], { env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, o.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = stdout + stderr;
      const leaks = [
        ...new Set([...leakedSecrets(args, o.env, text), ...(o.secrets ?? []).filter((s) => s.length >= 12 && text.includes(s))]),
      ];
      resolve({ args, code, signal, stdout, stderr, ms: Date.now() - started, timedOut, leaks });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(o.stdin ?? '');
  });
}

/** `pay …` for messages: arguments quoted and cut short. */
/** A pay process left running: its output so far, and its exit code once its output is all read ('close'). */
export interface Spawned {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  closed: Promise<number | null>;
}

export function spawnPay(args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [PAY_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out: () => out, err: () => err, closed };
}

export function shown(args: readonly string[]): string {
  return `pay ${args.map((a) => (a.length > 60 ? `${JSON.stringify(a.slice(0, 60))}…` : JSON.stringify(a))).join(' ')}`;
}

// ---------------------------------------------------------------------------------------------
// Temp folders and secret scans

export function tempRoot(name: string): string {
  return mkdtempSync(join(tmpdir(), `pay-rel-${name}-`));
}

export function tempIn(root: string, prefix: string): string {
  return mkdtempSync(join(root, prefix));
}

/** Every regular file under dir (symlinks not followed). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      let s;
      try {
        s = statSync(p, { throwIfNoEntry: false });
      } catch {
        continue;
      }
      if (!s) continue;
      if (s.isDirectory()) walk(p);
      else if (s.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Files under root (config.json excluded, and any path `skip` accepts) holding a secret whole. */
export function secretsInFiles(
  root: string,
  secrets: readonly string[],
  skip: (path: string) => boolean = () => false,
): Array<{ file: string; secret: string }> {
  const found: Array<{ file: string; secret: string }> = [];
  if (!existsSync(root)) return found;
  for (const file of filesUnder(root)) {
    if (basename(file) === 'config.json' || skip(file)) continue;
    const text = readFileSync(file).toString('latin1');
    for (const s of secrets) if (s.length >= 12 && text.includes(s)) found.push({ file, secret: `${s.slice(0, 8)}…` });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Output checks

/** A JavaScript stack frame line, or an uncaught error dump, anywhere in the text. */
export function stackTrace(text: string): string | undefined {
  const frame = /\n\s+at (?:async )?(?:[^\s()]+ )?\(?(?:node:|file:|\/)[^\s()]*:\d+(?::\d+)?\)?/.exec(text);
  if (frame) return frame[0].trim();
  const dump = /^(?:Uncaught )?(?:[A-Z][A-Za-z]*)?(?:Error|Exception)(?: \[[A-Z_]+\])?: .*/m.exec(text);
  if (dump) return dump[0];
  if (/^node:internal\//m.test(text)) return 'node:internal dump';
  return undefined;
}

export const DOCUMENTED_EXIT_CODES = new Set([0, 1, 2, 3, 4, 5, 6, 7, 130]);

// ---------------------------------------------------------------------------------------------
// `pay emulator start` as a child process

export interface EmulatorProcess {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  port: number;
  url: string;
  baseUrl: string;
  tenantId: string;
  keys: { sandbox: { secret: string; public: string }; live: { secret: string; public: string } };
  webhookSecrets: { sandbox: string; live: string };
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then waits for the exit. */
  stop: () => Promise<void>;
}

/** Starts `pay emulator start` and reads its banner (base URL, tenant id, keys, webhook secrets). */
export async function spawnEmulator(args: string[], env: Record<string, string> = cleanEnv()): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [PAY_BIN, 'emulator', 'start', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  await until(`pay emulator start ${args.join(' ')} to print its banner`, () => /Press Ctrl-C to stop/.test(err) || done, {
    seen: () => err,
  }).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  if (done && !/Press Ctrl-C to stop/.test(err)) throw new Error(`pay emulator start ${args.join(' ')} exited:\n${err}`);
  const field = (name: string): string => {
    const m = new RegExp(`^\\s+${name}\\s+(\\S+)`, 'm').exec(err);
    if (!m) throw new Error(`no "${name}" in the emulator banner:\n${err}`);
    return m[1]!;
  };
  const url = /listening on (http:\/\/\S+)/.exec(err)![1]!;
  const emu: EmulatorProcess = {
    child,
    pid: child.pid!,
    port: Number(new URL(url).port),
    url,
    baseUrl: field('base URL'),
    tenantId: field('tenant id'),
    keys: {
      sandbox: { secret: field('sandbox secret key'), public: field('sandbox public key') },
      live: { secret: field('live secret key'), public: field('live public key') },
    },
    webhookSecrets: { sandbox: field('sandbox webhook secret'), live: field('live webhook secret') },
    stderr: () => err,
    exited,
    stop: async () => {
      if (!done) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
  registerSecret(emu.keys.sandbox.secret, emu.keys.live.secret, emu.webhookSecrets.sandbox, emu.webhookSecrets.live);
  return emu;
}

/** Resident set size of a process in bytes (Linux /proc), or undefined elsewhere. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The secrets of an emulator: its secret keys and webhook secrets (public keys are not secret). */
export function secretsOf(e: {
  keys: { sandbox: { secret: string }; live: { secret: string } };
  webhookSecrets: { sandbox: string; live: string };
}): string[] {
  return [e.keys.sandbox.secret, e.keys.live.secret, e.webhookSecrets.sandbox, e.webhookSecrets.live];
}

/** A decimal string as exact minor units ("-12.5" with 2 decimals → -1250n). */
export function minor(amount: string, decimals = 2): bigint {
  const neg = amount.startsWith('-');
  const [w, f = ''] = amount.replace(/^[-+]/, '').split('.');
  const v = BigInt(w || '0') * 10n ** BigInt(decimals) + BigInt((f + '0'.repeat(decimals)).slice(0, decimals) || '0');
  return neg ? -v : v;
}
