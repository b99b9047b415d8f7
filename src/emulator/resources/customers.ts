// Customers (the seed-fixed body) and features.
import { birthDateProblem, checkEmail, checkPhone, checkState } from '../../shared/validate.js';
import { isoTablesLoaded } from '../../shared/iso-3166.js';
import { CUSTOMER_TYPES, GENDERS } from '../../shared/domain.js';
import { normalEnum, strict } from '../../shared/fields.js';
import type { Services } from '../services.js';
import { ApiProblem, type FieldProblem } from '../problems.js';
import { check, country, object, opt, orThrow, req, str, type Shape } from '../validation.js';
import type { Address, Ctx, Customer, Route } from '../types.js';
import { FEATURES, requiresKyc } from '../../shared/rules.js';
import { activations, featureOf, featureStatus } from './rules.js';
import { change, created, emptyOk, insert, ok, okJson, pageOf, qEmail, qText } from './common.js';
import { fromPath, listAndGet, resource } from './routes.js';

export const addressRule = object({
  address_line1: req(str()),
  city: req(str({ max: 100 })),
  country: req(country),
  postal_code: req(str({ max: 20 })),
  // Its shape and code are checked by checkAddress, with the CLI's words (a bare `TX`: "did you mean US-TX?").
  state: opt(str({ max: 100 })),
});

/**
 * Address rules beyond the shape: the state's country part equals the country, and ISO 3166-2
 * lists the state (the tables are loaded when the emulator starts: startEmulator()).
 */
export function checkAddress(v: unknown, path: string, errors: FieldProblem[]): void {
  const a = v as Partial<Address> | undefined;
  if (!a || typeof a !== 'object' || typeof a.state !== 'string') return;
  if (errors.some((e) => e.field === `${path}.state`)) return;
  const countryOk = typeof a.country === 'string' && !errors.some((e) => e.field === `${path}.country`);
  const problem = checkState(countryOk ? a.country : undefined, isoTablesLoaded())(a.state);
  if (problem) errors.push({ field: `${path}.state`, code: 'invalid', message: problem });
}

/** The address's fields, in this order (state last, when given). No spread: it is a slow path in V8, and every create runs this. */
export function copyAddress(a: Address): Address {
  const c: Address = { address_line1: a.address_line1, city: a.city, country: a.country, postal_code: a.postal_code };
  if (a.state !== undefined) c.state = a.state;
  return c;
}

const DAY_MS = 86_400_000;

/** new Date(ms).toISOString().slice(0, 10), converted again only when the UTC day changes. */
function utcDays(): (ms: number) => string {
  let start = NaN;
  let day = '';
  return (ms) => {
    if (!(ms >= start && ms < start + DAY_MS)) {
      day = new Date(ms).toISOString().slice(0, 10);
      start = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
    }
    return day;
  };
}

function customerShape(app: Services, required: boolean): Shape {
  const f = required ? req : opt;
  const today = utcDays();
  const birthDate = (v: string) => {
    const ms = app.clock.now();
    return birthDateProblem(v, () => today(ms));
  };
  return {
    first_name: f(str()),
    last_name: f(str()),
    middle_name: opt(str()),
    email: f(str({ max: 254, check: checkEmail })),
    // Longer than E.164 is checked too, to name the canonical form (`+1 (415) 555-0199`: did you mean +14155550199?).
    phone: f(str({ max: 40, check: checkPhone })),
    type: f(str({ max: 50, check: openEnum(CUSTOMER_TYPES) })),
    gender: opt(str({ max: 50, check: openEnum(GENDERS) })),
    date_of_birth: f(str({ max: 10, check: birthDate })),
    address: f(addressRule),
  };
}

/** A known value, or another one not near one of them (the CLI's check: `indivdual` is "did you mean individual?"). */
const openEnum =
  (known: readonly string[]) =>
  (v: string): string | undefined =>
    strict(normalEnum(v, known, true), v, `is not one of ${known.join(', ')}`);

const shapes = new WeakMap<Services, { create: Shape; update: Shape }>();

function validateCustomer(ctx: Ctx, required: boolean): void {
  let s = shapes.get(ctx.app);
  if (!s) shapes.set(ctx.app, (s = { create: customerShape(ctx.app, true), update: customerShape(ctx.app, false) }));
  const errors = check(ctx.body, required ? s.create : s.update);
  if (ctx.body.address !== undefined) checkAddress(ctx.body.address, 'address', errors);
  if (!required && Object.keys(ctx.body).length === 0)
    errors.push({ field: 'body', code: 'required', message: 'send at least one field to change' });
  orThrow(errors);
}

const CUSTOMER = resource<Customer>({ kind: 'customer', noun: 'customer', path: '/customers', param: 'customer_id' });

/** The list's `email` filter: the same address in any case. */
const sameEmail = (email: string) => {
  const lower = email.toLowerCase();
  return (c: Customer) => c.email.toLowerCase() === lower;
};

export function customerRoutes(app: Services): Route[] {
  return [
    {
      method: 'POST',
      path: '/customers',
      op: 'createCustomer',
      handler: (ctx) => {
        validateCustomer(ctx, true);
        const b = ctx.body as unknown as Customer;
        const c = app.create<Customer>(ctx.scope, 'cus_', 'customer', {
          first_name: b.first_name,
          last_name: b.last_name,
          middle_name: b.middle_name ?? null,
          email: b.email,
          phone: b.phone,
          type: b.type,
          gender: b.gender ?? null,
          date_of_birth: b.date_of_birth,
          address: copyAddress(b.address),
          kyc_status: 'not_started',
        });
        const rec = insert(ctx, 'customer', c, 'customer.created');
        return created(rec);
      },
    },
    ...listAndGet(CUSTOMER, { filters: { email: { check: qEmail, test: sameEmail }, type: qText(50) } }),
    {
      method: 'PATCH',
      path: '/customers/{customer_id}',
      op: 'updateCustomer',
      handler: (ctx) => {
        const rec = fromPath(CUSTOMER, ctx);
        validateCustomer(ctx, false);
        const changes = { ...(ctx.body as Partial<Customer>) };
        if (changes.address) changes.address = copyAddress(changes.address);
        return ok(change(ctx, rec, changes, 'customer.updated'));
      },
    },
    {
      method: 'GET',
      path: '/features',
      op: 'listFeatures',
      list: true,
      handler: (ctx) => {
        const { limit, cursor } = pageOf(ctx, []);
        let start = 0;
        if (cursor !== undefined) {
          const after = FEATURES.findIndex((f) => cursor === Buffer.from(`v1:${f.key}`).toString('base64url'));
          if (after < 0)
            throw new ApiProblem(400, 'invalid_parameter', 'query parameter cursor: not a cursor this service issued', [
              { field: 'cursor', code: 'invalid', message: 'not a cursor this service issued' },
            ]);
          start = after + 1;
        }
        const page = FEATURES.slice(start, start + limit);
        const hasMore = start + limit < FEATURES.length;
        return okJson({
          object: 'list',
          data: page.map((f) => ({
            object: 'feature',
            key: f.key,
            name: f.name,
            description: f.description,
            requires_kyc: requiresKyc(f),
          })),
          has_more: hasMore,
          next_cursor: hasMore ? Buffer.from(`v1:${page[page.length - 1]!.key}`).toString('base64url') : null,
        });
      },
    },
    {
      method: 'GET',
      path: '/customers/{customer_id}/features/{feature}',
      op: 'getCustomerFeature',
      handler: (ctx) => {
        const rec = fromPath(CUSTOMER, ctx);
        return okJson(featureStatus(rec, featureOf(ctx.params.feature)));
      },
    },
    {
      method: 'POST',
      path: '/customers/{customer_id}/features/{feature}/activate',
      op: 'activateCustomerFeature',
      handler: (ctx) => {
        const rec = fromPath(CUSTOMER, ctx);
        const def = featureOf(ctx.params.feature);
        emptyOk(ctx);
        const status = featureStatus(rec, def);
        if (status.active) return okJson(status);
        if (!status.eligible)
          throw new ApiProblem(
            422,
            'feature_not_eligible',
            `customer ${rec.id} is not eligible for ${def.key}: ${(status.reasons as string[]).join('; ')}`,
            undefined,
            undefined,
            { customer_id: rec.id, kyc_status: rec.obj.kyc_status, customer_country: rec.obj.address.country, feature: def.key },
          );
        const features = { ...activations(rec), [def.key]: app.nowIso() };
        const next = app.store.put(ctx.tx, 'customer', ctx.scope, rec.obj, { ...rec.x, features });
        const after = featureStatus(next, def);
        app.events.emit(ctx.tx, ctx.scope, 'feature.activated', after);
        return okJson(after);
      },
    },
  ];
}
