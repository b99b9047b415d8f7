// Outside attack: `pay webhooks listen --forward-to` in front of an app that misbehaves (answers
// 500, never answers, never even reads, answers headers and then nothing, sends an endless body
// with a 200 or a 500, drops the connection) must still stop at once on each stop signal (SIGINT,
// SIGTERM, SIGHUP: exit 0, as `pay webhooks listen --help` documents for a stop), give the
// emulator's webhook URL back, and never wait out the 10 s forward timeout.
//
//  - e2e: the built pay as a child process against an in-process emulator; each row of the table
//    (misbehaviour × signal) starts a listen, creates a customer (one customer.created delivery),
//    waits until the app holds the forwarded request, sends the signal, and waits for the exit.
//  - module: startListener with a forward timeout of an hour and every misbehaviour: once the app
//    holds the request, abortForwards() and close() end it, and the app sees its connection
//    closed (an endless body is not read on): without the cut-off this would wait an hour.
//
// No sleeps: every wait is for the event itself (test/helpers/wait.ts).
import { createHmac } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListener } from '../../src/commands/webhooks/listen.js';
import { bufferIOStreams } from '../../src/io/iostreams.js';
import { customerBody, startWorld, type World } from '../e2e/groups/helpers.js';
import { until } from '../helpers/wait.js';
import { record, spawnPay, type Counts } from './helpers.js';

/** What the app does with a forwarded delivery. */
const MISBEHAVIOURS = [
  'answers-500',
  'never-answers',
  'never-reads',
  'headers-then-nothing',
  'endless-200',
  'endless-500',
  'drops-connection',
] as const;
type Misbehaviour = (typeof MISBEHAVIOURS)[number];
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Whether the app holds the forward open (so the stop must cut it off). */
const HOLDS: ReadonlySet<Misbehaviour> = new Set(['never-answers', 'never-reads']);

const tally: Counts & { extra: Record<string, number> } = {
  tried: 0,
  passed: 0,
  lost: 0,
  duplicated: 0,
  leaked: 0,
  extra: { 'e2e runs': 0, 'module runs': 0, 'cut off': 0, 'app connections closed': 0 },
};
const started = Date.now();

/** One request the app got: its path, and whether its connection has closed since. */
interface Held {
  path: string;
  closed: boolean;
}

/**
 * The app: an HTTP server whose path's first segment names the misbehaviour, and a bare TCP
 * server for `never-reads` (accepts, then neither reads nor answers).
 */
interface App {
  url(m: Misbehaviour, tag: string): string;
  got: Held[];
  /** The bare TCP server's connections start reading (and so see their end). */
  readAll(): void;
  close(): Promise<void>;
}

async function startApp(): Promise<App> {
  const got: Held[] = [];
  const sockets = new Set<Socket>();
  const endless = (res: ServerResponse, status: number) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    const chunk = 'x'.repeat(16 * 1024);
    // As fast as the reader takes it, for as long as it reads: ends only when the connection does.
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    pump();
  };
  const http: Server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const held: Held = { path: req.url ?? '', closed: false };
    res.once('close', () => (held.closed = true));
    got.push(held);
    const m = (req.url ?? '').split('/')[1] as Misbehaviour;
    req.resume();
    if (m === 'answers-500') res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    else if (m === 'headers-then-nothing') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
    } else if (m === 'endless-200') endless(res, 200);
    else if (m === 'endless-500') endless(res, 500);
    else if (m === 'drops-connection') req.socket.destroy();
    // never-answers: nothing.
  });
  http.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  const rawSockets = new Set<Socket>();
  const raw: NetServer = createNetServer({ pauseOnConnect: true }, (s) => {
    const held: Held = { path: '', closed: false };
    got.push(held);
    sockets.add(s);
    rawSockets.add(s);
    s.once('close', () => {
      held.closed = true;
      sockets.delete(s);
      rawSockets.delete(s);
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  const httpPort = (http.address() as AddressInfo).port;
  const rawPort = (raw.address() as AddressInfo).port;
  return {
    got,
    url: (m, tag) => `http://127.0.0.1:${m === 'never-reads' ? rawPort : httpPort}/${m}/${tag}`,
    readAll: () => {
      for (const s of rawSockets) s.resume();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise((r) => http.close(r)), new Promise((r) => raw.close(r))]);
    },
  };
}

let w: World;
let app: App;

beforeAll(async () => {
  w = await startWorld();
  app = await startApp();
});
afterAll(async () => {
  await app?.close();
  await w?.stop();
  if (tally.tried > 0)
    await record(
      'attack.listen-stop',
      'webhooks listen --forward-to to an app that answers 500, never answers or reads, sends an endless body or drops the connection: each stop signal ends it at once, URL given back',
      tally,
      started,
    );
});

const webhookUrl = async (): Promise<string | null> =>
  ((await (await fetch(`${w.emu.url}/__emulator/webhook-url`)).json()) as { url: string | null }).url;

describe('attack: webhooks listen stops at once whatever the forward target does', () => {
  const rows = MISBEHAVIOURS.flatMap((m) => SIGNALS.map((signal) => ({ m, signal })));

  it.each(rows)('e2e: app $m, then $signal: exit 0, the URL given back, no forward waited out', async ({ m, signal }) => {
    tally.tried++;
    tally.extra['e2e runs']!++;
    const tag = `e2e-${signal}-${tally.tried}`;
    const before = app.got.length;
    // This row's forwards (the emulator also retries earlier rows' failed deliveries, which come here too).
    // never-reads: the bare TCP server, where the listen's start-up probe (a connect, nothing sent) comes first.
    const forwards = () => app.got.slice(before).filter((g) => (m === 'never-reads' ? g.path === '' : g.path === `/${m}/${tag}`)).length;
    const p = spawnPay(['webhooks', 'listen', '--port', '0', '--forward-to', app.url(m, tag)], w.env);
    let exit: { code: number | null } | undefined;
    void p.closed.then((code) => (exit = { code }));
    const seen = () => `stdout:\n${p.out()}\nstderr:\n${p.err()}`;
    try {
      await until('listen to be ready', () => p.err().includes('(Ctrl-C to stop)\n') && p.err().includes('Registered '), { seen });
      expect(await webhookUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      await w.api('POST', 'customers', customerBody());
      await until('the app to have a forwarded delivery', () => forwards() >= (m === 'never-reads' ? 2 : 1), { seen });
      p.child.kill(signal);
      const { code } = await until('listen to exit', () => exit, { seen });
      expect({ code, signal: p.child.signalCode }).toEqual({ code: 0, signal: null });
      expect(p.err()).toMatch(/Gave the emulator's Sandbox webhook URL back: none\nStopped[.;]/);
      expect(await webhookUrl()).toBeNull();
      // Never the forward timeout: a held forward is cut off by the stop, not waited out.
      expect(p.out()).not.toMatch(/timed out/);
      if (HOLDS.has(m)) {
        expect(p.err()).toMatch(/Stopped; \d+ deliver(y|ies) being forwarded (was|were) cut off/);
        tally.extra['cut off']!++;
      }
      expect(p.err()).not.toMatch(/\n\s+at /);
      tally.passed++;
    } finally {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    }
  });
});

// ------------------------------------------------------------------ module

const SECRET_BYTES = Buffer.alloc(24, 7);
const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;

function signed(id: string, body: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = createHmac('sha256', SECRET_BYTES).update(`${id}.${ts}.${body}`).digest('base64');
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` };
}

describe('attack: startListener cuts off a held forward (timeout one hour)', () => {
  it.each(MISBEHAVIOURS.map((m) => ({ m })))('module: app $m: abortForwards() and close() end it, the sender answered', async ({ m }) => {
    tally.tried++;
    tally.extra['module runs']!++;
    const tag = `mod-${tally.tried}`;
    const heldBefore = app.got.length;
    const io = bufferIOStreams();
    const listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      secret: SECRET,
      forwardTo: new URL(app.url(m, tag)),
      json: false,
      line: () => undefined,
      io,
      forwardTimeoutMs: 3_600_000,
    });
    try {
      const id = `msg_${tag}`;
      const body = JSON.stringify({ id: 'evt_1', type: 'customer.created', data: { object: {} } });
      const answer = fetch(listener.url, { method: 'POST', headers: signed(id, body), body }).then(async (r) => ({
        status: r.status,
        text: await r.text(),
      }));
      const held = await until('the app to have the forwarded delivery', () => app.got.slice(heldBefore)[0], {
        seen: () => io.stderrText() + io.stdoutText(),
      });
      const cut = listener.abortForwards();
      const { status } = await answer;
      const said = io.stdoutText() + io.stderrText();
      await listener.close();
      // What the sender heard: the app's own error status, or 502 for no answer.
      // (The app's status only when its answer reached the listen before the cut-off.)
      const expected: Record<Misbehaviour, number[]> = {
        'answers-500': [500, 502],
        'never-answers': [502],
        'never-reads': [502],
        'headers-then-nothing': [200, 502],
        'endless-200': [200, 502],
        'endless-500': [500, 502],
        'drops-connection': [502],
      };
      expect({ status, said }).toEqual({ status: expect.toBeOneOf(expected[m]), said: expect.any(String) });
      if (HOLDS.has(m)) {
        expect(cut).toBe(1);
        expect(io.stdoutText()).toMatch(/<-- \[error\] .*cut off: the listen is stopping/);
        tally.extra['cut off']!++;
      }
      // The app's side of the connection is closed by pay: nothing of an endless body is read on.
      // (never-reads sees the end of its connection only once it reads: it starts to now.)
      app.readAll();
      await until('the app to see its connection closed', () => held.closed, { seen: () => io.stdoutText() });
      tally.extra['app connections closed']!++;
      expect(io.stdoutText()).not.toMatch(/timed out/);
      tally.passed++;
    } finally {
      listener.abortForwards();
      await listener.close();
    }
  });
});
