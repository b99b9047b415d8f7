// The customer most tests create, once: the flags of `pay customers create` and the body the API
// takes for them. A test that needs another value says only what differs.

/** The flags of `pay customers create` for Ada, in the order of the command's help. */
export const ADA_FLAGS: Readonly<Record<string, string>> = {
  '--first-name': 'Ada',
  '--last-name': 'Lovelace',
  '--email': 'ada@example.com',
  '--phone': '+447700900123',
  '--type': 'individual',
  '--date-of-birth': '1990-12-10',
  '--address-line1': '1 Main St',
  '--city': 'London',
  '--country': 'GB',
  '--postal-code': 'SW1A 1AA',
  '--state': 'GB-LND',
};

/** The body `pay customers create` sends for ADA_FLAGS. */
export const ADA_BODY = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone: '+447700900123',
  type: 'individual',
  date_of_birth: '1990-12-10',
  address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA', state: 'GB-LND' },
} as const;

/**
 * Ada's flags as argv, with `changes` applied: a value replaces the flag's (or adds the flag at the
 * end), undefined leaves the flag out.
 */
export function customerFlags(changes: Record<string, string | undefined> = {}): string[] {
  const flags: Record<string, string | undefined> = { ...ADA_FLAGS, ...changes };
  return Object.entries(flags).flatMap(([flag, value]) => (value === undefined ? [] : [flag, value]));
}

/** ADA_BODY without a state (a subdivision is optional). */
export const ADA_BODY_NO_STATE = {
  ...ADA_BODY,
  address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA' },
} as const;

/** The labels `pay customers create` asks its required fields with, in its order (src/commands/customers/create.ts). */
export const CUSTOMER_REQUIRED_PROMPTS = [
  'First name',
  'Last name',
  'E-mail',
  'Phone',
  'Customer type',
  'Date of birth',
  'Street',
  'City',
  'Country',
  'Postal code',
] as const;
