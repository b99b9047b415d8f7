// pay customers create: flags and --data first; on a terminal, what is missing is asked as every
// create asks it (src/verbs/ask.ts, with the labels below); otherwise exit 2 naming the missing flags.
import { getPath } from '../../io/fields.js';
import { UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { askCountry, askEnum, askMissing, askState, askText } from '../../verbs/ask.js';
import { clientNeeds, sendAndPrint } from '../../verbs/steps.js';
import { buildBody, longFlag } from '../../verbs/values.js';
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

export async function run(f: Factory, given: VerbContext): Promise<void> {
  let ctx = given;
  // On a terminal, the rules every create follows (src/verbs/ask.ts): the required fields not
  // given, in the seed's order; the optional ones after "Add optional details?" (or at once with
  // --interactive); a summary and one question (--yes skips it). Ctrl-C or Ctrl-D: exit 130, nothing sent.
  if (f.canPrompt) ctx = await askMissing(f, ctx, LABELS);
  const body = await buildBody(f, ctx.verb, ctx.opts);
  const missing = (ctx.verb.flags ?? []).filter((fl) => fl.required && fl.field && getPath(body, fl.field) === undefined);
  if (missing.length > 0) {
    throw new UsageError(`missing required ${missing.length === 1 ? 'flag' : 'flags'}: ${missing.map(longFlag).join(', ')}`, {
      hint:
        f.io.stdinIsTTY && f.io.stderrIsTTY
          ? 'prompting is off (--no-input, PAY_NO_INPUT or CI); pass the flags'
          : 'no terminal to prompt on; pass the flags',
    });
  }
  const client = await f.client(clientNeeds(ctx));
  await sendAndPrint(f, ctx, client, { path: ctx.verb.path, body });
}

// The askers are the verbs' (src/verbs/ask.ts), shared with every create that prompts.
export { askCountry, askEnum, askState, askText };
