// The business rules in the contract's words: the sentence each gated operation's description
// ends with, from the one table (src/shared/rules.ts), and the refusals' problem examples.
import { FEATURES, RULES, requirement, rulesOf } from '../../shared/rules.js';

/** "Business rules: needs …; refused otherwise with 422 `kyc_required` or `feature_not_active` (field …)." */
export function rulesNote(operationId: string): string {
  const rules = rulesOf(operationId);
  if (rules.length === 0) return '';
  const needs = rules.map((r) => `${r.when ? `when ${r.when}, ` : ''}needs ${requirement(r)}`).join('; ');
  const feature = rules.some((r) => r.feature);
  const codes = feature ? '`kyc_required` or `feature_not_active`' : '`kyc_required`';
  const fields = [...new Set(rules.map((r) => `\`${r.field}\``))].join(', ');
  const party = rules.find((r) => r.counterparty)?.counterparty;
  const members = ['customer_id', 'kyc_status', 'customer_country', ...(feature ? ['feature'] : []), 'rule']
    .map((m) => `\`${m}\``)
    .join(', ');
  return (
    ` Business rules: ${needs}${party ? `; the receiving account's holder must not have KYC rejected (else \`kyc_required\` on \`${party}\`)` : ''}. ` +
    `Refused otherwise (nothing changes): 422 ${codes}, with a field error on ${fields} per broken requirement (each naming its customer) and the problem members ${members}.`
  );
}

const CUS = 'cus_0123456789abcdefghijklmn';

/** The refusals of the rules as problem examples (the 422 response's examples beside validation_error). */
export const RULE_REFUSAL_EXAMPLES = {
  kyc_required: {
    code: 'kyc_required',
    detail: `customer ${CUS} cannot issue a card: KYC must be approved (kyc_status is pending); the cards feature is not active`,
    customer_id: CUS,
    kyc_status: 'pending',
    feature: 'cards',
    rule: 'cards.issue',
    customer_country: 'GB',
    errors: [
      {
        field: 'customer_id',
        code: 'kyc_required',
        message: 'KYC must be approved (kyc_status is pending)',
        customer_id: CUS,
        kyc_status: 'pending',
        customer_country: 'GB',
      },
      {
        field: 'customer_id',
        code: 'feature_not_active',
        message: `the cards feature is not active for ${CUS}`,
        customer_id: CUS,
        kyc_status: 'pending',
        customer_country: 'GB',
        feature: 'cards',
      },
    ],
  },
  feature_not_active: {
    code: 'feature_not_active',
    detail: `customer ${CUS} cannot create a wallet: the crypto_wallets feature is not active`,
    customer_id: CUS,
    kyc_status: 'approved',
    feature: 'crypto_wallets',
    rule: 'wallets.create',
    customer_country: 'GB',
    errors: [
      {
        field: 'customer_id',
        code: 'feature_not_active',
        message: `the crypto_wallets feature is not active for ${CUS}`,
        customer_id: CUS,
        kyc_status: 'approved',
        customer_country: 'GB',
        feature: 'crypto_wallets',
      },
    ],
  },
  feature_not_eligible: {
    code: 'feature_not_eligible',
    detail: `customer ${CUS} is not eligible for cards: KYC must be approved (kyc_status is in_review)`,
    customer_id: CUS,
    kyc_status: 'in_review',
    customer_country: 'GB',
    feature: 'cards',
  },
} as const;

/** Each feature and the commands' operations it gates: "cards (createCard; KYC approved)". */
export function featuresGating(): string {
  return FEATURES.map((f) => {
    const ops = Object.values(RULES)
      .filter((r) => r.feature === f.key)
      .map((r) => `\`${r.operationId}\``);
    return `\`${f.key}\` (${ops.join(', ')}; KYC ${f.kyc === 'approved' ? 'approved' : 'not rejected'})`;
  }).join(', ');
}
