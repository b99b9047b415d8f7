// pay customers create: flags and --data first; on a terminal, a prompt for each field not given
// (the required ones first, then the optional ones, each in the seed's field order, validated as
// typed); otherwise exit 2 naming the missing flags.
import { getPath } from '../../io/fields.js';
import { UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { loadIsoTables } from '../../shared/iso-3166.js';
import { askCountry, askEnum, askState, askText } from '../../verbs/ask.js';
import { clientNeeds, sendAndPrint } from '../../verbs/steps.js';
import { buildBody, longFlag, setPath } from '../../verbs/values.js';
import type { VerbContext } from '../../cmdutil/spec.js';

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
    // What is required first: a user who gave all but --email is asked for the e-mail, not a middle name.
    for (const fl of [...missingRequired, ...missing.filter((m) => !m.required)]) {
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

// The askers are the verbs' (src/verbs/ask.ts), shared with every create that prompts.
export { askCountry, askEnum, askState, askText };
