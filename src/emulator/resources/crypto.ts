// Wallets and payment links. Links: active → disabled (action) | expired (the clock passes
// expires_at) | paid (the admin route POST /__emulator/payment-links/{id}/pay stands in for a
// payer; it credits the wallet from `external:<asset>`); the others are final. A wallet needs its
// customer's KYC approved and crypto_wallets active; a link, its wallet holder's KYC approved and
// payment_links active (./rules.ts).
import { PAYMENT_LINK_STATUSES } from '../../shared/enums.js';
import type { Services } from '../services.js';
import { NETWORKS, NETWORKS_BY_ASSET } from '../../shared/domain.js';
import { randomChars } from '../ids.js';
import { exponent, toMinor } from '../money.js';
import { ApiProblem, invalidState } from '../problems.js';
import { amount, check, dateTime, id, oneOf, opt, orThrow, precision, req, str } from '../validation.js';
import type { Customer, PaymentLink, Rec, Route, Wallet } from '../types.js';
import { ASSETS, change, created, insert, load, qEnum, qId, scheduled, type TxCtx } from './common.js';
import { listAndGet, resource, transition } from './routes.js';
import { currencyMismatch } from './transfers.js';
import { holder, requireAllowed } from './rules.js';

const BY_ASSET: Readonly<Record<string, readonly string[]>> = NETWORKS_BY_ASSET;
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const walletShape = {
  customer_id: req(id('cus_')),
  asset: req(oneOf(ASSETS)),
  network: req(oneOf(NETWORKS)),
  label: opt(str({ max: 100 })),
};

const linkShape = {
  wallet_id: req(id('wal_')),
  amount: req(amount),
  asset: req(oneOf(ASSETS)),
  description: opt(str({ max: 500 })),
  expires_at: opt(dateTime),
};

const WALLET = resource<Wallet>({ kind: 'wallet', noun: 'wallet', path: '/wallets', param: 'wallet_id' });
const LINK = resource<PaymentLink>({ kind: 'payment_link', noun: 'payment link', path: '/payment-links', param: 'payment_link_id' });

function address(network: string): string {
  if (network === 'bitcoin') return `bc1q${randomChars(38, '023456789acdefghjklmnpqrstuvwxyz')}`;
  if (network === 'tron') return `T${randomChars(33, BASE58)}`;
  return `0x${randomChars(40, '0123456789abcdef')}`;
}

function expire(ctx: TxCtx, rec: Rec<PaymentLink>): void {
  change(ctx, rec, { status: 'expired' }, 'payment_link.expired');
}

/** A payer pays a link (admin route): the wallet is credited and the link becomes paid. */
export function payLink(app: Services, id: string): Rec<PaymentLink> {
  app.due.run();
  const rec = app.store.byId.get(id) as Rec<PaymentLink> | undefined;
  if (!rec || rec.kind !== 'payment_link') throw new ApiProblem(404, 'not_found', `no payment link ${id}`);
  if (rec.obj.status !== 'active') throw invalidState(`payment link ${id} is ${rec.obj.status}`);
  const tx = app.tx();
  const l = rec.obj;
  const minor = toMinor(l.amount, exponent(l.asset));
  app.ledger.post(tx, rec.scope, {
    type: 'collection',
    status: 'posted',
    source: { object: 'payment_link', id: l.id },
    description: l.description,
    lines: [
      { account: `external:${l.asset}`, currency: l.asset, amount: -minor },
      { account: l.wallet_id, currency: l.asset, amount: minor },
    ],
  });
  const next = change({ app, tx }, rec, { status: 'paid' });
  app.commitInBackground(tx);
  return next;
}

export function cryptoRoutes(app: Services): Route[] {
  app.store.index('wallet', (w: Wallet) => [`customer_id=${w.customer_id}`, `asset=${w.asset}`]);
  app.store.index('payment_link', (l: PaymentLink) => [`wallet_id=${l.wallet_id}`]);
  scheduled<PaymentLink>(
    app,
    'payment_link',
    (l) => (l.status === 'active' && l.expires_at ? Date.parse(l.expires_at) : undefined),
    expire,
  );

  return [
    {
      method: 'POST',
      path: '/wallets',
      op: 'createWallet',
      handler: (ctx) => {
        const errors = check(ctx.body, walletShape);
        const { asset, network } = ctx.body as { asset?: string; network?: string };
        if (asset && network && BY_ASSET[asset] && !errors.some((e) => e.field === 'network') && !BY_ASSET[asset].includes(network)) {
          errors.push({ field: 'network', code: 'invalid', message: `${asset} is on ${BY_ASSET[asset].join(' or ')}` });
        }
        orThrow(errors);
        const b = ctx.body as { customer_id: string; asset: string; network: string; label?: string };
        requireAllowed('wallets.create', load<Customer>(ctx, 'customer', 'cus_', b.customer_id, 'customer'));
        const w = app.create<Wallet>(ctx.scope, 'wal_', 'wallet', {
          customer_id: b.customer_id,
          asset: b.asset,
          network: b.network,
          label: b.label ?? null,
          address: address(b.network),
          balance: app.ledger.balance('', b.asset),
          status: 'active',
        });
        const rec = insert(ctx, 'wallet', w, 'wallet.created');
        return created(rec);
      },
    },
    ...listAndGet(WALLET, { filters: { customer_id: qId('cus_'), asset: qEnum(ASSETS) }, indexes: ['customer_id', 'asset'] }),
    {
      method: 'POST',
      path: '/payment-links',
      op: 'createPaymentLink',
      handler: (ctx) => {
        const errors = check(ctx.body, linkShape);
        precision(errors, 'amount', ctx.body.amount, ctx.body.asset, ASSETS);
        const expires = typeof ctx.body.expires_at === 'string' ? Date.parse(ctx.body.expires_at) : undefined;
        if (expires !== undefined && !errors.some((e) => e.field === 'expires_at') && expires <= app.clock.now()) {
          errors.push({ field: 'expires_at', code: 'invalid', message: 'must be in the future' });
        }
        orThrow(errors);
        const b = ctx.body as { wallet_id: string; amount: string; asset: string; description?: string };
        const wallet = load<Wallet>(ctx, 'wallet', 'wal_', b.wallet_id, 'wallet');
        requireAllowed('payment_links.create', holder(ctx, wallet.obj.customer_id));
        if (wallet.obj.asset !== b.asset) throw currencyMismatch(`wallet ${wallet.id} holds ${wallet.obj.asset}, not ${b.asset}`);
        const l = app.create<PaymentLink>(ctx.scope, 'plink_', 'payment_link', {
          wallet_id: wallet.id,
          amount: b.amount,
          asset: b.asset,
          description: b.description ?? null,
          expires_at: expires !== undefined ? new Date(expires).toISOString() : null,
          url: '',
          status: 'active',
        });
        l.url = `https://pay.dev/l/${l.id}`;
        const rec = insert(ctx, 'payment_link', l, 'payment_link.created');
        return created(rec);
      },
    },
    ...listAndGet(LINK, { filters: { wallet_id: qId('wal_'), status: qEnum(PAYMENT_LINK_STATUSES) }, indexes: ['wallet_id'] }),
    transition(LINK, {
      op: 'disablePaymentLink',
      action: 'disable',
      from: ['active'],
      to: 'disabled',
      event: 'payment_link.disabled',
      refused: (rec) => `payment link ${rec.id} is ${rec.obj.status}; only an active link can be disabled`,
    }),
  ];
}
