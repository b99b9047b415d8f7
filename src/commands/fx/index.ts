// pay fx: exchange rates, quotes (a locked rate for 60 s) and trades that use a quote.
// Verbs stay flat under the group: rates, quote, get-quote, trade, trades, get-trade.
import { CREATED_RANGE, CREATED_RANGE_CHECK, type GroupSpec, fromContract } from '../../cmdutil/spec.js';
import { columns } from '../../cmdutil/spec-parts.js';
import { OPERATIONS } from './operations.js';
import { operationHelp } from '../../shared/rules.js';

const EX_FXQ = 'fxq_0123456789abcdefghijklmn';
const EX_FXT = 'fxt_0123456789abcdefghijklmn';

const quoteColumns = columns(
  'ID id 1, SELL source_amount 2 money @source_currency, BUY target_amount 3 money @target_currency, RATE rate 4 number, FEE fee 7 number, STATUS status 6 status, EXPIRES expires_at 5 time',
);

export const fx: GroupSpec = fromContract(OPERATIONS, {
  name: 'fx',
  summary: 'Exchange rates, quotes and currency trades between accounts',
  noun: 'FX trade',
  examples: [
    'pay fx rates --base EUR',
    'pay fx quote --from USD --to EUR --amount 100 --json',
    'pay fx trade fxq_0123456789abcdefghijklmn --from-account acc_0123456789abcdefghijklmn --to-account acc_abcdefghijklmn0123456789',
  ],
  description:
    'Convert money in two steps: pay fx quote locks a rate for 60 seconds; pay fx trade <quote-id> moves the money between two accounts of the customer at that rate.\n' +
    'pay fx trades lists trades; get-quote and get-trade show one.',
  columns: columns(
    'ID id 1, QUOTE quote_id 9, FROM source_account_id 7, TO target_account_id 8, SOLD source_amount 2 money @source_currency, BOUGHT target_amount 3 money @target_currency, RATE rate 4 number, STATUS status 5 status, CREATED created_at 6 time',
  ),
  verbs: [
    {
      name: 'rates',
      summary: 'Show current exchange rates from a base currency',
      examples: ['pay fx rates', 'pay fx rates --base EUR --symbols USD,GBP,NGN --json'],
      operationId: 'getFxRates',
      noun: 'FX rates',
      flags: [
        { flags: '--base <code>', query: 'base', description: 'base currency (the service defaults to USD)' },
        {
          flags: '--symbols <codes>',
          query: 'symbols',
          kind: 'currency',
          list: true,
          description: 'only these currencies, comma-separated (e.g. EUR,GBP)',
        },
      ],
      jsonShape: '{object: "fx_rates", base, rates: {EUR: "0.92", …} (decimal strings), as_of}',
    },
    {
      name: 'quote',
      summary: 'Get a quote: a rate locked for 60 seconds (--amount to sell, or --target-amount to buy)',
      description: 'Give exactly one of --amount (what you sell, in --from) and --target-amount (what you buy, in --to).',
      examples: ['pay fx quote --from USD --to EUR --amount 100', 'pay fx quote --from GBP --to NGN --target-amount 500000 --json'],
      operationId: 'createFxQuote',
      noun: 'FX quote',
      columns: quoteColumns,
      flags: [
        { flags: '--from <code>', field: 'source_currency', description: 'currency you sell' },
        { flags: '--to <code>', field: 'target_currency', description: 'currency you buy' },
        {
          flags: '--amount <amount>',
          field: 'source_amount',
          currencyFrom: 'from',
          currencyField: 'source_currency',
          description: 'amount to sell, in --from',
        },
        {
          flags: '--target-amount <amount>',
          field: 'target_amount',
          currencyFrom: 'to',
          currencyField: 'target_currency',
          description: 'amount to buy, in --to',
        },
      ],
      constraints: [{ kind: 'exactlyOne', fields: ['source_amount', 'target_amount'] }],
      jsonShape:
        'the FxQuote object ({id: "fxq_…", source_currency, target_currency, rate, source_amount, target_amount, fee, expires_at, status})',
    },
    {
      name: 'get-quote',
      aliases: ['quote-get'],
      arg: { name: '<quote-id>', description: 'quote id (fxq_…)', idPrefix: 'fxq_' },
      summary: 'Show one quote (is it still open?)',
      examples: [`pay fx get-quote ${EX_FXQ}`, `pay fx get-quote ${EX_FXQ} --fields status,expires_at --json`],
      operationId: 'getFxQuote',
      noun: 'FX quote',
      columns: quoteColumns,
      jsonShape: 'the FxQuote object',
    },
    {
      name: 'trade',
      arg: { name: '<quote-id>', description: 'an open quote (fxq_…), sent as quote_id', idPrefix: 'fxq_', field: 'quote_id' },
      summary: 'Trade at a quoted rate between two accounts',
      description:
        "The source account must hold the quote's sell currency, the target account its buy currency. In live mode pay asks for confirmation (--yes in scripts).\n" +
        operationHelp('createFxTrade'),
      examples: [
        `pay fx trade ${EX_FXQ} --from-account acc_0123456789abcdefghijklmn --to-account acc_abcdefghijklmn0123456789`,
        `pay fx trade ${EX_FXQ} --from-account acc_0123456789abcdefghijklmn --to-account acc_abcdefghijklmn0123456789 --live --yes --json`,
      ],
      operationId: 'createFxTrade',
      flags: [
        { flags: '--from-account <id>', field: 'source_account_id', description: 'account debited in the sell currency (acc_…)' },
        { flags: '--to-account <id>', field: 'target_account_id', description: 'account credited in the buy currency (acc_…)' },
      ],
      jsonShape:
        'the FxTrade object ({id: "fxt_…", quote_id, source_account_id, target_account_id, rate, source_amount, target_amount, status: "completed", …})',
    },
    {
      name: 'trades',
      aliases: ['list-trades'],
      summary: 'List FX trades, newest first',
      examples: ['pay fx trades', 'pay fx trades --account acc_0123456789abcdefghijklmn --json', 'pay fx trades --all -o ndjson'],
      operationId: 'listFxTrades',
      flags: [{ flags: '--account <id>', query: 'account_id', description: 'only trades from or to this account' }, ...CREATED_RANGE],
      constraints: [CREATED_RANGE_CHECK],
      jsonShape: 'an array of FxTrade objects',
    },
    {
      name: 'get-trade',
      aliases: ['trade-get'],
      arg: {
        name: '<trade-id>',
        description: 'trade id (fxt_…)',
        idPrefix: 'fxt_',
        pick: {
          list: 'fx/trades',
          show: [
            { header: 'SOLD', path: 'source_amount', kind: 'money', currencyPath: 'source_currency' },
            { header: 'BOUGHT', path: 'target_amount', kind: 'money', currencyPath: 'target_currency' },
          ],
          what: 'FX trades',
        },
      },
      summary: 'Show one FX trade',
      examples: [`pay fx get-trade ${EX_FXT}`, `pay fx get-trade ${EX_FXT} --json`],
      operationId: 'getFxTrade',
      jsonShape: 'the FxTrade object',
    },
  ],
});
