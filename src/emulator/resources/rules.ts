// "May this customer do X?": the one answer every gated route asks, and the one a feature's
// eligible/reasons come from. The table is src/shared/rules.ts (RULES, FEATURES); this module
// reads a customer's KYC state and activated features and says yes, or throws the refusal:
// 422 `kyc_required` or `feature_not_active`, one field error per broken requirement (on the body
// field that named the customer, each naming that customer, its KYC state, country and the feature:
// the CLI's hint lists what to run from them, in order) and the first one's as extension members.
import { FEATURES, kycReason, RULES, type FeatureDef, type Rule, type RuleKey } from '../../shared/rules.js';
import { ApiProblem, notFound, type FieldProblem } from '../problems.js';
import type { Services } from '../services.js';
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

/** One broken rule: a field error that also names the customer it is about (the CLI's hint is built from these). */
type RuleError = FieldProblem & { customer_id: string; kyc_status: string; customer_country: string; feature?: string };

const about = (rec: Rec<Customer>) => ({
  customer_id: rec.id,
  kyc_status: rec.obj.kyc_status,
  customer_country: rec.obj.address.country,
});

/** What the actor's KYC and features break of the rule: the KYC need first, then the feature. */
function actorErrors(rec: Rec<Customer>, rule: Rule): RuleError[] {
  const errors: RuleError[] = [];
  const kyc = kycReason(rule.kyc, rec.obj.kyc_status);
  if (kyc) errors.push({ field: rule.field, code: 'kyc_required', message: kyc, ...about(rec) });
  if (rule.feature && !activations(rec)[rule.feature])
    errors.push({
      field: rule.field,
      code: 'feature_not_active',
      message: `the ${rule.feature} feature is not active for ${rec.id}`,
      ...about(rec),
      feature: rule.feature,
    });
  return errors;
}

/** What stops money reaching a customer (another account's holder): KYC rejected. */
function counterpartyErrors(rec: Rec<Customer>, rule: Rule): RuleError[] {
  const field = rule.counterparty;
  if (!field || rec.obj.kyc_status !== 'rejected') return [];
  return [{ field, code: 'kyc_required', message: `its holder ${rec.id}: KYC was rejected`, ...about(rec) }];
}

/**
 * Everything that stops the actor from acting under the rule, and the money from reaching a
 * counterparty (another account's holder) whose KYC was rejected: one `errors[]` entry per broken
 * requirement, in the order to fix them, the detail naming them all; `code` and the top-level members
 * are the first one's (undefined when nothing stops it).
 */
export function refusal(key: RuleKey, actor: Rec<Customer>, counterparty?: Rec<Customer>): ApiProblem | undefined {
  const rule = RULES[key];
  const own = actorErrors(actor, rule);
  const theirs = counterparty && counterparty.id !== actor.id ? counterpartyErrors(counterparty, rule) : [];
  const errors = [...own, ...theirs];
  const first = errors[0];
  if (!first) return undefined;
  const why = [
    ...(own.length
      ? [`customer ${actor.id} cannot ${rule.action}: ${own.map((e) => e.message.replace(` for ${actor.id}`, '')).join('; ')}`]
      : []),
    ...(theirs.length ? [`customer ${counterparty!.id} cannot receive money: KYC was rejected`] : []),
  ].join('; and ');
  const members: Record<string, string> = {
    customer_id: first.customer_id,
    kyc_status: first.kyc_status,
    customer_country: first.customer_country,
    ...(own.length && rule.feature ? { feature: rule.feature } : {}),
    rule: rule.key,
  };
  return new ApiProblem(422, first.code, why, errors, undefined, members);
}

/** Throws the refusal when anything stops the action (see `refusal`). */
export function requireAllowed(key: RuleKey, actor: Rec<Customer>, counterparty?: Rec<Customer>): void {
  const p = refusal(key, actor, counterparty);
  if (p) throw p;
}

/** The customer an object belongs to (its `customer_id`), from the same scope. */
export function holder(ctx: Ctx, customerId: string): Rec<Customer> {
  return load<Customer>(ctx, 'customer', 'cus_', customerId, 'customer');
}

/**
 * Why money that was let through when asked may not move now it settles (a held or pending transfer
 * or collection): the same rule asked again of the customers as they are now, by their ids in the
 * object's scope. A KYC rejected meanwhile is `kyc_rejected` (the only change of a customer that
 * breaks a rule once met: an approval stays), anything else the refusal's code; undefined when the
 * rule still holds (or a customer is gone, which nothing here does).
 */
export function failureOnSettle(
  app: Pick<Services, 'store'>,
  scope: string,
  key: RuleKey,
  actorId: string,
  counterpartyId?: string,
): string | undefined {
  const actor = app.store.get<Customer>('customer', scope, actorId);
  if (!actor) return undefined;
  const counterparty = counterpartyId === undefined ? undefined : app.store.get<Customer>('customer', scope, counterpartyId);
  const p = refusal(key, actor, counterparty);
  if (!p) return undefined;
  return p.code === 'kyc_required' ? 'kyc_rejected' : p.code;
}
