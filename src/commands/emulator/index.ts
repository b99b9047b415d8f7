// `pay emulator start` and the verbs that drive a running emulator: declarations only (start-up
// path). The server loads lazily on run (start.ts); the verbs talk to the admin routes at the
// resolved base URL's origin through the Factory's admin client (admin.ts, requests.ts).
import type { CommandDecl } from '../../cmdutil/decl.js';

/** What `pay emulator requests` prints and --fields may name (the admin route's entries). */
export const REQUEST_FIELDS = [
  'seq',
  'received_at',
  'method',
  'path',
  'status',
  'duration_ms',
  'request_id',
  'idempotency_key',
  'replayed',
  'query',
  'headers',
  'body',
  'body_bytes',
  'body_truncated',
] as const;

const DRIVES =
  'It acts on the emulator behind the base URL (--base-url, PAY_BASE_URL, the profile, or http://127.0.0.1:8787/v1/), ' +
  'which must be a loopback address. It checks first that a pay emulator answers there (its health answer and its Pay-Emulator ' +
  'header): any other server is exit 2 and nothing is sent to it but that check; nothing answering is exit 6.';

/** For the verbs that change the emulator (a POST to its admin routes). */
const DRY =
  ' --dry-run makes that check, then prints the request that would change the emulator (method, URL, body) instead of sending it.';

const FAULT_FLAGS = [
  {
    flags: '--fail-rate <p>',
    description: 'answer this share of requests (0-1) with 500/503, half of them after the write committed',
  },
  { flags: '--latency <min-max>', description: 'add a random delay in ms to every request, e.g. 50-200' },
  { flags: '--reset-rate <p>', description: 'drop the connection without answering for this share of requests (0-1)' },
  {
    flags: '--rate-limit <n/s>',
    description: 'allow this many requests per second per key (429 with Retry-After beyond), e.g. 20/s',
  },
] as const;

export const emulator: CommandDecl = {
  name: 'emulator',
  summary: 'Run a local stand-in for the service',
  description:
    'A local, stateful, persistent stand-in for the payments service, serving the whole API contract (pay openapi). ' +
    'start runs one; the other commands drive the one behind the base URL (status, reset, clock advance, webhook-url, faults, requests).',
  examples: [
    'pay emulator start',
    'pay emulator start --port 0 --data-dir .pay-emulator --configure-profile local',
    'pay emulator status',
    'pay emulator requests --follow --status 4xx',
  ],
  subcommands: [
    {
      name: 'start',
      summary: 'Start the emulator (runs until Ctrl-C)',
      description:
        'Start the emulator and print its base URL, tenant id, keys and webhook secrets (its own test keys) on stderr. ' +
        'It runs until Ctrl-C (SIGINT), SIGTERM or SIGHUP (its terminal closed).\n\n' +
        'State is in memory unless --data-dir is given; with a data dir it survives restarts (even kill -9) and keeps the same keys ' +
        "and each mode's webhook URL (a running pay webhooks listen keeps receiving); faults are not kept. " +
        'A data dir holding a file the emulator cannot account for (a journal without its snapshot, an unknown name or generation, ' +
        'a link or fifo in place of a journal) refuses the start (exit 1) naming it; --set-aside-unknown moves such files aside. ' +
        'It never deletes what it did not write.\n\n' +
        'Accounts get money from collections: `pay collections create --account acc_… --amount 1000.00 --currency USD --method card` ' +
        'credits the account once it settles (--settle-after).\n\n' +
        'Drive it from another terminal: pay emulator status, reset, clock advance <duration>, webhook-url [<url>|--clear], ' +
        'faults, requests [--follow]; pay webhooks listen registers itself as its webhook URL. ' +
        'They use its admin routes (no key, loopback clients only) under /__emulator/.\n\n' +
        'Web pages cannot reach it: a request whose Host is not localhost, 127.x.x.x, [::1] or the --host address is refused (403), ' +
        'so is one with an Origin header (unless --allow-origin names it) and every CORS preflight; no answer carries Access-Control-* headers.',
      options: [
        { flags: '--host <host>', description: 'address to listen on', default: '127.0.0.1' },
        { flags: '--port <n>', description: 'port to listen on; 0 picks a free one', default: '8787' },
        { flags: '--data-dir <dir>', description: 'keep state, keys and webhook URLs in this folder across restarts' },
        {
          flags: '--set-aside-unknown',
          description:
            'with --data-dir: move the files there it cannot account for (which refuse the start, named) into set-aside-<UTC time>/ there, then start; nothing is deleted',
        },
        {
          flags: '--webhook-url <url>',
          description:
            "POST signed Sandbox webhook events to this URL (each mode has its own; Live's: pay --live emulator webhook-url); with --data-dir, it replaces the one kept from the last run",
        },
        {
          flags: '--configure-profile <name>',
          description: 'write a profile pointing at this emulator (keys, tenant, base URL, webhook secrets)',
        },
        ...FAULT_FLAGS,
        {
          flags: '--settle-after <ms>',
          description: 'pending transfers, collections, KYC reviews and physical cards settle after this long',
          default: '1000',
        },
        {
          flags: '--allow-origin <origin>',
          description: 'serve requests carrying this Origin header (e.g. http://localhost:3000; repeatable); others are refused',
          repeatable: true,
        },
      ],
      examples: [
        'pay emulator start',
        'pay emulator start --port 0 --data-dir .pay-emulator --configure-profile local',
        'pay emulator start --webhook-url http://127.0.0.1:9000/hooks --settle-after 200',
        'pay emulator start --fail-rate 0.1 --latency 20-200 --rate-limit 50/s   # rehearse retries',
      ],
      prints: {
        note:
          "nothing on stdout. On stderr, the base URL, the tenant id and the emulator's own test keys and\n" +
          'webhook secrets (whole: they work only here), then errors, if any. Ctrl-C, SIGTERM or SIGHUP stops it with exit 0.',
      },
      run: () => import('./start.js').then((m) => m.run),
    },
    {
      name: 'status',
      summary: 'Show the emulator behind the base URL: version, uptime, clock, webhook URLs, faults, object counts, journal',
      description: `Show what the emulator behind the base URL is doing. ${DRIVES}`,
      output: { projection: false },
      examples: ['pay emulator status', 'pay emulator status --json', 'pay -p local emulator status --jq .webhook_urls.sandbox'],
      prints: {
        json: '{base_url, version, url, started_at, uptime_s, data_dir, clock: {now, offset_ms}, webhook_urls: {sandbox, live}, faults: {fail_rate, latency_ms, reset_rate, rate_limit}, objects: {<kind>: n}, webhooks: {pending, delivered, failed}, requests, journal: {enabled, writable, size, disk_error_episodes}}',
      },
      run: () => import('./admin.js').then((m) => m.status),
    },
    {
      name: 'reset',
      summary: 'Forget all data in the emulator (its keys and settings stay)',
      description:
        'Forget every object, event, idempotency key and logged request, and set the clock back; the keys, tenant, webhook URL ' +
        `and faults stay. Asks first on a terminal; elsewhere --yes is needed (exit 2 without it, nothing done). ${DRIVES}${DRY}`,
      options: [{ flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' }],
      output: { projection: false, formats: ['json'] },
      dryRun: true,
      examples: ['pay emulator reset', 'pay emulator reset --yes', 'pay emulator reset --dry-run --json'],
      prints: { json: '{reset: true, emulator: "<its origin>"}; without --json, nothing on stdout and "✓ Emulator reset" on stderr' },
      run: () => import('./admin.js').then((m) => m.reset),
    },
    {
      name: 'clock',
      summary: "Move the emulator's clock (settlements, expiries, webhook retries follow it)",
      description: "The emulator's clock: real time plus an offset that only moves forward.",
      examples: ['pay emulator clock advance 25h', 'pay emulator clock advance 1h30m --json'],
      subcommands: [
        {
          name: 'advance',
          args: [{ name: '<duration>', description: 'how far: 90s, 15m, 25h, 7d, 2w, or several units from the largest down, 1h30m' }],
          summary: "Move the emulator's clock forward; what became due (settlements, expiries, retries) happens now",
          description:
            'Move the clock forward by a duration: a whole number and a unit (s, m, h, d, w), or several from the largest unit ' +
            `down with nothing between them (1h30m, 2d12h); at most 10 years. Prints the new emulator time. Everything due up to it ` +
            "happens, in time order, before it answers: what that causes too (a failed webhook attempt's retries, a settlement's " +
            'event), so after a dead webhook URL, 2d takes an event through every retry to failed (an endpoint that keeps the ' +
            `emulator waiting over 20 s: the rest goes on from the new time, with a warning). ${DRIVES}${DRY}`,
          output: { projection: false, formats: ['json'] },
          dryRun: true,
          examples: ['pay emulator clock advance 90s', 'pay emulator clock advance 7d', 'pay emulator clock advance 1h30m --json'],
          prints: { json: '{now, offset_ms, caught_up, advanced_s}; without --json, the new time (RFC 3339) on stdout' },
          run: () => import('./admin.js').then((m) => m.clockAdvance),
        },
      ],
    },
    {
      name: 'webhook-url',
      args: [{ name: '[url]', description: 'where the emulator delivers events from now on (http:// or https://)' }],
      summary: 'Show, set or clear where the emulator delivers webhook events (of the mode it runs in)',
      description:
        'Each mode has its own webhook URL, as a real service has webhook endpoints per mode: Sandbox events go to the Sandbox ' +
        'URL, signed with the Sandbox secret, Live events to the Live one. This command acts on the URL of the mode it runs in ' +
        "(--live, PAY_MODE or the profile's; pay emulator status shows both).\n\n" +
        'Without an argument, print the webhook URL (nothing, and a note on stderr, when none is set). With one, set it: ' +
        "the mode's events still pending delivery (made while no URL was set) are delivered to it now. --clear unsets it: new events " +
        `stay pending. Setting or clearing it by hand ends the claim of any running pay webhooks listen of that mode (it will not restore its predecessor). ${DRIVES}${DRY}`,
      options: [{ flags: '--clear', description: 'unset the webhook URL (events stay pending until one is set)' }],
      output: { projection: false, formats: ['json'] },
      dryRun: true,
      examples: ['pay emulator webhook-url', 'pay emulator webhook-url http://127.0.0.1:3000/hooks', 'pay emulator webhook-url --clear'],
      prints: { json: '{mode, url} (url null when none is set); without --json, the URL on stdout' },
      run: () => import('./admin.js').then((m) => m.webhookUrl),
    },
    {
      name: 'faults',
      summary: "Show or change the emulator's injected faults (fail rate, latency, resets, rate limit)",
      description:
        'Without flags, print the fault settings. With flags, change those named (the same syntax as pay emulator start; ' +
        `--latency off and --rate-limit off remove them, a rate of 0 switches it off) and print the result. --clear resets them all. ` +
        'Faults last until the emulator stops: a restart, even on the same --data-dir, starts with only those its start flags name ' +
        `(pay emulator status shows none otherwise), while its data, keys and webhook URLs are kept. ${DRIVES}${DRY}`,
      options: [...FAULT_FLAGS, { flags: '--clear', description: 'switch every fault off (fail rate, latency, resets, rate limit)' }],
      output: { projection: false },
      dryRun: true,
      examples: [
        'pay emulator faults',
        'pay emulator faults --fail-rate 0.1 --latency 20-200',
        'pay emulator faults --rate-limit 5/s',
        'pay emulator faults --clear',
      ],
      prints: { json: '{fail_rate, latency_ms: [min, max] | null, reset_rate, rate_limit: {per_second, burst} | null}' },
      run: () => import('./admin.js').then((m) => m.faults),
    },
    {
      name: 'requests',
      summary: 'List the API requests the emulator answered (method, path, status, duration, ids); --follow streams new ones',
      description:
        'The requests the emulator received and answered, oldest first: method, path, status, duration, request id, ' +
        'idempotency key and whether the answer was replayed (keys and secrets in headers and bodies are masked). The emulator ' +
        'keeps the last 1000. --status and --path filter; --limit (default 20) keeps the newest. --follow prints only new ' +
        'requests, each as it is answered, until Ctrl-C (exit 0); with --json it prints one JSON object per line. While it ' +
        'follows, an emulator that stops answering is asked again until it is back (a note on stderr when it goes and when it ' +
        'returns; a restarted one is followed from the start of its new log). ' +
        `${DRIVES}`,
      options: [
        { flags: '--follow', description: 'print new requests as they are answered, until Ctrl-C' },
        { flags: '--status <status>', description: 'only these answers: 2xx, 3xx, 4xx, 5xx, or one code such as 404' },
        {
          flags: '--path <pattern>',
          description:
            'only these paths: a prefix (/v1/customers), or a glob (* within a segment, a ** segment any number of segments); without a leading /, under /v1/',
        },
        { flags: '--limit <n>', description: 'how many of the newest to list (1-1000, default 20; not with --follow)' },
      ],
      output: { projection: true, fields: REQUEST_FIELDS },
      examples: [
        'pay emulator requests',
        'pay emulator requests --status 4xx --limit 50',
        'pay emulator requests --path /v1/transfers -o ndjson',
        "pay emulator requests --path 'customers/*/kyc' --json",
        'pay emulator requests --follow',
      ],
      prints: {
        json: 'an array of {seq, received_at, method, path, status, duration_ms, request_id, idempotency_key, replayed, query, headers, body, body_bytes, body_truncated}; with --follow, one object per line',
      },
      run: () => import('./requests.js').then((m) => m.run),
    },
  ],
};
