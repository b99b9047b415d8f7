// In-memory state: records by id (O(1) lookups), and per (scope, kind) arrays in creation order,
// plus secondary arrays per indexed field value. Ids sort in creation order, so every array is
// sorted by id: lists walk an array backwards from the end (newest first) or from a cursor found
// by binary search, with no sorting per request. Objects are never mutated in place: an update
// puts a new object into the same record, which drops its cached JSON.
import { invalidParameter } from './problems.js';
import type { Base, Json, Kind, Rec, Tx } from './types.js';

/** Keys (`field=value`) a record is listed under besides its kind's main list. Immutable fields only. */
export type Indexer = (obj: never) => string[];
export type PutHook = (prev: Base | undefined, next: Rec) => void;

export interface PageQuery {
  /** Use the array of this index key (`customer_id=cus_…`) instead of the kind's main list. */
  index?: string | undefined;
  /** Other filters, checked per record. */
  match?: ((obj: never) => boolean) | undefined;
  /** Walking newest→oldest: stop at the first record for which this is true. */
  stop?: ((obj: never) => boolean) | undefined;
  /** Only records created at or after this time (ISO, as created_at is written): the walk stops at the first older one. */
  from?: string | undefined;
  /** Only records created before this time (exclusive). */
  to?: string | undefined;
  limit: number;
  cursor?: string | undefined;
  /** A string naming the filters; a cursor only works with the same filters. */
  filterKey: string;
}

export class Store {
  readonly byId = new Map<string, Rec>();
  private readonly lists = new Map<string, Rec[]>();
  /** Each scope's main list per kind: the arrays of `lists`, found without building their key (a put's hot path). */
  private readonly mains = new Map<string, Map<Kind, Rec[]>>();
  private readonly indexers = new Map<Kind, Indexer>();
  private readonly hooks = new Map<Kind, PutHook[]>();
  private readonly counts = new Map<Kind, number>();
  /** Journal ops are serialized only when something persists them. */
  persist = false;
  /** Counts puts; each record keeps the count of its last one in `v`. */
  seq = 0;
  /** Called for every new id (the id generator keeps ids increasing after a replay). */
  onNewId: ((id: string) => void) | undefined;

  index(kind: Kind, indexer: Indexer): void {
    this.indexers.set(kind, indexer);
  }

  hook(kind: Kind, fn: PutHook): void {
    const list = this.hooks.get(kind) ?? [];
    list.push(fn);
    this.hooks.set(kind, list);
  }

  get<T extends Base>(kind: Kind, scope: string, id: string): Rec<T> | undefined {
    const r = this.byId.get(id);
    return r && r.kind === kind && r.scope === scope ? (r as unknown as Rec<T>) : undefined;
  }

  /** Creates or replaces an object; records the journal op in the transaction. */
  put<T extends Base>(tx: Tx | undefined, kind: Kind, scope: string, obj: T, x?: Json, serialized?: string): Rec<T> {
    const rec = this.apply(kind, scope, obj, x);
    if (serialized !== undefined) rec.json = serialized;
    if (tx && this.persist) tx.ops.push(putOp(rec));
    return rec as unknown as Rec<T>;
  }

  /** The state change itself (also used by the journal replay). */
  apply(kind: Kind, scope: string, obj: Base, x: Json | undefined): Rec {
    let rec = this.byId.get(obj.id);
    const prev = rec?.obj;
    if (rec) {
      rec.obj = obj;
      if (x !== undefined) rec.x = x;
      rec.json = undefined;
      rec.v = ++this.seq;
    } else {
      rec = { kind, id: obj.id, scope, obj, x, json: undefined, v: ++this.seq };
      this.byId.set(obj.id, rec);
      this.pushInto(this.mainList(scope, kind), rec);
      const indexer = this.indexers.get(kind) as ((o: Base) => string[]) | undefined;
      if (indexer) for (const key of indexer(obj)) this.push(`${scope}|${kind}|${key}`, rec);
      this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
      this.onNewId?.(obj.id);
    }
    const hooks = this.hooks.get(kind);
    if (hooks) for (const h of hooks) h(prev, rec);
    return rec;
  }

  private push(key: string, rec: Rec): void {
    const list = this.lists.get(key);
    if (!list) this.lists.set(key, [rec]);
    else this.pushInto(list, rec);
  }

  private pushInto(list: Rec[], rec: Rec): void {
    if (list.length === 0 || list[list.length - 1]!.id < rec.id) list.push(rec);
    else {
      // Out of order (a replayed snapshot written in map order): insert at its place.
      list.splice(lowerBound(list, rec.id), 0, rec);
    }
  }

  /** The main list of a kind in a scope (made, and put into `lists`, when it has none). */
  private mainList(scope: string, kind: Kind): Rec[] {
    let kinds = this.mains.get(scope);
    if (!kinds) this.mains.set(scope, (kinds = new Map<Kind, Rec[]>()));
    let list = kinds.get(kind);
    if (!list) {
      const key = `${scope}|${kind}`;
      list = this.lists.get(key);
      if (!list) this.lists.set(key, (list = []));
      kinds.set(kind, list);
    }
    return list;
  }

  /** All records of a kind in a scope, oldest first (do not modify). */
  all(scope: string, kind: Kind): readonly Rec[] {
    return this.lists.get(`${scope}|${kind}`) ?? [];
  }

  /** The newest record of a kind (under an index key), if any. */
  last<T extends Base>(scope: string, kind: Kind, index?: string): Rec<T> | undefined {
    const list = this.lists.get(index ? `${scope}|${kind}|${index}` : `${scope}|${kind}`);
    return list?.[list.length - 1] as Rec<T> | undefined;
  }

  /** Every record of a kind in every scope. */
  *every(kind?: Kind): Iterable<Rec> {
    for (const r of this.byId.values()) if (!kind || r.kind === kind) yield r;
  }

  /** One page, newest first: `{object:"list", data, has_more, next_cursor}` serialized. */
  page(scope: string, kind: Kind, q: PageQuery): string {
    const list = this.lists.get(q.index ? `${scope}|${kind}|${q.index}` : `${scope}|${kind}`) ?? [];
    let i = list.length - 1;
    if (q.cursor !== undefined) {
      const after = decodeCursor(q.cursor, q.filterKey);
      i = lowerBound(list, after) - 1;
    }
    const match = q.match as ((o: Base) => boolean) | undefined;
    const stop = q.stop as ((o: Base) => boolean) | undefined;
    const out: Rec[] = [];
    let hasMore = false;
    const { from, to } = q;
    for (; i >= 0; i--) {
      const r = list[i]!;
      if (stop && stop(r.obj)) break;
      // Lists are in creation order: once created_at drops below `from`, nothing older can match.
      if (from !== undefined && r.obj.created_at < from) break;
      if (to !== undefined && r.obj.created_at >= to) continue;
      if (match && !match(r.obj)) continue;
      if (out.length === q.limit) {
        hasMore = true;
        break;
      }
      out.push(r);
    }
    const next = hasMore ? encodeCursor(out[out.length - 1]!.id, q.filterKey) : null;
    return listJson(out.map(json), hasMore, next);
  }

  count(kind: Kind): number {
    return this.counts.get(kind) ?? 0;
  }

  stats(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort());
  }

  /** Object counts per scope (`sandbox|<tenant>`) and kind. */
  scopeStats(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [key, list] of this.lists) {
      const parts = key.split('|');
      if (parts.length !== 3) continue; // index lists have a fourth part
      (out[`${parts[0]}|${parts[1]}`] ??= {})[parts[2]!] = list.length;
    }
    return out;
  }

  clear(): void {
    this.byId.clear();
    this.lists.clear();
    this.mains.clear();
    this.counts.clear();
  }
}

/** The cached JSON of a record. */
export function json(rec: Rec): string {
  return (rec.json ??= JSON.stringify(rec.obj));
}

// JSON.stringify of scopes (`sandbox|biz_…`), which repeat from op to op (bounded: a request may
// name any tenant, so at most 1000 of them).
const quotedScopes = new Map<string, string>();

/** JSON.stringify(scope), remembered. */
export function quotedScope(scope: string): string {
  let q = quotedScopes.get(scope);
  if (q === undefined) {
    q = JSON.stringify(scope);
    if (quotedScopes.size >= 1000) quotedScopes.clear();
    quotedScopes.set(scope, q);
  }
  return q;
}

export function putOp(rec: Rec): string {
  const x = rec.x === undefined ? '' : `,"x":${JSON.stringify(rec.x)}`;
  return `{"p":"${rec.kind}","s":${quotedScope(rec.scope)},"o":${json(rec)}${x}}`;
}

export const listJson = (items: string[], hasMore: boolean, next: string | null): string =>
  `{"object":"list","data":[${items.join(',')}],"has_more":${hasMore},"next_cursor":${next === null ? 'null' : JSON.stringify(next)}}`;

/** First index whose id is >= the given id. */
function lowerBound(list: readonly Rec[], id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A short, stable fingerprint of the filters (FNV-1a). */
export function filterHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

export function encodeCursor(lastId: string, filterKey: string): string {
  return Buffer.from(`v1:${lastId}:${filterHash(filterKey)}`).toString('base64url');
}

export function decodeCursor(cursor: string, filterKey: string): string {
  const raw = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : '';
  const m = /^v1:([a-z_]{1,40}[0-9a-z]{1,24}|[a-z_]{1,40}):([0-9a-z]{1,8})$/.exec(raw);
  if (!m) throw invalidParameter('cursor', 'not a cursor this service issued (pass next_cursor from the previous page)');
  if (m[2] !== filterHash(filterKey))
    throw invalidParameter('cursor', 'the cursor was issued for other filters; send the same filters as for the first page');
  return m[1]!;
}
