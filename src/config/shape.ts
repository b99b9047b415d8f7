// The shape of config.json, checked key by key when it is read: a wrong type anywhere, an unknown
// or polluting key (`__proto__`, `constructor`…), a bad profile name or text that is not JSON is a
// usage error (exit 2) naming the file and the key path. No schema library: the read path stays cheap.
import { PayError, ExitCode } from '../lib/errors.js';

export const MODES = ['sandbox', 'live'] as const;
export type Mode = (typeof MODES)[number];

export const MODE_KEYS = ['secret_key', 'public_key', 'base_url', 'webhook_secret'] as const;
export type ModeKey = (typeof MODE_KEYS)[number];

export type ModeSettings = { [K in ModeKey]?: string };

export interface Profile {
  tenant_id?: string;
  sandbox?: ModeSettings;
  live?: ModeSettings;
}

/** The whole file. `profiles` has no prototype: a name such as "constructor" finds only a stored profile. */
export interface ConfigData {
  current_profile?: string;
  profiles: Record<string, Profile>;
}

/** A profile name; never one that reaches an object's prototype when used as a key (the read path refuses those too). */
export const PROFILE_NAME = /^(?!(?:constructor|prototype)$)[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Keys that reach an object's prototype when assigned; named apart in the message. */
const POLLUTING = new Set(['__proto__', 'constructor', 'prototype']);

export class ConfigFileError extends PayError {
  /** `problem` is about `key` (a key path), or the whole file; `refused` says pay will not read it at all. */
  constructor(file: string, key: string | undefined, problem: string, hint?: string, refused = false) {
    super(
      `${refused ? 'refusing the configuration' : 'invalid configuration'} ${file}${key ? ` at ${key}` : ''}: ${problem}`,
      ExitCode.USAGE,
      'config_invalid',
      {
        hint:
          hint ??
          `fix ${key ? 'that key' : 'the file'} by hand, or move the file away and log in again (PAY_CONFIG_DIR selects another folder)`,
        details: { file, ...(key ? { key } : {}) },
      },
    );
  }
}

export function emptyConfig(): ConfigData {
  return { profiles: Object.create(null) as Record<string, Profile> };
}

/** Parses and checks the text of config.json; throws ConfigFileError naming `file` and the key path. */
export function parseConfig(text: string, file: string): ConfigData {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') throw new ConfigFileError(file, undefined, 'the file is empty, not a JSON object');
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (err) {
    // V8's message quotes the text around the error, which may be a key: give a place instead.
    throw new ConfigFileError(file, undefined, `not valid JSON${where(body, (err as Error).message)}`);
  }
  return checkConfig(raw, file);
}

function checkConfig(raw: unknown, file: string): ConfigData {
  const top = object(raw, [], file);
  const out = emptyConfig();
  for (const key of Object.keys(top)) {
    const value = top[key];
    if (key === 'current_profile') {
      out.current_profile = profileName(string(value, [key], file), [key], file);
    } else if (key === 'profiles') {
      const profiles = object(value, [key], file);
      for (const name of Object.keys(profiles)) {
        const path = [key, name];
        if (POLLUTING.has(name)) unknown(path, file);
        profileName(
          name,
          path,
          file,
          'is not a valid profile name (letters, digits, "-" and "_", up to 64, starting with a letter or digit)',
        );
        out.profiles[name] = checkProfile(profiles[name], path, file);
      }
    } else {
      unknown([key], file);
    }
  }
  return out;
}

function checkProfile(raw: unknown, path: string[], file: string): Profile {
  const p = object(raw, path, file);
  const out: Profile = {};
  for (const key of Object.keys(p)) {
    const at = [...path, key];
    if (key === 'tenant_id') out.tenant_id = string(p[key], at, file);
    else if (key === 'sandbox' || key === 'live') out[key] = checkMode(p[key], at, file);
    else unknown(at, file);
  }
  return out;
}

function checkMode(raw: unknown, path: string[], file: string): ModeSettings {
  const m = object(raw, path, file);
  const out: ModeSettings = {};
  for (const key of Object.keys(m)) {
    const at = [...path, key];
    if (!(MODE_KEYS as readonly string[]).includes(key)) unknown(at, file);
    out[key as ModeKey] = string(m[key], at, file);
  }
  return out;
}

function object(v: unknown, path: string[], file: string): Record<string, unknown> {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  throw new ConfigFileError(file, keyPath(path), `must be an object (got ${typeName(v)})`);
}

function string(v: unknown, path: string[], file: string): string {
  if (typeof v === 'string') return v;
  throw new ConfigFileError(file, keyPath(path), `must be a string (got ${typeName(v)})`);
}

function profileName(name: string, path: string[], file: string, problem = `must be a profile name (got "${clip(name)}")`): string {
  if (PROFILE_NAME.test(name)) return name;
  throw new ConfigFileError(file, keyPath(path), problem);
}

function unknown(path: string[], file: string): never {
  const key = path[path.length - 1]!;
  throw new ConfigFileError(file, keyPath(path), POLLUTING.has(key) ? `the key "${key}" is not allowed` : 'unknown key');
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** `profiles.acme.sandbox.secret_key`; a segment that is not a plain word is quoted: `profiles["a b"]`. */
export function keyPath(path: readonly string[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((s, i) => (/^[A-Za-z0-9_-]+$/.test(s) ? `${i ? '.' : ''}${s}` : `[${JSON.stringify(clip(s))}]`)).join('');
}

function clip(s: string): string {
  return s.length > 64 ? `${s.slice(0, 64)}…` : s;
}

/** " (line L, column C)" from V8's "at position N", when it says one. */
function where(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
}
