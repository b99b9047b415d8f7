// The one lock of pay and the emulator: a file that names its holder (pid, the process's start time
// from /proc/<pid>/stat, host, a random nonce), made whole before it appears (written to a temporary
// file, then hard-linked to the lock's name, which fails if the name is taken). A lock is taken over
// only when its holder is provably gone: on this host, no such pid, or a pid whose start time is not
// the recorded one (the pid was reused); for a lock without a start time (an older emulator's LOCK
// holds a bare pid), a process started after the lock was written. A lock of another host, or one
// whose process is there, is waited for (the caller is told what it waits for) up to a bound, then a
// clear error names the holder. A take-over is claimed first, through a lock of its own named after
// the stale lock's identity, so two processes that find the same stale lock never both take it.
// A lock path that is a folder, a link or anything but a regular file, or a file that is not a lock,
// is one line naming it: nothing is deleted that pay did not write. Node builtins only (src/shared/).
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { oddFile, tempNameFor } from './atomic-write.js';

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22); absent where there is no /proc. */
  start?: string;
  host?: string;
  /** When the lock was taken (ISO 8601). */
  at?: string;
  nonce?: string;
}

export type LockErrorCode = 'lock_busy' | 'lock_wrong_type' | 'lock_unreadable';

/** A lock not taken: held by another (`holder`), or its path is not a lock pay understands. One line. */
export class LockError extends Error {
  constructor(
    message: string,
    readonly code: LockErrorCode,
    readonly path: string,
    readonly holder?: LockHolder,
  ) {
    super(message);
    this.name = 'LockError';
  }
}

export interface LockOptions {
  /** What the lock guards, for messages: "the configuration /x/config.json". */
  what: string;
  /** How long to wait for a live holder (default 0: refuse at once). */
  waitMs?: number;
  /** Called once when the lock is found held and this call will wait: say what is waited for. */
  onWait?: (holder: LockHolder, message: string) => void;
  /** Time source and pause, for tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** The release function of a lock held: removes the lock file if it is still this one's. Idempotent. */
export type Release = () => void;

const held = new Set<Release>();
/** Each lock held: its path and nonce (lockLost). */
const owned = new WeakMap<Release, { path: string; nonce: string }>();

/**
 * Why a lock taken is no longer this one's (undefined: it still is): its file removed or replaced
 * by hand (Node has no flock: a LOCK removed lets a second process take it).
 */
export function lockLost(release: Release): string | undefined {
  const o = owned.get(release);
  if (!o) return undefined;
  let found: Found | undefined;
  try {
    // Never through a link, never waiting on a fifo.
    found = readLock(o.path, 'it');
  } catch {
    return `its lock ${o.path} was replaced by something that is not a lock`;
  }
  if (!found) return `its lock ${o.path} was removed`;
  return found.holder.nonce === o.nonce ? undefined : `its lock ${o.path} was replaced (it names ${describeHolder(found.holder)})`;
}
let exitHooked = false;

/** "pid 123 on host box, started 2026-11-28 19:50:01 UTC" (what is known). */
export function describeHolder(h: LockHolder): string {
  const parts = [`pid ${h.pid}`];
  if (h.host !== undefined && h.host !== hostname()) parts.push(`on host ${h.host}`);
  if (h.at !== undefined) parts.push(`since ${h.at}`);
  return parts.join(' ');
}

/** The start time of a process on this host, in clock ticks since boot; undefined where it cannot be read. */
export function processStart(pid: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses; the fields after its last ')'.
  const after = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // Field 22 overall is the 20th after comm (fields 3.. start at index 0).
  const start = after[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

/** Seconds since the epoch at boot (/proc/stat btime), for a start time in ticks; undefined without /proc. */
function bootTimeMs(): number | undefined {
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
    return m ? Number(m[1]) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Linux reports /proc times in USER_HZ, 100 on every architecture it runs on. */
const TICKS_PER_SECOND = 100;

function me(): LockHolder {
  const start = processStart(process.pid);
  return {
    pid: process.pid,
    ...(start !== undefined ? { start } : {}),
    host: hostname(),
    at: new Date().toISOString(),
    nonce: randomBytes(12).toString('hex'),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the holder is provably gone: on this host, no process with its pid, or one that started at
 * another time than the lock records (or, for a lock without a start time, after the lock was
 * written: `writtenMs`). Another host's holder is never provably gone.
 */
export function holderGone(h: LockHolder, writtenMs: number): boolean {
  if (h.host !== undefined && h.host !== hostname()) return false;
  if (!alive(h.pid)) return true;
  const start = processStart(h.pid);
  if (start === undefined) return !alive(h.pid);
  if (h.start !== undefined) return start !== h.start;
  const boot = bootTimeMs();
  if (boot === undefined) return false;
  // A process started after the lock's file was last written cannot have written it (2 s for the clock's grain).
  return boot + (Number(start) * 1000) / TICKS_PER_SECOND > writtenMs + 2000;
}

/** Parses a lock file's text: ours (one JSON object) or an older emulator's (a bare pid). */
export function parseHolder(text: string): LockHolder | undefined {
  const t = text.trim();
  if (/^[1-9]\d{0,9}$/.test(t)) return { pid: Number(t) };
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.pid !== 'number' || !Number.isSafeInteger(o.pid) || o.pid <= 0) return undefined;
  const str = (x: unknown) => (typeof x === 'string' && x.length <= 256 ? x : undefined);
  const h: LockHolder = { pid: o.pid };
  if (str(o.start) !== undefined) h.start = str(o.start)!;
  if (str(o.host) !== undefined) h.host = str(o.host)!;
  if (str(o.at) !== undefined) h.at = str(o.at)!;
  if (str(o.nonce) !== undefined) h.nonce = str(o.nonce)!;
  return h;
}

/** A lock file is a few hundred bytes. */
const MAX_LOCK_BYTES = 4096;

interface Found {
  holder: LockHolder;
  /** Identity of this lock file (content, inode, time): what a take-over claim is named after. */
  id: string;
  text: string;
  writtenMs: number;
}

/** The lock file at `path` now: undefined if there is none; LockError if it is not one. */
function readLock(path: string, what: string): Found | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw wrongType(path, what, 'it is a symbolic link');
    throw err;
  }
  try {
    const st = fstatSync(fd);
    const odd = oddFile(st);
    if (odd) throw wrongType(path, what, odd.replace(/ \(.*\)$/, ''));
    const buf = Buffer.alloc(MAX_LOCK_BYTES + 1);
    let n = 0;
    for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, null)) > 0;) n += r;
    const text = buf.subarray(0, n).toString('utf8');
    const holder = n <= MAX_LOCK_BYTES ? parseHolder(text) : undefined;
    if (!holder) {
      throw new LockError(
        `${path}, the lock of ${what}, is not a lock pay understands; if no pay or emulator is using ${what}, remove it`,
        'lock_unreadable',
        path,
      );
    }
    const id = createHash('sha256').update(`${st.dev}:${st.ino}:${st.mtimeMs}:${st.ctimeMs}\n${text}`).digest('hex').slice(0, 24);
    return { holder, id, text, writtenMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function wrongType(path: string, what: string, why: string): LockError {
  return new LockError(
    `${path}, the lock of ${what}, ${why.replace(/^it /, 'is not a lock file: it ')}; if no pay or emulator is using ${what}, move it away`,
    'lock_wrong_type',
    path,
  );
}

type Attempt = { release: Release } | { busy: Found };

/** One try, without waiting: the lock taken, or who holds it. A stale lock is taken over on the way. */
function attempt(path: string, what: string, depth = 0): Attempt {
  for (let round = 0; round < 16; round++) {
    const mine = me();
    const text = `${JSON.stringify(mine)}\n`;
    // Written whole under a random name, then linked: the lock's name never holds a part of it.
    const tmp = writeTemp(path, text);
    let linked = false;
    try {
      linkSync(tmp, path);
      linked = true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
    if (linked) return { release: releaser(path, mine.nonce!) };
    const found = readLock(path, what);
    if (!found) {
      // Was there a moment ago: a folder's type is checked by lstat, the rest is a release just now.
      checkType(path, what);
      continue;
    }
    if (!holderGone(found.holder, found.writtenMs)) return { busy: found };
    // Stale: claim its take-over first (a lock of its own, after the stale lock's identity).
    if (depth > 3) return { busy: found };
    const claim = attempt(`${path}.takeover-${found.id}`, what, depth + 1);
    if ('busy' in claim) return { busy: found };
    try {
      const now = readLock(path, what);
      if (now && now.id === found.id) unlinkSync(path);
    } finally {
      claim.release();
    }
  }
  throw new LockError(`cannot take the lock ${path} of ${what}: it keeps changing hands`, 'lock_busy', path);
}

/** The lock's text in a new file of a random name beside it (O_EXCL, O_NOFOLLOW, 0600). */
function writeTemp(path: string, text: string): string {
  const tmp = tempNameFor(path);
  let fd: number;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR')
      throw new LockError(`cannot create the lock ${path}: its folder is not a folder`, 'lock_wrong_type', path);
    throw err;
  }
  try {
    const buf = Buffer.from(text, 'utf8');
    for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  return tmp;
}

function checkType(path: string, what: string): void {
  try {
    const odd = oddFile(lstatSync(path));
    if (odd) throw wrongType(path, what, odd.replace(/ \(.*\)$/, ''));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function releaser(path: string, nonce: string): Release {
  let done = false;
  const release: Release = () => {
    if (done) return;
    done = true;
    held.delete(release);
    try {
      const text = readFileSync(path, 'utf8');
      if (parseHolder(text)?.nonce === nonce) unlinkSync(path);
    } catch {
      // Gone already, or unreadable: it is not ours to remove then.
    }
  };
  held.add(release);
  owned.set(release, { path, nonce });
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const r of [...held]) r();
    });
  }
  return release;
}

function busyError(path: string, what: string, found: Found, waitedMs: number): LockError {
  const waited = waitedMs > 0 ? ` (waited ${Math.round(waitedMs / 1000)} s)` : '';
  // A lock naming only a pid (an older pay's, or written by hand) cannot tell its holder from
  // another program that has the pid now: said, with how to clear it.
  const bare = found.holder.start === undefined ? ' (a lock naming only a pid, which another program may have now)' : '';
  return new LockError(
    `${what} is in use by ${describeHolder(found.holder)}${bare}${waited}; its lock is ${path}; if no pay or emulator is using ${what}, remove it`,
    'lock_busy',
    path,
    found.holder,
  );
}

/** Takes the lock at once or throws LockError (held: `lock_busy`, naming the holder). */
export function lockNow(path: string, what: string): Release {
  const r = attempt(path, what);
  if ('busy' in r) throw busyError(path, what, r.busy, 0);
  return r.release;
}

/**
 * Takes the lock, waiting up to `waitMs` for a live holder: `onWait` hears, once, whom it waits for;
 * past the bound, LockError names the holder.
 */
export async function lock(path: string, opts: LockOptions): Promise<Release> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const begin = now();
  let told = false;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    const r = attempt(path, opts.what);
    if ('release' in r) return r.release;
    const waited = now() - begin;
    if (waited >= (opts.waitMs ?? 0)) throw busyError(path, opts.what, r.busy, waited);
    if (!told) {
      told = true;
      const secs = Math.round((opts.waitMs ?? 0) / 1000);
      opts.onWait?.(
        r.busy.holder,
        `waiting for ${opts.what}: it is in use by ${describeHolder(r.busy.holder)} (its lock ${path}; up to ${secs} s)`,
      );
    }
    await sleep(pause);
  }
}
