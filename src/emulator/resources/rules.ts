// "May this customer do X?": the one answer every gated route asks, and the one a feature's
// eligible/reasons come from. The table is src/shared/rules.ts (RULES, FEATURES); this module
// reads a customer's KYC state and activated features and says yes, or throws the refusal:
// 422 `kyc_required` or `feature_not_active`, with the customer, its KYC state and the feature as
// problem extension members (the CLI's hint names what to run from them) and a field error on the
// body field that named the customer.
import { FEATURES, kycReason, RULES, type FeatureDef, type Rule, type RuleKey } from '../../shared/rules.js';
import { ApiProblem, notFound, type FieldProblem } from '../problems.js';
import type { Ctx, Customer, Json, Rec } from '../types.js';
import { load } from './common.js';

/** When each feature was activated for the customer (its record's extra data). */
export function activations(rec: Rec<Customer>): Record<string, string> {
  return (rec.x?.features as Record<string, string> | undefined) ?? {};
}

/** The API's FeatureStatus: eligible when the customer's KYC meets the feature's need (the rules' reasons otherwise). */
export function featureStatus(rec: Rec<Customer>, f: FeatureDef): Json {
  const activated = activations(rec)[f.key] ?? null;
  const reason = kycReason(f.kyc, rec.obj.kyc_status);
  return {
    object: 'feature_status',
    customer_id: rec.id,
    feature: f.key,
    eligible: reason === undefined,
    active: activated !== null,
    reasons: reason === undefined ? [] : [reason],
    activated_at: activated,
  };
}

/** A feature of the table by its path parameter, or 404. */
export function featureOf(key: string | undefined): FeatureDef {
  const def = FEATURES.find((f) => f.key === key);
  if (!def) throw notFound('feature', key ?? '');
  return def;
}

const extensions = (rec: Rec<Customer>, rule: Rule | undefined, feature: string | undefined): Record<string, string> => ({
  customer_id: rec.id,
  kyc_status: rec.obj.kyc_status,
  ...(feature ? { feature } : {}),
  ...(rule ? { rule: rule.key } : {}),
});

/** What stops the customer from acting under the rule (undefined when nothing does). */
export function refusal(rec: Rec<Customer>, key: RuleKey): ApiProblem | undefined {
  const rule = RULES[key];
  const errors: FieldProblem[] = [];
  const kyc = kycReason(rule.kyc, rec.obj.kyc_status);
  if (kyc) errors.push({ field: rule.field, code: 'kyc_required', message: kyc });
  if (rule.feature && !activations(rec)[rule.feature])
    errors.push({ field: rule.field, code: 'feature_not_active', message: `the ${rule.feature} feature is not active for ${rec.id}` });
  if (errors.length === 0) return undefined;
  const why = errors.map((e) => e.message.replace(` for ${rec.id}`, '')).join('; ');
  return new ApiProblem(
    422,
    errors[0]!.code,
    `customer ${rec.id} cannot ${rule.action}: ${why}`,
    errors,
    undefined,
    extensions(rec, rule, rule.feature),
  );
}

/** What stops money reaching a customer: KYC rejected. */
function counterpartyRefusal(rec: Rec<Customer>, rule: Rule): ApiProblem | undefined {
  const field = rule.counterparty;
  if (!field || rec.obj.kyc_status !== 'rejected') return undefined;
  const message = 'KYC was rejected';
  return new ApiProblem(
    422,
    'kyc_required',
    `customer ${rec.id} cannot receive money: ${message}`,
    [{ field, code: 'kyc_required', message: `its holder ${rec.id}: ${message}` }],
    undefined,
    extensions(rec, rule, undefined),
  );
}

/**
 * Throws the refusal when the actor may not act under the rule, or when the money would reach a
 * counterparty (another account's holder) whose KYC was rejected.
 */
export function requireAllowed(key: RuleKey, actor: Rec<Customer>, counterparty?: Rec<Customer>): void {
  const p =
    refusal(actor, key) ?? (counterparty && counterparty.id !== actor.id ? counterpartyRefusal(counterparty, RULES[key]) : undefined);
  if (p) throw p;
}

/** The customer an object belongs to (its `customer_id`), from the same scope. */
export function holder(ctx: Ctx, customerId: string): Rec<Customer> {
  return load<Customer>(ctx, 'customer', 'cus_', customerId, 'customer');
}
