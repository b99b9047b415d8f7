// pay webhooks: delivery history of events, re-delivery, and two local tools that call no API:
// verify (check one delivery's signature) and listen (a local receiver that verifies and forwards).
import { CREATED_RANGE, CREATED_RANGE_CHECK, type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { OPERATIONS } from './operations.js';
import { OBJECT_KINDS, type ObjectKind } from '../../shared/domain.js';
import { EVENT_TYPES } from '../../shared/events.js';

const EVT_ID = {
  name: '<id>',
  description: 'event id (evt_…)',
  idPrefix: 'evt_',
  pick: {
    list: 'webhooks/events',
    show: [
      { header: 'TYPE', path: 'type' },
      { header: 'DELIVERY', path: 'delivery.status', kind: 'status' },
    ],
    what: 'events',
  },
} as const;
const EX_EVT = 'evt_0123456789abcdefghijklmn';
/**
 * The id prefixes of the objects events are about (`--object`): each event type's object's (a kyc
 * event's is the verification's; a feature event, whose object has no id, counts as its customer's).
 */
const SUBJECT_OF: Readonly<Record<string, ObjectKind>> = { kyc: 'kyc_verification', feature: 'customer' };
export const EVENT_SUBJECTS = [
  ...new Set(
    EVENT_TYPES.map((type) => {
      const object = type.slice(0, type.indexOf('.'));
      return OBJECT_KINDS[SUBJECT_OF[object] ?? (object as ObjectKind)].prefix;
    }),
  ),
].join('|');

const SECRET_HELP =
  "webhook signing secret whsec_… (its base64 without whsec_ works too; default: PAY_WEBHOOK_SECRET, then the profile's webhook secret; for listen against the emulator, then the emulator's)";

const VERIFY_SUMMARY = 'Check the signature of one delivery (no network): prints valid, or invalid: <reason> and exits 1';
const LISTEN_SUMMARY =
  'Receive deliveries locally: verify, print and forward each one; against the emulator, register itself as its webhook URL';

export const webhooks: GroupSpec = fromContract(OPERATIONS, {
  name: 'webhooks',
  summary: 'Webhook events and their deliveries; verify signatures and receive deliveries locally',
  noun: 'event',
  examples: [
    'pay webhooks list --status failed',
    'pay webhooks resend evt_0123456789abcdefghijklmn',
    'pay webhooks listen --port 8788 --forward-to http://localhost:3000/webhooks',
  ],
  description:
    'Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers). ' +
    'verify and listen check signatures in constant time and refuse timestamps more than 5 minutes away; they call no API operation ' +
    "(listen talks only to a local emulator's admin routes, to take its webhook URL).",
  columns: [
    { header: 'ID', path: 'id', priority: 1 },
    // An event type is a name to copy (pay webhooks list --type …): shown whole or hidden, never cut.
    { header: 'TYPE', path: 'type', kind: 'id', priority: 2 },
    { header: 'DELIVERY', path: 'delivery.status', kind: 'status', priority: 3 },
    { header: 'ATTEMPTS', path: 'delivery.attempts', kind: 'number', priority: 4 },
    { header: 'LAST CODE', path: 'delivery.last_response_code', kind: 'number', priority: 5 },
    { header: 'LAST ATTEMPT', path: 'delivery.last_attempt_at', kind: 'time', priority: 6 },
    { header: 'CREATED', path: 'created_at', kind: 'time', priority: 7 },
  ],
  verbs: [
    {
      name: 'list',
      summary: 'List events with their delivery status (the delivery history)',
      description:
        '--object picks the events about one object: those whose data.object.id is that id (a customer also gets its ' +
        "feature.activated events). --since and --until bound the events' created_at: a date (YYYY-MM-DD, midnight UTC), an " +
        "RFC 3339 time, or a duration back from now (30m, 2h, 1h30m, 7d, 2w; this machine's clock); --until is exclusive.",
      examples: [
        'pay webhooks list',
        'pay webhooks list --status failed --since 2h --json',
        'pay webhooks list --object tr_0123456789abcdefghijklmn',
        'pay webhooks list --type transfer.completed --since 2026-01-01 --until 2026-02-01 --all -o ndjson',
      ],
      operationId: 'listWebhookEvents',
      flags: [
        {
          flags: '--type <type>',
          query: 'type',
          description: 'only this event type (e.g. transfer.completed)',
        },
        { flags: '--status <status>', query: 'status', description: 'only this delivery status' },
        {
          flags: '--object <id>',
          query: 'object_id',
          kind: 'id',
          idPrefix: EVENT_SUBJECTS,
          description: 'only the events about this object (its data.object.id: a cus_…, tr_…, card_…, …)',
        },
        ...CREATED_RANGE,
      ],
      constraints: [CREATED_RANGE_CHECK],
      jsonShape:
        'an array of Event objects ({id: "evt_…", type, created_at, data: {object}, delivery: {status, attempts, last_response_code, last_attempt_at, next_attempt_at}})',
    },
    {
      name: 'get',
      arg: EVT_ID,
      summary: 'Show an event, its payload and every delivery attempt',
      examples: [`pay webhooks get ${EX_EVT}`, `pay webhooks get ${EX_EVT} --json`],
      operationId: 'getWebhookEvent',
      tables: [
        {
          title: 'Delivery attempts',
          path: 'attempts',
          columns: [
            { header: 'ID', path: 'id', priority: 1 },
            { header: 'ATTEMPTED', path: 'attempted_at', kind: 'time', priority: 2 },
            { header: 'CODE', path: 'response_code', kind: 'number', priority: 3 },
            { header: 'MS', path: 'duration_ms', kind: 'number', priority: 5 },
            { header: 'ERROR', path: 'error', priority: 4 },
            { header: 'URL', path: 'url', priority: 6 },
          ],
        },
      ],
      jsonShape: 'the Event object plus attempts: [{id: "whd_…", attempted_at, response_code, duration_ms, error, url}]',
    },
    {
      name: 'resend',
      arg: EVT_ID,
      summary: 'Deliver an event again (its delivery is requeued)',
      examples: [`pay webhooks resend ${EX_EVT}`, `pay webhooks resend ${EX_EVT} --json`],
      operationId: 'resendWebhookEvent',
      done: 'Requeued',
      description:
        'With --wait, pay waits until the delivery is over: exit 0 when delivered, 1 when it failed (every retry) or is disabled. ' +
        'Without a webhook URL to deliver to, the event stays pending (no attempt scheduled): --wait says so at once, then waits, ' +
        'in case one is set meanwhile (pay webhooks listen), and gives up at --wait-timeout.',
      jsonShape: 'the Event object, its delivery pending again; with --wait, as delivered',
      wait: {
        until: 'be delivered',
        object: 'event',
        idPrefix: 'evt_',
        poll: 'webhooks/events/{id}',
        statusField: 'delivery.status',
        pending: ['pending'],
        success: ['delivered'],
        failure: ['failed', 'disabled'],
        reasonField: 'delivery.last_response_code',
        show: 'pay webhooks get {id}',
        stalled: {
          field: 'delivery.next_attempt_at',
          note:
            'no delivery attempt is scheduled: the service has no webhook URL to send it to, so it stays pending until one is set ' +
            '(the emulator: pay emulator webhook-url <url>, or run pay webhooks listen)',
        },
      },
    },
  ],
  // Local tools that call no API operation: tooling commands of the group (its defaults, 8788 and
  // 127.0.0.1, said in the flags' help as a verb's were, and applied by listen-run.ts).
  commands: [
    {
      name: 'verify',
      summary: VERIFY_SUMMARY,
      description:
        `${VERIFY_SUMMARY}\n\n` +
        'Give the raw body with --payload (a file, or - for standard input) and the three headers, either as ' +
        '--header "webhook-id: …" (repeated, e.g. pasted from a log) or as --id, --timestamp and --signature. ' +
        "Svix's header names (svix-id, svix-timestamp, svix-signature) are read too.",
      examples: [
        'pay webhooks verify --payload body.json --header "webhook-id: evt_0123456789abcdefghijklmn" --header "webhook-timestamp: 1767225600" --header "webhook-signature: v1,K5oZ…="',
        'cat body.json | pay webhooks verify --payload - --id evt_0123456789abcdefghijklmn --timestamp 1767225600 --signature "v1,K5oZ…=" --secret "$WHSEC"',
      ],
      // valid, or invalid: <reason>; or JSON: no table, TSV or CSV.
      output: { projection: false, formats: ['json', 'ndjson'] },
      options: [
        { flags: '--payload <file>', description: 'the raw request body: a file, or - (or @-) for standard input (required)' },
        { flags: '--secret <whsec>', description: SECRET_HELP },
        { flags: '--header <line>', repeatable: true, description: 'a delivery header as "name: value"; repeat for each' },
        { flags: '--id <webhook-id>', description: 'value of the webhook-id header' },
        { flags: '--timestamp <seconds>', description: 'value of the webhook-timestamp header (unix seconds)' },
        { flags: '--signature <sig>', description: 'value of the webhook-signature header ("v1,<base64>", space-separated if several)' },
      ],
      prints: {
        json: '{valid: true, webhook_id, timestamp}; when invalid, stdout stays empty and stderr has {"error": {code: "invalid_signature", message}}',
      },
      run: () => import('./verify.js').then((m) => m.run),
    },
    {
      name: 'listen',
      summary: LISTEN_SUMMARY,
      description:
        `${LISTEN_SUMMARY}\n\n` +
        'Starts an HTTP receiver. Each POST is verified with the webhook secret (Standard Webhooks headers, or their Svix names ' +
        'svix-id, svix-timestamp, svix-signature); invalid signatures and stale timestamps get 400 and a line on stderr.\n\n' +
        'Against the emulator (a pay emulator answers at the base URL; see pay emulator status) it registers its own URL as the ' +
        "emulator's webhook URL for the mode it runs in (each mode has its own: --live listens for Live events), so that mode's " +
        'events still pending delivery and every new one come to it, and on Ctrl-C gives the URL back ' +
        '(only if it is still its own: a listen started after it keeps it). With no secret configured it verifies with the ' +
        "emulator's own. Against any other service it prints the URL to register there, and listens.\n\n" +
        'One line per delivery on stdout: --> customer.created [evt_…], with (repeat 2) when the webhook-id came before (a retry or ' +
        'a resend); with --forward-to, then <-- [200] POST <url> (12 ms) [evt_…] (the delivery id again, to pair the lines of concurrent deliveries), or <-- [error] … when the target does not answer. ' +
        '--json (or -o ndjson; no table, TSV or CSV) prints one JSON object per delivery instead. Every delivery is forwarded, repeats included (the raw body and headers; ' +
        "https://, or http:// to loopback, with no user name or password; never this listen's own address), and the sender gets the target's status, 3xx included, never followed (502 when it does not answer, so it retries). " +
        "Each forward carries a pay-listen-hop header: a delivery that arrives with it came through another listen's --forward-to, and is answered 508 Loop Detected with one line on stderr, never forwarded (two listens forwarding to each other would pass it back and forth forever). " +
        '--skip-duplicates acknowledges a repeat of an accepted webhook-id (200) without printing or forwarding it. ' +
        '--events forwards only those types and acknowledges the others silently. Ctrl-C, SIGTERM or SIGHUP (its terminal closed) stops it (exit 0) at once: ' +
        'forwards still in flight are cut off (their sender gets 502 and retries them later), and the stop line says how many.',
      examples: [
        'pay webhooks listen --forward-to http://localhost:3000/webhooks',
        'pay webhooks listen --events transfer.completed,transfer.failed --json',
        'pay webhooks listen --print-secret',
        'pay webhooks listen --port 8788 --skip-duplicates',
      ],
      // Its own lines, or one JSON object per delivery (-o json and -o ndjson print the same lines): no table, TSV or CSV.
      output: { projection: false, formats: ['json', 'ndjson'] },
      options: [
        { flags: '--port <port>', description: 'port to listen on (0: any free port) (default: 8788)' },
        { flags: '--host <host>', description: 'address to bind (default: 127.0.0.1)' },
        {
          flags: '--forward-to <url>',
          description: 'also POST each verified delivery here (https://, or http:// to localhost; no user:password@)',
        },
        { flags: '--events <types>', description: 'only these event types, comma-separated (e.g. customer.created,transfer.failed)' },
        {
          flags: '--skip-duplicates',
          description: 'acknowledge a repeat of an accepted webhook-id without printing or forwarding it',
        },
        {
          flags: '--print-secret',
          description: 'print the webhook secret deliveries are verified with (a JSON string with --json), and exit',
        },
        { flags: '--secret <whsec>', description: SECRET_HELP },
      ],
      prints: {
        json: 'one object per delivery (NDJSON): {webhook_id, type, repeat, received_at, forward: {url, status, duration_ms, error} | null, event: the payload as delivered ({id, type, created_at, data})}',
      },
      run: () => import('./listen-run.js').then((m) => m.run),
    },
  ],
});
