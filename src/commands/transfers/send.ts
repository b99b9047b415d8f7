// pay transfers send: the generic create, plus --wait: poll the transfer until it leaves
// `pending` (0.5 s growing to 2 s, bounded by --wait-timeout), a spinner on stderr when it is a
// terminal; exit 0 when completed, 1 when failed or cancelled. Every answer waited on must be
// that transfer with a known status (else exit 1, bad_response): never "transfer undefined".
import type { ApiClient } from '../../api/client.js';
import { escapeText } from '../../io/escape.js';
import type { IOStreams } from '../../io/iostreams.js';
import { ExitCode, PayError, UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { checkInt } from '../../shared/validate.js';
import { clientNeeds, confirmLive, prepare, printResult, send } from '../../verbs/steps.js';
import type { VerbContext } from '../../cmdutil/spec.js';
import { TRANSFER_STATUSES } from './index.js';
import { asText } from '../../lib/text.js';

interface Transfer {
  id: string;
  status: string;
  failure_reason?: string | null;
}

export async function run(f: Factory, ctx: VerbContext): Promise<void> {
  const timeoutSeconds = waitTimeout(ctx.opts.waitTimeout);
  const req = await prepare(f, ctx);
  const client = await f.client(clientNeeds(ctx));
  await confirmLive(f, ctx, req.body);
  const res = await send(f, ctx, client, req);
  if (!ctx.opts.wait) return printResult(f, ctx, res.body, res.replayed);
  const final = await waitForTransfer(client, asTransfer(res.body, 'POST /transfers', undefined), {
    timeoutMs: timeoutSeconds * 1000,
    io: f.io,
  });
  if (final.status === 'completed') return printResult(f, ctx, final, res.replayed);
  const why = final.status === 'failed' ? `failed: ${final.failure_reason ?? 'no reason given'}` : `was ${final.status}`;
  throw new PayError(`transfer ${final.id} ${why}`, ExitCode.ERROR, `transfer_${final.status}`, {
    details: { transfer: final },
    hint: `see it with: pay transfers get ${final.id}`,
  });
}

export function waitTimeout(raw: unknown): number {
  if (raw === undefined) return 120;
  const problem = checkInt(1, 86_400)(asText(raw));
  if (problem) throw new UsageError(`--wait-timeout ${problem}`);
  return Number(raw);
}

export interface WaitOptions {
  timeoutMs: number;
  io?: IOStreams;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Polls GET transfers/{id} until the status is not pending; a PayError (exit 1) at the deadline. */
export async function waitForTransfer(client: ApiClient, created: Transfer, opts: WaitOptions): Promise<Transfer> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  const deadline = now() + opts.timeoutMs;
  const spinner = opts.io?.stderrIsTTY ? startSpinner(opts.io, `Waiting for transfer ${created.id} to settle`) : undefined;
  let current = created;
  let interval = 500;
  try {
    while (current.status === 'pending') {
      const left = deadline - now();
      if (left <= 0) {
        throw new PayError(
          `transfer ${created.id} is still pending after ${Math.round(opts.timeoutMs / 1000)} s`,
          ExitCode.ERROR,
          'wait_timeout',
          {
            details: { transfer: current },
            hint: `it may still settle; check with: pay transfers get ${created.id}`,
          },
        );
      }
      await sleep(Math.min(interval, left));
      interval = Math.min(2000, Math.round(interval * 1.5));
      const res = await client.request<Transfer>({
        method: 'GET',
        path: `transfers/${encodeURIComponent(created.id)}`,
        expect: { id: created.id },
      });
      current = asTransfer(res.body, `GET /transfers/${created.id}`, res.requestId);
    }
    return current;
  } finally {
    spinner?.stop();
  }
}

const TRANSFER_ID = /^tr_[0-9a-z]{24}$/;

/** The answer as a Transfer: an id like tr_… and a known status; else a PayError (exit 1). */
export function asTransfer(body: unknown, what: string, requestId: string | undefined): Transfer {
  const t = (body ?? {}) as Partial<Transfer>;
  const problem =
    typeof t.id !== 'string' || !TRANSFER_ID.test(t.id)
      ? 'the answer has no transfer id (tr_…)'
      : !(TRANSFER_STATUSES as readonly unknown[]).includes(t.status)
        ? `transfer ${t.id} has no known status (${TRANSFER_STATUSES.join(', ')})`
        : undefined;
  if (problem) {
    throw new PayError(`${what}: ${problem}`, ExitCode.ERROR, 'bad_response', {
      details: { request_id: requestId },
      hint:
        typeof t.id === 'string' && TRANSFER_ID.test(t.id)
          ? `see it with: pay transfers get ${t.id}`
          : 'list recent transfers with: pay transfers list',
    });
  }
  return t as Transfer;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A one-line spinner on stderr (terminals only): `\r` redraws, the line is cleared at the end. */
export function startSpinner(io: IOStreams, text: string): { stop(): void } {
  let i = 0;
  const started = Date.now();
  const shown = escapeText(text);
  const draw = () => io.err(`\r${FRAMES[i++ % FRAMES.length]} ${shown} (${Math.floor((Date.now() - started) / 1000)} s)`);
  draw();
  const timer = setInterval(draw, 100);
  timer.unref?.();
  return {
    stop() {
      clearInterval(timer);
      io.err('\r\x1b[2K');
    },
  };
}
