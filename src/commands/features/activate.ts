// pay features activate <customer> --feature <key>: the service answers an activation of a feature
// already active with the same FeatureStatus, unchanged (200 both times: the contract's
// activateCustomerFeature), so the answer alone cannot tell "activated now" from "was already
// active". On a terminal (where the ✓ line is printed) the feature's status is read first (one
// GET, nothing changes); the ✓ line then says what
// happened from the two answers: active before → "was already active", inactive before and active
// after → "Activated", the status not read → only that it is active now. Nothing is guessed.
import type { ApiClient } from '../../api/client.js';
import { escapeValue } from '../../io/escape.js';
import type { Factory } from '../../cmdutil/factory.js';
import type { VerbContext } from '../../cmdutil/spec.js';
import { clientNeeds, confirmLive, doneLine, prepare, printResult, send } from '../../verbs/steps.js';

/**
 * What the feature's status said before the activation: active or not, or unknown (not read: a dry
 * run, the read failed, or stderr is no terminal, where no ✓ line is printed: one request, as before).
 */
export async function statusBefore(f: Factory, client: ApiClient, path: string): Promise<boolean | undefined> {
  if (f.dryRun || !f.io.stderrIsTTY) return undefined;
  try {
    const got = await client.request<Record<string, unknown>>({ method: 'GET', path, expect: 'object' });
    return typeof got.body.active === 'boolean' ? got.body.active : undefined;
  } catch {
    // The activation itself says what is wrong (an unknown customer, a key refused): it is sent next.
    return undefined;
  }
}

/** The ✓ line for what the service answered, given the status before (undefined: not read). */
export function activateLine(ctx: VerbContext, after: unknown, before: boolean | undefined, replayed: boolean): string {
  const a = (after ?? {}) as Record<string, unknown>;
  const feature = typeof a.feature === 'string' && a.feature !== '' ? a.feature : undefined;
  const owner = ctx.argValue;
  // Not an answer about a feature that is now active: the generic line, as any action.
  if (a.active !== true || !feature || before === false) return doneLine(ctx, after, replayed);
  const replay = replayed ? ' (replayed)' : '';
  const forWhom = owner ? ` for ${escapeValue(owner)}` : '';
  if (before === true) return `✓ ${escapeValue(feature)} was already active${forWhom}; nothing changed${replay}\n`;
  return `✓ ${escapeValue(feature)} is active${forWhom}${replay}\n`;
}

export async function run(f: Factory, ctx: VerbContext): Promise<void> {
  const req = await prepare(f, ctx);
  const client = await f.client(clientNeeds(ctx));
  const before = await statusBefore(f, client, req.path.replace(/\/activate$/, ''));
  await confirmLive(f, ctx, req, client);
  const res = await send(f, ctx, client, req);
  await printResult(f, ctx, res.body, res.replayed, client, activateLine(ctx, res.body, before, res.replayed));
}
