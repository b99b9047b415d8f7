// Retiring the objects replacements superseded (--replace): only what the state file records as
// replaced by this seed, dependents first, each once nothing in the file refers to it.
import { ApiError } from '../lib/errors.js';
import { canonical, kindOfRef, KINDS, type Entry } from './file.js';
import { isRetired, RETIRES } from './lifecycle.js';
import type { SeedContext } from './apply.js';
import type { RetireItem, StateFile } from './state.js';
import { isLink, readObject } from './verify.js';

/** What became of an object a replacement superseded. */
export interface Retirement {
  ref: string;
  id: string;
  /** The retired status (closed, terminated, ...), `kept` (left behind for good) or `pending` (tried again by the next apply). */
  status: string;
  note?: string;
}

const KIND_ORDER = Object.keys(KINDS);

/**
 * Retires the objects replacements superseded, dependents first (cards before their account),
 * each once no entry of the file refers to it any more. Only what this state recorded as replaced
 * by this seed: the entry is in the file, the item names the entry's current object as what
 * replaced it, and the object read back is of the kind and tied only to objects of this seed.
 * The API may refuse (an account holding money): that object is left behind, and said so. A
 * transient failure leaves it for the next apply.
 */
export async function retireOld(
  ctx: SeedContext,
  entries: Entry[],
  state: StateFile,
  created: ReadonlyMap<string, Record<string, unknown>>,
): Promise<Retirement[]> {
  const inFile = new Set(entries.map((e) => e.ref));
  const recordedAsReplaced = (r: RetireItem) =>
    inFile.has(r.ref) &&
    created.has(r.ref) &&
    !!r.replaced_by &&
    r.replaced_by !== r.id &&
    r.replaced_by === state.entries[r.ref]?.object.id;
  // This seed's objects: those of this run, and the old ones recorded as replaced by them (an old card's old account).
  const ours = new Set([
    ...[...created.values()].map((o) => String(o.id)),
    ...(state.retire ?? []).filter(recordedAsReplaced).map((r) => r.id),
  ]);
  const out: Retirement[] = [];
  const left: RetireItem[] = [];
  const order = [...(state.retire ?? [])].sort((a, b) => KIND_ORDER.indexOf(kindOfRef(b.ref)) - KIND_ORDER.indexOf(kindOfRef(a.ref)));
  // What each entry of the file refers to, as text (an old id found in it is still in use).
  const texts = Object.entries(state.entries)
    .filter(([ref]) => inFile.has(ref))
    .map(([ref, rec]) => [ref, canonical(rec.body ?? rec.object)] as const);
  for (const r of order) {
    const kind = kindOfRef(r.ref);
    const op = RETIRES[kind];
    if (!op) continue;
    if (!recordedAsReplaced(r)) {
      out.push({ ...r, status: 'kept', note: 'the state file does not record it as replaced by this seed: not retired' });
      continue;
    }
    const users = texts.filter(([, text]) => text.includes(r.id)).map(([ref]) => ref);
    if (users.length > 0) {
      out.push({ ...r, status: 'pending', note: `still referred to by ${users.join(', ')}` });
      left.push(r);
      continue;
    }
    try {
      const old = await readObject(ctx, kind, r.id);
      const foreign = Object.entries(old).find(([f, v]) => isLink(f) && f !== 'currency' && typeof v === 'string' && !ours.has(v));
      if (old.id !== r.id || foreign) {
        out.push({
          ...r,
          status: 'kept',
          note: `not one of this seed's objects (${foreign ? `its ${foreign[0]} ${String(foreign[1])} is not` : 'another object answered'}): not retired`,
        });
        continue;
      }
      if (isRetired(kind, old)) {
        out.push({ ...r, status: op.status });
        continue;
      }
      await ctx.client.request({
        method: op.method,
        path: op.path(r.id),
        ...(op.method === 'POST' ? { idempotencyKey: `seed_retire_${r.id}` } : {}),
        quietReplay: true,
      });
      out.push({ ...r, status: op.status });
    } catch (err) {
      const api = err instanceof ApiError ? err : undefined;
      if (api?.status === 404) out.push({ ...r, status: 'kept', note: 'the service no longer has it' });
      else if (api?.apiCode === 'invalid_state') out.push(await alreadyRetired(ctx, r, op.status, api));
      else if (api && api.status >= 400 && api.status < 500) out.push({ ...r, status: 'kept', note: firstLine(api.message) });
      else {
        out.push({ ...r, status: 'pending', note: `${firstLine((err as Error).message)}; the next apply tries again` });
        left.push(r);
      }
    }
  }
  state.retire = left;
  return out;
}

const firstLine = (s: string) => s.split('\n')[0]!;

/** A retire the API refuses as a wrong state: done before (a retried request whose answer was lost), or the object moved on (an expired link). */
async function alreadyRetired(ctx: SeedContext, r: { ref: string; id: string }, status: string, err: ApiError): Promise<Retirement> {
  const kind = kindOfRef(r.ref);
  try {
    const now = await readObject(ctx, kind, r.id);
    if (isRetired(kind, now)) return { ...r, status };
    return { ...r, status: 'kept', note: `it is ${String(now.status)}` };
  } catch {
    return { ...r, status: 'kept', note: firstLine(err.message) };
  }
}
