// Asking for what is missing: a create or action verb run on a terminal without a flag it needs
// asks for it, driven by the verb's resolved flags (required, kind, choices, idPrefix, field), not
// per command. The order is the one a person thinks in: the object it belongs to first (a
// customer, then that customer's accounts, through the picker's searchable list), then the money
// (the currency, the account's when one was picked, then the amount in it), then the rest in the
// verb's order; required before optional, which are asked only after "Add optional details?" (or
// at once with --interactive, which also asks when nothing required is missing).
// A flag given (or a --data field) is never asked again. Each answer is checked as typed by the
// validator of its kind (src/shared/fields.ts, through values.ts); a free-text answer another
// kind's validator recognises (an e-mail typed as a nickname) is asked about. Then a summary of
// what will be sent and one question, skipped with --yes (and in live mode, where the live
// question of steps.ts asks instead). Off a terminal nothing here runs: prepare's exit 2 names the flags.
import { escapeText } from '../io/escape.js';
import { getPath } from '../io/fields.js';
import type { IOStreams } from '../io/iostreams.js';
import type { Prompter } from '../io/prompt.js';
import type { Factory } from '../cmdutil/factory.js';
import { camel, type Constraint, type FlagSpec, type PickSpec, type VerbContext } from '../cmdutil/spec.js';
import { UsageError } from '../lib/errors.js';
import { asText } from '../lib/text.js';
import { needsConfirmation } from '../shared/confirm.js';
import { countryAliases } from '../shared/country-aliases.js';
import { isId, OBJECT_KINDS } from '../shared/domain.js';
import { normalCurrency, normalEmail, normalEnum, normalPhone } from '../shared/fields.js';
import { loadIsoTables, type IsoTables } from '../shared/iso-3166.js';
import { checkUrl, parseAmount } from '../shared/validate.js';
import { entryLabels, PICK_LIMIT, pickEntries } from './pick.js';
import { clientNeeds, nounOf } from './steps.js';
import { buildBody, checkerFor, longFlag, normalFor, setPath } from './values.js';

/** What an id's picker lists and shows, by the id's prefix; the first of a flag's prefixes (`acc_|ea_`) is listed first. */
const LISTS: Readonly<Record<string, Omit<PickSpec, 'list'> & { byCustomer?: boolean }>> = {
  cus_: {
    what: 'customers',
    show: [
      { header: 'FIRST NAME', path: 'first_name' },
      { header: 'LAST NAME', path: 'last_name' },
      { header: 'EMAIL', path: 'email' },
      { header: 'KYC', path: 'kyc_status', kind: 'status' },
    ],
  },
  acc_: {
    what: 'accounts',
    requireTenant: true,
    byCustomer: true,
    where: { status: ['active'] },
    show: [
      { header: 'NICKNAME', path: 'nickname' },
      { header: 'AVAILABLE', path: 'balance.available', kind: 'money', currencyPath: 'currency' },
      { header: 'CUSTOMER', path: 'customer_id' },
    ],
  },
  ea_: {
    what: 'external accounts',
    show: [
      { header: 'HOLDER', path: 'account_holder_name' },
      { header: 'CURRENCY', path: 'currency' },
    ],
  },
};

/** The rank of a flag in the asking order: the owner first, then its accounts, other ids, the currency, the amount, the rest. */
function rank(fl: FlagSpec): number {
  if (fl.kind === 'id') return fl.idPrefix?.startsWith('cus_') ? 0 : fl.idPrefix?.startsWith('acc_') ? 1 : 2;
  if (fl.kind === 'currency') return 3;
  if (fl.kind === 'amount') return 4;
  return 5;
}

/** The flags that ask for a body field, in the asking order (stable: the verb's order within a rank). */
export function askingOrder(flags: readonly FlagSpec[]): FlagSpec[] {
  return flags
    .filter((fl) => fl.field && !fl.pathParam && fl.kind !== 'bool' && !fl.repeatable)
    .map((fl, i) => ({ fl, i }))
    .sort((a, b) => rank(a.fl) - rank(b.fl) || a.i - b.i)
    .map((x) => x.fl);
}

/**
 * The fields needed now: the required ones, those a value given makes required (`requiredWhen`:
 * a physical card's address, mobile money's phone), and the rest of a `together` once one is there.
 */
export function neededFields(flags: readonly FlagSpec[], constraints: readonly Constraint[], body: Record<string, unknown>): Set<string> {
  const needed = new Set<string>();
  for (const fl of flags) if (fl.required && fl.field && fl.default === undefined) needed.add(fl.field);
  for (const c of constraints) {
    if (c.kind === 'requiredWhen') {
      const v = getPath(body, c.field);
      if (typeof v === 'string' && c.values.includes(v)) for (const r of c.require) needed.add(r);
    } else if (c.kind === 'together' && c.fields.some((p) => getPath(body, p) !== undefined)) {
      for (const p of c.fields) needed.add(p);
    }
  }
  return needed;
}

/**
 * On a terminal, asks for what the verb needs and was not given (and, after a yes, for the
 * optional rest) and confirms the summary; returns the context with the answers as its flags'
 * values. Nothing missing: nothing asked, the context as it was.
 */
export async function askMissing(f: Factory, ctx: VerbContext, labels: Readonly<Record<string, string>> = {}): Promise<VerbContext> {
  const { verb } = ctx;
  const flags = verb.flags ?? [];
  // The flags given are checked first: a bad one is exit 2 before any question.
  const body = await buildBody(f, verb, ctx.opts, ctx.argValue);
  const order = askingOrder(flags);
  const missingNeeded = () => {
    const needed = neededFields(flags, verb.constraints ?? [], body);
    return order.filter((fl) => needed.has(fl.field!) && getPath(body, fl.field!) === undefined && !asked.has(fl));
  };
  const asked = new Set<FlagSpec>();
  const interactive = ctx.opts.interactive === true;
  const optionalLeft = () => order.filter((fl) => getPath(body, fl.field!) === undefined && !asked.has(fl));
  if (missingNeeded().length === 0 && !(interactive && (await askable(optionalLeft(), body)).length > 0)) return ctx;
  // The key and tenant are checked before anything is asked: nobody types a transfer in vain.
  await f.client(clientNeeds(ctx));
  const { createPrompter } = await import('../io/prompt.js');
  const prompter = createPrompter(f.io);
  const opts = { ...ctx.opts };
  const asker = new Asker(f, ctx, prompter, body, labels);
  const answer = async (fl: FlagSpec, optional: boolean) => {
    asked.add(fl);
    const value = await asker.ask(fl, optional);
    if (value === '') return;
    setPath(body, fl.field!, value);
    opts[camel(fl.flags)] = value;
  };
  for (let next = missingNeeded()[0]; next; next = missingNeeded()[0]) await answer(next, false);
  const optional = optionalLeft;
  // The gate names only what can be asked: no state for a country without subdivisions (AQ).
  const gated = await askable(optional(), body);
  if (gated.length > 0) {
    const left = gated.map(longFlag);
    const names = left.length <= 3 ? left.join(', ') : `${left.slice(0, 2).join(', ')} and ${left.length - 2} more`;
    // --interactive: the optional fields are asked without the question.
    if (interactive || (await prompter.confirm(`Add optional details? (${names})`, false))) {
      for (const fl of optional()) {
        if (asked.has(fl) || getPath(body, fl.field!) !== undefined) continue;
        await answer(fl, true);
        // An answer can make another field needed (a spending limit, its interval).
        for (let next = missingNeeded()[0]; next; next = missingNeeded()[0]) await answer(next, false);
      }
    }
  }
  await confirmSummary(f, { ...ctx, opts }, body, prompter);
  return { ...ctx, opts };
}

/**
 * The optional fields there is something to ask for: a state only beside a country with ISO 3166-2
 * subdivisions (given, or among the fields still to ask); every other field.
 */
async function askable(fields: readonly FlagSpec[], body: Record<string, unknown>): Promise<FlagSpec[]> {
  if (!fields.some((fl) => fl.kind === 'state')) return [...fields];
  const tables = await loadIsoTables();
  return fields.filter((fl) => {
    if (fl.kind !== 'state') return true;
    const countryField = fl.field!.replace(/state$/, 'country');
    const country = getPath(body, countryField);
    if (typeof country === 'string') return tables.subdivisionsOf(country).length > 0;
    return fields.some((other) => other.field === countryField);
  });
}

/** The fields about to be sent, by their flags, then one question (default yes), unless --yes or the live question asks. */
async function confirmSummary(f: Factory, ctx: VerbContext, body: Record<string, unknown>, prompter: Prompter): Promise<void> {
  const { verb } = ctx;
  const rows: Array<[string, string]> = [];
  for (const fl of verb.flags ?? []) {
    const v = fl.field ? getPath(body, fl.field) : undefined;
    if (v === undefined || v === null || typeof v === 'object') continue;
    const amountIn = fl.kind === 'amount' ? getPath(body, fl.currencyField ?? 'currency') : undefined;
    rows.push([longFlag(fl), `${asText(v)}${typeof amountIn === 'string' ? ` ${amountIn}` : ''}`]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  const what = `pay ${ctx.group.name} ${verb.name}${ctx.argValue ? ` ${ctx.argValue}` : ''}`;
  f.io.err(`${escapeText(`About to run "${what}" (${verb.method} /${verb.path}):`)}\n`);
  for (const [k, v] of rows) f.io.err(`  ${k.padEnd(width)}  ${escapeText(v)}\n`);
  if (ctx.opts.yes === true) return;
  // Live mode asks its own question, naming the mode and the profile, just before sending.
  if (needsConfirmation({ method: verb.method, operationId: verb.operationId }, f.settings().mode.value)) return;
  const noun = nounOf(ctx);
  const ok = await prompter.confirm(verb.kind === 'create' ? `Create this ${noun}?` : `Send this?`, true);
  if (!ok) throw new UsageError('not confirmed; nothing was sent');
}

/** What a free-text answer looks like to another field's validator, if anything: asked about before it is taken. */
export function looksLike(value: string): string | undefined {
  const v: string = value.trim();
  if (isId(String(v))) return 'an id';
  if (normalEmail(v).error === undefined) return 'an e-mail address';
  if (/^\+?[\d\s().-]{8,}$/.test(v) && /\d{8}/.test(v.replace(/\D/g, '')) && normalPhone(v).error === undefined) return 'a phone number';
  if (/^https?:\/\//i.test(v) && checkUrl(v) === undefined) return 'a URL';
  return undefined;
}

/** Asks one field by its kind; the value as a flag would take it ('' for an optional one skipped). */
class Asker {
  private readonly objects = new Map<string, Record<string, unknown>>();
  private tables: IsoTables | undefined;

  constructor(
    private readonly f: Factory,
    private readonly ctx: VerbContext,
    private readonly prompter: Prompter,
    private readonly body: Record<string, unknown>,
    private readonly labels: Readonly<Record<string, string>>,
  ) {}

  async ask(fl: FlagSpec, optional: boolean): Promise<string> {
    const label = this.labels[fl.field!] ?? labelOf(fl);
    if (fl.kind === 'id' && fl.idPrefix && LISTS[fl.idPrefix.split('|')[0]!]) return this.askId(fl, label, optional);
    if (fl.kind === 'amount') return this.askAmount(fl, label, optional);
    if (fl.kind === 'currency') return this.askCurrency(fl, label, optional);
    if (fl.kind === 'country' || fl.kind === 'state') {
      this.tables ??= await loadIsoTables();
      if (fl.kind === 'country') return askCountry(this.prompter, label, this.tables, optional);
      const country = getPath(this.body, fl.field!.replace(/state$/, 'country'));
      if (typeof country !== 'string' || this.tables.subdivisionsOf(country).length === 0) return '';
      return askState(this.prompter, label, this.tables, country, optional);
    }
    if (fl.choices) return askEnum(this.prompter, this.f.io, label, fl, optional);
    return askText(this.prompter, label, fl, this.body, optional);
  }

  /** The searchable list of the objects the id can name (a customer's own accounts once the customer is known); typed when there are none. */
  private async askId(fl: FlagSpec, label: string, optional: boolean): Promise<string> {
    const prefixes = fl.idPrefix!.split('|');
    const taken = new Set(Object.values(this.body).filter((v): v is string => typeof v === 'string' && isId(v)));
    const items = [];
    for (const prefix of prefixes) {
      const spec = LISTS[prefix];
      const kind = Object.values(OBJECT_KINDS).find((k) => k.prefix === prefix);
      if (!spec || !kind || !('path' in kind)) continue;
      const customer = spec.byCustomer ? Object.values(this.body).find((v) => isId(v, 'cus_')) : undefined;
      const query: Record<string, string> = customer ? { customer_id: customer } : {};
      try {
        const client = await this.f.client(spec.requireTenant ? { requireTenant: `pay ${this.ctx.group.name} ${this.ctx.verb.name}` } : {});
        const objects: unknown[] = [];
        for await (const page of client.pages<unknown>(kind.path, query, { limit: PICK_LIMIT, checkFilters: true })) objects.push(...page);
        for (const o of objects) {
          const id = getPath(o, 'id');
          if (typeof id === 'string') this.objects.set(id, o as Record<string, unknown>);
        }
        // An id another field already holds is not offered again (a transfer to its own account).
        items.push(...pickEntries(objects, { list: kind.path, ...spec }, prefix).filter((e) => !taken.has(e.id)));
      } catch (err) {
        this.f.io.err(`${escapeText(`could not list the ${spec.what} (${(err as Error).message}); type the id`)}\n`);
      }
    }
    if (items.length === 0) return askText(this.prompter, label, fl, this.body, optional);
    return this.prompter.pick(label, entryLabels(items, this.f.io.terminalWidth), { optional });
  }

  /** The currency: the account's, when an account picked or given has one, offered as the default. */
  private async askCurrency(fl: FlagSpec, label: string, optional: boolean): Promise<string> {
    const ofAccount = await this.accountCurrency();
    return this.prompter
      .text(label, {
        optional,
        ...(ofAccount ? { default: ofAccount } : {}),
        validate: (v) => normalCurrency(v, fl.choices).error,
      })
      .then((v) => (v === '' ? '' : (normalCurrency(v, fl.choices).value ?? v)));
  }

  /** The currency of the account the body names (picked, or given: then read, a GET; unread, none). */
  private async accountCurrency(): Promise<string | undefined> {
    for (const v of Object.values(this.body)) {
      if (!isId(v, 'acc_')) continue;
      if (!this.objects.has(v)) {
        try {
          const client = await this.f.client(clientNeeds(this.ctx));
          const got = (await client.request<Record<string, unknown>>({ method: 'GET', path: `accounts/${v}`, expect: { id: v } })).body;
          this.objects.set(v, got);
        } catch {
          continue;
        }
      }
      const cur = this.objects.get(v)?.currency;
      if (typeof cur === 'string') return cur;
    }
    return undefined;
  }

  /** An amount in the currency given (shown in the question), checked against that currency's decimals. */
  private askAmount(fl: FlagSpec, label: string, optional: boolean): Promise<string> {
    const cur = getPath(this.body, fl.currencyField ?? 'currency');
    const currency = typeof cur === 'string' ? cur : undefined;
    const shown = currency ? `Amount in ${currency} (${longFlag(fl)})` : label;
    return this.prompter
      .text(shown, { optional, validate: (v) => (currency ? parseAmount(v, currency).error : checkerFor({ ...fl, kind: 'decimal' })?.(v)) })
      .then((v) => (v === '' || !currency ? v : (parseAmount(v, currency).value ?? v)));
  }
}

/** `Owner (cus_…) (--customer)`: the flag's description, capitalised, and the flag that would give it. */
export function labelOf(fl: FlagSpec): string {
  const d = fl.description.split(/[;:] | \(a near miss/)[0]!;
  return `${d.charAt(0).toUpperCase()}${d.slice(1)} (${longFlag(fl)})`;
}

/**
 * A text field, checked as typed by the validator of its kind (src/shared/fields.ts) and kept in
 * the form a flag would send (`+1 415 555 0199` → `+14155550199`). A free-text answer another
 * field's validator recognises (an e-mail as a middle name) is taken only after a yes.
 */
export async function askText(
  prompter: Prompter,
  label: string,
  fl: FlagSpec,
  body: Record<string, unknown>,
  optional: boolean,
): Promise<string> {
  const check = checkerFor(fl, body);
  const validate = (v: string) => {
    const n = normalFor(fl, v, body);
    return n ? n.error : check?.(v);
  };
  const free = fl.kind === undefined || fl.kind === 'string';
  for (;;) {
    const value = await prompter.text(label, { optional, validate });
    if (value === '') return '';
    const like = free ? looksLike(value) : undefined;
    if (like && !(await prompter.confirm(`"${value}" looks like ${like}, not ${label}: use it anyway?`, false))) continue;
    return normalFor(fl, value, body)?.value ?? value;
  }
}

/**
 * A list field: the value chosen, or typed. A value near one of the list is refused with it as
 * "did you mean" (the flag's words) and asked again; another value, where the field takes others,
 * only after a yes. A typo never becomes data.
 */
export async function askEnum(prompter: Prompter, io: IOStreams, label: string, fl: FlagSpec, optional: boolean): Promise<string> {
  const choices = fl.choices ?? [];
  for (;;) {
    const typed = await prompter.choose(label, choices, { open: fl.open ?? false, optional });
    if (typed === '') return '';
    const n = normalEnum(typed, choices, fl.open ?? false);
    if (n.error !== undefined) {
      io.err(`${escapeText(`${label}: "${typed}" ${n.error}`)}\n`);
      continue;
    }
    if (choices.includes(n.value)) return n.value;
    if (await prompter.confirm(`"${n.value}" is not one of ${choices.join(', ')}: use it anyway?`, false)) return n.value;
  }
}

/** Everyday names and alpha-3 codes by country (`US`: usa, united states, america). */
function othersByCountry(): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const [name, code] of countryAliases()) by.set(code, [...(by.get(code) ?? []), name]);
  return by;
}

/**
 * Searchable by code (alpha-2 or alpha-3) and by name (English, common: "South Korea", or
 * everyday: "UK", "America"), accents aside; a whole code or name typed comes first, and a name
 * mistyped finds the country near it.
 */
export function askCountry(prompter: Prompter, label: string, tables: IsoTables, optional: boolean): Promise<string> {
  const others = othersByCountry();
  const items = tables.countries.map((c) => ({
    value: c.code,
    label: `${c.code}  ${c.name}${c.aliases.length ? ` (${c.aliases.join(', ')})` : ''}`,
    keys: [c.code, c.name, ...c.aliases, ...(others.get(c.code) ?? [])],
    text: (others.get(c.code) ?? []).join(' '),
  }));
  return prompter.pick(label, items, { optional });
}

/** The country's subdivisions, searchable by name, by code, or by the bare subdivision (`VA` for US-VA). */
export function askState(prompter: Prompter, label: string, tables: IsoTables, country: string, optional: boolean): Promise<string> {
  const items = tables
    .subdivisionsOf(country)
    .map((s) => ({ value: s.code, label: `${s.code}  ${s.name}`, keys: [s.code, s.code.slice(3), s.name] }));
  return prompter.pick(`${label} of ${country}`, items, { optional });
}
