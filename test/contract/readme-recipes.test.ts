// The contract topic's recipes (`pay help contract`, once the README's "Use the contract"), run as written: `pay openapi` (JSON and --yaml), the jq
// line that moves /v1 into the paths for Prism, Prism 5.14.2 as a validating proxy in front of the
// emulator and as a mock, and a typed client made with openapi-typescript (default options) and
// openapi-fetch, compiled with `tsc --strict`, that creates an account without its defaulted type.
// Each block runs in bash from a folder of its own (under test/.tmp, so the client finds
// openapi-fetch and @types/node in this repository's node_modules), with the tools of
// devDependencies on PATH. The topic's ports are replaced by free ones: 8787 by the emulator's,
// 4010 by Prism's. While the topic's Prism mock runs, every operation's example request is sent
// to it (one Prism start serves both), and each must be answered with its example.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { contractForPrism, printedContract } from '../helpers/printed-contract.js';
import { cleanEnv, PAY_BIN, registerSecret, tempDir } from '../helpers/run-pay.js';
import { until } from '../helpers/wait.js';
import { exampleRequests } from './examples-helpers.js';
import { freePort } from '../helpers/ports.js';

const ROOT = new URL('../../', import.meta.url).pathname;
// The recipes live in the contract topic (`pay help contract`, src/docs/topics/contract.md).
const section = readFileSync(join(ROOT, 'src/docs/topics/contract.md'), 'utf8');
const blocks = [...section.matchAll(/^```(sh|ts)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));

/** The one block whose first line starts with `prefix`. */
function block(prefix: string): string {
  const found = blocks.filter((b) => b.text.startsWith(prefix));
  if (found.length !== 1) throw new Error(`the contract topic: ${found.length} blocks start with ${JSON.stringify(prefix)}`);
  return found[0]!.text;
}

let emu: Emulator;
let prismPort: number;
let cwd: string;
let env: Record<string, string>;

/** A topic block with its ports replaced by this run's. */
const local = (text: string): string => text.replaceAll('127.0.0.1:8787', `127.0.0.1:${emu.port}`).replaceAll('4010', String(prismPort));

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  registerSecret(emu.keys.sandbox.secret, emu.webhookSecret);
  prismPort = await freePort();
  mkdirSync(join(ROOT, 'test/.tmp'), { recursive: true });
  cwd = mkdtempSync(join(ROOT, 'test/.tmp/recipes-'));
  const bin = tempDir('pay-bin-');
  writeFileSync(join(bin, 'pay'), `#!/bin/sh\nexec "${process.execPath}" "${PAY_BIN}" "$@"\n`);
  chmodSync(join(bin, 'pay'), 0o755);
  env = cleanEnv({
    PATH: `${bin}:${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
    PAY_API_KEY: emu.keys.sandbox.secret,
    PAY_TENANT_ID: emu.tenantId,
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  });
}, 60_000);
afterAll(async () => {
  await emu?.stop();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

function bash(script: string, timeoutMs = 120_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', local(script)], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const ok = (r: { status: number | null; stderr: string }) =>
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });

/** A long-running block (a Prism server): started in its own process group, ready when Prism says it listens. */
async function serve(script: string): Promise<{ log: () => string; violations: () => string[]; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn('bash', ['-c', `exec ${local(script)}`], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (text += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(
    `${script}: Prism is listening`,
    () => {
      if (child.exitCode !== null) throw new Error(`${script} exited (${child.exitCode}):\n${text.slice(-3000)}`);
      return text.includes('Prism is listening');
    },
    { seen: () => text.slice(-3000) },
  );
  return {
    log: () => text,
    violations: () => text.split('\n').filter((l) => /✖|violation/i.test(l)),
    stop: async () => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

describe('pay help contract: Use the contract', () => {
  it('has the recipes this test runs', () => {
    expect(blocks.map((b) => b.text.split('\n')[0])).toEqual([
      'pay openapi > pay-openapi.json',
      expect.stringMatching(/^pay openapi \| jq /),
      expect.stringMatching(/^prism proxy /),
      expect.stringMatching(/^pay --base-url /),
      expect.stringMatching(/^prism mock /),
      expect.stringMatching(/^pay --base-url /),
      expect.stringMatching(/^openapi-typescript /),
      '// client.ts',
      expect.stringMatching(/^tsc --strict /),
    ]);
  });

  it('pay openapi and pay openapi --yaml: the same document, YAML read alike by YAML 1.1 and 1.2 readers and swagger-parser', async () => {
    ok(await bash(block('pay openapi > pay-openapi.json')));
    expect(readFileSync(join(cwd, 'pay-openapi.json'), 'utf8')).toBe(printedContract().text);
    const yaml = readFileSync(join(cwd, 'pay-openapi.yaml'), 'utf8');
    expect(parseYaml(yaml, { version: '1.2' })).toEqual(printedContract().doc);
    expect(parseYaml(yaml, { version: '1.1' })).toEqual(printedContract().doc);
    expect(yaml).not.toMatch(/^\s*[\w"-]+: [&*]/m);
    const api = (await SwaggerParser.validate(join(cwd, 'pay-openapi.yaml'))) as { paths?: object };
    expect(Object.keys(api.paths ?? {})).toHaveLength(Object.keys(printedContract().doc.paths).length);
  }, 60_000);

  it("the jq line gives Prism the contract with /v1 in the paths, nothing else changed (the tests' helper does the same)", async () => {
    ok(await bash(block('pay openapi | jq ')));
    const forPrism = JSON.parse(readFileSync(join(cwd, 'prism-openapi.json'), 'utf8')) as {
      paths: object;
      servers: Array<{ url: string }>;
    };
    expect(forPrism).toEqual(JSON.parse(contractForPrism()));
    expect(Object.keys(forPrism.paths).every((p) => p.startsWith('/v1/'))).toBe(true);
    expect(forPrism.servers.map((s) => s.url)).toEqual(['https://{host}', 'http://127.0.0.1:8787']);
  }, 60_000);

  it('Prism proxy in front of the emulator: pay goes through it and nothing breaks the contract; a bad body is refused', async () => {
    const proxy = await serve(block('prism proxy '));
    try {
      const before = emu.received.length;
      const r = await bash(block('pay --base-url http://127.0.0.1:4010/v1/ customers list'));
      // The emulator is new: an empty list (a note on stderr), exit 0.
      expect({ status: r.status, errors: r.stderr.split('\n').filter((l) => /error/i.test(l)) }).toEqual({ status: 0, errors: [] });
      expect(emu.received.slice(before).map((q) => `${q.method} ${q.path}`)).toContain('GET /v1/customers');
      expect(proxy.violations(), proxy.log().slice(-3000)).toEqual([]);
      const bad = await fetch(`http://127.0.0.1:${prismPort}/v1/accounts`, {
        method: 'POST',
        headers: { 'Api-Key': emu.keys.sandbox.secret, 'Idempotency-Key': 'recipe-bad-1', 'Content-Type': 'application/json' },
        body: JSON.stringify({ currency: 'usd' }),
      });
      const text = await bad.text();
      expect(bad.status, text).toBe(422);
      expect(text).toMatch(/required property 'customer_id'/);
      expect(text).toMatch(/currency/);
    } finally {
      await proxy.stop();
    }
  }, 180_000);

  it("Prism mock: pay gets the example; every operation's example request is answered with its example", async () => {
    const mock = await serve(block('prism mock '));
    try {
      const r = await bash(block('pay --base-url http://127.0.0.1:4010/v1/ accounts get'));
      ok(r);
      expect(r.stdout).toMatch(/acc_0123456789abcdefghijklmn/);

      const wrong: string[] = [];
      for (const x of exampleRequests(printedContract().doc)) {
        const res = await fetch(`http://127.0.0.1:${prismPort}/v1${x.path}`, {
          method: x.method,
          headers: {
            'Api-Key': emu.keys.sandbox.secret,
            'x-tenant-id': 'biz_acme',
            ...(x.method === 'POST' ? { 'Idempotency-Key': `mock-${x.operationId}` } : {}),
            ...(x.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          body: x.body === undefined ? undefined : JSON.stringify(x.body),
        });
        const text = await res.text();
        if (String(res.status) !== x.status) wrong.push(`${x.operationId}: ${res.status} ${text.slice(0, 500)}`);
        else if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(x.response))
          wrong.push(`${x.operationId}: answered ${text.slice(0, 300)}`);
      }
      expect(wrong).toEqual([]);
      expect(mock.violations(), mock.log().slice(-3000)).toEqual([]);

      const bad = await fetch(`http://127.0.0.1:${prismPort}/v1/customers`, {
        method: 'POST',
        headers: { 'Api-Key': emu.keys.sandbox.secret, 'Idempotency-Key': 'mock-bad', 'Content-Type': 'application/json' },
        body: JSON.stringify({ first_name: 'Ada', shoe_size: 42 }),
      });
      expect(bad.status).toBe(422);
      expect(bad.headers.get('sl-violations')).toMatch(/found 'shoe_size'/);
    } finally {
      await mock.stop();
    }
  }, 180_000);

  it('openapi-typescript (default options) and openapi-fetch under tsc --strict: an account created without its type', async () => {
    const gen = await bash(block('openapi-typescript '));
    expect(gen.status, gen.stderr).toBe(0);
    const types = readFileSync(join(cwd, 'pay-api.ts'), 'utf8');
    // The defaulted field is optional in the request type (it was required before the contract said otherwise).
    const accountCreate = types.slice(types.indexOf('AccountCreate: {'), types.indexOf('};', types.indexOf('AccountCreate: {')));
    expect(accountCreate).toMatch(/\btype\?: components\["schemas"\]\["AccountType"\];/);
    const client = blocks.find((b) => b.lang === 'ts')!.text;
    writeFileSync(join(cwd, 'client.ts'), local(client));
    const before = emu.received.length;
    const r = await bash(block('tsc --strict '), 180_000);
    expect(r.stderr, r.stdout).toBe('');
    expect(r.status, r.stdout).toBe(0);
    expect(existsSync(join(cwd, 'client.js'))).toBe(true);
    expect(r.stdout).toMatch(/^acc_[0-9a-z]{24} checking\n$/);
    const sent = emu.received.slice(before).find((q) => q.method === 'POST' && q.path === '/v1/accounts');
    expect(sent?.body).toMatchObject({ currency: 'USD' });
    expect(sent?.body).not.toHaveProperty('type');
  }, 240_000);
});
