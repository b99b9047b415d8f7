// Profiles on disk: config.json in PAY_CONFIG_DIR or the platform's config folder.
// Reading is one open/fstat/read/parse, no writes, no locks. It refuses, like ssh, a file that is a
// symbolic link, not a regular file, owned by another user, or writable by group or others, and a
// file of the wrong shape (src/config/shape.ts): exit 2, naming the file (and the key).
// Every change is a read-modify-write under a lock (proper-lockfile, config.json.lock): the file is
// read again under the lock, changed, and replaced atomically (a 0600 temporary file, fsync, rename),
// so parallel writers never lose each other's profiles. pay creates its folder 0700 and never
// changes the mode or owner of a folder that was already there (it may be a shared one).
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ExitCode, PayError, UsageError } from '../lib/errors.js';
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

  /** Does no I/O: the file is read on first use. */
  constructor(dir: string | undefined) {
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
    keepFileSizeSignalIgnored();
    this.createDir();
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
      await release().catch(() => {});
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
      if (opts.tighten && (st.mode & 0o077) !== 0 && process.platform !== 'win32') fchmodSync(fd, 0o600);
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

  private async lock(): Promise<() => Promise<void>> {
    const lockfile = await import('proper-lockfile');
    try {
      return await lockfile.lock(this.path, {
        realpath: false,
        // A lock older than this is a crashed pay's; a live one refreshes it every stale/2.
        stale: 10_000,
        // Waits up to about 30 s for other writers (each holds the lock for milliseconds).
        retries: { retries: 150, factor: 1.2, minTimeout: 5, maxTimeout: 200, randomize: true },
        onCompromised: () => {},
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOCKED') {
        throw new PayError(`the configuration ${this.path} is locked by another pay`, ExitCode.ERROR, 'config_locked', {
          hint: `run the command again; if no other pay is running, remove the folder '${this.path}.lock'`,
        });
      }
      throw this.writeError(err);
    }
  }

  private write(config: ConfigData): void {
    const shaped = { ...(config.current_profile ? { current_profile: config.current_profile } : {}), profiles: config.profiles };
    const text = `${JSON.stringify(shaped, undefined, '\t')}\n`;
    const tmp = `${this.path}.${process.pid}-${process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex')}.tmp`;
    try {
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
      try {
        if (process.platform !== 'win32') fchmodSync(fd, 0o600);
        const buf = Buffer.from(text, 'utf8');
        for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.path);
    } catch (err) {
      try {
        unlinkSync(tmp);
      } catch {
        // Not created, or already renamed.
      }
      throw this.writeError(err);
    }
    syncDir(this.dir);
  }

  private writeError(err: unknown): PayError {
    if (err instanceof PayError) return err;
    const code = (err as NodeJS.ErrnoException).code;
    return new PayError(`cannot write the configuration ${this.path}: ${code ?? (err as Error).message}`, ExitCode.ERROR, 'config_write', {
      hint:
        code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT'
          ? 'free some disk space (or raise the file size limit) and run the command again'
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

/** The rename is durable once the folder is synced; some systems cannot sync a folder (nothing lost). */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort.
  }
}

/**
 * The lock library's exit hook (signal-exit) listens for SIGXFSZ and re-raises it: a write that hits
 * the file size limit (ulimit -f) would then kill pay by signal, silently, after the write had already
 * failed with EFBIG. Node ignores SIGXFSZ on its own; a listener of ours keeps it that way, so the
 * failed write is reported like any other (exit 1, one line).
 */
let fileSizeSignalKept = false;
function keepFileSizeSignalIgnored(): void {
  if (fileSizeSignalKept || process.platform === 'win32') return;
  fileSizeSignalKept = true;
  process.on('SIGXFSZ', () => {});
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
