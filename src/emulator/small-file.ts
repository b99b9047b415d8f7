// Reads one of the data dir's small settings files (keys.json, webhooks.json) whole, or says it is
// not one: a file that is not a regular file (a fifo, a device, a folder: opened without waiting
// for a writer) or is larger than `maxBytes` is refused, never read or waited on.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The file's text; undefined when it is not a regular file of at most `maxBytes`. */
export function readSmallFile(path: string, maxBytes: number): string | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    const buf = Buffer.alloc(st.size);
    let at = 0;
    while (at < st.size) {
      const n = readSync(fd, buf, at, st.size - at, at);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
