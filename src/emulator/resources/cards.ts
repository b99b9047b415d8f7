// Cards: virtual cards are issued active; physical cards inactive → active (settle: shipped and
// activated); active ⇄ frozen; active | frozen | inactive → terminated (final). Never a PAN or CVV.
// Issuing needs the customer's KYC approved and the cards feature active (./rules.ts); the actions
// on a card are never refused by the rules (a customer who could issue it still can).
import { CARD_STATUSES, CARD_TERMINABLE_STATUSES, CARD_TYPES, SPENDING_INTERVALS } from '../../shared/enums.js';
import type { Services } from '../services.js';
import { randomDigits } from '../ids.js';
import { invalidState } from '../problems.js';
import { amount, check, id, object, oneOf, opt, orThrow, precision, req, str } from '../validation.js';
import type { Account, Card, Customer, Rec, Route } from '../types.js';
import { change, created, FIAT, insert, load, qEnum, qId, scheduled, type TxCtx } from './common.js';
import { listAndGet, resource, transition } from './routes.js';
import { addressRule, checkAddress, copyAddress } from './customers.js';
import { requireAllowed } from './rules.js';

const STATUSES = CARD_STATUSES;

const shape = {
  customer_id: req(id('cus_')),
  account_id: req(id('acc_')),
  type: req(oneOf(CARD_TYPES)),
  name_on_card: opt(str({ max: 100 })),
  spending_limit: opt(object({ amount: req(amount), interval: req(oneOf(SPENDING_INTERVALS)) })),
  shipping_address: opt(addressRule),
};

const CARD = resource<Card>({ kind: 'card', noun: 'card', path: '/cards', param: 'card_id' });

/** The moves of the card actions: allowed from-states, the new state and the event. */
const ACTIONS = {
  freeze: { from: ['active'], to: 'frozen', event: 'card.frozen', op: 'freezeCard' },
  unfreeze: { from: ['frozen'], to: 'active', event: 'card.unfrozen', op: 'unfreezeCard' },
  terminate: { from: CARD_TERMINABLE_STATUSES, to: 'terminated', event: 'card.terminated', op: 'terminateCard' },
} as const;

function activate(ctx: TxCtx, rec: Rec<Card>): void {
  change(ctx, rec, { status: 'active' }, 'card.activated');
}

export function cardRoutes(app: Services): Route[] {
  app.store.index('card', (c: Card) => [`customer_id=${c.customer_id}`, `account_id=${c.account_id}`]);
  scheduled<Card>(app, 'card', (c) => (c.status === 'inactive' ? Date.parse(c.created_at) + app.settleAfterMs : undefined), activate);

  return [
    {
      method: 'POST',
      path: '/cards',
      op: 'createCard',
      handler: (ctx) => {
        const errors = check(ctx.body, shape);
        if (ctx.body.shipping_address !== undefined) checkAddress(ctx.body.shipping_address, 'shipping_address', errors);
        if (ctx.body.type === 'physical' && ctx.body.shipping_address === undefined) {
          errors.push({ field: 'shipping_address', code: 'required', message: 'is required for a physical card' });
        }
        orThrow(errors);
        const b = ctx.body as unknown as Pick<Card, 'customer_id' | 'account_id' | 'type'> & {
          name_on_card?: string;
          spending_limit?: Card['spending_limit'];
          shipping_address?: Card['shipping_address'];
        };
        const customer = load<Customer>(ctx, 'customer', 'cus_', b.customer_id, 'customer');
        const account = load<Account>(ctx, 'account', 'acc_', b.account_id, 'account');
        requireAllowed('cards.issue', customer);
        if (account.obj.customer_id !== b.customer_id)
          orThrow([{ field: 'account_id', code: 'invalid', message: 'must be an account of the customer' }]);
        if (b.spending_limit) {
          const limitErrors = [] as Parameters<typeof orThrow>[0];
          precision(limitErrors, 'spending_limit.amount', b.spending_limit.amount, account.obj.currency, FIAT);
          orThrow(limitErrors);
        }
        if (account.obj.status !== 'active') throw invalidState(`account ${account.id} is ${account.obj.status}`);
        const now = new Date(app.clock.now());
        const c = app.create<Card>(ctx.scope, 'card_', 'card', {
          customer_id: b.customer_id,
          account_id: b.account_id,
          type: b.type,
          name_on_card: b.name_on_card ?? null,
          spending_limit: b.spending_limit ? { amount: b.spending_limit.amount, interval: b.spending_limit.interval } : null,
          shipping_address: b.shipping_address ? copyAddress(b.shipping_address) : null,
          brand: 'visa',
          last4: randomDigits(4),
          exp_month: now.getUTCMonth() + 1,
          exp_year: now.getUTCFullYear() + 3,
          status: b.type === 'virtual' ? 'active' : 'inactive',
        });
        const rec = insert(ctx, 'card', c, 'card.created');
        return created(rec);
      },
    },
    ...listAndGet(CARD, {
      filters: { customer_id: qId('cus_'), account_id: qId('acc_'), status: qEnum(STATUSES), type: qEnum(CARD_TYPES) },
      indexes: ['account_id', 'customer_id'],
    }),
    ...Object.entries(ACTIONS).map(([action, a]) => transition(CARD, { action, ...a })),
  ];
}
