// FX: fixed reference rates, quotes valid 60 s (open → used | expired), trades that execute a
// quote between two accounts. A trade posts one ledger entry: source −source_amount,
// fx:<source> +source_amount, fx:<target> −target_amount, target +target_amount. The fee (0.5%
// of source_amount, included in it) stays with fx:<source>. All arithmetic in BigInt minor units.
// A quote whose computed side would not fit the contract's Amount is refused (422 out_of_range).
// Quotes are prices for no one; a trade needs the source account holder's fx feature active and
// KYC not rejected, and the target account holder's KYC not rejected (./rules.ts).
import type { Services } from '../services.js';
import { iso } from '../clock.js';
import { ceilDiv, exponent, fits, fromMinor, MAX_WHOLE_DIGITS, toMinor } from '../money.js';
import { ApiProblem, invalidState } from '../problems.js';
import { amount, check, id, oneOf, opt, orThrow, precision, req } from '../validation.js';
import type { Account, FxQuote, FxTrade, Rec, Route } from '../types.js';
import { created, FIAT, insert, load, okJson, qId, scheduled, type TxCtx } from './common.js';
import { getRoute, listAndGet, resource } from './routes.js';
import { currencyMismatch, insufficient } from './transfers.js';
import { holder, requireAllowed } from './rules.js';

export const QUOTE_TTL_MS = 60_000;
const FEE_BPS = 50n;
const SCALE = 100_000_000n; // rates carry 8 decimals

/** Units of each currency per 1 USD, scaled by 1e6. */
const PER_USD: Record<string, bigint> = {
  USD: 1_000_000n,
  EUR: 920_000n,
  GBP: 790_000n,
  NGN: 1_550_000_000n,
  KES: 129_500_000n,
  GHS: 15_200_000n,
  ZAR: 18_400_000n,
  JPY: 151_300_000n,
  CAD: 1_360_000n,
  KWD: 307_000n,
};

/** Target units per source unit, scaled by 1e8 (rounded half up). */
export function rate8(source: string, target: string): bigint {
  const s = PER_USD[source]!;
  return (PER_USD[target]! * SCALE * 2n + s) / (2n * s);
}

export const rateString = (r8: bigint): string => fromMinor(r8, 8).replace(/\.?0+$/, '');

const pow10 = (n: number): bigint => 10n ** BigInt(n);

function quoteAmounts(source: string, target: string, sourceAmount: string | undefined, targetAmount: string | undefined) {
  const r = rate8(source, target);
  const es = exponent(source);
  const et = exponent(target);
  let gross: bigint;
  let out: bigint;
  if (sourceAmount !== undefined) {
    gross = toMinor(sourceAmount, es);
    const fee = (gross * FEE_BPS + 5_000n) / 10_000n;
    out = ((gross - fee) * r * pow10(et)) / (SCALE * pow10(es));
    if (out <= 0n) orThrow([{ field: 'source_amount', code: 'invalid', message: `too small to buy any ${target}` }]);
  } else {
    out = toMinor(targetAmount!, et);
    const net = ceilDiv(out * SCALE * pow10(es), r * pow10(et));
    gross = ceilDiv(net * 10_000n, 10_000n - FEE_BPS);
  }
  const fee = (gross * FEE_BPS + 5_000n) / 10_000n;
  // The other side of a large amount can outgrow the largest amount (1e15 USD is 1.5e18 NGN).
  if (!fits(gross, es) || !fits(out, et)) {
    const [field, other] =
      sourceAmount !== undefined ? ['source_amount', `target_amount (${target})`] : ['target_amount', `source_amount (${source})`];
    orThrow([
      {
        field,
        code: 'out_of_range',
        message: `is too large: the quote's ${other} would have more than ${MAX_WHOLE_DIGITS} digits before the decimal point`,
      },
    ]);
  }
  return { rate: rateString(r), source_amount: fromMinor(gross, es), target_amount: fromMinor(out, et), fee: fromMinor(fee, es) };
}

const quoteShape = {
  source_currency: req(oneOf(FIAT)),
  target_currency: req(oneOf(FIAT)),
  source_amount: opt(amount),
  target_amount: opt(amount),
};
const tradeShape = { quote_id: req(id('fxq_')), source_account_id: req(id('acc_')), target_account_id: req(id('acc_')) };

const QUOTE = resource<FxQuote>({ kind: 'fx_quote', noun: 'FX quote', path: '/fx/quotes', param: 'quote_id' });
const TRADE = resource<FxTrade>({ kind: 'fx_trade', noun: 'FX trade', path: '/fx/trades', param: 'trade_id' });

function expire({ app, tx }: TxCtx, rec: Rec<FxQuote>): void {
  app.store.put(tx, 'fx_quote', rec.scope, { ...rec.obj, status: 'expired', updated_at: app.nowIso() });
}

const isFiat = (v: unknown): v is string => typeof v === 'string' && (FIAT as readonly string[]).includes(v);

export function fxRoutes(app: Services): Route[] {
  app.store.index('fx_trade', (t: FxTrade) => [`account_id=${t.source_account_id}`, `account_id=${t.target_account_id}`]);
  scheduled<FxQuote>(app, 'fx_quote', (q) => (q.status === 'open' ? Date.parse(q.expires_at) : undefined), expire);
  const currencyList = (v: string) =>
    v.split(',').every((c) => isFiat(c)) ? undefined : `must be a comma-separated list of: ${FIAT.join(', ')}`;

  return [
    {
      method: 'GET',
      path: '/fx/rates',
      op: 'getFxRates',
      query: { base: (v) => (isFiat(v) ? undefined : `must be one of: ${FIAT.join(', ')}`), symbols: currencyList },
      handler: (ctx) => {
        const base = ctx.query.get('base') ?? 'USD';
        const symbols = ctx.query.get('symbols')?.split(',') ?? FIAT.filter((c) => c !== base);
        const rates = Object.fromEntries(symbols.map((c) => [c, rateString(rate8(base, c))]));
        return okJson({ object: 'fx_rates', base, rates, as_of: iso(app.clock.now()) });
      },
    },
    {
      method: 'POST',
      path: '/fx/quotes',
      op: 'createFxQuote',
      handler: (ctx) => {
        const b = ctx.body as { source_currency?: string; target_currency?: string; source_amount?: string; target_amount?: string };
        const errors = check(ctx.body, quoteShape);
        precision(errors, 'source_amount', b.source_amount, b.source_currency, FIAT);
        precision(errors, 'target_amount', b.target_amount, b.target_currency, FIAT);
        if ((b.source_amount === undefined) === (b.target_amount === undefined)) {
          errors.push({ field: 'source_amount', code: 'invalid', message: 'give exactly one of source_amount and target_amount' });
        }
        if (b.source_currency === b.target_currency && isFiat(b.target_currency)) {
          errors.push({ field: 'target_currency', code: 'invalid', message: 'must differ from source_currency' });
        }
        orThrow(errors);
        const amounts = quoteAmounts(b.source_currency!, b.target_currency!, b.source_amount, b.target_amount);
        const q = app.create<FxQuote>(ctx.scope, 'fxq_', 'fx_quote', {
          source_currency: b.source_currency!,
          target_currency: b.target_currency!,
          rate: amounts.rate,
          source_amount: amounts.source_amount,
          target_amount: amounts.target_amount,
          fee: amounts.fee,
          expires_at: '',
          status: 'open',
        });
        q.expires_at = iso(Date.parse(q.created_at) + QUOTE_TTL_MS);
        const rec = insert(ctx, 'fx_quote', q);
        return created(rec);
      },
    },
    getRoute(QUOTE, 'getFxQuote'),
    {
      method: 'POST',
      path: '/fx/trades',
      op: 'createFxTrade',
      handler: (ctx) => {
        orThrow(check(ctx.body, tradeShape));
        const b = ctx.body as { quote_id: string; source_account_id: string; target_account_id: string };
        const quote = load<FxQuote>(ctx, 'fx_quote', 'fxq_', b.quote_id, 'FX quote');
        const source = load<Account>(ctx, 'account', 'acc_', b.source_account_id, 'account');
        const target = load<Account>(ctx, 'account', 'acc_', b.target_account_id, 'account');
        requireAllowed('fx.trade', holder(ctx, source.obj.customer_id), holder(ctx, target.obj.customer_id));
        const q = quote.obj;
        if (q.status === 'used') throw new ApiProblem(409, 'quote_used', `quote ${q.id} was already traded; get a new quote`);
        if (q.status === 'expired' || app.clock.now() >= Date.parse(q.expires_at)) {
          throw new ApiProblem(409, 'quote_expired', `quote ${q.id} expired at ${q.expires_at}; get a new quote`);
        }
        for (const a of [source, target]) if (a.obj.status !== 'active') throw invalidState(`account ${a.id} is ${a.obj.status}`);
        if (source.obj.currency !== q.source_currency)
          throw currencyMismatch(`the source account holds ${source.obj.currency}; the quote sells ${q.source_currency}`);
        if (target.obj.currency !== q.target_currency)
          throw currencyMismatch(`the target account holds ${target.obj.currency}; the quote buys ${q.target_currency}`);
        const sell = toMinor(q.source_amount, exponent(q.source_currency));
        const buy = toMinor(q.target_amount, exponent(q.target_currency));
        if (app.ledger.available(source.id) < sell) throw insufficient(source.obj.balance.available, q.source_amount, q.source_currency);

        const t = app.create<FxTrade>(
          ctx.scope,
          'fxt_',
          'fx_trade',
          {
            quote_id: q.id,
            source_account_id: source.id,
            target_account_id: target.id,
            source_currency: q.source_currency,
            target_currency: q.target_currency,
            rate: q.rate,
            source_amount: q.source_amount,
            target_amount: q.target_amount,
            status: 'completed',
          },
          false,
        );
        app.ledger.post(ctx.tx, ctx.scope, {
          type: 'fx_trade',
          status: 'posted',
          source: { object: 'fx_trade', id: t.id },
          description: `FX ${q.source_currency}→${q.target_currency} at ${q.rate}`,
          lines: [
            { account: source.id, currency: q.source_currency, amount: -sell },
            { account: `fx:${q.source_currency}`, currency: q.source_currency, amount: sell },
            { account: `fx:${q.target_currency}`, currency: q.target_currency, amount: -buy },
            { account: target.id, currency: q.target_currency, amount: buy },
          ],
        });
        app.store.put(ctx.tx, 'fx_quote', ctx.scope, { ...q, status: 'used', updated_at: app.nowIso() });
        const rec = insert(ctx, 'fx_trade', t, 'fx_trade.completed');
        return created(rec);
      },
    },
    ...listAndGet(TRADE, { filters: { account_id: qId('acc_') }, indexes: ['account_id'] }),
  ];
}
