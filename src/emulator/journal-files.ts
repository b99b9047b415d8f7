// The journal's file operations: the layer every write, sync and rename goes through (tests inject
// one that fails), the refusal a commit gets when the disk cannot make it durable, and how the
// current journal is opened (O_APPEND|O_NOFOLLOW, a regular file of this user, 0600) and cut back,
// and how a snapshot's lines are written (hashed as they go).
import type { Hash } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { closeSync, fchmodSync, fstatSync, fsyncSync, ftruncateSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { CREATE_NEW, DataDirRefused, journalName } from './data-dir.js';

/** The file operations a commit, a compaction and a recovery make (tests inject failures here). */
export interface FileLayer {
  openSync(path: string, flags: string | number, mode?: number): number;
  writeSync(fd: number, buf: Buffer, offset: number, length: number): number;
  fdatasync(fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void;
  fdatasyncSync(fd: number): void;
  fsync(fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, len: number): void;
  renameSync(from: string, to: string): void;
}

export const realFiles: FileLayer = {
  openSync: (path, flags, mode) => nodeFs.openSync(path, flags, mode),
  writeSync: (fd, buf, offset, length) => nodeFs.writeSync(fd, buf, offset, length),
  fdatasync: (fd, cb) => nodeFs.fdatasync(fd, cb),
  fdatasyncSync: (fd) => nodeFs.fdatasyncSync(fd),
  fsync: (fd, cb) => nodeFs.fsync(fd, cb),
  fsyncSync: (fd) => nodeFs.fsyncSync(fd),
  ftruncateSync: (fd, len) => nodeFs.ftruncateSync(fd, len),
  renameSync: (from, to) => nodeFs.renameSync(from, to),
};

/** A commit refused because the disk could not make it durable (the API answers 503 + Retry-After). */
export class DiskUnavailable extends Error {
  constructor(
    readonly retryAfterS: number,
    readonly reason: string,
  ) {
    super(`the data dir cannot be written (${reason}); nothing of this request was kept`);
  }
}

/**
 * A new generation's journal: a new file, and appending (a journal cut back after a failed write
 * must be written at its new end, not at the old file position, which would leave a hole).
 */
export const NEW_JOURNAL = CREATE_NEW | nodeFs.constants.O_APPEND;
/** The current journal, opened at start: never through a link, never waiting on a fifo, created 0600. */
export const OPEN_JOURNAL =
  nodeFs.constants.O_WRONLY |
  nodeFs.constants.O_CREAT |
  nodeFs.constants.O_APPEND |
  nodeFs.constants.O_NOFOLLOW |
  nodeFs.constants.O_NONBLOCK;

export function writeAllSync(files: FileLayer, fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += files.writeSync(fd, buf, offset, buf.length - offset);
}

export const errText = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message ?? String(err);

/**
 * Opens the current journal for appending: never through a link, never waiting on a fifo,
 * created 0600; it must be a regular file of this user (one made readable by others is made
 * 0600, with a warning). Anything else throws DataDirRefused naming it.
 */
export function openJournal(files: FileLayer, dir: string, gen: number, warn: (w: string) => void): number {
  const name = journalName(gen);
  const refuse = (why: string): DataDirRefused => new DataDirRefused(dir, [{ name, why }]);
  let fd: number;
  try {
    fd = files.openSync(join(dir, name), OPEN_JOURNAL, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse('a symbolic link, not a regular file');
    if (code === 'ENXIO' || code === 'EISDIR') throw refuse('not a regular file');
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw refuse('not a regular file');
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw refuse(`it belongs to another user (uid ${st.uid})`);
    if ((st.mode & 0o077) !== 0) {
      fchmodSync(fd, 0o600);
      warn(`${join(dir, name)} could be read by others (mode ${(st.mode & 0o777).toString(8)}); it is 0600 now`);
    }
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** Cuts a journal back to `length` bytes, durably. */
export function cutTo(path: string, length: number): void {
  const fd = openSync(path, nodeFs.constants.O_RDWR | nodeFs.constants.O_NOFOLLOW | nodeFs.constants.O_NONBLOCK);
  try {
    ftruncateSync(fd, length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed, or an error the sync reported
  }
}

/** Writes `buf` whole to `fd` and adds it to each hash; returns its length. */
export function writeHashed(files: FileLayer, fd: number, buf: Buffer, ...hashes: Hash[]): number {
  writeAllSync(files, fd, buf);
  for (const h of hashes) h.update(buf);
  return buf.length;
}

/**
 * Writes the ops to `fd` as snapshot lines, `perLine` per line, until they run out or (with
 * `until`) the clock passes it after a line.
 */
export function writeLines(
  files: FileLayer,
  fd: number,
  ops: Iterator<string>,
  perLine: number,
  hashes: Hash[],
  until = Infinity,
): { bytes: number; finished: boolean } {
  let bytes = 0;
  for (;;) {
    const line = nextLine(ops, perLine);
    if (!line) return { bytes, finished: true };
    bytes += writeHashed(files, fd, line, ...hashes);
    if (performance.now() >= until) return { bytes, finished: false };
  }
}

/** The next snapshot line: up to `perLine` ops; undefined when there are none left. */
function nextLine(ops: Iterator<string>, perLine: number): Buffer | undefined {
  const batch: string[] = [];
  for (let r = ops.next(); !r.done; r = ops.next()) {
    batch.push(r.value);
    if (batch.length >= perLine) break;
  }
  return batch.length ? Buffer.from(`{"ops":[${batch.join(',')}]}\n`) : undefined;
}
