// `pay api <method> <path>`: declaration only (start-up path); run.ts runs it.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const api: CommandDecl = {
  name: 'api',
  args: [
    { name: '<method>', description: 'GET, POST, PATCH, PUT or DELETE' },
    { name: '<path>', description: 'path under the base URL, e.g. customers or /accounts/acc_…' },
  ],
  summary: 'Send a raw request to the API',
  description: "Send a raw request (like gh api) with the profile's key, tenant and an Idempotency-Key on POST; prints the response body.",
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
  ],
  prints: { json: 'the response body as the API returned it' },
  run: () => import('./run.js').then((m) => m.run),
};
