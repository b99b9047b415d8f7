// `pay trigger --override`: every value checked, before anything is sent (--dry-run too), by the
// rules the verb that creates the object applies to its own flags and --data (src/verbs/values.ts
// `bodyValueProblem`: an amount's precision and size in the object's currency, an ISO 3166-2
// subdivision against its country, enums, e-mail, phone, ids, …). Each object's body is previewed
// as pay trigger will send it, bar the ids the service answers: its defaults (the currency the
// account will have, the customer's country) under its overrides, so a value is checked in the
// context it will be sent in. An override that sets a whole object (customer.address={…}) has each
// of its fields checked.
import type { VerbSpec } from '../../cmdutil/spec.js';
import { getPath } from '../../io/fields.js';
import { UsageError } from '../../lib/errors.js';
import { GROUP_LOADERS, type GroupName } from '../group-index.js';
import { bodyValueProblem, loadTablesFor, printable } from '../../verbs/values.js';
import { applyOverrides, overrideOf, type Overrides } from './override.js';
import type { ObjectName } from './recipes.js';
import { OBJECT_OPERATIONS } from './recipes.js';

type Obj = Record<string, unknown>;

/** The group whose create (or update) verb makes each object. */
const OBJECT_GROUPS: Readonly<Record<ObjectName, GroupName>> = {
  customer: 'customers',
  customer_update: 'customers',
  kyc_verification: 'kyc',
  kyc_document: 'kyc',
  account: 'accounts',
  target_account: 'accounts',
  external_account: 'external-accounts',
  collection: 'collections',
  transfer: 'transfers',
  card: 'cards',
  wallet: 'wallets',
  payment_link: 'payment-links',
  fx_quote: 'fx',
  fx_trade: 'fx',
};

/** The customer pay trigger creates, bar its e-mail's random tag. */
export const CUSTOMER_DEFAULTS: Readonly<Obj> = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  phone: '+447700900123',
  type: 'individual',
  date_of_birth: '1990-12-10',
  address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA' },
};
export const DEFAULT_ADDRESS: Readonly<Obj> = CUSTOMER_DEFAULTS.address as Obj;

/** The account's currency before it exists: what the overrides ask of the money objects, else USD. */
export function baseCurrency(overrides: Overrides): string {
  for (const [object, field] of [
    ['account', 'currency'],
    ['transfer', 'currency'],
    ['collection', 'currency'],
    ['external_account', 'currency'],
    ['fx_quote', 'source_currency'],
  ] as const) {
    const v = overrideOf(overrides, object, field);
    if (typeof v === 'string') return v;
  }
  return 'USD';
}

/** The FX target account's currency by default: another one than the base. */
export const otherCurrency = (base: string): string => (base === 'EUR' ? 'USD' : 'EUR');

/** A card's shipping address: the customer's, when it is whole, else the default. */
export function shippingAddressOf(address: unknown): Obj {
  const a = (address && typeof address === 'object' ? address : {}) as Obj;
  const out: Obj = {};
  for (const k of ['address_line1', 'city', 'country', 'postal_code', 'state']) if (typeof a[k] === 'string') out[k] = a[k];
  return Object.keys(out).length >= 4 ? out : { ...DEFAULT_ADDRESS };
}

/** The body of each object as it will be sent, bar the ids: the context its overrides are checked in. */
function preview(name: ObjectName, overrides: Overrides): Obj {
  const base = baseCurrency(overrides);
  const customer = () => applyOverrides(structuredClone({ ...CUSTOMER_DEFAULTS }), overrides.get('customer'));
  const accountCurrency = () => applyOverrides({ currency: base }, overrides.get('account')).currency;
  const defaults = (): Obj => {
    switch (name) {
      case 'customer':
        return customer();
      case 'customer_update':
        return { first_name: 'Augusta' };
      case 'kyc_verification':
        return { level: 'basic' };
      case 'kyc_document': {
        const country = (customer().address as Obj | undefined)?.country;
        return { type: 'passport', country: typeof country === 'string' ? country : 'GB', number: '123456789' };
      }
      case 'account':
        return { currency: base, nickname: 'pay trigger' };
      case 'target_account':
        return { currency: otherCurrency(String(accountCurrency())), nickname: 'pay trigger (FX target)' };
      case 'external_account':
      case 'collection':
      case 'transfer':
        return { currency: accountCurrency() };
      case 'card':
        return { shipping_address: shippingAddressOf(customer().address) };
      case 'wallet':
        return { asset: 'USDC' };
      case 'payment_link':
        return { asset: overrideOf(overrides, 'wallet', 'asset') ?? 'USDC' };
      case 'fx_quote': {
        const target = applyOverrides({ currency: otherCurrency(String(accountCurrency())) }, overrides.get('target_account')).currency;
        return { source_currency: accountCurrency(), target_currency: target };
      }
      case 'fx_trade':
        return {};
    }
  };
  return name === 'customer' ? defaults() : applyOverrides(defaults(), overrides.get(name));
}

/** The verb that creates (or changes) an object, by its group and the contract operation. */
async function verbOf(name: ObjectName): Promise<VerbSpec | undefined> {
  const group = await GROUP_LOADERS[OBJECT_GROUPS[name]]();
  return group.verbs.find((v) => v.operationId === OBJECT_OPERATIONS[name]);
}

/** Exit 2 naming the first override whose value (or a field inside it) the verb's own checks refuse. */
export async function checkOverrides(overrides: Overrides): Promise<void> {
  for (const [name, list] of overrides) {
    const verb = await verbOf(name);
    if (!verb) continue;
    await loadTablesFor(verb);
    const body = preview(name, overrides);
    for (const o of list) {
      const path = o.path.join('.');
      for (const flag of verb.flags ?? []) {
        if (!flag.field || (flag.field !== path && !flag.field.startsWith(`${path}.`))) continue;
        const value = getPath(body, flag.field);
        if (value === undefined || (value === null && verb.kind === 'update')) continue;
        const problem = bodyValueProblem(flag, value, body);
        if (!problem) continue;
        // As the verb's flag says it: the value quoted before what is wrong with it (an amount's problem quotes it).
        const quoted = typeof value === 'string' && problem.startsWith(' ') ? ` "${printable(value)}"` : '';
        throw new UsageError(`--override ${name}.${flag.field}${quoted}${problem}`);
      }
    }
  }
}
