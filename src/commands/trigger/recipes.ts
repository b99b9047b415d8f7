// What `pay trigger` creates for each event type, as data: the steps (steps.ts says what each one
// sends, run.ts runs them, through the API only), the object whose events say it happened, and the events that would mean the
// steps took the other path (an --override changed the outcome). Fresh objects every time:
// nothing of the account's existing data is used or changed.
import { EVENT_TYPES } from '../../shared/events.js';
import { FAIL_ENDING, HOLD_DIGITS, HOLD_ENDING, REJECT_DOCUMENT_SUFFIX } from '../../shared/simulation.js';
import type { FeatureKey } from '../../shared/rules.js';

export type EventType = (typeof EVENT_TYPES)[number];

/** What --override may name: the objects pay trigger creates (or changes), each through one operation. */
export const OBJECT_OPERATIONS = {
  customer: 'createCustomer',
  customer_update: 'updateCustomer',
  kyc_verification: 'startKycVerification',
  kyc_document: 'submitKycDocument',
  account: 'createAccount',
  target_account: 'createAccount',
  external_account: 'createExternalAccount',
  collection: 'createCollection',
  transfer: 'createTransfer',
  card: 'createCard',
  wallet: 'createWallet',
  payment_link: 'createPaymentLink',
  fx_quote: 'createFxQuote',
  fx_trade: 'createFxTrade',
} as const;
export type ObjectName = keyof typeof OBJECT_OPERATIONS;

export type Step =
  /** A customer (POST /customers). */
  | { do: 'customer' }
  /** PATCH /customers/{id}. */
  | { do: 'update_customer' }
  /** KYC approved: a verification, a document, and the decision waited for. */
  | { do: 'verify' }
  /** A KYC verification started (left pending). */
  | { do: 'start_kyc' }
  /** A document submitted to it; `rejected` uses the rejecting simulation value. No wait. */
  | { do: 'document'; rejected?: boolean }
  /** The feature active: activated, after KYC approval when the service says it is needed. */
  | { do: 'feature'; key: FeatureKey }
  | { do: 'account' }
  /** A second account in another currency (FX). */
  | { do: 'target_account' }
  | { do: 'external_account' }
  /** The account funded by a collection that settled, then a transfer to the external account. */
  | { do: 'transfer'; outcome: 'completes' | 'fails' | 'held' }
  | { do: 'collection'; outcome: 'succeeds' | 'fails' }
  | { do: 'card'; type: 'virtual' | 'physical' }
  | { do: 'wallet' }
  /** `expiring`: expires_at a few seconds ahead (of the service's clock). */
  | { do: 'payment_link'; expiring?: boolean }
  | { do: 'fx_quote' }
  /** The account funded with the quote's source amount (a collection that settled), then the trade. */
  | { do: 'fx_trade' }
  /** An action on what an earlier step created. */
  | { do: 'close_account' | 'remove_external_account' | 'cancel_transfer' | 'freeze_card' | 'unfreeze_card' | 'terminate_card' }
  | { do: 'disable_payment_link' };

export interface Recipe {
  /**
   * One line for --list: what it creates. An object --override names otherwise than its API type
   * (a second account, `target_account`; a change, `customer_update`) is named as --override names it.
   */
  creates: string;
  steps: readonly Step[];
  /** The object whose events are polled (`GET /webhooks/events?object_id=`); a customer's feature events are its own. */
  subject: ObjectName;
  /** Events about the subject that mean the other outcome happened. */
  rivals?: readonly EventType[];
}

/** The objects each step creates (what --override may name for it); an action on an earlier one, or a feature, none. */
const STEP_OBJECTS: { readonly [K in Step['do']]: readonly ObjectName[] } = {
  customer: ['customer'],
  update_customer: ['customer_update'],
  verify: ['kyc_verification', 'kyc_document'],
  start_kyc: ['kyc_verification'],
  document: ['kyc_document'],
  feature: [],
  account: ['account'],
  target_account: ['target_account'],
  external_account: ['external_account'],
  transfer: ['collection', 'transfer'],
  collection: ['collection'],
  card: ['card'],
  wallet: ['wallet'],
  payment_link: ['payment_link'],
  fx_quote: ['fx_quote'],
  fx_trade: ['collection', 'fx_trade'],
  close_account: [],
  remove_external_account: [],
  cancel_transfer: [],
  freeze_card: [],
  unfreeze_card: [],
  terminate_card: [],
  disable_payment_link: [],
};

/** The objects a step creates (what --override may name for it). */
export function stepObjects(step: Step): ObjectName[] {
  return [...STEP_OBJECTS[step.do]];
}

/** The objects a recipe may create, in order (a feature's KYC approval, done only when needed, included). */
export function recipeObjects(recipe: Recipe): ObjectName[] {
  const out: ObjectName[] = [];
  for (const step of recipe.steps) {
    const names = step.do === 'feature' ? stepObjects({ do: 'verify' }) : stepObjects(step);
    for (const n of names) if (!out.includes(n)) out.push(n);
  }
  return out;
}

const CUSTOMER: Step = { do: 'customer' };
const VERIFIED: readonly Step[] = [CUSTOMER, { do: 'verify' }];
const ACCOUNT: readonly Step[] = [...VERIFIED, { do: 'account' }];
/**
 * A payout: the default customer (GB) paying a GB external account is a payout at home, which the
 * rules (src/shared/rules.ts transfers.payout) let through on KYC alone. international_transfers is
 * activated too, and said so in --list (PAYING), so that an --override sending the payout abroad
 * (customer.address.country, external_account.country) still makes the event.
 */
const PAYOUT: readonly Step[] = [
  ...VERIFIED,
  { do: 'feature', key: 'international_transfers' },
  { do: 'account' },
  { do: 'external_account' },
];
const CARD: readonly Step[] = [...VERIFIED, { do: 'feature', key: 'cards' }, { do: 'account' }, { do: 'card', type: 'virtual' }];
const COLLECTING: readonly Step[] = [...VERIFIED, { do: 'feature', key: 'collections' }, { do: 'account' }];
const WALLET: readonly Step[] = [...VERIFIED, { do: 'feature', key: 'crypto_wallets' }, { do: 'wallet' }];
const LINKING: readonly Step[] = [
  ...VERIFIED,
  { do: 'feature', key: 'crypto_wallets' },
  { do: 'feature', key: 'payment_links' },
  { do: 'wallet' },
];

/**
 * The transfer and collection amounts pay trigger sends, in minor units (USD: 2500 is 25.00): an
 * ordinary one, one with the failing simulation value, one with the holding one (its four-digit
 * ending: 10014 is 100.14). --list says them from here; run.ts sends them (the trigger unit test
 * checks what --list says against what a run sends).
 */
export const TRIGGER_AMOUNTS = { ordinary: 2500, fails: 2500 + FAIL_ENDING, held: 10 ** HOLD_DIGITS + HOLD_ENDING } as const;
/** A USD amount as --list writes it (2513 → 25.13), in whole numbers only. */
const usd = (minor: number): string => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
const ORDINARY = usd(TRIGGER_AMOUNTS.ordinary);

const V = 'a customer with approved KYC';
const PAYING = `${V} and international_transfers active (for an --override that sends the payout abroad)`;
const FUNDED = 'a USD account funded by a collection that settled';

export const RECIPES: Readonly<Record<EventType, Recipe>> = {
  'customer.created': { creates: 'a customer', steps: [CUSTOMER], subject: 'customer' },
  'customer.updated': {
    creates: 'a customer, then changes its first name (customer_update)',
    steps: [CUSTOMER, { do: 'update_customer' }],
    subject: 'customer',
  },
  'kyc.pending': { creates: 'a customer and a KYC verification', steps: [CUSTOMER, { do: 'start_kyc' }], subject: 'kyc_verification' },
  'kyc.in_review': {
    creates: 'a customer, a KYC verification and a document',
    steps: [CUSTOMER, { do: 'start_kyc' }, { do: 'document' }],
    subject: 'kyc_verification',
  },
  'kyc.approved': {
    creates: 'a customer, a KYC verification and a document; waits for the review',
    steps: [CUSTOMER, { do: 'start_kyc' }, { do: 'document' }],
    subject: 'kyc_verification',
    rivals: ['kyc.rejected'],
  },
  'kyc.rejected': {
    creates: `a customer, a KYC verification and a document numbered …${REJECT_DOCUMENT_SUFFIX} (rejected); waits for the review`,
    steps: [CUSTOMER, { do: 'start_kyc' }, { do: 'document', rejected: true }],
    subject: 'kyc_verification',
    rivals: ['kyc.approved'],
  },
  'feature.activated': {
    creates: 'a customer, and activates its fx feature (after KYC if the service asks for it)',
    steps: [CUSTOMER, { do: 'feature', key: 'fx' }],
    subject: 'customer',
  },
  'account.created': { creates: `${V} and a USD account`, steps: ACCOUNT, subject: 'account' },
  'account.closed': { creates: `${V} and a USD account, then closes it`, steps: [...ACCOUNT, { do: 'close_account' }], subject: 'account' },
  'external_account.created': {
    creates: `${V} and an external bank account`,
    steps: [...VERIFIED, { do: 'external_account' }],
    subject: 'external_account',
  },
  'external_account.removed': {
    creates: `${V} and an external bank account, then removes it`,
    steps: [...VERIFIED, { do: 'external_account' }, { do: 'remove_external_account' }],
    subject: 'external_account',
  },
  'transfer.created': {
    creates: `${PAYING}, ${FUNDED}, an external account and a transfer of ${ORDINARY} to it`,
    steps: [...PAYOUT, { do: 'transfer', outcome: 'completes' }],
    subject: 'transfer',
  },
  'transfer.completed': {
    creates: `${PAYING}, ${FUNDED}, an external account and a transfer of ${ORDINARY} to it; waits for it to settle`,
    steps: [...PAYOUT, { do: 'transfer', outcome: 'completes' }],
    subject: 'transfer',
    rivals: ['transfer.failed', 'transfer.cancelled'],
  },
  'transfer.failed': {
    creates: `${PAYING}, ${FUNDED}, an external account and a transfer of ${usd(TRIGGER_AMOUNTS.fails)} (fails: destination_rejected)`,
    steps: [...PAYOUT, { do: 'transfer', outcome: 'fails' }],
    subject: 'transfer',
    rivals: ['transfer.completed', 'transfer.cancelled'],
  },
  'transfer.cancelled': {
    creates: `${PAYING}, ${FUNDED}, an external account and a transfer of ${usd(TRIGGER_AMOUNTS.held)} (held pending), then cancels it`,
    steps: [...PAYOUT, { do: 'transfer', outcome: 'held' }, { do: 'cancel_transfer' }],
    subject: 'transfer',
  },
  'card.created': { creates: `${V}, a USD account and a virtual card`, steps: CARD, subject: 'card' },
  'card.activated': {
    creates: `${V}, a USD account and a physical card shipped to the customer; waits for its activation`,
    steps: [...CARD.slice(0, -1), { do: 'card', type: 'physical' }],
    subject: 'card',
    rivals: ['card.terminated'],
  },
  'card.frozen': {
    creates: `${V}, a USD account and a virtual card, then freezes it`,
    steps: [...CARD, { do: 'freeze_card' }],
    subject: 'card',
  },
  'card.unfrozen': {
    creates: `${V}, a USD account and a virtual card, then freezes and unfreezes it`,
    steps: [...CARD, { do: 'freeze_card' }, { do: 'unfreeze_card' }],
    subject: 'card',
  },
  'card.terminated': {
    creates: `${V}, a USD account and a virtual card, then terminates it`,
    steps: [...CARD, { do: 'terminate_card' }],
    subject: 'card',
  },
  'collection.created': {
    creates: `${V}, a USD account and a collection of ${ORDINARY} into it`,
    steps: [...COLLECTING, { do: 'collection', outcome: 'succeeds' }],
    subject: 'collection',
  },
  'collection.succeeded': {
    creates: `${V}, a USD account and a collection of ${ORDINARY} into it; waits for it to settle`,
    steps: [...COLLECTING, { do: 'collection', outcome: 'succeeds' }],
    subject: 'collection',
    rivals: ['collection.failed'],
  },
  'collection.failed': {
    creates: `${V}, a USD account and a collection of ${usd(TRIGGER_AMOUNTS.fails)} (fails: payment_declined)`,
    steps: [...COLLECTING, { do: 'collection', outcome: 'fails' }],
    subject: 'collection',
    rivals: ['collection.succeeded'],
  },
  'payment_link.created': {
    creates: `${V}, a USDC wallet and a payment link for 25.00 USDC`,
    steps: [...LINKING, { do: 'payment_link' }],
    subject: 'payment_link',
  },
  'payment_link.disabled': {
    creates: `${V}, a USDC wallet and a payment link, then disables it`,
    steps: [...LINKING, { do: 'payment_link' }, { do: 'disable_payment_link' }],
    subject: 'payment_link',
  },
  'payment_link.expired': {
    creates: `${V}, a USDC wallet and a payment link expiring 3 s later; waits for it to expire`,
    steps: [...LINKING, { do: 'payment_link', expiring: true }],
    subject: 'payment_link',
  },
  'wallet.created': { creates: `${V} and a USDC wallet (on ethereum)`, steps: WALLET, subject: 'wallet' },
  'fx_trade.completed': {
    creates: `${V}, a USD account and a EUR one (target_account), a quote for 10.00 USD, the USD account funded by a settled collection, and the trade`,
    steps: [...VERIFIED, { do: 'feature', key: 'fx' }, { do: 'account' }, { do: 'target_account' }, { do: 'fx_quote' }, { do: 'fx_trade' }],
    subject: 'fx_trade',
  },
};
