// Profiles on disk: config.json in PAY_CONFIG_DIR or the platform's config folder.
// Reading is one open/fstat/read/parse, no writes, no locks. It refuses, like ssh, a file that is a
// symbolic link, not a regular file, owned by another user, or writable by group or others, and a
// file of the wrong shape (src/config/shape.ts): exit 2, naming the file (and the key).
// Every change is a read-modify-write under a lock (src/shared/lock.ts, config.json.lock: a file
// naming its holder, taken over only when that process is gone): the file is read again under the
// lock, changed, and replaced whole (src/shared/atomic-write.ts: a 0600 temporary file of a random
// name, fsync, rename, the folder fsynced), so parallel writers never lose each other's profiles. pay creates its folder 0700 and never
// changes the mode or owner of a folder that was already there (it may be a shared one).
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  rmdirSync,
  type Stats,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ExitCode, PayError, UsageError } from '../lib/errors.js';
import { FileRefusedError, writeFileAtomic } from '../shared/atomic-write.js';
import { lock as takeLock, LockError, type Release } from '../shared/lock.js';
import {
  ConfigFileError,
  emptyConfig,
  parseConfig,
  PROFILE_NAME,
  MODES,
  type ConfigData,
  type ModeSettings,
  type Profile,
} from './shape.js';

export { ConfigFileError, MODES, PROFILE_NAME, type ConfigData, type Mode, type ModeSettings, type Profile } from './shape.js';

export const DEFAULT_PROFILE = 'default';
/** Larger than any set of profiles pay writes; a bigger file is not read (nor loaded whole). */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** How long a change waits for another pay's (each holds the lock for milliseconds). */
export const LOCK_WAIT_MS = 10_000;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(
      `invalid profile name "${name}" (letters, digits, "-" and "_", up to 64, starting with a letter or digit; not "constructor" or "prototype")`,
    );
  }
  return name;
}

/**
 * The folder: PAY_CONFIG_DIR, else the one conf and env-paths use for `pay` (so existing
 * configurations stay where they are).
 */
export function defaultConfigDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = process.getBuiltinModule('node:os').homedir(),
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'pay');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'pay', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'pay');
}

export class ConfigStore {
  readonly dir: string;
  readonly path: string;
  private data: ConfigData | undefined;

  /** Does no I/O: the file is read on first use. `onWait` hears what a change waits for (a line for stderr). */
  constructor(
    dir: string | undefined,
    private readonly onWait?: (line: string) => void,
  ) {
    this.dir = resolve(dir || defaultConfigDir());
    this.path = join(this.dir, 'config.json');
  }

  get currentProfile(): string | undefined {
    return this.load().current_profile;
  }

  /** Stored profiles by name (an object without prototype). */
  profiles(): Record<string, Profile> {
    return this.load().profiles;
  }

  profile(name: string): Profile | undefined {
    const all = this.profiles();
    return Object.hasOwn(all, name) ? all[name] : undefined;
  }

  /**
   * Runs `change` on the configuration as it is on disk now, under the lock, and writes what it
   * leaves (unless it throws: then nothing is written). Returns what `change` returns.
   */
  async update<T>(change: (config: ConfigData) => T): Promise<T> {
    this.createDir();
    // A file loosened by hand is tightened first, so even a change that then fails (its lock or
    // its write refused: a full disk, a file size limit) leaves it 0600.
    this.read({ tighten: true });
    const release = await this.lock();
    try {
      const config = this.read({ tighten: true });
      const result = change(config);
      for (const name of Object.keys(config.profiles)) {
        checkProfileName(name);
        config.profiles[name] = prune(config.profiles[name]!);
      }
      this.write(config);
      this.data = config;
      return result;
    } finally {
      release();
    }
  }

  /**
   * Stores what `build` makes of the profile as stored now (undefined if there is none); `makeCurrent`
   * makes it the current profile always, or when there is none. True when it became the current one.
   */
  updateProfile(
    name: string,
    build: (existing: Profile | undefined) => Profile,
    opts: { makeCurrent?: 'always' | 'if-none' } = {},
  ): Promise<boolean> {
    checkProfileName(name);
    return this.update((config) => {
      config.profiles[name] = build(Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined);
      const current = opts.makeCurrent === 'always' || (opts.makeCurrent === 'if-none' && !config.current_profile);
      if (current) config.current_profile = name;
      return current;
    });
  }

  /** Replaces a profile whole. */
  saveProfile(name: string, profile: Profile, opts: { makeCurrent?: 'always' | 'if-none' } = {}): Promise<boolean> {
    return this.updateProfile(name, () => profile, opts);
  }

  /** False when there was no such profile (nothing written). */
  removeProfile(name: string): Promise<boolean> {
    return this.update((config) => {
      if (!Object.hasOwn(config.profiles, name)) return false;
      delete config.profiles[name];
      if (config.current_profile === name) delete config.current_profile;
      return true;
    });
  }

  /** False when there is no such profile (nothing written). */
  setCurrentProfile(name: string): Promise<boolean> {
    return this.update((config) => {
      if (!Object.hasOwn(config.profiles, name)) return false;
      config.current_profile = name;
      return true;
    });
  }

  private load(): ConfigData {
    this.data ??= this.read({ tighten: false });
    return this.data;
  }

  /** The file as it is now; an empty configuration when there is none. */
  private read(opts: { tighten: boolean }): ConfigData {
    let fd: number;
    try {
      // O_NOFOLLOW: a symbolic link is refused by the kernel (ELOOP), not looked at and then followed.
      // O_NONBLOCK: a FIFO put in its place cannot hang pay (it is refused below).
      fd = openSync(this.path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return emptyConfig();
      if (code === 'ELOOP')
        throw this.refuse('it is a symbolic link', `pay reads only a regular file: replace the link by the file it points to (mode 600)`);
      throw new PayError(`cannot read the configuration ${this.path}: ${code ?? (err as Error).message}`, ExitCode.USAGE, 'config_read', {
        hint: 'check the permissions of the file and its folder; PAY_CONFIG_DIR selects another folder',
        cause: err,
      });
    }
    try {
      const st = fstatSync(fd);
      this.checkFile(st);
      // Not a file with other names (hard links): its mode is theirs too; the write replaces this name only.
      if (opts.tighten && (st.mode & 0o077) !== 0 && st.nlink === 1 && process.platform !== 'win32') fchmodSync(fd, 0o600);
      return parseConfig(readAll(fd, this.path), this.path);
    } finally {
      closeSync(fd);
    }
  }

  /** What ssh checks of its files: a regular file of ours (or root's) that nobody else may change. */
  private checkFile(st: Stats): void {
    if (!st.isFile()) throw this.refuse('it is not a regular file', 'move it away; pay writes a new one on the next login');
    if (st.size > MAX_CONFIG_BYTES)
      throw this.refuse(`it is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB`, 'move it away; pay writes a new one on the next login');
    const uid = process.getuid?.();
    if (uid === undefined) return;
    if (st.uid !== uid && st.uid !== 0) {
      throw this.refuse(
        `it belongs to another user (uid ${st.uid})`,
        `take it over (chown ${uid} '${this.path}') or move it away and log in again`,
      );
    }
    if ((st.mode & 0o022) !== 0) {
      throw this.refuse(
        `group or others may write it (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`,
        `chmod 600 '${this.path}'`,
      );
    }
  }

  private refuse(why: string, hint: string): ConfigFileError {
    return new ConfigFileError(this.path, undefined, why, hint, true);
  }

  /** Creates the folder 0700 if it is missing; an existing folder is left as it is. */
  private createDir(): void {
    let first: string | undefined;
    try {
      first = mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw this.writeError(err);
    }
    if (first === undefined) return;
    // The folders made just now (not the umask's idea of 0700): from the first one down.
    for (let d = this.dir; ; d = dirname(d)) {
      try {
        chmodSync(d, 0o700);
      } catch {
        // Made by us a moment ago; if it cannot be changed, the write below says why.
      }
      if (d === first || dirname(d) === d) break;
    }
  }

  /**
   * The lock of every change (src/shared/lock.ts, config.json.lock: a file naming its holder). A
   * holder that is gone is taken over at once; a live one (each holds it for milliseconds) is
   * waited for, said on stderr, up to LOCK_WAIT_MS; a lock path that is not a lock is one line.
   */
  private async lock(): Promise<Release> {
    const path = `${this.path}.lock`;
    clearOlderLock(path);
    try {
      return await takeLock(path, {
        what: `the configuration ${this.path}`,
        waitMs: LOCK_WAIT_MS,
        onWait: (_holder, line) => this.onWait?.(line),
      });
    } catch (err) {
      if (err instanceof LockError) {
        const busy = err.code === 'lock_busy';
        throw new PayError(err.message, busy ? ExitCode.ERROR : ExitCode.USAGE, busy ? 'config_locked' : 'config_lock_path', {
          hint: busy
            ? `run the command again when it is done; if that process is not a pay, remove '${path}'`
            : `pay keeps its lock there while it changes the configuration (a file it writes and removes)`,
          cause: err,
        });
      }
      throw this.writeError(err);
    }
  }

  /**
   * Checks, without changing the configuration, that it can be changed now: its folder made (0700)
   * or there, its lock taken and given back. What `pay emulator start --configure-profile` asks
   * before it serves, so a read-only folder is one line at once, not a failure after start.
   */
  async checkWritable(): Promise<void> {
    this.createDir();
    (await this.lock())();
    this.read({ tighten: false });
  }

  private write(config: ConfigData): void {
    const shaped = { ...(config.current_profile ? { current_profile: config.current_profile } : {}), profiles: config.profiles };
    try {
      writeFileAtomic(this.path, `${JSON.stringify(shaped, undefined, '\t')}\n`, { mode: 0o600 });
    } catch (err) {
      if (err instanceof FileRefusedError) throw this.refuse(err.reason, 'move it away; pay writes a new one on the next login');
      throw this.writeError(err);
    }
  }

  private writeError(err: unknown): PayError {
    if (err instanceof PayError) return err;
    const code = (err as NodeJS.ErrnoException).code;
    return new PayError(`cannot write the configuration ${this.path}: ${code ?? (err as Error).message}`, ExitCode.ERROR, 'config_write', {
      hint:
        code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT'
          ? 'free some disk space (or raise the file size limit) and run the command again'
          : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
            ? `pay cannot write in ${this.dir}; PAY_CONFIG_DIR selects another folder`
            : undefined,
      cause: err,
    });
  }
}

function readAll(fd: number, path: string): string {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    total += n;
    if (total > MAX_CONFIG_BYTES)
      throw new ConfigFileError(
        path,
        undefined,
        `it is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB`,
        'move it away; pay writes a new one on the next login',
        true,
      );
    chunks.push(buf.subarray(0, n));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/**
 * pay before 2026-11 locked with proper-lockfile: an empty folder at config.json.lock whose holder
 * touched it every 5 s, stale after 10 s. Such a folder, empty and untouched for half a minute, was left
 * by a killed older pay: it is removed (rmdir removes only an empty folder). Anything else at the
 * path is the lock's to judge (a folder in use or not empty is refused there, naming it).
 */
function clearOlderLock(path: string): void {
  try {
    const st = lstatSync(path);
    if (st.isDirectory() && Date.now() - st.mtimeMs > 30_000) rmdirSync(path);
  } catch {
    // Not there, not empty, or not ours to remove: the lock says what it is.
  }
}

/** Drops empty values and empty modes. */
function prune(profile: Profile): Profile {
  const out: Profile = {};
  if (profile.tenant_id) out.tenant_id = profile.tenant_id;
  for (const mode of MODES) {
    const m = profile[mode];
    if (!m) continue;
    const kept = Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined && v !== '')) as ModeSettings;
    if (Object.keys(kept).length > 0) out[mode] = kept;
  }
  return out;
}
