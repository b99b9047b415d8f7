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
import { opFault } from './data-dir.js';
import { Journal, OpNotUnderstood, type JournalOptions, type Op } from './journal.js';
import { Ledger } from './ledger.js';
import { RequestLog } from './request-log.js';
import { isOwnAddress } from '../shared/validate.js';
import { allRoutes } from './resources/index.js';
import { Router } from './router.js';
import { newObject, type Services } from './services.js';
import { json, putOp, Store } from './store.js';
import type { Base, Kind, Mode, Rec, Route, Tx, WebhookEvent } from './types.js';

export type { ReceivedRequest } from './request-log.js';

/** Most clock stops one advance makes (each runs what is due at that time). */
export const MAX_ADVANCE_STEPS = 10_000;
/**
 * Real time one advance waits for webhook deliveries in all (a slow endpoint takes up to 10 s an
 * attempt): under the CLI's default --timeout of 30 s.
 */
export const ADVANCE_WAIT_MS = 20_000;

/** What an advance did: the clock stops it made, and whether everything due up to the new time ran before it answered. */
export interface Advanced {
  steps: number;
  caughtUp: boolean;
}

interface AdvanceRun {
  /** The clock offset to reach (ms). */
  target: number;
  epoch: number;
  steps: number;
  /** Stopped stepping early (too many stops, or deliveries slower than ADVANCE_WAIT_MS). */
  cut: boolean;
  giveUpAt: number;
}

export interface AppConfig {
  dataDir?: string | undefined;
  settleAfterMs: number;
  webhookRetryScale: number;
  now?: (() => number) | undefined;
  log: (line: string) => void;
  /** Journal tuning (tests: compact small and over many turns). */
  journal?: JournalOptions | undefined;
  /** Files of the data dir a compaction left but that hold what was not loaded: set aside instead of refusing the start. */
  setAsideUnknown?: boolean | undefined;
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
    const own = new URL(this.url);
    return isOwnAddress(raw, { hostname: own.hostname, port: own.port || (own.protocol === 'https:' ? '443' : '80') });
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
      config.dataDir,
    );
    for (const r of allRoutes(this)) this.router.add(r.method, r.path, r);
  }

  /** Replays the data dir (if any) and re-arms everything that is due later. */
  open(): void {
    this.store.onNewId = (id) => this.ids.seen(id);
    try {
      this.journal.open((op) => this.apply(op), { has: (id) => this.store.byId.has(id), setAsideUnknown: this.config.setAsideUnknown });
    } finally {
      this.store.onNewId = undefined;
    }
    this.clock.atLeast(this.ids.lastMs);
    this.journal.snapshotOps = () => this.snapshot();
    for (const w of this.journal.warnings) this.log(`warning: ${w}`);
    for (const n of this.journal.notices) this.log(n);
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
    this.epoch++;
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
    const fault = opFault(op);
    if (fault) throw new OpNotUnderstood(fault);
    if ('p' in op) {
      if (op.d !== undefined) {
        // An event whose data.object was journaled as a reference (event-ops.ts eventOp).
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

  /**
   * Moves the emulator clock forward (persisted) and runs everything due up to the new time in
   * time order, including what becomes due because of what ran (a failed webhook attempt's retry,
   * a settlement's event): the clock stops at each due time on the way, runs what is due then and,
   * while a webhook URL is set, waits for the deliveries that started (and the commits whose
   * follow-ups start more) before it moves on. Bounded: at most MAX_ADVANCE_STEPS stops and
   * ADVANCE_WAIT_MS of real time waiting for deliveries; past either, the clock goes the rest of
   * the way at once and what is left runs from there (`caughtUp: false`). Advances run one after
   * another (a second one waits for the first); `check` runs when this one's turn comes, with the
   * offset it starts from, and may throw to refuse it. A reset meanwhile ends it. Without a
   * webhook URL nothing needs waiting for, and it runs to the end before it returns.
   */
  advance(seconds: number, check?: (offsetMs: number) => void): Promise<Advanced> {
    const start = (): Promise<Advanced> => {
      try {
        check?.(this.clock.offset);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      const run: AdvanceRun = {
        target: this.clock.offset + Math.round(seconds * 1000),
        epoch: this.epoch,
        steps: 0,
        cut: false,
        giveUpAt: Date.now() + ADVANCE_WAIT_MS,
      };
      return this.stepWhileIdle(run) ? Promise.resolve(this.finishAdvance(run)) : this.stepWaiting(run);
    };
    const turn = this.advancing ? this.advancing.then(start) : start();
    const mine = turn.then(
      () => undefined,
      () => undefined,
    );
    this.advancing = mine;
    void mine.then(() => {
      if (this.advancing === mine) this.advancing = undefined;
    });
    return turn;
  }

  /** The advance running or queued last (the next waits for it). */
  private advancing: Promise<void> | undefined;
  /** Changed by reset() and reload(): an advance under way stops moving the clock. */
  private epoch = 0;

  /**
   * Stops the clock at each due time up to the run's target and runs what is due then, as long as
   * nothing needs waiting for; true when it is done (at the target, cut short or ended by a reset).
   */
  private stepWhileIdle(run: AdvanceRun): boolean {
    for (let taken = 0; ; taken++) {
      if (run.epoch !== this.epoch || this.diskDown) return true;
      // What ran may have started deliveries (or will, once its commit is durable): wait for them.
      if (taken > 0 && (this.events.busy || this.events.anyUrl)) return false;
      const at = this.due.nextAt;
      const offset = at === undefined ? Infinity : at - (this.clock.now() - this.clock.offset);
      if (offset > run.target) return true;
      if (run.steps >= MAX_ADVANCE_STEPS) {
        run.cut = true;
        return true;
      }
      if (offset > this.clock.offset) this.moveClock(offset);
      run.steps++;
      if (this.due.run() === 0) return true; // stopped or paused: nothing more runs
    }
  }

  /** A step at a time, each after the deliveries the last one started have ended. */
  private async stepWaiting(run: AdvanceRun): Promise<Advanced> {
    for (;;) {
      if (!(await this.quiet(run.giveUpAt))) {
        run.cut = true;
        break;
      }
      // One step, then wait again (stepWhileIdle stops after one while a URL is set).
      if (this.stepWhileIdle(run)) break;
    }
    return this.finishAdvance(run);
  }

  /**
   * Until no delivery is queued or in flight and no commit is left whose follow-ups could start
   * one (false when `giveUpAt` passes first).
   */
  private async quiet(giveUpAt: number): Promise<boolean> {
    for (;;) {
      const mark = this.events.started + this.journal.stats.commits;
      await this.journal.drain();
      // The follow-ups of the commits just made durable (deliveries queued) run first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.events.busy) {
        if (!(await this.events.idle(giveUpAt - Date.now()))) return false;
        continue;
      }
      if (mark === this.events.started + this.journal.stats.commits) return true;
    }
  }

  private finishAdvance(run: AdvanceRun): Advanced {
    if (run.epoch === this.epoch) {
      if (run.target > this.clock.offset) this.moveClock(run.target);
      this.due.run();
    }
    return { steps: run.steps, caughtUp: !run.cut };
  }

  /** Sets the clock's offset forward (persisted). */
  private moveClock(offsetMs: number): void {
    this.clock.setOffset(offsetMs);
    this.commitInBackground({ ops: this.store.persist ? [`{"c":${offsetMs}}`] : [], after: [] });
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
    this.epoch++;
    // If the empty generation cannot be written, nothing changes (on disk or here): a 503.
    await this.journal.reset();
    this.diskDown = false;
    this.due.resume();
    this.store.clear();
    this.ledger.clear();
    this.idem.clear();
    this.due.clear();
    this.events.clear();
    this.clock.reset();
    this.ids.reset();
    this.requests.clear();
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
