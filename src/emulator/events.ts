// Webhook events and their delivery. Every state change emits an event (stored, listed by
// GET /webhooks/events). Each mode has its own webhook URL, as a real service has webhook
// endpoints per mode: a Sandbox event goes to the Sandbox URL, signed with the Sandbox secret, a
// Live one to the Live URL with the Live secret. With its mode's URL configured, an event is POSTed
// there, signed per Standard Webhooks; 2xx = delivered, anything else is retried after 5 s, 30 s,
// 2 min and 10 min of emulator time (times `retryScale`), then `failed`. Without one it stays
// `pending` (next_attempt_at null); setting that mode's URL delivers every such event of the mode.
// Deliveries go to the configured URL only: redirects are not followed.
//
// A mode's URL is set by hand (`setUrl`: pay emulator webhook-url, --webhook-url) or taken by a
// listener (`takeUrl`: pay webhooks listen), which gives it back when it stops (`releaseUrl`): the
// URL it took over comes back only if the URL is still the listener's. Listeners that overlap form a
// chain: when one in the middle stops, the one after it inherits what it would have restored, so the
// last to stop restores the URL from before the first. A listener that never gives its URL back
// (killed with kill -9) is skipped: a give-back that would restore its URL asks whether anything
// still accepts connections there, and if not restores what that one would have (pastDeadClaims).
// Setting a URL by hand ends every claim. All of this is per mode: the two modes' URLs and claims
// never touch. With a data dir, the URLs and claims are saved on every change (webhook-file.ts) and
// restored at start (restore), so a restart delivers where the last run did and a listen that was
// running gives back what it took over.
import { connect } from 'node:net';
import { signedHeaders } from '../shared/signature.js';
import type { EventServices } from './services.js';
import { iso } from './clock.js';
import { json, quotedScope, type Store } from './store.js';
import type { DeliveryAttempt, Json, Mode, Rec, Tx, WebhookEvent } from './types.js';
import { FileRefusedError } from '../shared/atomic-write.js';
import { loadWebhookSettings, MAX_CLAIMS, saveWebhookSettings, type Claim, type WebhookSettings } from './webhook-file.js';

export const RETRY_DELAYS_S = [5, 30, 120, 600];
const MAX_IN_FLIGHT = 8;
const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ATTEMPTS_KEPT = 50;
/** How long a give-back waits for a listener on its chain to accept a connection (events.ts pastDeadClaims). */
const LIVENESS_TIMEOUT_MS = 1000;
/** How many listeners down the chain a give-back asks at most. */
const MAX_CHAIN_ASKED = 32;

export const MODES: readonly Mode[] = ['sandbox', 'live'];

const modeOf = (e: WebhookEvent): Mode => (e.livemode ? 'live' : 'sandbox');

export class Events {
  /** Where each mode's events are delivered. */
  private readonly current: Record<Mode, string | undefined> = { sandbox: undefined, live: undefined };
  /** Per mode, the listeners holding its URL, oldest first: each with the URL it would give back. */
  private readonly claims: Record<Mode, Claim[]> = { sandbox: [], live: [] };
  /** Read from the data dir at construction, applied by restore() once the emulator knows its own address. */
  private saved: WebhookSettings | undefined;
  /** Why the last save failed (undefined: saved, or no data dir); the admin route reports it. */
  saveError: string | undefined;
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
    readonly secrets: Record<Mode, string>,
    private readonly retryScale: number,
    private readonly dataDir?: string,
  ) {
    this.saved = dataDir === undefined ? undefined : loadWebhookSettings(dataDir);
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
    if (url) tx.after.push(() => this.enqueue(event.id));
  }

  /** Where the mode's events are delivered (undefined: nowhere, they stay pending). */
  urlOf(mode: Mode): string | undefined {
    return this.current[mode];
  }

  /** Sets the mode's URL by hand (or unsets it): listeners' claims on it end. The mode's events still pending with no attempt due are delivered. */
  setUrl(url: string | undefined, mode: Mode): void {
    this.claims[mode].length = 0;
    this.point(url, mode);
    this.save();
  }

  /**
   * Takes over the URLs and claims the data dir's last run saved (once `isSelf` knows this run's
   * address). A listener whose URL names this emulator now (restarted on that port) is gone: its
   * claim ends and, if it held the URL, what it would have given back is restored, as for a killed
   * one; any other URL naming the emulator becomes none. Events are not delivered here: the caller
   * runs deliverPending().
   */
  restore(isSelf: (url: string) => boolean): void {
    const saved = this.saved;
    this.saved = undefined;
    if (!saved) return;
    for (const mode of MODES) {
      this.claims[mode] = saved[mode].claims.map((c) => ({ ...c }));
      let url = saved[mode].url;
      // Oldest first: an ended claim's give-back target is passed on before a later one reads it.
      for (const c of [...this.claims[mode]])
        if (isSelf(c.url)) {
          const gone = this.unclaim(c.url, mode);
          if (gone && url === c.url) url = gone.previous;
        }
      for (const c of this.claims[mode]) if (c.previous !== undefined && isSelf(c.previous)) c.previous = undefined;
      this.current[mode] = url !== undefined && !isSelf(url) ? url : undefined;
    }
    this.save();
  }

  /** Saves the URLs and claims in the data dir (if any); a failure is remembered in saveError and logged, the change stays in effect. */
  private save(): void {
    if (this.dataDir === undefined) return;
    try {
      saveWebhookSettings(this.dataDir, {
        sandbox: { url: this.current.sandbox, claims: this.claims.sandbox },
        live: { url: this.current.live, claims: this.claims.live },
      });
      this.saveError = undefined;
    } catch (err) {
      this.saveError = err instanceof FileRefusedError ? err.reason : ((err as NodeJS.ErrnoException).code ?? (err as Error).message);
      this.app.log(`could not save the webhook URLs in the data dir (${this.saveError}): they hold until the emulator stops`);
    }
  }

  /** A listener takes the mode's URL; returns the one it took over (restored by releaseUrl if the URL is still the listener's). */
  takeUrl(url: string, mode: Mode): string | undefined {
    // The same listener again (restarted on its port without releasing): one claim, not a claim on itself.
    const old = this.unclaim(url, mode);
    const previous = old && this.current[mode] === url ? old.previous : this.current[mode];
    this.claims[mode].push({ url, previous });
    // Bounded (the saved file too): the oldest claim ends, what it would restore passed on.
    while (this.claims[mode].length > MAX_CLAIMS) this.unclaim(this.claims[mode][0]!.url, mode);
    this.point(url, mode);
    this.save();
    return previous;
  }

  /**
   * A listener gives the mode's URL back: restored to what it took over if the URL is still the
   * listener's (true); else left as it is (false), and the listener that took over from it will
   * restore what this one would have.
   */
  async releaseUrl(url: string, mode: Mode): Promise<boolean> {
    const mine = this.unclaim(url, mode);
    if (!mine || this.current[mode] !== url) {
      if (mine) this.save();
      return false;
    }
    const restore = await this.pastDeadClaims(mine.previous, mode);
    // Changed while the listeners were asked (set by hand, or another listen took it): left as it is.
    if (this.current[mode] !== url) {
      for (const c of this.claims[mode]) if (c.previous === url) c.previous = restore;
      this.save();
      return false;
    }
    this.point(restore, mode);
    this.save();
    return true;
  }

  /**
   * What a give-back restores: `previous`, unless it is the URL of a listener that still holds a
   * claim but is gone (killed with kill -9: nothing accepts a connection at its address); then that
   * claim ends and what it would have restored is taken instead, and so on down the chain. The
   * listeners on the chain are asked all at once (at most LIVENESS_TIMEOUT_MS).
   */
  private async pastDeadClaims(previous: string | undefined, mode: Mode): Promise<string | undefined> {
    const chain: Claim[] = [];
    for (let at = previous; at !== undefined && chain.length < MAX_CHAIN_ASKED;) {
      const claim = this.claims[mode].find((c) => c.url === at);
      if (!claim || chain.includes(claim)) break;
      chain.push(claim);
      at = claim.previous;
    }
    if (chain.length === 0) return previous;
    const alive = await Promise.all(chain.map((c) => answers(c.url)));
    let restore = previous;
    for (let i = 0; i < chain.length && !alive[i]; i++) {
      // Ended now, not at its own give-back (which will never come): the next claims skip it too.
      if (this.unclaim(chain[i]!.url, mode)) restore = chain[i]!.previous;
      else break;
    }
    return restore;
  }

  /** Removes a listener's claim and passes what it would restore on to the claim that took over from it. */
  private unclaim(url: string, mode: Mode): Claim | undefined {
    const claims = this.claims[mode];
    const at = claims.findLastIndex((c) => c.url === url);
    if (at < 0) return undefined;
    const [mine] = claims.splice(at, 1);
    for (const c of claims) if (c.previous === url) c.previous = mine!.previous;
    return mine;
  }

  private point(url: string | undefined, mode: Mode): void {
    this.current[mode] = url;
    if (url) this.deliverPending(mode);
  }

  /** Every event of the mode (both modes when none is named) still pending with no attempt due (made while no URL was set) is queued, oldest first. */
  deliverPending(mode?: Mode): void {
    if (!(mode ? [mode] : MODES).some((m) => this.current[m])) return;
    for (const rec of this.app.store.every('event')) {
      const e = rec.obj as WebhookEvent;
      const m = modeOf(e);
      if ((mode === undefined || m === mode) && this.current[m] && e.delivery.status === 'pending' && e.delivery.next_attempt_at === null)
        this.enqueue(rec.id);
    }
  }

  /** Requeues an event now (resend). */
  resend(tx: Tx, rec: Rec<WebhookEvent>): Rec<WebhookEvent> {
    const now = iso(this.app.clock.stamp());
    const url = this.urlOf(modeOf(rec.obj));
    const delivery: WebhookEvent['delivery'] = { ...rec.obj.delivery, status: 'pending', next_attempt_at: url ? now : null };
    const next = this.app.store.put(tx, 'event', rec.scope, { ...rec.obj, delivery }, { ...rec.x, retry: 0 });
    if (url) tx.after.push(() => this.enqueue(rec.id));
    return next;
  }

  /** Whether any mode has a URL (else no attempt can start). */
  get anyUrl(): boolean {
    return MODES.some((m) => this.current[m] !== undefined);
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
      this.started++;
      this.active.add(id);
      void this.attempt(id)
        .catch((err) => this.app.log(`webhook delivery of ${id} failed: ${(err as Error).message}`))
        .finally(() => {
          this.inFlight--;
          this.active.delete(id);
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
    this.pump(); // wakes idle() waiters when nothing is in flight
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

/** Whether something accepts a TCP connection at the URL's host and port (a listener that is still there). */
function answers(raw: string): Promise<boolean> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(LIVENESS_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
