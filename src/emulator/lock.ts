// One emulator per data dir: a LOCK file holding the owner's pid.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One emulator per data dir: a LOCK file holding the owner's pid. A lock left by a process that
 * no longer runs (kill -9) is taken over. Returns the release function.
 */
export function lockDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid))
        throw new Error(`the data dir ${dir} is in use by another emulator (pid ${pid})`, { cause: err });
      rmSync(path, { force: true });
    }
  }
  throw new Error(`cannot lock the data dir ${dir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
