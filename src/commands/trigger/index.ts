// `pay trigger <event-type>`: declaration only (start-up path); run.ts creates what makes the
// service emit the event (recipes.ts), waits for it and prints what it made.
import type { CommandDecl } from '../../cmdutil/decl.js';
import { waitTimeoutOption } from '../../cmdutil/spec.js';

export const trigger: CommandDecl = {
  name: 'trigger',
  summary: 'Make the service emit a webhook event: create what causes it (--list lists them)',
  description:
    'Creates, through the API (the emulator or a real Sandbox alike), fresh objects that make the service emit the event, ' +
    'waits until the event exists, and prints what it created and the event id. Failure events use the Sandbox simulation ' +
    'values (pay help simulate); events that take time (KYC decisions, settlements, a physical card, an expiring payment link) ' +
    'are waited for, all within --wait-timeout. Nothing existing is used or changed; what was created stays.\n\n' +
    '--override object.field=value changes a field of what it creates (repeatable): the objects are those the event ' +
    'type creates (customer, account, transfer, …; pay trigger --list --json names them per type), the fields those of ' +
    'their create operation in the contract (pay openapi), nested by dots (customer.address.city); never an id ' +
    '(transfer.source_account_id: exit 2), as every id is of an object the run creates.\n\n' +
    'Every POST has its own Idempotency-Key. --dry-run prints the first request and sends nothing (the next ones need ' +
    'the ids the service answers).\n\n' +
    'In live mode (--live) what it creates is real: it says what, with every collection, transfer and trade as it will ' +
    'be sent (amount, currency, from and to, after --override), and asks once before anything is sent; where no terminal ' +
    'can ask, it needs --yes (exit 2, nothing sent).',
  args: [{ name: '[event-type]', description: 'the event type, e.g. transfer.failed (pay trigger --list)' }],
  options: [
    { flags: '--list', description: 'list the event types, one line each with what it creates' },
    {
      flags: '--override <object.field=value>',
      description: 'change a field of an object it creates, e.g. transfer.amount=5.13 or customer.first_name=Grace (repeatable)',
      repeatable: true,
    },
    waitTimeoutOption('waiting for settlements and the event'),
    { flags: '-y, --yes', description: 'live mode: create (and move money) without asking; needed where no terminal can ask' },
  ],
  output: { projection: false },
  dryRun: true,
  examples: [
    'pay trigger --list',
    'pay trigger customer.created',
    'pay trigger transfer.failed --json',
    'pay trigger collection.succeeded --override collection.amount=500.00 --override account.currency=EUR',
    'pay trigger payment_link.expired --wait-timeout 30 --jq ".events[0].id"',
    'pay trigger card.activated --dry-run',
  ],
  prints: {
    json: '{event_type, created: [{object, id}], events: [{id, type}]}; --list: [{event_type, creates, override: [object names]}]',
  },
  run: () => import('./run.js').then((m) => m.run),
};
