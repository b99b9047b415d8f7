// The emulator's state and services in one place: clock, ids, store, journal, idempotency,
// ledger, events, the due queue, faults, identity and routes. It implements the narrow interfaces
// of services.ts: the ledger, events and resources see only those (handlers through Ctx.app).
import { Auth, loadIdentity, type Identity } from './auth.js';
import { Clock, iso } from './clock.js';
import { DueQueue } from './due.js';
import { eventOp, Events } from './events.js';
import { Faults } from './faults.js';
import { Idempotency } from './idempotency.js';
import { IdGen } from './ids.js';
import { Journal, type JournalOptions, type Op } from './journal.js';
import { Ledger } from './ledger.js';
import { RequestLog } from './request-log.js';
import { isLoopbackHost } from '../shared/validate.js';
import { allRoutes } from './resources/index.js';
import { Router } from './router.js';
import { newObject, type Services } from './services.js';
import { json, putOp, Store } from './store.js';
import type { Base, Kind, Mode, Rec, Route, Tx, WebhookEvent } from './types.js';

export type { ReceivedRequest } from './request-log.js';

export interface AppConfig {
  dataDir?: string | undefined;
  settleAfterMs: number;
  webhookRetryScale: number;
  now?: (() => number) | undefined;
  log: (line: string) => void;
  /** Journal tuning (tests: compact small and over many turns). */
  journal?: JournalOptions | undefined;
}

export class App implements Services {
  readonly clock: Clock;
  readonly ids = new IdGen();
  readonly store = new Store();
  readonly journal: Journal;
  readonly idem = new Idempotency();
  readonly due: DueQueue;
  readonly faults = new Faults();
  readonly identity: Identity;
  readonly auth: Auth;
  readonly ledger: Ledger;
  readonly events: Events;
  readonly router = new Router<Route>();
  /** Per kind: after a replay, re-arms the due items of a record (settlements, expiries, retries). */
  readonly scanners = new Map<Kind, (rec: Rec) => void>();
  /** The API requests received (request-log.ts: bounded, bodies as text). */
  readonly requests = new RequestLog();
  readonly received = this.requests.items;
  readonly counters = { requests: 0, internal_errors: 0 };
  readonly settleAfterMs: number;
  url = '';
  /**
   * True when a URL names this emulator (its port, on loopback or the address it listens on):
   * webhook deliveries there would act on it (POST /__emulator/reset) or loop.
   */
  isSelf(raw: string): boolean {
    if (!this.url) return false;
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return false;
    }
    const own = new URL(this.url);
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    return port === own.port && (isLoopbackHost(u.hostname) || u.hostname === own.hostname || u.hostname === '0.0.0.0');
  }
  /** When it started serving (real time, ms). */
  startedAt = Date.now();

  constructor(readonly config: AppConfig) {
    this.clock = new Clock(config.now);
    this.settleAfterMs = config.settleAfterMs;
    this.journal = new Journal(config.dataDir, config.journal);
    this.store.persist = this.journal.enabled;
    this.due = new DueQueue(this.clock, (err) => this.fault(err));
    this.identity = loadIdentity(config.dataDir);
    this.auth = new Auth(this.identity);
    this.ledger = new Ledger(this);
    this.events = new Events(
      this,
      { sandbox: this.identity.sandbox.webhook_secret, live: this.identity.live.webhook_secret },
      config.webhookRetryScale,
    );
    for (const r of allRoutes(this)) this.router.add(r.method, r.path, r);
  }

  /** Replays the data dir (if any) and re-arms everything that is due later. */
  open(): void {
    this.store.onNewId = (id) => this.ids.seen(id);
    try {
      this.journal.open((op) => this.apply(op));
    } finally {
      this.store.onNewId = undefined;
    }
    this.clock.atLeast(this.ids.lastMs);
    this.journal.snapshotOps = () => this.snapshot();
    for (const w of this.journal.warnings) this.log(`warning: ${w}`);
    this.journal.onLost = () => this.reload();
    this.journal.onRecovered = () => {
      this.diskDown = false;
      this.log('the data dir can be written again');
      this.due.resume();
      this.due.run();
    };
    this.rescan();
  }

  /**
   * After a commit was refused (the disk failed): the state in memory becomes what is on disk
   * again, so no refused change stays visible (objects, stored responses, the clock). Ids stay
   * increasing; requests in flight keep their Idempotency-Keys. Background work (settlements,
   * webhook retries) waits until the disk works again.
   */
  private reload(): void {
    if (!this.diskDown)
      this.log(
        `the data dir cannot be written (${this.journal.diskErrors.last}): changes are answered 503 until it can; state reloaded from disk`,
      );
    this.diskDown = true;
    this.due.pause();
    this.store.clear();
    this.ledger.clear();
    this.idem.clearStored();
    this.due.clear();
    this.events.clear();
    this.clock.setOffset(0);
    this.store.onNewId = (id) => this.ids.seen(id);
    try {
      this.journal.replay((op) => this.apply(op));
    } finally {
      this.store.onNewId = undefined;
    }
    this.clock.atLeast(this.ids.lastMs);
    this.rescan();
  }

  private apply(op: Op): void {
    if ('p' in op) {
      if (op.d !== undefined) {
        // An event whose data.object was journaled as a reference (events.ts eventOp).
        const rec = this.store.byId.get(op.d);
        if (!rec) throw new Error(`an event refers to ${op.d}, which is not there`);
        (op.o.data as { object: unknown }).object = rec.obj;
      }
      this.store.apply(op.p as Kind, op.s, op.o as unknown as Base, op.x);
    } else if ('i' in op) {
      if ('r' in op) {
        // The body is the record's JSON as of this op (journaled as a reference by idempotency.ts).
        const rec = this.store.byId.get(op.r);
        if (!rec) throw new Error(`a stored response refers to ${op.r}, which is not there`);
        this.idem.apply(op.i, { f: op.f, s: op.s, t: op.t, b: json(rec), r: rec });
      } else this.idem.apply(op.i, { f: op.f, s: op.s, t: op.t, b: JSON.stringify(op.j) });
    } else if ('c' in op) this.clock.setOffset(op.c);
  }

  /** Between a refused commit and the disk working again (background work is paused). */
  private diskDown = false;

  /** The store's counter when the last snapshot began (see refOk). */
  private snapshotSince = 0;

  /**
   * Whether a journal op made now may refer to `rec` instead of repeating it: always, unless a
   * background compaction runs; then only if `rec` was put since its snapshot began (so that the
   * put is replayed before the op, whatever state of the record the snapshot caught).
   */
  refOk(rec: Rec): boolean {
    return !this.journal.compacting || rec.v > this.snapshotSince;
  }

  /**
   * Every op of the current state. The journal may take it over several turns of the event loop
   * (journal.ts startBackground), keeping what is committed meanwhile to replay after it: a record
   * then reads as it is when reached, and a reference (an event's subject, a stored response's
   * record) is only written to a record unchanged since the start, whose copy is the same.
   */
  private *snapshot(): Iterable<string> {
    const since = this.store.seq;
    this.snapshotSince = since;
    yield `{"c":${this.clock.offset}}`;
    for (const rec of this.store.every())
      yield (rec.kind === 'event' && eventOp(this.store, rec as Rec<WebhookEvent>, since)) || putOp(rec);
    this.idem.sweep(this.clock.now());
    yield* this.idem.ops(since);
  }

  private rescan(): void {
    for (const rec of this.store.every()) this.scanners.get(rec.kind)?.(rec);
    this.due.run();
  }

  /** A new object: the standard fields, then `fields` (services.ts newObject). */
  create<T extends Base>(scope: string, prefix: string, object: string, fields: Omit<T, keyof Base>, mutable = true): T {
    return newObject<T>(this.clock, this.ids, scope, prefix, object, fields, mutable);
  }

  nowIso(): string {
    return iso(this.clock.stamp());
  }

  tx(): Tx {
    return { ops: [], after: [] };
  }

  /** Commits a change nobody waits for (settlements, delivery records); runs its follow-ups once durable. */
  commitInBackground(tx: Tx): void {
    this.journal.commit(tx.ops).then(
      () => {
        for (const f of tx.after) f();
      },
      (err) => this.fault(err),
    );
  }

  /** Moves the emulator clock forward (persisted) and runs what became due. */
  advance(seconds: number): void {
    this.clock.advance(seconds);
    this.commitInBackground({ ops: this.store.persist ? [`{"c":${this.clock.offset}}`] : [], after: [] });
    this.due.run();
  }

  log(line: string): void {
    this.config.log(line);
  }

  fault(err: unknown): void {
    this.counters.internal_errors++;
    this.log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }

  /** Forgets all data (objects, idempotency keys, events, clock offset); keys and settings stay. */
  async reset(): Promise<void> {
    try {
      await this.journal.reset();
      this.diskDown = false;
      this.due.resume();
    } finally {
      // Also when the new journal could not be opened: the files are gone either way.
      this.store.clear();
      this.ledger.clear();
      this.idem.clear();
      this.due.clear();
      this.events.clear();
      this.clock.reset();
      this.ids.reset();
      this.requests.clear();
    }
  }

  /** `<mode>|<tenant>`: one string per scope, kept on every record (at most 1000 tenants remembered per mode). */
  static scope(mode: Mode, tenant: string): string {
    const known = SCOPES[mode];
    let s = known.get(tenant);
    if (s === undefined) {
      s = `${mode}|${tenant}`;
      if (known.size >= 1000) known.clear();
      known.set(tenant, s);
    }
    return s;
  }
}

const SCOPES: Record<Mode, Map<string, string>> = { sandbox: new Map(), live: new Map() };
