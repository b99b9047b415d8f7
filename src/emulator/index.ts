// The local emulator: a stateful, persistent, contract-true stand-in for the payments service
// (src/api/DESIGN.md). In-process API for tests and the demo; `pay emulator start` wraps it.
//
// Money gets into an account through a collection: POST /collections credits the account when
// it succeeds (settleAfterMs later), e.g. {account_id, amount: "1000.00", currency: "USD", method: "card"}.
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { App, type ReceivedRequest } from './app.js';
import { isRate, type RateLimit } from './faults.js';
import { lockDir, lockLost } from './lock.js';
import { prepareDataDir } from './data-dir.js';
import type { JournalOptions } from './journal.js';
import { createApiServer } from './server.js';
import { loadIsoTables } from '../shared/iso-3166.js';
import { checkWebhookTarget } from '../shared/validate.js';
import { parseOrigin } from './web-guard.js';

export type { ReceivedRequest } from './app.js';
// What `pay emulator start` parses its flags with: the emulator's one entry point is this file.
export { isRate, parseLatency, parseRateLimit } from './faults.js';
export { parseOrigin } from './web-guard.js';

export interface EmulatorOptions {
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Persist state here (journal + snapshots, keys.json). Without it, state is in memory only. */
  dataDir?: string;
  /**
   * Files in the data dir the emulator cannot account for (an unknown name or generation, a
   * journal without its snapshot, a link or fifo where a journal goes, a damaged snapshot) refuse
   * the start, naming them; with this they are moved into set-aside-<UTC time>/ there instead
   * (logged), and it starts from what remains. Nothing is deleted either way.
   */
  setAsideUnknown?: boolean;
  /** The Sandbox webhook URL (each mode has its own; the Live one is set through the admin route, ?mode=live). With a data dir it is kept for the next start (as every URL set). */
  webhookUrl?: string;
  failRate?: number;
  latencyMs?: [number, number];
  resetRate?: number;
  rateLimit?: RateLimit;
  /** Pending transfers, collections, KYC reviews and physical cards settle this long after they start (default 1000). */
  settleAfterMs?: number;
  /** Time source (ms); the admin clock offset is added to it. */
  now?: () => number;
  /** Scales the webhook retry schedule (5 s, 30 s, 2 min, 10 min); tests use e.g. 0.01. Default 1. */
  webhookRetryScale?: number;
  /** Where internal errors are reported (default: nowhere). */
  log?: (line: string) => void;
  /** Journal tuning, for tests (see journal.ts JournalOptions). */
  journal?: JournalOptions;
  /** Origins whose requests (with that Origin header) are served; any other Origin is refused (web-guard.ts). */
  allowOrigins?: string[];
}

export interface Emulator {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + '/v1/' */
  baseUrl: string;
  port: number;
  tenantId: string;
  keys: { sandbox: { secret: string; public: string }; live: { secret: string; public: string } };
  /** Each mode's webhook URL at start (with a data dir, the last run's, unless webhookUrl replaced the Sandbox one). */
  webhookUrls: { sandbox: string | undefined; live: string | undefined };
  /** The Sandbox webhook secret (webhookSecrets has both modes). */
  webhookSecret: string;
  webhookSecrets: { sandbox: string; live: string };
  /** The last API requests received, oldest first (at most 1000 and 8 MiB; request-log.ts). Headers as received. */
  received: ReceivedRequest[];
  admin: {
    reset(): Promise<void>;
    /**
     * Moves the clock and runs what is due up to the new time in time order (app.ts advance).
     * Without a webhook URL it is all done when this returns; with one, what waits on deliveries
     * goes on in the background: `advanced()` resolves when it is done.
     */
    advance(seconds: number): void;
    advanced(): Promise<void>;
    setFaults(f: Partial<{ failRate: number; latencyMs: [number, number] | null; resetRate: number; rateLimit: RateLimit | null }>): void;
    /** The mode's webhook URL (default sandbox; each mode has its own). */
    setWebhookUrl(url: string | null, mode?: 'sandbox' | 'live'): void;
  };
  stop(): Promise<void>;
}

export const DEFAULT_PORT = 8787;

function checkOptions(o: EmulatorOptions): void {
  const fail = (m: string): never => {
    throw new RangeError(m);
  };
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535)) fail('port must be 0-65535');
  for (const k of ['failRate', 'resetRate'] as const) if (o[k] !== undefined && !isRate(o[k])) fail(`${k} must be from 0 to 1`);
  if (o.latencyMs && !(o.latencyMs[0] >= 0 && o.latencyMs[0] <= o.latencyMs[1])) fail('latencyMs must be [min, max] with 0 <= min <= max');
  if (o.rateLimit && !(o.rateLimit.perSecond > 0 && o.rateLimit.burst >= 1)) fail('rateLimit needs perSecond > 0 and burst >= 1');
  if (o.settleAfterMs !== undefined && !(Number.isFinite(o.settleAfterMs) && o.settleAfterMs >= 0)) fail('settleAfterMs must be >= 0');
  if (o.webhookUrl !== undefined && checkWebhookTarget(o.webhookUrl)) fail(`webhookUrl ${checkWebhookTarget(o.webhookUrl)!}`);
  for (const origin of o.allowOrigins ?? [])
    if (parseOrigin(origin) === undefined) fail(`allowOrigins: ${origin} is not an origin like http://localhost:3000`);
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  checkOptions(opts);
  // Addresses' states are checked against ISO 3166-2 (resources/customers.ts).
  await loadIsoTables();
  const host = opts.host ?? '127.0.0.1';
  // A port already in use is refused before anything is made in a data dir (the dir, its lock,
  // keys.json, a journal): bound once here and let go. Another process taking the port in between
  // still fails the real listen below, as before.
  if (opts.dataDir !== undefined && (opts.port ?? DEFAULT_PORT) !== 0) {
    const probe = createNetServer();
    await listen(probe, opts.port ?? DEFAULT_PORT, host);
    await new Promise((r) => probe.close(r));
  }
  const release = opts.dataDir ? lockDir(opts.dataDir) : () => {};
  let app: App;
  try {
    // Before anything is created in it (keys.json): judged, and refused or set aside (data-dir.ts).
    if (opts.dataDir) prepareDataDir(opts.dataDir, { setAsideUnknown: opts.setAsideUnknown, log: opts.log });
    app = new App({
      dataDir: opts.dataDir,
      settleAfterMs: opts.settleAfterMs ?? 1000,
      webhookRetryScale: opts.webhookRetryScale ?? 1,
      now: opts.now,
      log: opts.log ?? (() => {}),
      journal: opts.journal,
      setAsideUnknown: opts.setAsideUnknown,
    });
    app.faults.set({
      failRate: opts.failRate ?? 0,
      resetRate: opts.resetRate ?? 0,
      latencyMs: opts.latencyMs ?? null,
      rateLimit: opts.rateLimit ?? null,
    });
    app.journal.log = opts.log;
    app.journal.lockLost = () => lockLost(release);
    app.open();
  } catch (err) {
    release();
    throw err;
  }

  const server = createApiServer(app, { listenHost: host, allowOrigins: opts.allowOrigins?.map((o) => parseOrigin(o)!) });
  try {
    await listen(server, opts.port ?? DEFAULT_PORT, host);
  } catch (err) {
    app.due.stop();
    await app.journal.close();
    release();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${port}`;
  app.url = url;
  app.startedAt = Date.now();
  if (opts.webhookUrl !== undefined && app.isSelf(opts.webhookUrl)) {
    // Known only now (port 0): deliveries to itself would act on it (POST /__emulator/reset) or loop.
    app.due.stop();
    await new Promise((r) => server.close(r));
    await app.journal.close();
    release();
    throw new RangeError(`webhookUrl ${opts.webhookUrl} is the emulator's own address`);
  }
  // The URLs (and listens' claims) the last run on this data dir left, then --webhook-url over the
  // Sandbox one (set by hand: it ends the Sandbox claims). Only now, the address known: a saved URL
  // naming this emulator is dropped. Until here no URL was set, so nothing was delivered.
  app.events.restore((u) => app.isSelf(u));
  if (opts.webhookUrl !== undefined) app.events.setUrl(opts.webhookUrl, 'sandbox');
  // Events a previous run (same data dir) made while no URL was set go out now that one is.
  app.events.deliverPending();
  const id = app.identity;

  let stopping: Promise<void> | undefined;
  /** The last in-process advance (admin.advanced). */
  let last: Promise<void> = Promise.resolve();
  return {
    url,
    baseUrl: `${url}/v1/`,
    port,
    tenantId: id.tenant_id,
    keys: { sandbox: { secret: id.sandbox.secret, public: id.sandbox.public }, live: { secret: id.live.secret, public: id.live.public } },
    webhookUrls: { sandbox: app.events.urlOf('sandbox'), live: app.events.urlOf('live') },
    webhookSecret: id.sandbox.webhook_secret,
    webhookSecrets: { sandbox: id.sandbox.webhook_secret, live: id.live.webhook_secret },
    received: app.received,
    admin: {
      reset: () => app.reset(),
      advance: (seconds) => {
        last = app.advance(seconds).then(
          () => undefined,
          (err: unknown) => app.fault(err),
        );
      },
      advanced: () => last,
      setFaults: (f) => app.faults.set(f),
      setWebhookUrl: (u, mode = 'sandbox') => app.events.setUrl(u ?? undefined, mode),
    },
    stop: () =>
      (stopping ??= (async () => {
        app.due.stop();
        app.events.stop();
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeAllConnections();
        await closed;
        await app.journal.close();
        release();
      })()),
  };
}

function listen(server: NetServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(err.code === 'EADDRINUSE' ? Object.assign(new Error(`port ${port} on ${host} is already in use`), { code: err.code }) : err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}
