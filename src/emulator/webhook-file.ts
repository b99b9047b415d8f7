// The webhook settings of an emulator with a data dir: each mode's webhook URL and the claims of
// the `pay webhooks listen` holding it (events.ts), in webhooks.json next to keys.json, so a
// restart on the same data dir delivers where the last run did and a running listen's give-back
// still restores what it took over. Settings, not data: `reset` keeps them, the journal never
// holds them. Written whole (temporary file, fsync, rename, the folder fsynced), so a crash leaves
// the old file or the new one. Faults are not kept: a restart starts without them.
import { writeFileAtomic } from '../shared/atomic-write.js';
import { join } from 'node:path';
import { checkWebhookTarget } from '../shared/validate.js';
import { readSmallFile, settingsFilePresent } from './small-file.js';
import type { Mode } from './types.js';

export interface Claim {
  url: string;
  previous: string | undefined;
}

export interface ModeHooks {
  url: string | undefined;
  /** Oldest first. */
  claims: Claim[];
}

export type WebhookSettings = Record<Mode, ModeHooks>;

/** Claims kept per mode (webhook-urls.ts drops the oldest past it, passing its give-back target on). */
export const MAX_CLAIMS = 64;
/** The file is never read past this (64 claims of two 2048-character URLs fit many times over). */
const MAX_FILE_BYTES = 1 << 20;
const FILE = 'webhooks.json';

export const webhookFile = (dataDir: string): string => join(dataDir, FILE);

/** The saved settings, or undefined when the data dir has none yet. A file that is not one throws (nothing is overwritten). */
export function loadWebhookSettings(dataDir: string): WebhookSettings | undefined {
  const path = webhookFile(dataDir);
  if (!settingsFilePresent(path)) return undefined;
  const bad = (): Error =>
    new Error(`${path} is not an emulator webhook settings file; move it away (the emulator then starts with no webhook URL)`);
  const text = readSmallFile(path, MAX_FILE_BYTES);
  if (text === undefined) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bad();
  }
  const settings = parse(parsed);
  if (!settings) throw bad();
  return settings;
}

const isUrl = (v: unknown): v is string => typeof v === 'string' && checkWebhookTarget(v) === undefined;
const urlOrNull = (v: unknown): v is string | null => v === null || isUrl(v);

function parse(v: unknown): WebhookSettings | undefined {
  if (typeof v !== 'object' || v === null || (v as { version?: unknown }).version !== 1) return undefined;
  const out: Partial<WebhookSettings> = {};
  for (const mode of ['sandbox', 'live'] as const) {
    const m = (v as Record<string, unknown>)[mode] as { url?: unknown; claims?: unknown } | undefined;
    if (typeof m !== 'object' || m === null || !urlOrNull(m.url) || !Array.isArray(m.claims) || m.claims.length > MAX_CLAIMS)
      return undefined;
    const claims: Claim[] = [];
    for (const c of m.claims as unknown[]) {
      const claim = c as { url?: unknown; previous?: unknown } | null;
      if (typeof claim !== 'object' || claim === null || !isUrl(claim.url) || !urlOrNull(claim.previous)) return undefined;
      claims.push({ url: claim.url, previous: claim.previous ?? undefined });
    }
    out[mode] = { url: m.url ?? undefined, claims };
  }
  return out as WebhookSettings;
}

/** Writes the settings whole and durably: the old file or the new one, never a mix. */
export function saveWebhookSettings(dataDir: string, s: WebhookSettings): void {
  const path = webhookFile(dataDir);
  const mode = (m: ModeHooks) => ({ url: m.url ?? null, claims: m.claims.map((c) => ({ url: c.url, previous: c.previous ?? null })) });
  const text = `${JSON.stringify({ version: 1, sandbox: mode(s.sandbox), live: mode(s.live) }, null, 2)}\n`;
  writeFileAtomic(path, text, { mode: 0o600 });
}
