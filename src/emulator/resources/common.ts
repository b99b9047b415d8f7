// Helpers shared by the resource modules: loading by id (404 for malformed or foreign ids),
// replies from records, list parameters, filters.
import { DATE_PATTERN, FREE_TEXT_PATTERN, TIME_FILTER_PATTERN } from '../../shared/patterns.js';
import { checkEmail, isCalendarDate } from '../../shared/validate.js';
import type { Services } from '../services.js';
import { isId } from '../ids.js';
import { notFound } from '../problems.js';
import { codePoints, emptyBody } from '../validation.js';
import { json, type PageQuery } from '../store.js';
import type { Base, Ctx, Json, Kind, QueryCheck, Rec, Reply } from '../types.js';

export { ASSETS, FIAT_CURRENCIES as FIAT } from '../../shared/domain.js';

export const reply = (status: number, rec: Rec): Reply => ({ status, json: json(rec), rec });
export const ok = (rec: Rec): Reply => reply(200, rec);
export const created = (rec: Rec): Reply => reply(201, rec);
export const okJson = (value: unknown, status = 200): Reply => ({ status, json: JSON.stringify(value) });
export const okRaw = (json: string, status = 200): Reply => ({ status, json });

/** Actions take no body; an empty JSON object is fine, any field is a 422. */
export function emptyOk(ctx: Ctx): void {
  emptyBody(ctx.body);
}

/** A record of this scope by id, or 404 (a malformed id is also 404: ids are opaque). */
export function load<T extends Base>(ctx: Ctx, kind: Kind, prefix: string, id: string | undefined, noun: string): Rec<T> {
  const rec = id !== undefined && isId(prefix, id) ? ctx.app.store.get<T>(kind, ctx.scope, id) : undefined;
  if (!rec) throw notFound(noun, id ?? '');
  return rec;
}

/** An updated copy of an object with a fresh updated_at. */
export function touch<T extends Base>(app: Services, obj: T, changes: Partial<T>): T {
  return { ...obj, ...changes, updated_at: app.nowIso() };
}

/**
 * A new record in the request's scope: stored, announced by `event` (if any) and, for a
 * scheduled() kind, armed for its due job.
 */
export function insert<T extends Base>(ctx: Ctx, kind: Kind, obj: T, event?: string, x?: Json): Rec<T> {
  const rec = ctx.app.store.put(ctx.tx, kind, ctx.scope, obj, x);
  if (event) ctx.app.events.emit(ctx.tx, ctx.scope, event, rec);
  arm(ctx.app, rec);
  return rec;
}

/** An app and the transaction a change goes into. */
export type TxCtx = { app: Services; tx: Ctx['tx'] };

/** A state change: store the new object and emit its event. */
export function change<T extends Base>(ctx: TxCtx, rec: Rec<T>, changes: Partial<T>, event?: string): Rec<T> {
  const next = ctx.app.store.put(ctx.tx, rec.kind, rec.scope, touch(ctx.app, rec.obj, changes), undefined);
  if (event) ctx.app.events.emit(ctx.tx, rec.scope, event, next);
  return next;
}

/**
 * limit, cursor, the created_at range (`from`, `to`: TIME_QUERY, on every list of objects) and a
 * key naming the filters (for cursor checks; the range is part of it when given).
 */
export function pageOf(ctx: Ctx, filters: readonly string[]): Pick<PageQuery, 'limit' | 'cursor' | 'filterKey' | 'from' | 'to'> {
  const named = [...filters, ...TIME_PARAMS.filter((t) => ctx.query.has(t))];
  const filterKey = named.map((f) => `${f}=${ctx.query.get(f) ?? ''}`).join('&');
  const from = ctx.query.get('from');
  const to = ctx.query.get('to');
  return {
    limit: Number(ctx.query.get('limit') ?? '20'),
    cursor: ctx.query.get('cursor'),
    filterKey,
    from: from === undefined ? undefined : timeBound(from),
    to: to === undefined ? undefined : timeBound(to),
  };
}

const TIME_PARAMS = ['from', 'to'] as const;
const FREE_TEXT = new RegExp(FREE_TEXT_PATTERN);
const DATE = new RegExp(DATE_PATTERN);
const TIME = new RegExp(TIME_FILTER_PATTERN);

// Query checks.
export const qId =
  (prefix: string): QueryCheck =>
  (v) =>
    isId(prefix, v) ? undefined : `must be an id like ${prefix}…`;
export const qEnum =
  (values: readonly string[]): QueryCheck =>
  (v) =>
    values.includes(v) ? undefined : `must be one of: ${values.join(', ')}`;
/** Free text of 1 to `max` characters (code points), no control characters: each failure named. */
export const qText =
  (max: number): QueryCheck =>
  (v) => {
    if (v === '') return 'must not be empty';
    if (v.length > max && codePoints(v) > max) return `must be at most ${max} characters`;
    return FREE_TEXT.test(v) ? undefined : 'must not contain control characters';
  };
/** An e-mail address (checkEmail, the contract's EMAIL_PATTERN). */
export const qEmail: QueryCheck = (v) => (v === '' ? 'must not be empty' : checkEmail(v));
/** A date (YYYY-MM-DD) or an RFC 3339 time (the seconds optional) from 1800 on: the contract's from/to. */
export const qTime: QueryCheck = (v) => {
  if (DATE.test(v) || TIME.test(v)) return undefined;
  const shape = /^\d{4}-\d{2}-\d{2}([Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2}))?$/.exec(v);
  if (!shape) return 'must be a date (YYYY-MM-DD) or an RFC 3339 time (2026-01-31T12:00:00Z)';
  if (Number(v.slice(0, 4)) < 1800) return 'must be 1800-01-01 or later';
  return shape[1] === undefined
    ? 'must be a real calendar date'
    : 'must be a real time (a real date, hours 00-23, minutes and seconds 00-59, offset up to ±23:59)';
};

/** The created_at range every list of objects takes: `from` (inclusive) and `to` (exclusive), RFC 3339 or YYYY-MM-DD. */
export const TIME_QUERY: Readonly<Record<(typeof TIME_PARAMS)[number], QueryCheck>> = { from: qTime, to: qTime };

/** A from/to filter value as the ISO string it compares against created_at. */
export function timeBound(v: string): string {
  return new Date(isCalendarDate(v) ? `${v}T00:00:00.000Z` : v).toISOString();
}

/**
 * A kind whose records change by themselves later (settle, activate, expire). `dueAt` says when a
 * record is due (emulator ms), or undefined when it is not waiting. When its time comes, the
 * record is looked up again and `run` makes the change in a transaction of its own, committed
 * in the background; a record no longer waiting is left alone, one not yet due is queued again
 * (the clock may have been set back). Arm a new or changed record with arm(); after a restart
 * every record is armed by the app's scan.
 */
export function scheduled<T extends Base>(
  app: Services,
  kind: Kind,
  dueAt: (obj: T) => number | undefined,
  run: (ctx: TxCtx, rec: Rec<T>) => void,
): void {
  app.due.register(kind, (id, now) => {
    const rec = app.store.byId.get(id) as Rec<T> | undefined;
    if (!rec || rec.kind !== kind) return;
    const at = dueAt(rec.obj);
    if (at === undefined) return;
    if (now < at) return void app.due.push(at, kind, id);
    const tx = app.tx();
    run({ app, tx }, rec);
    app.commitInBackground(tx);
  });
  app.scanners.set(kind, (rec) => {
    const at = dueAt(rec.obj as T);
    if (at !== undefined) app.due.push(at, kind, rec.id);
  });
}

/** Queues the due job of a record of a scheduled() kind, if it is waiting for one. */
export function arm(app: Services, rec: Rec): void {
  app.scanners.get(rec.kind)?.(rec);
}
