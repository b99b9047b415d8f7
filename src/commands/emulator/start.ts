// `pay emulator start`: starts the emulator, prints where it is and its own test keys on stderr
// (the one place whole keys are printed: they belong to this local emulator), optionally writes
// a profile pointing at it, and runs until SIGINT or SIGTERM, then stops cleanly (exit 0).
import { resolve } from 'node:path';
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import { DEFAULT_BASE_URL, isLoopbackHost } from '../../config/settings.js';
import { checkProfileName, MODES } from '../../config/store.js';
import {
  isRate,
  parseLatency,
  parseOrigin,
  parseRateLimit,
  startEmulator,
  type Emulator,
  type EmulatorOptions,
} from '../../emulator/index.js';
import { escapeText } from '../../io/escape.js';
import { ExitCode, PayError, UsageError } from '../../lib/errors.js';
import { checkWebhookTarget } from '../../shared/validate.js';

export interface StartFlags {
  host: string;
  port: string;
  dataDir?: string;
  setAsideUnknown?: boolean;
  webhookUrl?: string;
  configureProfile?: string;
  failRate?: string;
  latency?: string;
  resetRate?: string;
  rateLimit?: string;
  settleAfter?: string;
  allowOrigin?: string[];
}

function options(f: StartFlags, log: (line: string) => void): EmulatorOptions {
  const o: EmulatorOptions = { host: f.host, log };
  if (!f.host || !/^[A-Za-z0-9.:[\]-]+$/.test(f.host)) throw new UsageError(`invalid --host "${f.host}"`);
  if (!/^\d{1,5}$/.test(f.port) || Number(f.port) > 65535)
    throw new UsageError(`invalid --port "${f.port}" (0-65535; 0 picks a free port)`);
  o.port = Number(f.port);
  if (f.dataDir !== undefined) {
    if (f.dataDir.trim() === '') throw new UsageError('--data-dir needs a folder');
    o.dataDir = resolve(f.dataDir);
  }
  if (f.setAsideUnknown) {
    if (o.dataDir === undefined) throw new UsageError('--set-aside-unknown needs --data-dir');
    o.setAsideUnknown = true;
  }
  if (f.webhookUrl !== undefined) {
    const problem = checkWebhookTarget(f.webhookUrl);
    if (problem) throw new UsageError(`invalid --webhook-url "${f.webhookUrl}": ${problem}`);
    o.webhookUrl = f.webhookUrl;
  }
  const rate = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = /^\d*\.?\d+$/.test(v) ? Number(v) : NaN;
    if (!isRate(n)) throw new UsageError(`invalid ${name} "${v}" (a number from 0 to 1, e.g. 0.1)`);
    return n;
  };
  o.failRate = rate('--fail-rate', f.failRate);
  o.resetRate = rate('--reset-rate', f.resetRate);
  if (f.latency !== undefined) {
    const l = parseLatency(f.latency);
    if (!l) throw new UsageError(`invalid --latency "${f.latency}" (MIN-MAX in ms, e.g. 50-200)`);
    o.latencyMs = l;
  }
  if (f.rateLimit !== undefined) {
    const r = parseRateLimit(f.rateLimit);
    if (!r) throw new UsageError(`invalid --rate-limit "${f.rateLimit}" (requests per second, e.g. 20/s)`);
    o.rateLimit = r;
  }
  if (f.settleAfter !== undefined) {
    if (!/^\d{1,9}$/.test(f.settleAfter)) throw new UsageError(`invalid --settle-after "${f.settleAfter}" (milliseconds, e.g. 1000)`);
    o.settleAfterMs = Number(f.settleAfter);
  }
  for (const origin of f.allowOrigin ?? []) {
    const parsed = parseOrigin(origin);
    if (parsed === undefined)
      throw new UsageError(
        `invalid --allow-origin "${origin.slice(0, 100)}" (an origin: http(s)://host[:port], e.g. http://localhost:3000)`,
      );
    (o.allowOrigins ??= []).push(parsed);
  }
  return o;
}

async function configure(f: Factory, name: string, emu: Emulator): Promise<{ path: string; current: boolean }> {
  const store = f.config();
  const current = await store.saveProfile(
    name,
    {
      tenant_id: emu.tenantId,
      sandbox: {
        secret_key: emu.keys.sandbox.secret,
        public_key: emu.keys.sandbox.public,
        base_url: emu.baseUrl,
        webhook_secret: emu.webhookSecrets.sandbox,
      },
      live: {
        secret_key: emu.keys.live.secret,
        public_key: emu.keys.live.public,
        base_url: emu.baseUrl,
        webhook_secret: emu.webhookSecrets.live,
      },
    },
    { makeCurrent: 'if-none' },
  );
  return { path: store.path, current };
}

/**
 * Some profile's base URL (either mode's; the default base URL for a profile without one) is this
 * emulator's: same port on a loopback host. A config file that cannot be read counts as none.
 */
export function profilePointsAt(f: Factory, baseUrl: string): boolean {
  const here = new URL(baseUrl);
  const same = (url: string): boolean => {
    try {
      const u = new URL(url);
      return u.port === here.port && u.protocol === here.protocol && isLoopbackHost(u.hostname.replace(/^\[|\]$/g, ''));
    } catch {
      return false;
    }
  };
  try {
    return Object.values(f.config().profiles()).some((p) =>
      MODES.some((m) => p[m] !== undefined && same(p[m]?.base_url ?? DEFAULT_BASE_URL)),
    );
  } catch {
    return false;
  }
}

/** A webhook URL's banner line: the URL (escaped: a saved one comes from the data dir), whether it is the last run's, or none and how to set one. */
function hook(url: string | undefined, kept: boolean, howToSet: string): string {
  if (url === undefined) return `none (${howToSet})`;
  return kept ? `${escapeText(url)} (kept from the last run on this data dir)` : escapeText(url);
}

function banner(
  emu: Emulator,
  o: EmulatorOptions,
  profile: string | undefined,
  config: { path: string; current: boolean } | undefined,
  pointedAt: boolean,
): string {
  const rows: Array<[string, string]> = [
    ['base URL', emu.baseUrl],
    ['tenant id', emu.tenantId],
    ['sandbox secret key', emu.keys.sandbox.secret],
    ['sandbox public key', emu.keys.sandbox.public],
    ['sandbox webhook secret', emu.webhookSecrets.sandbox],
    ['live secret key', emu.keys.live.secret],
    ['live public key', emu.keys.live.public],
    ['live webhook secret', emu.webhookSecrets.live],
    ['data', o.dataDir ? `${o.dataDir} (kept across restarts)` : 'in memory (lost on exit; --data-dir keeps it)'],
    [
      'sandbox webhook URL',
      hook(
        emu.webhookUrls.sandbox,
        o.webhookUrl === undefined,
        'events stay pending; pay emulator webhook-url <url> or pay webhooks listen sets one',
      ),
    ],
    ['live webhook URL', hook(emu.webhookUrls.live, true, 'pay --live emulator webhook-url <url> or pay --live webhooks listen sets one')],
    ['settle after', `${o.settleAfterMs ?? 1000} ms`],
  ];
  const faults = [
    o.failRate ? `fail ${o.failRate}` : '',
    o.resetRate ? `reset ${o.resetRate}` : '',
    o.latencyMs ? `latency ${o.latencyMs[0]}-${o.latencyMs[1]} ms` : '',
    o.rateLimit ? `rate limit ${o.rateLimit.perSecond}/s` : '',
  ].filter(Boolean);
  if (faults.length) rows.push(['faults', faults.join(', ')]);
  if (o.allowOrigins?.length) rows.push(['allowed origins', o.allowOrigins.join(', ')]);
  const width = Math.max(...rows.map(([k]) => k.length));
  let out = `pay emulator listening on ${emu.url}\n` + rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n') + '\n';
  out += "These are the emulator's own test keys; do not use them anywhere else.\n";
  if (profile && config) {
    out += `Profile "${profile}" configured in ${config.path}${config.current ? ' (now the current profile)' : ''}: try pay -p ${profile} customers list\n`;
  } else if (!pointedAt) {
    // Nothing will talk to it yet: the one step that makes a profile for it, with its keys.
    out += `No profile points at ${emu.baseUrl}: restart with --configure-profile <name> to write one with these keys (or pay login --base-url ${emu.baseUrl}).\n`;
  }
  out += 'Press Ctrl-C to stop.\n';
  return out;
}

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const flags = ctx.opts as unknown as StartFlags;
  const o = options(flags, (line) => f.io.err(`emulator: ${line}\n`));
  if (flags.configureProfile !== undefined) {
    checkProfileName(flags.configureProfile);
    // Before anything serves: a configuration that cannot be written now (a read-only folder, its
    // lock held or not a lock) is one line at once, not an emulator that stops after starting.
    await f.config().checkWritable();
  }
  let emu: Emulator;
  try {
    emu = await startEmulator(o);
  } catch (err) {
    // Options only the started server can judge (the port 0 picked): --webhook-url at itself.
    if (err instanceof RangeError && /^webhookUrl /.test(err.message))
      throw new UsageError(`invalid --webhook-url: ${err.message.replace(/^webhookUrl /, '')}`, {
        hint: 'deliveries go to your app (or pay webhooks listen), not to the emulator',
      });
    const e = err as NodeJS.ErrnoException;
    const hint = e.code === 'EADDRINUSE' ? '--port 0 picks a free port' : e.code === 'EACCES' ? 'use a port above 1023' : undefined;
    throw new PayError(`cannot start the emulator: ${e.message}`, ExitCode.ERROR, 'emulator_start', { hint, cause: err });
  }
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const stopped = new Promise<NodeJS.Signals>((done) => (onSignal = done));
  f.signals.on('SIGINT', onSignal);
  f.signals.on('SIGTERM', onSignal);
  // A second signal while stopping does not wait any longer: the entry ends the process (exit 1).
  let force: () => void = () => {};
  const forced = new Promise<never>((_, fail) => {
    force = () => {
      f.io.err('stopped without waiting\n');
      fail(new PayError('stopped without waiting', ExitCode.ERROR, 'emulator_forced', { quiet: true, exitNow: true }));
    };
  });
  forced.catch(() => {});
  try {
    const config = flags.configureProfile ? await configure(f, flags.configureProfile, emu) : undefined;
    f.io.err(banner(emu, o, flags.configureProfile, config, config !== undefined || profilePointsAt(f, emu.baseUrl)));
    const signal = await stopped;
    f.io.err(`${signal === 'SIGINT' ? '\n' : ''}stopping the emulator…\n`);
    f.signals.on('SIGINT', force);
    f.signals.on('SIGTERM', force);
  } catch (err) {
    f.signals.off('SIGINT', onSignal);
    f.signals.off('SIGTERM', onSignal);
    await emu.stop();
    throw err;
  }
  f.signals.off('SIGINT', onSignal);
  f.signals.off('SIGTERM', onSignal);
  try {
    await Promise.race([emu.stop(), forced]);
  } finally {
    f.signals.off('SIGINT', force);
    f.signals.off('SIGTERM', force);
  }
  f.io.err('emulator stopped\n');
}
