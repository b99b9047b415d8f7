// The customer steps `pay seed` and `pay trigger` share, one implementation each: a KYC
// verification started, documents submitted to it, the customer's current verification read, and a
// feature activated (with its status read first and the customer's KYC approved when the service
// says it is not eligible yet). They send through a StepPort: seed's sends the entry's own
// Idempotency-Keys and keeps replays quiet (kyc.ts); pay trigger's names the step in an error,
// records what it made and lets the client key each POST (src/commands/trigger/run.ts). The
// customer id is the caller's, already checked as a plain customer id.
import { ApiError } from '../lib/errors.js';
import { KYC_OPEN_STATUSES } from '../shared/enums.js';
import { featureId } from './lifecycle.js';

type Obj = Record<string, unknown>;

/** An answer, and whether the service replayed it (an Idempotency-Key it had seen). */
export interface StepAnswer {
  body: Obj;
  replayed: boolean;
}

export interface StepRequest {
  /** What the request does, as an error names it (`activating the cards feature`). */
  what: string;
  method: 'GET' | 'POST';
  path: string;
  body?: Obj;
  /** The Idempotency-Key of a POST (without one, the client's own). */
  key?: string | undefined;
  /** The object a POST creates, for a port that records what it made. */
  creates?: 'kyc_verification' | 'kyc_document';
}

/** How the steps' requests go out. */
export interface StepPort {
  send(req: StepRequest): Promise<StepAnswer>;
}

/** States of a verification that is still to be decided. */
export const OPEN_KYC: ReadonlySet<string> = new Set<string>(KYC_OPEN_STATUSES);

/** Starts the customer's KYC verification: level basic unless `start` names one. */
export function startKyc(port: StepPort, customerId: string, start: Obj, key?: string): Promise<StepAnswer> {
  return port.send({
    what: 'creating the kyc verification',
    method: 'POST',
    path: `customers/${customerId}/kyc`,
    body: { level: 'basic', ...start },
    key,
    creates: 'kyc_verification',
  });
}

/**
 * Submits documents to the customer's open verification, the i-th keyed `<key>_d<i>`; with
 * `untilDecided`, a refusal as decided (409 invalid_state: an earlier run sent them and the review
 * is over) ends it. Answers the last document sent.
 */
export async function submitDocuments(
  port: StepPort,
  customerId: string,
  documents: readonly unknown[],
  key?: string,
  untilDecided = false,
): Promise<Obj | undefined> {
  let last: Obj | undefined;
  for (const [i, doc] of documents.entries()) {
    try {
      last = (
        await port.send({
          what: 'creating the kyc document',
          method: 'POST',
          path: `customers/${customerId}/kyc/documents`,
          body: doc as Obj,
          key: key === undefined ? undefined : `${key}_d${i}`,
          creates: 'kyc_document',
        })
      ).body;
    } catch (err) {
      if (untilDecided && err instanceof ApiError && err.apiCode === 'invalid_state') break;
      throw err;
    }
  }
  return last;
}

/** The customer's current verification (the API reads no other). */
export async function currentKyc(port: StepPort, customerId: string): Promise<Obj> {
  return (await port.send({ what: 'reading the KYC verification', method: 'GET', path: `customers/${customerId}/kyc` })).body;
}

/**
 * The feature active for the customer (the API answers an active one as it is), answered with the
 * id `<customer id>/<feature>`. With `approve`, its status is read first: nothing is sent when it
 * is active, and `approve` (the customer's KYC approved) runs first when the service says the
 * customer is not eligible yet.
 */
export async function activateFeature(
  port: StepPort,
  customerId: string,
  feature: string,
  opts: { key?: string; approve?: () => Promise<void> } = {},
): Promise<StepAnswer> {
  const path = `customers/${customerId}/features/${feature}`;
  const named = (a: StepAnswer): StepAnswer => ({ body: { ...a.body, id: featureId(customerId, feature) }, replayed: a.replayed });
  if (opts.approve) {
    const status = await port.send({ what: `reading the ${feature} feature`, method: 'GET', path });
    if (status.body.active === true) return named(status);
    if (status.body.eligible !== true) await opts.approve();
  }
  return named(
    await port.send({ what: `activating the ${feature} feature`, method: 'POST', path: `${path}/activate`, body: {}, key: opts.key }),
  );
}
