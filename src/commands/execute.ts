// The one generic executor for resource verbs: validates flags before any request, builds the
// query or body (flags over --data), confirms live money movements, sends, prints.
import type { Command } from 'commander';
import type { ApiClient, Query } from '../api/client.js';
import { getPath } from '../io/fields.js';
import { Printer, resolveOutput } from '../io/output.js';
import { createFactory, type Factory } from '../lib/factory.js';
import { UsageError } from '../lib/errors.js';
import {
  checkBirthDate,
  checkCountry,
  checkCurrency,
  checkDateOrTime,
  checkEmail,
  checkId,
  checkInt,
  checkNonEmpty,
  checkPhone,
  checkState,
  checkUrl,
  parseAmount,
  type Check,
} from '../lib/validate.js';
import { readData } from './data.js';
import { camel, type FlagSpec, type GroupSpec, type VerbContext, type VerbSpec } from './spec.js';

export async function runVerb(command: Command, group: GroupSpec, verb: VerbSpec, argValue: string | undefined): Promise<void> {
  const all = command.optsWithGlobals();
  const f = createFactory({ flags: all });
  const ctx: VerbContext = { group, verb, argValue, opts: command.opts() };
  if (verb.deprecated) {
    f.io.err(`warning: "pay ${group.name} ${verb.name}" uses a deprecated API; use "${verb.deprecated.use}" instead\n`);
  }
  if (verb.impl) {
    const mod = await verb.impl();
    return mod.run(f, ctx);
  }
  return runGeneric(f, ctx);
}

export async function runGeneric(f: Factory, ctx: VerbContext): Promise<void> {
  const { verb, group } = ctx;
  const output = resolveOutput(ctx.opts, f.io);
  const path = fillPath(verb, ctx.argValue);
  if (verb.kind === 'list') {
    const { query, limit, all } = buildListQuery(verb, ctx.opts);
    const client = await f.client(clientNeeds(ctx));
    const printer = new Printer(f.io, output, group.columns);
    await printer.printList(client.pages(path, query, { limit, all }), plural(group.noun));
    return;
  }
  let body: Record<string, unknown> | undefined;
  if (verb.method !== 'GET' && verb.method !== 'DELETE') {
    body = await buildBody(f, verb, ctx.opts);
    if (verb.kind === 'create' || verb.kind === 'action') requireFields(verb, body);
    if (verb.kind === 'update' && Object.keys(body).length === 0) {
      throw new UsageError(`nothing to update: pass at least one field flag or --data`);
    }
  }
  const query = verb.method === 'GET' ? buildListQuery(verb, ctx.opts, false).query : undefined;
  const client = await f.client(clientNeeds(ctx));
  if (verb.confirmLive) await confirmLive(f, ctx, body);
  await sendAndPrint(f, ctx, client, { path, body, query });
}

export function clientNeeds(ctx: VerbContext): { requireTenant?: string } {
  return ctx.verb.requireTenant ? { requireTenant: `pay ${ctx.group.name} ${ctx.verb.name}` } : {};
}

export async function sendAndPrint(
  f: Factory,
  ctx: VerbContext,
  client: ApiClient,
  req: { path: string; body?: Record<string, unknown> | undefined; query?: Query | undefined },
): Promise<unknown> {
  const { verb, group } = ctx;
  const output = resolveOutput(ctx.opts, f.io);
  const idem = typeof ctx.opts.idempotencyKey === 'string' ? ctx.opts.idempotencyKey : undefined;
  if (idem !== undefined) checkIdempotencyKey(idem);
  const res = await client.request({
    method: verb.method,
    path: req.path,
    ...(req.body !== undefined ? { body: req.body } : {}),
    ...(req.query ? { query: req.query } : {}),
    ...(idem ? { idempotencyKey: idem } : {}),
  });
  const printer = new Printer(f.io, output, group.columns);
  const obj = res.body;
  if (printer.format === 'table' && verb.kind !== 'get' && f.io.stderrIsTTY && !ctx.opts.fields) {
    await printer.printList(one(obj), group.noun);
  } else {
    printer.printObject(obj);
  }
  if (f.io.stderrIsTTY && verb.kind !== 'get') {
    const id = (getPath(obj, 'id') as string | undefined) ?? ctx.argValue ?? '';
    const status = getPath(obj, 'status');
    const replay = res.replayed ? ' (replayed: this request had already succeeded)' : '';
    f.io.err(`✓ ${doneText(ctx)} ${group.noun} ${id}${typeof status === 'string' && verb.kind !== 'create' ? ` (${status})` : ''}${replay}\n`);
  }
  return obj;
}

async function* one(obj: unknown): AsyncGenerator<unknown[]> {
  yield [obj];
}

function doneText(ctx: VerbContext): string {
  switch (ctx.verb.kind) {
    case 'create':
      return 'Created';
    case 'update':
      return 'Updated';
    case 'delete':
      return 'Removed';
    default:
      return `${ctx.verb.name[0]!.toUpperCase()}${ctx.verb.name.slice(1)}:`;
  }
}

export function plural(noun: string): string {
  return noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : `${noun}s`;
}

export function checkIdempotencyKey(key: string): void {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new UsageError('--idempotency-key must be 1 to 255 printable ASCII characters without spaces');
  }
}

export function fillPath(verb: VerbSpec, argValue: string | undefined): string {
  if (!verb.arg) return verb.path;
  if (argValue === undefined) throw new UsageError(`missing argument ${verb.arg.name}`);
  if (verb.arg.idPrefix) {
    const problem = checkId(verb.arg.idPrefix)(argValue);
    if (problem) throw new UsageError(`${verb.arg.name.replace(/[<>]/g, '')} "${printable(argValue)}" ${problem}`);
  } else if (!/^[A-Za-z0-9_-]{1,64}$/.test(argValue)) {
    throw new UsageError(`invalid ${verb.arg.name.replace(/[<>]/g, '')} "${printable(argValue)}"`);
  }
  return verb.path.replace(/\{[^}]+\}/, encodeURIComponent(argValue));
}

function printable(s: string): string {
  const cut = s.length > 60 ? `${s.slice(0, 60)}…` : s;
  return cut.replace(/[\u0000-\u001f\u007f]/g, '?');
}

export function buildListQuery(
  verb: VerbSpec,
  opts: Record<string, unknown>,
  paging = true,
): { query: Query; limit: number | undefined; all: boolean } {
  const query: Query = {};
  for (const flag of verb.flags ?? []) {
    if (!flag.query) continue;
    const raw = opts[camel(flag.flags)];
    if (raw === undefined) continue;
    query[flag.query] = convert(flag, raw, opts);
  }
  let limit: number | undefined;
  if (paging && opts.limit !== undefined) {
    const problem = checkInt(1, 1000)(String(opts.limit));
    if (problem) throw new UsageError(`--limit ${problem}`);
    limit = Number(opts.limit);
  }
  return { query, limit, all: Boolean(opts.all) };
}

/** --data first, then every field flag over it. */
export async function buildBody(f: Factory, verb: VerbSpec, opts: Record<string, unknown>): Promise<Record<string, unknown>> {
  const body = typeof opts.data === 'string' ? await readData(opts.data, f.io) : {};
  for (const flag of verb.flags ?? []) {
    if (!flag.field) continue;
    const raw = opts[camel(flag.flags)];
    if (raw === undefined) continue;
    setPath(body, flag.field, convert(flag, raw, opts, body));
  }
  // Values that came through --data are checked with the same rules as flags.
  for (const flag of verb.flags ?? []) {
    if (!flag.field) continue;
    const value = getPath(body, flag.field);
    if (typeof value === 'string' && opts[camel(flag.flags)] === undefined) {
      const problem = checkerFor(flag, body)?.(value);
      if (problem) throw new UsageError(`--data: ${flag.field} ${problem}`);
    }
  }
  return body;
}

export function requireFields(verb: VerbSpec, body: Record<string, unknown>): void {
  const missing = (verb.flags ?? []).filter((fl) => fl.required && fl.field && getPath(body, fl.field) === undefined);
  if (missing.length > 0) {
    throw new UsageError(`missing required ${missing.length === 1 ? 'flag' : 'flags'}: ${missing.map((m) => longFlag(m)).join(', ')}`);
  }
}

export function longFlag(flag: FlagSpec): string {
  return /--[a-z0-9-]+/.exec(flag.flags)?.[0] ?? flag.flags;
}

export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (cur[p] === null || typeof cur[p] !== 'object' || Array.isArray(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

export function checkerFor(flag: FlagSpec, body?: Record<string, unknown>): Check | undefined {
  switch (flag.kind) {
    case 'email':
      return checkEmail;
    case 'phone':
      return checkPhone;
    case 'date':
      return checkBirthDate();
    case 'datetime':
      return checkDateOrTime;
    case 'country':
      return checkCountry;
    case 'state':
      return checkState(body ? (getPath(body, siblingField(flag.field ?? '', 'country')) as string | undefined) : undefined);
    case 'currency':
      return checkCurrency;
    case 'id':
      return flag.idPrefix ? checkId(flag.idPrefix) : undefined;
    case 'url':
      return checkUrl;
    case 'int':
      return checkInt(0, 1_000_000_000);
    case 'enum':
      return flag.choices && !flag.open
        ? (v) => (flag.choices!.includes(v) ? undefined : `must be one of ${flag.choices!.join(', ')}`)
        : checkNonEmpty();
    case 'amount':
    case 'bool':
      return undefined;
    default:
      return checkNonEmpty(500);
  }
}

function siblingField(field: string, name: string): string {
  const i = field.lastIndexOf('.');
  return i < 0 ? name : `${field.slice(0, i)}.${name}`;
}

function convert(flag: FlagSpec, raw: unknown, opts: Record<string, unknown>, body?: Record<string, unknown>): unknown {
  if (flag.kind === 'bool' || typeof raw === 'boolean') return raw;
  const value = String(raw).trim();
  const name = longFlag(flag);
  if (flag.kind === 'amount') {
    const currency = String(
      opts[flag.currencyFrom ?? 'currency'] ?? (body ? getPath(body, siblingField(flag.field ?? '', 'currency')) : '') ?? '',
    ).toUpperCase();
    if (!currency) throw new UsageError(`${name} needs a currency (--currency)`);
    const parsed = parseAmount(value, currency);
    if (parsed.error) throw new UsageError(`${name}: ${parsed.error}`);
    return parsed.value;
  }
  if (flag.kind === 'currency' || flag.kind === 'country') {
    const up = value.toUpperCase();
    const problem = checkerFor(flag)?.(up);
    if (problem) throw new UsageError(`${name} "${printable(value)}" ${problem}`);
    return up;
  }
  const problem = checkerFor(flag, body)?.(value);
  if (problem) throw new UsageError(`${name} "${printable(value)}" ${problem}`);
  if (flag.kind === 'int') return Number(value);
  return value;
}

async function confirmLive(f: Factory, ctx: VerbContext, body: Record<string, unknown> | undefined): Promise<void> {
  const s = f.settings();
  if (s.mode.value !== 'live' || ctx.opts.yes) return;
  const what = describeAction(ctx, body);
  if (!f.canPrompt) {
    throw new UsageError(`refusing to ${what} in live mode without confirmation: pass --yes`);
  }
  const { createPrompter } = await import('../io/prompt.js');
  const ok = await createPrompter(f.io).confirm(`LIVE mode, profile "${s.profileName.value}": ${what}?`, false);
  if (!ok) throw new UsageError('not confirmed; nothing was sent');
}

function describeAction(ctx: VerbContext, body: Record<string, unknown> | undefined): string {
  const parts = [`${ctx.verb.name} ${ctx.group.noun}${ctx.argValue ? ` ${ctx.argValue}` : ''}`];
  const amount = body && (getPath(body, 'amount') ?? getPath(body, 'source_amount'));
  const currency = body && (getPath(body, 'currency') ?? getPath(body, 'source_currency'));
  if (amount) parts.push(`${String(amount)}${currency ? ` ${String(currency)}` : ''}`);
  const dest = body && (getPath(body, 'destination_id') ?? getPath(body, 'target_account_id'));
  if (dest) parts.push(`to ${String(dest)}`);
  return parts.join(' ');
}
