// Read-only views over the ledger and the event log: transactions and webhook events.
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../shared/enums.js';
import type { Services } from '../services.js';
import { json } from '../store.js';
import type { QueryCheck, Rec, Route, Transaction, WebhookEvent } from '../types.js';
import { emptyOk, load, ok, okRaw, pageOf, qEnum, qId, TIME_QUERY } from './common.js';
import { isId } from '../../shared/domain.js';
import { DELIVERY_STATUSES, EVENT_TYPES } from '../../shared/events.js';

/** An event with its delivery attempts (GET /webhooks/events/{id}). */
const withAttempts = (rec: Rec<WebhookEvent>): string => `${json(rec).slice(0, -1)},"attempts":${JSON.stringify(rec.x?.attempts ?? [])}}`;

/**
 * The object an event is about, for the `object_id` filter: its data.object's id, or for a
 * FeatureStatus (which has no id of its own) its customer_id.
 */
export function eventObjectId(e: WebhookEvent): string | undefined {
  const o = e.data.object as { id?: unknown; object?: unknown; customer_id?: unknown } | null;
  if (o === null || typeof o !== 'object') return undefined;
  if (typeof o.id === 'string') return o.id;
  return o.object === 'feature_status' && typeof o.customer_id === 'string' ? o.customer_id : undefined;
}

/** Any object id: a lower-case type prefix and 24 characters of [0-9a-z]. */
const qObjectId: QueryCheck = (v) => (isId(v) ? undefined : 'must be an object id like tr_… or cus_…');

export function viewRoutes(app: Services): Route[] {
  app.store.index('transaction', (t: Transaction) => [t.account_id ? `account_id=${t.account_id}` : `wallet_id=${t.wallet_id}`]);
  app.store.index('event', (e: WebhookEvent) => {
    const id = eventObjectId(e);
    return id === undefined ? [] : [`object_id=${id}`];
  });

  return [
    {
      method: 'GET',
      path: '/transactions',
      op: 'listTransactions',
      list: true,
      query: {
        account_id: qId('acc_'),
        wallet_id: qId('wal_'),
        type: qEnum(TRANSACTION_TYPES),
        status: qEnum(TRANSACTION_STATUSES),
        ...TIME_QUERY,
      },
      handler: (ctx) => {
        const q = (k: string) => ctx.query.get(k);
        const [account, wallet, type, status] = [q('account_id'), q('wallet_id'), q('type'), q('status')];
        const index = account ? `account_id=${account}` : wallet ? `wallet_id=${wallet}` : undefined;
        const match =
          (account && wallet) || type || status
            ? (t: Transaction) =>
                (!account || t.account_id === account) &&
                (!wallet || t.wallet_id === wallet) &&
                (!type || t.type === type) &&
                (!status || t.status === status)
            : undefined;
        return okRaw(
          app.store.page(ctx.scope, 'transaction', { ...pageOf(ctx, ['account_id', 'wallet_id', 'type', 'status']), index, match }),
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
      query: { type: qEnum(EVENT_TYPES), status: qEnum(DELIVERY_STATUSES), object_id: qObjectId, ...TIME_QUERY },
      handler: (ctx) => {
        const type = ctx.query.get('type');
        const status = ctx.query.get('status');
        const object = ctx.query.get('object_id');
        const match =
          type || status ? (e: WebhookEvent) => (!type || e.type === type) && (!status || e.delivery.status === status) : undefined;
        return okRaw(
          app.store.page(ctx.scope, 'event', {
            ...pageOf(ctx, ['type', 'status', 'object_id']),
            index: object ? `object_id=${object}` : undefined,
            match,
          }),
        );
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
