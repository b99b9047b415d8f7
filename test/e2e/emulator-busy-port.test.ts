// `pay emulator start --port <busy> --data-dir <dir>` fails "already in use" (exit 1) and leaves
// the data dir as it found it: the port is bound before anything is made there (the dir, its
// lock, keys.json, a journal). The port is held by this test; variants of the data dir.

import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPay, tempDir } from '../helpers/run-pay.js';

let held: Server;
let port: number;

beforeAll(async () => {
  held = createServer();
  await new Promise<void>((resolve, reject) => {
    held.once('error', reject);
    held.listen(0, '127.0.0.1', resolve);
  });
  port = (held.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => held.close(r));
});

describe('pay emulator start on a port in use writes nothing in its data dir', () => {
  const variants: Array<[string, (root: string) => string]> = [
    ['a dir that does not exist', (root) => join(root, 'new')],
    ['a dir two levels down that does not exist', (root) => join(root, 'a', 'b')],
    [
      'an empty dir',
      (root) => {
        const d = join(root, 'empty');
        mkdirSync(d);
        return d;
      },
    ],
  ];
  it.each(variants)('%s', async (_name, make) => {
    const root = tempDir('pay-busy-port-');
    const dir = make(root);
    const before = existsSync(dir) ? readdirSync(dir) : undefined;
    const r = await runPay(['emulator', 'start', '--port', String(port), '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: .*port ${port} .*already in use`, 'm'));
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(dir) ? readdirSync(dir) : undefined).toEqual(before);
  });
});
