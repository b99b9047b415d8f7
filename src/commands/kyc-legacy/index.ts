// pay kyc-legacy: the same verbs over the deprecated /kyc endpoints, kept for accounts that
// still use them. Every call warns on stderr and names the `pay kyc` equivalent.
import { documentFlags, documentsTable, KYC_WAIT_NOTE, kycColumns, kycWait, levelFlag } from '../kyc/index.js';
import { simulationNote } from '../../shared/simulation.js';
import { type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { OPERATIONS } from './operations.js';
import { KYC_OPEN_STATUSES, KYC_STARTABLE_STATUSES } from '../../shared/enums.js';
import { customerPick } from '../customers/index.js';

const EX_CUS = 'cus_0123456789abcdefghijklmn';

export const kycLegacy: GroupSpec = fromContract(OPERATIONS, {
  name: 'kyc-legacy',
  summary: 'KYC over the deprecated /kyc endpoints',
  deprecated: { use: 'pay kyc' },
  noun: 'KYC verification',
  examples: ['pay kyc-legacy verify cus_0123456789abcdefghijklmn', 'pay kyc-legacy status cus_0123456789abcdefghijklmn --json'],
  columns: kycColumns,
  verbs: [
    {
      name: 'verify',
      arg: {
        name: '<customer-id>',
        description: 'customer id (cus_…), sent as customer_id',
        idPrefix: 'cus_',
        field: 'customer_id',
        pick: customerPick('customers without an open verification', { kyc_status: KYC_STARTABLE_STATUSES }),
      },
      summary: 'Start a KYC verification (POST /kyc/verify)',
      description: `${KYC_WAIT_NOTE}: submit one meanwhile (pay kyc-legacy submit-document, from another shell or script).`,
      examples: [`pay kyc-legacy verify ${EX_CUS}`, `pay kyc-legacy verify ${EX_CUS} --level enhanced --json`],
      operationId: 'legacyKycVerify',
      deprecated: { use: 'pay kyc verify' },
      flags: [levelFlag],
      tables: documentsTable,
      jsonShape: 'the KycVerification object, as pay kyc verify prints it; with --wait, as decided',
      wait: kycWait('kyc/status/{customer_id}', 'pay kyc-legacy status {customer_id}'),
    },
    {
      name: 'submit-document',
      arg: {
        name: '<customer-id>',
        description: 'customer id (cus_…), sent as customer_id',
        idPrefix: 'cus_',
        field: 'customer_id',
        pick: customerPick('customers with an open verification', { kyc_status: KYC_OPEN_STATUSES }),
      },
      summary: 'Submit an identity document (POST /kyc/documents)',
      description: `${KYC_WAIT_NOTE}; it then prints the verification instead of the document.\n${simulationNote('kyc-legacy submit-document')}`,
      examples: [
        `pay kyc-legacy submit-document ${EX_CUS} --type passport --country GB --number 123456789`,
        `pay kyc-legacy submit-document ${EX_CUS} --type selfie --country US --json`,
      ],
      operationId: 'legacyKycSubmitDocument',
      deprecated: { use: 'pay kyc submit-document' },
      noun: 'KYC document',
      flags: documentFlags,
      jsonShape: 'the KycDocument object, as pay kyc submit-document prints it; with --wait, the KycVerification as decided',
      wait: kycWait('kyc/status/{customer_id}', 'pay kyc-legacy status {customer_id}', 'verification_id'),
    },
    {
      name: 'status',
      arg: { name: '<customer-id>', description: 'customer id (cus_…)', idPrefix: 'cus_', pick: customerPick() },
      summary: 'Show the current verification (GET /kyc/status/{customer_id})',
      examples: [`pay kyc-legacy status ${EX_CUS}`, `pay kyc-legacy status ${EX_CUS} --json`],
      operationId: 'legacyKycStatus',
      deprecated: { use: 'pay kyc status' },
      tables: documentsTable,
      jsonShape: 'the KycVerification object, as pay kyc status prints it',
    },
  ],
});
