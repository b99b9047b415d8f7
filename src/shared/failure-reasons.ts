// What each `failure_reason` a transfer or collection can fail with means, in a few words: the one
// table that tables and get views (the FAILURE column and `failure_reason` field: a column's
// `meaning`), `pay help simulate` and the contract's description of the field all read. The
// emulator's values (src/emulator/resources/transfers.ts, collections.ts, rules.ts
// failureOnSettle) are these codes; test/unit/failure-reasons.test.ts checks it. Imports nothing.

export interface FailureReason {
  code: string;
  /** A few words for a table cell and a get view: what happened. */
  meaning: string;
  /** When it happens, for the help and the contract (one sentence, no Markdown). */
  when: string;
  /** The objects that can fail with it. */
  objects: readonly ('transfer' | 'collection')[];
}

export const FAILURE_REASONS: readonly FailureReason[] = [
  {
    code: 'destination_rejected',
    meaning: 'receiving bank refused it',
    when: 'the destination refused the money as it settled; the amount went back to the source account (Sandbox: an amount whose minor units end in 13)',
    objects: ['transfer'],
  },
  {
    code: 'payment_declined',
    meaning: "payer's bank declined it",
    when: "the payer's bank declined the payment as it settled; nothing was credited (Sandbox: an amount whose minor units end in 13)",
    objects: ['collection'],
  },
  {
    code: 'kyc_rejected',
    meaning: 'a holder failed KYC',
    when: "a holder's KYC was rejected while it was pending or held: the business rules are checked again as it settles; the money went back",
    objects: ['transfer', 'collection'],
  },
  {
    code: 'feature_not_active',
    meaning: 'feature turned off meanwhile',
    when: 'a feature it needs was deactivated for the customer while it was pending or held; the money went back',
    objects: ['transfer', 'collection'],
  },
];

const BY_CODE = new Map(FAILURE_REASONS.map((r) => [r.code, r]));

/** The few words a failure_reason means, or undefined for a code this table does not know (shown as it is). */
export function failureMeaning(code: unknown): string | undefined {
  return typeof code === 'string' ? BY_CODE.get(code)?.meaning : undefined;
}

/** The contract's description of an object's failure_reason (Markdown): every code it can carry and when. */
export function failureReasonDescription(object: 'transfer' | 'collection'): string {
  const codes = FAILURE_REASONS.filter((r) => r.objects.includes(object));
  return `Why it failed, null unless it did: ${codes.map((r) => `\`${r.code}\` (${r.meaning}: ${r.when})`).join('; ')}. A code not listed may be added; show it as it is.`;
}

/** `pay help simulate`'s failure reasons: the code and its meaning, then when it happens (the help wraps them to the terminal). */
export function failureReasonLines(): string[] {
  return FAILURE_REASONS.map((r) => `  ${r.code}: ${r.meaning} (${r.objects.join('s, ')}s)\n    ${r.when}`);
}
