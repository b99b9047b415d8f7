// The service's Sandbox simulation values ("magic" inputs): one list for the emulator (which
// acts on them), the contract's descriptions, `pay help simulate`, the help of the verbs they
// affect and `pay trigger` (which uses them to make failure events on purpose). It imports only
// money.ts and failure-reasons.ts (which import nothing): the verbs' declarations load it at start-up.
import { failureReasonLines } from './failure-reasons.js';
import { fromMinor, toMinor } from './money.js';

// One rule for every value: a value carries an ending only when its digits end with ALL of the
// ending's digits (endsIn). An amount's digits are its minor units written as a whole number, with
// no leading zeros: "1.13" USD is 113 (ends in 13), "100.14" is 10014 (ends in 0014), and "0.14" is
// 14, which does not end in 0014: missing digits never count as zeros. A document number's digits
// are the number as given.

/** Minor units ending in these two digits fail when they settle. */
export const FAIL_ENDING = 13;
/**
 * Minor units ending in these four digits (`"100.14"` USD is 10014): a transfer is held `pending`
 * for HOLD_HOURS, then completes. Four digits, not two like FAIL_ENDING, all of them there (so at
 * least 10014 minor units, "100.14" USD): a value that stalls a transfer for a day must not catch
 * one amount in a hundred that a script picks by chance, nor a small one like "0.14".
 */
export const HOLD_ENDING = 14;
export const HOLD_DIGITS = 4;
/** How long a held transfer stays pending (emulator time, so `pay emulator clock advance 25h` settles it). */
export const HOLD_HOURS = 24;
/** A KYC document whose `number` ends with this makes its verification `rejected`. */
export const REJECT_DOCUMENT_SUFFIX = '0000';

/** The failing ending as written: `13`. */
export const FAIL_TEXT = String(FAIL_ENDING);
/** The hold ending as written: `0014`. */
export const HOLD_TEXT = String(HOLD_ENDING).padStart(HOLD_DIGITS, '0');

/** The one rule: whether a value's digits end with every digit of `ending` (none counted as a missing leading zero). */
export function endsIn(digits: string | undefined, ending: string): boolean {
  return digits !== undefined && ending !== '' && digits.endsWith(ending);
}

/**
 * An amount's minor units as digits, no leading zeros (`"1.13"` USD → `113`, `"113"` JPY → `113`,
 * `"0.14"` USD → `14`), or undefined for a string that is not a plain decimal. `exponent` is the
 * currency's number of decimals; decimals beyond it (refused by validation anyway) are ignored.
 */
export function minorDigits(amount: string, exponent: number): string | undefined {
  const m = /^([0-9]+)(?:\.([0-9]+))?$/.exec(amount);
  if (!m) return undefined;
  const decimals = (m[2] ?? '').slice(0, exponent);
  return toMinor(decimals ? `${m[1]!}.${decimals}` : m[1]!, exponent).toString();
}

/** Whether an amount carries an ending (endsIn over its minor units' digits). */
export const amountEndsIn = (amount: string, exponent: number, ending: string): boolean => endsIn(minorDigits(amount, exponent), ending);

export interface SimulationValue {
  /** What the value goes in: `transfer amount`. */
  input: string;
  /** The rule: `minor units ending in 13`. */
  value: string;
  /** The input and the rule as a sentence starts: `A transfer amount whose minor units end in 13`. */
  when: string;
  /** One value that has it, as a flag would take it. */
  example: string;
  /** What happens. */
  effect: string;
  /** The webhook events it leads to. */
  events: readonly string[];
  /** The commands whose input it is. */
  commands: readonly string[];
}

export const SIMULATION_VALUES: readonly SimulationValue[] = [
  {
    input: 'transfer amount',
    value: `minor units ending in ${FAIL_TEXT}`,
    when: `A transfer amount whose minor units end in ${FAIL_TEXT}`,
    example: '--amount 1.13 (USD), 113 (JPY)',
    effect: 'the transfer fails when it settles (failure_reason "destination_rejected") and the money returns to the source',
    events: ['transfer.failed'],
    commands: ['transfers send'],
  },
  {
    input: 'transfer amount',
    value: `minor units ending in ${HOLD_TEXT}, all ${HOLD_DIGITS} digits`,
    when: `A transfer amount whose minor units end in ${HOLD_TEXT}, all ${HOLD_DIGITS} digits there`,
    example: '--amount 100.14 (USD), 10014 (JPY)',
    effect: `the transfer is held pending for ${HOLD_HOURS} hours (time to cancel it), then completes (or fails with failure_reason "kyc_rejected" when a holder's KYC was rejected meanwhile: the rules are checked again as it settles)`,
    events: ['transfer.cancelled (when cancelled)', 'transfer.completed'],
    commands: ['transfers send', 'transfers cancel'],
  },
  {
    input: 'collection amount',
    value: `minor units ending in ${FAIL_TEXT}`,
    when: `A collection amount whose minor units end in ${FAIL_TEXT}`,
    example: '--amount 10.13',
    effect: 'the collection fails when it settles (failure_reason "payment_declined") and nothing is credited',
    events: ['collection.failed'],
    commands: ['collections create'],
  },
  {
    input: 'KYC document number',
    value: `ending in ${REJECT_DOCUMENT_SUFFIX}`,
    when: `A KYC document number ending in ${REJECT_DOCUMENT_SUFFIX}`,
    example: '--number X1230000',
    effect: 'the verification is rejected when it is decided, the document too',
    events: ['kyc.rejected'],
    commands: ['kyc submit-document', 'kyc-legacy submit-document'],
  },
];

/** The contract's words (Markdown) for each input that has simulation values. */
export const CONTRACT_NOTES = {
  transfer:
    `Sandbox simulation values: an amount whose minor units end in \`${FAIL_TEXT}\` (e.g. \`"1.13"\`) fails when it settles, ` +
    `\`failure_reason: "destination_rejected"\`; one ending in \`${HOLD_TEXT}\`, all ${HOLD_DIGITS} digits (\`"100.14"\`; \`"0.14"\` is 14 minor units and ` +
    `does not), is held \`pending\` for ${HOLD_HOURS} hours (time to cancel it), then completes. Any transfer, held or not, is checked ` +
    'against the business rules again as it settles: a holder whose KYC was rejected meanwhile fails it, `failure_reason: "kyc_rejected"`.',
  collection:
    `Sandbox simulation value: an amount whose minor units end in \`${FAIL_TEXT}\` (e.g. \`"10.13"\`) fails when it settles, ` +
    '`failure_reason: "payment_declined"`.',
  kyc: `Sandbox simulation value: a document \`number\` ending in \`${REJECT_DOCUMENT_SUFFIX}\` makes the verification \`rejected\`.`,
} as const;

/** One sentence for a verb's help: the simulation values of its input. */
export function simulationNote(command: string): string {
  const values = SIMULATION_VALUES.filter((v) => v.commands.includes(command));
  if (values.length === 0) return '';
  return `Sandbox simulation value${values.length > 1 ? 's' : ''} (pay help simulate): ${values.map((v) => `${v.when} (${v.example.split(' (')[0]!}): ${v.effect}.`).join(' ')}`;
}

/** `pay help simulate`. */
export function simulationText(): string {
  const rows = SIMULATION_VALUES.map(
    (v) =>
      `  ${v.input}, ${v.value}\n    e.g. ${v.example}\n    ${v.effect}\n    events: ${v.events.join(', ')}; commands: ${v.commands.map((c) => `pay ${c}`).join(', ')}`,
  );
  return (
    'Sandbox simulation values\n\n' +
    'In Sandbox (and in the emulator) these inputs make the service take a failure path on purpose,\n' +
    'so a script or a webhook handler can be tested against it. Live mode treats them as ordinary values.\n' +
    'Minor units are the amount times 10^(the currency\'s decimals): "1.13" USD is 113, so it ends in 13.\n' +
    'An ending counts only with all its digits there (one rule for every value): "0.14" USD is 14, which\n' +
    `does not end in ${HOLD_TEXT}; the smallest USD amount that does is ${fromMinor(BigInt(10 ** HOLD_DIGITS + HOLD_ENDING), 2)}.\n\n` +
    `${rows.join('\n\n')}\n\n` +
    'What a failed transfer or collection says (failure_reason), whatever made it fail:\n\n' +
    `${failureReasonLines().join('\n')}\n\n` +
    'Everything else settles normally: transfers complete, collections succeed, KYC is approved, physical\n' +
    "cards activate, each after the review delay (the emulator's --settle-after, 1 s by default).\n" +
    'pay trigger <event-type> uses these values to make each event on purpose (pay trigger --list).\n'
  );
}
