// Which other emulator takes a refused key (src/commands/auth/service.ts keyOwner / firstTaker, used
// by `pay login` and `pay doctor` after a 401): the candidates are asked all at once, and the answer
// is the one asking them in turn would give (the first in order of preference that takes the key).
// Fake servers on loopback: emulators that take the key, emulators that answer 401, servers that
// are not emulators, ports where nothing listens, servers that hang, and emulators that take the
// key only once the test releases them (a slow preferred one must still win over a quick later one).
// Structure, not wall time: every probe starts before any answer is given (the servers hold their
// answers until all have been asked), and the probes given up have their connections closed.
import fc from 'fast-check';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { firstTaker, keyOwner } from '../../../src/commands/auth/service.js';
import { resolveSettings } from '../../../src/config/settings.js';
import { ConfigStore } from '../../../src/config/store.js';
import { EMULATOR_HEADER, EMULATOR_NAME } from '../../../src/shared/emulator-id.js';
import { tempDir } from '../../helpers/run-pay.js';
import { until } from '../../helpers/wait.js';

const KEY = 'sk_test_keyownerkeyownerkeyowner1';
const KINDS = ['takes', 'refuses', 'not-emulator', 'closed', 'hangs', 'slow-takes'] as const;
type Kind = (typeof KINDS)[number];

interface Fake {
  kind: Kind;
  url: string;
  /** Requests (for `hangs`: connections) that arrived. */
  asked: number;
  healthAnswered: number;
  keyAnswered: number;
  /** Connections open now. */
  open: number;
  /** Ends the hold: a `slow-takes` answers, a `hangs` drops its connections (as a timeout would end them). */
  release(): void;
  close(): Promise<void>;
}

/** Answers held until every probe has been asked. */
let gate: { open: boolean; waiting: Array<() => void> } = { open: false, waiting: [] };
const fakes: Fake[] = [];

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
  gate = { open: false, waiting: [] };
});

function openGate(): void {
  gate.open = true;
  for (const w of gate.waiting.splice(0)) w();
}

async function startFake(kind: Kind, events: string[], index: number): Promise<Fake> {
  const sockets = new Set<Socket>();
  let released = false;
  const onRelease: Array<() => void> = [];
  const track = (s: Socket) => {
    sockets.add(s);
    fake.open++;
    events.push(`open ${index}`);
    s.once('close', () => {
      sockets.delete(s);
      fake.open--;
      events.push(`close ${index}`);
    });
  };
  let server: Server | NetServer;
  if (kind === 'closed') {
    // A port nothing listens on: taken, then let go.
    const s = createNetServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const fake: Fake = {
      kind,
      url: `http://127.0.0.1:${port}/v1/`,
      asked: 0,
      healthAnswered: 0,
      keyAnswered: 0,
      open: 0,
      release: () => undefined,
      close: async () => undefined,
    };
    fakes.push(fake);
    return fake;
  }
  if (kind === 'hangs') {
    server = createNetServer((s) => {
      track(s);
      fake.asked++;
      s.resume(); // reads, never answers
    });
  } else {
    server = createHttpServer((req, res) => {
      fake.asked++;
      const path = req.url ?? '';
      req.resume();
      const answer = () => {
        if (path.startsWith('/__emulator/health')) {
          fake.healthAnswered++;
          if (kind === 'not-emulator') return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
          const version = '0.1.0';
          res.writeHead(200, { 'content-type': 'application/json', [EMULATOR_HEADER]: version });
          return res.end(
            JSON.stringify({
              emulator: EMULATOR_NAME,
              ok: true,
              version,
              url: fake.url,
              started_at: '',
              uptime_s: 1,
              data_dir: null,
              tenant_id: null,
            }),
          );
        }
        fake.keyAnswered++;
        if (path.startsWith('/v1/customers') && kind !== 'refuses' && req.headers['api-key'] === KEY) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ object: 'list', data: [], has_more: false }));
        }
        res.writeHead(401, { 'content-type': 'application/problem+json' });
        res.end(JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, code: 'unauthorized', detail: 'unknown key' }));
      };
      // The first answer of each waits for the gate (every probe asked); a slow one's for its release too.
      if (kind === 'slow-takes' && !released) onRelease.push(answer);
      else if (!gate.open && path.startsWith('/__emulator/health')) gate.waiting.push(answer);
      else answer();
    });
    server.on('connection', track);
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const fake: Fake = {
    kind,
    url: `http://127.0.0.1:${port}/v1/`,
    asked: 0,
    healthAnswered: 0,
    keyAnswered: 0,
    open: 0,
    release: () => {
      released = true;
      for (const a of onRelease.splice(0)) a();
      if (kind === 'hangs') for (const s of sockets) s.destroy();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
  fakes.push(fake);
  return fake;
}

/** Asking in turn: the first that is an emulator taking the key. */
const model = (fs: readonly Fake[]): string | undefined => fs.find((f) => f.kind === 'takes' || f.kind === 'slow-takes')?.url;

/** A probe that ends without the test's help is over (its server answered what it will ever answer). */
const quickDone = (f: Fake): boolean =>
  f.kind === 'closed' ||
  (f.kind === 'not-emulator' && f.healthAnswered > 0) ||
  ((f.kind === 'takes' || f.kind === 'refuses') && f.keyAnswered > 0);

describe('keyOwner: every candidate asked at once, the answer of asking in turn', () => {
  it('generated candidate lists (takes, 401, not an emulator, nothing listening, hangs, slow but preferred)', async () => {
    let runs = 0;
    let givenUp = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...KINDS), { minLength: 1, maxLength: 8 }), async (kinds) => {
        runs++;
        const events: string[] = [];
        const fs = await Promise.all(kinds.map((k, i) => startFake(k, events, i)));
        try {
          let settled: { url: string | undefined } | undefined;
          // A probe time far above the test's: nothing here ends by a timeout.
          const asking = firstTaker(
            fs.map((f) => f.url),
            KEY,
            600_000,
          ).then((url) => (settled = { url }));
          const listening = fs.filter((f) => f.kind !== 'closed');
          // All started before any ended: no server answers until every one has been asked.
          await until('every candidate to be asked', () => listening.every((f) => f.asked > 0), {
            seen: () => fs.map((f) => `${f.kind}: asked ${f.asked}`).join('\n'),
          });
          expect(events.filter((e) => e.startsWith('close'))).toEqual([]);
          openGate();
          // Asking in turn would stop at a quick taker before any held one: then the held ones are given up, never released.
          const held = (f: Fake) => f.kind === 'hangs' || f.kind === 'slow-takes';
          const quickAnswer = fs.find((f) => f.kind === 'takes' || held(f))?.kind === 'takes';
          if (quickAnswer) {
            await until('the answer, the held ones still held', () => settled);
            givenUp += fs.filter(held).length;
          } else {
            await until('every quick probe over', () => fs.every((f) => quickDone(f) || held(f)));
            // The answer waits for a held one (preferred, or the last word): not given yet.
            expect(settled).toBeUndefined();
            for (const f of fs) f.release();
          }
          await asking;
          expect(settled!.url).toBe(model(fs));
          // Every probe given up (a hanging one never released) has its connection closed by pay.
          await until('every connection closed', () => fs.every((f) => f.open === 0), {
            seen: () => fs.map((f) => `${f.kind}: open ${f.open}`).join('\n'),
          });
        } finally {
          await Promise.all(fakes.splice(0).map((f) => f.close()));
          gate = { open: false, waiting: [] };
        }
      }),
      { numRuns: 40 },
    );
    expect(runs).toBe(40);
    expect(givenUp).toBeGreaterThan(0);
  });

  it('through the profiles, with the real probe time: 3 hanging candidates first, then a 401, then the one that takes the key', async () => {
    gate.open = true;
    const events: string[] = [];
    const order: Kind[] = ['hangs', 'hangs', 'hangs', 'refuses', 'takes', 'hangs'];
    const fs: Fake[] = [];
    for (const [i, k] of order.entries()) fs.push(await startFake(k, events, i));
    const store = new ConfigStore(tempDir('pay-key-owner-'));
    const refusing = await startFake('refuses', events, 99);
    await store.saveProfile('default', { sandbox: { secret_key: KEY, base_url: refusing.url } });
    // Saved in order: the other profiles are offered in the config file's order.
    for (const [i, f] of fs.entries()) await store.saveProfile(`p${i}`, { sandbox: { base_url: f.url } });
    const s = resolveSettings({}, {}, store);
    const owner = await keyOwner(store, 'default', 'sandbox', KEY, refusing.url, s);
    expect(owner).toBe(fs[4]!.url);
    // The hanging ones were asked together: each connection opened before any was closed (by its time limit).
    const hanging = [0, 1, 2];
    const at = (e: string) => events.indexOf(e);
    for (const i of hanging)
      for (const j of hanging) expect(at(`open ${i}`)).toBeLessThan(at(`close ${j}`) === -1 ? Infinity : at(`close ${j}`));
    // The one after the answer is given up, not waited for.
    await until('every connection closed', () => fs.every((f) => f.open === 0));
  });
});
