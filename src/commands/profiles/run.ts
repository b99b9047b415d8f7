// pay profiles list|show|use|remove|set. Keys leave this file masked, always.
import type { CommandContext } from '../../cmdutil/decl.js';
import { checkSecretKey, maskKey, publicKeyProblem } from '../../config/keys.js';
import { normalizeBaseUrl, TENANT_PATTERN } from '../../config/settings.js';
import { MODE_KEYS, type ModeKey } from '../../config/shape.js';
import { checkProfileName, MODES, type Mode, type ModeSettings, type Profile } from '../../config/store.js';
import { Printer, type TableColumn } from '../../io/output.js';
import { UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { readStream } from '../../verbs/data.js';

const COLUMNS: TableColumn[] = [
  { header: 'NAME', path: 'name', kind: 'id', priority: 1 },
  { header: 'CURRENT', path: 'current', priority: 2 },
  { header: 'TENANT', path: 'tenant_id', priority: 3 },
  { header: 'SANDBOX KEY', path: 'sandbox.secret_key', priority: 4 },
  { header: 'LIVE KEY', path: 'live.secret_key', priority: 5 },
  { header: 'SANDBOX URL', path: 'sandbox.base_url', kind: 'id', priority: 6 },
];

function masked(name: string, p: Profile, current: string | undefined): Record<string, unknown> {
  const mode = (m: ModeSettings | undefined) =>
    m && {
      secret_key: m.secret_key ? maskKey(m.secret_key) : undefined,
      public_key: m.public_key ? maskKey(m.public_key) : undefined,
      base_url: m.base_url,
      webhook_secret: m.webhook_secret ? maskKey(m.webhook_secret) : undefined,
    };
  return { name, current: name === current, tenant_id: p.tenant_id, sandbox: mode(p.sandbox), live: mode(p.live) };
}

export async function list(f: Factory, ctx: CommandContext): Promise<void> {
  const store = f.config();
  const current = f.settings().profileName.value;
  const rows = Object.entries(store.profiles()).map(([name, p]) => masked(name, p, current));
  const printer = new Printer(f.io, ctx.output!, COLUMNS);
  await printer.printList(rows, 'profiles');
  if (rows.length === 0) f.io.err('Add one with: pay login\n');
}

export async function show(f: Factory, ctx: CommandContext): Promise<void> {
  const name = ctx.args[0] as string | undefined;
  const profileName = name ?? f.settings().profileName.value;
  const p = f.config().profile(checkProfileName(profileName));
  if (!p) throw notFound(profileName);
  new Printer(f.io, ctx.output!, COLUMNS).printObject(masked(profileName, p, f.settings().profileName.value));
}

export async function use(f: Factory, ctx: CommandContext): Promise<void> {
  const name = ctx.args[0] as string;
  if (!(await f.config().setCurrentProfile(checkProfileName(name)))) throw notFound(name);
  f.io.err(`✓ Using profile "${name}"\n`);
}

export async function remove(f: Factory, ctx: CommandContext): Promise<void> {
  const name = ctx.args[0] as string;
  const store = f.config();
  if (!store.profile(checkProfileName(name))) throw notFound(name);
  if (!ctx.opts.yes) {
    if (!f.canPrompt) throw new UsageError(`refusing to remove profile "${name}" without confirmation: pass --yes`);
    const { createPrompter } = await import('../../io/prompt.js');
    if (!(await createPrompter(f.io).confirm(`Remove profile "${name}" and its keys?`, false)))
      throw new UsageError('not confirmed; nothing was removed');
  }
  // Removed meanwhile by another pay: nothing to do, and say so.
  if (!(await store.removeProfile(name))) throw notFound(name);
  f.io.err(`✓ Removed profile "${name}"\n`);
}

export async function set(f: Factory, ctx: CommandContext): Promise<void> {
  const [key, rawValue] = ctx.args as [string, string];
  const { profileName, mode: modeInUse } = f.settings();
  const value = rawValue === '-' ? (await readStream(f.io.stdin, 64 * 1024)).trim() : rawValue.trim();
  if (value === '') throw new UsageError(`empty value for ${key}`);
  const store = f.config();
  if (key === 'tenant_id') {
    if (!TENANT_PATTERN.test(value)) throw new UsageError('a tenant id is 1-64 letters, digits, "-" or "_"');
    await store.updateProfile(profileName.value, (profile) => ({ ...profile, tenant_id: value }));
    f.io.err(`✓ Set tenant_id of profile "${profileName.value}"\n`);
    return;
  }
  const m = /^(?:(sandbox|live)\.)?([a-z_]+)$/.exec(key);
  const mode = (m?.[1] as Mode | undefined) ?? modeInUse.value;
  const field = m?.[2] as ModeKey | undefined;
  if (!field || !(MODE_KEYS as readonly string[]).includes(field) || !(MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`unknown setting "${key}" (tenant_id, or [sandbox.|live.]${MODE_KEYS.join('|')})`);
  }
  const stored = checked(field, value, mode);
  // Set on the profile as stored when the lock is held: a parallel change to another key stays.
  await store.updateProfile(profileName.value, (profile = {}) => ({ ...profile, [mode]: { ...(profile[mode] ?? {}), [field]: stored } }));
  const shown = field === 'base_url' ? value : maskKey(value);
  f.io.err(`✓ Set ${mode}.${field} of profile "${profileName.value}" to ${shown}\n`);
}

function checked(field: ModeKey, value: string, mode: Mode): string {
  switch (field) {
    case 'base_url':
      return normalizeBaseUrl(value, 'the value');
    case 'secret_key':
      try {
        checkSecretKey(value, mode, 'the value');
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      return value;
    case 'public_key': {
      // The check pay login makes: a prefix alone let "pk_test_a b!" in.
      const problem = publicKeyProblem(value, mode);
      if (problem) throw new UsageError(problem);
      return value;
    }
    case 'webhook_secret':
      if (!/^(?:whsec_)?[A-Za-z0-9+/]{8,}={0,2}$/.test(value))
        throw new UsageError('a webhook secret is base64, with or without whsec_ before it');
      return value;
  }
}

function notFound(name: string): UsageError {
  return new UsageError(`no profile named "${name}"`, { hint: 'pay profiles list shows the stored profiles' });
}
