// The seed file's field check, at `seed plan` (and apply) time, before anything is sent: each
// entry's fields go through the flags of the verb that creates its kind, as --data does
// (normaliseFields of src/verbs/values.ts: the one validator per field kind), so `state: TX` beside
// `country: US` is sent as `US-TX`, `phone: +1 415 555 0199` as `+14155550199`, and `country: usa`
// as `US`, exactly as the flags would; a value they refuse refuses the entry, in the same words.
// A value that is or holds a reference (`${accounts.usd.id}`) is known only when the entry is made:
// the service checks it then.
import type { VerbSpec } from '../../cmdutil/spec.js';
import { loadIsoTables } from '../../shared/iso-3166.js';
import type { Entry, Kind } from '../../seed/file.js';
import { normaliseFields } from '../../verbs/values.js';
import { GROUP_LOADERS, type GroupName } from '../group-index.js';

/** The verbs whose flags a kind's entry is checked with (group, method POST, path). */
const CREATES: Record<Kind, Array<[GroupName, string]>> = {
  customers: [['customers', 'customers']],
  kyc: [['kyc', 'customers/{customer_id}/kyc']],
  features: [],
  accounts: [['accounts', 'accounts']],
  external_accounts: [['external-accounts', 'external-accounts']],
  collections: [['collections', 'collections']],
  cards: [['cards', 'cards']],
  wallets: [['wallets', 'wallets']],
  payment_links: [['payment-links', 'payment-links']],
  transfers: [['transfers', 'transfers']],
  fx_trades: [
    ['fx', 'fx/quotes'],
    ['fx', 'fx/trades'],
  ],
};
/** A kyc entry's documents, each checked as `pay kyc submit-document` checks its flags. */
const DOCUMENT: [GroupName, string] = ['kyc', 'customers/{customer_id}/kyc/documents'];

async function verbOf([group, path]: [GroupName, string]): Promise<VerbSpec | undefined> {
  const spec = await GROUP_LOADERS[group]();
  return spec.verbs.find((v) => v.method === 'POST' && v.path === path);
}

const holdsRef = (v: unknown): boolean => JSON.stringify(v)?.includes('${') ?? false;

/**
 * Checks and normalises every entry's fields in place (the body apply sends is then the canonical
 * one); returns the refused entries, each with its first problem (`address.state "TX" …`).
 */
export async function checkSeedFields(entries: readonly Entry[]): Promise<Map<string, string>> {
  await loadIsoTables();
  const verbs = new Map<string, VerbSpec[]>();
  const refused = new Map<string, string>();
  const document = await verbOf(DOCUMENT);
  for (const e of entries) {
    let mine = verbs.get(e.kind);
    if (!mine) verbs.set(e.kind, (mine = (await Promise.all(CREATES[e.kind].map(verbOf))).filter((v) => v !== undefined)));
    const problems: string[] = [];
    for (const verb of mine) problems.push(...normaliseFields(verb, e.body, holdsRef));
    if (e.kind === 'kyc' && document && Array.isArray(e.body.documents)) {
      e.body.documents.forEach((d: unknown, i) => {
        if (d !== null && typeof d === 'object' && !Array.isArray(d))
          for (const p of normaliseFields(document, d as Record<string, unknown>, holdsRef)) problems.push(`documents[${i}].${p}`);
      });
    }
    if (problems.length > 0) refused.set(e.ref, problems[0]!);
  }
  return refused;
}
