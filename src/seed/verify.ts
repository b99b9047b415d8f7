// Reading back what the state file records: every object it says is done is read from the service
// and checked against the record and the file (its kind and links) before it is skipped or
// referred to; what the service no longer has is dropped, to be created again.
import type { ApiClient } from '../api/client.js';
import { ApiError, ExitCode, PayError } from '../lib/errors.js';
import { asText } from '../lib/text.js';
import type { Recorded } from './diff.js';
import { isObject, KINDS, MONEY_KINDS, type Entry, type Kind } from './file.js';
import { featureId, featureOfId, idSegment } from './lifecycle.js';
import type { SeedContext } from './apply.js';
import type { StateFile } from './state.js';

/** Fields that tie an object to others (and its currency): what a recorded object must still show. */
export const isLink = (field: string): boolean => field.endsWith('_id') || field === 'currency';
const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** What verifyState found: each recorded entry's object as the service has it, or the id it no longer has. */
export interface Verified {
  live: Map<string, Record<string, unknown>>;
  gone: Map<string, string>;
}

export const goneLive = (ref: string, id: string) =>
  new PayError(
    `${ref}: the state file records ${id} as done, but the service does not have it; live money is not moved again unasked`,
    ExitCode.ERROR,
    'seed_state_gone',
    {
      hint: `remove ${ref} from the state file to make it anew`,
    },
  );

/**
 * Reads back every object the state file records for an entry of the file (GETs, at most
 * `concurrency` at once), before anything is planned or sent. Each must be the id recorded, of the
 * entry's kind, with the links (customer, account, ... and currency) of the recorded object and of
 * the body it was made from: any that is not stops the run (exit 1, naming them), nothing sent.
 * What the service no longer has (404: a reset emulator, another sandbox) is dropped from the
 * state, to be created again; in live mode a money movement is not (exit 1).
 */
export async function verifyState(
  client: ApiClient,
  entries: readonly Entry[],
  state: StateFile,
  mode: string,
  concurrency: number,
): Promise<Verified> {
  const out: Verified = { live: new Map(), gone: new Map() };
  const todo = entries.filter((e) => state.entries[e.ref]);
  const problems: PayError[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      const e = todo[next++]!;
      const rec = state.entries[e.ref]!;
      try {
        const live = await readRecorded({ client }, e.kind, rec);
        if (!live) {
          const id = String(rec.object.id);
          if (mode === 'live' && MONEY_KINDS.has(e.kind)) throw goneLive(e.ref, id);
          out.gone.set(e.ref, id);
          continue;
        }
        checkRecorded(e, live, rec, rec.body);
        out.live.set(e.ref, live);
      } catch (err) {
        if (err instanceof PayError && (err.code === 'seed_state_mismatch' || err.code === 'seed_state_gone')) problems.push(err);
        else throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, todo.length)) }, worker));
  if (problems.length === 1) throw problems[0]!;
  if (problems.length > 1) {
    throw new PayError(
      `${problems.length} entries of the state file do not match the service: ${problems.map((p) => p.message).join('; ')}`,
      ExitCode.ERROR,
      problems[0]!.code,
      { hint: problems[0]!.hint },
    );
  }
  for (const ref of out.gone.keys()) delete state.entries[ref];
  return out;
}

/** An object the state file records, read back: undefined when the service no longer has it (404). */
export async function readRecorded(
  ctx: Pick<SeedContext, 'client'>,
  kind: Kind,
  rec: Recorded,
): Promise<Record<string, unknown> | undefined> {
  try {
    const live = await readAs(ctx, kind, rec.object);
    // A feature no longer active (another sandbox under the same customer id cannot be; a reset one is 404) is activated again.
    if (kind === 'features' && live.active !== true) return undefined;
    return live;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/**
 * The object read back must be the id recorded, with the links (customer, account, ... and
 * currency) recorded and those of `body` (what it was, or is to be, made from); anything else
 * stops the entry (exit 1) and what depends on it.
 */
export function checkRecorded(e: Entry, live: Record<string, unknown>, rec: Recorded, body: Record<string, unknown> | undefined): void {
  const id = String(rec.object.id);
  const problems: string[] = [];
  // A KYC entry whose customer has since started a newer verification (an upgrade) is done: the newer one stands for it.
  const superseded =
    e.kind === 'kyc' &&
    isObject(live) &&
    live.id !== id &&
    typeof live.customer_id === 'string' &&
    live.customer_id === rec.object.customer_id &&
    typeof live.created_at === 'string' &&
    typeof rec.object.created_at === 'string' &&
    live.created_at > rec.object.created_at;
  if (!isObject(live) || (live.id !== id && !superseded)) problems.push(`the service answered ${String(isObject(live) ? live.id : live)}`);
  else {
    const check = (from: Record<string, unknown> | undefined, what: string) => {
      for (const [f, v] of Object.entries(from ?? {})) {
        if (isLink(f) && f !== 'id' && isScalar(v) && f in live && live[f] !== v)
          problems.push(`${f} is ${String(live[f])}, ${what} ${String(v)}`);
      }
    };
    check(rec.object, 'the state file records');
    check(body, 'the entry has');
    // Identity beyond links (a customer has none): the kind and the creation time the service gave
    // the object never change, so another object put under this entry's name differs in them.
    for (const f of ['object', 'created_at'] as const) {
      if (superseded && f === 'created_at') continue;
      if (f in live && isScalar(live[f]) && rec.object[f] !== live[f])
        problems.push(
          `its ${f} is ${String(live[f])}, the state file records ${rec.object[f] === undefined ? 'none' : asText(rec.object[f])}`,
        );
    }
  }
  if (problems.length > 0) {
    throw new PayError(
      `${e.ref}: ${id} is not the object the state file says (${[...new Set(problems)].join('; ')}); nothing that depends on it was sent`,
      ExitCode.ERROR,
      'seed_state_mismatch',
      {
        hint: 'the state file was edited or belongs to other data: remove the entry (or the file) and run again',
      },
    );
  }
}

export async function readObject(ctx: Pick<SeedContext, 'client'>, kind: Kind, id: string): Promise<Record<string, unknown>> {
  return (await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `${KINDS[kind].path}/${idSegment(kind, id)}` })).body;
}

/**
 * An object the state file records, as the service has it now. A KYC verification is read as its
 * customer's current one (the API reads no other), a feature activation as the customer's feature
 * status (named `<customer id>/<feature>`, as the seed records it); both paths are built only from
 * a plain customer id and a feature the service has.
 */
async function readAs(ctx: Pick<SeedContext, 'client'>, kind: Kind, recorded: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (kind === 'kyc') {
    const cus = idSegment('customers', recorded.customer_id);
    return (await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `customers/${cus}/kyc` })).body;
  }
  if (kind === 'features') {
    const f = featureOfId(recorded.id);
    if (!f)
      throw new PayError(
        `refusing to use ${JSON.stringify(String(recorded.id)).slice(0, 80)} as a feature activation`,
        1,
        'seed_state_invalid_id',
      );
    const status = (
      await ctx.client.request<Record<string, unknown>>({ method: 'GET', path: `customers/${f.customer}/features/${f.feature}` })
    ).body;
    return { ...status, id: featureId(String(status.customer_id), String(status.feature)) };
  }
  return readObject(ctx, kind, idSegment(kind, recorded.id));
}
