// The routes every object with a path of its own has, written once (as the contract's
// `listAndGet()` and `action()` write its operations): the list (filters checked, a store index
// or a test per record, pages by cursor, newest first), the get by id (404 not_found), and the
// state transitions (allowed-from states, 409 invalid_state otherwise). A resource declares what
// differs: its filters, which of them the store indexes, the moves and their checks.
import { OBJECT_KINDS } from '../../shared/domain.js';
import { invalidState } from '../problems.js';
import type { Base, Ctx, Kind, QueryCheck, Rec, Reply, Route } from '../types.js';
import { change, emptyOk, load, ok, okRaw, pageOf, TIME_QUERY } from './common.js';

/** An object with routes of its own: its kind (its id prefix is OBJECT_KINDS'), where it lives, what a 404 calls it. */
export interface Resource<T extends Base> {
  kind: Kind & keyof typeof OBJECT_KINDS;
  /** `no <noun> <id> here`. */
  noun: string;
  /** The collection, `/transfers`; one object is at `<path>/{<param>}`. */
  path: string;
  param: string;
  /** Only types the resource's records (`Rec<T>`). */
  readonly type?: T;
}

export const resource = <T extends Base>(r: Omit<Resource<T>, 'type'>): Resource<T> => r;

/** The object the request's path names, or 404 (a malformed id too: ids are opaque). */
export function fromPath<T extends Base>(r: Resource<T>, ctx: Ctx): Rec<T> {
  return load<T>(ctx, r.kind, OBJECT_KINDS[r.kind].prefix, ctx.params[r.param], r.noun);
}

/**
 * A list filter: its check, and how a record meets it when the store's index does not answer it
 * (by default, the object's field of the filter's name equals the value).
 */
export type Filter<T> = QueryCheck | { check: QueryCheck; test: (value: string) => (obj: T) => boolean };

export interface ListSpec<T> {
  op: string;
  /** In the order the cursor's filter key names them. */
  filters: Readonly<Record<string, Filter<T>>>;
  /**
   * The filters the store indexes (`app.store.index`, keys `<name>=<value>`), most selective
   * first: the first one given picks the records, the others given are tested. A filter only an
   * index can answer (one of two fields, an id inside `data`) must be the only one.
   */
  indexes?: readonly string[];
  tenantRequired?: boolean;
}

const byField =
  (name: string) =>
  (value: string) =>
  (obj: unknown): boolean =>
    (obj as Record<string, unknown>)[name] === value;

/** GET <path>: one page of the scope's records, newest first, with the filters and the created_at range. */
export function listRoute<T extends Base>(r: Resource<T>, spec: ListSpec<T>): Route {
  const names = Object.keys(spec.filters);
  const indexes = spec.indexes ?? [];
  const query: Record<string, QueryCheck> = {};
  const tests: Record<string, (value: string) => (obj: T) => boolean> = {};
  for (const [name, f] of Object.entries(spec.filters)) {
    query[name] = typeof f === 'function' ? f : f.check;
    tests[name] = typeof f === 'function' ? byField(name) : f.test;
  }
  return {
    method: 'GET',
    path: r.path,
    op: spec.op,
    list: true,
    ...(spec.tenantRequired ? { tenantRequired: true } : {}),
    query: { ...query, ...TIME_QUERY },
    handler: (ctx) => {
      const by = indexes.find((name) => ctx.query.get(name));
      const match: Array<(obj: T) => boolean> = [];
      for (const name of names) {
        const value = ctx.query.get(name);
        if (value && name !== by) match.push(tests[name]!(value));
      }
      return okRaw(
        ctx.app.store.page(ctx.scope, r.kind, {
          ...pageOf(ctx, names),
          index: by === undefined ? undefined : `${by}=${ctx.query.get(by)}`,
          match: match.length === 0 ? undefined : match.length === 1 ? match[0] : (obj: T) => match.every((m) => m(obj)),
        }),
      );
    },
  };
}

/** GET <path>/{<param>}: the object, or 404 not_found; `show` answers with something other than the record. */
export function getRoute<T extends Base>(r: Resource<T>, op: string, show: (rec: Rec<T>) => Reply = ok): Route {
  return { method: 'GET', path: `${r.path}/{${r.param}}`, op, handler: (ctx) => show(fromPath(r, ctx)) };
}

/**
 * The list and the get of a resource (the contract's `listAndGet()`), with the list's filters: their
 * operations are named after the kind, as the contract names them (`fx_trade`: listFxTrades, getFxTrade).
 */
export function listAndGet<T extends Base>(r: Resource<T>, o: Omit<ListSpec<T>, 'op'>): Route[] {
  const name = r.kind.replace(/(?:^|_)(\w)/g, (_, c: string) => c.toUpperCase());
  return [listRoute(r, { ...o, op: `list${name}s` }), getRoute(r, `get${name}`)];
}

export interface Move<T extends Base & { status: string }> {
  op: string;
  /** POST <path>/{<param>}/<action>, which takes no body (an empty object at most); or DELETE of the object itself. */
  action: string | { method: 'DELETE' };
  from: readonly T['status'][];
  to: T['status'];
  event: string;
  /** The 409's detail when the object is in another state (by default: `<noun> <id> is <status>; <action> needs it <from>`). */
  refused?: (rec: Rec<T>) => string;
  /** What else must hold, and what else changes, once the state allows the move (before the object changes). */
  before?: (ctx: Ctx, rec: Rec<T>) => void;
}

/** A state transition: from one of the allowed states to the next, announced by its event; 409 invalid_state from any other. */
export function transition<T extends Base & { status: string }>(r: Resource<T>, m: Move<T>): Route {
  const action = typeof m.action === 'string' ? m.action : undefined;
  const from: readonly string[] = m.from;
  return {
    method: action === undefined ? 'DELETE' : 'POST',
    path: action === undefined ? `${r.path}/{${r.param}}` : `${r.path}/{${r.param}}/${action}`,
    op: m.op,
    handler: (ctx) => {
      const rec = fromPath(r, ctx);
      if (action !== undefined) emptyOk(ctx);
      if (!from.includes(rec.obj.status)) {
        throw invalidState(
          m.refused ? m.refused(rec) : `${r.noun} ${rec.id} is ${rec.obj.status}; ${action} needs it ${from.join(' or ')}`,
        );
      }
      m.before?.(ctx, rec);
      return ok(change(ctx, rec, { status: m.to } as Partial<T>, m.event));
    },
  };
}
