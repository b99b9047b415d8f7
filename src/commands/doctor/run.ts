// pay doctor: checks the set-up and says what is wrong, one line per check (✓/✗) with a fix for
// each ✗. Exit 0 only when every check passes. The only network call is one cheap authenticated
// GET to the configured service.
import { statSync } from 'node:fs';
import type { CommandContext } from '../../cmdutil/decl.js';
import { checkSecretKey, maskKey } from '../../config/keys.js';
import { isLoopbackHost, type Setting, type Settings } from '../../config/settings.js';
import { escapeText } from '../../io/escape.js';
import { ExitCode, PayError } from '../../lib/errors.js';
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

async function serviceChecks(f: Factory, s: Settings): Promise<Check[]> {
  if (!s.apiKey.value) return [];
  let client;
  try {
    client = await f.client();
  } catch (err) {
    return [{ ok: false, label: `cannot call the service: ${(err as Error).message}`, fix: 'fix the key first' }];
  }
  const started = Date.now();
  try {
    const res = await client.request({ method: 'GET', path: 'customers', query: { limit: 1 } });
    const out: Check[] = [
      { ok: true, label: `the service answers with this key (GET /customers: ${res.status} in ${Date.now() - started} ms)` },
    ];
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
    const e = err as PayError;
    const fix =
      e.exitCode === ExitCode.AUTH
        ? 'check the key: pay login'
        : e.exitCode === ExitCode.NETWORK
          ? 'check the base URL and that the service (or pay emulator start) is running'
          : 'see the error above';
    return [{ ok: false, label: `the service did not accept a request: ${e.message}`, fix }];
  }
}
