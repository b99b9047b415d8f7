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
import { existsSync, linkSync, renameSync, unlinkSync } from 'node:fs';
import { checkWritableTarget, FileRefusedError, writeFileAtomic } from '../shared/atomic-write.js';
import { lock, LockError, type Release } from '../shared/lock.js';
import { KYC_OPEN_STATUSES } from '../shared/enums.js';
import type { ApiClient } from '../api/client.js';
import { ApiError, ExitCode, PayError, UsageError } from '../lib/errors.js';
import { pollUntil, systemClock, type Clock } from '../lib/poll.js';
import { readUserFile } from '../lib/read-limited.js';
import { parseJson } from '../lib/safe-json.js';
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
  type Recorded,
} from './diff.js';
import { canonical, isObject, kindOfRef, KINDS, MONEY_KINDS, type Entry, type Kind } from './file.js';
import { featureId, featureOfId, idSegment, isIdOf, isRetired, noun, RETIRES, UPDATES, whyKept } from './lifecycle.js';
import { FEATURE_KEYS } from '../shared/rules.js';
import { asText } from '../lib/text.js';

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
  /** Objects replaced by this seed (`replaced_by` the entry's new object), to retire with --replace. */
  retire?: RetireItem[];
  /** Entries the service refused (4xx) at their last attempt: the next one is sent with a new key. */
  refused?: Record<string, Refusal>;
}

export interface RetireItem {
  ref: string;
  id: string;
  /** The entry's object that replaced it: without it (or with another) the item is not this seed's to retire. */
  replaced_by?: string;
}

export interface Refusal {
  /** entryHash of the entry refused (an edited entry starts again at attempt 0). */
  hash: string;
  /** Attempts refused so far: the next one's key ends in `_a<attempt>`. */
  attempt: number;
  status: number;
  code?: string;
}

/** The tenant pay names when none is set: the API key's default tenant. */
export const IMPLIED_TENANT = 'default';

/** The state file, and why an existing one was set aside (a fresh state is used instead). */
export interface LoadedState {
  state: StateFile;
  setAside?: { reason: string; path: string; movedTo: string };
}

/** A base URL as one text: origin and path, no trailing slash. */
export function normalBaseUrl(u: string): string {
  try {
    const url = new URL(u);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return u;
  }
}

/**
 * The state file, or a fresh one when there is none or it belongs to another tenant, mode or
 * service (then `setAside` says why, and apply moves it to `<state>.set-aside`). The tenant pay
 * implies when none is set and a tenant named explicitly may be the same one (the API key's
 * default): such a file is kept, and its objects are read back before anything builds on them.
 * An id that is not a plain id of its kind stops here (exit 1), before any request.
 */
export async function readState(path: string, ctx: Pick<SeedContext, 'tenant' | 'mode' | 'baseUrl'>): Promise<LoadedState> {
  const fresh: StateFile = { version: 2, tenant: ctx.tenant, mode: ctx.mode, base_url: ctx.baseUrl, entries: {} };
  if (!existsSync(path)) return { state: fresh };
  const text = (
    await readUserFile(path, MAX_STATE_BYTES, {
      tooLarge: `the state file ${path} is larger than 64 MiB`,
      hint: 'is --state the right file?',
      unreadable: (p) => `cannot read the state file ${path} (${p})`,
    })
  ).toString('utf8');
  // Untrusted like any input: not JSON, a key that could reach a prototype (__proto__, constructor,
  // prototype), or nesting past the limit is exit 2 naming the file (and the key path).
  let s: StateFile;
  try {
    s = parseJson(text, `the state file ${path}`) as StateFile;
  } catch (err) {
    if (err instanceof UsageError)
      throw new UsageError(err.message, { hint: 'remove it: the idempotency keys alone prevent duplicates of unchanged entries' });
    throw err;
  }
  if (isObject(s) && typeof s.version === 'number' && s.version > 2) {
    throw new UsageError(`the state file ${path} was written by a newer pay (version ${s.version})`, { hint: 'upgrade pay' });
  }
  // A state file of another tenant, mode or service says nothing about this one.
  const reason =
    !isObject(s) || !isObject(s.entries) || typeof s.tenant !== 'string' || typeof s.mode !== 'string' || typeof s.base_url !== 'string'
      ? 'it is not a seed state file'
      : String(s.mode).toLowerCase() !== ctx.mode.toLowerCase()
        ? `it records ${String(s.mode)} mode, this run is ${ctx.mode}`
        : s.tenant !== ctx.tenant && s.tenant !== IMPLIED_TENANT && ctx.tenant !== IMPLIED_TENANT
          ? `it records tenant ${String(s.tenant)}, this run is tenant ${ctx.tenant}`
          : normalBaseUrl(String(s.base_url)) !== normalBaseUrl(ctx.baseUrl)
            ? `it records the service ${String(s.base_url)}, this run is ${ctx.baseUrl}`
            : undefined;
  if (reason) return { state: fresh, setAside: { reason, path, movedTo: freeAsideName(path) } };
  checkIds(path, s);
  return {
    state: {
      ...s,
      version: 2,
      retire: Array.isArray(s.retire) ? s.retire : [],
      refused: isObject(s.refused) ? s.refused : {},
    },
  };
}

/** Every id a state file holds is a plain id of its entry's kind, or the run stops before any request (exit 1). */
function checkIds(path: string, s: StateFile): void {
  const bad = (ref: string, what: string) =>
    new PayError(`the state file ${path}: ${ref} ${what}; nothing was sent`, ExitCode.ERROR, 'seed_state_invalid', {
      hint: 'the state file was edited or damaged: remove the entry (or the file) and run again',
    });
  const kindOf = (ref: string): Kind | undefined => {
    const k = kindOfRef(ref);
    return Object.hasOwn(KINDS, k) && /^[a-z_]+\.[A-Za-z0-9_-]{1,64}$/.test(ref) ? k : undefined;
  };
  for (const [ref, rec] of Object.entries(s.entries)) {
    const kind = kindOf(ref);
    if (!kind) throw bad(JSON.stringify(ref).slice(0, 80), 'is not an entry name');
    if (!isObject(rec) || !isObject(rec.object) || typeof rec.hash !== 'string' || (rec.body !== undefined && !isObject(rec.body)))
      throw bad(ref, 'is not a recorded entry');
    if (!isIdOf(kind, rec.object.id)) throw bad(ref, `records ${JSON.stringify(String(rec.object.id)).slice(0, 80)}, not ${noun(kind)} id`);
    // A verification is read back through its customer: that id makes the path.
    if (kind === 'kyc' && !isIdOf('customers', rec.object.customer_id))
      throw bad(ref, `records the customer ${JSON.stringify(String(rec.object.customer_id)).slice(0, 80)}, not a customer id`);
  }
  for (const r of Array.isArray(s.retire) ? (s.retire as unknown[]) : []) {
    const item = isObject(r) ? r : {};
    const kind = typeof item.ref === 'string' ? kindOf(item.ref) : undefined;
    if (!kind) throw bad('a retire item', 'names no entry');
    if (!isIdOf(kind, item.id) || (item.replaced_by !== undefined && !isIdOf(kind, item.replaced_by)))
      throw bad(`retire ${String(item.ref)}`, `holds an id that is not ${noun(kind)} id`);
  }
}

/** How many `<state>.set-aside.<n>` names are tried before giving up (exit 1, the state file left where it is). */
const MAX_ASIDE = 1000;

/** `<path>.set-aside`, or `<path>.set-aside.1`, `.2`, ... : the first name nothing holds now. */
export function freeAsideName(path: string): string {
  for (let n = 0; n <= MAX_ASIDE; n++) {
    const name = n === 0 ? `${path}.set-aside` : `${path}.set-aside.${n}`;
    if (!existsSync(name)) return name;
  }
  throw asideFull(path);
}

const asideFull = (path: string, sent = false) =>
  new PayError(
    `cannot set the state file ${path} aside: ${path}.set-aside and .set-aside.1 to .${MAX_ASIDE} all exist; ${sent ? 'it is left where it was' : 'nothing was sent'}`,
    ExitCode.ERROR,
    'seed_state_aside_full',
    {
      hint: 'remove the old set-aside copies you no longer need, then run again',
    },
  );

/**
 * Moves the state file to the first free set-aside name and answers it. The new name is made with a
 * hard link, which fails rather than replace a file another writer made in the meantime; where the
 * file system has no hard links, a rename to a name checked free just before.
 */
export function moveAside(path: string): string {
  for (let n = 0; n <= MAX_ASIDE; n++) {
    const name = n === 0 ? `${path}.set-aside` : `${path}.set-aside.${n}`;
    if (existsSync(name)) continue;
    try {
      linkSync(path, name);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'ENOSYS') throw err;
      renameSync(path, name);
      return name;
    }
    unlinkSync(path);
    return name;
  }
  throw asideFull(path, true);
}

/** How long a second `seed apply` of one state file waits for the first (a seed of thousands of entries takes minutes). */
export const STATE_LOCK_WAIT_MS = 15 * 60_000;

/**
 * Takes the state file's lock (`<state>.lock`, src/shared/lock.ts) for one apply: a second apply of
 * the same file waits for the first, saying so through `onWait`, and then reads what the first
 * recorded, so it creates nothing again and the file loses no entry. Also refuses, before anything
 * is read or sent, a state file path that is a link or not a regular file (exit 2).
 */
export async function lockState(path: string, onWait: (line: string) => void): Promise<Release> {
  try {
    checkWritableTarget(path);
  } catch (err) {
    if (err instanceof FileRefusedError)
      throw new UsageError(`the state file ${path} cannot be written: ${err.reason}`, {
        hint: 'nothing was sent; --state names another file',
      });
    throw err;
  }
  try {
    return await lock(`${path}.lock`, {
      what: `the state file ${path}`,
      waitMs: STATE_LOCK_WAIT_MS,
      onWait: (_holder, line) => onWait(`${line}; another seed apply of it is running`),
    });
  } catch (err) {
    if (!(err instanceof LockError)) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new PayError(`cannot lock the state file ${path}: ${code ?? (err as Error).message}`, ExitCode.ERROR, 'seed_state_lock', {
        hint:
          code === 'ENOENT'
            ? 'nothing was sent; does the folder of --state exist?'
            : 'nothing was sent; pay writes its lock next to the state file',
        cause: err,
      });
    }
    const busy = err.code === 'lock_busy';
    throw new PayError(err.message, busy ? ExitCode.ERROR : ExitCode.USAGE, busy ? 'seed_state_locked' : 'seed_state_lock_path', {
      hint: busy
        ? 'nothing was sent; run again when the other seed apply is done'
        : 'nothing was sent; pay keeps its lock there while it applies the file (a file it writes and removes)',
      cause: err,
    });
  }
}

/** A state file records ids and bodies of a seed file's entries: far below this. */
const MAX_STATE_BYTES = 64 << 20;

const NO_UNKNOWN: ReadonlySet<string> = new Set();
const NO_PENDING: ReadonlyMap<string, string[]> = new Map();
const KIND_ORDER = Object.keys(KINDS);

/** Fields that tie an object to others (and its currency): what a recorded object must still show. */
const isLink = (field: string): boolean => field.endsWith('_id') || field === 'currency';
const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

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

/** The base Idempotency-Key of an entry's attempt: `seed_<hash>`, then `seed_<hash>_a<n>` after n refusals. */
const keyOf = (hash: string, attempt: number): string => (attempt > 0 ? `seed_${hash}_a${attempt}` : `seed_${hash}`);

/**
 * Before a new key is sent for an entry the state file records as refused `attempt` times, each
 * earlier key is sent again, first to last, so the service says what it did: a replayed refusal
 * confirms that one (the next is asked); a replayed object means the state file was wrong (that
 * object is the entry's, and `contradicted` names the key); an answer that is not a replay means the
 * service holds nothing for that key (never sent, or past the 24 h key window): what it made or
 * refused now is the answer, and no later key is sent (keys are used in order, so none later was).
 * At most one request of the walk is carried out anew. The attempt whose key was sent
 * last (`at.tried`): a refusal of it is recorded as attempt `tried + 1`.
 */
async function askEarlierKeys(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  hash: string,
  at: { tried: number },
  waits: Waits,
  gone: string | undefined,
): Promise<{ made?: { object: Record<string, unknown>; replayed: boolean }; contradicted?: string }> {
  const recorded = at.tried;
  for (let i = 0; i < recorded; i++) {
    const key = keyOf(hash, i);
    at.tried = i;
    let made: { object: Record<string, unknown>; replayed: boolean };
    try {
      made = await createWithKeys(ctx, e, body, key, waits, gone);
    } catch (err) {
      // Refused, as recorded: the next key is asked. Refused anew (not a replay): this run's attempt, recorded as such.
      if (err instanceof ApiError && isRefusalOf(err) && err.details.replayed === true) continue;
      throw err;
    }
    return made.replayed ? { made, contradicted: key } : { made };
  }
  at.tried = recorded;
  return {};
}

/** A 4xx that created nothing: the request was refused as it stood (not a conflict of keys, not in progress). */
function isRefusalOf(err: ApiError): boolean {
  return (
    err.status >= 400 &&
    err.status < 500 &&
    err.status !== 401 &&
    err.status !== 403 &&
    err.status !== 409 &&
    err.status !== 429 &&
    err.apiCode !== 'idempotency_key_reused'
  );
}

/** What verifyState found: each recorded entry's object as the service has it, or the id it no longer has. */
export interface Verified {
  live: Map<string, Record<string, unknown>>;
  gone: Map<string, string>;
}

const goneLive = (ref: string, id: string) =>
  new PayError(
    `${ref}: the state file records ${id} as done, but the service does not have it; live money is not moved again unasked`,
    ExitCode.ERROR,
    'seed_state_gone',
    {
      hint: `remove ${ref} from the state file to make it anew`,
    },
  );

/**
 * Reads back every object the state file records for an entry of the file (GETs, at most
 * `concurrency` at once), before anything is planned or sent. Each must be the id recorded, of the
 * entry's kind, with the links (customer, account, ... and currency) of the recorded object and of
 * the body it was made from: any that is not stops the run (exit 1, naming them), nothing sent.
 * What the service no longer has (404: a reset emulator, another sandbox) is dropped from the
 * state, to be created again; in live mode a money movement is not (exit 1).
 */
export async function verifyState(
  client: ApiClient,
  entries: readonly Entry[],
  state: StateFile,
  mode: string,
  concurrency: number,
): Promise<Verified> {
  const out: Verified = { live: new Map(), gone: new Map() };
  const todo = entries.filter((e) => state.entries[e.ref]);
  const problems: PayError[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      const e = todo[next++]!;
      const rec = state.entries[e.ref]!;
      try {
        const live = await readRecorded({ client }, e.kind, rec);
        if (!live) {
          const id = String(rec.object.id);
          if (mode === 'live' && MONEY_KINDS.has(e.kind)) throw goneLive(e.ref, id);
          out.gone.set(e.ref, id);
          continue;
        }
        checkRecorded(e, live, rec, rec.body);
        out.live.set(e.ref, live);
      } catch (err) {
        if (err instanceof PayError && (err.code === 'seed_state_mismatch' || err.code === 'seed_state_gone')) problems.push(err);
        else throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, todo.length)) }, worker));
  if (problems.length === 1) throw problems[0]!;
  if (problems.length > 1) {
    throw new PayError(
      `${problems.length} entries of the state file do not match the service: ${problems.map((p) => p.message).join('; ')}`,
      ExitCode.ERROR,
      problems[0]!.code,
      { hint: problems[0]!.hint },
    );
  }
  for (const ref of out.gone.keys()) delete state.entries[ref];
  return out;
}

/** An object the state file records, read back: undefined when the service no longer has it (404). */
async function readRecorded(ctx: Pick<SeedContext, 'client'>, kind: Kind, rec: Recorded): Promise<Record<string, unknown> | undefined> {
  try {
    const live = await readAs(ctx, kind, rec.object);
    // A feature no longer active (another sandbox under the same customer id cannot be; a reset one is 404) is activated again.
    if (kind === 'features' && live.active !== true) return undefined;
    return live;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/**
 * The object read back must be the id recorded, with the links (customer, account, ... and
 * currency) recorded and those of `body` (what it was, or is to be, made from); anything else
 * stops the entry (exit 1) and what depends on it.
 */
function checkRecorded(e: Entry, live: Record<string, unknown>, rec: Recorded, body: Record<string, unknown> | undefined): void {
  const id = String(rec.object.id);
  const problems: string[] = [];
  // A KYC entry whose customer has since started a newer verification (an upgrade) is done: the newer one stands for it.
  const superseded =
    e.kind === 'kyc' &&
    isObject(live) &&
    live.id !== id &&
    typeof live.customer_id === 'string' &&
    live.customer_id === rec.object.customer_id &&
    typeof live.created_at === 'string' &&
    typeof rec.object.created_at === 'string' &&
    live.created_at > rec.object.created_at;
  if (!isObject(live) || (live.id !== id && !superseded)) problems.push(`the service answered ${String(isObject(live) ? live.id : live)}`);
  else {
    const check = (from: Record<string, unknown> | undefined, what: string) => {
      for (const [f, v] of Object.entries(from ?? {})) {
        if (isLink(f) && f !== 'id' && isScalar(v) && f in live && live[f] !== v)
          problems.push(`${f} is ${String(live[f])}, ${what} ${String(v)}`);
      }
    };
    check(rec.object, 'the state file records');
    check(body, 'the entry has');
    // Identity beyond links (a customer has none): the kind and the creation time the service gave
    // the object never change, so another object put under this entry's name differs in them.
    for (const f of ['object', 'created_at'] as const) {
      if (superseded && f === 'created_at') continue;
      if (f in live && isScalar(live[f]) && rec.object[f] !== live[f])
        problems.push(
          `its ${f} is ${String(live[f])}, the state file records ${rec.object[f] === undefined ? 'none' : asText(rec.object[f])}`,
        );
    }
  }
  if (problems.length > 0) {
    throw new PayError(
      `${e.ref}: ${id} is not the object the state file says (${[...new Set(problems)].join('; ')}); nothing that depends on it was sent`,
      ExitCode.ERROR,
      'seed_state_mismatch',
      {
        hint: 'the state file was edited or belongs to other data: remove the entry (or the file) and run again',
      },
    );
  }
}

/**
 * Retires the objects replacements superseded, dependents first (cards before their account),
 * each once no entry of the file refers to it any more. Only what this state recorded as replaced
 * by this seed: the entry is in the file, the item names the entry's current object as what
 * replaced it, and the object read back is of the kind and tied only to objects of this seed.
 * The API may refuse (an account holding money): that object is left behind, and said so. A
 * transient failure leaves it for the next apply.
 */
async function retireOld(
  ctx: SeedContext,
  entries: Entry[],
  state: StateFile,
  created: ReadonlyMap<string, Record<string, unknown>>,
): Promise<Retirement[]> {
  const inFile = new Set(entries.map((e) => e.ref));
  const recordedAsReplaced = (r: RetireItem) =>
    inFile.has(r.ref) &&
    created.has(r.ref) &&
    !!r.replaced_by &&
    r.replaced_by !== r.id &&
    r.replaced_by === state.entries[r.ref]?.object.id;
  // This seed's objects: those of this run, and the old ones recorded as replaced by them (an old card's old account).
  const ours = new Set([
    ...[...created.values()].map((o) => String(o.id)),
    ...(state.retire ?? []).filter(recordedAsReplaced).map((r) => r.id),
  ]);
  const out: Retirement[] = [];
  const left: RetireItem[] = [];
  const order = [...(state.retire ?? [])].sort((a, b) => KIND_ORDER.indexOf(kindOfRef(b.ref)) - KIND_ORDER.indexOf(kindOfRef(a.ref)));
  // What each entry of the file refers to, as text (an old id found in it is still in use).
  const texts = Object.entries(state.entries)
    .filter(([ref]) => inFile.has(ref))
    .map(([ref, rec]) => [ref, canonical(rec.body ?? rec.object)] as const);
  for (const r of order) {
    const kind = kindOfRef(r.ref);
    const op = RETIRES[kind];
    if (!op) continue;
    if (!recordedAsReplaced(r)) {
      out.push({ ...r, status: 'kept', note: 'the state file does not record it as replaced by this seed: not retired' });
      continue;
    }
    const users = texts.filter(([, text]) => text.includes(r.id)).map(([ref]) => ref);
    if (users.length > 0) {
      out.push({ ...r, status: 'pending', note: `still referred to by ${users.join(', ')}` });
      left.push(r);
      continue;
    }
    try {
      const old = await readObject(ctx, kind, r.id);
      const foreign = Object.entries(old).find(([f, v]) => isLink(f) && f !== 'currency' && typeof v === 'string' && !ours.has(v));
      if (old.id !== r.id || foreign) {
        out.push({
          ...r,
          status: 'kept',
          note: `not one of this seed's objects (${foreign ? `its ${foreign[0]} ${String(foreign[1])} is not` : 'another object answered'}): not retired`,
        });
        continue;
      }
      if (isRetired(kind, old)) {
        out.push({ ...r, status: op.status });
        continue;
      }
      await ctx.client.request({
        method: op.method,
        path: op.path(r.id),
        ...(op.method === 'POST' ? { idempotencyKey: `seed_retire_${r.id}` } : {}),
        quietReplay: true,
      });
      out.push({ ...r, status: op.status });
    } catch (err) {
      const api = err instanceof ApiError ? err : undefined;
      if (api?.status === 404) out.push({ ...r, status: 'kept', note: 'the service no longer has it' });
      else if (api?.apiCode === 'invalid_state') out.push(await alreadyRetired(ctx, r, op.status, api));
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
 * with or without the state file. A replay of `gone` (an object the service no longer has) is passed over too.
 */
async function createWithKeys(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  base: string,
  waits: Waits,
  gone?: string,
): Promise<{ object: Record<string, unknown>; replayed: boolean }> {
  for (let gen = 1; gen <= MAX_GENERATIONS; gen++) {
    try {
      const r = await createEntry(ctx, e, body, gen === 1 ? base : `${base}_${gen}`, waits);
      if (r.replayed && gone !== undefined && r.object.id === gone) continue;
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

/** What an entry's create must wait for, from what depends on it. */
interface Waits {
  /** Later entries build on it: a money movement waits until settled, a verification until decided. */
  hasDependents: boolean;
  /** Something that needs the customer approved depends on this kyc entry: a rejection fails it. */
  needsApproval: boolean;
  /** The object a replacement supersedes (--replace): the new one must be another object, really made. */
  replacing?: string;
}

/** Money movements: others build on them once settled. */
const SETTLING: ReadonlySet<Kind> = new Set(['collections', 'transfers']);

async function readObject(ctx: Pick<SeedContext, 'client'>, kind: Kind, id: string): Promise<Record<string, unknown>> {
  return (await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `${KINDS[kind].path}/${idSegment(kind, id)}` })).body;
}

/**
 * An object the state file records, as the service has it now. A KYC verification is read as its
 * customer's current one (the API reads no other), a feature activation as the customer's feature
 * status (named `<customer id>/<feature>`, as the seed records it); both paths are built only from
 * a plain customer id and a feature the service has.
 */
async function readAs(ctx: Pick<SeedContext, 'client'>, kind: Kind, recorded: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (kind === 'kyc') {
    const cus = idSegment('customers', recorded.customer_id);
    return (await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `customers/${cus}/kyc` })).body;
  }
  if (kind === 'features') {
    const f = featureOfId(recorded.id);
    if (!f)
      throw new PayError(
        `refusing to use ${JSON.stringify(String(recorded.id)).slice(0, 80)} as a feature activation`,
        1,
        'seed_state_invalid_id',
      );
    const status = (
      await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `customers/${f.customer}/features/${f.feature}` })
    ).body;
    return { ...status, id: featureId(String(status.customer_id), String(status.feature)) };
  }
  return readObject(ctx, kind, idSegment(kind, recorded.id));
}

async function createEntry(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  key: string,
  waits: Waits,
): Promise<{ object: Record<string, unknown>; replayed: boolean }> {
  const { hasDependents } = waits;
  if (e.kind === 'fx_trades') return fxTrade(ctx, body, key);
  if (e.kind === 'kyc') return kycVerification(ctx, e, body, key, waits);
  if (e.kind === 'features') return activateFeature(ctx, e, body, key);
  const res = await ctx.client.request<Record<string, unknown>>({
    method: 'POST',
    path: KINDS[e.kind].path,
    body,
    idempotencyKey: key,
    quietReplay: true,
  });
  let object = res.body;
  const settling = SETTLING.has(e.kind);
  // Others build on this money movement: wait until it has settled.
  if (settling && hasDependents && object.status === 'pending') {
    const id = String(object.id);
    object = await settle(
      ctx,
      () => readObject(ctx, e.kind, id),
      (now) => now.status === 'pending',
    );
  }
  if (settling && (object.status === 'failed' || object.status === 'cancelled')) {
    throw new PayError(
      `${e.ref} ${String(object.id)} ${String(object.status)}: ${asText(object.failure_reason ?? 'no reason')}`,
      1,
      'seed_failed',
    );
  }
  return { object, replayed: res.replayed };
}

/**
 * Reads the object until it is no longer `open` (the one poll loop, src/lib/poll.ts: at once, then
 * 0.5 s growing to 2 s), within ctx.settleTimeoutMs: a money movement until it leaves `pending`, a
 * KYC verification until it is decided.
 */
async function settle(
  ctx: SeedContext,
  read: () => Promise<Record<string, unknown>>,
  open: (now: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const clock = ctx.clock ?? systemClock;
  let last: Record<string, unknown> = {};
  return pollUntil({
    clock,
    deadline: {
      at: clock.now() + (ctx.settleTimeoutMs ?? 60_000),
      error: () => new PayError(`${String(last.id)} is still ${String(last.status)}`, 1, 'seed_settle_timeout'),
    },
    step: async () => {
      last = await read();
      return open(last) ? undefined : last;
    },
  });
}

/**
 * An FX trade is a quote then a trade. The trade's key includes the quote id: a re-run replays the
 * quote (same key), then the trade (same quote, same key). A quote that expired before its trade
 * was made is replaced by a new one (a new key per attempt), and that trade is made once.
 */
async function fxTrade(
  ctx: SeedContext,
  body: Record<string, unknown>,
  key: string,
): Promise<{ object: Record<string, unknown>; replayed: boolean }> {
  const { source_account_id, target_account_id, ...quoteBody } = body;
  for (let attempt = 0; attempt < 4; attempt++) {
    const q = await ctx.client.request<Record<string, unknown>>({
      method: 'POST',
      path: 'fx/quotes',
      body: quoteBody,
      idempotencyKey: `${key}_q${attempt}`,
      quietReplay: true,
    });
    const quoteId = String(q.body.id);
    try {
      const t = await ctx.client.request<Record<string, unknown>>({
        method: 'POST',
        path: 'fx/trades',
        body: { quote_id: quoteId, source_account_id, target_account_id },
        idempotencyKey: `${key}_${quoteId}`,
        quietReplay: true,
      });
      return { object: t.body, replayed: t.replayed };
    } catch (err) {
      if (err instanceof ApiError && err.apiCode === 'quote_expired') continue;
      throw err;
    }
  }
  throw new PayError('fx trade: every quote expired before it could be traded', 1, 'seed_quote_expired');
}

/** States of a verification that is still to be decided. */
const OPEN_KYC = new Set<string>(KYC_OPEN_STATUSES);

/**
 * A KYC entry: start the verification (`level`, basic by default), submit its documents, and, when
 * later entries depend on it, wait until the review decides (a rejection then fails the entry when
 * one of them needs the customer approved; a later kyc entry of the customer needs it decided only).
 * The start's key is the entry's; each document's is the start's key and its place. A start refused
 * because the customer already has an open or approved verification (409 invalid_state: a re-run
 * after the keys expired, or KYC done outside the seed) takes that verification instead of making
 * another; documents are sent only while it is open and has none. A replacement (--replace: the
 * entry's documents or level changed) never takes the one there is: it waits until an open one is
 * decided, then starts its own after a rejection (the one re-verification the API allows) and sends
 * the new documents, or fails, sending nothing, when the customer is approved at that level.
 */
async function kycVerification(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  key: string,
  waits: Waits,
): Promise<{ object: Record<string, unknown>; replayed: boolean }> {
  const { customer_id: customerId, documents, ...start } = body;
  const cus = idSegment('customers', customerId);
  const current = async () => (await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `customers/${cus}/kyc` })).body;
  const startWith = (k: string) =>
    ctx.client.request<Record<string, unknown>>({
      method: 'POST',
      path: `customers/${cus}/kyc`,
      body: { level: 'basic', ...start },
      idempotencyKey: k,
      quietReplay: true,
    });
  /** The verification this entry started (undefined when it took the customer's current one). */
  let started: Record<string, unknown> | undefined;
  let docKey = key;
  let replayed: boolean;
  let open: boolean;
  try {
    const r = await startWith(key);
    started = r.body;
    replayed = r.replayed;
    open = true;
  } catch (err) {
    if (!(err instanceof ApiError && err.apiCode === 'invalid_state')) throw err;
    let now = await current();
    if (waits.replacing === undefined) {
      replayed = true;
      open = OPEN_KYC.has(String(now.status)) && (now.documents as unknown[] | undefined)?.length === 0;
    } else {
      // A replacement is a verification of its own with the new documents, or nothing: never the one there is.
      if (now.status === 'in_review') now = await settle(ctx, current, (v) => OPEN_KYC.has(String(v.status)));
      const notRestartable = (why: string) =>
        new PayError(
          `the customer's verification ${asText(now.id)} is ${asText(now.status)} (level ${asText(now.level)}) and the service starts no other: ${why}; nothing was sent for the changed entry`,
          ExitCode.ERROR,
          'seed_kyc_not_restartable',
          {
            hint: 'the API starts a verification after a rejection, or an upgrade to level enhanced: set level: enhanced, or put back what the state file recorded',
          },
        );
      if (OPEN_KYC.has(String(now.status))) throw notRestartable('it has no documents, so it is never decided');
      // Its own key: the entry's and the verification it follows (a re-run replays it; the first key holds the 409).
      docKey = `${key}_after_${asText(now.id)}`;
      try {
        const r = await startWith(docKey);
        started = r.body;
        replayed = r.replayed;
        open = true;
      } catch (err2) {
        if (err2 instanceof ApiError && err2.apiCode === 'invalid_state')
          throw notRestartable('one starts only after a rejection, or as an upgrade to level enhanced');
        throw err2;
      }
    }
  }
  for (const [i, doc] of (Array.isArray(documents) ? documents : []).entries()) {
    if (!open) break;
    try {
      await ctx.client.request({
        method: 'POST',
        path: `customers/${cus}/kyc/documents`,
        body: doc,
        idempotencyKey: `${docKey}_d${i}`,
        quietReplay: true,
      });
    } catch (err) {
      // Decided already (an earlier run sent the documents and the review is over): nothing more to send.
      if (err instanceof ApiError && err.apiCode === 'invalid_state') break;
      throw err;
    }
  }
  let object = await current();
  // The API reads only the customer's current verification: one started since (a later entry, on a
  // re-run) means this one was decided before it; its start's answer is all there is to say.
  if (started && object.id !== started.id) return { object: started, replayed };
  if (waits.hasDependents && object.status === 'in_review') object = await settle(ctx, current, (now) => OPEN_KYC.has(String(now.status)));
  if (waits.needsApproval && object.status === 'rejected') {
    throw new PayError(
      `${e.ref} ${String(object.id)} rejected: ${asText(object.rejection_reason ?? 'no reason')}; what depends on it needs the customer approved`,
      1,
      'seed_failed',
    );
  }
  return { object, replayed };
}

/** A features entry: activate the feature (the API answers an active one as it is). Recorded as `<customer id>/<feature>`. */
async function activateFeature(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  key: string,
): Promise<{ object: Record<string, unknown>; replayed: boolean }> {
  const cus = idSegment('customers', body.customer_id);
  const feature = body.feature;
  if (typeof feature !== 'string' || !(FEATURE_KEYS as readonly string[]).includes(feature))
    throw new UsageError(`${e.ref}: feature must be one of ${FEATURE_KEYS.join(', ')}`);
  const r = await ctx.client.request<Record<string, unknown>>({
    method: 'POST',
    path: `customers/${cus}/features/${feature}/activate`,
    body: {},
    idempotencyKey: key,
    quietReplay: true,
  });
  return { object: { ...r.body, id: featureId(cus, feature) }, replayed: r.replayed };
}
