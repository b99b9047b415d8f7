// The webhook delivery: what the service POSTs to the configured webhook URL (OpenAPI 3.1 `webhooks`).
import { schemaRef } from './common.js';
import { WEBHOOK_PAYLOAD_EXAMPLE } from './examples.js';
import type { ParameterObject, PathItemObject } from './types.js';

const header = (name: string, description: string, pattern: string): ParameterObject => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', pattern },
});

export const webhooks: Record<string, PathItemObject> = {
  event: {
    post: {
      operationId: 'deliverWebhookEvent',
      summary: 'An event delivered to your webhook URL',
      description:
        'Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>` where the key ' +
        'is the base64-decoded part of the webhook secret `whsec_<base64>`. Verify in constant time and reject timestamps more than 5 minutes away ' +
        '(`pay webhooks verify`, `pay webhooks listen`). Any 2xx marks the event `delivered`; anything else (or no answer within the timeout) is ' +
        'retried after 5 s, 30 s, 2 min and 10 min, then the delivery is `failed`.',
      tags: ['webhooks'],
      security: [],
      parameters: [
        header('webhook-id', 'The event id (`evt_…`); the same on every retry, use it to de-duplicate.', '^evt_[0-9a-z]{24}$'),
        header('webhook-timestamp', 'Unix seconds when this attempt was signed.', '^[0-9]{1,12}$'),
        header('webhook-signature', 'Space-separated signatures, each `v1,<base64>`.', '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$'),
      ],
      requestBody: {
        description: 'The event: `{id, type, created_at, data: {object}}`.',
        required: true,
        content: { 'application/json': { schema: schemaRef('WebhookPayload'), example: WEBHOOK_PAYLOAD_EXAMPLE } },
      },
      responses: {
        '200': { description: 'Received (any 2xx counts as delivered).' },
        default: { description: 'Any other answer (or none within the timeout): the event is retried.' },
      },
    },
  },
};
