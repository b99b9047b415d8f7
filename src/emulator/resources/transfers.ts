// Transfers: pending → completed | failed (settle, settleAfterMs after creation) ; pending →
// cancelled. Ledger: on creation a pending entry debits the source and credits the destination
// account (or `clearing:<cur>` for an external destination); settling posts it (and, for an
// external destination, a second entry moves it from clearing to `external:<cur>`); failing or
// cancelling voids it. Sandbox simulation values (src/shared/simulation.ts): minor units ending in
// 13 fail with destination_rejected; ending in 0014 (all four digits: 100.14, not 0.14), the
// transfer is held pending for 24 hours.
// The rules (./rules.ts): between accounts, KYC not rejected; to an external account, KYC approved,
// and abroad (another country than the sender's address) the international_transfers feature.
// They are asked again when a transfer settles (held or not): a holder whose KYC was rejected
// meanwhile fails it with failure_reason kyc_rejected, and the money returns to the source.
import { TRANSFER_STATUSES } from '../../shared/enums.js';
import { amountEndsIn, FAIL_TEXT, HOLD_HOURS, HOLD_TEXT } from '../../shared/simulation.js';
import type { Services } from '../services.js';
import { exponent, toMinor } from '../money.js';
import { ApiProblem, invalidState } from '../problems.js';
import { amount, check, oneOf, opt, orThrow, precision, req, str, id as idRule } from '../validation.js';
import type { Account, Customer, ExternalAccount, Rec, Route, Transfer } from '../types.js';
import { change, created, FIAT, insert, load, qEnum, qId, scheduled, type TxCtx } from './common.js';
import { listAndGet, resource, transition } from './routes.js';
import { failureOnSettle, holder, requireAllowed } from './rules.js';

const shape = {
  source_account_id: req(idRule('acc_')),
  destination_id: req(
    str({ max: 40, pattern: /^(acc|ea)_[0-9a-z]{24}$/, hint: 'must be an account id (acc_…) or an external account id (ea_…)' }),
  ),
  amount: req(amount),
  currency: req(oneOf(FIAT)),
  description: opt(str({ max: 500 })),
  reference: opt(str({ max: 140 })),
};

/**
 * Sandbox simulation value (src/shared/simulation.ts): an amount whose minor units end in 13 fails.
 * Sandbox only: in live mode every amount is an ordinary amount (`pay help simulate`).
 */
export const failsOnPurpose = (o: { amount: string; currency: string; livemode: boolean }): boolean =>
  !o.livemode && amountEndsIn(o.amount, exponent(o.currency), FAIL_TEXT);

/** Sandbox simulation value (Sandbox only): a transfer whose minor units end in every digit of HOLD_TEXT (0014: 10014, not 14) is held pending for HOLD_HOURS. */
const isHeld = (t: Transfer): boolean => !t.livemode && amountEndsIn(t.amount, exponent(t.currency), HOLD_TEXT);
const HOLD_MS = HOLD_HOURS * 3_600_000;

export const insufficient = (available: string, needed: string, currency: string): ApiProblem =>
  new ApiProblem(422, 'insufficient_funds', `the available balance (${available} ${currency}) does not cover ${needed} ${currency}`);

export const currencyMismatch = (detail: string): ApiProblem => new ApiProblem(422, 'currency_mismatch', detail);

/** The rule a transfer is made under (as at its creation): between accounts, a payout at home, or abroad. */
function ruleOf(dest: Rec<Account | ExternalAccount> | undefined, sender: Rec<Customer> | undefined) {
  if (!dest || dest.kind === 'account') return 'transfers.internal' as const;
  return (dest.obj as ExternalAccount).country === sender?.obj.address.country
    ? ('transfers.payout' as const)
    : ('transfers.international' as const);
}

/**
 * Why a transfer may not move money now it settles: the business rules asked again of both holders
 * as they are now (a KYC rejected while it was held or pending), `kyc_rejected`; undefined when they
 * still let it.
 */
function brokenRule(app: Services, rec: Rec<Transfer>): string | undefined {
  const t = rec.obj;
  const source = app.store.get<Account>('account', rec.scope, t.source_account_id);
  const dest =
    t.destination_type === 'account'
      ? app.store.get<Account>('account', rec.scope, t.destination_id)
      : app.store.get<ExternalAccount>('external_account', rec.scope, t.destination_id);
  if (!source) return undefined;
  const sender = app.store.get<Customer>('customer', rec.scope, source.obj.customer_id);
  return failureOnSettle(app, rec.scope, ruleOf(dest, sender), source.obj.customer_id, dest?.obj.customer_id);
}

function settle({ app, tx }: TxCtx, rec: Rec<Transfer>): void {
  const t = rec.obj;
  const entry = rec.x?.entry as string;
  const broken = brokenRule(app, rec);
  if (broken || failsOnPurpose(t)) {
    app.ledger.settle(tx, rec.scope, entry, 'voided');
    change({ app, tx }, rec, { status: 'failed', failure_reason: broken ?? 'destination_rejected' }, 'transfer.failed');
  } else {
    app.ledger.settle(tx, rec.scope, entry, 'posted');
    if (t.destination_type === 'external_account') {
      const minor = toMinor(t.amount, exponent(t.currency));
      app.ledger.post(tx, rec.scope, {
        type: 'transfer',
        status: 'posted',
        source: { object: 'transfer', id: t.id },
        description: t.description,
        lines: [
          { account: `clearing:${t.currency}`, currency: t.currency, amount: -minor },
          { account: `external:${t.currency}`, currency: t.currency, amount: minor },
        ],
      });
    }
    change({ app, tx }, rec, { status: 'completed', completed_at: app.nowIso() }, 'transfer.completed');
  }
}

const TRANSFER = resource<Transfer>({ kind: 'transfer', noun: 'transfer', path: '/transfers', param: 'transfer_id' });

export function transferRoutes(app: Services): Route[] {
  app.store.index('transfer', (t: Transfer) => [
    `account_id=${t.source_account_id}`,
    ...(t.destination_type === 'account' ? [`account_id=${t.destination_id}`] : []),
  ]);
  scheduled<Transfer>(
    app,
    'transfer',
    (t) =>
      t.status === 'pending'
        ? Date.parse(t.created_at) + (isHeld(t) ? Math.max(HOLD_MS, app.settleAfterMs) : app.settleAfterMs)
        : undefined,
    settle,
  );

  return [
    {
      method: 'POST',
      path: '/transfers',
      op: 'createTransfer',
      handler: (ctx) => {
        const errors = check(ctx.body, shape);
        precision(errors, 'amount', ctx.body.amount, ctx.body.currency, FIAT);
        if (ctx.body.source_account_id === ctx.body.destination_id && typeof ctx.body.destination_id === 'string') {
          errors.push({ field: 'destination_id', code: 'invalid', message: 'must differ from source_account_id' });
        }
        orThrow(errors);
        const b = ctx.body as {
          source_account_id: string;
          destination_id: string;
          amount: string;
          currency: string;
          description?: string;
          reference?: string;
        };
        const source = load<Account>(ctx, 'account', 'acc_', b.source_account_id, 'account');
        const internal = b.destination_id.startsWith('acc_');
        const dest = internal
          ? load<Account>(ctx, 'account', 'acc_', b.destination_id, 'account')
          : load<ExternalAccount>(ctx, 'external_account', 'ea_', b.destination_id, 'external account');
        // The rules: which applies depends on the destination (another account, an external account at home or abroad).
        const sender = holder(ctx, source.obj.customer_id);
        const receiver = holder(ctx, dest.obj.customer_id);
        const rule = internal
          ? 'transfers.internal'
          : (dest.obj as ExternalAccount).country === sender.obj.address.country
            ? 'transfers.payout'
            : 'transfers.international';
        requireAllowed(rule, sender, receiver);
        if (source.obj.status !== 'active') throw invalidState(`the source account ${source.id} is ${source.obj.status}`);
        if (dest.obj.status !== 'active') throw invalidState(`the destination ${dest.id} is ${dest.obj.status}`);
        if (source.obj.currency !== b.currency)
          throw currencyMismatch(`the source account holds ${source.obj.currency}, not ${b.currency}`);
        if (dest.obj.currency !== b.currency) throw currencyMismatch(`the destination holds ${dest.obj.currency}, not ${b.currency}`);
        const minor = toMinor(b.amount, exponent(b.currency));
        if (app.ledger.available(source.id) < minor) throw insufficient(source.obj.balance.available, b.amount, b.currency);

        const t = app.create<Transfer>(ctx.scope, 'tr_', 'transfer', {
          source_account_id: source.id,
          destination_id: dest.id,
          destination_type: internal ? 'account' : 'external_account',
          amount: b.amount,
          currency: b.currency,
          description: b.description ?? null,
          reference: b.reference ?? null,
          status: 'pending',
          failure_reason: null,
          completed_at: null,
        });
        const entry = app.ledger.post(ctx.tx, ctx.scope, {
          type: 'transfer',
          status: 'pending',
          source: { object: 'transfer', id: t.id },
          description: t.description,
          lines: [
            { account: source.id, currency: b.currency, amount: -minor },
            { account: internal ? dest.id : `clearing:${b.currency}`, currency: b.currency, amount: minor },
          ],
        });
        const rec = insert(ctx, 'transfer', t, 'transfer.created', { entry: entry.id });
        return created(rec);
      },
    },
    ...listAndGet(TRANSFER, { filters: { account_id: qId('acc_'), status: qEnum(TRANSFER_STATUSES) }, indexes: ['account_id'] }),
    transition(TRANSFER, {
      op: 'cancelTransfer',
      action: 'cancel',
      from: ['pending'],
      to: 'cancelled',
      event: 'transfer.cancelled',
      refused: (rec) => `transfer ${rec.id} is ${rec.obj.status}; only a pending transfer can be cancelled`,
      before: (ctx, rec) => app.ledger.settle(ctx.tx, ctx.scope, rec.x?.entry as string, 'voided'),
    }),
  ];
}
