// Collections (incoming payments): pending → succeeded (credits the account) | failed.
// This is how an account gets money in the first place. Ledger: a pending entry credits the
// account from `external:<cur>`; success posts it, failure voids it. Sandbox magic: minor
// units ending in 13 fail with payment_declined. The account's holder needs the collections
// feature active and KYC not rejected (./rules.ts).
import { COLLECTION_METHODS, COLLECTION_STATUSES, MOBILE_MONEY_PROVIDERS } from '../../shared/enums.js';
import { checkPhone } from '../../shared/validate.js';
import type { Services } from '../services.js';
import { exponent, toMinor } from '../money.js';
import { invalidState } from '../problems.js';
import { amount, check, id, object, oneOf, opt, orThrow, precision, req, str } from '../validation.js';
import type { Account, Collection, Customer, Rec, Route } from '../types.js';
import { change, created, FIAT, insert, load, qEnum, qId, scheduled, type TxCtx } from './common.js';
import { listAndGet, resource } from './routes.js';
import { currencyMismatch, failsOnPurpose } from './transfers.js';
import { failureOnSettle, holder, requireAllowed } from './rules.js';

const METHODS = COLLECTION_METHODS;

const shape = {
  account_id: req(id('acc_')),
  amount: req(amount),
  currency: req(oneOf(FIAT)),
  method: req(oneOf(METHODS)),
  customer_id: opt(id('cus_')),
  description: opt(str({ max: 500 })),
  mobile_money: opt(object({ phone: req(str({ max: 16, check: checkPhone })), provider: req(oneOf(MOBILE_MONEY_PROVIDERS)) })),
};

const COLLECTION = resource<Collection>({ kind: 'collection', noun: 'collection', path: '/collections', param: 'collection_id' });

function settle({ app, tx }: TxCtx, rec: Rec<Collection>): void {
  const c = rec.obj;
  // The rules asked again of the account's holder as it is now: a KYC rejected meanwhile fails it (kyc_rejected).
  const holderId = app.store.get<Account>('account', rec.scope, c.account_id)?.obj.customer_id;
  const broken = holderId === undefined ? undefined : failureOnSettle(app, rec.scope, 'collections.create', holderId);
  const fail = broken !== undefined || failsOnPurpose(c);
  app.ledger.settle(tx, rec.scope, rec.x?.entry as string, fail ? 'voided' : 'posted');
  if (fail) change({ app, tx }, rec, { status: 'failed', failure_reason: broken ?? 'payment_declined' }, 'collection.failed');
  else change({ app, tx }, rec, { status: 'succeeded', completed_at: app.nowIso() }, 'collection.succeeded');
}

export function collectionRoutes(app: Services): Route[] {
  app.store.index('collection', (c: Collection) => [`account_id=${c.account_id}`]);
  scheduled<Collection>(
    app,
    'collection',
    (c) => (c.status === 'pending' ? Date.parse(c.created_at) + app.settleAfterMs : undefined),
    settle,
  );

  return [
    {
      method: 'POST',
      path: '/collections',
      op: 'createCollection',
      handler: (ctx) => {
        const errors = check(ctx.body, shape);
        precision(errors, 'amount', ctx.body.amount, ctx.body.currency, FIAT);
        if (ctx.body.method === 'mobile_money' && ctx.body.mobile_money === undefined) {
          errors.push({ field: 'mobile_money', code: 'required', message: 'is required when method is mobile_money' });
        }
        orThrow(errors);
        const b = ctx.body as {
          account_id: string;
          amount: string;
          currency: string;
          method: string;
          customer_id?: string;
          description?: string;
          mobile_money?: { phone: string; provider: string };
        };
        const account = load<Account>(ctx, 'account', 'acc_', b.account_id, 'account');
        if (b.customer_id) load<Customer>(ctx, 'customer', 'cus_', b.customer_id, 'customer');
        requireAllowed('collections.create', holder(ctx, account.obj.customer_id));
        if (account.obj.status !== 'active') throw invalidState(`account ${account.id} is ${account.obj.status}`);
        if (account.obj.currency !== b.currency)
          throw currencyMismatch(`account ${account.id} holds ${account.obj.currency}, not ${b.currency}`);
        const c = app.create<Collection>(ctx.scope, 'col_', 'collection', {
          account_id: account.id,
          amount: b.amount,
          currency: b.currency,
          method: b.method,
          customer_id: b.customer_id ?? null,
          description: b.description ?? null,
          mobile_money: b.mobile_money ? { phone: b.mobile_money.phone, provider: b.mobile_money.provider } : null,
          status: 'pending',
          failure_reason: null,
          completed_at: null,
        });
        const minor = toMinor(b.amount, exponent(b.currency));
        const entry = app.ledger.post(ctx.tx, ctx.scope, {
          type: 'collection',
          status: 'pending',
          source: { object: 'collection', id: c.id },
          description: c.description,
          lines: [
            { account: `external:${b.currency}`, currency: b.currency, amount: -minor },
            { account: account.id, currency: b.currency, amount: minor },
          ],
        });
        const rec = insert(ctx, 'collection', c, 'collection.created', { entry: entry.id });
        return created(rec);
      },
    },
    ...listAndGet(COLLECTION, {
      filters: { account_id: qId('acc_'), status: qEnum(COLLECTION_STATUSES), method: qEnum(METHODS) },
      indexes: ['account_id'],
    }),
  ];
}
