// pay cards: virtual and physical cards on an account.
import type { GroupSpec, VerbDecl } from '../../cmdutil/spec.js';
import { STATUS_FILTER, columns, groupObject, resourceGroup } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { CARD_TERMINABLE_STATUSES } from '../../shared/enums.js';

/** Cards: an action's `<id>` argument offers those in the states the verb acts on. */
const CARD = groupObject('card', 'card_', 'TYPE type, LAST4 last4, CUSTOMER customer_id, STATUS status status');

function cardAction(
  name: string,
  summary: string,
  done: string,
  status: string,
  arg: NonNullable<VerbDecl['arg']>,
  extra: { examples?: string[] } = {},
): VerbDecl {
  return {
    name,
    arg,
    summary,
    examples: [`pay cards ${name} ${CARD.example}`, `pay cards ${name} ${CARD.example} --json`],
    operationId: `${name}Card`,
    done,
    jsonShape: `the Card object with status "${status}"`,
    ...extra,
  };
}

export const cards: GroupSpec = resourceGroup(OPERATIONS, CARD, {
  summary: 'Issue virtual and physical cards; freeze, unfreeze and terminate them',
  examples: [
    'pay cards issue --customer cus_0123456789abcdefghijklmn --account acc_0123456789abcdefghijklmn --type virtual',
    'pay cards freeze card_0123456789abcdefghijklmn',
    'pay cards list --customer cus_0123456789abcdefghijklmn --json',
  ],
  description:
    'Virtual cards are active at once; physical cards start inactive until shipped and activated.\n' +
    'active ⇄ frozen; any card can be terminated (final). pay never shows a full card number or CVV.',
  columns: columns(
    'ID id 1, CUSTOMER customer_id 10, ACCOUNT account_id 8, TYPE type 4, BRAND brand 5, LAST4 last4 2, EXP MONTH exp_month 6, EXP YEAR exp_year 7, STATUS status 3 status, CREATED created_at 9 time',
  ),
  verbs: [
    CARD.create({
      name: 'issue',
      summary: 'Issue a card on an account (--type virtual|physical)',
      about:
        'A physical card needs a shipping address: --address-line1, --city, --country, --postal-code (and --state where used).\n' +
        'A spending limit takes --spending-limit with --spending-interval.\n' +
        'A virtual card is active at once; a physical one is inactive until it is shipped and activated: with --wait, pay waits ' +
        'until it is active (exit 0), or exits 1 if it was frozen or terminated meanwhile.',
      examples: [
        'pay cards issue --customer cus_0123456789abcdefghijklmn --account acc_0123456789abcdefghijklmn --type virtual',
        'pay cards issue --customer cus_0123456789abcdefghijklmn --account acc_0123456789abcdefghijklmn --type virtual --spending-limit 500 --spending-interval monthly --name-on-card "ADA LOVELACE"',
        'pay cards issue --customer cus_0123456789abcdefghijklmn --account acc_0123456789abcdefghijklmn --type physical --address-line1 "1 Main St" --city Austin --country US --postal-code 78701 --state US-TX',
      ],
      flags: [
        { flags: '--customer <id>', field: 'customer_id', description: 'card holder (cus_…)' },
        { flags: '--account <id>', field: 'account_id', description: 'account the card spends from (acc_…)' },
        { flags: '--type <type>', field: 'type', description: 'virtual or physical' },
        { flags: '--name-on-card <name>', field: 'name_on_card', description: 'name printed on the card' },
        {
          flags: '--spending-limit <amount>',
          field: 'spending_limit.amount',
          kind: 'decimal',
          description: "spending limit in the account's currency, e.g. 500.00",
        },
        { flags: '--spending-interval <interval>', field: 'spending_limit.interval', description: 'period of the spending limit' },
        { flags: '--address-line1 <street>', field: 'shipping_address.address_line1', description: 'physical cards: shipping street line' },
        { flags: '--city <city>', field: 'shipping_address.city', description: 'physical cards: shipping city' },
        { flags: '--country <CC>', field: 'shipping_address.country', description: 'physical cards: shipping country, ISO 3166-1 alpha-2' },
        { flags: '--postal-code <code>', field: 'shipping_address.postal_code', description: 'physical cards: shipping postal code' },
        { flags: '--state <CC-SUB>', field: 'shipping_address.state', description: 'physical cards: ISO 3166-2 subdivision, e.g. US-TX' },
      ],
      constraints: [
        { kind: 'together', fields: ['spending_limit.amount', 'spending_limit.interval'] },
        {
          kind: 'requiredWhen',
          field: 'type',
          values: ['physical'],
          require: ['shipping_address.address_line1', 'shipping_address.city', 'shipping_address.country', 'shipping_address.postal_code'],
        },
        // A shipping address is taken whole: --state alone (or --city alone) is refused here, not by the API.
        {
          kind: 'whole',
          object: 'shipping_address',
          require: ['shipping_address.address_line1', 'shipping_address.city', 'shipping_address.country', 'shipping_address.postal_code'],
        },
      ],
      jsonShape:
        'the created Card object ({id: "card_…", customer_id, account_id, type, brand, last4, exp_month, exp_year, status, …}); with --wait, as activated',
      wait: {
        until: 'activate',
        object: 'card',
        idPrefix: 'card_',
        poll: 'cards/{id}',
        pending: ['inactive'],
        success: ['active'],
        failure: ['frozen', 'terminated'],
        show: 'pay cards get {id}',
      },
    }),
    CARD.list(
      ['pay cards list --customer cus_0123456789abcdefghijklmn --status active --json', 'pay cards list --type physical --all -o ndjson'],
      [
        { flags: '--customer <id>', query: 'customer_id', description: "only this customer's cards" },
        { flags: '--account <id>', query: 'account_id', description: 'only cards on this account' },
        STATUS_FILTER,
        { flags: '--type <type>', query: 'type', description: 'only this type' },
      ],
    ),
    CARD.get('Show one card', [`pay cards get ${CARD.example}`, `pay cards get ${CARD.example} --fields status,last4 --json`]),
    cardAction(
      'freeze',
      'Freeze an active card (payments are declined until unfrozen)',
      'Froze',
      'frozen',
      CARD.arg('active cards', ['active']),
    ),
    cardAction('unfreeze', 'Unfreeze a frozen card', 'Unfroze', 'active', CARD.arg('frozen cards', ['frozen'])),
    cardAction(
      'terminate',
      'Terminate a card for good',
      'Terminated',
      'terminated',
      CARD.arg('cards not terminated', CARD_TERMINABLE_STATUSES),
      {
        examples: [`pay cards terminate ${CARD.example}`, `pay cards terminate ${CARD.example} --live --yes`],
      },
    ),
  ],
});
