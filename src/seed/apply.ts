// Applies a seed file: independent entries concurrently, dependent ones after what they refer
// to. Each entry's Idempotency-Key comes from the tenant, the mode, its name and its content, so a
// run killed at any point and started again replays what was done and creates the rest, once.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { ApiClient } from '../api/client.js';
import { ApiError, PayError, UsageError } from '../lib/errors.js';
import type { Progress } from '../io/progress.js';
import { canonical, isObject, KINDS, resolve, type Entry } from './file.js';

export type OutcomeStatus = 'created' | 'replayed' | 'skipped' | 'failed' | 'blocked';
export interface Outcome {
  ref: string;
  id?: string;
  status: OutcomeStatus;
  error?: string;
  exitCode?: number;
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
  /** How long to wait for a pending collection or transfer that others depend on. */
  settleTimeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface StateFile {
  version: 1;
  tenant: string;
  mode: string;
  base_url: string;
  entries: Record<string, { hash: string; object: Record<string, unknown> }>;
}

export function entryHash(tenant: string, mode: string, e: Entry): string {
  return createHash('sha256').update(`${tenant}\n${mode}\n${e.ref}\n${canonical(e.body)}`).digest('hex').slice(0, 40);
}

export function readState(path: string, ctx: Pick<SeedContext, 'tenant' | 'mode' | 'baseUrl'>): StateFile {
  const fresh: StateFile = { version: 1, tenant: ctx.tenant, mode: ctx.mode, base_url: ctx.baseUrl, entries: {} };
  if (!existsSync(path)) return fresh;
  let s: StateFile;
  try {
    s = JSON.parse(readFileSync(path, 'utf8')) as StateFile;
  } catch {
    throw new UsageError(`the state file ${path} is not valid JSON`, { hint: 'remove it: the idempotency keys alone prevent duplicates' });
  }
  // A state file of another tenant, mode or service says nothing about this one.
  return s.tenant === ctx.tenant && s.mode === ctx.mode && s.base_url === ctx.baseUrl && isObject(s.entries) ? s : fresh;
}

/** What apply would do, from the state file alone (sends nothing). */
export function plan(entries: Entry[], state: StateFile): Outcome[] {
  return entries.map((e) => {
    const done = state.entries[e.ref];
    return done && done.hash === entryHash(state.tenant, state.mode, e)
      ? { ref: e.ref, id: String(done.object.id ?? ''), status: 'skipped' }
      : { ref: e.ref, status: 'created' };
  });
}

export async function apply(entries: Entry[], ctx: SeedContext): Promise<Outcome[]> {
  const state = readState(ctx.statePath, ctx);
  const created = new Map<string, Record<string, unknown>>();
  const outcomes = new Map<string, Outcome>();
  const dependents = new Map<string, Entry[]>();
  for (const e of entries) for (const d of e.deps) dependents.set(d, [...(dependents.get(d) ?? []), e]);
  const waiting = new Map(entries.map((e) => [e.ref, new Set(e.deps)]));
  const ready: Entry[] = entries.filter((e) => e.deps.length === 0);
  ctx.progress.total(entries.length);

  const saveState = () => {
    const tmp = `${ctx.statePath}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, ctx.statePath);
  };

  const finish = (e: Entry, outcome: Outcome) => {
    outcomes.set(e.ref, outcome);
    ctx.progress.tick();
    const ok = outcome.status === 'created' || outcome.status === 'replayed' || outcome.status === 'skipped';
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
    const known = state.entries[e.ref];
    if (known && known.hash === hash) {
      created.set(e.ref, known.object);
      return finish(e, { ref: e.ref, id: String(known.object.id ?? ''), status: 'skipped' });
    }
    try {
      const body = resolve(e.body, created, ctx.env, e.ref) as Record<string, unknown>;
      const { object, replayed } = await createEntry(ctx, e, body, `seed_${hash}`, (dependents.get(e.ref) ?? []).length > 0);
      created.set(e.ref, object);
      state.entries[e.ref] = { hash, object };
      saveState();
      finish(e, { ref: e.ref, id: String(object.id ?? ''), status: replayed ? 'replayed' : 'created' });
    } catch (err) {
      const pe = err instanceof PayError ? err : undefined;
      finish(e, { ref: e.ref, status: 'failed', error: (err as Error).message, exitCode: pe?.exitCode ?? 1 });
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
  ctx.progress.done();
  return entries.map((e) => outcomes.get(e.ref)!);
}

const SETTLING: Partial<Record<Entry['kind'], string>> = { collections: 'collections', transfers: 'transfers' };

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
  const collection = SETTLING[e.kind];
  // Others build on this money movement: wait until it has settled.
  if (collection && hasDependents && object.status === 'pending') object = await settle(ctx, collection, String(object.id));
  if (collection && (object.status === 'failed' || object.status === 'cancelled')) {
    throw new PayError(`${e.ref} ${String(object.id)} ${String(object.status)}: ${String(object.failure_reason ?? 'no reason')}`, 1, 'seed_failed');
  }
  return { object, replayed: res.replayed };
}

async function settle(ctx: SeedContext, collection: string, id: string): Promise<Record<string, unknown>> {
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + (ctx.settleTimeoutMs ?? 60_000);
  let interval = 200;
  for (;;) {
    const res = await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `${collection}/${id}` });
    if (res.body.status !== 'pending') return res.body;
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
