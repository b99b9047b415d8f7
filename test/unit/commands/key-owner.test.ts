// Which other emulator takes a refused key (src/commands/auth/service.ts keyOwner / firstTaker, used
// by `pay login` and `pay doctor` after a 401): the candidates' health (no key) is asked all at once;
// the key goes only to those that answered as a pay emulator, one at a time in order of preference,
// and to none after the one that takes it; the answer is the one asking them in turn would give.
// Fake servers on loopback: emulators that take the key, emulators that answer 401, servers that
// are not emulators, ports where nothing listens, servers that hang, and emulators that take the
// key only once the test releases them (a slow preferred one must still win over a quick later one).
// Structure, not wall time: every health probe starts before any answer is given (the servers hold
// their answers until all have been asked), every request carrying the key is logged (which server,
// in what order, how many at once), nothing ends by a time limit (the probe limit is far above the
// test's), and the probes given up have their connections closed by pay.
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
  /** Requests (for `hangs`: bytes) that carried the key. */
  keyed: number;
  /** Ends the hold: a `slow-takes` answers, a `hangs` drops its connections (as a timeout would end them). */
  release(): void;
  close(): Promise<void>;
}

/** Answers held until every probe has been asked. */
let gate: { open: boolean; waiting: Array<() => void> } = { open: false, waiting: [] };
const fakes: Fake[] = [];
/** Every request that carried the key, in the order they came: the index of the server asked. */
let keyLog: number[] = [];
/** Requests with the key asked and not yet answered, now and at most. */
let keyOpen = { now: 0, most: 0 };

function reset(): void {
  gate = { open: false, waiting: [] };
  keyLog = [];
  keyOpen = { now: 0, most: 0 };
}

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
  reset();
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
      keyed: 0,
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
      let seen = '';
      // Reads, never answers; a request that carries the key is logged.
      s.setEncoding('latin1').on('data', (d: string) => {
        seen = (seen + d).slice(-4096);
        if (seen.includes(KEY)) {
          fake.keyed++;
          keyLog.push(index);
          seen = '';
        }
      });
    });
  } else {
    server = createHttpServer((req, res) => {
      fake.asked++;
      const path = req.url ?? '';
      req.resume();
      const withKey = Object.values(req.headers).some((v) => (Array.isArray(v) ? v.join() : (v ?? '')).includes(KEY));
      if (withKey) {
        fake.keyed++;
        keyLog.push(index);
        keyOpen.most = Math.max(keyOpen.most, ++keyOpen.now);
      }
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
        if (withKey) keyOpen.now--;
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
    keyed: 0,
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

const EMULATORS: readonly Kind[] = ['takes', 'refuses', 'slow-takes'];
const held = (f: Fake): boolean => f.kind === 'hangs' || f.kind === 'slow-takes';

/**
 * Asking in turn: which servers get the key (the emulators, in order, up to and with the first that
 * takes it), the answer, and the first held server the walk meets before it has an answer.
 */
function model(fs: readonly Fake[]): { keyed: number[]; url: string | undefined; blockedAt: number | undefined } {
  const keyed: number[] = [];
  let blockedAt: number | undefined;
  for (const [i, f] of fs.entries()) {
    if (held(f)) blockedAt ??= i;
    if (!EMULATORS.includes(f.kind)) continue;
    keyed.push(i);
    if (f.kind !== 'refuses') return { keyed, url: f.url, blockedAt };
  }
  return { keyed, url: undefined, blockedAt };
}

describe('keyOwner: health asked of every candidate at once, the key in turn, the answer of asking in turn', () => {
  it('generated candidate lists (takes, 401, not an emulator, nothing listening, hangs, slow but preferred)', async () => {
    let runs = 0;
    let givenUp = 0;
    let spared = 0;
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
          // All health probes started before any ended: no server answers until every one has been asked.
          await until('every candidate to be asked', () => listening.every((f) => f.asked > 0), {
            seen: () => fs.map((f) => `${f.kind}: asked ${f.asked}`).join('\n'),
          });
          expect(events.filter((e) => e.startsWith('close'))).toEqual([]);
          // No key before a server has said it is a pay emulator (none has answered yet).
          expect(keyLog).toEqual([]);
          openGate();
          const want = model(fs);
          if (want.blockedAt === undefined) {
            // Nothing held in the way: the answer comes without the test's help; the held ones after it are given up, never released.
            await until('the answer, the held ones still held', () => settled);
            givenUp += fs.filter(held).length;
          } else {
            // The walk waits at a held server: every quick answer before it in, the key no further.
            const h = want.blockedAt;
            await until('every quick probe over', () =>
              fs.every(
                (f, i) => held(f) || f.kind === 'closed' || (i < h && f.kind !== 'not-emulator' ? f.keyAnswered > 0 : f.healthAnswered > 0),
              ),
            );
            expect(settled).toBeUndefined();
            expect(keyLog).toEqual(want.keyed.filter((i) => i < h));
            for (const f of fs) f.release();
          }
          await asking;
          expect(settled!.url).toBe(want.url);
          // The key went to the emulators in order, one at a time, and to none after the one that took it.
          expect(keyLog).toEqual(want.keyed);
          expect(keyOpen.most).toBeLessThanOrEqual(1);
          spared += fs.filter((f, i) => EMULATORS.includes(f.kind) && !want.keyed.includes(i)).length;
          // Every probe given up (a hanging one never released) has its connection closed by pay.
          await until('every connection closed', () => fs.every((f) => f.open === 0), {
            seen: () => fs.map((f) => `${f.kind}: open ${f.open}`).join('\n'),
          });
        } finally {
          await Promise.all(fakes.splice(0).map((f) => f.close()));
          reset();
        }
      }),
      { numRuns: 40, seed: 2611 },
    );
    expect(runs).toBe(40);
    expect(givenUp).toBeGreaterThan(0);
    // Emulators after the one that took the key (or behind one): each would have had the key if all were asked at once.
    expect(spared).toBeGreaterThan(0);
  });

  it('through the profiles: 3 hanging candidates first, then a 401, then the one that takes the key, a hanging one and another that would take it', async () => {
    gate.open = true;
    const events: string[] = [];
    const order: Kind[] = ['hangs', 'hangs', 'hangs', 'refuses', 'takes', 'hangs', 'takes'];
    const fs: Fake[] = [];
    for (const [i, k] of order.entries()) fs.push(await startFake(k, events, i));
    const store = new ConfigStore(tempDir('pay-key-owner-'));
    const refusing = await startFake('refuses', events, 99);
    await store.saveProfile('default', { sandbox: { secret_key: KEY, base_url: refusing.url } });
    // Saved in order: the other profiles are offered in the config file's order.
    for (const [i, f] of fs.entries()) await store.saveProfile(`p${i}`, { sandbox: { base_url: f.url } });
    // A probe limit far above the test's (as PAY_PROBE_MS sets it): a hanging server ends only when the test lets it.
    const s = resolveSettings({ timeout: '3600' }, {}, store);
    let settled: { owner: string | undefined; keyLog: number[] } | undefined;
    void keyOwner(store, 'default', 'sandbox', KEY, refusing.url, s, 3_600_000).then((owner) => (settled = { owner, keyLog: [...keyLog] }));
    // The health of all asked together: the three hanging ones (and the one after the answer) hold their connections open at once.
    await until('every candidate to be asked', () => fs.every((f) => f.asked > 0), { seen: () => events.join('\n') });
    for (const i of [3, 4, 6]) await until(`the health of ${i} answered`, () => fs[i]!.healthAnswered > 0);
    expect(events.filter((e) => e.startsWith('close'))).toEqual([]);
    // The key waits for the hanging ones ahead of it in order of preference.
    expect(keyLog).toEqual([]);
    expect(settled).toBeUndefined();
    for (const i of [0, 1, 2]) fs[i]!.release();
    // The one after the answer is given up, not waited for: keyOwner answers while it still hangs (never
    // released, its probe limit an hour; a version that waited for it would never answer here).
    const got = await until('keyOwner to answer while the one after the answer still hangs', () => settled);
    expect(got.owner).toBe(fs[4]!.url);
    // The key went to the 401 and the taker, in that order; not to the one after, though it would take it.
    expect(got.keyLog).toEqual([3, 4]);
    expect(fs[6]!.keyed + fs[5]!.keyed + refusing.keyed).toBe(0);
    // And pay closes its connection (nothing else would).
    await until('the given-up connection closed by pay', () => fs[5]!.open === 0, { seen: () => events.join('\n') });
    await until('every connection closed', () => fs.every((f) => f.open === 0));
  });
});
