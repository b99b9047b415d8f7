// Runs the built bin/pay.js as a child process, as a user's shell or CI job would.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PAY_BIN = new URL('../../bin/pay.js', import.meta.url).pathname;

export interface PayResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface PayRunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs?: number;
}

/** An environment with nothing of the developer's: no PAY_* from outside, a fresh config dir, no colour, CI unset. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('PAY_') || k === 'CI' || k === 'NO_COLOR' || k === 'FORCE_COLOR') continue;
    env[k] = v;
  }
  env.PAY_CONFIG_DIR = extra.PAY_CONFIG_DIR ?? tempDir('pay-config-');
  env.PAY_RETRY_BASE_MS = '5';
  // Times in tables are local (TZ): every run is in UTC unless a test sets its own zone.
  env.TZ = 'UTC';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function tempDir(prefix = 'pay-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Secrets no run of pay may print whole (contract section 3). Every runPay result is checked
 * against these and against the key and webhook secret in its environment; a leak fails the test.
 * `pay emulator start` is exempt: it prints its own generated test keys by design.
 */
const secrets = new Set<string>();
export function registerSecret(...values: string[]): void {
  for (const v of values) if (v.length >= 12) secrets.add(v);
}

export function leakedSecrets(args: readonly string[], env: Record<string, string | undefined>, text: string): string[] {
  if (args[0] === 'emulator') return [];
  const all = [...secrets, env.PAY_API_KEY, env.PAY_WEBHOOK_SECRET].filter((s): s is string => !!s && s.length >= 12);
  return all.filter((s) => text.includes(s));
}

export function runPay(args: string[], opts: PayRunOptions = {}): Promise<PayResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PAY_BIN, ...args], {
      env: opts.env ?? cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const leaks = leakedSecrets(args, opts.env ?? {}, stdout + stderr);
      if (leaks.length > 0) {
        reject(new Error(`pay ${args.join(' ')} printed a secret whole (${leaks.map((l) => `${l.slice(0, 8)}…`).join(', ')})`));
        return;
      }
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
  });
}
