// Webhook events and their delivery. Every state change emits an event (stored, listed by
// GET /webhooks/events). With a webhook URL configured, events are POSTed there, signed per
// Standard Webhooks with the mode's secret; 2xx = delivered, anything else is retried after
// 5 s, 30 s, 2 min and 10 min of emulator time (times `retryScale`), then `failed`. Without a
// URL an event stays `pending` (next_attempt_at null); setting a URL delivers every such event.
// Deliveries go to the configured URL only: redirects are not followed.
//
// The URL is set by hand (`setUrl`: pay emulator webhook-url, --webhook-url) or taken by a
// listener (`takeUrl`: pay webhooks listen), which gives it back when it stops (`releaseUrl`): the
// URL it took over comes back only if the URL is still the listener's. Listeners that overlap form a
// chain: when one in the middle stops, the one after it inherits what it would have restored, so the
// last to stop restores the URL from before the first. Setting a URL by hand ends every claim.
import { signedHeaders } from '../shared/signature.js';
import type { EventServices } from './services.js';
import { iso } from './clock.js';
import { json, quotedScope, type Store } from './store.js';
import type { DeliveryAttempt, Json, Mode, Rec, Tx, WebhookEvent } from './types.js';

export const RETRY_DELAYS_S = [5, 30, 120, 600];
const MAX_IN_FLIGHT = 8;
const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ATTEMPTS_KEPT = 50;

export class Events {
  private current: string | undefined;
  /** Listeners holding the URL, oldest first: each with the URL it would give back. */
  private readonly claims: Array<{ url: string; previous: string | undefined }> = [];
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  /** Events with an attempt in flight (never two at once for one event). */
  private readonly active = new Set<string>();
  private inFlight = 0;
  private readonly abort = new AbortController();

  constructor(
    private readonly app: EventServices,
    readonly secrets: Record<Mode, string>,
    private readonly retryScale: number,
  ) {
    app.due.register('delivery', (id) => this.enqueue(id));
    app.scanners.set('event', (rec) => {
      const e = rec.obj as WebhookEvent;
      if (e.delivery.status === 'pending' && e.delivery.next_attempt_at)
        app.due.push(Date.parse(e.delivery.next_attempt_at), 'delivery', e.id);
    });
  }

  /**
   * Records an event for a state change (the subject: the changed record, or a plain view like
   * FeatureStatus); delivery is scheduled once the change is durable.
   */
  emit(tx: Tx, scope: string, type: string, subject: Rec | Json): void {
    const isRec = (s: Rec | Json): s is Rec => typeof (s as Rec).kind === 'string' && typeof (s as Rec).obj === 'object';
    const object = isRec(subject) ? subject.obj : subject;
    const url = this.url;
    const delivery: WebhookEvent['delivery'] = {
      status: 'pending',
      attempts: 0,
      last_response_code: null,
      last_attempt_at: null,
      next_attempt_at: null,
    };
    const event = this.app.create<WebhookEvent>(scope, 'evt_', 'event', { type, data: { object }, delivery }, false);
    if (url) delivery.next_attempt_at = event.created_at;
    if (this.app.store.persist) {
      // Journaled by hand, its JSON not kept in memory (events are read rarely; most are never
      // read at all). About a record as it is now (the usual case): data.object is journaled as a
      // reference to it, the record being in the journal already; else in full.
      const rec = this.app.store.put(undefined, 'event', scope, event);
      const deliveryText = url ? undefined : UNDELIVERED_JSON;
      tx.ops.push(
        (isRec(subject) && this.app.refOk(subject) && eventOp(this.app.store, rec, Infinity, deliveryText)) ||
          eventLine(rec, `{"object":${isRec(subject) ? json(subject) : JSON.stringify(object)}}`, undefined, deliveryText),
      );
    } else this.app.store.put(tx, 'event', scope, event);
    if (url) tx.after.push(() => this.enqueue(event.id));
  }

  /** Where events are delivered (undefined: nowhere, they stay pending). */
  get url(): string | undefined {
    return this.current;
  }

  /** Sets the URL by hand (or unsets it): listeners' claims end. Events still pending with no attempt due are delivered. */
  setUrl(url: string | undefined): void {
    this.claims.length = 0;
    this.point(url);
  }

  /** A listener takes the URL; returns the one it took over (restored by releaseUrl if the URL is still the listener's). */
  takeUrl(url: string): string | undefined {
    // The same listener again (restarted on its port without releasing): one claim, not a claim on itself.
    const old = this.unclaim(url);
    const previous = old && this.current === url ? old.previous : this.current;
    this.claims.push({ url, previous });
    this.point(url);
    return previous;
  }

  /**
   * A listener gives the URL back: restored to what it took over if the URL is still the
   * listener's (true); else left as it is (false), and the listener that took over from it will
   * restore what this one would have.
   */
  releaseUrl(url: string): boolean {
    const mine = this.unclaim(url);
    if (!mine || this.current !== url) return false;
    this.point(mine.previous);
    return true;
  }

  /** Removes a listener's claim and passes what it would restore on to the claim that took over from it. */
  private unclaim(url: string): { url: string; previous: string | undefined } | undefined {
    const at = this.claims.findLastIndex((c) => c.url === url);
    if (at < 0) return undefined;
    const [mine] = this.claims.splice(at, 1);
    for (const c of this.claims) if (c.previous === url) c.previous = mine!.previous;
    return mine;
  }

  private point(url: string | undefined): void {
    this.current = url;
    if (url) this.deliverPending();
  }

  /** Every event still pending with no attempt due (made while no URL was set) is queued, oldest first. */
  deliverPending(): void {
    if (!this.current) return;
    for (const rec of this.app.store.every('event')) {
      const d = (rec.obj as WebhookEvent).delivery;
      if (d.status === 'pending' && d.next_attempt_at === null) this.enqueue(rec.id);
    }
  }

  /** Requeues an event now (resend). */
  resend(tx: Tx, rec: Rec<WebhookEvent>): Rec<WebhookEvent> {
    const now = iso(this.app.clock.stamp());
    const delivery: WebhookEvent['delivery'] = { ...rec.obj.delivery, status: 'pending', next_attempt_at: this.url ? now : null };
    const next = this.app.store.put(tx, 'event', rec.scope, { ...rec.obj, delivery }, { ...rec.x, retry: 0 });
    if (this.url) tx.after.push(() => this.enqueue(rec.id));
    return next;
  }

  private enqueue(id: string): void {
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
      this.active.add(id);
      void this.attempt(id)
        .catch((err) => this.app.log(`webhook delivery of ${id} failed: ${(err as Error).message}`))
        .finally(() => {
          this.inFlight--;
          this.active.delete(id);
          this.pump();
        });
    }
  }

  private async attempt(id: string): Promise<void> {
    const rec = this.app.store.byId.get(id) as Rec<WebhookEvent> | undefined;
    const url = this.url;
    if (!rec || rec.obj.delivery.status !== 'pending' || this.abort.signal.aborted) return;
    if (!url) {
      this.update(rec, { ...rec.obj.delivery, next_attempt_at: null });
      return;
    }
    const e = rec.obj;
    const mode: Mode = e.livemode ? 'live' : 'sandbox';
    const body = JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, data: e.data });
    const started = Date.now();
    const attemptedAt = iso(this.app.clock.now());
    let code: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'pay-emulator', ...signedHeaders(this.secrets[mode], e.id, body) },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      });
      code = res.status;
      await res.body?.cancel().catch(() => {});
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
    });
    const retry = (x.retry as number | undefined) ?? 0;
    const ok = code !== null && code >= 200 && code < 300;
    const now = this.app.clock.now();
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
    this.update(current, delivery, { ...x, attempts, retry: ok ? retry : retry + 1 });
  }

  private update(rec: Rec<WebhookEvent>, delivery: WebhookEvent['delivery'], x?: Record<string, unknown>): void {
    const tx = this.app.tx();
    this.app.store.put(tx, 'event', rec.scope, { ...rec.obj, delivery }, x);
    this.app.commitInBackground(tx);
  }

  clear(): void {
    this.queue.length = 0;
    this.queued.clear();
  }

  stop(): void {
    this.abort.abort();
    this.clear();
  }
}

/**
 * The journal op of an event whose data.object is a record's object as that record stands (the
 * same object, not a copy): written with `"data":{}` and `"d":<the record's id>`, the replay
 * filling data.object in from the record (app.ts). Undefined for any other event.
 * `since`: in a snapshot written over several turns, the store's counter when it began; the
 * reference is only written for a subject unchanged since (its copy in the snapshot is the same).
 * `delivery`: the delivery's JSON when the caller knows it (emit(): UNDELIVERED_JSON).
 */
export function eventOp(store: Store, rec: Rec<WebhookEvent>, since = Infinity, delivery?: string): string | undefined {
  const e = rec.obj;
  const object = e.data.object as { id?: unknown } | null;
  if (object === null || typeof object !== 'object' || typeof object.id !== 'string') return undefined;
  // The fields written below, and no others (id, object, livemode, created_at, type, data, delivery).
  if (Object.keys(e).length !== 7) return undefined;
  const subject = store.byId.get(object.id);
  if (!subject || subject.obj !== object || subject.id === rec.id || subject.v > since) return undefined;
  return eventLine(rec, '{}', subject.id, delivery);
}

/**
 * JSON.stringify of the delivery emit() makes while no URL is set (the usual case), the same
 * text, written without the call (test/emulator/fingerprint.test.ts compares the two).
 */
export const UNDELIVERED_JSON = '{"status":"pending","attempts":0,"last_response_code":null,"last_attempt_at":null,"next_attempt_at":null}';

/** An event's put op with `data` as given (JSON text), and `"d"` when data.object is a reference. */
function eventLine(rec: Rec<WebhookEvent>, data: string, ref?: string, delivery = JSON.stringify(rec.obj.delivery)): string {
  const e = rec.obj;
  const x = rec.x === undefined ? '' : `,"x":${JSON.stringify(rec.x)}`;
  return (
    `{"p":"event","s":${quotedScope(rec.scope)},"o":{"id":"${e.id}","object":"event","livemode":${e.livemode},"created_at":"${e.created_at}","type":${JSON.stringify(e.type)},` +
    `"data":${data},"delivery":${delivery}}${ref === undefined ? '' : `,"d":"${ref}"`}${x}}`
  );
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `timeout after ${ATTEMPT_TIMEOUT_MS} ms`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}
