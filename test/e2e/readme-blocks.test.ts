// Every code block that starts with `pay` in the README and in the help topics
// (src/docs/topics/*.md, in the order `pay help` lists them, after the README) runs against a real
// emulator and exits 0, in that order (later blocks use what earlier ones created): the docs cannot
// rot. A block the README and a topic both show runs once, where it first appears.
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPIC_NAMES } from '../../src/docs/topics.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, leakedSecrets, PAY_BIN, registerSecret, tempDir } from '../helpers/run-pay.js';

// The contract topic's recipes need Prism, openapi-typescript and tsc beside the emulator:
// test/contract/readme-recipes.test.ts runs them; they are left out here.
const doc = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = [doc('README.md'), ...TOPIC_NAMES.filter((t) => t !== 'contract').map((t) => doc(`src/docs/topics/${t}.md`))].join('\n');
const blocks = [...new Set([...readme.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => /^pay /.test(b)))];
// Files the README shows (a YAML or JSON block whose first line is `# <name>`), written where the blocks run.
const files = [...readme.matchAll(/^```(?:yaml|json)\n# ([\w.-]+\.(?:ya?ml|json))\n([\s\S]*?)^```$/gm)].map((m) => [m[1]!, m[2]!] as const);

let emu: Emulator;
let env: Record<string, string>;
let cwd: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, settleAfterMs: 50 });
  registerSecret(emu.keys.sandbox.secret, emu.keys.live.secret, emu.webhookSecret);
  cwd = tempDir('pay-readme-');
  for (const [name, text] of files) writeFileSync(join(cwd, name), text);
  const bin = tempDir('pay-bin-');
  writeFileSync(join(bin, 'pay'), `#!/bin/sh\nexec "${process.execPath}" "${PAY_BIN}" "$@"\n`);
  chmodSync(join(bin, 'pay'), 0o755);
  env = cleanEnv({
    PATH: `${bin}:${process.env.PATH}`,
    PAY_BASE_URL: emu.baseUrl,
    PAY_API_KEY: emu.keys.sandbox.secret,
    PAY_TENANT_ID: emu.tenantId,
    PAY_WEBHOOK_SECRET: emu.webhookSecret,
  });
});
afterAll(() => emu?.stop());

function bash(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('README and topic blocks that start with pay', () => {
  it('there are enough of them to matter, and the files they read', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(17);
    expect(files.map(([name]) => name)).toContain('sandbox.yaml');
  });

  for (const [i, block] of blocks.entries()) {
    it(`block ${i + 1}: ${block.split('\n')[0]!.slice(0, 70)}`, async () => {
      // Not spawnSync: the emulator answers from this very process.
      const r = await bash(block);
      expect(leakedSecrets(['readme'], env, r.stdout + r.stderr)).toEqual([]);
      expect(r.stderr).not.toMatch(/^\s+at .*\(.*:\d+:\d+\)$/m);
      expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
    });
  }
});
