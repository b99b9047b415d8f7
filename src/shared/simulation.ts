// The service's Sandbox simulation values ("magic" inputs): one list for the emulator (which
// acts on them), the contract's descriptions, `pay help simulate`, the help of the verbs they
// affect and `pay trigger` (which uses them to make failure events on purpose). It imports only
// money.ts (which imports nothing): the verbs' declarations load it at start-up.
import { toMinor } from './money.js';

/** Minor units ending in these two digits (amount × 10^exponent, mod 100) fail when they settle. */
export const FAIL_ENDING = 13;
/**
 * Minor units ending in these four digits (mod 10,000: `"100.14"` USD is 10014): a transfer is held
 * `pending` for HOLD_HOURS, then completes. Four digits, not two like FAIL_ENDING: a value that
 * stalls a transfer for a day must not catch one amount in a hundred that a script picks by chance.
 */
export const HOLD_ENDING = 14;
export const HOLD_DIGITS = 4;
/** How long a held transfer stays pending (emulator time, so `pay emulator clock advance 25h` settles it). */
export const HOLD_HOURS = 24;
/** A KYC document whose `number` ends with this makes its verification `rejected`. */
export const REJECT_DOCUMENT_SUFFIX = '0000';

/**
 * The last `digits` digits of an amount's minor units (two by default: `"1.13"` USD → 13, `"113"`
 * JPY → 13, `"1.013"` KWD → 13), or undefined for a string that is not a plain decimal. `exponent` is
 * the currency's number of decimals; decimals beyond it (refused by validation anyway) are ignored.
 */
export function minorEnding(amount: string, exponent: number, digits = 2): number | undefined {
  const m = /^([0-9]+)(?:\.([0-9]+))?$/.exec(amount);
  if (!m) return undefined;
  const decimals = (m[2] ?? '').slice(0, exponent);
  return Number(toMinor(decimals ? `${m[1]!}.${decimals}` : m[1]!, exponent) % 10n ** BigInt(digits));
}

/** The hold value as written in words: `0014`. */
const HOLD_TEXT = String(HOLD_ENDING).padStart(HOLD_DIGITS, '0');

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
    value: `minor units ending in ${FAIL_ENDING}`,
    when: `A transfer amount whose minor units end in ${FAIL_ENDING}`,
    example: '--amount 1.13 (USD), 113 (JPY)',
    effect: 'the transfer fails when it settles (failure_reason "destination_rejected") and the money returns to the source',
    events: ['transfer.failed'],
    commands: ['transfers send'],
  },
  {
    input: 'transfer amount',
    value: `minor units ending in ${HOLD_TEXT}`,
    when: `A transfer amount whose minor units end in ${HOLD_TEXT}`,
    example: '--amount 100.14 (USD), 10014 (JPY)',
    effect: `the transfer is held pending for ${HOLD_HOURS} hours (time to cancel it), then completes`,
    events: ['transfer.cancelled (when cancelled)', 'transfer.completed'],
    commands: ['transfers send', 'transfers cancel'],
  },
  {
    input: 'collection amount',
    value: `minor units ending in ${FAIL_ENDING}`,
    when: `A collection amount whose minor units end in ${FAIL_ENDING}`,
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
    `Sandbox simulation values: an amount whose minor units end in \`${FAIL_ENDING}\` (e.g. \`"1.13"\`) fails when it settles, ` +
    `\`failure_reason: "destination_rejected"\`; one ending in \`${HOLD_TEXT}\` (\`"100.14"\`) is held \`pending\` for ${HOLD_HOURS} hours ` +
    '(time to cancel it), then completes.',
  collection:
    `Sandbox simulation value: an amount whose minor units end in \`${FAIL_ENDING}\` (e.g. \`"10.13"\`) fails when it settles, ` +
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
    'Minor units are the amount times 10^(the currency\'s decimals): "1.13" USD is 113, so it ends in 13.\n\n' +
    `${rows.join('\n\n')}\n\n` +
    'Everything else settles normally: transfers complete, collections succeed, KYC is approved, physical\n' +
    "cards activate, each after the review delay (the emulator's --settle-after, 1 s by default).\n" +
    'pay trigger <event-type> uses these values to make each event on purpose (pay trigger --list).\n'
  );
}
