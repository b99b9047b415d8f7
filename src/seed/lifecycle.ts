// What the API lets a seed do to an object it made, once the file's entry changes: update it in
// place (only customers have an update operation), or retire the old one after a replacement
// (close, terminate, disable, remove). Transfers, collections and FX trades are history: nothing
// undoes them. test/unit/seed/lifecycle.test.ts checks this table against the contract (the update's
// fields are written out here so that `pay seed` does not load the contract to list them). Ids read
// from a state file become path segments only through idSegment(): a plain id of the kind.
import { ExitCode, PayError } from '../lib/errors.js';
import { isId, OBJECT_KINDS, type ObjectKind } from '../shared/domain.js';
import { FEATURE_KEYS, type FeatureKey } from '../shared/rules.js';
import type { Kind } from './file.js';

export interface UpdateOp {
  operationId: string;
  path: (id: string) => string;
  /** Top-level body fields the update accepts (each replaced whole). */
  fields: readonly string[];
}

export interface RetireOp {
  operationId: string;
  method: 'POST' | 'DELETE';
  path: (id: string) => string;
  /** The status the old object ends in (also what a replayed, already-retired object shows). */
  status: string;
  /** When the API may refuse, in words for the plan. */
  condition?: string;
}

export const UPDATES: Partial<Record<Kind, UpdateOp>> = {
  customers: {
    operationId: 'updateCustomer',
    path: (id) => `customers/${idSegment('customers', id)}`,
    fields: ['first_name', 'last_name', 'middle_name', 'email', 'phone', 'type', 'gender', 'date_of_birth', 'address'],
  },
};

export const RETIRES: Partial<Record<Kind, RetireOp>> = {
  accounts: {
    operationId: 'closeAccount',
    method: 'POST',
    path: (id) => `accounts/${idSegment('accounts', id)}/close`,
    status: 'closed',
    condition: 'if its balance is zero',
  },
  external_accounts: {
    operationId: 'removeExternalAccount',
    method: 'DELETE',
    path: (id) => `external-accounts/${idSegment('external_accounts', id)}`,
    status: 'removed',
  },
  cards: { operationId: 'terminateCard', method: 'POST', path: (id) => `cards/${idSegment('cards', id)}/terminate`, status: 'terminated' },
  payment_links: {
    operationId: 'disablePaymentLink',
    method: 'POST',
    path: (id) => `payment-links/${idSegment('payment_links', id)}/disable`,
    status: 'disabled',
    condition: 'if still active',
  },
};

/** Money movements and verifications: nothing undoes them. */
const HISTORY: ReadonlySet<Kind> = new Set(['collections', 'transfers', 'fx_trades', 'kyc']);

const NOUN: Record<Kind, string> = {
  customers: 'a customer',
  kyc: 'a KYC verification',
  features: 'a feature activation',
  accounts: 'an account',
  external_accounts: 'an external account',
  collections: 'a collection',
  cards: 'a card',
  wallets: 'a wallet',
  payment_links: 'a payment link',
  transfers: 'a transfer',
  fx_trades: 'an FX trade',
};

export const noun = (kind: Kind): string => NOUN[kind];

/** Why the old object of a replaced entry of this kind stays, when no operation retires it. */
export function whyKept(kind: Kind): string {
  return HISTORY.has(kind) ? `${NOUN[kind]} is history: nothing undoes it` : `the API has no operation that retires ${NOUN[kind]}`;
}

/** What becomes of the old object when an entry of this kind is replaced, in words. */
export function fateOfOld(kind: Kind): string {
  const r = RETIRES[kind];
  if (r) return `${r.status}${r.condition ? ` ${r.condition}` : ''}`;
  return `left behind (${whyKept(kind)})`;
}

/** True for an object that a replacement retired (a replay that returns one must not be adopted). */
export function isRetired(kind: Kind, object: Record<string, unknown>): boolean {
  const r = RETIRES[kind];
  return r !== undefined && object.status === r.status;
}

/**
 * The object each kind makes (its id prefix: OBJECT_KINDS). A feature activation has no id of its
 * own: the seed names it `<customer id>/<feature>`.
 */
const OBJECT_OF: Record<Kind, ObjectKind> = {
  customers: 'customer',
  kyc: 'kyc_verification',
  features: 'customer',
  accounts: 'account',
  external_accounts: 'external_account',
  collections: 'collection',
  cards: 'card',
  wallets: 'wallet',
  payment_links: 'payment_link',
  transfers: 'transfer',
  fx_trades: 'fx_trade',
};
const prefixOf = (kind: Kind): string => OBJECT_KINDS[OBJECT_OF[kind]].prefix;

/** True for a plain id of this kind (nothing to decode, no separator, no dot segment). */
export function isIdOf(kind: Kind, id: unknown): id is string {
  if (kind === 'features') return featureOfId(id) !== undefined;
  return isId(id, prefixOf(kind));
}

/** The seed's name for a feature activation. */
export const featureId = (customerId: string, feature: string): string => `${customerId}/${feature}`;

/** A feature activation's name (`cus_…/cards`) as its customer and feature, when it is exactly one: the customer a plain id, the feature one the service has. */
export function featureOfId(id: unknown): { customer: string; feature: FeatureKey } | undefined {
  if (typeof id !== 'string') return undefined;
  const slash = id.indexOf('/');
  const [customer, feature] = [id.slice(0, slash), id.slice(slash + 1)];
  if (slash < 0 || !isId(customer, OBJECT_KINDS.customer.prefix) || !(FEATURE_KEYS as readonly string[]).includes(feature))
    return undefined;
  return { customer, feature: feature as FeatureKey };
}

/**
 * An id that goes into a path. The ids come from the state file, which is untrusted input: only a
 * plain id of the kind may become a path segment (never `..`, `%2e%2e`, `%2f` or another kind's id).
 */
export function idSegment(kind: Kind, id: unknown): string {
  if (kind === 'features' || !isIdOf(kind, id))
    throw new PayError(
      `refusing to use ${JSON.stringify(String(id)).slice(0, 80)} as ${NOUN[kind]} id (not ${prefixOf(kind)} and 24 letters or digits)`,
      ExitCode.ERROR,
      'seed_state_invalid_id',
    );
  return id;
}
