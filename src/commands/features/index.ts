// pay features: the product features a customer can use, and switching them on.
import { type FlagSpec, type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { columns } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { FEATURES, RULES } from '../../shared/rules.js';
import { customerPick } from '../customers/index.js';

/** One line per feature: its KYC need and the commands it gates (from the rules table). */
const gating = FEATURES.map((f) => {
  const commands = [
    ...new Set(
      Object.values(RULES)
        .filter((r) => r.feature === f.key)
        .map((r) => r.command),
    ),
  ];
  return `  ${f.key}: KYC ${f.kyc === 'approved' ? 'approved' : 'not rejected'}; gates ${commands.join(', ')}`;
}).join('\n');

const CUSTOMER_ARG = { name: '<customer-id>', description: 'customer id (cus_…)', idPrefix: 'cus_', pick: customerPick() };
const EX_CUS = 'cus_0123456789abcdefghijklmn';
const featureFlag: FlagSpec = {
  flags: '--feature <feature>',
  pathParam: 'feature',
  description: 'feature key',
};

const statusColumns = columns(
  'CUSTOMER customer_id 1, FEATURE feature 2 id, ELIGIBLE eligible 4, ACTIVE active 3, REASONS reasons 5, ACTIVATED activated_at 6 time',
);

export const features: GroupSpec = fromContract(OPERATIONS, {
  name: 'features',
  summary: 'List product features, check and activate them for a customer',
  noun: 'feature',
  examples: [
    'pay features list',
    'pay features check cus_0123456789abcdefghijklmn --feature cards',
    'pay features activate cus_0123456789abcdefghijklmn --feature cards --json',
  ],
  description:
    "Features marked requires_kyc need the customer's KYC approved to be activated and used; the others need a KYC state that is not rejected.\n" +
    'A command a feature gates works while the feature is active and the customer eligible (pay features check):\n' +
    `${gating}\n` +
    'The whole set of rules: pay help rules.',
  columns: columns('KEY key 1 id, NAME name 2, REQUIRES KYC requires_kyc 3, DESCRIPTION description 4'),
  verbs: [
    {
      name: 'list',
      summary: 'List the features the service offers',
      examples: ['pay features list', 'pay features list --json'],
      operationId: 'listFeatures',
      jsonShape: 'an array of Feature objects ({key, name, description, requires_kyc})',
    },
    {
      name: 'check',
      arg: CUSTOMER_ARG,
      summary: 'Show whether a customer is eligible for a feature and whether it is active',
      examples: [
        `pay features check ${EX_CUS} --feature cards`,
        `pay features check ${EX_CUS} --feature fx --fields eligible,reasons --json`,
      ],
      operationId: 'getCustomerFeature',
      flags: [featureFlag],
      noun: 'feature status',
      columns: statusColumns,
      jsonShape: 'a FeatureStatus object ({object: "feature_status", customer_id, feature, eligible, active, reasons: [], activated_at})',
    },
    {
      name: 'activate',
      arg: CUSTOMER_ARG,
      summary: 'Activate a feature for a customer (fails when not eligible)',
      description:
        "Refused with feature_not_eligible while the customer's KYC does not allow the feature (requires_kyc: approved; the others: not rejected); the hint says what to run.",
      examples: [`pay features activate ${EX_CUS} --feature cards`, `pay features activate ${EX_CUS} --feature crypto_wallets --json`],
      operationId: 'activateCustomerFeature',
      flags: [featureFlag],
      noun: 'feature',
      columns: statusColumns,
      jsonShape: 'the FeatureStatus object with active: true',
      // Reads the status first, to say "already active" from what the service answered.
      impl: () => import('./activate.js'),
    },
  ],
});
