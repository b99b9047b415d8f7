// Read-only views over the ledger and the event log: transactions and webhook events.
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../shared/enums.js';
import type { Services } from '../services.js';
import { json } from '../store.js';
import type { QueryCheck, Rec, Route, Transaction, WebhookEvent } from '../types.js';
import { emptyOk, okRaw, qEnum, qId } from './common.js';
import { fromPath, getRoute, listAndGet, listRoute, resource } from './routes.js';
import { isId } from '../../shared/domain.js';
import { DELIVERY_STATUSES, EVENT_TYPES } from '../../shared/events.js';

const TRANSACTION = resource<Transaction>({ kind: 'transaction', noun: 'transaction', path: '/transactions', param: 'transaction_id' });
const EVENT = resource<WebhookEvent>({ kind: 'event', noun: 'event', path: '/webhooks/events', param: 'event_id' });

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
    ...listAndGet(TRANSACTION, {
      filters: {
        account_id: qId('acc_'),
        wallet_id: qId('wal_'),
        type: qEnum(TRANSACTION_TYPES),
        status: qEnum(TRANSACTION_STATUSES),
      },
      indexes: ['account_id', 'wallet_id'],
    }),
    listRoute(EVENT, {
      op: 'listWebhookEvents',
      filters: {
        type: qEnum(EVENT_TYPES),
        status: { check: qEnum(DELIVERY_STATUSES), test: (status) => (e) => e.delivery.status === status },
        object_id: qObjectId,
      },
      indexes: ['object_id'],
    }),
    getRoute(EVENT, 'getWebhookEvent', (rec) => okRaw(withAttempts(rec))),
    {
      method: 'POST',
      path: '/webhooks/events/{event_id}/resend',
      op: 'resendWebhookEvent',
      handler: (ctx) => {
        const rec = fromPath(EVENT, ctx);
        emptyOk(ctx);
        return okRaw(json(app.events.resend(ctx.tx, rec)), 202);
      },
    },
  ];
}
