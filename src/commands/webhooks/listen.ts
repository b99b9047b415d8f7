// pay webhooks listen: a local receiver for deliveries. Verifies each with the webhook secret
// (constant time, 5-minute tolerance), prints one line per delivery (`--> type [id]`, marked as a
// repeat when the webhook-id came before: REPEAT_WINDOW_SECONDS, at most MAX_REMEMBERED_IDS
// remembered), forwards every delivery (retries and resends included; --skip-duplicates
// acknowledges a repeat of an accepted one instead) with a `<-- [status]` line, and stops cleanly
// on SIGINT/SIGTERM (exit 0), heard from before it registers. Against the emulator (the same detection as `pay emulator …`) it
// takes the emulator's webhook URL on start (events still pending come now) and gives it back on
// exit, only if still its own (src/emulator/events.ts takeUrl/releaseUrl). Every text line quotes
// the sender's data escaped (src/io/escape.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { EmulatorAdmin, EmulatorInfo } from '../../api/emulator-admin.js';
import { isLoopbackHost } from '../../config/settings.js';
import { escapeText } from '../../io/escape.js';
import type { IOStreams } from '../../io/iostreams.js';
import { closeNames, didYouMean } from '../../lib/distance.js';
import { ExitCode, NetworkError, PayError, UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { EVENT_TYPES } from '../../shared/events.js';
import { checkInt, isOwnAddress } from '../../shared/validate.js';
import { deliveryHeader, isWebhookSecret, verify, WEBHOOK_SECRET_HINT } from '../../shared/signature.js';
import type { VerbContext } from '../../cmdutil/spec.js';
import { printable } from '../../verbs/values.js';
import { webhookSecret } from './secret.js';
import { asText } from '../../lib/text.js';

const MAX_BODY = 1024 * 1024;
/** The forward target's time to answer, as the emulator gives a delivery (src/emulator/events.ts ATTEMPT_TIMEOUT_MS). */
export const FORWARD_TIMEOUT_MS = 10_000;

/**
 * How long a webhook-id is remembered (to mark a later delivery of it as a repeat, and with
 * --skip-duplicates to acknowledge it unforwarded), counted from its last delivery: 24 hours. The
 * emulator's schedule (src/emulator/events.ts RETRY_DELAYS_S: 5 s, 30 s, 2 min, 10 min, each
 * attempt allowed 10 s) spans under 14 minutes of its clock, but an emulator stopped with
 * --data-dir resumes its pending deliveries when started again, and hosted Standard Webhooks
 * senders retry for about a day: a day covers them all with margin. A repeat refreshes the time.
 */
export const REPEAT_WINDOW_SECONDS = 24 * 60 * 60;
/**
 * At most this many webhook-ids are remembered (about 10 MB). Past it the least recently seen id
 * is forgotten first (a warning says so, once): a repeat of a forgotten id counts as new again.
 */
export const MAX_REMEMBERED_IDS = 100_000;
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);

export interface ListenOptions {
  host: string;
  port: number;
  secret: string;
  forwardTo?: URL | undefined;
  json: boolean;
  /** With json: prints one delivery (the shared Printer's printLine: a JSON line escaped on a terminal, or --jq's output). */
  line: (delivery: unknown) => void;
  /** Acknowledge (200) a repeat of an accepted webhook-id without printing or forwarding it (the behaviour before every delivery was forwarded). */
  skipDuplicates?: boolean;
  /** Only these event types are printed and forwarded; the others are acknowledged (200) silently. */
  events?: ReadonlySet<string> | undefined;
  io: IOStreams;
  /** Unix seconds (tests move the clock). */
  now?: () => number;
  /** How long the forward target gets to answer (default FORWARD_TIMEOUT_MS). */
  forwardTimeoutMs?: number;
  /** Tests only: a shorter window and a smaller cap than REPEAT_WINDOW_SECONDS and MAX_REMEMBERED_IDS. */
  repeatWindowSeconds?: number;
  maxRemembered?: number;
}

export interface Listener {
  url: string;
  server: Server;
  /**
   * Cuts off the forwards in flight (the listen is stopping): each one's sender gets a 502 and
   * retries it later. How many there were.
   */
  abortForwards(): number;
  close(): Promise<void>;
}

/**
 * The header a listen puts on each delivery it forwards. A delivery that arrives with it came
 * through another listen's forward (two listens forwarding to each other would pass each delivery
 * back and forth forever): answered 508 Loop Detected, never forwarded.
 */
export const HOP_HEADER = 'pay-listen-hop';

interface ListenFlags {
  port?: unknown;
  host?: unknown;
  forwardTo?: unknown;
  secret?: unknown;
  events?: unknown;
  skipDuplicates?: unknown;
  printSecret?: unknown;
}

/** --events a,b: each a contract event type; an unknown one is exit 2, with a close one suggested. */
export function parseEventFilter(raw: string): Set<string> {
  const names = raw
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UsageError('--events needs at least one event type, e.g. --events customer.created,transfer.failed');
  for (const n of names) {
    if ((EVENT_TYPES as readonly string[]).includes(n)) continue;
    const guess = didYouMean(closeNames(n, EVENT_TYPES));
    throw new UsageError(`--events: unknown event type "${printable(n)}"`, {
      hint: `${guess ? `${guess} ` : ''}pay webhooks list --help lists every event type (--type)`,
    });
  }
  return new Set(names);
}

/** The URL the emulator should deliver to: the listener's, with a wildcard address made a loopback one. */
export function registrationUrl(listenerUrl: string): string {
  const u = new URL(listenerUrl);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.toString();
}

const bare = (secret: string): string => secret.replace(/^whsec_/, '');

const SIGNED = ', signing with the secret this listen verifies with (pay webhooks listen --print-secret prints it).';

/**
 * The secret deliveries are verified with: --secret, then PAY_WEBHOOK_SECRET, then the profile's,
 * then (against an emulator, with none of those) the emulator's own for the mode. A given secret
 * that is not the emulator's is kept, with a warning: every delivery from it would be rejected.
 */
async function resolveSecret(f: Factory, flag: unknown, admin: EmulatorAdmin, emulator: EmulatorInfo | undefined): Promise<string> {
  // An explicitly empty --secret never gets here: the root command refuses it (src/cmdutil/root.ts).
  const given = typeof flag === 'string';
  if (!emulator) return webhookSecret(f, flag);
  const s = f.settings();
  const theirs = await admin.get<{ secret?: unknown }>('webhook-secret', { mode: s.mode.value });
  const emulatorSecret = typeof theirs.secret === 'string' && isWebhookSecret(theirs.secret) ? theirs.secret : undefined;
  if (!given && !s.webhookSecret.value) {
    if (!emulatorSecret)
      throw new PayError(
        `the emulator at ${admin.origin} did not give its webhook secret: ${WEBHOOK_SECRET_HINT}`,
        ExitCode.ERROR,
        'bad_response',
      );
    return emulatorSecret;
  }
  const mine = webhookSecret(f, flag);
  if (emulatorSecret && bare(emulatorSecret) !== bare(mine))
    f.io.err(
      `warning: the webhook secret from ${given ? '--secret' : s.webhookSecret.origin} is not the one the emulator at ${admin.origin} signs with: its deliveries will be rejected (leave it out to use the emulator's)\n`,
    );
  return mine;
}

/**
 * Whether something accepts connections at the forward target (a TCP connect, nothing sent): the
 * reason when not. Given up, with no reason, when `until` settles first (the listen is stopping).
 */
function probe(url: URL, until: Promise<void>, timeoutMs = 2_000): Promise<string | undefined> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (why: string | undefined) => {
      socket.destroy();
      resolve(why);
    };
    void until.then(() => done(undefined));
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' ? 'connection refused' : err.code === 'ENOTFOUND' ? 'host not found' : (err.code ?? err.message)),
    );
  });
}

export async function run(f: Factory, ctx: VerbContext): Promise<void> {
  const o = ctx.opts as ListenFlags;
  const { output } = ctx;
  const port = asText(o.port ?? '8788');
  const portProblem = checkInt(0, 65535)(port);
  if (portProblem) throw new UsageError(`--port ${portProblem}`);
  const host = typeof o.host === 'string' ? o.host : '127.0.0.1';
  const forwardTo = o.forwardTo === undefined ? undefined : checkForwardUrl(asText(o.forwardTo));
  const events = o.events === undefined ? undefined : parseEventFilter(asText(o.events));
  // A --forward-to naming this listen itself would forward each delivery to itself, forever:
  // refused before listening (with --port 0, once the port is known, before registering).
  if (forwardTo && port !== '0') refuseForwardToSelf(forwardTo, host, port);

  // Is the base URL an emulator? Only a loopback one is asked (a hosted service never is).
  const admin = await f.emulator();
  let emulator: EmulatorInfo | undefined;
  /** Without an emulator: why not, and what to do instead (the paragraph printed once listening). */
  let advice = (ours: string): string =>
    `The service at ${f.settings().baseUrl.value} is not a local emulator, so nothing was registered: register ${ours} as its webhook endpoint ` +
    `(in its dashboard or API; a hosted service needs a public tunnel to this port, e.g. ngrok or cloudflared)${SIGNED}`;
  if (admin.local) {
    try {
      emulator = await admin.detect();
    } catch (err) {
      if (!(err instanceof NetworkError) && !(err instanceof PayError && err.code === 'not_an_emulator')) throw err;
      const why =
        err instanceof NetworkError
          ? `No emulator answers at ${admin.origin} (${err.message.split(': ').pop()})`
          : `The server at ${admin.origin} is not a pay emulator`;
      advice = (ours) =>
        `${why}, so nothing was registered: start one (pay emulator start) and run listen again, or register ${ours} ` +
        `as the webhook endpoint of the service that sends the events${SIGNED}`;
    }
  }
  const secret = await resolveSecret(f, o.secret, admin, emulator);
  if (o.printSecret === true) {
    // With --json (or -o ndjson, --jq): the secret as a JSON string, as every value printed as JSON is.
    if (output.format === 'json' || output.format === 'ndjson') {
      const { Printer } = await import('../../io/output.js');
      new Printer(f.io, output, []).printValue(secret);
    } else f.io.out(`${secret}\n`);
    return;
  }

  // Ctrl-C and SIGTERM are heard from before anything needs undoing: one that comes while the
  // listener starts, registers with the emulator or probes the forward target stops the listen as
  // one later does (the URL registered is given back), instead of killing pay with the URL left
  // pointing at a dead port. "Ready … (Ctrl-C to stop)" is said only once it is true.
  const stop = stopSignal(f);
  const mode = f.settings().mode.value;
  const Mode = mode === 'live' ? 'Live' : 'Sandbox';
  let listener: Listener | undefined;
  let ours = '';
  let registered = false;
  let cut: number;
  try {
    const { Printer } = await import('../../io/output.js');
    const printer = new Printer(f.io, output, []);
    listener = await startListener({
      host,
      port: Number(port),
      secret,
      forwardTo,
      json: output.format === 'json' || output.format === 'ndjson',
      line: (delivery) => printer.printLine(delivery),
      io: f.io,
      skipDuplicates: o.skipDuplicates === true,
      events,
    });
    if (forwardTo) refuseForwardToSelf(forwardTo, host, new URL(listener.url).port);
    ours = registrationUrl(listener.url);
    if (!isLoopbackHost(host)) f.io.err(`warning: listening on ${host}, reachable from other machines\n`);
    const forwarding = forwardTo ? `, forwarding to ${forwardTo.toString()}` : '';
    let said = `${advice(ours)}\n`;
    if (emulator && !stop.heard) {
      // Not cut short by a signal: whether the emulator took the URL is known only from its answer.
      // The URL of this listen's mode only: the other mode's events (signed with its own secret) never come here.
      const r = await admin.post<{ previous?: unknown }>('webhook-url', { url: ours, listener: true }, { mode });
      registered = true;
      const previous = typeof r.previous === 'string' ? escapeText(r.previous) : 'none';
      said = `Registered ${ours} as the webhook URL of the emulator at ${admin.origin} for ${Mode} events (it was ${previous}; given back when this stops); ${Mode} events still pending delivery come now.\n`;
    }
    if (!stop.heard) {
      f.io.err(`Ready, listening on ${listener.url}${forwarding} (Ctrl-C to stop)\n${said}`);
      const down = forwardTo ? await probe(forwardTo, stop.heardIt) : undefined;
      if (down && !stop.heard)
        f.io.err(
          `warning: nothing answers at ${forwardTo!.toString()} yet (${down}): each delivery gets <-- [error] and a 502, so the sender retries it, until it does\n`,
        );
      await stop.heardIt;
    }
  } finally {
    stop.dispose();
    // Forwards in flight are cut off at once (a slow app would hold the stop up to 10 s each).
    cut = listener?.abortForwards() ?? 0;
    if (registered) {
      try {
        const r = await admin.post<{ url?: unknown; restored?: unknown }>('webhook-url', { release: ours }, { mode });
        const now = typeof r.url === 'string' ? escapeText(r.url) : 'none';
        f.io.err(
          r.restored === true
            ? `Gave the emulator's ${Mode} webhook URL back: ${now}\n`
            : `Left the emulator's ${Mode} webhook URL as it is (${now}): it was changed after this listen registered\n`,
        );
      } catch (err) {
        f.io.err(`warning: could not give the emulator's ${Mode} webhook URL back: ${escapeText((err as Error).message)}\n`);
      }
    }
    await listener?.close();
  }
  f.io.err(
    cut === 0
      ? 'Stopped.\n'
      : `Stopped; ${cut} ${cut === 1 ? 'delivery' : 'deliveries'} being forwarded ${cut === 1 ? 'was' : 'were'} cut off: the sender got no answer (502) and retries ${cut === 1 ? 'it' : 'them'} later.\n`,
  );
}

/**
 * SIGINT and SIGTERM (SIGHUP too: f.signals), heard from now until dispose(): `heard` once one came, `heardIt` settles then.
 * The first one is taken; a second one, after dispose(), is the process's default again (it ends pay).
 */
function stopSignal(f: Factory): { readonly heard: boolean; heardIt: Promise<void>; dispose(): void } {
  let heard = false;
  let hear!: () => void;
  const heardIt = new Promise<void>((resolve) => (hear = resolve));
  const stop = () => {
    heard = true;
    dispose();
    hear();
  };
  const dispose = () => {
    f.signals.off('SIGINT', stop);
    f.signals.off('SIGTERM', stop);
  };
  f.signals.on('SIGINT', stop);
  f.signals.on('SIGTERM', stop);
  return {
    get heard() {
      return heard;
    },
    heardIt,
    dispose,
  };
}

/** Exit 2 when --forward-to is the listener's own address (its port, on loopback or the host it binds). */
function refuseForwardToSelf(forwardTo: URL, host: string, port: string): void {
  if (!isOwnAddress(forwardTo, { hostname: host, port })) return;
  throw new UsageError(
    `--forward-to ${escapeText(forwardTo.toString())} is this listen's own address (port ${port}): each delivery would be forwarded to itself, forever`,
    { hint: "forward to your app's address, e.g. --forward-to http://localhost:3000/webhooks" },
  );
}

/** https://, or http:// to a loopback host only. */
export function checkForwardUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to "${printable(raw)}" is not a URL`);
  }
  // A user name or password would show in the Ready line and every <-- line (and the app gets
  // the delivery's signature to trust instead), as `pay emulator webhook-url` refuses them.
  if (url.username !== '' || url.password !== '')
    throw new UsageError(
      `--forward-to must not carry a user name or password (got ${url.protocol}//…@${escapeText(url.host)}): it would show in every line; deliveries are signed instead`,
    );
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new UsageError(`--forward-to must use https://, or http:// to localhost or 127.0.0.1 (got ${url.protocol}//${url.hostname})`);
}

export async function startListener(opts: ListenOptions): Promise<Listener> {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const windowS = opts.repeatWindowSeconds ?? REPEAT_WINDOW_SECONDS;
  const cap = opts.maxRemembered ?? MAX_REMEMBERED_IDS;
  /**
   * webhook-id → when it was last delivered (our clock), how many times it was (the repeat number),
   * and whether a delivery of it was accepted (forwarded with a 2xx, or received without forwarding);
   * least recently seen first.
   */
  const seen = new Map<string, { t: number; n: number; accepted: boolean }>();
  let warnedFull = false;
  const remember = (id: string, t: number, n: number, accepted: boolean) => {
    seen.delete(id); // re-inserted last: the most recently seen
    seen.set(id, { t, n, accepted });
    for (const [oldest] of seen) {
      if (seen.size <= cap) break;
      seen.delete(oldest);
      if (!warnedFull) {
        warnedFull = true;
        opts.io.err(
          `${stamp()} warning: more than ${cap} webhook-ids seen within ${windowS % 3600 === 0 ? `${windowS / 3600} h` : `${windowS} s`}; the least recently seen are forgotten, and a repeat of one of them would count as new again\n`,
        );
      }
    }
  };
  /** Forgets ids last seen longer ago than the window (oldest first, so it stops at the first kept). */
  const expire = (t: number) => {
    for (const [id, last] of seen) {
      if (t - last.t <= windowS) break;
      seen.delete(id);
    }
  };
  /** webhook-ids being forwarded now (--skip-duplicates: a copy arriving meanwhile gets 409). */
  const inFlight = new Set<string>();
  /** Forwards in flight, and what cuts them off when the listen stops. */
  let forwarding = 0;
  const stopping = new AbortController();
  const target = opts.forwardTo?.toString();
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.io.err(`error: ${escapeText((err as Error).message)}\n`);
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
    });
  });

  /** One delivery for --json: what arrived and what the forward answered. */
  const print = (delivery: Record<string, unknown>, id: string) => {
    try {
      opts.line(delivery);
    } catch (err) {
      // A --jq filter that fails on one delivery: said on stderr; the delivery was still received.
      opts.io.err(`${stamp()} ${printable(id)}: ${escapeText((err as Error).message)}\n`);
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' }, { allow: 'POST' });
    if (req.headers[HOP_HEADER] !== undefined) {
      // Forwarded by another listen: forwarding it again could go round forever.
      const hopId = deliveryHeader(req.headers, 'id');
      opts.io.err(
        `${stamp()} loop: ${printable(hopId ?? '-')} came through another pay webhooks listen's --forward-to; answered 508 Loop Detected, not forwarded (forward to your app, not to a listen)\n`,
      );
      req.resume();
      return reply(res, 508, { error: 'loop detected: this delivery came through another pay webhooks listen' });
    }
    const receivedAt = new Date().toISOString();
    const body = await readBody(req);
    if (body === undefined) return reply(res, 413, { error: 'body larger than 1 MiB' });
    const id = deliveryHeader(req.headers, 'id');
    const reject = (reason: string) => {
      opts.io.err(`${stamp()} rejected ${printable(id ?? '-')}: ${escapeText(reason)}\n`);
      reply(res, 400, { error: reason });
    };
    const t = now();
    const result = verify(opts.secret, req.headers, body, t);
    if (!result.ok) return reject(result.reason);
    expire(t);
    const event = parseEvent(body);
    const type = typeof event?.type === 'string' ? event.type : undefined;
    // Not asked for (--events): acknowledged, so the sender records it delivered and stops.
    if (opts.events && !(type !== undefined && opts.events.has(type))) return reply(res, 200, { received: true, filtered: true });
    const before = seen.get(result.id);
    const repeat = (before?.n ?? 0) + 1;
    if (opts.skipDuplicates) {
      // A copy of an accepted webhook-id (a replay, a retry after a lost answer, a resend) is
      // acknowledged with 200, neither printed nor forwarded again (Standard Webhooks: the id is the
      // message's idempotency key). A copy arriving while the first is being forwarded gets 409:
      // the sender retries, and gets through if that forward failed.
      if (before?.accepted) {
        remember(result.id, t, repeat, true);
        opts.io.err(
          `${stamp()} duplicate ${printable(result.id)}: replayed webhook-id, already accepted; acknowledged, not forwarded again (--skip-duplicates)\n`,
        );
        return reply(res, 200, { received: true, duplicate: true, repeat });
      }
      if (inFlight.has(result.id)) {
        opts.io.err(`${stamp()} rejected ${printable(result.id)}: replayed webhook-id (the first delivery is still being forwarded)\n`);
        return reply(res, 409, { error: 'replayed webhook-id: the first delivery is still being forwarded' }, { 'retry-after': '1' });
      }
    }
    remember(result.id, t, repeat, before?.accepted ?? false);
    if (!opts.json) opts.io.out(`--> ${printable(type ?? '-')} [${printable(result.id)}]${repeat > 1 ? ` (repeat ${repeat})` : ''}\n`);
    let forwarded: { url: string; status: number | null; duration_ms: number; error: string | null } | null = null;
    if (opts.forwardTo) {
      // Held from here to the answer: the await below lets other deliveries in.
      inFlight.add(result.id);
      forwarding++;
      const started = performance.now();
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = await forward(opts.forwardTo, req, body, opts.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS, stopping.signal);
      } catch (err) {
        error = stopping.signal.aborted
          ? 'cut off: the listen is stopping (the sender retries it later)'
          : describeForwardError(err, opts.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS);
      } finally {
        inFlight.delete(result.id);
        forwarding--;
      }
      const ms = Math.round(performance.now() - started);
      forwarded = { url: target!, status, duration_ms: ms, error };
      if (!opts.json)
        opts.io.out(
          status !== null
            ? `<-- [${status}] POST ${escapeText(target!)} (${ms} ms) [${printable(result.id)}]\n`
            : `<-- [error] POST ${escapeText(target!)} (${ms} ms) [${printable(result.id)}]: ${escapeText(error ?? 'failed')}\n`,
        );
    }
    const ok = forwarded === null || (forwarded.status !== null && forwarded.status >= 200 && forwarded.status <= 299);
    const entry = seen.get(result.id);
    if (ok && entry) entry.accepted = true;
    if (opts.json)
      print(
        {
          webhook_id: result.id,
          type: type ?? null,
          repeat,
          received_at: receivedAt,
          forward: forwarded,
          event: event ?? { raw: body.toString('utf8') },
        },
        result.id,
      );
    if (forwarded === null) return reply(res, 200, { received: true, repeat });
    // The sender hears the forward's answer: a failure is retried by it.
    if (forwarded.status === null) return reply(res, 502, { error: 'forward failed', detail: forwarded.error });
    // Any other status the app gave goes back as it is, 3xx included (never followed: a redirect is
    // not a delivery, and the sender retries it as a failure). One no HTTP server may send: 502.
    if (!ok) {
      const status = forwarded.status >= 300 && forwarded.status <= 599 ? forwarded.status : 502;
      return reply(res, status, { error: `forward answered ${forwarded.status}` });
    }
    reply(res, 200, { received: true, repeat });
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        new PayError(
          err.code === 'EADDRINUSE'
            ? `port ${opts.port} on ${opts.host} is already in use`
            : `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`,
          ExitCode.ERROR,
          'listen_failed',
          { hint: err.code === 'EADDRINUSE' ? 'choose another --port (0 picks a free one)' : undefined },
        ),
      );
    };
    server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}/`,
    server,
    abortForwards: () => {
      const cut = forwarding;
      stopping.abort();
      return cut;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function forward(url: URL, req: IncomingMessage, body: Buffer, timeoutMs: number, stopping: AbortSignal): Promise<number> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  headers[HOP_HEADER] = '1';
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stopping]);
  const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal });
  // The app's answer body is not needed: cancelled, so an endless one costs nothing.
  await res.body?.cancel().catch(() => undefined);
  return res.status;
}

/** Why a forward got no answer, in a few words (connection refused, timed out after 10 s, …). */
function describeForwardError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `timed out after ${timeoutMs / 1000} s`;
  const code = e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  return code ?? e.cause?.message ?? e.message ?? String(err);
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(tooBig ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseEvent(body: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function stamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}
