// `pay seed apply|plan`: declarations only (start-up path); run.ts runs them.
import type { CommandDecl } from '../../cmdutil/decl.js';

const allowEnv = {
  flags: '--allow-env <name>',
  description: 'let ${env.NAME} read this secret-looking variable (repeatable)',
  repeatable: true,
} as const;

export const seed: CommandDecl = {
  name: 'seed',
  summary: 'Create declarative test data that re-runs never duplicate',
  description:
    'Create the customers, KYC verifications (with their documents), feature activations, accounts, external accounts, collections, cards, wallets, payment links, transfers and FX trades a YAML or JSON file describes.\n' +
    "Entries refer to earlier ones by name (${customers.alice.id}) and to the environment (${env.NAME}). Each entry's Idempotency-Key comes from the tenant, the mode, its name and its content, so a re-run, a retry or a killed run never duplicates anything.\n" +
    "The business rules (pay help rules) order entries too: a card, wallet, payment link or payout waits for its customer's last kyc entry (approved: apply waits for the review) and features entries, a collection or FX trade for its features entry. A customer's kyc entries run in file order, each after the one before is decided.\n" +
    'A state file (<file>.state.json) records what each entry was made from: an edited entry is updated in place where the API has an update (customers), or replaced with --replace (the old object closed, terminated, disabled or removed where the API allows). Without the state file edits are not detected.',
  examples: ['pay seed plan sandbox.yaml', 'pay seed apply sandbox.yaml --json > ids.json'],
  subcommands: [
    {
      name: 'apply',
      args: [{ name: '<file>', description: 'seed file (.yaml, .yml or .json)' }],
      summary: 'Create what the file describes and is not yet done, update or replace edited entries; print names and ids',
      description:
        'Create what the file describes and is not yet done, update edited entries in place; print names and ids.\n' +
        "An entry the API cannot update (an account's currency, or anything referring to a replaced entry) must be replaced: without --replace apply sends nothing and exits 2 naming those entries.\n" +
        'The state file is checked before anything is sent: what it records is read back, what the service no longer has is created again, and a record that is not what the service has (another object, other links) stops the run (exit 1). Live mode asks before moving money or retiring objects (--yes where no terminal can ask).',
      options: [
        { flags: '--state <file>', description: 'state file (default: <file>.state.json)' },
        { flags: '--concurrency <n>', description: 'entries in flight at once (1-64)', default: '8' },
        {
          flags: '--replace',
          description:
            'create a new object for an entry that cannot be updated in place, and retire the old one where the API allows (transfers, collections and FX trades stay: they are history)',
        },
        { flags: '--dry-run', description: 'send nothing; show what would be created, updated, replaced or skipped' },
        { flags: '-y, --yes', description: 'live mode: move money and retire objects without asking (needed where no terminal can ask)' },
        allowEnv,
      ],
      output: { projection: true, fields: ['ref', 'action', 'id', 'status', 'old_id', 'old_status', 'error', 'refused', 'mismatch'] },
      examples: [
        'pay seed apply sandbox.yaml',
        'pay seed apply sandbox.yaml --json > ids.json',
        'pay seed apply sandbox.yaml --replace',
        'pay seed apply ci.json --concurrency 16 --no-input',
      ],
      prints: {
        json: 'an object mapping each entry ("customers.alice") to its id (and state_set_aside: {path, reason, moved_to} when the state file was set aside); -o ndjson: {ref, action, id, status, old_id?, old_status?, error?, refused?, mismatch?} per entry; --fields picks from those rows, so --json --fields prints the rows as one array, not the map',
      },
      run: () => import('./run.js').then((m) => m.apply),
    },
    {
      name: 'plan',
      args: [{ name: '<file>', description: 'seed file' }],
      description: 'Show what apply would do per entry: create, skip, update (in place) or replace (from the state file; sends nothing)',
      options: [{ flags: '--state <file>', description: 'state file (default: <file>.state.json)' }, allowEnv],
      output: { projection: true, fields: ['ref', 'action', 'id', 'detail'] },
      examples: [
        'pay seed plan sandbox.yaml',
        'pay seed plan sandbox.yaml -o ndjson',
        'pay seed plan sandbox.yaml -o ndjson | jq -c \'select(.action == "replace")\'',
      ],
      prints: {
        json: 'an object mapping each entry to its id (null when it would be created), retire: [{ref, id}] (what apply --replace would retire) and state_set_aside when the state file would be set aside; -o ndjson: {ref, action, id?, detail} per entry, action "retire" for what apply --replace would retire; --fields picks from those rows, so --json --fields prints the rows as one array, not the map',
      },
      run: () => import('./run.js').then((m) => m.plan),
    },
  ],
};
