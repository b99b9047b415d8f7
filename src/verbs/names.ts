// Names beside ids (issue 28): what a person reads next to an id in a table or get view — a
// customer's name, an account's nickname, a wallet's label, an external account's holder. One GET
// per distinct id, at most NAME_LOOKUPS at a time, each answer (or failure) cached for the run, so
// a table of 20 transfers between 3 accounts costs 3 requests. A lookup that fails (404, 403, a
// network error, an answer that is not that object) leaves the id alone: it never fails the
// command, changes its exit code or prints anything. The printer (src/io/output.ts) asks only for
// the table format, never with --no-names or PAY_NAMES=0. Why lookups rather than an `expand`
// parameter: `pay help formatting`.
import type { ApiClient } from '../api/client.js';
import type { NameSource } from '../io/output.js';
import { isId, OBJECT_KINDS } from '../shared/domain.js';

/** Lookups in flight at once. */
export const NAME_LOOKUPS = 4;

/** The objects that have a name a person knows them by, and how to read it. */
const NAMED: readonly { prefix: string; path: string; name: (o: Record<string, unknown>) => unknown }[] = [
  { prefix: OBJECT_KINDS.customer.prefix, path: OBJECT_KINDS.customer.path, name: (o) => joined(o.first_name, o.last_name) },
  { prefix: OBJECT_KINDS.account.prefix, path: OBJECT_KINDS.account.path, name: (o) => o.nickname },
  { prefix: OBJECT_KINDS.wallet.prefix, path: OBJECT_KINDS.wallet.path, name: (o) => o.label },
  { prefix: OBJECT_KINDS.external_account.prefix, path: OBJECT_KINDS.external_account.path, name: (o) => o.account_holder_name },
];

function joined(...parts: unknown[]): string | undefined {
  const words = parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  return words.length > 0 ? words.join(' ') : undefined;
}

/** Each client's answers, for the run (a command has one client). */
const CACHES = new WeakMap<ApiClient, Map<string, Promise<string | undefined>>>();

/** The names of ids through `client`: a NameSource for the printer. */
export function nameSource(client: ApiClient): NameSource {
  let cache = CACHES.get(client);
  if (!cache) CACHES.set(client, (cache = new Map<string, Promise<string | undefined>>()));
  const known = cache;
  return {
    async names(ids) {
      const wanted = [...new Set(ids)].filter((id) => NAMED.some((k) => isId(id, k.prefix)));
      const todo = wanted.filter((id) => !known.has(id));
      // Each new id's answer is promised at once (another table of the run waits for it, never asks
      // again); a bounded pool of NAME_LOOKUPS workers keeps the promises.
      const settle = new Map<string, (name: string | undefined) => void>();
      for (const id of todo) known.set(id, new Promise((resolve) => settle.set(id, resolve)));
      let next = 0;
      const worker = async () => {
        while (next < todo.length) {
          const id = todo[next++]!;
          settle.get(id)!(await lookup(client, id));
        }
      };
      await Promise.all(Array.from({ length: Math.min(NAME_LOOKUPS, todo.length) }, worker));
      const out = new Map<string, string>();
      for (const id of wanted) {
        const name = await known.get(id)!;
        if (name !== undefined) out.set(id, name);
      }
      return out;
    },
  };
}

/** One id's name, or undefined (no name, or the lookup failed). */
async function lookup(client: ApiClient, id: string): Promise<string | undefined> {
  const kind = NAMED.find((k) => isId(id, k.prefix))!;
  try {
    const res = await client.request<Record<string, unknown>>({ method: 'GET', path: `${kind.path}/${id}` });
    const body = res.body;
    if (body === null || typeof body !== 'object' || body.id !== id) return undefined;
    const name = kind.name(body);
    return typeof name === 'string' && name.trim() !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}
