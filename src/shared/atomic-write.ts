// The one way pay and the emulator write a file whole: a temporary file of a random name in the
// target's folder, created exclusively (O_EXCL) and never through a link (O_NOFOLLOW), mode 0600
// (or the narrower mode asked), written, fsynced, renamed over the target, then the folder fsynced.
// A target that is there and is a symbolic link or not a regular file (a folder, a fifo, a device)
// is refused with one line naming it: pay does not replace what it did not write. A planted link at
// any name pay might use as a temporary cannot be followed (the name is random and opened O_EXCL), and
// on failure only pay's own temporary file is removed. Files appended to are opened by openForAppend:
// O_NOFOLLOW and O_NONBLOCK, then refused unless a regular file. Node builtins only (src/shared/).
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A file pay will not write: its one line is the message; `reason` is the part after the path. */
export class FileRefusedError extends Error {
  readonly code = 'file_refused';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`refusing to write ${path}: ${reason}`);
    this.name = 'FileRefusedError';
  }
}

/** What is wrong with an existing file at `path` for pay to replace or append to it, or undefined. */
export function oddFile(st: Stats): string | undefined {
  if (st.isSymbolicLink()) return 'it is a symbolic link (pay writes only a regular file; move the link away)';
  if (st.isDirectory()) return 'it is a folder, not a file (move it away)';
  if (st.isFIFO()) return 'it is a fifo, not a regular file (move it away)';
  if (st.isSocket()) return 'it is a socket, not a regular file (move it away)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'it is a device, not a regular file (move it away)';
  if (!st.isFile()) return 'it is not a regular file (move it away)';
  return undefined;
}

/** Throws FileRefusedError when something other than a regular file is at `path`; nothing there is fine. */
export function checkWritableTarget(path: string): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const odd = oddFile(st);
  if (odd) throw new FileRefusedError(path, odd);
}

export interface AtomicWriteOptions {
  /** The file's mode (default 0600); the umask never widens it, nothing makes it wider. */
  mode?: number;
}

/** `<name>.<12 hex>.tmp` in the target's folder: a name nobody can plant a link at in advance. */
export function tempNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Replaces `target` whole and durably: readers see the old file or the new one, never a part. Throws
 * FileRefusedError for a target that is a link or not a regular file (nothing written), and the fs
 * error (ENOSPC, EACCES, …) otherwise, having removed its own temporary file.
 */
export function writeFileAtomic(target: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const mode = (opts.mode ?? 0o600) & 0o777;
  checkWritableTarget(target);
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let tmp = tempNameFor(target);
  let fd: number | undefined;
  for (let attempt = 0; fd === undefined; attempt++) {
    try {
      fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
    } catch (err) {
      // A name taken (a 1 in 2^48 chance, or planted): another random name; anything else is the answer.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw err;
      tmp = tempNameFor(target);
    }
  }
  let renamed = false;
  try {
    try {
      if (process.platform !== 'win32') fchmodSync(fd, mode);
      for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // Checked again just before: what appeared at the target meanwhile is refused, not replaced.
    checkWritableTarget(target);
    renameSync(tmp, target);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(tmp);
      } catch {
        // Ours, made above; if it cannot be removed the error being thrown says more.
      }
    }
  }
  syncFolder(dirname(target));
}

/** Makes a rename in `dir` durable; a file system that cannot fsync a folder loses nothing by it. */
export function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    fsyncSync(fd);
  } catch {
    // Best effort (some systems cannot open or sync a folder).
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Opens `path` to append (created with `mode`, default 0600): never through a symbolic link, never
 * waiting on a fifo, and only a regular file (FileRefusedError otherwise). Returns the descriptor.
 */
export function openForAppend(path: string, opts: AtomicWriteOptions = {}): number {
  const mode = (opts.mode ?? 0o600) & 0o777;
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new FileRefusedError(path, 'it is a symbolic link (pay writes only a regular file; move the link away)');
    if (code === 'EISDIR') throw new FileRefusedError(path, 'it is a folder, not a file (move it away)');
    if (code === 'ENXIO') throw new FileRefusedError(path, 'it is a fifo, not a regular file (move it away)');
    throw err;
  }
  const odd = oddFile(fstatSync(fd));
  if (odd) {
    closeSync(fd);
    throw new FileRefusedError(path, odd);
  }
  return fd;
}
