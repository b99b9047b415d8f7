// Applies a seed file: independent entries concurrently, dependent ones after what they refer
// to. Each entry's Idempotency-Key comes from the tenant, the mode, its name and its content, so a
// run killed at any point and started again replays what was done and creates the rest, once.
// With the state file, an edited entry is updated in place where the API can (customers), or
// replaced (--replace) and its old object retired where the API can (see lifecycle.ts).
// The state file is untrusted input (CI caches are shared, stale, edited): its ids must be plain ids
// of their kind, every object it records as done is read back and checked against the record and
// the file (its kind and links) before it is skipped or referred to, what the service no longer has
// is created again, and only objects it records as replaced by this seed are retired (--replace).
// An entry the service refused (4xx: nothing created) is sent with a new key on the next run, once
// the service has confirmed each earlier key as refused (askEarlierKeys): a refusal record is a hint.
import { existsSync } from 'node:fs';
import { writeFileAtomic } from '../shared/atomic-write.js';
import { ApiError, ExitCode, PayError } from '../lib/errors.js';
import type { Clock } from '../lib/poll.js';
import type { ApiClient } from '../api/client.js';
import type { Progress } from '../io/progress.js';
import {
  desiredBody,
  describe,
  diffEntry,
  entryHash,
  hashedFields,
  recordable,
  recordedBody,
  updateKey,
  type Action,
  type Change,
} from './diff.js';
import { MONEY_KINDS, type Entry } from './file.js';
import { RETIRES, UPDATES, whyKept } from './lifecycle.js';
import { asText } from '../lib/text.js';
import { askEarlierKeys, createWithKeys, isRefusalOf, keyOf } from './create.js';
import { retireOld, type Retirement } from './retire.js';
import { moveAside, type StateFile } from './state.js';
import type { Waits } from './kyc.js';
import { checkRecorded, goneLive, readRecorded, type Verified } from './verify.js';

/** `recreated`: the state recorded the entry as done, but the service no longer has its object. */
export type OutcomeStatus = 'created' | 'replayed' | 'recreated' | 'updated' | 'replaced' | 'skipped' | 'failed' | 'blocked';
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
  /** failed: the service refused it (4xx, nothing created); the next run sends it with a new key. */
  refused?: boolean;
  /** failed: the state file does not match what the service has. */
  mismatch?: boolean;
  /** The state file said otherwise than the service: refused, or an object the service does not have, where the entry's key answered an object (said as a warning). */
  contradicted?: boolean;
  /** failed: what to change before the next run, when pay knows (the whole run's hint then says it). */
  hint?: string;
  /** What the outcome leaves to know (a KYC verification decided as rejected that nothing needing the approval waited for). */
  note?: string;
  /** failed: it settled as failed (a KYC review rejected it, a collection or transfer failed): the same entry fails the same way again. */
  settled?: boolean;
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
  /** What verifyState read back (without it, each recorded entry is read back as it comes). */
  verified?: Verified;
  /**
   * The state file readState set aside: moved before the fresh state is first saved, to `movedTo` or,
   * when something took that name since, the next free one (moveAside); `onMoved` is told when that
   * happens and where it went (the command says so then, not before: a refused run moves nothing).
   */
  setAside?: { path: string; movedTo: string; onMoved?: (movedTo: string) => void } | undefined;
  /** How long to wait for a pending collection or transfer, or a KYC review, that others depend on (default 60 s). */
  settleTimeoutMs?: number;
  /** What the waits read the time from and pause with (default: the machine's). */
  clock?: Clock;
  /** Entries the plan refused (a field check, a business rule it could see), with why and the exit code: nothing is sent for them. */
  planRefused?: ReadonlyMap<string, { reason: string; exitCode: number }>;
}

const NO_UNKNOWN: ReadonlySet<string> = new Set();
const NO_PENDING: ReadonlyMap<string, string[]> = new Map();

/** Applies the entries over `state` (from readState, which apply updates and saves as it goes). */
export async function apply(
  entries: Entry[],
  state: StateFile,
  ctx: SeedContext,
): Promise<{ outcomes: Outcome[]; retirements: Retirement[] }> {
  const retire = (state.retire ??= []);
  const refused = (state.refused ??= {});
  const fromEnv = hashedFields(entries);
  // The bodies the recorded objects were made from, read before this run changes the records.
  const recorded = new Map(Object.entries(state.entries).map(([ref, r]) => [ref, r.object]));
  const before = new Map(
    entries.map((e) => [
      e.ref,
      state.entries[e.ref] &&
        recordable(recordedBody(e, state.entries[e.ref]!, state.tenant, ctx.mode, recorded, ctx.env), fromEnv.get(e.ref)),
    ]),
  );
  /** Each entry's object as this run found or made it (what references resolve against). */
  const created = new Map<string, Record<string, unknown>>();
  const outcomes = new Map<string, Outcome>();
  const retirements: Retirement[] = [];
  const dependents = new Map<string, Entry[]>();
  for (const e of entries) for (const d of e.deps) dependents.set(d, [...(dependents.get(d) ?? []), e]);
  const waiting = new Map(entries.map((e) => [e.ref, new Set(e.deps)]));
  const ready: Entry[] = entries.filter((e) => e.deps.length === 0);
  ctx.progress.total(entries.length);
  /** Set when the state file proved not to match the service: nothing more is started. */
  let stopped: string | undefined;

  let dirty = false;
  let setAsideDone = false;
  const saveState = () => {
    if (ctx.setAside && !setAsideDone) {
      // Moved once, to a name nothing holds: an earlier set-aside copy is never overwritten, and the state file is never lost.
      if (existsSync(ctx.setAside.path)) ctx.setAside.movedTo = moveAside(ctx.setAside.path);
      setAsideDone = true;
      ctx.setAside.onMoved?.(ctx.setAside.movedTo);
    }
    // A random temporary name (O_EXCL|O_NOFOLLOW, 0600), fsync, rename: never through a planted link.
    writeFileAtomic(ctx.statePath, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
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
    if (stopped) return finish(e, { ref: e.ref, status: 'blocked', error: stopped });
    const planned = ctx.planRefused?.get(e.ref);
    if (planned) {
      const hint = 'fix the entry in the file, then run the same command again';
      return finish(e, {
        ref: e.ref,
        status: 'failed',
        error: `${planned.reason} (seed plan refuses it; nothing was sent)`,
        exitCode: planned.exitCode,
        hint,
      });
    }
    const hash = entryHash(state.tenant, ctx.mode, e);
    const mine = fromEnv.get(e.ref);
    let rec = state.entries[e.ref];
    let change: Change = { ref: e.ref, action: 'create' };
    const lastRefusal = refused[e.ref];
    const attempt =
      lastRefusal && lastRefusal.hash === hash && Number.isSafeInteger(lastRefusal.attempt) && lastRefusal.attempt > 0
        ? Math.min(lastRefusal.attempt, 10_000)
        : 0;
    /** The attempt whose key this run sent last (a refusal of it makes the next run's attempt one more). */
    const at = { tried: attempt };
    try {
      const { body } = desiredBody(e, created, NO_UNKNOWN, ctx.env);
      const kept = recordable(body, mine);
      /** The entry's object as this run leaves it: recorded (values from the environment hashed), saved, and its dependents let go. */
      const done = (object: Record<string, unknown>, outcome: Outcome): void => {
        created.set(e.ref, object);
        state.entries[e.ref] = { hash, body: kept, object: recordable(object, mine) };
        delete refused[e.ref];
        saveState();
        finish(e, outcome);
      };
      /** The object the state recorded for this entry, which the service no longer has. */
      let gone = ctx.verified?.gone.get(e.ref);
      if (rec) {
        change = diffEntry(e, rec, kept, NO_PENDING, before.get(e.ref));
        // What the state file says is done is read back first (verifyState did, before anything was sent).
        const live = ctx.verified?.live.get(e.ref) ?? (await readRecorded(ctx, e.kind, rec));
        if (!live) {
          gone = String(rec.object.id);
          if (ctx.mode === 'live' && MONEY_KINDS.has(e.kind)) throw goneLive(e.ref, gone);
          delete state.entries[e.ref];
          rec = undefined;
          change = { ref: e.ref, action: 'create' };
        } else {
          // The object must also carry the links of what it is to be now (skip, update) or was made from (replace).
          checkRecorded(e, live, rec, change.action === 'replace' ? before.get(e.ref) : body);
          if (change.action === 'skip') {
            if (!rec.body) {
              rec.body = kept; // a version 1 record: now with the body it was made from
              dirty = true;
            }
            created.set(e.ref, live);
            return finish(e, { ref: e.ref, action: 'skip', id: change.id, status: 'skipped' });
          }
        }
      }
      if (rec && change.action === 'update') {
        const fields = change.fields!;
        const res = await ctx.client.request<Record<string, unknown>>({
          method: 'PATCH',
          path: UPDATES[e.kind]!.path(change.id!),
          body: Object.fromEntries(fields.map((f) => [f, body[f]])),
          idempotencyKey: updateKey(state.tenant, ctx.mode, e.ref, kept),
          quietReplay: true,
        });
        return done(res.body, { ref: e.ref, action: 'update', id: asText(res.body.id ?? change.id), status: 'updated' });
      }
      if (rec && !ctx.replace) {
        throw new PayError(
          `${e.ref} must be replaced (${describe(change, e.kind)}); nothing was sent for it`,
          ExitCode.USAGE,
          'seed_replace_needed',
          {
            hint: 'run again with --replace',
          },
        );
      }
      const after = dependents.get(e.ref) ?? [];
      const waits: Waits = {
        hasDependents: after.length > 0,
        // A later kyc entry of the customer needs this verification decided, not approved: it starts its own.
        needsApproval: after.some((d) => d.kind !== 'kyc'),
        ...(rec ? { replacing: asText(rec.object.id) } : {}),
      };
      // A refusal the state file records is a hint, never believed: the keys it says were refused are
      // asked first (sent again: the service replays what each did), and a new key is sent only when
      // the service confirms every earlier one as refused.
      const asked = await askEarlierKeys(ctx, e, body, hash, at, waits, gone);
      const { object, replayed } = asked.made ?? (await createWithKeys(ctx, e, body, keyOf(hash, at.tried), waits, gone));
      const id = asText(object.id);
      // A verification decided as rejected that nothing needing the approval waits for: its own outcome, said, not a failure.
      const note =
        e.kind === 'kyc' && object.status === 'rejected'
          ? `rejected: ${asText(object.rejection_reason ?? 'no reason')}`
          : asked.contradicted
            ? `the state file recorded ${e.ref} as refused, but the service made ${id} with the key ${asked.contradicted}: the state file was wrong`
            : undefined;
      const noted = { ...(note ? { note } : {}), ...(asked.contradicted ? { contradicted: true } : {}) };
      if (rec) {
        // The old object: retired (--replace) once nothing in the file refers to it any more (after the run).
        const oldId = asText(rec.object.id);
        if (oldId && oldId !== id) {
          if (RETIRES[e.kind]) retire.push({ ref: e.ref, id: oldId, replaced_by: id });
          else retirements.push({ ref: e.ref, id: oldId, status: 'kept', note: whyKept(e.kind) });
        }
        return done(object, { ref: e.ref, action: 'replace', id, status: 'replaced', old_id: oldId, ...noted });
      }
      // The recorded object is gone, but the entry's key answered another one the service has: that one, not made again.
      if (gone && replayed)
        return done(object, {
          ref: e.ref,
          action: 'create',
          id,
          status: 'replayed',
          note: `the state file recorded ${gone} for ${e.ref}, which the service does not have; the entry's key answered ${id}`,
          contradicted: true,
        });
      if (gone) return done(object, { ref: e.ref, action: 'create', id, status: 'recreated', old_id: gone, ...noted });
      done(object, { ref: e.ref, action: 'create', id, status: replayed ? 'replayed' : 'created', ...noted });
    } catch (err) {
      const pe = err instanceof PayError ? err : undefined;
      let error = (err as Error).message;
      let isRefusal = false;
      if (err instanceof ApiError && isRefusalOf(err) && (change.action === 'create' || change.action === 'replace')) {
        // Refused, nothing created: the next run sends it with a new key (a replay of this key would only repeat the refusal).
        isRefusal = true;
        refused[e.ref] = { hash, attempt: at.tried + 1, status: err.status, ...(err.apiCode ? { code: err.apiCode } : {}) };
        if (err.details.replayed === true) error += ' (the service replayed an earlier refusal of this key)';
        saveState();
      }
      const mismatch = pe?.code === 'seed_state_mismatch';
      if (mismatch) stopped = `not started: ${e.ref} does not match the state file`;
      finish(e, {
        ref: e.ref,
        action: change.action,
        status: 'failed',
        error,
        exitCode: pe?.exitCode ?? 1,
        ...(pe?.code === 'seed_failed' ? { settled: true } : {}),
        ...(pe?.code === 'seed_kyc_not_restartable' && pe.hint ? { hint: pe.hint } : {}),
        ...(isRefusal ? { refused: true } : {}),
        ...(mismatch ? { mismatch: true } : {}),
      });
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
  // Retirements only with --replace, and never after the state file proved not to match the service.
  const retiring = ctx.replace === true && !stopped && retire.length > 0;
  if (retiring) retirements.push(...(await retireOld(ctx, entries, state, created)));
  if (dirty || retiring) saveState();
  ctx.progress.done();
  return { outcomes: entries.map((e) => outcomes.get(e.ref)!), retirements };
}
