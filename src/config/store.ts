// Profiles on disk, through conf. The file is 0600 and its folder 0700, re-tightened on every
// write (conf's defaults are 0666 and a "-nodejs" folder suffix; both are overridden here).
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import { ExitCode, PayError, UsageError } from '../lib/errors.js';

export const MODES = ['sandbox', 'live'] as const;
export type Mode = (typeof MODES)[number];

export interface ModeSettings {
  secret_key?: string;
  public_key?: string;
  base_url?: string;
  webhook_secret?: string;
}

export interface Profile {
  tenant_id?: string;
  sandbox?: ModeSettings;
  live?: ModeSettings;
}

interface ConfigShape extends Record<string, unknown> {
  current_profile?: string;
  profiles: Record<string, Profile>;
}

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const DEFAULT_PROFILE = 'default';

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name "${name}" (letters, digits, "-" and "_", up to 64, starting with a letter or digit)`);
  }
  return name;
}

export class ConfigStore {
  private readonly conf: Conf<ConfigShape>;
  readonly dir: string;

  constructor(dir: string | undefined) {
    const cwd = dir ?? undefined;
    if (cwd) ensurePrivateDir(cwd);
    try {
      this.conf = new Conf<ConfigShape>({
        projectName: 'pay',
        projectSuffix: '',
        ...(cwd ? { cwd } : {}),
        configName: 'config',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        defaults: { profiles: {} },
        clearInvalidConfig: false,
      });
    } catch (err) {
      throw new UsageError(`cannot read the configuration in ${cwd ?? 'the config folder'}: ${(err as Error).message}`, {
        hint: 'fix or remove the file; PAY_CONFIG_DIR selects another folder',
      });
    }
    this.dir = join(this.conf.path, '..');
    ensurePrivateDir(this.dir);
  }

  get path(): string {
    return this.conf.path;
  }

  get currentProfile(): string | undefined {
    return this.conf.get('current_profile');
  }

  profiles(): Record<string, Profile> {
    return this.conf.get('profiles') ?? {};
  }

  profile(name: string): Profile | undefined {
    return this.profiles()[name];
  }

  /** Replaces a profile whole (callers merge). */
  saveProfile(name: string, profile: Profile): void {
    checkProfileName(name);
    const all = { ...this.profiles(), [name]: prune(profile) };
    this.write(() => this.conf.set('profiles', all));
  }

  removeProfile(name: string): boolean {
    const all = { ...this.profiles() };
    if (!(name in all)) return false;
    delete all[name];
    this.write(() => {
      this.conf.set('profiles', all);
      if (this.currentProfile === name) this.conf.delete('current_profile');
    });
    return true;
  }

  setCurrentProfile(name: string): void {
    this.write(() => this.conf.set('current_profile', name));
  }

  private write(fn: () => void): void {
    keepFileSizeSignalIgnored();
    try {
      fn();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new PayError(`cannot write the configuration ${this.path}: ${code ?? (err as Error).message}`, ExitCode.ERROR, 'config_write', {
        hint: code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT' ? 'free some disk space (or raise the file size limit) and run the command again' : undefined,
        cause: err,
      });
    } finally {
      // Re-tighten after every write, and after a failed one too.
      tighten(this.path, 0o600);
      tighten(this.dir, 0o700);
    }
  }
}

/**
 * conf writes through `atomically`, whose exit hook (when-exit) listens for SIGXFSZ and re-raises
 * it: a write that hits the file size limit (ulimit -f) then killed pay by signal, silently, after
 * the write had already failed with EFBIG. Node ignores SIGXFSZ on its own; a listener of ours
 * keeps it that way, so the failed write is reported like any other (exit 1, one line).
 */
let fileSizeSignalKept = false;
function keepFileSizeSignalIgnored(): void {
  if (fileSizeSignalKept || process.platform === 'win32') return;
  fileSizeSignalKept = true;
  process.on('SIGXFSZ', () => {});
}

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
}

function tighten(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch {
    // The file may not exist yet (nothing written); nothing to tighten.
  }
}

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
