// pay kyc: identity verification of a customer (start, send documents, follow the status).
import type { TableColumn } from '../../io/output.js';
import { type FlagSpec, type GroupSpec, type SubTableSpec, type WaitSpec, fromContract } from '../../cmdutil/spec.js';
import { OPERATIONS } from './operations.js';
import { KYC_OPEN_STATUSES, KYC_STARTABLE_STATUSES } from '../../shared/enums.js';
import { REJECT_DOCUMENT_SUFFIX, simulationNote } from '../../shared/simulation.js';
import { customerPick } from '../customers/index.js';

const CUSTOMER_ARG = { name: '<customer-id>', description: 'customer id (cus_…)', idPrefix: 'cus_' };
const EX_CUS = 'cus_0123456789abcdefghijklmn';

export const kycColumns: TableColumn[] = [
  { header: 'ID', path: 'id', priority: 1 },
  { header: 'CUSTOMER', path: 'customer_id', priority: 5 },
  { header: 'LEVEL', path: 'level', priority: 3 },
  { header: 'STATUS', path: 'status', kind: 'status', priority: 2 },
  { header: 'REJECTION', path: 'rejection_reason', priority: 4 },
  { header: 'SUBMITTED', path: 'submitted_at', kind: 'time', priority: 7 },
  { header: 'DECIDED', path: 'decided_at', kind: 'time', priority: 6 },
  { header: 'CREATED', path: 'created_at', kind: 'time', priority: 8 },
];

export const documentColumns: TableColumn[] = [
  { header: 'ID', path: 'id', priority: 1 },
  { header: 'TYPE', path: 'type', priority: 2 },
  { header: 'COUNTRY', path: 'country', priority: 4 },
  { header: 'NUMBER', path: 'number_last4', priority: 5 },
  { header: 'STATUS', path: 'status', kind: 'status', priority: 3 },
  { header: 'CREATED', path: 'created_at', kind: 'time', priority: 6 },
];

/** Documents under a verification's key/value view on a terminal. */
export const documentsTable: SubTableSpec[] = [{ title: 'Documents', path: 'documents', columns: documentColumns }];

export const levelFlag: FlagSpec = {
  flags: '--level <level>',
  field: 'level',
  default: 'basic',
  description: 'verification level',
};

export const documentFlags: FlagSpec[] = [
  { flags: '--type <type>', field: 'type', description: 'document type' },
  {
    flags: '--country <CC>',
    field: 'country',
    description: 'issuing country, ISO 3166-1 alpha-2 (e.g. GB)',
  },
  { flags: '--number <number>', field: 'number', description: 'document number (only its last 4 characters are kept)' },
  { flags: '--file-name <name>', field: 'file_name', description: 'name of the uploaded file, for your records' },
];

/** What --wait waits for on the KYC verbs: the verification's decision (settled after the review delay). */
export function kycWait(poll: string, show: string, idField?: string): WaitSpec {
  return {
    until: 'be decided',
    object: 'kyc_verification',
    noun: 'KYC verification',
    idPrefix: 'kyc_',
    poll,
    ...(idField ? { idField } : {}),
    pending: KYC_OPEN_STATUSES,
    success: ['approved'],
    failure: ['rejected'],
    reasonField: 'rejection_reason',
    show,
  };
}

/** The help of the KYC verbs about --wait. */
export const KYC_WAIT_NOTE =
  'With --wait, pay waits until the verification is decided: exit 0 when approved, 1 when rejected. ' +
  'It is decided after the review delay that follows its first document';

export const kyc: GroupSpec = fromContract(OPERATIONS, {
  name: 'kyc',
  summary: "Verify customers' identity: start a check, submit documents, follow the status",
  noun: 'KYC verification',
  examples: [
    'pay kyc verify cus_0123456789abcdefghijklmn',
    'pay kyc submit-document cus_0123456789abcdefghijklmn --type passport --country GB --number 123456789',
    'pay kyc status cus_0123456789abcdefghijklmn --json',
  ],
  description:
    'A verification goes pending → in_review (first document) → approved or rejected.\n' +
    `Sandbox: a document number ending in ${REJECT_DOCUMENT_SUFFIX} is rejected (pay help simulate).`,
  columns: kycColumns,
  verbs: [
    {
      name: 'verify',
      // Not while a verification is open; an approved customer may upgrade to enhanced.
      arg: {
        ...CUSTOMER_ARG,
        pick: customerPick('customers without an open verification', { kyc_status: KYC_STARTABLE_STATUSES }),
      },
      summary: 'Start a KYC verification for a customer',
      description: `${KYC_WAIT_NOTE}: submit one meanwhile (pay kyc submit-document, from another shell or script).`,
      examples: [`pay kyc verify ${EX_CUS}`, `pay kyc verify ${EX_CUS} --level enhanced --json`],
      operationId: 'startKycVerification',
      flags: [levelFlag],
      tables: documentsTable,
      jsonShape: 'the KycVerification object ({id: "kyc_…", customer_id, level, status, documents: [], …}); with --wait, as decided',
      wait: kycWait('customers/{customer_id}/kyc', 'pay kyc status {customer_id}'),
    },
    {
      name: 'submit-document',
      arg: { ...CUSTOMER_ARG, pick: customerPick('customers with an open verification', { kyc_status: KYC_OPEN_STATUSES }) },
      summary: "Submit an identity document to the customer's open verification",
      description: `${KYC_WAIT_NOTE}; it then prints the verification instead of the document.\n${simulationNote('kyc submit-document')}`,
      examples: [
        `pay kyc submit-document ${EX_CUS} --type passport --country GB --number 123456789 --wait`,
        `pay kyc submit-document ${EX_CUS} --type passport --country GB --number 123456789`,
        `pay kyc submit-document ${EX_CUS} --type utility_bill --country NG --file-name bill.pdf --json`,
      ],
      operationId: 'submitKycDocument',
      noun: 'KYC document',
      columns: [
        { header: 'ID', path: 'id', priority: 1 },
        { header: 'VERIFICATION', path: 'verification_id', priority: 7 },
        ...documentColumns.slice(1),
      ],
      flags: documentFlags,
      jsonShape:
        'the KycDocument object ({id: "doc_…", verification_id, customer_id, type, country, number_last4, status}); with --wait, the KycVerification as decided',
      wait: kycWait('customers/{customer_id}/kyc', 'pay kyc status {customer_id}', 'verification_id'),
    },
    {
      name: 'status',
      arg: { ...CUSTOMER_ARG, pick: customerPick() },
      summary: "Show the customer's current verification and its documents",
      examples: [`pay kyc status ${EX_CUS}`, `pay kyc status ${EX_CUS} --fields status,rejection_reason --json`],
      operationId: 'getKycVerification',
      tables: documentsTable,
      jsonShape: 'the KycVerification object with its documents array',
    },
  ],
});
