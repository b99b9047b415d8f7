// A seed's kyc and features entries, on the customer steps it shares with `pay trigger`
// (steps.ts), and the wait seed's entries share (settle): a money movement until it leaves
// pending, a KYC verification until it is decided.
import { ApiError, ExitCode, PayError, UsageError } from '../lib/errors.js';
import { pollUntil, systemClock } from '../lib/poll.js';
import { asText } from '../lib/text.js';
import { FEATURE_KEYS } from '../shared/rules.js';
import type { Entry } from './file.js';
import { idSegment } from './lifecycle.js';
import type { SeedContext } from './apply.js';
import { activateFeature, currentKyc, OPEN_KYC, startKyc, submitDocuments, type StepPort } from './steps.js';

/** An entry's object as the service answered it, and whether that was a replay of its key. */
export interface Made {
  object: Record<string, unknown>;
  replayed: boolean;
}

/** What an entry's create must wait for, from what depends on it. */
export interface Waits {
  /** Later entries build on it: a money movement waits until settled, a verification until decided. */
  hasDependents: boolean;
  /** Something that needs the customer approved depends on this kyc entry: a rejection fails it. */
  needsApproval: boolean;
  /** The object a replacement supersedes (--replace): the new one must be another object, really made. */
  replacing?: string;
}

/**
 * Reads the object until it is no longer `open` (the one poll loop, src/lib/poll.ts: at once, then
 * 0.5 s growing to 2 s), within ctx.settleTimeoutMs: a money movement until it leaves `pending`, a
 * KYC verification until it is decided.
 */
export async function settle(
  ctx: SeedContext,
  read: () => Promise<Record<string, unknown>>,
  open: (now: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const clock = ctx.clock ?? systemClock;
  let last: Record<string, unknown> = {};
  return pollUntil({
    clock,
    deadline: {
      at: clock.now() + (ctx.settleTimeoutMs ?? 60_000),
      error: () => new PayError(`${String(last.id)} is still ${String(last.status)}`, 1, 'seed_settle_timeout'),
    },
    step: async () => {
      last = await read();
      return open(last) ? undefined : last;
    },
  });
}

/** The steps' requests as seed sends them: each POST with the entry's key, its replay quiet. */
function seedPort(ctx: Pick<SeedContext, 'client'>): StepPort {
  return {
    send: async (r) => {
      const res = await ctx.client.request<Record<string, unknown>>({
        method: r.method,
        path: r.path,
        ...(r.body !== undefined ? { body: r.body } : {}),
        ...(r.key !== undefined ? { idempotencyKey: r.key, quietReplay: true } : {}),
      });
      return { body: res.body, replayed: res.replayed };
    },
  };
}

/**
 * A KYC entry: start the verification (`level`, basic by default), submit its documents, and, when
 * later entries depend on it, wait until the review decides (a rejection then fails the entry when
 * one of them needs the customer approved; a later kyc entry of the customer needs it decided only).
 * The start's key is the entry's; each document's is the start's key and its place. A start refused
 * because the customer already has an open or approved verification (409 invalid_state: a re-run
 * after the keys expired, or KYC done outside the seed) takes that verification instead of making
 * another; documents are sent only while it is open and has none. A replacement (--replace: the
 * entry's documents or level changed) never takes the one there is: it waits until an open one is
 * decided, then starts its own after a rejection (the one re-verification the API allows) and sends
 * the new documents, or fails, sending nothing, when the customer is approved at that level.
 */
export async function kycEntry(ctx: SeedContext, e: Entry, body: Record<string, unknown>, key: string, waits: Waits): Promise<Made> {
  const { customer_id: customerId, documents, ...start } = body;
  const cus = idSegment('customers', customerId);
  const port = seedPort(ctx);
  const current = () => currentKyc(port, cus);
  const startWith = (k: string) => startKyc(port, cus, start, k);
  /** The verification this entry started (undefined when it took the customer's current one). */
  let started: Record<string, unknown> | undefined;
  let docKey = key;
  let replayed: boolean;
  let open: boolean;
  try {
    const r = await startWith(key);
    started = r.body;
    replayed = r.replayed;
    open = true;
  } catch (err) {
    if (!(err instanceof ApiError && err.apiCode === 'invalid_state')) throw err;
    let now = await current();
    if (waits.replacing === undefined) {
      replayed = true;
      open = OPEN_KYC.has(String(now.status)) && (now.documents as unknown[] | undefined)?.length === 0;
    } else {
      // A replacement is a verification of its own with the new documents, or nothing: never the one there is.
      if (now.status === 'in_review') now = await settle(ctx, current, (v) => OPEN_KYC.has(String(v.status)));
      const notRestartable = (why: string) =>
        new PayError(
          `the customer's verification ${asText(now.id)} is ${asText(now.status)} (level ${asText(now.level)}) and the service starts no other: ${why}; nothing was sent for the changed entry`,
          ExitCode.ERROR,
          'seed_kyc_not_restartable',
          {
            hint: 'the API starts a verification after a rejection, or an upgrade to level enhanced: set level: enhanced, or put back what the state file recorded',
          },
        );
      if (OPEN_KYC.has(String(now.status))) throw notRestartable('it has no documents, so it is never decided');
      // Its own key: the entry's and the verification it follows (a re-run replays it; the first key holds the 409).
      docKey = `${key}_after_${asText(now.id)}`;
      try {
        const r = await startWith(docKey);
        started = r.body;
        replayed = r.replayed;
        open = true;
      } catch (err2) {
        if (err2 instanceof ApiError && err2.apiCode === 'invalid_state')
          throw notRestartable('one starts only after a rejection, or as an upgrade to level enhanced');
        throw err2;
      }
    }
  }
  if (open) await submitDocuments(port, cus, Array.isArray(documents) ? documents : [], docKey, true);
  let object = await current();
  // The API reads only the customer's current verification: one started since (a later entry, on a
  // re-run) means this one was decided before it; its start's answer is all there is to say.
  if (started && object.id !== started.id) return { object: started, replayed };
  if (waits.hasDependents && object.status === 'in_review') object = await settle(ctx, current, (now) => OPEN_KYC.has(String(now.status)));
  if (waits.needsApproval && object.status === 'rejected') {
    throw new PayError(
      `${e.ref} ${String(object.id)} rejected: ${asText(object.rejection_reason ?? 'no reason')}; what depends on it needs the customer approved`,
      1,
      'seed_failed',
    );
  }
  return { object, replayed };
}

/** A features entry: activate the feature (the API answers an active one as it is). Recorded as `<customer id>/<feature>`. */
export async function featureEntry(ctx: SeedContext, e: Entry, body: Record<string, unknown>, key: string): Promise<Made> {
  const cus = idSegment('customers', body.customer_id);
  const feature = body.feature;
  if (typeof feature !== 'string' || !(FEATURE_KEYS as readonly string[]).includes(feature))
    throw new UsageError(`${e.ref}: feature must be one of ${FEATURE_KEYS.join(', ')}`);
  const r = await activateFeature(seedPort(ctx), cus, feature, { key });
  return { object: r.body, replayed: r.replayed };
}
