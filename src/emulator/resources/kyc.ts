// KYC: the current operations (under /customers/{id}/kyc) and the deprecated ones (/kyc/…),
// over the same verifications. States: pending → in_review (first document) → approved |
// rejected, decided settleAfterMs after the first document; a document number ending in 0000
// rejects (Sandbox magic value). The customer's kyc_status mirrors the latest verification, except
// that an approved customer stays approved while an upgrade to enhanced is open or after it is
// rejected: the business rules (src/shared/rules.ts) read kyc_status, and a real bank does not
// take products away from a verified customer who applies for a higher level.
import { KYC_DOCUMENT_TYPES, KYC_LEVELS } from '../../shared/enums.js';
import { isId, OBJECT_KINDS } from '../../shared/domain.js';
import { endsIn, REJECT_DOCUMENT_SUFFIX } from '../../shared/simulation.js';
import type { Services } from '../services.js';
import { ApiProblem, invalidState } from '../problems.js';
import { check, country, id, oneOf, opt, orThrow, req, str, type Shape } from '../validation.js';
import type { Ctx, Customer, KycDocument, KycVerification, Rec, Route } from '../types.js';
import { arm, created, load, ok, scheduled, touch, type TxCtx } from './common.js';

const LEVELS = KYC_LEVELS;
const DOC_TYPES = KYC_DOCUMENT_TYPES;

const verifyShape: Shape = { level: req(oneOf(LEVELS)) };
const documentShape: Shape = {
  type: req(oneOf(DOC_TYPES)),
  country: req(country),
  number: opt(str({ max: 64 })),
  file_name: opt(str({ max: 255 })),
};
const legacy = (shape: Shape): Shape => ({ customer_id: req(id('cus_')), ...shape });

/** Deprecated since 2026-01-01 (RFC 9745 `@<unix-seconds>`). */
export const DEPRECATED_SINCE = '@1767225600';

const latest = (app: Services, scope: string, customerId: string) =>
  app.store.last<KycVerification>(scope, 'kyc_verification', `customer_id=${customerId}`);

function setKycStatus(ctx: { app: Services; tx: Ctx['tx'] }, scope: string, customerId: string, status: Customer['kyc_status']): void {
  const c = ctx.app.store.get<Customer>('customer', scope, customerId);
  if (c && c.obj.kyc_status === 'approved') return;
  if (c && c.obj.kyc_status !== status) ctx.app.store.put(ctx.tx, 'customer', scope, touch(ctx.app, c.obj, { kyc_status: status }));
}

function start(ctx: Ctx, customer: Rec<Customer>, level: string): Rec<KycVerification> {
  const { app } = ctx;
  const current = latest(app, ctx.scope, customer.id);
  const s = current?.obj.status;
  if (s === 'pending' || s === 'in_review') throw invalidState(`a verification is already ${s} for this customer (${current!.id})`);
  if (s === 'approved' && !(current!.obj.level === 'basic' && level === 'enhanced')) {
    throw invalidState(`the customer is already approved at level ${current!.obj.level}; only an upgrade to enhanced can start`);
  }
  const v = app.create<KycVerification>(ctx.scope, 'kyc_', 'kyc_verification', {
    customer_id: customer.id,
    level,
    status: 'pending',
    documents: [],
    submitted_at: null,
    decided_at: null,
    rejection_reason: null,
  });
  const rec = app.store.put(ctx.tx, 'kyc_verification', ctx.scope, v);
  setKycStatus(ctx, ctx.scope, customer.id, 'pending');
  app.events.emit(ctx.tx, ctx.scope, 'kyc.pending', rec);
  return rec;
}

function submit(
  ctx: Ctx,
  customer: Rec<Customer>,
  b: { type: string; country: string; number?: string; file_name?: string },
): { rec: Rec<KycVerification>; doc: KycDocument } {
  const { app } = ctx;
  const current = latest(app, ctx.scope, customer.id);
  if (!current) throw invalidState('no KYC verification started for this customer; start one first');
  const v = current.obj;
  if (v.status !== 'pending' && v.status !== 'in_review')
    throw invalidState(`the verification ${v.id} is ${v.status}; documents can no longer be added`);
  const doc = app.create<KycDocument>(ctx.scope, 'doc_', 'kyc_document', {
    verification_id: v.id,
    customer_id: customer.id,
    type: b.type,
    country: b.country,
    number_last4: b.number ? b.number.slice(-4) : null,
    file_name: b.file_name ?? null,
    status: 'received',
  });
  const rejects = {
    ...((current.x?.rejects as Record<string, boolean> | undefined) ?? {}),
    // A Sandbox simulation value only: in live mode a number is a number.
    ...(!doc.livemode && endsIn(b.number, REJECT_DOCUMENT_SUFFIX) ? { [doc.id]: true } : {}),
  };
  const first = v.status === 'pending';
  const next = touch(app, v, {
    documents: [...v.documents, doc],
    ...(first ? { status: 'in_review' as const, submitted_at: doc.created_at } : {}),
  });
  const rec = app.store.put(ctx.tx, 'kyc_verification', ctx.scope, next, { rejects });
  if (first) {
    setKycStatus(ctx, ctx.scope, customer.id, 'in_review');
    app.events.emit(ctx.tx, ctx.scope, 'kyc.in_review', rec);
    arm(app, rec);
  }
  return { rec, doc };
}

/** Decides a verification in review once its time has come. */
function decide({ app, tx }: TxCtx, rec: Rec<KycVerification>): void {
  const rejects = (rec.x?.rejects as Record<string, boolean> | undefined) ?? {};
  const rejected = Object.keys(rejects).length > 0;
  const at = app.nowIso();
  const documents = rec.obj.documents.map((d) => ({
    ...d,
    status: rejects[d.id] ? ('rejected' as const) : ('accepted' as const),
    updated_at: at,
  }));
  const next = touch(app, rec.obj, {
    status: rejected ? 'rejected' : 'approved',
    documents,
    decided_at: at,
    rejection_reason: rejected ? 'document_rejected: the document could not be verified' : null,
  });
  const decided = app.store.put(tx, 'kyc_verification', rec.scope, next);
  setKycStatus({ app, tx }, rec.scope, next.customer_id, next.status);
  app.events.emit(tx, rec.scope, rejected ? 'kyc.rejected' : 'kyc.approved', decided);
}

const successor = (customerId: unknown): string =>
  `</v1/customers/${isId(customerId, OBJECT_KINDS.customer.prefix) ? customerId : '{customer_id}'}/kyc>; rel="successor-version"`;

export function kycRoutes(app: Services): Route[] {
  app.store.index('kyc_verification', (v: KycVerification) => [`customer_id=${v.customer_id}`]);
  scheduled<KycVerification>(
    app,
    'kyc_verification',
    (v) => (v.status === 'in_review' && v.submitted_at ? Date.parse(v.submitted_at) + app.settleAfterMs : undefined),
    decide,
  );

  const customerOf = (ctx: Ctx, idValue: unknown) =>
    load<Customer>(ctx, 'customer', 'cus_', typeof idValue === 'string' ? idValue : undefined, 'customer');
  const getCurrent = (ctx: Ctx) => {
    const c = customerOf(ctx, ctx.params.customer_id);
    const v = latest(app, ctx.scope, c.id);
    if (!v) throw new ApiProblem(404, 'not_found', `no KYC verification was started for ${c.id}`);
    return ok(v);
  };
  type DocBody = { type: string; country: string; number?: string; file_name?: string };

  return [
    {
      method: 'POST',
      path: '/customers/{customer_id}/kyc',
      op: 'startKycVerification',
      handler: (ctx) => {
        const c = customerOf(ctx, ctx.params.customer_id);
        orThrow(check(ctx.body, verifyShape));
        return created(start(ctx, c, ctx.body.level as string));
      },
    },
    {
      method: 'POST',
      path: '/customers/{customer_id}/kyc/documents',
      op: 'submitKycDocument',
      handler: (ctx) => {
        const c = customerOf(ctx, ctx.params.customer_id);
        orThrow(check(ctx.body, documentShape));
        const { doc } = submit(ctx, c, ctx.body as unknown as DocBody);
        return { status: 201, json: JSON.stringify(doc) };
      },
    },
    { method: 'GET', path: '/customers/{customer_id}/kyc', op: 'getKycVerification', handler: getCurrent },
    {
      method: 'POST',
      path: '/kyc/verify',
      op: 'legacyKycVerify',
      successor: (ctx) => successor(ctx.body.customer_id),
      handler: (ctx) => {
        orThrow(check(ctx.body, legacy(verifyShape)));
        return created(start(ctx, customerOf(ctx, ctx.body.customer_id), ctx.body.level as string));
      },
    },
    {
      method: 'POST',
      path: '/kyc/documents',
      op: 'legacyKycSubmitDocument',
      successor: (ctx) => successor(ctx.body.customer_id),
      handler: (ctx) => {
        orThrow(check(ctx.body, legacy(documentShape)));
        const { customer_id, ...rest } = ctx.body;
        const { doc } = submit(ctx, customerOf(ctx, customer_id), rest as unknown as DocBody);
        return { status: 201, json: JSON.stringify(doc) };
      },
    },
    {
      method: 'GET',
      path: '/kyc/status/{customer_id}',
      op: 'legacyKycStatus',
      successor: (ctx) => successor(ctx.params.customer_id),
      handler: getCurrent,
    },
  ];
}
