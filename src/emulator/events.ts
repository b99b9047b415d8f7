// Webhook events and their delivery. Every state change emits an event (stored, listed by
// GET /webhooks/events). Each mode has its own webhook URL, as a real service has webhook
// endpoints per mode: a Sandbox event goes to the Sandbox URL, signed with the Sandbox secret, a
// Live one to the Live URL with the Live secret. With its mode's URL configured, an event is POSTed
// there, signed per Standard Webhooks; 2xx = delivered, anything else is retried after 5 s, 30 s,
// 2 min and 10 min of emulator time (times `retryScale`), then `failed`. Without one it stays
// `pending` (next_attempt_at null); setting that mode's URL delivers every such event of the mode.
// Deliveries go to the configured URL only: redirects are not followed.
//
// Events holds the events themselves (emit, resend); where each mode's go, and the listeners'
// claims on it, is WebhookUrls (webhook-urls.ts); the attempts, Deliveries (deliveries.ts); an
// event's journal line, event-ops.ts.
import type { EventServices } from './services.js';
import { json } from './store.js';
import type { Json, Mode, Rec, Tx, WebhookEvent } from './types.js';
import { Deliveries, owedOf } from './deliveries.js';
import { eventLine, eventOp, UNDELIVERED_JSON } from './event-ops.js';
import { WebhookUrls } from './webhook-urls.js';
import { iso } from './clock.js';

export { RETRY_DELAYS_S } from './deliveries.js';
export { eventOp, UNDELIVERED_JSON } from './event-ops.js';
export { MODES } from './webhook-urls.js';

const modeOf = (e: WebhookEvent): Mode => (e.livemode ? 'live' : 'sandbox');

export class Events {
  private readonly urls: WebhookUrls;
  private readonly deliveries: Deliveries;

  constructor(
    private readonly app: EventServices,
    readonly secrets: Record<Mode, string>,
    retryScale: number,
    dataDir?: string,
  ) {
    this.urls = new WebhookUrls(
      dataDir,
      (line) => app.log(line),
      (mode) => this.deliveries.deliverPending(mode),
    );
    this.deliveries = new Deliveries(app, secrets, retryScale, (mode) => this.urls.urlOf(mode));
  }

  /**
   * Records an event for a state change (the subject: the changed record, or a plain view like
   * FeatureStatus); delivery is scheduled once the change is durable.
   */
  emit(tx: Tx, scope: string, type: string, subject: Rec | Json): void {
    const isRec = (s: Rec | Json): s is Rec => typeof (s as Rec).kind === 'string' && typeof (s as Rec).obj === 'object';
    const object = isRec(subject) ? subject.obj : subject;
    const delivery: WebhookEvent['delivery'] = {
      status: 'pending',
      attempts: 0,
      last_response_code: null,
      last_attempt_at: null,
      next_attempt_at: null,
    };
    const event = this.app.create<WebhookEvent>(scope, 'evt_', 'event', { type, data: { object }, delivery }, false);
    const url = this.urlOf(modeOf(event));
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
    if (url) tx.after.push(() => this.deliveries.enqueue(event.id));
  }

  /** Requeues an event now (resend). */
  resend(tx: Tx, rec: Rec<WebhookEvent>): Rec<WebhookEvent> {
    const now = iso(this.app.clock.stamp());
    const url = this.urlOf(modeOf(rec.obj));
    const delivery: WebhookEvent['delivery'] = { ...rec.obj.delivery, status: 'pending', next_attempt_at: url ? now : null };
    // Owed: an attempt in flight now leaves the event pending and this one follows it (Deliveries).
    const owed = owedOf(rec) + 1;
    const next = this.app.store.put(tx, 'event', rec.scope, { ...rec.obj, delivery }, { ...rec.x, retry: 0, owed });
    if (url) tx.after.push(() => this.deliveries.enqueue(rec.id));
    return next;
  }

  /** Where the mode's events are delivered (undefined: nowhere, they stay pending). */
  urlOf(mode: Mode): string | undefined {
    return this.urls.urlOf(mode);
  }

  /** Sets the mode's URL by hand (or unsets it): listeners' claims on it end (WebhookUrls.setUrl). */
  setUrl(url: string | undefined, mode: Mode): void {
    this.urls.setUrl(url, mode);
  }

  /** A listener takes the mode's URL; returns the one it took over (WebhookUrls.takeUrl). */
  takeUrl(url: string, mode: Mode): string | undefined {
    return this.urls.takeUrl(url, mode);
  }

  /** A listener gives the mode's URL back: true if restored (WebhookUrls.releaseUrl). */
  releaseUrl(url: string, mode: Mode): Promise<boolean> {
    return this.urls.releaseUrl(url, mode);
  }

  /** Takes over the URLs and claims the data dir's last run saved (WebhookUrls.restore). */
  restore(isSelf: (url: string) => boolean): void {
    this.urls.restore(isSelf);
  }

  /** Why the last save of the URLs failed (undefined: saved, or no data dir). */
  get saveError(): string | undefined {
    return this.urls.saveError;
  }

  /** Whether any mode has a URL (else no attempt can start). */
  get anyUrl(): boolean {
    return this.urls.anyUrl;
  }

  /** Queues every event still pending with no attempt due, of the mode or of both (Deliveries.deliverPending). */
  deliverPending(mode?: Mode): void {
    this.deliveries.deliverPending(mode);
  }

  /** Delivery attempts started so far (App.advance: whether a pause started new ones). */
  get started(): number {
    return this.deliveries.started;
  }

  /** Whether an attempt is queued or in flight. */
  get busy(): boolean {
    return this.deliveries.busy;
  }

  /** Resolves true once no attempt is queued or in flight, or false after `ms` of real time. */
  idle(ms: number): Promise<boolean> {
    return this.deliveries.idle(ms);
  }

  clear(): void {
    this.deliveries.clear();
  }

  stop(): void {
    this.deliveries.stop();
  }
}
