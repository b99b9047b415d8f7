// What the parts of the emulator need from it, and no more. The ledger needs records (a store, a
// clock, new objects); events need those and the background machinery; resources need the rest
// of a request's services. App (app.ts) assembles and implements them all; tests build a Ledger
// or a resource over fakes (test/emulator/ledger-unit.test.ts: the ledger with no server).
import { iso, type Clock } from './clock.js';
import type { DueQueue } from './due.js';
import type { IdGen } from './ids.js';
import type { Events } from './events.js';
import type { Ledger } from './ledger.js';
import type { Store } from './store.js';
import type { Base, Kind, Rec, Tx } from './types.js';

/**
 * The standard fields of a new object, then `fields`: the id (prefix + a time-ordered suffix),
 * object, livemode (from the scope), created_at and, when mutable, updated_at. (Object.assign onto
 * the standard fields, not `{...base, ...}`: spreading then adding properties is a slow path in V8.)
 */
export function newObject<T extends Base>(
  clock: Clock,
  ids: IdGen,
  scope: string,
  prefix: string,
  object: string,
  fields: Omit<T, keyof Base>,
  mutable = true,
): T {
  const ms = clock.stamp();
  const at = iso(ms);
  const id = ids.make(prefix, ms);
  const livemode = scope.startsWith('live|');
  const o: Base = mutable ? { id, object, livemode, created_at: at, updated_at: at } : { id, object, livemode, created_at: at };
  return Object.assign(o, fields) as T;
}

/** Records: where objects live, the emulator's clock, and the standard fields of a new object. */
export interface RecordServices {
  readonly store: Store;
  readonly clock: Clock;
  /** A new object: id (prefix + time-ordered suffix), object, livemode, created_at/updated_at, then `fields`. */
  create<T extends Base>(scope: string, prefix: string, object: string, fields: Omit<T, keyof Base>, mutable?: boolean): T;
}

/** Work that happens after a request: the due queue, re-arming after a replay, commits nobody waits for. */
export interface BackgroundServices extends RecordServices {
  readonly due: DueQueue;
  /** Per kind: after a replay, re-arms the due items of a record (settlements, expiries, retries). */
  readonly scanners: Map<Kind, (rec: Rec) => void>;
  nowIso(): string;
  tx(): Tx;
  /** Commits a change nobody waits for (settlements, delivery records); runs its follow-ups once durable. */
  commitInBackground(tx: Tx): void;
}

/** What webhook events need besides: ids of delivery records, the journal's reference rule, the log. */
export interface EventServices extends BackgroundServices {
  readonly ids: IdGen;
  refOk(rec: Rec): boolean;
  log(line: string): void;
}

/** What a resource's routes need (resources/*.ts). */
export interface Services extends BackgroundServices {
  readonly ledger: Ledger;
  readonly events: Events;
  /** How long pending transfers, collections, KYC reviews and physical cards take to settle. */
  readonly settleAfterMs: number;
}
