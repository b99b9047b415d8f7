// Prism (@stoplight/prism-cli 5.14.2) on the contract as `pay openapi` prints it: as a validating
// proxy in front of an emulator (every request pay sends and every response the emulator gives is
// checked against the contract, bodies included) or as a mock serving the contract's examples.
// Prism matches paths without the servers' base path, so it gets the printed contract with the /v1
// prefix moved into the paths, as the README's recipe does (printed-contract.ts); nothing else
// changes. (Until the contract dropped `jsonSchemaDialect`, this helper had to strip it too: Prism
// 5 silently skips body validation when it is set. Now the printed document is used as it is.)
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractForPrism } from './printed-contract.js';
import { tempDir } from './run-pay.js';
import { until } from './wait.js';
import { freePort } from './ports.js';

const PRISM = new URL('../../node_modules/.bin/prism', import.meta.url).pathname;

export interface Prism {
  /** Base URL for pay: Prism's address with /v1/. */
  baseUrl: string;
  /** Lines where Prism reported a violation or refused a request. */
  violations(): string[];
  log(): string;
  stop(): Promise<void>;
}

/** Starts Prism proxying to `upstream` (the emulator's origin, no path). */
export function startPrism(upstream: string): Promise<Prism> {
  return start(['proxy', '{file}', upstream, '--errors']);
}

/** Starts Prism's mock server (static: each operation answers its example). */
export function startPrismMock(): Promise<Prism> {
  return start(['mock', '{file}', '--errors']);
}

async function start(args: string[]): Promise<Prism> {
  const file = join(tempDir('pay-prism-'), 'openapi.json');
  writeFileSync(file, contractForPrism());
  const port = await freePort();
  const argv = [...args.map((a) => (a === '{file}' ? file : a)), '--host', '127.0.0.1', '--port', String(port)];
  const child: ChildProcess = spawn(PRISM, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (text += d));
  await until(
    'Prism is listening',
    () => {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`Prism exited (${child.exitCode ?? child.signalCode}):\n${text.slice(-2000)}`);
      return text.includes('Prism is listening');
    },
    { seen: () => text.slice(-2000) },
  );
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
