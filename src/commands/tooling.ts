// Tooling commands: log-in and profiles, raw API calls, the contract, the emulator.
// Registration only (start-up path); each action imports its implementation.
import type { Command } from 'commander';
import { registerEmulator } from './emulator/index.js';
import { addOutputOptions, examplesText } from '../cmdutil/registry.js';

type Run = (command: Command, ...args: string[]) => Promise<void>;

/** Wires a command's action to `run` in a lazily imported module. */
export function lazyAction(cmd: Command, load: () => Promise<{ run: Run }>): Command {
  return cmd.action(async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const { run } = await load();
    await run(command, ...(args.slice(0, -2) as string[]));
  });
}

/**
 * Examples and, for a command that runs, what it prints: `JSON output: <shape>` when it prints
 * data, else an `Output: …` note (what goes where; these have no --json).
 */
function withExamples(cmd: Command, examples: string[], output?: { json: string } | { note: string }): Command {
  const tail = !output ? '' : 'json' in output ? `\nJSON output: ${output.json}\n` : `\nOutput: ${output.note}\n`;
  return cmd.addHelpText('after', examplesText(examples) + tail);
}

export function registerTooling(program: Command): void {
  const login = program
    .command('login')
    .summary('Store keys and the tenant id in a profile')
    .description(
      'Store keys and the tenant id in a profile (created if new).\n\n' +
        'On a terminal pay asks for the secret key (hidden), the public key, the tenant id and the webhook secret.\n' +
        'In scripts, pipe the secret key with --with-key; the other fields come from flags. --live stores the Live pair.',
    )
    .option('--with-key', 'read the secret key from standard input')
    .option('--public-key <key>', 'public key of the mode (pk_…)')
    .option(
      '--webhook-secret-stdin',
      'read the webhook secret (whsec_…) from standard input (after the key, on the next line, with --with-key)',
    )
    .option('--set-current', 'make this profile the current one (the first profile always is)');
  withExamples(
    login,
    [
      'pay login',
      'printf %s "$PAY_SANDBOX_KEY" | pay login --with-key --tenant biz_123',
      'pay login -p acme --live --base-url https://api.example.com/v1/',
    ],
    {
      note: 'nothing on stdout. On stderr, "✓ Logged in" with the profile, the mode and the secret key masked (sk_test_…a1b2). A key of the wrong mode or shape is exit 2 and nothing is stored.',
    },
  );
  lazyAction(login, () => import('./auth/login.js'));

  const logout = program
    .command('logout')
    .summary("Forget a profile's keys for the mode in use")
    .description(
      'Forget the secret key, public key and webhook secret of the mode in use (--live for Live). The tenant id and base URL stay; pay profiles remove deletes the whole profile.',
    );
  withExamples(logout, ['pay logout', 'pay logout -p acme --live'], {
    note: 'nothing on stdout; "✓ Logged out" on stderr. The other mode\'s keys stay. Exit 2 when the profile has no keys for the mode.',
  });
  lazyAction(logout, () => import('./auth/logout.js'));

  const profiles = program
    .command('profiles')
    .summary('List, show, switch and edit stored profiles')
    .description('List, show, switch and edit stored profiles. Keys are always shown masked.');
  withExamples(profiles, ['pay profiles list', 'pay profiles use acme', 'pay profiles set tenant_id biz_123']);
  const p = (name: string) => import('./profiles/run.js').then((m) => ({ run: m[name as 'list'] }));
  withExamples(
    addOutputOptions(profiles.command('list').description('List stored profiles (keys masked)'), false),
    ['pay profiles list', 'pay profiles list --json'],
    {
      json: 'an array of {name, current, tenant_id, sandbox: {secret_key (masked), public_key, base_url, webhook_secret (masked)}, live: {…}}',
    },
  );
  lazyAction(profiles.commands.at(-1)!, () => p('list'));
  withExamples(
    addOutputOptions(
      profiles.command('show').argument('[name]', 'profile (default: the one in use)').description('Show one profile (keys masked)'),
      false,
    ),
    ['pay profiles show', 'pay profiles show acme --json'],
    { json: 'one profile object as in profiles list' },
  );
  lazyAction(profiles.commands.at(-1)!, () => p('show'));
  withExamples(
    profiles.command('use').argument('<name>', 'profile').description('Make a profile the current one'),
    ['pay profiles use acme', 'pay profiles use default'],
    {
      note: 'nothing on stdout; "✓ Using profile" on stderr. Later commands use it unless -p or PAY_PROFILE names another. Exit 2 when there is no such profile.',
    },
  );
  lazyAction(profiles.commands.at(-1)!, () => p('use'));
  withExamples(
    profiles
      .command('remove')
      .argument('<name>', 'profile')
      .option('-y, --yes', 'do not ask for confirmation')
      .description('Delete a profile and its keys'),
    ['pay profiles remove old', 'pay profiles remove old --yes'],
    {
      note: 'nothing on stdout; "✓ Removed profile" on stderr. Asks first on a terminal; elsewhere --yes is needed (exit 2 without it). Exit 2 when there is no such profile.',
    },
  );
  lazyAction(profiles.commands.at(-1)!, () => p('remove'));
  withExamples(
    profiles
      .command('set')
      .argument('<key>', 'tenant_id, or [sandbox.|live.]secret_key|public_key|base_url|webhook_secret (the mode in use when not named)')
      .argument('<value>', 'the value; "-" reads it from standard input (use it for secrets)')
      .description('Set one setting of a profile (created if new)'),
    [
      'pay profiles set tenant_id biz_123',
      'pay profiles set live.base_url https://api.example.com/v1/',
      'printf %s "$KEY" | pay profiles set secret_key -',
    ],
    {
      note: 'nothing on stdout; "✓ Set" on stderr, keys and secrets masked. An unknown setting or a bad value is exit 2 and changes nothing.',
    },
  );
  lazyAction(profiles.commands.at(-1)!, () => p('set'));

  const api = program
    .command('api')
    .argument('<method>', 'GET, POST, PATCH, PUT or DELETE')
    .argument('<path>', 'path under the base URL, e.g. customers or /accounts/acc_…')
    .summary('Send a raw request to the API')
    .description(
      "Send a raw request (like gh api) with the profile's key, tenant and an Idempotency-Key on POST; prints the response body.",
    )
    .option('--data <json>', 'request body: JSON, @file or @- for stdin')
    .option('-F, --field <key=value...>', 'a body field (dotted keys nest); on GET, a query parameter', collect, [])
    .option('--idempotency-key <key>', 'Idempotency-Key to send on POST (default: a fresh UUID)')
    .option('-i, --include', 'print the status line and response headers to stderr')
    .option('--paginate', 'GET lists: follow next_cursor and print every item as one JSON array');
  withExamples(
    api,
    ['pay api GET accounts', 'pay api POST customers --data @customer.json', 'pay api GET transactions -F account_id=acc_… --paginate'],
    { json: 'the response body as the API returned it' },
  );
  lazyAction(api, () => import('./api/run.js'));

  const openapi = program
    .command('openapi')
    .summary('Print the API contract (OpenAPI 3.1)')
    .description('Print the OpenAPI 3.1 document of the API pay speaks: the contract the commands and the emulator follow.');
  withExamples(openapi, ['pay openapi > pay-openapi.json', 'pay openapi | jq ".paths | keys"'], { json: 'the OpenAPI document' });
  lazyAction(openapi, () => import('./openapi/run.js'));

  registerEmulator(program);

  const seed = program
    .command('seed')
    .summary('Create declarative test data that re-runs never duplicate')
    .description(
      'Create the customers, accounts, external accounts, collections, cards, wallets, payment links, transfers and FX trades a YAML or JSON file describes.\n' +
        "Entries refer to earlier ones by name (${customers.alice.id}) and to the environment (${env.NAME}). Each entry's Idempotency-Key comes from the tenant, the mode, its name and its content, so a re-run, a retry or a killed run never duplicates anything.\n" +
        'A state file (<file>.state.json) records what each entry was made from: an edited entry is updated in place where the API has an update (customers), or replaced with --replace (the old object closed, terminated, disabled or removed where the API allows). Without the state file edits are not detected.',
    );
  withExamples(seed, ['pay seed plan sandbox.yaml', 'pay seed apply sandbox.yaml --json > ids.json']);
  const s = (name: 'apply' | 'plan') => import('./seed/run.js').then((m) => ({ run: m[name] }));
  const seedApply = addOutputOptions(
    seed
      .command('apply')
      .argument('<file>', 'seed file (.yaml, .yml or .json)')
      .summary('Create what the file describes and is not yet done, update or replace edited entries; print names and ids')
      .description(
        'Create what the file describes and is not yet done, update edited entries in place; print names and ids.\n' +
          "An entry the API cannot update (an account's currency, or anything referring to a replaced entry) must be replaced: without --replace apply sends nothing and exits 2 naming those entries.\n" +
          'The state file is checked before anything is sent: what it records is read back, what the service no longer has is created again, and a record that is not what the service has (another object, other links) stops the run (exit 1). Live mode asks before moving money or retiring objects (--yes where no terminal can ask).',
      )
      .option('--state <file>', 'state file (default: <file>.state.json)')
      .option('--concurrency <n>', 'entries in flight at once (1-64)', '8')
      .option(
        '--replace',
        'create a new object for an entry that cannot be updated in place, and retire the old one where the API allows (transfers, collections and FX trades stay: they are history)',
      )
      .option('--dry-run', 'send nothing; show what would be created, updated, replaced or skipped')
      .option('-y, --yes', 'live mode: move money and retire objects without asking (needed where no terminal can ask)')
      .option('--allow-env <name>', 'let ${env.NAME} read this secret-looking variable (repeatable)', (v: string, prev: string[] = []) => [
        ...prev,
        v,
      ]),
    false,
  );
  withExamples(
    seedApply,
    [
      'pay seed apply sandbox.yaml',
      'pay seed apply sandbox.yaml --json > ids.json',
      'pay seed apply sandbox.yaml --replace',
      'pay seed apply ci.json --concurrency 16 --no-input',
    ],
    {
      json: 'an object mapping each entry ("customers.alice") to its id (and state_set_aside: {path, reason, moved_to} when the state file was set aside); -o ndjson: {ref, action, id, status, old_id?, old_status?, error?, refused?, mismatch?} per entry',
    },
  );
  lazyAction(seedApply, () => s('apply'));
  const seedPlan = addOutputOptions(
    seed
      .command('plan')
      .argument('<file>', 'seed file')
      .description('Show what apply would do per entry: create, skip, update (in place) or replace (from the state file; sends nothing)')
      .option('--state <file>', 'state file (default: <file>.state.json)')
      .option('--allow-env <name>', 'let ${env.NAME} read this secret-looking variable (repeatable)', (v: string, prev: string[] = []) => [
        ...prev,
        v,
      ]),
    false,
  );
  withExamples(
    seedPlan,
    [
      'pay seed plan sandbox.yaml',
      'pay seed plan sandbox.yaml -o ndjson',
      'pay seed plan sandbox.yaml -o ndjson | jq -c \'select(.action == "replace")\'',
    ],
    {
      json: 'an object mapping each entry to its id (null when it would be created), retire: [{ref, id}] (what apply --replace would retire) and state_set_aside when the state file would be set aside; -o ndjson: {ref, action, id?, detail} per entry, action "retire" for what apply --replace would retire',
    },
  );
  lazyAction(seedPlan, () => s('plan'));

  const doctor = program
    .command('doctor')
    .summary('Check the set-up and say what is wrong')
    .description(
      'Check the config file permissions, the profile and mode in use and where each setting came from, the keys (masked), the base URL, the clock skew against the service, and that the service answers with the key. Exit 0 only when every check passes.',
    )
    .option('--json', 'print the checks as JSON');
  withExamples(doctor, ['pay doctor', 'pay doctor --live -p acme'], { json: '{ok, checks: [{ok, label, fix?, info?}]}' });
  lazyAction(doctor, () => import('./doctor/run.js'));

  const completion = program
    .command('completion')
    .argument('<shell>', 'bash, zsh or fish')
    .summary('Print the shell completion script')
    .description(
      'Print the completion script for bash, zsh or fish. Static words (groups, verbs, flags, enum values) complete without starting Node; profile names call pay __complete.',
    );
  withExamples(
    completion,
    [
      'pay completion bash > ~/.local/share/bash-completion/completions/pay',
      'pay completion zsh > "${fpath[1]}/_pay"',
      'pay completion fish > ~/.config/fish/completions/pay.fish',
    ],
    { note: 'the completion script on stdout. An unknown shell is exit 2.' },
  );
  lazyAction(completion, () => import('./completion/run.js'));

  program.helpCommand(false);
  const help = program
    .command('help')
    .argument('[topic...]', 'environment, exit-codes, or a command (e.g. customers create)')
    .summary('Show help for a command, or a topic: environment, exit-codes')
    .description('Show help for a command, or one of the topics: environment (variables and flags), exit-codes.');
  withExamples(help, ['pay help environment', 'pay help exit-codes', 'pay help transfers send'], {
    note: "the topic or the command's help on stdout, as --help shows it. An unknown topic is exit 2.",
  });
  lazyAction(help, () => import('./help/run.js'));
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
