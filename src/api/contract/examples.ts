// Example bodies used in the document (and by tests): the seed's customer and what the API returns.
import { exampleId } from './common.js';

/** A `POST /customers` body with every seed field. */
export const CUSTOMER_CREATE_EXAMPLE = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  middle_name: 'King',
  email: 'ada@example.com',
  phone: '+447700900123',
  type: 'individual',
  gender: 'female',
  date_of_birth: '1990-12-10',
  address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA', state: 'GB-LND' },
} as const;

const STAMP = '2026-01-15T09:30:00.000Z';

export const CUSTOMER_EXAMPLE = {
  id: exampleId('cus_'),
  object: 'customer',
  livemode: false,
  created_at: STAMP,
  updated_at: STAMP,
  ...CUSTOMER_CREATE_EXAMPLE,
  kyc_status: 'not_started',
} as const;

export const ACCOUNT_EXAMPLE = {
  id: exampleId('acc_'),
  object: 'account',
  livemode: false,
  created_at: STAMP,
  updated_at: STAMP,
  customer_id: exampleId('cus_'),
  currency: 'USD',
  type: 'checking',
  nickname: null,
  status: 'active',
  account_number: '0123456789',
  balance: { available: '125.00', pending: '0.00', currency: 'USD' },
} as const;

export const ACCOUNT_LIST_EXAMPLE = { object: 'list', data: [ACCOUNT_EXAMPLE], has_more: false, next_cursor: null } as const;
