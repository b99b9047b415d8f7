// Prism's validating proxy (@stoplight/prism-cli 5.14.2) in front of an emulator: every request
// pay sends and every response the emulator gives is checked against the published contract.
// Prism matches paths without the servers' base path, so it gets the contract with the /v1
// prefix moved into the paths, and without `jsonSchemaDialect`: Prism 5 silently skips body
// validation when that is set, even to 3.1's own default dialect (the test below proves bodies
// are checked). The document is otherwise the same.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { openapi } from '../../src/api/openapi.js';
import { tempDir } from './run-pay.js';

const PRISM = new URL('../../node_modules/.bin/prism', import.meta.url).pathname;

export interface Prism {
  /** Base URL for pay: Prism's address with /v1/. */
  baseUrl: string;
  /** Lines where Prism reported a violation or refused a request. */
  violations(): string[];
  log(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export function contractForPrism(): string {
  const doc = structuredClone(openapi) as unknown as { servers?: unknown; jsonSchemaDialect?: unknown; paths: Record<string, unknown> };
  delete doc.servers;
  delete doc.jsonSchemaDialect;
  doc.paths = Object.fromEntries(Object.entries(doc.paths).map(([p, v]) => [`/v1${p}`, v]));
  return JSON.stringify(doc);
}

/** Starts Prism proxying to `upstream` (the emulator's origin, no path). */
export async function startPrism(upstream: string): Promise<Prism> {
  const file = join(tempDir('pay-prism-'), 'openapi.json');
  writeFileSync(file, contractForPrism());
  const port = await freePort();
  const child: ChildProcess = spawn(PRISM, ['proxy', file, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (text += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${text.slice(-2000)}`)), 60_000);
    const check = setInterval(() => {
      if (text.includes('Prism is listening')) {
        clearTimeout(timer);
        clearInterval(check);
        resolve();
      }
    }, 50);
    child.on('exit', (code) => {
      clearTimeout(timer);
      clearInterval(check);
      reject(new Error(`Prism exited (${code}):\n${text.slice(-2000)}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}/v1/`,
    // With --errors, Prism logs each request or response violation, and any request it could
    // not route, as an error line.
    violations: () => text.split('\n').filter((l) => /✖|error|violation/i.test(l) && !/Prism is listening/.test(l)),
    log: () => text,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
