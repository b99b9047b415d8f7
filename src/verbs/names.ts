// Names beside ids (issue 28): what a person reads next to an id in a table or get view — a
// customer's name, an account's nickname, a wallet's label, an external account's holder. One GET
// per distinct id, at most NAME_LOOKUPS at a time, each answer (or failure) cached for the run, so
// a table of 20 transfers between 3 accounts costs 3 requests. Only read verbs (list, get) look
// names up: a write's answer is printed at once (src/verbs/steps.ts). Lookups are a courtesy, so
// they are bounded apart from the command's own requests: a client of their own (no retry, a
// LOOKUP_TIMEOUT_MS timeout, a smaller answer, no replay note), at most MAX_LOOKUPS ids a run, and
// none started after the first sign of a struggling service (429, 5xx, a timeout or network
// error, an answer that is not JSON). A lookup that fails or is skipped leaves the id alone: it
// never fails the command, changes its exit code or prints anything. The printer
// (src/io/output.ts) asks only for the table format, never with --no-names or PAY_NAMES=0. Why
// lookups rather than an `expand` parameter: `pay help formatting`.
import type { ApiClient } from '../api/client.js';
import type { NameSource } from '../io/output.js';
import { ApiError } from '../lib/errors.js';
import { isId, OBJECT_KINDS } from '../shared/domain.js';

/** Lookups in flight at once. */
export const NAME_LOOKUPS = 4;
/** The most ids looked up in one run; the rest stay bare ids. */
export const MAX_LOOKUPS = 50;
/** One lookup's timeout (the command's own requests keep theirs). */
export const LOOKUP_TIMEOUT_MS = 2_000;
/** The most bytes of one lookup's answer: an object, not a page. */
const LOOKUP_MAX_BYTES = 1024 * 1024;

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

/** One run's lookups through one command client. */
interface Lookups {
  /** The lookups' own client (derived from the command's). */
  client: ApiClient;
  /** Each id's answer (or failure), for the run. */
  cache: Map<string, Promise<string | undefined>>;
  /** Lookups started (at most MAX_LOOKUPS). */
  started: number;
  /** The service struggled: no lookup starts any more. */
  stopped: boolean;
}

/** Each command client's lookups, for the run (a command has one client). */
const RUNS = new WeakMap<ApiClient, Lookups>();

/** The names of ids through `client`: a NameSource for the printer. */
export function nameSource(client: ApiClient): NameSource {
  let run = RUNS.get(client);
  if (!run) {
    run = {
      client: client.derive({ maxRetries: 0, timeoutMs: LOOKUP_TIMEOUT_MS, maxResponseBytes: LOOKUP_MAX_BYTES, onReplay: undefined }),
      cache: new Map(),
      started: 0,
      stopped: false,
    };
    RUNS.set(client, run);
  }
  const state = run;
  const known = state.cache;
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
          // Past the cap, or once the service struggled: the id stays bare, nothing is asked.
          if (state.stopped || state.started >= MAX_LOOKUPS) {
            settle.get(id)!(undefined);
            continue;
          }
          state.started++;
          settle.get(id)!(await lookup(state, id));
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

/** One id's name, or undefined (no name, or the lookup failed: a struggling service stops the rest). */
async function lookup(state: Lookups, id: string): Promise<string | undefined> {
  const kind = NAMED.find((k) => isId(id, k.prefix))!;
  try {
    const res = await state.client.request<Record<string, unknown>>({ method: 'GET', path: `${kind.path}/${id}`, quietReplay: true });
    const body = res.body;
    if (body === null || typeof body !== 'object' || body.id !== id) return undefined;
    const name = kind.name(body);
    return typeof name === 'string' && name.trim() !== '' ? name : undefined;
  } catch (err) {
    // A refusal about this id (404, 403) says nothing of the service; anything else (429, 5xx, a
    // timeout, the network, an answer that is not an object) does.
    if (!(err instanceof ApiError && err.status < 500 && err.status !== 429)) state.stopped = true;
    return undefined;
  }
}
