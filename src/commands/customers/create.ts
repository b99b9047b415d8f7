// pay customers create: flags and --data first; on a terminal, a prompt for each field not given
// (in the seed's field order, validated as typed); otherwise exit 2 naming the missing flags.
import { escapeText } from '../../io/escape.js';
import { getPath } from '../../io/fields.js';
import type { IOStreams } from '../../io/iostreams.js';
import { UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import type { Prompter } from '../../io/prompt.js';
import { countryAliases } from '../../shared/country-aliases.js';
import { normalEnum } from '../../shared/fields.js';
import { loadIsoTables, type IsoTables } from '../../shared/iso-3166.js';
import { clientNeeds, sendAndPrint } from '../../verbs/steps.js';
import { buildBody, checkerFor, longFlag, normalFor, setPath } from '../../verbs/values.js';
import type { FlagSpec, VerbContext } from '../../cmdutil/spec.js';

const LABELS: Record<string, string> = {
  first_name: 'First name',
  last_name: 'Last name',
  middle_name: 'Middle name',
  email: 'E-mail',
  phone: 'Phone (international, e.g. +14155550123)',
  type: 'Customer type',
  gender: 'Gender',
  date_of_birth: 'Date of birth (YYYY-MM-DD)',
  'address.address_line1': 'Street (address line 1)',
  'address.city': 'City',
  'address.country': 'Country',
  'address.postal_code': 'Postal code',
  'address.state': 'State / subdivision',
};

export async function run(f: Factory, ctx: VerbContext): Promise<void> {
  const flags = ctx.verb.flags ?? [];
  const body = await buildBody(f, ctx.verb, ctx.opts);
  const missing = flags.filter((fl) => fl.field && getPath(body, fl.field) === undefined);
  const missingRequired = missing.filter((fl) => fl.required);
  if (missingRequired.length > 0) {
    if (!f.canPrompt) {
      throw new UsageError(
        `missing required ${missingRequired.length === 1 ? 'flag' : 'flags'}: ${missingRequired.map(longFlag).join(', ')}`,
        {
          hint: f.io.stdinIsTTY
            ? 'prompting is off (--no-input, PAY_NO_INPUT or CI); pass the flags'
            : 'no terminal to prompt on; pass the flags',
        },
      );
    }
    // Check the key and tenant before asking anything, so a user does not type a customer in vain.
    await f.client(clientNeeds(ctx));
    const { createPrompter } = await import('../../io/prompt.js');
    const prompter = createPrompter(f.io);
    // Country and state are searchable lists from the ISO 3166 tables (the ones validation uses).
    const tables = await loadIsoTables();
    for (const fl of missing) {
      const field = fl.field!;
      const label = LABELS[field] ?? field;
      const optional = !fl.required;
      let value: string;
      if (fl.kind === 'country') {
        value = await askCountry(prompter, label, tables, optional);
      } else if (fl.kind === 'state') {
        const country = getPath(body, field.replace(/state$/, 'country'));
        if (typeof country !== 'string') continue;
        // A country without ISO 3166-2 subdivisions has no state to give.
        if (tables.subdivisionsOf(country).length === 0) continue;
        value = await askState(prompter, label, tables, country, optional);
      } else if (fl.choices) {
        value = await askEnum(prompter, f.io, label, fl, optional);
      } else {
        value = await askText(prompter, label, fl, body, optional);
      }
      if (value !== '') setPath(body, field, value);
    }
  }
  const client = await f.client(clientNeeds(ctx));
  await sendAndPrint(f, ctx, client, { path: ctx.verb.path, body });
}

/**
 * A text field, checked as typed by the validator of its kind (src/shared/fields.ts) and kept in
 * the form a flag would send (`+1 415 555 0199` → `+14155550199`).
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
  const value = await prompter.text(label, { optional, validate });
  return value === '' ? '' : (normalFor(fl, value, body)?.value ?? value);
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
