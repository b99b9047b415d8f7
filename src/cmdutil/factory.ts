// Every side effect a command needs, built lazily from one place (the gh "Factory" idea):
// streams, environment, settings (flag > env > profile > default), config store, API client,
// prompter. Tests build one with fake streams and an injected undici dispatcher.
import type { Dispatcher } from 'undici';
import type { ApiClient, OutgoingRequest, Replay } from '../api/client.js';
import type { EmulatorAdmin } from '../api/emulator-admin.js';
import { checkSecretKey } from '../config/keys.js';
import { resolveSettings, type GlobalFlags, type Settings } from '../config/settings.js';
import { ConfigStore } from '../config/store.js';
import { escapeMultiline, escapeText } from '../io/escape.js';
import { createIOStreams, type IOStreams } from '../io/iostreams.js';
import { AuthError, UsageError } from '../lib/errors.js';
import { systemClock, type Clock } from '../lib/poll.js';
import type { GroupSpec } from './spec.js';

/**
 * Where a long-running command hears Ctrl-C and SIGTERM: the process's signals, or a test's. A
 * command listens for 'SIGTERM' and hears every signal that asks it to end: SIGTERM and SIGHUP (the
 * terminal it runs in was closed), so what it undoes on SIGTERM (a webhook URL given back, a journal
 * flushed) is undone then too. The listener is given the signal that came.
 */
export interface Signals {
  on(signal: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): void;
  off(signal: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): void;
  /**
   * Hears every stop signal with this listener alone, the others set aside until the function
   * returned is called (which puts them back): a bulk run, where an exit hook a library installs
   * must not end pay by the signal.
   */
  alone(listener: (signal: NodeJS.Signals) => void): () => void;
}

/** The process signals each name a command listens for stands for. */
export const HEARD_AS: Readonly<Record<'SIGINT' | 'SIGTERM', readonly NodeJS.Signals[]>> = {
  SIGINT: ['SIGINT'],
  SIGTERM: ['SIGTERM', 'SIGHUP'],
};

/** Every signal a long-running command stops on (for code that must see them all at once). */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = [...HEARD_AS.SIGINT, ...HEARD_AS.SIGTERM];

const processSignals: Signals = {
  on: (signal, listener) => {
    for (const s of HEARD_AS[signal]) process.on(s, listener);
  },
  off: (signal, listener) => {
    for (const s of HEARD_AS[signal]) process.off(s, listener);
  },
  alone: (listener) => {
    const kept = STOP_SIGNALS.map((sig) => ({ sig, listeners: process.rawListeners(sig) as Array<(...args: unknown[]) => void> }));
    for (const { sig } of kept) {
      process.removeAllListeners(sig);
      process.on(sig, listener);
    }
    return () => {
      for (const { sig, listeners } of kept) {
        process.off(sig, listener);
        for (const l of listeners) process.on(sig, l);
      }
    };
  },
};

export interface Factory {
  readonly io: IOStreams;
  readonly signals: Signals;
  /** What waits read the time from and pause with (src/lib/poll.ts): the machine's, or a test's. */
  readonly clock: Clock;
  readonly env: NodeJS.ProcessEnv;
  readonly flags: GlobalFlags;
  /** Prompting is allowed: stdin and stderr are terminals, and neither --no-input, PAY_NO_INPUT nor CI says no. */
  readonly canPrompt: boolean;
  readonly debugEnabled: boolean;
  config(): ConfigStore;
  settings(): Settings;
  /** An API client for the resolved settings; refuses (before sending) a missing or mismatched key. */
  client(opts?: { requireTenant?: string }): Promise<ApiClient>;
  /**
   * The admin client of the emulator behind the resolved base URL (its origin + /__emulator/; no
   * key sent). Its detect() refuses a base URL that is not an emulator before anything acts.
   */
  emulator(): Promise<EmulatorAdmin>;
  /**
   * Set by the dispatcher when the command runs with --dry-run: clients built after it print each
   * request that would change something instead of sending it (src/cmdutil/dry-run.ts).
   */
  dryRun: ((req: OutgoingRequest) => void) | undefined;
  /**
   * The whole tree's group specs (src/commands/groups.ts), loaded when asked: what the replay note's
   * "see it now with" and a bulk run's summary name. Handed in by whoever builds the Factory (the
   * entry, src/commands/tree.ts, tests): the commands room is above this one.
   */
  groups(): Promise<readonly GroupSpec[]>;
}

export interface FactoryInit {
  io?: IOStreams;
  env?: NodeJS.ProcessEnv;
  flags: GlobalFlags;
  dispatcher?: Dispatcher;
  signals?: Signals;
  clock?: Clock;
  /** Factory.groups: the whole tree's group specs, loaded when asked. */
  groups: () => Promise<readonly GroupSpec[]>;
}

export function promptingAllowed(io: IOStreams, env: NodeJS.ProcessEnv, flags: GlobalFlags): boolean {
  if (flags.input === false) return false;
  if (env.PAY_NO_INPUT && env.PAY_NO_INPUT !== '0' && env.PAY_NO_INPUT !== 'false') return false;
  if (env.CI && env.CI !== '0' && env.CI !== 'false') return false;
  return io.stdinIsTTY && io.stderrIsTTY;
}

export function createFactory(init: FactoryInit): Factory {
  const env = init.env ?? process.env;
  const flags = init.flags;
  const io = init.io ?? createIOStreams({ env, noColor: flags.color === false });
  const debugEnabled = Boolean(flags.debug) || (env.PAY_DEBUG !== undefined && env.PAY_DEBUG !== '' && env.PAY_DEBUG !== '0');
  let store: ConfigStore | undefined;
  let settings: Settings | undefined;
  const factory: Factory = {
    io,
    signals: init.signals ?? processSignals,
    clock: init.clock ?? systemClock,
    env,
    flags,
    canPrompt: promptingAllowed(io, env, flags),
    debugEnabled,
    config() {
      store ??= new ConfigStore(env.PAY_CONFIG_DIR || undefined, (line) => io.err(`${escapeText(line)}\n`));
      return store;
    },
    settings() {
      settings ??= resolveSettings(flags, env, factory.config());
      return settings;
    },
    dryRun: undefined,
    groups: init.groups,
    async emulator() {
      const s = factory.settings();
      const { EmulatorAdmin } = await import('../api/emulator-admin.js');
      return new EmulatorAdmin({
        baseUrl: s.baseUrl.value,
        baseUrlOrigin: s.baseUrl.origin,
        timeoutMs: s.timeoutMs.value,
        maxResponseBytes: s.maxResponseBytes.value,
        dispatcher: init.dispatcher,
        secrets: [s.apiKey.value, s.webhookSecret.value],
        dryRun: factory.dryRun,
        ...(debugEnabled ? { debug: (line: string) => io.err(`${escapeMultiline(line)}\n`) } : {}),
      });
    },
    async client(opts = {}) {
      const s = factory.settings();
      const label = `profile "${s.profileName.value}" (${s.mode.value})`;
      // A refused key is blamed on where it came from: the flag, the variable or the profile.
      const from = s.apiKey.source === 'flag' ? '--api-key' : s.apiKey.source === 'env' ? 'PAY_API_KEY' : label;
      const credentialHint =
        s.apiKey.source === 'flag'
          ? 'check the key given with --api-key (it wins over PAY_API_KEY and the profile)'
          : s.apiKey.source === 'env'
            ? `check PAY_API_KEY (it wins over the profile; unset it to use ${label})`
            : `check the key with pay profiles show${s.profileName.value === 'default' ? '' : ` ${s.profileName.value}`}, or log in again with pay login${s.profileName.value === 'default' ? '' : ` -p ${s.profileName.value}`}${s.mode.value === 'live' ? ' --live' : ''}`;
      if (!s.apiKey.value) {
        throw new AuthError(`no API key for ${label}`, {
          hint: `run: pay login${s.profileName.value === 'default' ? '' : ` -p ${s.profileName.value}`}${s.mode.value === 'live' ? ' --live' : ''}, or set PAY_API_KEY`,
        });
      }
      checkSecretKey(s.apiKey.value, s.mode.value, s.apiKey.origin);
      if (opts.requireTenant && !s.tenant.value) {
        throw new UsageError(`${opts.requireTenant} needs a tenant id (x-tenant-id)`, {
          hint: 'pass --tenant <id>, set PAY_TENANT_ID, or store one with pay profiles set tenant_id <id>',
        });
      }
      const { ApiClient } = await import('../api/client.js');
      return new ApiClient({
        baseUrl: s.baseUrl.value,
        apiKey: s.apiKey.value,
        tenant: s.tenant.value,
        userAgent: `pay-cli/${payVersion()}`,
        timeoutMs: s.timeoutMs.value,
        maxRetries: s.maxRetries.value,
        maxResponseBytes: s.maxResponseBytes.value,
        credentialLabel: from,
        credentialHint,
        secrets: [s.webhookSecret.value],
        dryRun: factory.dryRun,
        // The note for a replayed answer (src/cmdutil/replay.ts, loaded when one comes, with the tree).
        onReplay: async (r: Replay) => {
          const [{ replayNote }, groups] = await Promise.all([import('./replay.js'), init.groups()]);
          io.err(await replayNote(r, groups));
        },
        ...(init.dispatcher ? { dispatcher: init.dispatcher } : {}),
        // Bodies and headers come from the service: escaped, a body's own line breaks kept.
        ...(debugEnabled ? { debug: (line: string) => io.err(`${escapeMultiline(line)}\n`) } : {}),
        ...backoffFromEnv(env),
      });
    },
  };
  return factory;
}

/** PAY_RETRY_BASE_MS shortens backoff (tests and the emulator's fault drills); undocumented for users. */
function backoffFromEnv(env: NodeJS.ProcessEnv): { backoffBaseMs?: number } {
  const n = Number(env.PAY_RETRY_BASE_MS);
  return env.PAY_RETRY_BASE_MS && Number.isFinite(n) && n >= 0 ? { backoffBaseMs: n } : {};
}

// Inlined by esbuild's define (the same expression as version.ts): importing version.ts here would
// make it a chunk shared with the entry, one more file on every start-up.
declare const __PAY_VERSION__: string | undefined;
function payVersion(): string {
  return typeof __PAY_VERSION__ === 'string' ? __PAY_VERSION__ : '0.0.0-dev';
}
