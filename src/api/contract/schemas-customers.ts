// Customers (the seed-fixed body), KYC (current and deprecated) and features.
import { KYC_DOCUMENT_STATUSES, KYC_DOCUMENT_TYPES, KYC_LEVELS, KYC_STATUSES, KYC_VERIFICATION_STATUSES } from '../../shared/enums.js';
import { enumOf, idOf, listOf, nullable, requestBody, resource, schemaRef, text, timestamp, view } from './common.js';
import { FEATURE_KEYS } from './parameters.js';
import { PHONE_PATTERN } from './schemas-shared.js';
import type { Schema } from './types.js';
import { DATE_PATTERN, EMAIL_PATTERN, FREE_TEXT_PATTERN, TRIMMED_TEXT_PATTERN } from '../../shared/patterns.js';
import { CONTRACT_NOTES } from '../../shared/simulation.js';

import { CUSTOMER_TYPES, GENDERS } from '../../shared/domain.js';

export { CUSTOMER_TYPES, GENDERS };
export { KYC_DOCUMENT_TYPES, KYC_LEVELS, KYC_STATUSES };

/** The seed spec's customer fields, exactly. */
const customerFields: Record<string, Schema> = {
  first_name: text('Given name.'),
  last_name: text('Family name.'),
  middle_name: text('Middle name.'),
  email: {
    type: 'string',
    maxLength: 254,
    pattern: EMAIL_PATTERN,
    description: 'E-mail address: a local part, `@`, and a domain of at least two labels (`example.com`; `ada@localhost` is refused).',
    examples: ['ada@example.com'],
  },
  phone: {
    type: 'string',
    pattern: PHONE_PATTERN,
    description: 'Phone in international format: `+` then 8 to 15 digits (E.164).',
    examples: ['+14155550123'],
  },
  type: {
    type: 'string',
    minLength: 1,
    maxLength: 50,
    pattern: TRIMMED_TEXT_PATTERN,
    description: `Customer type. Known values: ${CUSTOMER_TYPES.join(', ')}; other values are accepted, but not one that differs from a known value only in case or by a letter or two (a typo): 422 naming the known value.`,
    examples: [...CUSTOMER_TYPES],
  },
  gender: {
    type: 'string',
    minLength: 1,
    maxLength: 50,
    pattern: TRIMMED_TEXT_PATTERN,
    description: `Gender. Known values: ${GENDERS.join(', ')}; other values are accepted, but not one that differs from a known value only in case or by a letter or two (a typo): 422 naming the known value.`,
    examples: [...GENDERS],
  },
  date_of_birth: {
    type: 'string',
    format: 'date',
    pattern: DATE_PATTERN,
    description: 'Date of birth: a real calendar date `YYYY-MM-DD`, from 1800-01-01 on and not in the future.',
    examples: ['1990-12-10'],
  },
  address: schemaRef('Address'),
};

const CUSTOMER_REQUIRED = ['first_name', 'last_name', 'email', 'phone', 'type', 'date_of_birth', 'address'] as const;

const kycStatus = enumOf(
  KYC_STATUSES,
  'Mirrors the current KYC verification: `not_started` until one is started, then `pending` → `in_review` → `approved` | `rejected`.',
);
const kycDocumentFields: Record<string, Schema> = {
  type: enumOf(KYC_DOCUMENT_TYPES, 'Document type.'),
  country: schemaRef('CountryCode'),
  number: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    pattern: FREE_TEXT_PATTERN,
    description: `Document number. ${CONTRACT_NOTES.kyc}`,
  },
  file_name: text('Name of the uploaded file.', 255),
};
const customerIdField = idOf('cus_', 'The customer.');
const level = enumOf(KYC_LEVELS, 'Verification level.');

export const customerSchemas: Record<string, Schema> = {
  CustomerCreate: requestBody(
    "A new customer: the seed spec's fields exactly. `middle_name`, `gender` and `address.state` are optional. " +
      'Unknown fields → 422 `validation_error`.',
    customerFields,
    CUSTOMER_REQUIRED,
  ),
  CustomerUpdate: requestBody(
    'Any subset of the create fields, at least one. `address` is replaced whole (send all its required fields).',
    customerFields,
    [],
    { minProperties: 1 },
  ),
  Customer: resource({
    object: 'customer',
    prefix: 'cus_',
    description: 'A customer profile.',
    properties: {
      ...customerFields,
      middle_name: nullable(customerFields.middle_name!),
      gender: nullable(customerFields.gender!),
      kyc_status: kycStatus,
    },
    required: [...CUSTOMER_REQUIRED, 'kyc_status'],
  }),
  CustomerList: listOf('Customer', 'customers'),

  KycVerificationCreate: requestBody('Start a KYC verification.', { level }, ['level']),
  KycDocumentCreate: requestBody('Submit a KYC document to the current verification.', kycDocumentFields, ['type', 'country']),
  LegacyKycVerify: requestBody(
    'Deprecated shape of `KycVerificationCreate`: the customer is in the body.',
    { customer_id: customerIdField, level },
    ['customer_id', 'level'],
  ),
  LegacyKycDocumentCreate: requestBody(
    'Deprecated shape of `KycDocumentCreate`: the customer is in the body.',
    { customer_id: customerIdField, ...kycDocumentFields },
    ['customer_id', 'type', 'country'],
  ),
  KycVerification: resource({
    object: 'kyc_verification',
    prefix: 'kyc_',
    description:
      'A KYC verification. States: `pending` (started) → `in_review` (first document received) → `approved` | `rejected` ' +
      `(settles after the review delay). ${CONTRACT_NOTES.kyc} ` +
      "The customer's `kyc_status` mirrors it.",
    properties: {
      customer_id: customerIdField,
      level,
      status: enumOf(KYC_VERIFICATION_STATUSES, 'Verification state.'),
      documents: { type: 'array', items: schemaRef('KycDocument'), description: 'Documents submitted, oldest first.' },
      submitted_at: nullable(timestamp('When the first document was received.')),
      decided_at: nullable(timestamp('When it was approved or rejected.')),
      rejection_reason: nullable({ type: 'string', description: 'Why it was rejected.' }),
    },
    required: ['customer_id', 'level', 'status', 'documents'],
  }),
  KycDocument: resource({
    object: 'kyc_document',
    prefix: 'doc_',
    description: 'A KYC document. The full document number is never returned.',
    properties: {
      verification_id: idOf('kyc_', 'The verification it belongs to.'),
      customer_id: customerIdField,
      type: kycDocumentFields.type!,
      country: schemaRef('CountryCode'),
      number_last4: nullable({ type: 'string', maxLength: 4, description: 'Last 4 characters of the document number, if one was given.' }),
      file_name: nullable(kycDocumentFields.file_name!),
      status: enumOf(KYC_DOCUMENT_STATUSES, 'Review state of this document.'),
    },
    required: ['verification_id', 'customer_id', 'type', 'country', 'number_last4', 'status'],
  }),

  Feature: view(
    'feature',
    'A product feature customers can activate.',
    {
      key: enumOf(FEATURE_KEYS, 'Feature key.'),
      name: text('Display name.'),
      description: { type: 'string', description: 'What the feature does.' },
      requires_kyc: {
        type: 'boolean',
        description:
          "Activating and using it need the customer's `kyc_status` to be `approved`; a feature without it needs only a `kyc_status` that is not `rejected` (the business rules, DESIGN.md).",
      },
    },
    ['key', 'name', 'description', 'requires_kyc'],
  ),
  FeatureList: listOf('Feature', 'features'),
  FeatureStatus: view(
    'feature_status',
    'Whether a customer may use a feature, and whether it is active.',
    {
      customer_id: customerIdField,
      feature: enumOf(FEATURE_KEYS, 'Feature key.'),
      eligible: {
        type: 'boolean',
        description:
          "The customer's KYC state meets the feature's need (approved when `requires_kyc`, else not rejected): the same rule every route it gates applies.",
      },
      active: {
        type: 'boolean',
        description: 'The feature has been activated. The routes it gates act only while it is active and the customer eligible.',
      },
      reasons: { type: 'array', items: { type: 'string' }, description: 'Why the customer is not eligible (empty when eligible).' },
      activated_at: nullable(timestamp('When it was activated.')),
    },
    ['customer_id', 'feature', 'eligible', 'active', 'reasons', 'activated_at'],
  ),
};
