// What each step of a recipe (recipes.ts) does, as data, for the one runner (run.ts): the object
// it creates, where, and its default body (the --override values go over it); the request it makes
// on an object an earlier step made; the money request of the plan it sends (plan.ts); or, for a
// step of several requests, which of the runner's compound steps it is (KYC and features on the
// steps pay trigger shares with seed, src/seed/steps.ts).
import { asText } from '../../lib/text.js';
import { NETWORKS_BY_ASSET, type RoutedKind } from '../../shared/domain.js';
import { baseCurrency, CUSTOMER_DEFAULTS, otherCurrency, shippingAddressOf } from './check.js';
import { overrideOf, type Overrides } from './override.js';
import type { PlannedRequest } from './plan.js';
import type { ObjectName, Step } from './recipes.js';

type Obj = Record<string, unknown>;

/** What a step's defaults read: the objects the run made so far, and the overrides. */
export interface RunSoFar {
  readonly overrides: Overrides;
  made(name: ObjectName): Obj | undefined;
  idOf(name: ObjectName): string;
}

export type StepDef<S extends Step = Step> =
  /** POST a new object at `path`: its defaults, under the object's --override values. */
  | { create: ObjectName; path: string; defaults: (run: RunSoFar, step: S) => Obj }
  /**
   * A request on the object an earlier step made, at its path and id (`accounts/{id}/close`): an
   * action (POST `verb`, the object as it answers kept), a change (PATCH, its defaults under the
   * --override values of `change`) or a removal (DELETE).
   */
  | { on: ObjectName & RoutedKind; what: string; method: 'POST' | 'PATCH' | 'DELETE'; verb?: string; change?: ObjectName; defaults?: Obj }
  /** The next money request of the plan, sent as planned; `funded`: after the collection that funds it settled. */
  | { planned: PlannedRequest['object']; funded?: boolean }
  /** A step of several requests, done by the runner. */
  | { compound: 'verify' | 'start_kyc' | 'document' | 'feature' | 'payment_link' };

/** The account's currency: the account's own once made, else what the overrides ask of the money objects (USD by default). */
const currencyOf = (run: RunSoFar): string => asText(run.made('account')?.currency ?? baseCurrency(run.overrides));

const act = (on: ObjectName & RoutedKind, what: string, verb: string): StepDef => ({ on, what, method: 'POST', verb });

export const STEPS: { readonly [K in Step['do']]: StepDef<Extract<Step, { do: K }>> } = {
  customer: {
    create: 'customer',
    path: 'customers',
    defaults: () => ({
      ...structuredClone(CUSTOMER_DEFAULTS),
      email: `ada.${Math.random().toString(36).slice(2, 10).padEnd(8, '0')}@example.com`,
    }),
  },
  update_customer: {
    on: 'customer',
    what: 'changing the customer',
    method: 'PATCH',
    change: 'customer_update',
    defaults: { first_name: 'Augusta' },
  },
  verify: { compound: 'verify' },
  start_kyc: { compound: 'start_kyc' },
  document: { compound: 'document' },
  feature: { compound: 'feature' },
  account: {
    create: 'account',
    path: 'accounts',
    defaults: (run) => ({ customer_id: run.idOf('customer'), currency: baseCurrency(run.overrides), nickname: 'pay trigger' }),
  },
  target_account: {
    create: 'target_account',
    path: 'accounts',
    defaults: (run) => ({
      customer_id: run.idOf('customer'),
      currency: otherCurrency(currencyOf(run)),
      nickname: 'pay trigger (FX target)',
    }),
  },
  external_account: {
    create: 'external_account',
    path: 'external-accounts',
    defaults: (run) => {
      const c = run.made('customer') ?? {};
      return {
        customer_id: run.idOf('customer'),
        account_holder_name: `${asText(c.first_name ?? 'Ada')} ${asText(c.last_name ?? 'Lovelace')}`.slice(0, 100),
        bank_name: 'Sandbox Bank',
        account_number: '31926819',
        iban: 'GB29NWBK60161331926819',
        country: 'GB',
        currency: currencyOf(run),
      };
    },
  },
  transfer: { planned: 'transfer', funded: true },
  collection: { planned: 'collection' },
  card: {
    create: 'card',
    path: 'cards',
    defaults: (run, step) => ({
      customer_id: run.idOf('customer'),
      account_id: run.idOf('account'),
      type: step.type,
      name_on_card: 'ADA LOVELACE',
      ...(step.type === 'physical' ? { shipping_address: shippingAddressOf(run.made('customer')?.address) } : {}),
    }),
  },
  wallet: {
    create: 'wallet',
    path: 'wallets',
    defaults: (run) => {
      const asset = asText(overrideOf(run.overrides, 'wallet', 'asset') ?? 'USDC');
      const network = (NETWORKS_BY_ASSET as Readonly<Record<string, readonly string[]>>)[asset]?.[0] ?? 'ethereum';
      return { customer_id: run.idOf('customer'), asset, network, label: 'pay trigger' };
    },
  },
  payment_link: { compound: 'payment_link' },
  fx_quote: { planned: 'fx_quote' },
  fx_trade: { planned: 'fx_trade', funded: true },
  close_account: act('account', 'closing the account', 'close'),
  remove_external_account: { on: 'external_account', what: 'removing the external account', method: 'DELETE' },
  cancel_transfer: act('transfer', 'cancelling the transfer', 'cancel'),
  freeze_card: act('card', 'freezing the card', 'freeze'),
  unfreeze_card: act('card', 'unfreezing the card', 'unfreeze'),
  terminate_card: act('card', 'terminating the card', 'terminate'),
  disable_payment_link: act('payment_link', 'disabling the payment link', 'disable'),
};
