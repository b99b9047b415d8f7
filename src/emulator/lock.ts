// One emulator per data dir: its LOCK file names the owner (src/shared/lock.ts: pid, the process's
// start time, host), so a LOCK left by a process that is gone (kill -9), also one whose pid another
// process has since, is taken over, and one held by a live emulator is refused naming it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { lockLost, lockNow, type Release } from '../shared/lock.js';

export { lockLost };

/** Locks the data dir (made 0700 if missing) or throws (LockError: its one line names the holder or the odd LOCK). */
export function lockDir(dir: string): Release {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return lockNow(join(dir, 'LOCK'), `the data dir ${dir}`);
}
