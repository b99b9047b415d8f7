// pay login's two questions to the network: where the service is (the base URL prompt offers the
// emulators it finds answering at the base URLs pay already knows: this profile's, the other
// profiles' on this machine, the default) and whether the service there takes the key (one GET
// /customers?limit=1 with the key and tenant typed, no retry). A refusal says which of the key,
// the tenant or the base URL is likely wrong, and nothing is saved.
import { ApiError, AuthError, ExitCode, NetworkError, PayError, UsageError } from '../../lib/errors.js';
import { DEFAULT_BASE_URL, isLoopbackHost, normalizeBaseUrl, type Settings } from '../../config/settings.js';
import { MODES, type ConfigStore, type Mode } from '../../config/store.js';
import type { EmulatorInfo } from '../../api/emulator-admin.js';
import type { PickItem, Prompter } from '../../io/prompt.js';
import type { Dispatcher } from 'undici';

/** How long a probe of a candidate base URL may take: the prompt waits for them. */
const PROBE_MS = 1500;

/**
 * The probe time limit: PROBE_MS, or PAY_PROBE_MS (milliseconds) for tests, where a server that
 * hangs must end only when the test lets it, never by a time limit a busy machine may reach first.
 * Undocumented for users, like PAY_RETRY_BASE_MS.
 */
export function probeLimitMs(env: NodeJS.ProcessEnv): number {
  const v = env.PAY_PROBE_MS;
  return v && /^\d{1,9}$/.test(v) && Number(v) > 0 ? Number(v) : PROBE_MS;
}
/** At most this many base URLs offered (the profiles' first). */
const MAX_CANDIDATES = 8;
/** The pick's value for "type another URL". */
const OTHER = '\u0000other';

export type Answerer = { kind: 'emulator'; info: EmulatorInfo } | { kind: 'other-local' } | { kind: 'nothing' } | { kind: 'remote' };

const local = (url: string): boolean => isLoopbackHost(new URL(url).hostname.replace(/^\[|\]$/g, ''));

/** What answers at `baseUrl`: a pay emulator (its health answer), another server on this machine, nothing, or a hosted service (not asked). */
export function whoAnswers(baseUrl: string, s: Settings, timeoutMs = s.timeoutMs.value): Promise<Answerer> {
  return answererAt(baseUrl, timeoutMs, undefined);
}

/** whoAnswers, through `dispatcher` when given (a probe that may be given up). */
async function answererAt(baseUrl: string, timeoutMs: number, dispatcher: Dispatcher | undefined): Promise<Answerer> {
  if (!local(baseUrl)) return { kind: 'remote' };
  const { EmulatorAdmin } = await import('../../api/emulator-admin.js');
  const admin = new EmulatorAdmin({ baseUrl, baseUrlOrigin: 'pay login', timeoutMs, maxResponseBytes: 64 * 1024, dispatcher });
  try {
    return { kind: 'emulator', info: await admin.detect() };
  } catch (err) {
    if (err instanceof NetworkError) return { kind: 'nothing' };
    if (err instanceof PayError && err.code === 'not_an_emulator') return { kind: 'other-local' };
    throw err;
  }
}

/** `pay emulator 0.3.0 (data dir /x)` */
export function emulatorText(info: EmulatorInfo): string {
  return `pay emulator ${info.version} (${info.data_dir ? `data dir ${info.data_dir}` : 'in memory'})`;
}

/**
 * The base URLs to offer, in order: this profile's (the mode's), the other profiles' on this
 * machine, the default. Each with what it is to the user.
 */
export function candidates(store: ConfigStore, profile: string, mode: Mode): Array<{ url: string; why: string[] }> {
  const out = new Map<string, string[]>();
  const add = (raw: string | undefined, why: string): void => {
    if (!raw) return;
    let url: string;
    try {
      url = normalizeBaseUrl(raw, 'the config file');
    } catch {
      return; // a stored URL pay would refuse is not offered
    }
    const seen = out.get(url);
    if (seen) {
      if (!seen.includes(why)) seen.push(why);
    } else if (out.size < MAX_CANDIDATES) out.set(url, [why]);
  };
  let profiles: ReturnType<ConfigStore['profiles']>;
  try {
    profiles = store.profiles();
  } catch {
    profiles = {};
  }
  add(profiles[profile]?.[mode]?.base_url, "this profile's");
  for (const [name, p] of Object.entries(profiles)) {
    if (name === profile) continue;
    for (const m of MODES) {
      const url = p[m]?.base_url;
      if (url && URL.canParse(url) && local(url)) add(url, `profile "${name}"`);
    }
  }
  add(DEFAULT_BASE_URL, 'the default');
  return [...out].map(([url, why]) => ({ url, why }));
}

/** Asks where the service is: a pick of the candidates (probed), or another URL typed. */
export async function askBaseUrl(prompter: Prompter, store: ConfigStore, s: Settings, profile: string, mode: Mode): Promise<string> {
  const list = candidates(store, profile, mode);
  const found = await Promise.all(list.map((c) => whoAnswers(c.url, s, Math.min(PROBE_MS, s.timeoutMs.value)).catch(() => undefined)));
  const items: Array<PickItem & { rank: number }> = list.map((c, i) => {
    const who = found[i];
    const what =
      who?.kind === 'emulator'
        ? `${emulatorText(who.info)} answers`
        : who?.kind === 'other-local'
          ? 'a server that is not a pay emulator answers'
          : who?.kind === 'nothing'
            ? 'nothing answers there now'
            : 'not on this machine';
    return { value: c.url, label: `${c.url}  ${what}; ${c.why.join(', ')}`, keys: [c.url], rank: who?.kind === 'emulator' ? 0 : 1 };
  });
  // The emulators found first (the profiles' order kept), then the rest, then another URL.
  items.sort((a, b) => a.rank - b.rank);
  const chosen = await prompter.pick('Base URL (where the service is)', [
    ...items,
    { value: OTHER, label: 'another URL…', text: 'other https' },
  ]);
  if (chosen !== OTHER) return chosen;
  const typed = await prompter.text('Base URL (https://…/v1/, or http:// on this machine)', {
    validate: (v) => {
      try {
        normalizeBaseUrl(v, 'your input');
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  return normalizeBaseUrl(typed, 'your input');
}

/**
 * The other emulators on this machine that pay knows of (this profile's base URL, the other profiles'
 * loopback ones, the default), `baseUrl` left out, asked whether they take `key` (one GET
 * /customers?limit=1 each, no retry, the key never printed). The base URL of the first that takes it.
 * `limitMs`: each probe's time limit (at most the --timeout), see probeLimitMs.
 */
export async function keyOwner(
  store: ConfigStore,
  profile: string,
  mode: Mode,
  key: string,
  baseUrl: string,
  s: Settings,
  limitMs = PROBE_MS,
): Promise<string | undefined> {
  const others = candidates(store, profile, mode).filter((c) => c.url !== baseUrl && local(c.url));
  return firstTaker(
    others.map((c) => c.url),
    key,
    Math.min(limitMs, s.timeoutMs.value),
  );
}

/**
 * Of `urls` (in order of preference), the first where a pay emulator answers and takes `key`: the
 * answer asking them in turn gives. The health questions (no key) are asked of all at once, each
 * within `timeoutMs`; the key goes only to those that answered as a pay emulator, one at a time in
 * order of preference, each once every one before it has said no, and to none after the one that
 * takes it. The questions still open then are given up (each candidate has a pool of its own).
 */
export async function firstTaker(urls: readonly string[], key: string, timeoutMs: number): Promise<string | undefined> {
  if (urls.length === 0) return undefined;
  const { ApiClient } = await import('../../api/client.js');
  const { ownDispatcher } = await import('../../api/transport.js');
  const pools = urls.map(() => ownDispatcher());
  const takes = async (url: string, dispatcher: Dispatcher): Promise<boolean> => {
    const client = new ApiClient({
      baseUrl: url,
      apiKey: key,
      tenant: undefined,
      userAgent: 'pay-cli',
      timeoutMs,
      maxRetries: 0,
      maxResponseBytes: 64 * 1024,
      credentialLabel: 'the key being checked',
      secrets: [key],
      dispatcher,
    });
    try {
      await client.request({ method: 'GET', path: 'customers', query: { limit: 1 } });
      return true;
    } catch {
      return false; // not this one's key, or it did not answer
    }
  };
  const nothing: Answerer = { kind: 'nothing' };
  const health = urls.map((url, i) => answererAt(url, timeoutMs, pools[i]).catch(() => nothing));
  try {
    for (const [i, url] of urls.entries()) {
      if ((await health[i]!).kind !== 'emulator') continue; // no key to a server that has not said it is a pay emulator
      if (await takes(url, pools[i]!)) return url;
    }
    return undefined;
  } finally {
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}

/** A tenant id that is not the emulator's business: what is true of it, or undefined when it is (or the emulator does not say). */
export function foreignTenant(info: EmulatorInfo, tenant: string | undefined): string | undefined {
  if (!tenant || !info.tenant_id || tenant === info.tenant_id) return undefined;
  return `the tenant id ${tenant} is not this emulator's business (its keys belong to ${info.tenant_id}); the emulator keeps any other tenant's records apart, so ${tenant} would start empty`;
}

export interface KeyCheck {
  baseUrl: string;
  key: string;
  tenant: string | undefined;
  mode: Mode;
  /** Never printed (the webhook secret typed). */
  secrets: readonly (string | undefined)[];
  /** Receives --debug lines (redacted by the client). */
  debug?: ((line: string) => void) | undefined;
  /** The config and profile, to look for the emulator a refused key belongs to. */
  store?: ConfigStore | undefined;
  profile?: string | undefined;
}

/**
 * One request with the key, no retry: GET /customers?limit=1. Resolves to what answered; a refusal
 * throws, naming the likely culprit, with "nothing was saved".
 */
export async function checkKey(s: Settings, c: KeyCheck): Promise<Answerer> {
  const { ApiClient } = await import('../../api/client.js');
  const client = new ApiClient({
    baseUrl: c.baseUrl,
    apiKey: c.key,
    tenant: c.tenant,
    userAgent: 'pay-cli',
    timeoutMs: s.timeoutMs.value,
    maxRetries: 0,
    maxResponseBytes: s.maxResponseBytes.value,
    credentialLabel: 'your input',
    secrets: c.secrets,
    ...(c.debug ? { debug: c.debug } : {}),
  });
  try {
    await client.request({ method: 'GET', path: 'customers', query: { limit: 1 } });
  } catch (err) {
    throw await refusal(err, s, c);
  }
  const who = await whoAnswers(c.baseUrl, s).catch(() => ({ kind: 'remote' }) as const);
  const foreign = who.kind === 'emulator' ? foreignTenant(who.info, c.tenant) : undefined;
  if (foreign && who.kind === 'emulator') {
    throw new UsageError(`the ${emulatorText(who.info)} at ${c.baseUrl} takes the key, but ${foreign}; nothing was saved`, {
      hint: `use --tenant ${who.info.tenant_id} (the business id its start banner prints)`,
    });
  }
  return who;
}

async function refusal(err: unknown, s: Settings, c: KeyCheck): Promise<unknown> {
  if (!(err instanceof PayError)) return err;
  const nothing = 'nothing was saved';
  if (err instanceof NetworkError || (err.exitCode === ExitCode.NETWORK && !(err instanceof ApiError))) {
    return new NetworkError(`cannot check the key at ${c.baseUrl}: ${err.message}; ${nothing}`, {
      hint: `start the service (pay emulator start) or choose another base URL; pay login --with-key without --check stores a key unchecked`,
    });
  }
  if (!(err instanceof ApiError)) return err;
  if (err.status === 401) {
    const who = await whoAnswers(c.baseUrl, s).catch(() => ({ kind: 'remote' }) as const);
    if (who.kind === 'emulator') {
      const owner = c.store ? await keyOwner(c.store, c.profile ?? 'default', c.mode, c.key, c.baseUrl, s) : undefined;
      if (owner) {
        return new AuthError(
          `the ${emulatorText(who.info)} at ${c.baseUrl} does not know this key (401), but the emulator at ${owner} takes it: the base URL is likely wrong; ${nothing}`,
          { hint: `choose ${owner} as the base URL (--base-url ${owner})` },
        );
      }
      return new AuthError(
        `the ${emulatorText(who.info)} at ${c.baseUrl} does not know this key (401), and no other emulator pay knows of on this machine takes it: the key may be wrong, or belong to an emulator not running; ${nothing}`,
        {
          hint: `use the keys this emulator's start banner printed (pay emulator start --configure-profile <name> writes them to a profile), or start the emulator that made this key and choose its base URL`,
        },
      );
    }
    if (who.kind === 'other-local') {
      return new AuthError(
        `the server at ${c.baseUrl}, which is not a pay emulator, refused the key (401): the base URL is likely wrong; ${nothing}`,
        {
          hint: 'choose the base URL of your emulator or service',
        },
      );
    }
    return new AuthError(
      `the service at ${c.baseUrl} refused the key (401): the key is likely wrong (not this service's ${c.mode} secret key)${c.tenant ? `, or the tenant id ${c.tenant} is not the key's business` : ''}; ${nothing}`,
      { hint: `check the key and the tenant id, and that ${c.baseUrl} is the service the key belongs to` },
    );
  }
  if (err.status === 400 && /tenant/.test(err.apiCode ?? '')) {
    return new UsageError(`the service at ${c.baseUrl} refused the tenant id (${err.message}): the tenant id is likely wrong; ${nothing}`);
  }
  return new PayError(`checking the key at ${c.baseUrl}: ${err.message}; ${nothing}`, err.exitCode, err.code, { hint: err.hint });
}
