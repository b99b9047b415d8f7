// Applies a seed file: independent entries concurrently, dependent ones after what they refer
// to. Each entry's Idempotency-Key comes from the tenant, the mode, its name and its content, so a
// run killed at any point and started again replays what was done and creates the rest, once.
// With the state file, an edited entry is updated in place where the API can (customers), or
// replaced (--replace) and its old object retired where the API can (see lifecycle.ts).
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import type { ApiClient } from '../api/client.js';
import { ApiError, ExitCode, PayError, UsageError } from '../lib/errors.js';
import { readUserFile } from '../lib/read-limited.js';
import type { Progress } from '../io/progress.js';
import { desiredBody, describe, diffEntry, entryHash, recordedBody, updateKey, type Action, type Change, type Recorded } from './diff.js';
import { canonical, isObject, kindOfRef, KINDS, type Entry, type Kind } from './file.js';
import { isRetired, RETIRES, UPDATES, whyKept } from './lifecycle.js';

export type OutcomeStatus = 'created' | 'replayed' | 'updated' | 'replaced' | 'skipped' | 'failed' | 'blocked';
export interface Outcome {
  ref: string;
  /** What was to be done (absent when a failed dependency blocked the entry before it was looked at). */
  action?: Action;
  id?: string;
  status: OutcomeStatus;
  /** replaced: the object it replaced. */
  old_id?: string;
  error?: string;
  exitCode?: number;
}

/** What became of an object a replacement superseded. */
export interface Retirement {
  ref: string;
  id: string;
  /** The retired status (closed, terminated, ...), `kept` (left behind for good) or `pending` (tried again by the next apply). */
  status: string;
  note?: string;
}

export interface SeedContext {
  client: ApiClient;
  tenant: string;
  mode: string;
  baseUrl: string;
  env: NodeJS.ProcessEnv;
  concurrency: number;
  statePath: string;
  progress: Progress;
  /** Create a new object for an entry that cannot be updated in place, and retire the old one. */
  replace?: boolean;
  /** How long to wait for a pending collection or transfer that others depend on. */
  settleTimeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Version 2 records per entry the resolved body sent (to tell what changed) and keeps the objects
 * replacements superseded until they are retired. Version 1 files (no bodies) are read as they are
 * and upgraded as entries are applied.
 */
export interface StateFile {
  version: 1 | 2;
  tenant: string;
  mode: string;
  base_url: string;
  entries: Record<string, Recorded>;
  retire?: Array<{ ref: string; id: string }>;
}

/** The state file, or a fresh one when there is none or it belongs to another tenant, mode or service. */
export async function readState(path: string, ctx: Pick<SeedContext, 'tenant' | 'mode' | 'baseUrl'>): Promise<StateFile> {
  const fresh: StateFile = { version: 2, tenant: ctx.tenant, mode: ctx.mode, base_url: ctx.baseUrl, entries: {} };
  if (!existsSync(path)) return fresh;
  const text = (
    await readUserFile(path, MAX_STATE_BYTES, {
      tooLarge: `the state file ${path} is larger than 64 MiB`,
      hint: 'is --state the right file?',
      unreadable: (p) => `cannot read the state file ${path} (${p})`,
    })
  ).toString('utf8');
  let s: StateFile;
  try {
    s = JSON.parse(text) as StateFile;
  } catch {
    throw new UsageError(`the state file ${path} is not valid JSON`, { hint: 'remove it: the idempotency keys alone prevent duplicates of unchanged entries' });
  }
  if (isObject(s) && typeof s.version === 'number' && s.version > 2) {
    throw new UsageError(`the state file ${path} was written by a newer pay (version ${s.version})`, { hint: 'upgrade pay' });
  }
  // A state file of another tenant, mode or service says nothing about this one.
  if (!isObject(s) || s.tenant !== ctx.tenant || s.mode !== ctx.mode || s.base_url !== ctx.baseUrl || !isObject(s.entries)) return fresh;
  return { ...s, version: 2, retire: Array.isArray(s.retire) ? s.retire : [] };
}

/** A state file records ids and bodies of a seed file's entries: far below this. */
const MAX_STATE_BYTES = 64 << 20;

const NO_UNKNOWN: ReadonlySet<string> = new Set();
const NO_PENDING: ReadonlyMap<string, string[]> = new Map();
const KIND_ORDER = Object.keys(KINDS);

/** Applies the entries over `state` (from readState, which apply updates and saves as it goes). */
export async function apply(entries: Entry[], state: StateFile, ctx: SeedContext): Promise<{ outcomes: Outcome[]; retirements: Retirement[] }> {
  const retire = (state.retire ??= []);
  // The bodies the recorded objects were made from, read before this run changes the records.
  const recorded = new Map(Object.entries(state.entries).map(([ref, r]) => [ref, r.object]));
  const before = new Map(entries.map((e) => [e.ref, state.entries[e.ref] && recordedBody(e, state.entries[e.ref]!, ctx.tenant, ctx.mode, recorded, ctx.env)]));
  const created = new Map<string, Record<string, unknown>>();
  const outcomes = new Map<string, Outcome>();
  const retirements: Retirement[] = [];
  const dependents = new Map<string, Entry[]>();
  for (const e of entries) for (const d of e.deps) dependents.set(d, [...(dependents.get(d) ?? []), e]);
  const waiting = new Map(entries.map((e) => [e.ref, new Set(e.deps)]));
  const ready: Entry[] = entries.filter((e) => e.deps.length === 0);
  ctx.progress.total(entries.length);

  let dirty = false;
  const saveState = () => {
    const tmp = `${ctx.statePath}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, ctx.statePath);
    dirty = false;
  };

  const finish = (e: Entry, outcome: Outcome) => {
    outcomes.set(e.ref, outcome);
    ctx.progress.tick();
    const ok = outcome.status !== 'failed' && outcome.status !== 'blocked';
    for (const child of dependents.get(e.ref) ?? []) {
      if (outcomes.has(child.ref)) continue;
      if (!ok) {
        finish(child, { ref: child.ref, status: 'blocked', error: `${e.ref} ${outcome.status}` });
        continue;
      }
      const left = waiting.get(child.ref)!;
      left.delete(e.ref);
      if (left.size === 0) ready.push(child);
    }
  };

  const runOne = async (e: Entry): Promise<void> => {
    const hash = entryHash(ctx.tenant, ctx.mode, e);
    const rec = state.entries[e.ref];
    let change: Change = { ref: e.ref, action: 'create' };
    try {
      const { body } = desiredBody(e, created, NO_UNKNOWN, ctx.env);
      /** The entry's object as this run leaves it: recorded, saved, and its dependents let go. */
      const done = (object: Record<string, unknown>, outcome: Outcome): void => {
        created.set(e.ref, object);
        state.entries[e.ref] = { hash, body, object };
        saveState();
        finish(e, outcome);
      };
      if (rec) change = diffEntry(e, rec, body, NO_PENDING, before.get(e.ref));
      if (rec && change.action === 'skip') {
        created.set(e.ref, rec.object);
        if (!rec.body) {
          rec.body = body; // a version 1 record: now with the body it was made from
          dirty = true;
        }
        return finish(e, { ref: e.ref, action: 'skip', id: change.id, status: 'skipped' });
      }
      if (rec && change.action === 'update') {
        const fields = change.fields!;
        const res = await ctx.client.request<Record<string, unknown>>({
          method: 'PATCH',
          path: UPDATES[e.kind]!.path(change.id!),
          body: Object.fromEntries(fields.map((f) => [f, body[f]])),
          idempotencyKey: updateKey(ctx.tenant, ctx.mode, e.ref, body),
        });
        return done(res.body, { ref: e.ref, action: 'update', id: String(res.body.id ?? change.id), status: 'updated' });
      }
      if (rec && !ctx.replace) {
        throw new PayError(`${e.ref} must be replaced (${describe(change, e.kind)}); nothing was sent for it`, ExitCode.USAGE, 'seed_replace_needed', {
          hint: 'run again with --replace',
        });
      }
      const { object, replayed } = await createWithKeys(ctx, e, body, `seed_${hash}`, (dependents.get(e.ref) ?? []).length > 0);
      const id = String(object.id ?? '');
      if (rec) {
        // The old object: retired once nothing in the file refers to it any more (after the run).
        const oldId = String(rec.object.id ?? '');
        if (oldId && oldId !== id) {
          if (RETIRES[e.kind]) retire.push({ ref: e.ref, id: oldId });
          else retirements.push({ ref: e.ref, id: oldId, status: 'kept', note: whyKept(e.kind) });
        }
        return done(object, { ref: e.ref, action: 'replace', id, status: 'replaced', old_id: oldId });
      }
      done(object, { ref: e.ref, action: 'create', id, status: replayed ? 'replayed' : 'created' });
    } catch (err) {
      const pe = err instanceof PayError ? err : undefined;
      finish(e, { ref: e.ref, action: change.action, status: 'failed', error: (err as Error).message, exitCode: pe?.exitCode ?? 1 });
    }
  };

  const running = new Set<Promise<void>>();
  while (ready.length > 0 || running.size > 0) {
    while (ready.length > 0 && running.size < ctx.concurrency) {
      const p = runOne(ready.shift()!).finally(() => running.delete(p));
      running.add(p);
    }
    if (running.size > 0) await Promise.race(running);
  }
  const retiring = retire.length > 0;
  if (retiring) retirements.push(...(await retireOld(ctx, entries, state)));
  if (dirty || retiring) saveState();
  ctx.progress.done();
  return { outcomes: entries.map((e) => outcomes.get(e.ref)!), retirements };
}

/**
 * Retires the objects replacements superseded, dependents first (cards before their account),
 * each once no entry of the file refers to it any more. The API may refuse (an account holding
 * money): that object is left behind, and said so. A transient failure leaves it for the next apply.
 */
async function retireOld(ctx: SeedContext, entries: Entry[], state: StateFile): Promise<Retirement[]> {
  const inFile = new Set(entries.map((e) => e.ref));
  const out: Retirement[] = [];
  const left: Array<{ ref: string; id: string }> = [];
  const order = [...(state.retire ?? [])].sort((a, b) => KIND_ORDER.indexOf(kindOfRef(b.ref)) - KIND_ORDER.indexOf(kindOfRef(a.ref)));
  // What each entry of the file refers to, as text (an old id found in it is still in use).
  const texts = Object.entries(state.entries)
    .filter(([ref]) => inFile.has(ref))
    .map(([ref, rec]) => [ref, canonical(rec.body ?? rec.object)] as const);
  for (const r of order) {
    const op = RETIRES[kindOfRef(r.ref)];
    if (!op) continue;
    const users = texts.filter(([, text]) => text.includes(r.id)).map(([ref]) => ref);
    if (users.length > 0) {
      out.push({ ...r, status: 'pending', note: `still referred to by ${users.join(', ')}` });
      left.push(r);
      continue;
    }
    try {
      await ctx.client.request({ method: op.method, path: op.path(r.id), ...(op.method === 'POST' ? { idempotencyKey: `seed_retire_${r.id}` } : {}) });
      out.push({ ...r, status: op.status });
    } catch (err) {
      const api = err instanceof ApiError ? err : undefined;
      if (api?.apiCode === 'invalid_state') out.push(await alreadyRetired(ctx, r, op.status, api));
      else if (api && api.status >= 400 && api.status < 500) out.push({ ...r, status: 'kept', note: firstLine(api.message) });
      else {
        out.push({ ...r, status: 'pending', note: `${firstLine((err as Error).message)}; the next apply tries again` });
        left.push(r);
      }
    }
  }
  state.retire = left;
  return out;
}

const firstLine = (s: string) => s.split('\n')[0]!;

/** A retire the API refuses as a wrong state: done before (a retried request whose answer was lost), or the object moved on (an expired link). */
async function alreadyRetired(ctx: SeedContext, r: { ref: string; id: string }, status: string, err: ApiError): Promise<Retirement> {
  const kind = kindOfRef(r.ref);
  try {
    const now = await readObject(ctx, kind, r.id);
    if (isRetired(kind, now)) return { ...r, status };
    return { ...r, status: 'kept', note: `it is ${String(now.status)}` };
  } catch {
    return { ...r, status: 'kept', note: firstLine(err.message) };
  }
}

/** An entry's Idempotency-Keys: `seed_<hash>`, then `seed_<hash>_2`, `_3`, ... for later objects of the same entry. */
const MAX_GENERATIONS = 50;

/**
 * Creates an entry's object, or finds the one an earlier run made. The first key is the one pay has
 * always derived from the written entry. A key that made an earlier version of the entry (another
 * resolved body: 422 idempotency_key_reused) or an object a replacement has since retired (read back: a replay shows it as created) is
 * passed over for the next one, so a replacement gets a key of its own that a re-run finds again,
 * with or without the state file.
 */
async function createWithKeys(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  base: string,
  hasDependents: boolean,
): Promise<{ object: Record<string, unknown>; replayed: boolean }> {
  for (let gen = 1; gen <= MAX_GENERATIONS; gen++) {
    try {
      const r = await createEntry(ctx, e, body, gen === 1 ? base : `${base}_${gen}`, hasDependents);
      if (!r.replayed || !RETIRES[e.kind]) return r;
      // A replay answers the object as it was created: whether it has been retired since, only a read tells.
      const now = await readObject(ctx, e.kind, String(r.object.id));
      if (isRetired(e.kind, now)) continue;
      return { object: now, replayed: true };
    } catch (err) {
      if (err instanceof ApiError && err.apiCode === 'idempotency_key_reused') continue;
      throw err;
    }
  }
  throw new PayError(`${e.ref}: ${MAX_GENERATIONS} earlier versions of this entry hold its keys`, 1, 'seed_keys_exhausted');
}

/** Money movements: others build on them once settled. */
const SETTLING: ReadonlySet<Kind> = new Set(['collections', 'transfers']);

async function readObject(ctx: SeedContext, kind: Kind, id: string): Promise<Record<string, unknown>> {
  return (await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `${KINDS[kind].path}/${id}` })).body;
}

async function createEntry(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  key: string,
  hasDependents: boolean,
): Promise<{ object: Record<string, unknown>; replayed: boolean }> {
  if (e.kind === 'fx_trades') return fxTrade(ctx, body, key);
  const res = await ctx.client.request<Record<string, unknown>>({ method: 'POST', path: KINDS[e.kind].path, body, idempotencyKey: key });
  let object = res.body;
  const settling = SETTLING.has(e.kind);
  // Others build on this money movement: wait until it has settled.
  if (settling && hasDependents && object.status === 'pending') object = await settle(ctx, e.kind, String(object.id));
  if (settling && (object.status === 'failed' || object.status === 'cancelled')) {
    throw new PayError(`${e.ref} ${String(object.id)} ${String(object.status)}: ${String(object.failure_reason ?? 'no reason')}`, 1, 'seed_failed');
  }
  return { object, replayed: res.replayed };
}

async function settle(ctx: SeedContext, kind: Kind, id: string): Promise<Record<string, unknown>> {
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + (ctx.settleTimeoutMs ?? 60_000);
  let interval = 200;
  for (;;) {
    const now = await readObject(ctx, kind, id);
    if (now.status !== 'pending') return now;
    if (Date.now() > deadline) throw new PayError(`${id} is still pending`, 1, 'seed_settle_timeout');
    await sleep(interval);
    interval = Math.min(2000, interval * 2);
  }
}

/**
 * An FX trade is a quote then a trade. The trade's key includes the quote id: a re-run replays the
 * quote (same key), then the trade (same quote, same key). A quote that expired before its trade
 * was made is replaced by a new one (a new key per attempt), and that trade is made once.
 */
async function fxTrade(ctx: SeedContext, body: Record<string, unknown>, key: string): Promise<{ object: Record<string, unknown>; replayed: boolean }> {
  const { source_account_id, target_account_id, ...quoteBody } = body;
  for (let attempt = 0; attempt < 4; attempt++) {
    const q = await ctx.client.request<Record<string, unknown>>({ method: 'POST', path: 'fx/quotes', body: quoteBody, idempotencyKey: `${key}_q${attempt}` });
    const quoteId = String(q.body.id);
    try {
      const t = await ctx.client.request<Record<string, unknown>>({
        method: 'POST',
        path: 'fx/trades',
        body: { quote_id: quoteId, source_account_id, target_account_id },
        idempotencyKey: `${key}_${quoteId}`,
      });
      return { object: t.body, replayed: t.replayed };
    } catch (err) {
      if (err instanceof ApiError && (err.apiCode === 'quote_expired')) continue;
      throw err;
    }
  }
  throw new PayError('fx trade: every quote expired before it could be traded', 1, 'seed_quote_expired');
}
