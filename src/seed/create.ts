// Creating an entry's object: its Idempotency-Keys (the entry's, later generations, the attempts
// after refusals), the per-kind creators, and the settlement of a money movement others build on.
import { ApiError, PayError } from '../lib/errors.js';
import { asText } from '../lib/text.js';
import { KINDS, type Entry, type Kind } from './file.js';
import { isRetired, RETIRES } from './lifecycle.js';
import type { SeedContext } from './apply.js';
import { featureEntry, kycEntry, settle, type Made, type Waits } from './kyc.js';
import { readObject } from './verify.js';

/** The base Idempotency-Key of an entry's attempt: `seed_<hash>`, then `seed_<hash>_a<n>` after n refusals. */
export const keyOf = (hash: string, attempt: number): string => (attempt > 0 ? `seed_${hash}_a${attempt}` : `seed_${hash}`);

/**
 * Before a new key is sent for an entry the state file records as refused `attempt` times, each
 * earlier key is sent again, first to last, so the service says what it did: a replayed refusal
 * confirms that one (the next is asked); a replayed object means the state file was wrong (that
 * object is the entry's, and `contradicted` names the key); an answer that is not a replay means the
 * service holds nothing for that key (never sent, or past the 24 h key window): what it made or
 * refused now is the answer, and no later key is sent (keys are used in order, so none later was).
 * At most one request of the walk is carried out anew. The attempt whose key was sent
 * last (`at.tried`): a refusal of it is recorded as attempt `tried + 1`.
 */
export async function askEarlierKeys(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  hash: string,
  at: { tried: number },
  waits: Waits,
  gone: string | undefined,
): Promise<{ made?: Made; contradicted?: string }> {
  const recorded = at.tried;
  for (let i = 0; i < recorded; i++) {
    const key = keyOf(hash, i);
    at.tried = i;
    let made: Made;
    try {
      made = await createWithKeys(ctx, e, body, key, waits, gone);
    } catch (err) {
      // Refused, as recorded: the next key is asked. Refused anew (not a replay): this run's attempt, recorded as such.
      if (err instanceof ApiError && isRefusalOf(err) && err.details.replayed === true) continue;
      throw err;
    }
    return made.replayed ? { made, contradicted: key } : { made };
  }
  at.tried = recorded;
  return {};
}

/** A 4xx that created nothing: the request was refused as it stood (not a conflict of keys, not in progress). */
export function isRefusalOf(err: ApiError): boolean {
  return (
    err.status >= 400 &&
    err.status < 500 &&
    err.status !== 401 &&
    err.status !== 403 &&
    err.status !== 409 &&
    err.status !== 429 &&
    err.apiCode !== 'idempotency_key_reused'
  );
}

/** An entry's Idempotency-Keys: `seed_<hash>`, then `seed_<hash>_2`, `_3`, ... for later objects of the same entry. */
const MAX_GENERATIONS = 50;

/**
 * Creates an entry's object, or finds the one an earlier run made. The first key is the one pay has
 * always derived from the written entry. A key that made an earlier version of the entry (another
 * resolved body: 422 idempotency_key_reused) or an object a replacement has since retired (read back: a replay shows it as created) is
 * passed over for the next one, so a replacement gets a key of its own that a re-run finds again,
 * with or without the state file. A replay of `gone` (an object the service no longer has) is passed over too.
 */
export async function createWithKeys(
  ctx: SeedContext,
  e: Entry,
  body: Record<string, unknown>,
  base: string,
  waits: Waits,
  gone?: string,
): Promise<Made> {
  for (let gen = 1; gen <= MAX_GENERATIONS; gen++) {
    try {
      const r = await createEntry(ctx, e, body, gen === 1 ? base : `${base}_${gen}`, waits);
      if (r.replayed && gone !== undefined && r.object.id === gone) continue;
      if (!r.replayed || !RETIRES[e.kind]) return r;
      // A replay answers the object as it was created: whether it has been retired since, only a read tells.
      const now = await readObject(ctx, e.kind, String(r.object.id));
      if (isRetired(e.kind, now)) continue;
      return { object: now, replayed: true };
    } catch (err) {
      if (err instanceof ApiError && err.apiCode === 'idempotency_key_reused') continue;
      throw err;
    }
  }
  throw new PayError(`${e.ref}: ${MAX_GENERATIONS} earlier versions of this entry hold its keys`, 1, 'seed_keys_exhausted');
}

/** Money movements: others build on them once settled. */
const SETTLING: ReadonlySet<Kind> = new Set(['collections', 'transfers']);

async function createEntry(ctx: SeedContext, e: Entry, body: Record<string, unknown>, key: string, waits: Waits): Promise<Made> {
  const { hasDependents } = waits;
  if (e.kind === 'fx_trades') return fxTrade(ctx, body, key);
  if (e.kind === 'kyc') return kycEntry(ctx, e, body, key, waits);
  if (e.kind === 'features') return featureEntry(ctx, e, body, key);
  const res = await ctx.client.request<Record<string, unknown>>({
    method: 'POST',
    path: KINDS[e.kind].path,
    body,
    idempotencyKey: key,
    quietReplay: true,
  });
  let object = res.body;
  const settling = SETTLING.has(e.kind);
  // Others build on this money movement: wait until it has settled.
  if (settling && hasDependents && object.status === 'pending') {
    const id = String(object.id);
    object = await settle(
      ctx,
      () => readObject(ctx, e.kind, id),
      (now) => now.status === 'pending',
    );
  }
  if (settling && (object.status === 'failed' || object.status === 'cancelled')) {
    throw new PayError(
      `${e.ref} ${String(object.id)} ${String(object.status)}: ${asText(object.failure_reason ?? 'no reason')}`,
      1,
      'seed_failed',
    );
  }
  return { object, replayed: res.replayed };
}

/**
 * An FX trade is a quote then a trade. The trade's key includes the quote id: a re-run replays the
 * quote (same key), then the trade (same quote, same key). A quote that expired before its trade
 * was made is replaced by a new one (a new key per attempt), and that trade is made once.
 */
async function fxTrade(ctx: SeedContext, body: Record<string, unknown>, key: string): Promise<Made> {
  const { source_account_id, target_account_id, ...quoteBody } = body;
  for (let attempt = 0; attempt < 4; attempt++) {
    const q = await ctx.client.request<Record<string, unknown>>({
      method: 'POST',
      path: 'fx/quotes',
      body: quoteBody,
      idempotencyKey: `${key}_q${attempt}`,
      quietReplay: true,
    });
    const quoteId = String(q.body.id);
    try {
      const t = await ctx.client.request<Record<string, unknown>>({
        method: 'POST',
        path: 'fx/trades',
        body: { quote_id: quoteId, source_account_id, target_account_id },
        idempotencyKey: `${key}_${quoteId}`,
        quietReplay: true,
      });
      return { object: t.body, replayed: t.replayed };
    } catch (err) {
      if (err instanceof ApiError && err.apiCode === 'quote_expired') continue;
      throw err;
    }
  }
  throw new PayError('fx trade: every quote expired before it could be traded', 1, 'seed_quote_expired');
}
