// Reads a file named on the command line without trusting its size: a regular file over the
// limit is refused from its size alone, and anything else (/dev/zero, a device, a pipe) is read
// at most `max + 1` bytes. Plain readFile would read /dev/zero until memory runs out.
import { UsageError } from './errors.js';

export class TooLargeError extends Error {
  constructor(readonly max: number) {
    super(`larger than ${max} bytes`);
  }
}

const CHUNK = 64 * 1024;

/** The file's bytes, or TooLargeError past `max`; fs errors (ENOENT, EISDIR, …) pass through. */
export async function readFileLimited(path: string, max: number): Promise<Buffer> {
  // node:fs/promises loads here, not with this module: most commands read no file (≈ 0.5 ms).
  const handle = await process.getBuiltinModule('node:fs/promises').open(path, 'r');
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
    if (st.isFile() && st.size > max) throw new TooLargeError(max);
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, max + 1 - size));
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > max) throw new TooLargeError(max);
      chunks.push(buf.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, size);
  } finally {
    await handle.close();
  }
}

/** `no such file`, `is a directory`, the errno code, or the message: for `cannot read the file (…)`. */
export function readProblem(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return e.code ?? (e.message || 'error');
  }
}

/**
 * readFileLimited for a file the user named: too large, or unreadable, is a one-line usage error
 * (`unreadable` gets readProblem's words).
 */
export async function readUserFile(
  path: string,
  max: number,
  say: { tooLarge: string; unreadable: (problem: string) => string; hint?: string },
): Promise<Buffer> {
  try {
    return await readFileLimited(path, max);
  } catch (err) {
    if (err instanceof TooLargeError) throw new UsageError(say.tooLarge, say.hint === undefined ? {} : { hint: say.hint });
    throw new UsageError(say.unreadable(readProblem(err)));
  }
}
