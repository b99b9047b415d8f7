// `pay emulator status | reset | clock advance | webhook-url | faults`: each drives the emulator
// behind the resolved base URL through its admin routes (src/api/emulator-admin.ts), after making
// sure an emulator is there (detect(): any other server is exit 2, nothing sent but the check).
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import { escapeText } from '../../io/escape.js';
import type { OutputSettings } from '../../io/output-options.js';
import { DURATION_FORMS, formatDuration, MAX_ADVANCE_SECONDS, parseDuration } from '../../shared/duration.js';
import { UsageError } from '../../lib/errors.js';
import { parseLatency, parseRate, parseRateLimit } from '../../shared/fault-syntax.js';
import { checkWebhookTarget, isOwnAddress } from '../../shared/validate.js';

async function printer(f: Factory, output: OutputSettings | undefined) {
  const { Printer } = await import('../../io/output.js');
  return new Printer(f.io, output ?? { format: 'json', fields: undefined, header: true }, []);
}

const isJson = (output: OutputSettings | undefined): boolean => output?.format === 'json' || output?.format === 'ndjson';

/** At most 80 characters of what the user typed, escaped, for a message. */
const quoted = (s: string): string => `"${escapeText(s.length > 80 ? `${s.slice(0, 80)}…` : s)}"`;

export async function status(f: Factory, ctx: CommandContext): Promise<void> {
  const admin = await f.emulator();
  const info = await admin.detect();
  const [stats, faults] = await Promise.all([admin.get('stats'), admin.get('faults')]);
  const webhooks = (stats.webhooks ?? {}) as Record<string, unknown>;
  const { urls, ...deliveries } = webhooks;
  const perMode = (urls ?? {}) as Record<string, unknown>;
  const journal = (stats.journal ?? {}) as Record<string, unknown>;
  const out = {
    base_url: f.settings().baseUrl.value,
    version: info.version,
    url: info.url,
    started_at: info.started_at,
    uptime_s: info.uptime_s,
    data_dir: info.data_dir,
    clock: stats.clock ?? null,
    // Each mode has its own (a Sandbox listen never sees Live events).
    webhook_urls: { sandbox: perMode.sandbox ?? null, live: perMode.live ?? null },
    faults,
    objects: stats.objects ?? {},
    webhooks: { pending: 0, delivered: 0, failed: 0, ...deliveries },
    requests: stats.requests ?? null,
    journal: {
      enabled: journal.enabled ?? false,
      writable: journal.writable ?? null,
      size: journal.size ?? null,
      disk_error_episodes: (journal.disk_errors as { episodes?: unknown } | undefined)?.episodes ?? null,
    },
  };
  (await printer(f, ctx.output)).printObject(out);
}

export async function reset(f: Factory, ctx: CommandContext): Promise<void> {
  // A dry run changes nothing: it asks nothing and needs no --yes (the request is printed instead).
  const yes = ctx.opts.yes === true || f.dryRun !== undefined;
  if (!yes && !f.canPrompt)
    throw new UsageError('refusing to reset the emulator without confirmation: pass --yes', { hint: 'nothing was reset' });
  const admin = await f.emulator();
  await admin.detect();
  if (!yes) {
    const { createPrompter } = await import('../../io/prompt.js');
    const ok = await createPrompter(f.io).confirm(`Reset the emulator at ${admin.origin}? All its data is forgotten`, false);
    if (!ok) throw new UsageError('not confirmed; nothing was reset');
  }
  await admin.post('reset', {});
  if (isJson(ctx.output)) return (await printer(f, ctx.output)).printValue({ reset: true, emulator: admin.origin });
  f.io.err(`✓ Emulator reset: ${admin.origin} holds no data now (its keys, webhook URLs and faults stay)\n`);
}

export async function clockAdvance(f: Factory, ctx: CommandContext): Promise<void> {
  const raw = String(ctx.args[0] ?? '');
  const seconds = parseDuration(raw);
  if (seconds === undefined || seconds > MAX_ADVANCE_SECONDS)
    throw new UsageError(`invalid duration ${quoted(raw)}: ${DURATION_FORMS}, at most 10 years`);
  const admin = await f.emulator();
  const clock = await admin.post<{ now: string; offset_ms: number; caught_up?: unknown }>('clock/advance', { seconds });
  // Deliveries slower than the emulator waits for: the rest of what was due goes on from the new time.
  const behind =
    clock.caught_up === false
      ? 'warning: webhook deliveries were still running when the emulator stopped waiting for them; the retries still due run from the new time\n'
      : '';
  if (isJson(ctx.output)) {
    if (behind) f.io.err(behind);
    return (await printer(f, ctx.output)).printValue({ ...clock, advanced_s: seconds });
  }
  f.io.out(`${escapeText(String(clock.now))}\n`);
  f.io.err(
    `✓ Emulator clock moved forward ${formatDuration(seconds)} (now ${formatDuration(Number(clock.offset_ms) / 1000)} ahead of real time); ${behind ? 'what became due has started' : 'what became due has happened'}\n${behind}`,
  );
}

export async function webhookUrl(f: Factory, ctx: CommandContext): Promise<void> {
  const url = ctx.args[0] as string | undefined;
  const clear = ctx.opts.clear === true;
  if (url !== undefined && clear) throw new UsageError('give a URL or --clear, not both');
  if (url !== undefined) {
    const problem =
      checkWebhookTarget(url) ?? (isEmulatorItself(url, f.settings().baseUrl.value) ? "is the emulator's own address" : undefined);
    if (problem) throw new UsageError(`invalid webhook URL ${quoted(url)}: ${problem}`, { hint: 'e.g. http://127.0.0.1:3000/hooks' });
  }
  // Each mode has its own URL, as a real service has webhook endpoints per mode: this command acts
  // on the one of the mode it runs in (--live, PAY_MODE or the profile's).
  const mode = f.settings().mode.value;
  const Mode = modeName(mode);
  const admin = await f.emulator();
  const answer =
    url !== undefined || clear
      ? await admin.post<{ url: string | null }>('webhook-url', { url: clear ? null : url }, { mode })
      : await admin.get<{ url: string | null }>('webhook-url', { mode });
  const current = typeof answer.url === 'string' ? answer.url : null;
  if (isJson(ctx.output)) (await printer(f, ctx.output)).printValue({ mode, url: current });
  else if (current !== null) f.io.out(`${escapeText(current)}\n`);
  const live = mode === 'live' ? '--live ' : '';
  if (url !== undefined) f.io.err(`✓ ${Mode} webhook URL set: ${Mode} events still pending delivery go out to it now\n`);
  else if (clear) f.io.err(`✓ ${Mode} webhook URL cleared: new ${Mode} events stay pending until one is set\n`);
  else if (current === null)
    f.io.err(
      `No ${Mode} webhook URL set: ${Mode} events stay pending. Set one with pay ${live}emulator webhook-url <url>, or run pay ${live}webhooks listen\n`,
    );
}

/** `Sandbox`, `Live`: how messages name a mode. */
const modeName = (mode: string): string => (mode === 'live' ? 'Live' : 'Sandbox');

interface FaultFlags {
  failRate?: string;
  latency?: string;
  resetRate?: string;
  rateLimit?: string;
  clear?: boolean;
}

/** The flags given, as the admin route's fields (checked: exit 2 before anything is sent). */
export function faultChanges(o: FaultFlags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const rate = (name: string, v: string): number => {
    const n = parseRate(v);
    if (n === undefined) throw new UsageError(`invalid ${name} ${quoted(v)} (a number from 0 to 1, e.g. 0.1; 0 switches it off)`);
    return n;
  };
  if (o.failRate !== undefined) body.fail_rate = rate('--fail-rate', o.failRate);
  if (o.resetRate !== undefined) body.reset_rate = rate('--reset-rate', o.resetRate);
  if (o.latency !== undefined) {
    const off = o.latency.trim().toLowerCase() === 'off';
    const l = off ? null : parseLatency(o.latency);
    if (l === undefined) throw new UsageError(`invalid --latency ${quoted(o.latency)} (MIN-MAX in ms up to 60000, e.g. 50-200, or off)`);
    body.latency_ms = l;
  }
  if (o.rateLimit !== undefined) {
    const off = o.rateLimit.trim().toLowerCase() === 'off';
    const r = off ? null : parseRateLimit(o.rateLimit);
    if (r === undefined) throw new UsageError(`invalid --rate-limit ${quoted(o.rateLimit)} (requests per second, e.g. 20/s, or off)`);
    body.rate_limit = r === null ? null : { per_second: r.perSecond, burst: r.burst };
  }
  if (o.clear) {
    if (Object.keys(body).length > 0) throw new UsageError('--clear switches every fault off: give it alone');
    return { fail_rate: 0, reset_rate: 0, latency_ms: null, rate_limit: null };
  }
  return body;
}

export async function faults(f: Factory, ctx: CommandContext): Promise<void> {
  const changes = faultChanges(ctx.opts);
  const admin = await f.emulator();
  const changed = Object.keys(changes).length > 0;
  const settings = changed ? await admin.post('faults', changes) : await admin.get('faults');
  (await printer(f, ctx.output)).printObject(settings);
  if (changed) f.io.err(ctx.opts.clear === true ? '✓ Faults cleared: the emulator answers normally\n' : '✓ Faults changed\n');
}

/** The URL names the emulator behind the base URL (its port on this machine): deliveries there would act on it. */
function isEmulatorItself(url: string, baseUrl: string): boolean {
  const base = new URL(baseUrl);
  return isOwnAddress(url, { hostname: base.hostname, port: base.port || (base.protocol === 'https:' ? '443' : '80') });
}
