// pay doctor's questions to the network asked side by side, the built CLI against real emulators
// and servers that hang (accept, never answer):
//  - the emulator's health answer (who answers at the base URL) is asked beside the GET with the
//    key, not after it: a base URL where nothing answers costs its time limit once, not twice;
//  - the other emulators pay knows of are asked together who they are (hanging ones ahead of the
//    right one in the profiles' order), the key only of those that said they are a pay emulator:
//    the line names the right one, as before.
// Structure, not wall time: the hanging servers hold their connections open until the test lets
// them answer (the probe limit set far above the test's with PAY_PROBE_MS, the timeout with --timeout).
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, PAY_BIN, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';
import { spawn } from 'node:child_process';
import { until } from '../helpers/wait.js';
import { createServer as createHttpServer } from 'node:http';
import { EMULATOR_HEADER, EMULATOR_NAME } from '../../src/shared/emulator-id.js';

interface Hanging {
  url: string;
  sockets: Set<Socket>;
  /** Connections accepted, and closed (by pay), in order: `open n` / `close n`. */
  events: string[];
  server: Server;
  /** All that was sent to it. */
  received: string;
  /** From now on it answers, as a server that is not a pay emulator (404, then closes). */
  release(): void;
}

const NOT_FOUND = 'HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}';

/** Every hanging server's `open`/`close` events, in the order they came: `open <server> <n>`. */
const log: string[] = [];

async function hanging(name: number): Promise<Hanging> {
  let released = false;
  const h: Hanging = {
    url: '',
    sockets: new Set(),
    events: [],
    server: createServer(),
    received: '',
    release: () => {
      released = true;
      for (const answer of answers.values()) answer();
    },
  };
  const answers = new Map<Socket, () => void>();
  let n = 0;
  h.server.on('connection', (s) => {
    const i = n++;
    h.sockets.add(s);
    h.events.push(`open ${i}`);
    log.push(`open ${name} ${i}`);
    let answered = false;
    answers.set(s, () => {
      if (!answered) s.end(NOT_FOUND);
      answered = true;
    });
    s.on('error', () => undefined);
    s.setEncoding('latin1').on('data', (d: string) => {
      h.received += d;
      if (released) answers.get(s)!();
    });
    s.once('close', () => {
      h.sockets.delete(s);
      answers.delete(s);
      h.events.push(`close ${i}`);
      log.push(`close ${name} ${i}`);
    });
  });
  await new Promise<void>((r) => h.server.listen(0, '127.0.0.1', r));
  h.url = `http://127.0.0.1:${(h.server.address() as AddressInfo).port}/v1/`;
  return h;
}

let right: Emulator;
let wrong: Emulator;
const hangers: Hanging[] = [];
beforeAll(async () => {
  right = await startEmulator({ port: 0 });
  wrong = await startEmulator({ port: 0 });
  registerSecret(right.keys.sandbox.secret, right.keys.live.secret, wrong.keys.sandbox.secret, wrong.keys.live.secret);
  for (let i = 0; i < 4; i++) hangers.push(await hanging(i));
});
/** Servers a test started, closed after all. */
const afterThis: Array<() => void> = [];
afterAll(async () => {
  for (const close of afterThis) close();
  for (const h of hangers) {
    for (const s of h.sockets) s.destroy();
    h.server.close();
  }
  await right?.stop();
  await wrong?.stop();
});

describe('pay doctor asks side by side', () => {
  it('a base URL where nothing answers: the GET and the health question are both open at once', async () => {
    const h = hangers[3]!;
    const env = cleanEnv({ PAY_CONFIG_DIR: tempDir('pay-doc-probes-'), PAY_API_KEY: right.keys.sandbox.secret });
    const child = spawn(process.execPath, [PAY_BIN, 'doctor', '--base-url', h.url, '--max-retries', '0', '--timeout', '600'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const closed = new Promise<number | null>((r) => child.once('close', r));
    let exit: { code: number | null } | undefined;
    void closed.then((code) => (exit = { code }));
    try {
      // Asked in turn, the second would come only after the first's 600 s.
      await until('both of doctor’s requests to be open', () => h.events.filter((e) => e.startsWith('open')).length >= 2, {
        seen: () => h.events.join('\n'),
      });
      expect(h.events).toEqual(['open 0', 'open 1']);
      // Both given up as a timeout would: doctor says the service did not answer, as before.
      for (const s of h.sockets) s.destroy();
      const { code } = await until('doctor to exit', () => exit);
      expect(code).toBe(1);
      expect(out).toMatch(
        /^✗ the service did not accept a request: GET \/v1\/customers failed: .*\n {4}fix: check the base URL and that the service \(or pay emulator start\) is running$/m,
      );
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('a refused key: 3 hanging candidates ahead of the emulator that takes it, all asked together; the line names that emulator', async () => {
    const env = cleanEnv({ PAY_CONFIG_DIR: tempDir('pay-doc-probes-') });
    const login = async (args: string[], key: string) => {
      const r = await runPay(['login', '--with-key', ...args], { env, stdin: key });
      expect(r.code, r.stderr).toBe(0);
    };
    // The profile in use: the right emulator's key at the wrong emulator's URL.
    await login(['--tenant', right.tenantId, '--base-url', wrong.baseUrl, '--set-current'], right.keys.sandbox.secret);
    // Other profiles, in the order they are offered: three hanging servers, then the right emulator.
    for (const [i, h] of hangers.slice(0, 3).entries())
      await login(['-p', `hang${i}`, '--base-url', h.url], `sk_test_${'h'.repeat(31)}${i}`);
    await login(['-p', 'finder', '--base-url', right.baseUrl], right.keys.sandbox.secret);
    // After it, a server posing as a pay emulator (its health answer says so) that would take any key.
    const keysSeen: string[] = [];
    const poser = createHttpServer((req, res) => {
      req.resume();
      if (req.url?.startsWith('/__emulator/health')) {
        res.writeHead(200, { 'content-type': 'application/json', [EMULATOR_HEADER]: '0.1.0' });
        res.end(
          JSON.stringify({
            emulator: EMULATOR_NAME,
            ok: true,
            version: '0.1.0',
            url: '',
            started_at: '',
            uptime_s: 1,
            data_dir: null,
            tenant_id: null,
          }),
        );
        return;
      }
      keysSeen.push(JSON.stringify(req.headers));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[],"has_more":false}');
    });
    afterThis.push(() => {
      poser.close();
      poser.closeAllConnections();
    });
    await new Promise<void>((r) => poser.listen(0, '127.0.0.1', r));
    const poserUrl = `http://127.0.0.1:${(poser.address() as AddressInfo).port}/v1/`;
    await login(['-p', 'poser', '--base-url', poserUrl], `sk_test_${'p'.repeat(32)}`);
    const key = right.keys.sandbox.secret;
    let result: Awaited<ReturnType<typeof runPay>> | undefined;
    const running = runPay(['doctor', '--timeout', '3600'], { env: { ...env, PAY_PROBE_MS: '3600000' }, timeoutMs: 115_000 }).then(
      (r) => (result = r),
    );
    // The hanging candidates asked together: each has a connection open, none closed, doctor not done.
    const asked = (i: number) => log.includes(`open ${i} 0`) && hangers[i]!.received.includes('GET /__emulator/health');
    await until('the three hanging candidates’ health asked at once', () => [0, 1, 2].every(asked), { seen: () => log.join('\n') });
    expect(log.filter((e) => /^close [012] /.test(e))).toEqual([]);
    expect(result).toBeUndefined();
    // They answer only now, as servers that are not pay emulators: doctor goes on to the emulator that takes the key.
    for (const h of hangers.slice(0, 3)) h.release();
    const r = await running;
    expect(r.code, r.stderr).toBe(1);
    const esc = (s: string) => s.replace(/[./]/g, (c) => `\\${c}`);
    expect(r.stdout).toMatch(
      new RegExp(
        `^✗ the pay emulator \\S+ at ${esc(wrong.baseUrl)} does not know the key from profile "default" \\(sandbox\\) \\(401\\): the emulator at ${esc(right.baseUrl)} takes it; the base URL is likely wrong, not the key$`,
        'm',
      ),
    );
    // No key after the emulator that took it (the poser would have taken it), none to a server that never said it is a pay emulator.
    expect(keysSeen).toEqual([]);
    for (const h of hangers.slice(0, 3)) {
      expect(h.received).toMatch(/GET \/__emulator\/health/);
      expect(h.received.includes(key)).toBe(false);
    }
  });
});
