// Operations of customers, KYC (current and deprecated) and features.
import { EMAIL_PATTERN, FREE_TEXT_PATTERN } from '../../shared/patterns.js';
import {
  CUSTOMER_CREATE_EXAMPLE,
  CUSTOMER_EXAMPLE,
  CUSTOMER_UPDATE_EXAMPLE,
  FEATURE_EXAMPLE,
  FEATURE_STATUS_EXAMPLE,
  KYC_DOCUMENT_CREATE_EXAMPLE,
  KYC_DOCUMENT_EXAMPLE,
  KYC_IN_REVIEW_EXAMPLE,
  KYC_VERIFICATION_CREATE_EXAMPLE,
  KYC_VERIFICATION_EXAMPLE,
  LEGACY_KYC_DOCUMENT_CREATE_EXAMPLE,
  LEGACY_KYC_VERIFY_EXAMPLE,
  page,
} from './examples.js';
import { CONTRACT_NOTES } from '../../shared/simulation.js';
import { listAndGet, type OpSpec } from './operations.js';
import { queryParam } from './parameters.js';
import { featuresGating } from './rules.js';
import { CUSTOMER_TYPES } from './schemas-customers.js';

/** The path parameters of `/customers/{customer_id}/features/{feature}`. */
const FEATURE_OF_CUSTOMER = ['CustomerId', 'Feature'] as const;

const KYC_STATES =
  'States: `pending` (started) → `in_review` (first document) → `approved` | `rejected` (settles after the review delay). ' +
  CONTRACT_NOTES.kyc;
const LEGACY = 'Deprecated: responses carry `Deprecation` and `Link: <successor>; rel="successor-version"`.';

export const customerPaths: Array<readonly [string, OpSpec]> = [
  [
    '/customers',
    {
      id: 'createCustomer',
      tag: 'customers',
      kind: 'create',
      summary: 'Create a customer',
      description:
        "Creates a customer profile from the seed spec's fields. Required: first_name, last_name, email, phone, type, date_of_birth, " +
        'address (address_line1, city, country, postal_code). Rules: phone `+` then 8-15 digits; date_of_birth a real date, not in the future; ' +
        'country ISO 3166-1 alpha-2; state ISO 3166-2 whose country part equals country. Unknown fields → 422. Emits `customer.created`.',
      body: 'CustomerCreate',
      result: 'Customer',
      requestExample: CUSTOMER_CREATE_EXAMPLE,
      responseExample: CUSTOMER_EXAMPLE,
    },
  ],
  ...listAndGet({
    path: 'customers',
    tag: 'customers',
    schema: 'Customer',
    noun: 'customer',
    plural: 'customers',
    param: 'CustomerId',
    listId: 'listCustomers',
    getId: 'getCustomer',
    example: CUSTOMER_EXAMPLE,
    filters: [
      queryParam('email', 'Only the customer with this e-mail address (any case).', {
        type: 'string',
        maxLength: 254,
        pattern: EMAIL_PATTERN,
      }),
      queryParam('type', `Only customers of this type (known: ${CUSTOMER_TYPES.join(', ')}).`, {
        type: 'string',
        minLength: 1,
        maxLength: 50,
        pattern: FREE_TEXT_PATTERN,
      }),
    ],
  }),
  [
    '/customers/{customer_id}',
    {
      id: 'updateCustomer',
      tag: 'customers',
      kind: 'update',
      summary: 'Update a customer',
      description:
        'Changes any subset of the create fields (at least one); `address` is replaced whole. Same rules as create. Emits `customer.updated`.',
      body: 'CustomerUpdate',
      result: 'Customer',
      pathParams: ['CustomerId'],
      requestExample: CUSTOMER_UPDATE_EXAMPLE,
      responseExample: { ...CUSTOMER_EXAMPLE, ...CUSTOMER_UPDATE_EXAMPLE, updated_at: '2026-01-15T09:31:00.000Z' },
    },
  ],
  [
    '/customers/{customer_id}/kyc',
    {
      id: 'startKycVerification',
      tag: 'kyc',
      kind: 'create',
      summary: 'Start a KYC verification',
      description: `Starts a verification for the customer. One already \`pending\` or \`in_review\` → 409 \`invalid_state\`; after \`rejected\` a new one may start. ${KYC_STATES}`,
      body: 'KycVerificationCreate',
      result: 'KycVerification',
      pathParams: ['CustomerId'],
      requestExample: KYC_VERIFICATION_CREATE_EXAMPLE,
      responseExample: KYC_VERIFICATION_EXAMPLE,
    },
  ],
  [
    '/customers/{customer_id}/kyc/documents',
    {
      id: 'submitKycDocument',
      tag: 'kyc',
      kind: 'create',
      summary: 'Submit a KYC document',
      description: `Adds a document to the customer's current verification (none in progress → 409 \`invalid_state\`); the first one moves it to \`in_review\`. ${KYC_STATES}`,
      body: 'KycDocumentCreate',
      result: 'KycDocument',
      pathParams: ['CustomerId'],
      requestExample: KYC_DOCUMENT_CREATE_EXAMPLE,
      responseExample: KYC_DOCUMENT_EXAMPLE,
    },
  ],
  [
    '/customers/{customer_id}/kyc',
    {
      id: 'getKycVerification',
      tag: 'kyc',
      kind: 'get',
      summary: 'Get the current KYC verification',
      description: `The customer's latest verification, with its documents; 404 when none was started. ${KYC_STATES}`,
      result: 'KycVerification',
      pathParams: ['CustomerId'],
      responseExample: KYC_IN_REVIEW_EXAMPLE,
    },
  ],
  [
    '/kyc/verify',
    {
      id: 'legacyKycVerify',
      tag: 'kyc-legacy',
      kind: 'create',
      deprecated: true,
      summary: 'Start a KYC verification (deprecated)',
      description: `Old shape of \`startKycVerification\` (the customer is in the body); same data and rules. ${LEGACY}`,
      body: 'LegacyKycVerify',
      result: 'KycVerification',
      errors: [404],
      requestExample: LEGACY_KYC_VERIFY_EXAMPLE,
      responseExample: { ...KYC_VERIFICATION_EXAMPLE, level: 'enhanced' },
    },
  ],
  [
    '/kyc/documents',
    {
      id: 'legacyKycSubmitDocument',
      tag: 'kyc-legacy',
      kind: 'create',
      deprecated: true,
      summary: 'Submit a KYC document (deprecated)',
      description: `Old shape of \`submitKycDocument\` (the customer is in the body); same data and rules. ${LEGACY}`,
      body: 'LegacyKycDocumentCreate',
      result: 'KycDocument',
      errors: [404],
      requestExample: LEGACY_KYC_DOCUMENT_CREATE_EXAMPLE,
      responseExample: KYC_DOCUMENT_EXAMPLE,
    },
  ],
  [
    '/kyc/status/{customer_id}',
    {
      id: 'legacyKycStatus',
      tag: 'kyc-legacy',
      kind: 'get',
      deprecated: true,
      summary: 'Get KYC status (deprecated)',
      description: `Old path of \`getKycVerification\`; same data. ${LEGACY}`,
      result: 'KycVerification',
      pathParams: ['CustomerId'],
      responseExample: KYC_IN_REVIEW_EXAMPLE,
    },
  ],
  [
    '/features',
    {
      id: 'listFeatures',
      tag: 'features',
      kind: 'list',
      summary: 'List features',
      description: `The product features customers can activate, and what each gates: ${featuresGating()}.`,
      result: 'FeatureList',
      responseExample: page(FEATURE_EXAMPLE),
    },
  ],
  [
    '/customers/{customer_id}/features/{feature}',
    {
      id: 'getCustomerFeature',
      tag: 'features',
      kind: 'get',
      summary: "Check a customer's feature eligibility",
      description:
        'Whether the customer is eligible (features with `requires_kyc` need `kyc_status = approved`, the others a `kyc_status` that is not `rejected`), and whether the feature is active. The routes a feature gates act exactly when it is eligible and active: the same business rules (DESIGN.md).',
      result: 'FeatureStatus',
      pathParams: FEATURE_OF_CUSTOMER,
      responseExample: FEATURE_STATUS_EXAMPLE,
    },
  ],
  [
    '/customers/{customer_id}/features/{feature}/activate',
    {
      id: 'activateCustomerFeature',
      tag: 'features',
      kind: 'action',
      summary: 'Activate a feature for a customer',
      description:
        'Activates the feature (no body); returns the FeatureStatus with `active: true` (unchanged when already active). ' +
        'Not eligible → 422 `feature_not_eligible` (the problem names `customer_id`, `kyc_status` and `feature`). Emits `feature.activated`. A feature stays active; a customer whose KYC is later rejected is refused by the routes it gates all the same.',
      result: 'FeatureStatus',
      pathParams: FEATURE_OF_CUSTOMER,
      responseExample: { ...FEATURE_STATUS_EXAMPLE, active: true, activated_at: '2026-01-15T09:30:00.000Z' },
    },
  ],
];
