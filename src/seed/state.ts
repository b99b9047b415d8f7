// The seed's state file: read (untrusted: every id checked, a file of another tenant, mode or
// service set aside), moved aside, and locked for one apply at a time.
import { existsSync, linkSync, renameSync, unlinkSync } from 'node:fs';
import { checkWritableTarget, FileRefusedError } from '../shared/atomic-write.js';
import { lock, LockError, type Release } from '../shared/lock.js';
import { ExitCode, PayError, UsageError } from '../lib/errors.js';
import { readUserFile } from '../lib/read-limited.js';
import { parseJson } from '../lib/safe-json.js';
import type { Recorded } from './diff.js';
import { isObject, kindOfRef, KINDS, type Kind } from './file.js';
import { isIdOf, noun } from './lifecycle.js';
import type { SeedContext } from './apply.js';

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
