// Read-only views over the ledger and the event log: transactions and webhook events.
import type { Services } from '../services.js';
import { json } from '../store.js';
import type { Rec, Route, Transaction, WebhookEvent } from '../types.js';
import { emptyOk, load, ok, okRaw, pageOf, qEnum, qId, qTime, timeBound } from './common.js';
import { DELIVERY_STATUSES, EVENT_TYPES } from '../../shared/events.js';

/** An event with its delivery attempts (GET /webhooks/events/{id}). */
const withAttempts = (rec: Rec<WebhookEvent>): string => `${json(rec).slice(0, -1)},"attempts":${JSON.stringify(rec.x?.attempts ?? [])}}`;

export function viewRoutes(app: Services): Route[] {
  app.store.index('transaction', (t: Transaction) => [t.account_id ? `account_id=${t.account_id}` : `wallet_id=${t.wallet_id}`]);

  return [
    {
      method: 'GET',
      path: '/transactions',
      op: 'listTransactions',
      list: true,
      query: {
        account_id: qId('acc_'),
        wallet_id: qId('wal_'),
        from: qTime,
        to: qTime,
        type: qEnum(['transfer', 'collection', 'fx_trade', 'reversal']),
        status: qEnum(['pending', 'posted', 'voided']),
      },
      handler: (ctx) => {
        const q = (k: string) => ctx.query.get(k);
        const [account, wallet, type, status] = [q('account_id'), q('wallet_id'), q('type'), q('status')];
        const from = q('from') ? timeBound(q('from')!) : undefined;
        const to = q('to') ? timeBound(q('to')!) : undefined;
        const index = account ? `account_id=${account}` : wallet ? `wallet_id=${wallet}` : undefined;
        const match =
          (account && wallet) || type || status || to
            ? (t: Transaction) =>
                (!account || t.account_id === account) &&
                (!wallet || t.wallet_id === wallet) &&
                (!type || t.type === type) &&
                (!status || t.status === status) &&
                (!to || t.created_at < to)
            : undefined;
        // Newest first: once created_at drops below `from`, nothing older can match.
        const stop = from ? (t: Transaction) => t.created_at < from : undefined;
        return okRaw(
          app.store.page(ctx.scope, 'transaction', {
            ...pageOf(ctx, ['account_id', 'wallet_id', 'from', 'to', 'type', 'status']),
            index,
            match,
            stop,
          }),
        );
      },
    },
    {
      method: 'GET',
      path: '/transactions/{transaction_id}',
      op: 'getTransaction',
      handler: (ctx) => ok(load(ctx, 'transaction', 'txn_', ctx.params.transaction_id, 'transaction')),
    },
    {
      method: 'GET',
      path: '/webhooks/events',
      op: 'listWebhookEvents',
      list: true,
      query: { type: qEnum(EVENT_TYPES), status: qEnum(DELIVERY_STATUSES) },
      handler: (ctx) => {
        const type = ctx.query.get('type');
        const status = ctx.query.get('status');
        const match =
          type || status ? (e: WebhookEvent) => (!type || e.type === type) && (!status || e.delivery.status === status) : undefined;
        return okRaw(app.store.page(ctx.scope, 'event', { ...pageOf(ctx, ['type', 'status']), match }));
      },
    },
    {
      method: 'GET',
      path: '/webhooks/events/{event_id}',
      op: 'getWebhookEvent',
      handler: (ctx) => okRaw(withAttempts(load<WebhookEvent>(ctx, 'event', 'evt_', ctx.params.event_id, 'event'))),
    },
    {
      method: 'POST',
      path: '/webhooks/events/{event_id}/resend',
      op: 'resendWebhookEvent',
      handler: (ctx) => {
        const rec = load<WebhookEvent>(ctx, 'event', 'evt_', ctx.params.event_id, 'event');
        emptyOk(ctx);
        return okRaw(json(app.events.resend(ctx.tx, rec)), 202);
      },
    },
  ];
}
