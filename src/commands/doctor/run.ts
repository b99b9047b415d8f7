// pay doctor: checks the set-up and says what is wrong, one line per check (✓/✗) with a fix for
// each ✗. Exit 0 only when every check passes. The network calls: one cheap authenticated GET to the
// configured service and, for a loopback base URL, the emulator's health answer (no key): it says
// which service answered, so a 401 from another emulator (keys not the profile's) is told from a wrong
// key, with the fix for each.
import { statSync } from 'node:fs';
import type { CommandContext } from '../../cmdutil/decl.js';
import { checkSecretKey, maskKey } from '../../config/keys.js';
import { isLoopbackHost, type Setting, type Settings } from '../../config/settings.js';
import { escapeText } from '../../io/escape.js';
import { ApiError, ExitCode, PayError } from '../../lib/errors.js';
import type { EmulatorInfo } from '../../api/emulator-admin.js';
import type { Factory } from '../../cmdutil/factory.js';

interface Check {
  ok: boolean;
  label: string;
  fix?: string;
  /** Informational: shown, never failing. */
  info?: boolean;
}

const MAX_SKEW_SECONDS = 60;

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const checks: Check[] = [];
  let settings: Settings | undefined;
  try {
    settings = f.settings();
  } catch (err) {
    checks.push({
      ok: false,
      label: `settings: ${(err as Error).message}`,
      fix: 'correct the flag, variable or profile value named above',
    });
  }
  checks.push(...configChecks(f));
  if (settings) {
    checks.push(...settingChecks(settings));
    checks.push(...(await serviceChecks(f, settings)));
  }
  if (ctx.output?.format === 'json') {
    const { Printer } = await import('../../io/output.js');
    new Printer(f.io, ctx.output, []).printValue({ ok: checks.every((c) => c.ok), checks });
  } else {
    for (const c of checks) {
      // Labels and fixes quote settings, files and the service's answers: escaped.
      f.io.out(`${c.info ? '•' : c.ok ? '✓' : '✗'} ${escapeText(c.label)}\n`);
      if (!c.ok && c.fix) f.io.out(`    fix: ${escapeText(c.fix)}\n`);
    }
  }
  const failed = checks.filter((c) => !c.ok).length;
  if (failed > 0) throw new PayError(`${failed} check${failed === 1 ? '' : 's'} failed`, ExitCode.ERROR, 'doctor_failed');
}

function configChecks(f: Factory): Check[] {
  const store = f.config();
  const out: Check[] = [];
  const mode = (p: string) => {
    try {
      return statSync(p).mode & 0o7777;
    } catch {
      return undefined;
    }
  };
  const fileMode = mode(store.path);
  const dirMode = mode(store.dir);
  if (fileMode === undefined) {
    out.push({ ok: true, info: true, label: `config file ${store.path} does not exist yet (pay login creates it)` });
  } else {
    const ok = (fileMode & 0o077) === 0;
    out.push({ ok, label: `config file ${store.path} is mode ${fileMode.toString(8).padStart(4, '0')}`, fix: `chmod 600 '${store.path}'` });
  }
  if (dirMode !== undefined) {
    // pay creates its folder 0700 but leaves the mode of a folder that was already there to its owner
    // (PAY_CONFIG_DIR may be a shared one). Only a folder others may write without the sticky bit
    // fails: there another user could rename the config file away.
    const sticky = (dirMode & 0o1000) !== 0;
    const ok = (dirMode & 0o022) === 0 || sticky;
    out.push({
      ok,
      label: `config folder ${store.dir} is mode ${dirMode.toString(8).padStart(4, '0')}${ok && (dirMode & 0o077) !== 0 ? ' (shared; the file itself is checked)' : ''}`,
      fix: `chmod 700 '${store.dir}' (or chmod +t for a shared folder)`,
    });
  }
  return out;
}

function from<T>(s: Setting<T>): string {
  return s.source === 'default' ? 'default' : `${s.source}: ${s.origin}`;
}

function settingChecks(s: Settings): Check[] {
  const out: Check[] = [
    { ok: true, info: true, label: `profile "${s.profileName.value}" (${from(s.profileName)})${s.profileExists ? '' : ', not stored'}` },
    { ok: true, info: true, label: `mode ${s.mode.value} (${from(s.mode)})` },
  ];
  if (!s.apiKey.value) {
    out.push({
      ok: false,
      label: `no secret key for ${s.mode.value}`,
      fix: `pay login${s.profileName.value === 'default' ? '' : ` -p ${s.profileName.value}`}${s.mode.value === 'live' ? ' --live' : ''}, or set PAY_API_KEY`,
    });
  } else {
    let problem: string | undefined;
    try {
      checkSecretKey(s.apiKey.value, s.mode.value, s.apiKey.origin);
    } catch (err) {
      problem = (err as Error).message;
    }
    out.push({
      ok: !problem,
      label: problem ?? `secret key ${maskKey(s.apiKey.value)} (${from(s.apiKey)})`,
      fix: 'store the secret key of this mode: pay login',
    });
    if (s.apiKey.source === 'flag') {
      out.push({
        ok: false,
        label: 'the key was passed with --api-key: it is visible to other users in ps and shell history',
        fix: 'use PAY_API_KEY or a profile (pay login --with-key)',
      });
    }
  }
  out.push({ ok: true, info: true, label: `public key ${maskKey(s.publicKey.value)}, webhook secret ${maskKey(s.webhookSecret.value)}` });
  out.push({ ok: true, info: true, label: `tenant ${s.tenant.value ?? '(none)'} (${from(s.tenant)})` });
  const url = new URL(s.baseUrl.value);
  const secure = url.protocol === 'https:' || isLoopbackHost(url.hostname);
  out.push({
    ok: secure,
    label: `base URL ${s.baseUrl.value} (${from(s.baseUrl)})${url.protocol === 'http:' ? ', plain http on loopback' : ''}`,
    fix: 'use an https:// base URL',
  });
  return out;
}

/** What answers at the base URL: a pay emulator (by its health answer), another server on this machine, or a hosted service (not asked). */
type Answerer = { kind: 'emulator'; info: EmulatorInfo } | { kind: 'other-local'; why: string; server?: string } | { kind: 'remote' };

/** At most this many characters of a server's own words (its Server header, a body excerpt) on a line. */
const EXCERPT = 100;

/** `text` on one line, escaped (an escape has no control character: escaping again leaves it) and cut to EXCERPT characters. */
function excerpt(text: string): string {
  const flat = escapeText(
    String(text)
      .replace(/[ \t\r\n]+/g, ' ')
      .trim(),
  );
  return flat.length > EXCERPT
    ? `${[...flat.slice(0, EXCERPT)].filter((c) => c.length === 1 || c.codePointAt(0)! > 0xffff).join('')}…`
    : flat;
}

async function whoAnswers(f: Factory): Promise<Answerer> {
  const admin = await f.emulator();
  if (!admin.local) return { kind: 'remote' };
  try {
    return { kind: 'emulator', info: await admin.detect() };
  } catch (err) {
    const server = err instanceof PayError ? err.details?.server : undefined;
    return {
      kind: 'other-local',
      why: (err as Error).message,
      ...(typeof server === 'string' && server ? { server: excerpt(server) } : {}),
    };
  }
}

function describeAnswerer(who: Answerer, s: Settings): string {
  if (who.kind === 'emulator') {
    const { info } = who;
    return `the service at ${s.baseUrl.value} is a pay emulator ${info.version} (${info.data_dir ? `data dir ${info.data_dir}` : 'in memory'}, up ${info.uptime_s} s)`;
  }
  if (who.kind === 'other-local')
    return `the server at ${s.baseUrl.value} is not a pay emulator (it does not answer as one at /__emulator/health)${who.server ? `; it names itself "${who.server}" (Server header)` : ''}`;
  return `the service at ${s.baseUrl.value} (not on this machine)`;
}

/** `pay login`, `pay login -p acme --live`: the login of the profile and mode in use. */
function loginCommand(s: Settings, extra = ''): string {
  return `pay login${s.profileName.value === 'default' ? '' : ` -p ${s.profileName.value}`}${s.mode.value === 'live' ? ' --live' : ''}${extra}`;
}

/** Where the key came from, as a person would fix it. */
function keyFrom(s: Settings): string {
  return s.apiKey.source === 'flag'
    ? '--api-key'
    : s.apiKey.source === 'env'
      ? 'PAY_API_KEY'
      : `profile "${s.profileName.value}" (${s.mode.value})`;
}

/** A 401: the key, or the service it was sent to. Which one is likely wrong (only on evidence), and the fix for it. */
async function refusedKey(f: Factory, who: Answerer, s: Settings, e: PayError): Promise<Check> {
  if (who.kind === 'emulator') {
    const { info } = who;
    const port = new URL(info.url).port || new URL(s.baseUrl.value).port;
    const restart = `pay emulator start --port ${port}${info.data_dir ? ` --data-dir '${info.data_dir}'` : ''} --configure-profile ${s.profileName.value}`;
    const head = `the pay emulator ${info.version} at ${s.baseUrl.value} does not know the key from ${keyFrom(s)} (401): `;
    // Evidence first: does another emulator pay knows of on this machine take the key?
    const { keyOwner, probeLimitMs } = await import('../auth/service.js');
    const owner = await keyOwner(
      f.config(),
      s.profileName.value,
      s.mode.value,
      s.apiKey.value!,
      s.baseUrl.value,
      s,
      probeLimitMs(f.env),
    ).catch(() => undefined);
    if (owner) {
      return {
        ok: false,
        label: `${head}the emulator at ${owner} takes it; the base URL is likely wrong, not the key`,
        fix:
          s.apiKey.source === 'profile'
            ? `point the profile at that emulator (${loginCommand(s, ` --base-url ${owner}`)}), or give it this emulator's keys: restart it as ${restart} (a data dir keeps its keys)`
            : `use --base-url ${owner} (or PAY_BASE_URL), or this emulator's key (its start banner prints it)`,
      };
    }
    return {
      ok: false,
      label: `${head}the key is not one this emulator knows, and no other emulator pay knows of on this machine takes it: it may be wrong, or belong to an emulator not running`,
      fix:
        s.apiKey.source === 'profile'
          ? `give the profile this emulator's keys (${loginCommand(s)} with the keys its start banner printed, or restart it as ${restart}), or start the emulator that made the key and point the profile at it (${loginCommand(s, ' --base-url <its URL>')})`
          : `use this emulator's key (its start banner prints it), or unset ${keyFrom(s)}`,
    };
  }
  const where =
    who.kind === 'other-local' ? `the server at ${s.baseUrl.value}, which is not a pay emulator,` : `the service at ${s.baseUrl.value}`;
  return {
    ok: false,
    label: `${where} refused the key from ${keyFrom(s)}: ${e.message}`,
    fix:
      who.kind === 'other-local'
        ? `the base URL is likely wrong: point it at your emulator or service (${loginCommand(s, ' --base-url <url>')}, or pay emulator start --configure-profile ${s.profileName.value})`
        : `check the key is this service's ${s.mode.value} key (${loginCommand(s)}), then the tenant id and the base URL (${s.baseUrl.value})`,
  };
}

async function serviceChecks(f: Factory, s: Settings): Promise<Check[]> {
  if (!s.apiKey.value) return [];
  let client;
  try {
    client = await f.client();
  } catch (err) {
    return [{ ok: false, label: `cannot call the service: ${(err as Error).message}`, fix: 'fix the key first' }];
  }
  const started = Date.now();
  // Who answers at the base URL (the emulator's health answer, no key) is asked beside the GET, not
  // after it: a base URL where nothing answers would otherwise cost its time limit twice.
  const answerer = whoAnswers(f);
  answerer.catch(() => undefined); // awaited below on every path
  try {
    const res = await client.request({ method: 'GET', path: 'customers', query: { limit: 1 } });
    const who = await answerer;
    const out: Check[] = [
      { ok: true, label: `the service answers with this key (GET /customers: ${res.status} in ${Date.now() - started} ms)` },
      { ok: true, info: true, label: describeAnswerer(who, s) },
    ];
    if (who.kind === 'emulator') {
      const { foreignTenant } = await import('../auth/service.js');
      const foreign = foreignTenant(who.info, s.tenant.value);
      if (foreign) out.push({ ok: false, label: foreign, fix: loginCommand(s, ` --tenant ${who.info.tenant_id}`) });
    }
    const date = res.headers.date ? Date.parse(res.headers.date) : NaN;
    if (Number.isNaN(date)) out.push({ ok: true, info: true, label: 'the service sent no Date header: clock skew not checked' });
    else {
      const skew = Math.round((Date.now() - date) / 1000);
      out.push({
        ok: Math.abs(skew) <= MAX_SKEW_SECONDS,
        label: `clock skew against the service: ${skew} s`,
        fix: "sync this machine's clock (webhook signatures older than 5 minutes are refused)",
      });
    }
    return out;
  } catch (err) {
    if (!(err instanceof PayError)) throw err;
    if (err.exitCode === ExitCode.AUTH && err.details?.status === 401) {
      const who = await answerer;
      return [{ ok: true, info: true, label: describeAnswerer(who, s) }, await refusedKey(f, who, s, err)];
    }
    // What answered, when it is not an emulator: named (its Server header), its words cut short.
    const who = await answerer;
    if (who.kind === 'other-local' && err instanceof ApiError) {
      return [
        { ok: true, info: true, label: describeAnswerer(who, s) },
        {
          ok: false,
          label: `the server at ${s.baseUrl.value}, which is not a pay emulator, answered HTTP ${err.status}: ${excerpt(err.message.replace(/^HTTP \d+:?\s*/, ''))}`,
          fix: `the base URL is likely wrong: point it at your emulator or service (${loginCommand(s, ' --base-url <url>')}, or pay emulator start --configure-profile ${s.profileName.value})`,
        },
      ];
    }
    const fix =
      err.exitCode === ExitCode.AUTH
        ? `check the key: ${loginCommand(s)}`
        : err.exitCode === ExitCode.NETWORK
          ? 'check the base URL and that the service (or pay emulator start) is running'
          : 'see the error above';
    return [{ ok: false, label: `the service did not accept a request: ${excerpt(err.message)}`, fix }];
  }
}
