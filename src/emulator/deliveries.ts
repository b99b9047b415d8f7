// The delivery queue: an event is POSTed to its mode's URL (WebhookUrls), signed per Standard
// Webhooks with that mode's secret; 2xx = delivered, anything else is retried after 5 s, 30 s,
// 2 min and 10 min of emulator time (times `retryScale`), then `failed`. At most MAX_IN_FLIGHT
// attempts at once, never two for one event; redirects are not followed. A resend accepted while an
// attempt is in flight is owed (x.owed): that attempt leaves the event pending and the resend's
// attempt follows it, one per resend (never lost, never merged into the running attempt).
import { signedHeaders } from '../shared/signature.js';
import { iso } from './clock.js';
import type { EventServices } from './services.js';
import type { DeliveryAttempt, Mode, Rec, WebhookEvent } from './types.js';
import { MODES } from './webhook-urls.js';

/** A failed attempt's retries, after these many seconds of emulator time (times `retryScale`), then `failed`. */
export const RETRY_DELAYS_S = [5, 30, 120, 600];
const MAX_IN_FLIGHT = 8;
const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ATTEMPTS_KEPT = 50;
/** How much of what the app answered an attempt keeps (`response_excerpt`): its first bytes, as text. */
export const EXCERPT_BYTES = 200;

const modeOf = (e: WebhookEvent): Mode => (e.livemode ? 'live' : 'sandbox');

export class Deliveries {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  /** Events with an attempt in flight (never two at once for one event). */
  private readonly active = new Set<string>();
  private inFlight = 0;
  private readonly abort = new AbortController();
  /** Delivery attempts started so far (App.advance: whether a pause started new ones). */
  started = 0;
  /** Called once no attempt is queued or in flight (App.advance waits for that between its steps). */
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly app: EventServices,
    private readonly secrets: Record<Mode, string>,
    private readonly retryScale: number,
    private readonly urlOf: (mode: Mode) => string | undefined,
  ) {
    app.due.register('delivery', (id) => this.enqueue(id));
    app.scanners.set('event', (rec) => {
      const e = rec.obj as WebhookEvent;
      if (e.delivery.status === 'pending' && e.delivery.next_attempt_at)
        app.due.push(Date.parse(e.delivery.next_attempt_at), 'delivery', e.id);
    });
  }

  /** Every event of the mode (both modes when none is named) still pending with no attempt due (made while no URL was set) is queued, oldest first. */
  deliverPending(mode?: Mode): void {
    if (!(mode ? [mode] : MODES).some((m) => this.urlOf(m))) return;
    for (const rec of this.app.store.every('event')) {
      const e = rec.obj as WebhookEvent;
      const m = modeOf(e);
      if ((mode === undefined || m === mode) && this.urlOf(m) && e.delivery.status === 'pending' && e.delivery.next_attempt_at === null)
        this.enqueue(rec.id);
    }
  }

  /** Whether an attempt is queued or in flight. */
  get busy(): boolean {
    return this.inFlight > 0 || this.queue.length > 0;
  }

  /** Resolves true once no attempt is queued or in flight, or false after `ms` of real time. */
  idle(ms: number): Promise<boolean> {
    if (!this.busy) return Promise.resolve(true);
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve(false);
      }, ms);
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(done);
    });
  }

  /** Queues an event's next attempt now (unless one is queued or in flight). */
  enqueue(id: string): void {
    if (this.queued.has(id) || this.active.has(id)) return;
    this.queued.add(id);
    this.queue.push(id);
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.queued.delete(id);
      this.inFlight++;
      this.started++;
      this.active.add(id);
      void this.attempt(id)
        .catch((err) => this.app.log(`webhook delivery of ${id} failed: ${(err as Error).message}`))
        .finally(() => {
          this.inFlight--;
          this.active.delete(id);
          if (owedOf(this.app.store.byId.get(id) as Rec<WebhookEvent> | undefined) > 0) this.enqueue(id);
          this.pump();
        });
    }
    if (!this.busy && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async attempt(id: string): Promise<void> {
    const rec = this.app.store.byId.get(id) as Rec<WebhookEvent> | undefined;
    if (!rec || rec.obj.delivery.status !== 'pending' || this.abort.signal.aborted) return;
    const e = rec.obj;
    const servesResend = owedOf(rec) > 0;
    const mode = modeOf(e);
    const url = this.urlOf(mode);
    if (!url) {
      this.update(rec, { ...rec.obj.delivery, next_attempt_at: null });
      return;
    }
    const body = JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, data: e.data });
    const started = Date.now();
    const attemptedAt = iso(this.app.clock.now());
    let code: number | null = null;
    let error: string | null = null;
    let excerpt: string | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'pay-emulator', ...signedHeaders(this.secrets[mode], e.id, body) },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      });
      code = res.status;
      excerpt = await readExcerpt(res.body);
    } catch (err) {
      error = describe(err);
    }
    if (this.abort.signal.aborted) return;
    const current = this.app.store.byId.get(id) as Rec<WebhookEvent> | undefined;
    if (!current) return; // reset meanwhile
    const x = (current.x ??= {});
    const attempts = ((x.attempts as DeliveryAttempt[] | undefined) ?? []).slice(-MAX_ATTEMPTS_KEPT + 1);
    attempts.push({
      id: this.app.ids.make('whd_', this.app.clock.stamp()),
      attempted_at: attemptedAt,
      response_code: code,
      duration_ms: Date.now() - started,
      error,
      url,
      response_excerpt: excerpt,
    });
    const retry = (x.retry as number | undefined) ?? 0;
    const ok = code !== null && code >= 200 && code < 300;
    const now = this.app.clock.now();
    // Resends still owed after this attempt (one is served by it when it was owed at its start): the event stays pending for them.
    const owed = Math.max(0, owedOf(current) - (servesResend ? 1 : 0));
    if (owed > 0) {
      const attemptsSoFar = current.obj.delivery.attempts + 1;
      const next_attempt_at = iso(now);
      const delivery: WebhookEvent['delivery'] = {
        status: 'pending',
        attempts: attemptsSoFar,
        last_response_code: code,
        last_attempt_at: attemptedAt,
        next_attempt_at,
      };
      this.update(current, delivery, { ...x, attempts, owed });
      return;
    }
    const delivery: WebhookEvent['delivery'] = {
      status: ok ? 'delivered' : retry < RETRY_DELAYS_S.length ? 'pending' : 'failed',
      attempts: current.obj.delivery.attempts + 1,
      last_response_code: code,
      last_attempt_at: attemptedAt,
      next_attempt_at: null,
    };
    if (!ok && retry < RETRY_DELAYS_S.length) {
      const at = now + Math.max(1, Math.round(RETRY_DELAYS_S[retry]! * 1000 * this.retryScale));
      delivery.next_attempt_at = iso(at);
      this.app.due.push(at, 'delivery', id);
    }
    this.update(current, delivery, { ...x, attempts, retry: ok ? retry : retry + 1, owed: 0 });
  }

  private update(rec: Rec<WebhookEvent>, delivery: WebhookEvent['delivery'], x?: Record<string, unknown>): void {
    const tx = this.app.tx();
    this.app.store.put(tx, 'event', rec.scope, { ...rec.obj, delivery }, x);
    this.app.commitInBackground(tx);
  }

  clear(): void {
    this.queue.length = 0;
    this.queued.clear();
    this.pump(); // wakes idle() waiters when nothing is in flight
  }

  stop(): void {
    this.abort.abort();
    this.clear();
  }
}

/**
 * The first EXCERPT_BYTES bytes of an answer's body, decoded as UTF-8 (a character cut at the end
 * or a byte that is not UTF-8 becomes U+FFFD), then the rest cancelled unread; null for no body or
 * one that fails before its first byte. The CLI escapes it when it shows it.
 */
async function readExcerpt(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const bytes = new Uint8Array(EXCERPT_BYTES);
  let got = 0;
  try {
    while (got < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.length, EXCERPT_BYTES - got);
      bytes.set(value.subarray(0, take), got);
      got += take;
    }
  } catch {
    // The body broke off: what arrived before is the excerpt.
  } finally {
    await reader.cancel().catch(() => {});
  }
  return got === 0 ? null : new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, got));
}

/** Resends accepted and not yet served by an attempt (Events.resend adds one). */
export const owedOf = (rec: Rec<WebhookEvent> | undefined): number => (rec?.x?.owed as number | undefined) ?? 0;

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `timeout after ${ATTEMPT_TIMEOUT_MS} ms`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}
