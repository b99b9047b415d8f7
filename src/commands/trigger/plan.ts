// The money requests of a `pay trigger` run, built before anything is sent: each collection,
// transfer, FX quote and trade body with its defaults under the --override values, the ids of the
// objects the run will create held as `NewId` until their requests answer. The live question is
// made from these bodies (questionLines) and the run sends these same bodies (run.ts `sendPlanned`:
// only the NewIds are filled in), so what was asked about is what is sent. Ids cannot be overridden
// (override.ts): every id a body holds is one of an object this run creates.
import { asText } from '../../lib/text.js';
import { currencyExponent } from '../../shared/iso.js';
import { fromMinor, toMinor } from '../../shared/money.js';
import { FAIL_ENDING, HOLD_DIGITS, HOLD_ENDING } from '../../shared/simulation.js';
import { describeBody } from '../../verbs/steps.js';
import { baseCurrency, otherCurrency } from './check.js';
import { applyOverrides, overrideOf, type Overrides } from './override.js';
import type { ObjectName, Recipe } from './recipes.js';

type Obj = Record<string, unknown>;

/** The id an object this run creates will have: known once its request answers. */
export class NewId {
  constructor(readonly object: ObjectName) {}
  toString(): string {
    return `(the new ${this.object.replace(/_/g, ' ')})`;
  }
}

/** The quote's source amount, as the service answers it (a quote for a target amount: known once quoted). */
export class QuotedAmount {
  toString(): string {
    return "(the quote's source amount, rounded up past the next 100 minor units)";
  }
}

export interface PlannedRequest {
  object: 'collection' | 'transfer' | 'fx_quote' | 'fx_trade';
  path: string;
  body: Obj;
  /** Why it is sent: `funds the transfer`. */
  purpose?: string;
}

/** The decimals of a currency (2 for one the tables do not know: the service says what is wrong). */
const exponentOf = (currency: unknown): number => (typeof currency === 'string' ? currencyExponent(currency) : undefined) ?? 2;

/** Minor units as a decimal string of the currency (2500 USD → "25.00", JPY → "2500", KWD → "2.500"). */
export function amountOf(currency: unknown, minor: number): string {
  return fromMinor(BigInt(minor), exponentOf(currency));
}

/** The largest amount (and balance) the service takes: 15 digits before the point, every decimal (the contract's Amount). */
const MAX_WHOLE = 10n ** 15n;

/**
 * What covers `amount` and is no simulation value: the amount rounded up past the next multiple of
 * 100 minor units (25.13 → 26.00), so the funding collection succeeds whatever the amount ends in;
 * where that is over the largest amount an account may hold, the largest amount itself
 * (999999999999999.99, which ends in 99). Anything that is not a decimal of the currency is
 * returned as it is (the service says what is wrong).
 */
export function fundingFor(amount: string, currency: unknown): string {
  const e = exponentOf(currency);
  const m = /^([0-9]{1,15})(?:\.([0-9]+))?$/.exec(amount);
  if (!m || (m[2] ?? '').length > e) return amount;
  const most = MAX_WHOLE * 10n ** BigInt(e) - 1n;
  const up = (toMinor(amount, e) / 100n + 1n) * 100n;
  return fromMinor(up > most ? most : up, e);
}

/** The account's currency as its request will send it (its defaults under its overrides). */
export function accountCurrency(overrides: Overrides): string {
  return asText(applyOverrides({ currency: baseCurrency(overrides) }, overrides.get('account')).currency);
}

/** The money requests of a recipe, in the order the run sends them. */
export function planMoney(recipe: Recipe, overrides: Overrides): PlannedRequest[] {
  const out: PlannedRequest[] = [];
  const currency = accountCurrency(overrides);
  const fund = (amount: string | QuotedAmount, purpose: string): void => {
    out.push({
      object: 'collection',
      path: 'collections',
      body: applyOverrides(
        {
          account_id: new NewId('account'),
          amount: typeof amount === 'string' ? fundingFor(amount, currency) : amount,
          currency,
          method: 'card',
          customer_id: new NewId('customer'),
          description: 'pay trigger: funds the account',
        },
        overrides.get('collection'),
      ),
      purpose,
    });
  };
  let quoted: string | QuotedAmount | undefined;
  for (const step of recipe.steps) {
    switch (step.do) {
      case 'transfer': {
        // 25.00 completes, 25.13 fails, 100.14 is held (its four-digit ending 0014).
        const minor = step.outcome === 'fails' ? 2500 + FAIL_ENDING : step.outcome === 'held' ? 10 ** HOLD_DIGITS + HOLD_ENDING : 2500;
        const body = applyOverrides(
          {
            source_account_id: new NewId('account'),
            destination_id: new NewId('external_account'),
            amount: amountOf(currency, minor),
            currency,
            description: 'pay trigger',
          },
          overrides.get('transfer'),
        );
        // Funded with what the transfer will take (its overrides included).
        fund(typeof body.amount === 'string' ? body.amount : amountOf(currency, minor), 'funds the transfer');
        out.push({ object: 'transfer', path: 'transfers', body });
        break;
      }
      case 'collection': {
        const minor = 2500 + (step.outcome === 'fails' ? FAIL_ENDING : 0);
        out.push({
          object: 'collection',
          path: 'collections',
          body: applyOverrides(
            {
              account_id: new NewId('account'),
              amount: amountOf(currency, minor),
              currency,
              method: 'card',
              customer_id: new NewId('customer'),
              description: 'pay trigger',
            },
            overrides.get('collection'),
          ),
        });
        break;
      }
      case 'fx_quote': {
        const target = applyOverrides({ currency: otherCurrency(currency) }, overrides.get('target_account')).currency;
        const defaults: Obj = { source_currency: currency, target_currency: asText(target), source_amount: amountOf(currency, 1000) };
        // Exactly one of the amounts: an override of the target amount replaces the default source amount.
        if (
          overrideOf(overrides, 'fx_quote', 'target_amount') !== undefined &&
          overrideOf(overrides, 'fx_quote', 'source_amount') === undefined
        )
          delete defaults.source_amount;
        const body = applyOverrides(defaults, overrides.get('fx_quote'));
        quoted = typeof body.source_amount === 'string' ? body.source_amount : new QuotedAmount();
        out.push({ object: 'fx_quote', path: 'fx/quotes', body });
        break;
      }
      case 'fx_trade': {
        fund(quoted ?? new QuotedAmount(), 'funds the trade');
        out.push({
          object: 'fx_trade',
          path: 'fx/trades',
          body: applyOverrides(
            { quote_id: new NewId('fx_quote'), source_account_id: new NewId('account'), target_account_id: new NewId('target_account') },
            overrides.get('fx_trade'),
          ),
        });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** The body as sent: each NewId the id its object got, a QuotedAmount the quote's (funded rounded up, as any amount). */
export function resolveBody(body: Obj, idOf: (object: ObjectName) => string, quoteAmount: () => string): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(body)) {
    out[k] = v instanceof NewId ? idOf(v.object) : v instanceof QuotedAmount ? fundingFor(quoteAmount(), body.currency) : v;
  }
  return out;
}

/** A body in the question's words: the values as sent, a new object's id as `(the new account)`. */
function shown(body: Obj): Obj {
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, v instanceof NewId || v instanceof QuotedAmount ? String(v) : v]));
}

/** The lines the live question shows: every money request with the values it sends, then every --override value as sent. */
export function questionLines(plan: readonly PlannedRequest[], overrides: Overrides): string[] {
  const lines: string[] = [];
  for (const p of plan) {
    const name = p.object.replace(/_/g, ' ');
    const verb = p.object === 'fx_quote' ? 'quote' : 'move live money:';
    lines.push(`${verb} ${name} ${describeBody(shown(p.body))}${p.purpose ? ` (${p.purpose})` : ''}`);
  }
  const other = [...overrides.values()].flat();
  if (other.length > 0)
    lines.push(
      `set by --override: ${other.map((o) => `${o.object}.${o.path.join('.')}=${typeof o.value === 'string' ? o.value : JSON.stringify(o.value)}`).join(', ')}`,
    );
  return lines;
}
