// pay webhooks listen: a local receiver for deliveries (listen.ts) that, against the emulator (the
// same detection as `pay emulator …`), takes the emulator's webhook URL on start (events still
// pending come now) and gives it back on exit, only if still its own (src/emulator/webhook-urls.ts
// takeUrl/releaseUrl); it stops cleanly on SIGINT/SIGTERM (exit 0), heard from before it registers.
import type { EmulatorAdmin, EmulatorInfo } from '../../api/emulator-admin.js';
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import { isLoopbackHost } from '../../config/settings.js';
import { escapeText } from '../../io/escape.js';
import { fitStatus } from '../../io/fit-text.js';
import { closeNames, didYouMean } from '../../lib/distance.js';
import { ExitCode, NetworkError, PayError, UsageError } from '../../lib/errors.js';
import { asText } from '../../lib/text.js';
import { EVENT_TYPES } from '../../shared/events.js';
import { isWebhookSecret, WEBHOOK_SECRET_HINT } from '../../shared/signature.js';
import { checkInt } from '../../shared/validate.js';
import { printable } from '../../verbs/values.js';
import { checkForwardUrl, probe, refuseForwardToSelf } from './forward.js';
import { startListener, type Listener } from './listen.js';
import { webhookSecret } from './secret.js';

interface ListenFlags {
  port?: unknown;
  host?: unknown;
  forwardTo?: unknown;
  secret?: unknown;
  events?: unknown;
  skipDuplicates?: unknown;
  printSecret?: unknown;
}

/** --events a,b: each a contract event type; an unknown one is exit 2, with a close one suggested. */
export function parseEventFilter(raw: string): Set<string> {
  const names = raw
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UsageError('--events needs at least one event type, e.g. --events customer.created,transfer.failed');
  for (const n of names) {
    if ((EVENT_TYPES as readonly string[]).includes(n)) continue;
    const guess = didYouMean(closeNames(n, EVENT_TYPES));
    throw new UsageError(`--events: unknown event type "${printable(n)}"`, {
      hint: `${guess ? `${guess} ` : ''}pay webhooks list --help lists every event type (--type)`,
    });
  }
  return new Set(names);
}

/** The URL the emulator should deliver to: the listener's, with a wildcard address made a loopback one. */
export function registrationUrl(listenerUrl: string): string {
  const u = new URL(listenerUrl);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.toString();
}

const bare = (secret: string): string => secret.replace(/^whsec_/, '');

const SIGNED = ', signing with the secret this listen verifies with (pay webhooks listen --print-secret prints it).';

/**
 * The secret deliveries are verified with: --secret, then PAY_WEBHOOK_SECRET, then the profile's,
 * then (against an emulator, with none of those) the emulator's own for the mode. A given secret
 * that is not the emulator's is kept, with a warning: every delivery from it would be rejected.
 */
async function resolveSecret(f: Factory, flag: unknown, admin: EmulatorAdmin, emulator: EmulatorInfo | undefined): Promise<string> {
  // An explicitly empty --secret never gets here: the root command refuses it (src/cmdutil/root.ts).
  const given = typeof flag === 'string';
  if (!emulator) return webhookSecret(f, flag);
  const s = f.settings();
  const theirs = await admin.get<{ secret?: unknown }>('webhook-secret', { mode: s.mode.value });
  const emulatorSecret = typeof theirs.secret === 'string' && isWebhookSecret(theirs.secret) ? theirs.secret : undefined;
  if (!given && !s.webhookSecret.value) {
    if (!emulatorSecret)
      throw new PayError(
        `the emulator at ${admin.origin} did not give its webhook secret: ${WEBHOOK_SECRET_HINT}`,
        ExitCode.ERROR,
        'bad_response',
      );
    return emulatorSecret;
  }
  const mine = webhookSecret(f, flag);
  if (emulatorSecret && bare(emulatorSecret) !== bare(mine))
    f.io.err(
      fitStatus(
        `warning: the webhook secret from ${given ? '--secret' : s.webhookSecret.origin} is not the one the emulator at ${admin.origin} signs with: its deliveries will be rejected (leave it out to use the emulator's)\n`,
        f.io.stderrIsTTY ? f.io.terminalWidth : Infinity,
      ),
    );
  return mine;
}

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  // What the listen says on stderr, broken at spaces to a terminal's width (no URL or id split by the terminal).
  const say = (t: string): void => f.io.err(f.io.stderrIsTTY ? fitStatus(t, f.io.terminalWidth) : t);
  const o = ctx.opts as ListenFlags;
  // Declared with output (index.ts): resolved by the dispatcher.
  const output = ctx.output!;
  const port = asText(o.port ?? '8788');
  const portProblem = checkInt(0, 65535)(port);
  if (portProblem) throw new UsageError(`--port ${portProblem}`);
  const host = typeof o.host === 'string' ? o.host : '127.0.0.1';
  const forwardTo = o.forwardTo === undefined ? undefined : checkForwardUrl(asText(o.forwardTo));
  const events = o.events === undefined ? undefined : parseEventFilter(asText(o.events));
  // A --forward-to naming this listen itself would forward each delivery to itself, forever:
  // refused before listening (with --port 0, once the port is known, before registering).
  if (forwardTo && port !== '0') refuseForwardToSelf(forwardTo, host, port);

  // Is the base URL an emulator? Only a loopback one is asked (a hosted service never is).
  const admin = await f.emulator();
  let emulator: EmulatorInfo | undefined;
  /** Without an emulator: why not, and what to do instead (the paragraph printed once listening). */
  let advice = (ours: string): string =>
    `The service at ${f.settings().baseUrl.value} is not a local emulator, so nothing was registered: register ${ours} as its webhook endpoint ` +
    `(in its dashboard or API; a hosted service needs a public tunnel to this port, e.g. ngrok or cloudflared)${SIGNED}`;
  if (admin.local) {
    try {
      emulator = await admin.detect();
    } catch (err) {
      if (!(err instanceof NetworkError) && !(err instanceof PayError && err.code === 'not_an_emulator')) throw err;
      const why =
        err instanceof NetworkError
          ? `No emulator answers at ${admin.origin} (${err.message.split(': ').pop()})`
          : `The server at ${admin.origin} is not a pay emulator`;
      advice = (ours) =>
        `${why}, so nothing was registered: start one (pay emulator start) and run listen again, or register ${ours} ` +
        `as the webhook endpoint of the service that sends the events${SIGNED}`;
    }
  }
  const secret = await resolveSecret(f, o.secret, admin, emulator);
  if (o.printSecret === true) {
    // With --json (or -o ndjson, --jq): the secret as a JSON string, as every value printed as JSON is.
    if (output.format === 'json' || output.format === 'ndjson') {
      const { Printer } = await import('../../io/output.js');
      new Printer(f.io, output, []).printValue(secret);
    } else f.io.out(`${secret}\n`);
    return;
  }

  // Ctrl-C and SIGTERM are heard from before anything needs undoing: one that comes while the
  // listener starts, registers with the emulator or probes the forward target stops the listen as
  // one later does (the URL registered is given back), instead of killing pay with the URL left
  // pointing at a dead port. "Ready … (Ctrl-C to stop)" is said only once it is true.
  const stop = stopSignal(f);
  const mode = f.settings().mode.value;
  const Mode = mode === 'live' ? 'Live' : 'Sandbox';
  let listener: Listener | undefined;
  let ours = '';
  let registered = false;
  let cut: number;
  try {
    const { Printer } = await import('../../io/output.js');
    const printer = new Printer(f.io, output, []);
    listener = await startListener({
      host,
      port: Number(port),
      secret,
      forwardTo,
      json: output.format === 'json' || output.format === 'ndjson',
      line: (delivery) => printer.printLine(delivery),
      io: f.io,
      skipDuplicates: o.skipDuplicates === true,
      events,
    });
    if (forwardTo) refuseForwardToSelf(forwardTo, host, new URL(listener.url).port);
    ours = registrationUrl(listener.url);
    if (!isLoopbackHost(host)) say(`warning: listening on ${host}, reachable from other machines\n`);
    const forwarding = forwardTo ? `, forwarding to ${forwardTo.toString()}` : '';
    let said = `${advice(ours)}\n`;
    if (emulator && !stop.heard) {
      // Not cut short by a signal: whether the emulator took the URL is known only from its answer.
      // The URL of this listen's mode only: the other mode's events (signed with its own secret) never come here.
      const r = await admin.post<{ previous?: unknown }>('webhook-url', { url: ours, listener: true }, { mode });
      registered = true;
      const previous = typeof r.previous === 'string' ? escapeText(r.previous) : 'none';
      said = `Registered ${ours} as the webhook URL of the emulator at ${admin.origin} for ${Mode} events (it was ${previous}; given back when this stops); ${Mode} events still pending delivery come now.\n`;
    }
    if (!stop.heard) {
      say(`Ready, listening on ${listener.url}${forwarding} (Ctrl-C to stop)\n${said}`);
      const down = forwardTo ? await probe(forwardTo, stop.heardIt) : undefined;
      if (down && !stop.heard)
        say(
          `warning: nothing answers at ${forwardTo!.toString()} yet (${down}): each delivery gets <-- [error] and a 502, so the sender retries it, until it does\n`,
        );
      await stop.heardIt;
    }
  } finally {
    stop.dispose();
    // Forwards in flight are cut off at once (a slow app would hold the stop up to 10 s each).
    cut = listener?.abortForwards() ?? 0;
    if (registered) {
      try {
        const r = await admin.post<{ url?: unknown; restored?: unknown }>('webhook-url', { release: ours }, { mode });
        const now = typeof r.url === 'string' ? escapeText(r.url) : 'none';
        say(
          r.restored === true
            ? `Gave the emulator's ${Mode} webhook URL back: ${now}\n`
            : `Left the emulator's ${Mode} webhook URL as it is (${now}): it was changed after this listen registered\n`,
        );
      } catch (err) {
        say(`warning: could not give the emulator's ${Mode} webhook URL back: ${escapeText((err as Error).message)}\n`);
      }
    }
    await listener?.close();
  }
  say(
    cut === 0
      ? 'Stopped.\n'
      : `Stopped; ${cut} ${cut === 1 ? 'delivery' : 'deliveries'} being forwarded ${cut === 1 ? 'was' : 'were'} cut off: the sender got no answer (502) and retries ${cut === 1 ? 'it' : 'them'} later.\n`,
  );
}

/**
 * SIGINT and SIGTERM (SIGHUP too: f.signals), heard from now until dispose(): `heard` once one came, `heardIt` settles then.
 * The first one is taken; a second one, after dispose(), is the process's default again (it ends pay).
 */
function stopSignal(f: Factory): { readonly heard: boolean; heardIt: Promise<void>; dispose(): void } {
  let heard = false;
  let hear!: () => void;
  const heardIt = new Promise<void>((resolve) => (hear = resolve));
  const stop = () => {
    heard = true;
    dispose();
    hear();
  };
  const dispose = () => {
    f.signals.off('SIGINT', stop);
    f.signals.off('SIGTERM', stop);
  };
  f.signals.on('SIGINT', stop);
  f.signals.on('SIGTERM', stop);
  return {
    get heard() {
      return heard;
    },
    heardIt,
    dispose,
  };
}
