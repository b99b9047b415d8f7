// pay cards: virtual and physical cards on an account.
import { type GroupSpec, type PickSpec, type VerbDecl, fromContract } from '../../cmdutil/spec.js';
import { STATUS_FILTER, columns, getVerb, idArg, listVerb, pickOf } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { CARD_TERMINABLE_STATUSES } from '../../shared/enums.js';
import { operationHelp } from '../../shared/rules.js';

const CARD_ID = idArg('card', 'card_');
const EX_CARD = 'card_0123456789abcdefghijklmn';

/** The picker's cards (an id left out on a terminal): those in `from`, the states the verb acts on. */
const cardPick = (what: string, from?: readonly string[]): PickSpec =>
  pickOf('cards', what, 'TYPE type, LAST4 last4, CUSTOMER customer_id, STATUS status status', from);

function cardAction(
  name: string,
  summary: string,
  done: string,
  status: string,
  pick: PickSpec,
  extra: { examples?: string[] } = {},
): VerbDecl {
  return {
    name,
    arg: { ...CARD_ID, pick },
    summary,
    examples: [`pay cards ${name} ${EX_CARD}`, `pay cards ${name} ${EX_CARD} --json`],
    operationId: `${name}Card`,
    done,
    jsonShape: `the Card object with status "${status}"`,
    ...extra,
  };
}

export const cards: GroupSpec = fromContract(OPERATIONS, {
  name: 'cards',
  summary: 'Issue virtual and physical cards; freeze, unfreeze and terminate them',
  noun: 'card',
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
    {
      name: 'issue',
      summary: 'Issue a card on an account (--type virtual|physical)',
      description:
        'A physical card needs a shipping address: --address-line1, --city, --country, --postal-code (and --state where used).\n' +
        'A spending limit takes --spending-limit with --spending-interval.\n' +
        'A virtual card is active at once; a physical one is inactive until it is shipped and activated: with --wait, pay waits ' +
        'until it is active (exit 0), or exits 1 if it was frozen or terminated meanwhile.' +
        '\n' +
        operationHelp('createCard'),
      examples: [
        'pay cards issue --customer cus_0123456789abcdefghijklmn --account acc_0123456789abcdefghijklmn --type virtual',
        'pay cards issue --customer cus_0123456789abcdefghijklmn --account acc_0123456789abcdefghijklmn --type virtual --spending-limit 500 --spending-interval monthly --name-on-card "ADA LOVELACE"',
        'pay cards issue --customer cus_0123456789abcdefghijklmn --account acc_0123456789abcdefghijklmn --type physical --address-line1 "1 Main St" --city Austin --country US --postal-code 78701 --state US-TX',
      ],
      operationId: 'createCard',
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
    },
    listVerb(
      'Card',
      'List cards, newest first',
      [
        'pay cards list',
        'pay cards list --customer cus_0123456789abcdefghijklmn --status active --json',
        'pay cards list --type physical --all -o ndjson',
      ],
      [
        { flags: '--customer <id>', query: 'customer_id', description: "only this customer's cards" },
        { flags: '--account <id>', query: 'account_id', description: 'only cards on this account' },
        STATUS_FILTER,
        { flags: '--type <type>', query: 'type', description: 'only this type' },
      ],
    ),
    getVerb('Card', { ...CARD_ID, pick: cardPick('cards') }, 'Show one card', [
      `pay cards get ${EX_CARD}`,
      `pay cards get ${EX_CARD} --fields status,last4 --json`,
    ]),
    cardAction(
      'freeze',
      'Freeze an active card (payments are declined until unfrozen)',
      'Froze',
      'frozen',
      cardPick('active cards', ['active']),
    ),
    cardAction('unfreeze', 'Unfreeze a frozen card', 'Unfroze', 'active', cardPick('frozen cards', ['frozen'])),
    cardAction(
      'terminate',
      'Terminate a card for good',
      'Terminated',
      'terminated',
      cardPick('cards not terminated', CARD_TERMINABLE_STATUSES),
      {
        examples: [`pay cards terminate ${EX_CARD}`, `pay cards terminate ${EX_CARD} --live --yes`],
      },
    ),
  ],
});
