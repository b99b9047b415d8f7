// Admin routes under /__emulator/ (not part of the contract; no Api-Key; loopback clients only).
// Every answer carries `Pay-Emulator: <version>` (src/shared/emulator-id.ts): pay drives only a
// server that names itself so (`pay emulator …`, `pay webhooks listen`).
//   GET  /__emulator/health                   {ok, emulator: "pay-emulator", version, url, started_at, uptime_s, data_dir, tenant_id}
//   POST /__emulator/reset                    forget all data (keys and settings stay)
//   POST /__emulator/clock/advance {seconds}  move the emulator clock forward, running everything due on the way in
//                                             time order (retries a failed attempt schedules too: app.ts advance):
//                                             {now, offset_ms, caught_up} (false: deliveries were still running after
//                                             ADVANCE_WAIT_MS; what is left goes on from the new time)
//   GET  /__emulator/clock                    the emulator time
//   POST /__emulator/faults {fail_rate, latency_ms: [a, b] | null, reset_rate, rate_limit: {per_second, burst} | "N/s" | null}
//   GET  /__emulator/faults
//   GET  /__emulator/webhook-url[?mode=]      {mode, url}: where the mode's events are delivered (each mode has its own URL;
//                                             mode sandbox or live, default sandbox)
//   POST /__emulator/webhook-url[?mode=] {url | null} set it by hand (the mode's events still pending with no attempt due
//                                             are delivered): {mode, url}
//                                {url, listener: true}  a listener takes it: {mode, url, previous}
//                                {release: url}         a listener gives it back: {mode, url, restored} (events.ts)
//   GET  /__emulator/webhook-secret[?mode=]   {mode, secret}: the signing secret (pay webhooks listen verifies with it)
//   GET  /__emulator/requests[?after=&limit=&status=&path=]
//                                             the API requests received and answered (request-log.ts: at most
//                                             1000 and 8 MiB, bodies cut at 64 KiB, keys and secrets masked):
//                                             {data, next_after, dropped, started_at}; `after` reads on from a sequence number
//                                             (of this run: a reader sees another run by its started_at)
//   GET  /__emulator/stats                    object counts per type, and more
//   GET  /__emulator/ledger[?mode=&tenant=]   ledger entries with all postings, and system balances
//   POST /__emulator/payment-links/{id}/pay   a payer pays a link (credits its wallet)
//   POST /__emulator/compact                  write a snapshot now and start a new journal (with a data dir)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_ADVANCE_SECONDS } from '../shared/duration.js';
import { EMULATOR_HEADER, EMULATOR_NAME, EMULATOR_VERSION } from '../shared/emulator-id.js';
import { pathMatcher, statusMatcher } from '../shared/request-filter.js';
import { checkWebhookTarget } from '../shared/validate.js';
import { App } from './app.js';
import { iso } from './clock.js';
import { isRate, parseRateLimit, type FaultSettings } from './faults.js';
import { parseBody, readBody, send } from './http.js';
import { exponent, fromMinor, toMinor } from './money.js';
import { ApiProblem } from './problems.js';
import { payLink } from './resources/crypto.js';
import { routeNotFound } from './router.js';
import { json } from './store.js';
import type { Json, LedgerEntry, Mode, WebhookEvent } from './types.js';

/** The clock's whole offset: a century. */
const MAX_OFFSET_MS = 100 * 365.25 * 86_400_000;

const isLoopback = (addr: string | undefined): boolean => !!addr && (addr === '::1' || /^(::ffff:)?127\./.test(addr));

const bad = (detail: string): ApiProblem =>
  new ApiProblem(422, 'validation_error', detail, [{ field: 'body', code: 'invalid', message: detail }]);

export async function admin(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  rid: string,
  method: string,
  path: string,
  qs: string,
): Promise<void> {
  res.setHeader(EMULATOR_HEADER, EMULATOR_VERSION);
  if (!isLoopback(req.socket.remoteAddress)) throw new ApiProblem(403, 'forbidden', 'the admin routes answer loopback clients only');
  const route = path.slice('/__emulator'.length);
  const body = method === 'POST' ? parseBody(await readBody(req)) : {};
  const reply = (value: unknown): void => send(res, 200, typeof value === 'string' ? value : JSON.stringify(value), rid);
  const allow = (m: string): void => {
    if (method !== m)
      throw new ApiProblem(405, 'method_not_allowed', `${method} is not allowed here (allowed: ${m})`, undefined, { Allow: m });
  };

  const pay = /^\/payment-links\/(plink_[0-9a-z]{24})\/pay$/.exec(route);
  if (pay) {
    allow('POST');
    return reply(json(payLink(app, pay[1]!)));
  }
  switch (route) {
    case '/health':
      allow('GET');
      return reply({
        ok: true,
        emulator: EMULATOR_NAME,
        version: EMULATOR_VERSION,
        url: app.url,
        started_at: new Date(app.startedAt).toISOString(),
        uptime_s: Math.floor((Date.now() - app.startedAt) / 1000),
        data_dir: app.config.dataDir ?? null,
        // The business id of its keys (x-tenant-id's default), as its banner prints it: no secret.
        tenant_id: app.identity.tenant_id,
      });
    case '/reset':
      allow('POST');
      await app.reset();
      return reply({ ok: true });
    case '/clock':
      allow('GET');
      return reply({ now: iso(app.clock.now()), offset_ms: app.clock.offset });
    case '/clock/advance': {
      allow('POST');
      const s = body.seconds;
      if (typeof s !== 'number' || !Number.isFinite(s) || s <= 0 || s > MAX_ADVANCE_SECONDS)
        throw bad('seconds must be a positive number (up to 10 years)');
      // In all, at most a century ahead: past year 9999 a time is no RFC 3339 date, and every
      // date check (a date of birth "in the future") would refuse what it should take. Checked
      // when this advance's turn comes (advances run one after another).
      const done = await app.advance(s, (offset) => {
        if (offset + s * 1000 > MAX_OFFSET_MS)
          throw new ApiProblem(
            409,
            'invalid_state',
            `the clock is ${Math.floor(offset / 86_400_000)} days ahead; it may be at most ${MAX_OFFSET_MS / 86_400_000} days ahead in all (reset the emulator to start again)`,
          );
      });
      await app.journal.drain();
      return reply({ now: iso(app.clock.now()), offset_ms: app.clock.offset, caught_up: done.caughtUp });
    }
    case '/faults':
      if (method === 'POST') app.faults.set(parseFaults(body));
      else allow('GET');
      return reply(faultsJson(app.faults.settings));
    case '/webhook-url': {
      const mode = modeParam(qs);
      if (method === 'POST') return reply(await webhookUrl(app, body, mode));
      allow('GET');
      return reply({ mode, url: app.events.urlOf(mode) ?? null });
    }
    case '/webhook-secret': {
      allow('GET');
      const mode = modeParam(qs);
      return reply({ mode, secret: app.events.secrets[mode] });
    }
    case '/requests': {
      allow('GET');
      const page = requests(app, new URLSearchParams(qs));
      // started_at tells a reader following the log that the emulator restarted (its numbers start again).
      return reply({
        data: page.data,
        next_after: page.nextAfter,
        dropped: page.dropped,
        started_at: new Date(app.startedAt).toISOString(),
      });
    }
    case '/compact':
      allow('POST');
      await app.journal.drain();
      app.journal.compact();
      return reply({ ok: true, enabled: app.journal.enabled });
    case '/stats':
      allow('GET');
      return reply(stats(app));
    case '/ledger':
      allow('GET');
      return reply(ledger(app, new URLSearchParams(qs)));
    default:
      throw routeNotFound(path);
  }
}

/** `?mode=sandbox|live` (default sandbox). */
function modeParam(qs: string): Mode {
  const mode = new URLSearchParams(qs).get('mode') ?? 'sandbox';
  if (mode !== 'sandbox' && mode !== 'live') throw bad('mode must be sandbox or live');
  return mode;
}

async function webhookUrl(app: App, b: Json, mode: Mode): Promise<Json> {
  const keys = Object.keys(b);
  const url = (v: unknown): string => {
    if (typeof v !== 'string') throw bad('url must be a string');
    const problem = checkWebhookTarget(v);
    if (problem) throw bad(`url ${problem}`);
    // Deliveries to the emulator itself would act on it (POST /__emulator/reset wipes it) or loop.
    if (app.isSelf(v)) throw bad("url must not be the emulator's own address");
    return v;
  };
  const now = (): string | null => app.events.urlOf(mode) ?? null;
  if (keys.length === 1 && keys[0] === 'release') {
    const restored = await app.events.releaseUrl(url(b.release), mode);
    return { mode, url: now(), restored };
  }
  if (keys.length === 2 && keys.includes('url') && b.listener === true) {
    const previous = app.events.takeUrl(url(b.url), mode);
    return { mode, url: now(), previous: previous ?? null };
  }
  if (keys.length !== 1 || keys[0] !== 'url') throw bad('send {url}, {url, listener: true} or {release: url}');
  app.events.setUrl(b.url === null ? undefined : url(b.url), mode);
  return { mode, url: now() };
}

function requests(app: App, q: URLSearchParams): ReturnType<App['requests']['list']> {
  const int = (name: string, max: number): number | undefined => {
    const v = q.get(name);
    if (v === null) return undefined;
    if (!/^\d{1,16}$/.test(v) || Number(v) > max) throw bad(`${name} must be a whole number from 0 to ${max}`);
    return Number(v);
  };
  const after = int('after', Number.MAX_SAFE_INTEGER);
  const limit = int('limit', 1000) ?? 1000;
  const status = q.get('status');
  const path = q.get('path');
  const byStatus = status === null ? undefined : statusMatcher(status);
  if (status !== null && !byStatus) throw bad('status must be 2xx, 3xx, 4xx, 5xx or a code such as 404');
  const byPath = path === null ? undefined : pathMatcher(path);
  if (path !== null && !byPath) throw bad('path must be a path prefix or a glob');
  return app.requests.list({
    after,
    limit,
    match: byStatus || byPath ? (r) => (!byStatus || byStatus(r.status)) && (!byPath || byPath(r.path)) : undefined,
  });
}

function parseFaults(b: Json): Partial<FaultSettings> {
  const out: Partial<FaultSettings> = {};
  for (const k of Object.keys(b)) if (!['fail_rate', 'latency_ms', 'reset_rate', 'rate_limit'].includes(k)) throw bad(`unknown field ${k}`);
  if (b.fail_rate !== undefined) {
    if (!isRate(b.fail_rate)) throw bad('fail_rate must be a number from 0 to 1');
    out.failRate = b.fail_rate;
  }
  if (b.reset_rate !== undefined) {
    if (!isRate(b.reset_rate)) throw bad('reset_rate must be a number from 0 to 1');
    out.resetRate = b.reset_rate;
  }
  if (b.latency_ms !== undefined) {
    const l = b.latency_ms;
    const ok =
      l === null || (Array.isArray(l) && l.length === 2 && l.every((n) => Number.isInteger(n) && n >= 0 && n <= 60_000) && l[0] <= l[1]);
    if (!ok) throw bad('latency_ms must be [min, max] in ms (0-60000) or null');
    out.latencyMs = l as [number, number] | null;
  }
  if (b.rate_limit !== undefined) {
    const r = b.rate_limit as { per_second?: unknown; burst?: unknown } | number | string | null;
    if (r === null) out.rateLimit = null;
    else {
      // A string is read as the CLI's --rate-limit is ("10/s", "10").
      const fromString = typeof r === 'string' ? parseRateLimit(r) : undefined;
      const perSecond = typeof r === 'object' ? r.per_second : typeof r === 'string' ? fromString?.perSecond : r;
      const burst =
        typeof r === 'object' && r.burst !== undefined
          ? r.burst
          : typeof perSecond === 'number'
            ? Math.max(1, Math.ceil(perSecond))
            : undefined;
      if (
        typeof perSecond !== 'number' ||
        !(perSecond > 0 && perSecond <= 1e6) ||
        typeof burst !== 'number' ||
        !(burst >= 1 && burst <= 1e6)
      ) {
        throw bad('rate_limit must be {per_second, burst?}, a number, "N/s", or null');
      }
      out.rateLimit = { perSecond, burst };
    }
  }
  return out;
}

const faultsJson = (s: FaultSettings): Json => ({
  fail_rate: s.failRate,
  latency_ms: s.latencyMs,
  reset_rate: s.resetRate,
  rate_limit: s.rateLimit ? { per_second: s.rateLimit.perSecond, burst: s.rateLimit.burst } : null,
});

function stats(app: App): Json {
  const deliveries: Record<string, number> = {};
  for (const r of app.store.every('event')) {
    const s = (r.obj as WebhookEvent).delivery.status;
    deliveries[s] = (deliveries[s] ?? 0) + 1;
  }
  return {
    objects: app.store.stats(),
    scopes: app.store.scopeStats(),
    idempotency_keys: app.idem.size,
    requests: app.counters.requests,
    internal_errors: app.counters.internal_errors,
    faults: app.faults.counts,
    webhooks: { urls: { sandbox: app.events.urlOf('sandbox') ?? null, live: app.events.urlOf('live') ?? null }, ...deliveries },
    due: app.due.size,
    journal: {
      enabled: app.journal.enabled,
      size: app.journal.size,
      ...app.journal.stats,
      background_compactions: app.journal.compactions.started,
      longest_compaction_slice_ms: Math.round(app.journal.compactions.longestSliceMs * 10) / 10,
      writable: app.journal.writable,
      disk_errors: app.journal.diskErrors,
    },
    clock: { now: iso(app.clock.now()), offset_ms: app.clock.offset },
  };
}

/** Ledger entries of one scope (default: the sandbox default tenant) and every account's balance, system accounts included. */
function ledger(app: App, q: URLSearchParams): Json {
  const mode = q.get('mode') === 'live' ? 'live' : 'sandbox';
  const scope = App.scope(mode, q.get('tenant') ?? app.identity.tenant_id);
  const entries = app.store.all(scope, 'ledger_entry').map((r) => r.obj as LedgerEntry);
  const balances: Record<string, bigint> = {};
  const unbalanced: string[] = [];
  for (const e of entries) {
    const sums: Record<string, bigint> = {};
    for (const p of e.postings) {
      const v = toMinor(p.amount, exponent(p.currency));
      sums[p.currency] = (sums[p.currency] ?? 0n) + v;
      if (e.status === 'posted') balances[`${p.account}|${p.currency}`] = (balances[`${p.account}|${p.currency}`] ?? 0n) + v;
    }
    if (Object.values(sums).some((s) => s !== 0n)) unbalanced.push(e.id);
  }
  return {
    scope,
    entries,
    unbalanced,
    posted_balances: Object.fromEntries(Object.entries(balances).map(([k, v]) => [k, fromMinor(v, exponent(k.split('|')[1]!))])),
  };
}
