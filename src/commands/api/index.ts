// `pay api <method> <path>`: declaration only (start-up path); run.ts runs it.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const api: CommandDecl = {
  name: 'api',
  args: [
    { name: '<method>', description: 'GET, POST, PATCH, PUT or DELETE' },
    { name: '<path>', description: 'path under the base URL, e.g. customers or /accounts/acc_…' },
  ],
  summary: 'Send a raw request to the API',
  description:
    "Send a raw request (like gh api) with the profile's key, tenant and an Idempotency-Key on POST; prints the response body.\n\n" +
    'In live mode a POST, PUT, PATCH or DELETE to an operation that moves money or destroys something (a transfer, a ' +
    'collection, an FX trade, closing an account, …), or to a path the contract does not describe, shows the method, ' +
    'the path and the body and asks first on a terminal; elsewhere it needs --yes (exit 2, nothing sent).',
  options: [
    { flags: '--data <json>', description: 'request body: JSON, @file or @- for stdin' },
    {
      flags: '-F, --field <key=value...>',
      description: 'a body field (dotted keys nest); on GET, a query parameter',
      repeatable: true,
      default: [],
    },
    { flags: '--idempotency-key <key>', description: 'Idempotency-Key to send on POST (default: a fresh UUID)' },
    { flags: '-i, --include', description: 'print the status line and response headers to stderr' },
    {
      flags: '--paginate',
      description: 'GET lists: follow next_cursor and print every item as one JSON array (a single object is printed as it is)',
    },
    {
      flags: '-y, --yes',
      description: 'live mode: send a request that moves money or destroys without asking (needed without a terminal)',
    },
  ],
  // JSON only: -o json (default) or ndjson, --json (the same), --jq.
  output: { projection: false, formats: ['json', 'ndjson'] },
  dryRun: true,
  examples: [
    'pay api GET accounts',
    'pay api POST customers --data @customer.json',
    'pay api GET transactions -F account_id=acc_… --paginate',
    "pay api GET accounts --paginate --jq '.[].id'",
    'pay api POST customers --data @customer.json --dry-run',
    'pay api POST transfers --live --yes --data @transfer.json',
  ],
  prints: { json: 'the response body as the API returned it' },
  run: () => import('./run.js').then((m) => m.run),
};
