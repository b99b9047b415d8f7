// Reads one of the data dir's small settings files (keys.json, webhooks.json) whole, or says it is
// not one: a file that is not a regular file (a fifo, a device, a folder: opened without waiting
// for a writer) or is larger than `maxBytes` is refused, never read or waited on. A symbolic link
// at the name (dangling or not) is refused with one line: never read through, never replaced.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';

const linkRefused = (path: string): Error =>
  new Error(
    `${path} is a symbolic link; the emulator reads and writes only a regular file there: move the link away (or put the file it points at in its place)`,
  );

/** Whether the settings file is there (false: missing); a symbolic link at its name throws, naming it. */
export function settingsFilePresent(path: string): boolean {
  try {
    if (lstatSync(path).isSymbolicLink()) throw linkRefused(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** The file's text; undefined when it is not a regular file of at most `maxBytes`. */
export function readSmallFile(path: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw linkRefused(path);
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    return readWhole(fd, st.size).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The `size` bytes an open regular file holds (fewer if it was cut meanwhile). */
export function readWhole(fd: number, size: number): Buffer {
  const buf = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const n = readSync(fd, buf, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return buf.subarray(0, at);
}
