// pay login: create or update a profile's keys for one mode. Never echoes a key or the webhook secret
// (both prompts mask what is typed; the summary shows them masked). Names and the
// tenant id (which may come from the config file) are shown escaped (src/io/escape.ts).
// On a terminal it asks where the service is (unless --base-url or PAY_BASE_URL says) and checks the
// key there before saving (service.ts); --with-key checks only with --check.
import type { CommandContext } from '../../cmdutil/decl.js';
import { checkSecretKey, maskKey, publicKeyProblem } from '../../config/keys.js';
import { normalizeBaseUrl, TENANT_PATTERN } from '../../config/settings.js';
import type { Mode, Profile } from '../../config/store.js';
import { escapeMultiline, escapeText } from '../../io/escape.js';
import { PayError, UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { readStream } from '../../verbs/data.js';

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  // Its own flags and the global ones it reads (--tenant, --base-url).
  const opts = { ...f.flags, ...ctx.opts } as {
    withKey?: boolean;
    publicKey?: string;
    webhookSecretStdin?: boolean;
    setCurrent?: boolean;
    check?: boolean;
    tenant?: string;
    baseUrl?: string;
  };
  const settings = f.settings();
  const name = settings.profileName.value;
  const mode = settings.mode.value;
  const store = f.config();
  const existing: Profile = store.profile(name) ?? {};

  let secret: string | undefined;
  let webhookSecret: string | undefined;
  if (opts.withKey) {
    const lines = (await readStream(f.io.stdin, 64 * 1024)).split(/\r?\n/).map((l) => l.trim());
    secret = lines[0];
    if (!secret)
      throw new UsageError('--with-key: standard input is empty; pipe the secret key, e.g. printf %s "$KEY" | pay login --with-key');
    if (opts.webhookSecretStdin) webhookSecret = lines[1] || undefined;
  } else if (opts.webhookSecretStdin) {
    webhookSecret = (await readStream(f.io.stdin, 64 * 1024)).trim() || undefined;
  }

  let publicKey: string | undefined = opts.publicKey;
  let tenant: string | undefined = opts.tenant;
  // Where the key is checked: the base URL a flag or PAY_BASE_URL gives, else the one chosen at the prompt.
  let checkAt: string | undefined = opts.check ? settings.baseUrl.value : undefined;
  // What is stored: --base-url, or the prompt's answer.
  let chosenBaseUrl: string | undefined;
  if (secret === undefined) {
    if (!f.canPrompt) {
      throw new UsageError('no terminal to prompt for the secret key', {
        hint: 'pipe it: printf %s "$KEY" | pay login --with-key [--tenant ID]',
      });
    }
    const { createPrompter } = await import('../../io/prompt.js');
    const prompter = createPrompter(f.io);
    f.io.err(`Logging in to profile "${escapeText(name)}" (${mode}).\n`);
    const given = settings.baseUrl.source === 'flag' || settings.baseUrl.source === 'env';
    if (given) checkAt = settings.baseUrl.value;
    else {
      const { askBaseUrl } = await import('./service.js');
      checkAt = chosenBaseUrl = await askBaseUrl(prompter, store, settings, name, mode);
    }
    secret = await prompter.secret(`Secret key (${mode === 'live' ? 'sk_live_' : 'sk_test_'}…)`, { validate: (v) => keyProblem(v, mode) });
    publicKey ??= (await prompter.text('Public key', { optional: true, validate: (v) => publicKeyProblem(v, mode) })) || undefined;
    tenant ??=
      (await prompter.text('Tenant id (x-tenant-id)', {
        optional: true,
        ...(existing.tenant_id ? { default: existing.tenant_id } : {}),
        validate: tenantProblem,
      })) || undefined;
    if (webhookSecret === undefined) {
      // A secret: typed as mask characters, never echoed, like the key.
      webhookSecret = (await prompter.secret('Webhook secret (whsec_…)', { optional: true, validate: webhookProblem })) || undefined;
    }
  }

  const problems = [
    keyProblem(secret, mode),
    publicKey && publicKeyProblem(publicKey, mode),
    tenant && tenantProblem(tenant),
    webhookSecret && webhookProblem(webhookSecret),
  ];
  const problem = problems.find(Boolean);
  if (problem) throw new UsageError(problem);

  const baseUrl = opts.baseUrl ? normalizeBaseUrl(opts.baseUrl, '--base-url') : chosenBaseUrl;
  let checked = '';
  if (checkAt !== undefined) {
    // One request with what was typed, before anything is written: a refusal saves nothing.
    const { checkKey, emulatorText } = await import('./service.js');
    const who = await checkKey(settings, {
      baseUrl: checkAt,
      key: secret,
      tenant: tenant ?? existing.tenant_id,
      mode,
      secrets: [webhookSecret],
      store,
      profile: name,
      // The service's answer, escaped, its own line breaks kept (as the Factory's client does).
      ...(f.debugEnabled ? { debug: (line: string) => f.io.err(`${escapeMultiline(line)}\n`) } : {}),
    });
    checked = `, checked at ${checkAt}${who.kind === 'emulator' ? `: ${emulatorText(who.info)}` : ''}`;
  }
  // Merged with the profile as stored when the lock is held, not as read above: a parallel write stays.
  let storedTenant: string | undefined;
  await store.updateProfile(
    name,
    (now = {}) => {
      storedTenant = now.tenant_id;
      const m = now[mode] ?? {};
      return {
        ...now,
        ...(tenant ? { tenant_id: tenant } : {}),
        [mode]: {
          ...m,
          secret_key: secret,
          ...(publicKey ? { public_key: publicKey } : {}),
          ...(baseUrl ? { base_url: baseUrl } : {}),
          ...(webhookSecret ? { webhook_secret: webhookSecret } : {}),
        },
      };
    },
    { makeCurrent: opts.setCurrent ? 'always' : 'if-none' },
  );
  const tenantNote = tenant ?? storedTenant;
  f.io.err(
    `✓ Logged in: profile "${escapeText(name)}" (${mode}), secret key ${maskKey(secret)}${webhookSecret ? `, webhook secret ${maskKey(webhookSecret)}` : ''}${tenantNote ? `, tenant ${escapeText(tenantNote)}` : ''}${escapeText(checked)}\n`,
  );
  if (!tenantNote) f.io.err('note: no tenant id stored; pay accounts list needs one (pay profiles set tenant_id <id>)\n');
}

function keyProblem(key: string, mode: Mode): string | undefined {
  try {
    checkSecretKey(key, mode, 'your input');
  } catch (err) {
    if (err instanceof PayError) return err.hint ? `${err.message} (${err.hint})` : err.message;
    throw err;
  }
  return key.length < 8 ? 'the key is too short' : undefined;
}

function tenantProblem(v: string): string | undefined {
  return TENANT_PATTERN.test(v) ? undefined : 'a tenant id is 1-64 letters, digits, "-" or "_"';
}

function webhookProblem(v: string): string | undefined {
  return /^(?:whsec_)?[A-Za-z0-9+/]{8,}={0,2}$/.test(v) ? undefined : 'a webhook secret is base64, with or without whsec_ before it';
}
