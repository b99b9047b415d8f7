// Bad input is exit 2 before any request: amounts (exact, per-currency precision), ids and their
// prefixes, enums, dates, and the cross-field rules each verb declares. Good input is sent as the
// API expects it (canonical amounts, upper-case codes, body paths).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OBJECT_KINDS } from '../../../src/shared/domain.js';
import { checkId, ID_SHAPE, isId } from '../../../src/shared/validate.js';
import { pay } from './harness.js';

const ACC = 'acc_0123456789abcdefghijklmn';
const ACC2 = 'acc_abcdefghijklmn0123456789';
const EA = 'ea_0123456789abcdefghijklmn';
const CUS = 'cus_0123456789abcdefghijklmn';
const WAL = 'wal_0123456789abcdefghijklmn';

const send = (...extra: string[]) => ['transfers', 'send', '--from', ACC, '--to', EA, ...extra];

/** A usage error: exit 2, one `error:` line naming the problem, and nothing sent. */
async function refused(argv: string[], message: RegExp) {
  const r = await pay(argv);
  expect(r.requests).toEqual([]);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.code).toBe(2);
  return r;
}

describe('amounts', () => {
  it.each([
    [['--amount', '10.505', '--currency', 'USD'], /--amount: USD allows at most 2 decimals \(got "10\.505"\)/],
    [['--amount', '100.5', '--currency', 'JPY'], /JPY allows no decimals/],
    [['--amount', '1.2345', '--currency', 'KWD'], /KWD allows at most 3 decimals/],
    [['--amount', '0', '--currency', 'USD'], /greater than zero/],
    [['--amount', '0.00', '--currency', 'USD'], /greater than zero/],
    [['--amount', '-5', '--currency', 'USD'], /is not an amount/],
    [['--amount', '1e3', '--currency', 'USD'], /is not an amount/],
    [['--amount', '10,50', '--currency', 'USD'], /is not an amount/],
    [
      ['--amount', '1000000000000000.00', '--currency', 'USD'],
      /--amount: "1000000000000000\.00" has 16 digits before the decimal point; at most 15 \(999999999999999\)/,
    ],
    [['--amount', '9'.repeat(500), '--currency', 'JPY'], /has 500 digits before the decimal point; at most 15/],
    [['--amount', '10', '--currency', 'XYZ'], /--currency "XYZ" must be an ISO 4217 currency code/],
  ])('transfers send %j is refused', async (flags, message) => {
    await refused(send(...flags), message);
  });

  it('sends an exact, canonical decimal string (no float on the way)', async () => {
    const r = await pay(send('--amount', '0.1', '--currency', 'usd'));
    expect(r.code).toBe(0);
    expect(r.requests[0]!.body).toEqual({ source_account_id: ACC, destination_id: EA, amount: '0.10', currency: 'USD' });
    const big = await pay(send('--amount', '123456789012345.67', '--currency', 'USD'));
    expect(big.requests[0]!.body).toMatchObject({ amount: '123456789012345.67' });
    // Leading zeros are no digits of the amount: 16 characters, 15 digits, taken.
    const padded = await pay(send('--amount', '0123456789012345.67', '--currency', 'USD'));
    expect(padded.requests[0]!.body).toMatchObject({ amount: '123456789012345.67' });
  });

  it('checks an amount that came through --data against its currency too', async () => {
    await refused(
      ['transfers', 'send', '--data', JSON.stringify({ source_account_id: ACC, destination_id: EA, amount: '1.001', currency: 'USD' })],
      /--data: amount: USD allows at most 2 decimals/,
    );
    await refused(
      ['transfers', 'send', '--data', JSON.stringify({ source_account_id: ACC, destination_id: EA, amount: 10.5, currency: 'USD' })],
      /decimal string/,
    );
  });

  it('uses the asset precision for crypto amounts (payment links)', async () => {
    await refused(
      ['payment-links', 'create', '--wallet', WAL, '--asset', 'BTC', '--amount', '0.123456789'],
      /BTC allows at most 8 decimals/,
    );
    const ok = await pay(['payment-links', 'create', '--wallet', WAL, '--asset', 'usdc', '--amount', '49.99']);
    expect(ok.requests[0]!.body).toEqual({ wallet_id: WAL, asset: 'USDC', amount: '49.990000' });
  });

  it('collections: amount precision by --currency', async () => {
    await refused(
      ['collections', 'create', '--account', ACC, '--amount', '1.5', '--currency', 'JPY', '--method', 'card'],
      /JPY allows no decimals/,
    );
  });
});

describe('transfers send', () => {
  it.each([ACC2, EA])('accepts --to %s', async (to) => {
    const r = await pay(['transfers', 'send', '--from', ACC, '--to', to, '--amount', '5', '--currency', 'USD']);
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]).toMatchObject({ method: 'POST', path: 'transfers', body: { destination_id: to } });
  });

  it.each([CUS, WAL, 'acc_short', 'ea_0123456789ABCDEFGHIJKLMN', 'tr_0123456789abcdefghijklmn'])('refuses --to %s', async (to) => {
    await refused(
      ['transfers', 'send', '--from', ACC, '--to', to, '--amount', '5', '--currency', 'USD'],
      /--to ".*" must be an id like acc_… or ea_…/,
    );
  });

  it('refuses a source that is not an account', async () => {
    await refused(
      ['transfers', 'send', '--from', EA, '--to', ACC, '--amount', '5', '--currency', 'USD'],
      /--from ".*" must be an id like acc_…/,
    );
  });

  it('names every missing required flag', async () => {
    await refused(['transfers', 'send', '--from', ACC], /missing required flags: --to, --amount, --currency/);
  });

  it('checks --wait-timeout before sending', async () => {
    await refused(send('--amount', '5', '--currency', 'USD', '--wait', '--wait-timeout', 'soon'), /--wait-timeout must be a whole number/);
  });

  it('checks positional ids before sending', async () => {
    await refused(['transfers', 'get', 'tr_123'], /id "tr_123" must be an id like tr_…/);
    await refused(['transfers', 'cancel', CUS], /must be an id like tr_…/);
  });
});

describe('wallets create: asset/network pairs', () => {
  it.each([
    ['BTC', 'ethereum'],
    ['ETH', 'polygon'],
    ['USDC', 'tron'],
    ['USDT', 'polygon'],
    ['BTC', 'tron'],
  ])('refuses %s on %s', async (asset, network) => {
    await refused(
      ['wallets', 'create', '--customer', CUS, '--asset', asset, '--network', network],
      new RegExp(`--asset ${asset} is not available on --network ${network}`),
    );
  });

  it.each([
    ['BTC', 'bitcoin'],
    ['ETH', 'ethereum'],
    ['usdc', 'polygon'],
    ['USDC', 'ethereum'],
    ['USDT', 'tron'],
    ['USDT', 'ethereum'],
  ])('sends %s on %s', async (asset, network) => {
    const r = await pay(['wallets', 'create', '--customer', CUS, '--asset', asset, '--network', network]);
    expect(r.code).toBe(0);
    expect(r.requests[0]!.body).toEqual({ customer_id: CUS, asset: asset.toUpperCase(), network });
  });

  it('checks pairs given through --data too', async () => {
    await refused(
      ['wallets', 'create', '--data', JSON.stringify({ customer_id: CUS, asset: 'BTC', network: 'tron' })],
      /--asset BTC is not available on --network tron/,
    );
  });

  it('refuses an unknown asset or network', async () => {
    await refused(
      ['wallets', 'create', '--customer', CUS, '--asset', 'DOGE', '--network', 'bitcoin'],
      /--asset "DOGE" must be one of BTC, ETH, USDC, USDT/,
    );
    await refused(
      ['wallets', 'create', '--customer', CUS, '--asset', 'BTC', '--network', 'solana'],
      /Allowed choices are bitcoin, ethereum, polygon, tron/,
    );
  });
});

describe('fx quote: exactly one of --amount and --target-amount', () => {
  it('refuses neither', async () => {
    await refused(['fx', 'quote', '--from', 'USD', '--to', 'EUR'], /pass one of --amount, --target-amount/);
  });
  it('refuses both', async () => {
    await refused(
      ['fx', 'quote', '--from', 'USD', '--to', 'EUR', '--amount', '10', '--target-amount', '9'],
      /pass only one of --amount, --target-amount/,
    );
  });
  it('checks --amount with the --from precision and --target-amount with the --to precision', async () => {
    await refused(['fx', 'quote', '--from', 'JPY', '--to', 'USD', '--amount', '100.5'], /--amount: JPY allows no decimals/);
    await refused(['fx', 'quote', '--from', 'USD', '--to', 'JPY', '--target-amount', '100.5'], /--target-amount: JPY allows no decimals/);
    const r = await pay(['fx', 'quote', '--from', 'USD', '--to', 'JPY', '--amount', '100.5']);
    expect(r.requests[0]!.body).toEqual({ source_currency: 'USD', target_currency: 'JPY', source_amount: '100.50' });
    const t = await pay(['fx', 'quote', '--from', 'usd', '--to', 'kwd', '--target-amount', '1.125']);
    expect(t.requests[0]!.body).toEqual({ source_currency: 'USD', target_currency: 'KWD', target_amount: '1.125' });
  });
  it('fx trade puts the quote id in the body and checks the accounts', async () => {
    await refused(
      ['fx', 'trade', 'fxq_0123456789abcdefghijklmn', '--from-account', ACC, '--to-account', EA],
      /--to-account ".*" must be an id like acc_…/,
    );
    await refused(
      ['fx', 'trade', 'fxt_0123456789abcdefghijklmn', '--from-account', ACC, '--to-account', ACC2],
      /quote-id "fxt_0123456789abcdefghijklmn" must be an id like fxq_…/,
    );
    const r = await pay(['fx', 'trade', 'fxq_0123456789abcdefghijklmn', '--from-account', ACC, '--to-account', ACC2]);
    expect(r.requests[0]).toMatchObject({
      method: 'POST',
      path: 'fx/trades',
      body: { quote_id: 'fxq_0123456789abcdefghijklmn', source_account_id: ACC, target_account_id: ACC2 },
    });
  });
  it('fx rates sends --symbols as a checked, upper-cased comma list', async () => {
    await refused(
      ['fx', 'rates', '--symbols', 'EUR,XXQ'],
      /--symbols "XXQ" must be one of USD, EUR, GBP, NGN, KES, GHS, ZAR, JPY, CAD, KWD/,
    );
    const r = await pay(['fx', 'rates', '--base', 'eur', '--symbols', 'usd, gbp'], {
      respond: () => ({ status: 200, body: { object: 'fx_rates', base: 'EUR', rates: {} } }),
    });
    expect(r.requests[0]!.path).toBe('fx/rates');
    expect(Object.fromEntries(r.requests[0]!.query)).toEqual({ base: 'EUR', symbols: 'USD,GBP' });
  });
});

describe('transactions list: dates', () => {
  it.each(['2026-02-30', '2026-13-01', '31/01/2026', '2026-01-31T25:00:00Z', '2026-01-31T12:00:00', 'yesterday'])(
    'refuses --from %s',
    async (from) => {
      await refused(
        ['transactions', 'list', '--from', from],
        /--from ".*" must be a date \(YYYY-MM-DD\), an RFC 3339 time \(.*\) or a duration back from now/,
      );
    },
  );
  it('refuses --from not before --to', async () => {
    await refused(['transactions', 'list', '--from', '2026-03-01', '--to', '2026-02-01'], /--from must be before --to/);
    await refused(['transactions', 'list', '--from', '2026-03-01', '--to', '2026-03-01'], /--from must be before --to/);
    await refused(['transactions', 'list', '--from', '2026-03-01T12:00:00Z', '--to', '2026-03-01'], /--from must be before --to/);
  });
  it('sends valid filters as query parameters', async () => {
    const r = await pay([
      'transactions',
      'list',
      '--account',
      ACC,
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-31T12:00:00+01:00',
      '--type',
      'fx_trade',
      '--status',
      'posted',
    ]);
    expect(r.code).toBe(0);
    expect(r.requests[0]!.path).toBe('transactions');
    expect(Object.fromEntries(r.requests[0]!.query)).toMatchObject({
      account_id: ACC,
      from: '2026-01-01',
      to: '2026-01-31T12:00:00+01:00',
      type: 'fx_trade',
      status: 'posted',
      limit: '20',
    });
    expect(r.stderr).toMatch(/No transactions found/);
  });
  it('refuses an unknown type or a wallet id of the wrong kind', async () => {
    await refused(['transactions', 'list', '--type', 'refund'], /Allowed choices are transfer, collection, fx_trade, reversal/);
    await refused(['transactions', 'list', '--wallet', ACC], /--wallet ".*" must be an id like wal_…/);
  });
});

describe('cross-field rules', () => {
  it('collections: mobile money needs phone and provider', async () => {
    const base = ['collections', 'create', '--account', ACC, '--amount', '1500', '--currency', 'KES', '--method', 'mobile_money'];
    await refused(base, /--method mobile_money needs --mobile-phone, --mobile-provider/);
    await refused([...base, '--mobile-phone', '+254712345678'], /needs --mobile-provider/);
    await refused(
      [...base, '--mobile-phone', '0712345678', '--mobile-provider', 'mpesa'],
      /--mobile-phone "0712345678" must be in international format/,
    );
    const r = await pay([...base, '--mobile-phone', '+254712345678', '--mobile-provider', 'mpesa']);
    expect(r.requests[0]!.body).toEqual({
      account_id: ACC,
      amount: '1500.00',
      currency: 'KES',
      method: 'mobile_money',
      mobile_money: { phone: '+254712345678', provider: 'mpesa' },
    });
  });
  it('cards: a physical card needs a shipping address; a limit needs its interval', async () => {
    const base = ['cards', 'issue', '--customer', CUS, '--account', ACC];
    await refused([...base, '--type', 'physical', '--city', 'Austin'], /--type physical needs --address-line1, --country, --postal-code/);
    await refused([...base, '--type', 'virtual', '--spending-limit', '500'], /--spending-limit also needs --spending-interval/);
    await refused(
      [...base, '--type', 'virtual', '--spending-limit', '-1', '--spending-interval', 'daily'],
      /--spending-limit "-1" must be a positive decimal/,
    );
    await refused(
      [
        ...base,
        '--type',
        'physical',
        '--address-line1',
        '1 Main St',
        '--city',
        'Austin',
        '--country',
        'US',
        '--postal-code',
        '78701',
        '--state',
        'CA-ON',
      ],
      /--state "CA-ON" must start with the country code US-/,
    );
    const r = await pay([
      ...base,
      '--type',
      'physical',
      '--address-line1',
      '1 Main St',
      '--city',
      'Austin',
      '--country',
      'us',
      '--postal-code',
      '78701',
      '--spending-limit',
      '250',
      '--spending-interval',
      'monthly',
    ]);
    expect(r.requests[0]!.body).toEqual({
      customer_id: CUS,
      account_id: ACC,
      type: 'physical',
      spending_limit: { amount: '250', interval: 'monthly' },
      shipping_address: { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '78701' },
    });
  });
  it('payment links: --expires-at must be an RFC 3339 time', async () => {
    await refused(
      ['payment-links', 'create', '--wallet', WAL, '--asset', 'ETH', '--amount', '1', '--expires-at', '2030-01-31'],
      /--expires-at "2030-01-31" must be an RFC 3339 time/,
    );
  });
  it('features: --feature is required, checked, and goes in the path', async () => {
    await refused(['features', 'check', CUS], /missing required flag --feature/);
    await refused(['features', 'check', CUS, '--feature', 'loans'], /Allowed choices are cards, collections/);
    const r = await pay(['features', 'activate', CUS, '--feature', 'crypto_wallets']);
    expect(r.requests[0]).toMatchObject({ method: 'POST', path: `customers/${CUS}/features/crypto_wallets/activate` });
    const c = await pay(['features', 'check', CUS, '--feature', 'cards']);
    expect(c.requests[0]).toMatchObject({ method: 'GET', path: `customers/${CUS}/features/cards` });
  });
  it('kyc: enums and countries checked; level defaults to basic', async () => {
    await refused(['kyc', 'submit-document', CUS, '--type', 'passport', '--country', 'XX'], /--country "XX" must be an ISO 3166-1 alpha-2/);
    await refused(['kyc', 'submit-document', CUS, '--type', 'visa', '--country', 'GB'], /Allowed choices are passport/);
    const r = await pay(['kyc', 'verify', CUS]);
    expect(r.requests[0]).toMatchObject({ method: 'POST', path: `customers/${CUS}/kyc`, body: { level: 'basic' } });
    const d = await pay(['kyc', 'verify', CUS, '--data', '{"level":"enhanced"}']);
    expect(d.requests[0]!.body).toEqual({ level: 'enhanced' });
  });
});

describe('id flags are taken exactly as typed, like id arguments', () => {
  // Whitespace and line separators JavaScript's trim() would drop (U+2028, NBSP, BOM, \f, \v, …)
  // never turn a bad id into a good one: the id flag is refused, nothing sent.
  const padding = fc.constantFrom(' ', '\t', '\n', '\r', '\f', '\v', '\u00a0', '\u2028', '\u2029', '\ufeff', '\u3000', '\u1680');
  it('an id flag with anything around it is exit 2 and sends nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(padding, { maxLength: 3 }), fc.array(padding, { maxLength: 3 }), async (before, after) => {
        fc.pre(before.length + after.length > 0);
        const r = await pay(['transactions', 'list', '--account', `${before.join('')}${ACC}${after.join('')}`]);
        expect(r.requests).toEqual([]);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/^error: --account ".*" must/);
      }),
      { numRuns: 60 },
    );
    const ok = await pay(['transactions', 'list', '--account', ACC]);
    expect(ok.requests[0]).toMatchObject({ method: 'GET', path: 'transactions' });
  });
});

describe('the one id shape (isId, src/shared/domain.ts)', () => {
  const prefixes = Object.values(OBJECT_KINDS).map((k) => k.prefix);
  it('is the contract pattern ^<prefix>[0-9a-z]{24}$ for every prefix and pair of prefixes, and ID_SHAPE without one', () => {
    const tail = fc.string({
      unit: fc.constantFrom(...'0123456789abcdefghijklmnopqrstuvwxyzA_-/.'.split('')),
      minLength: 22,
      maxLength: 26,
    });
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.constantFrom(...prefixes), tail, fc.boolean(), (p, other, rest, pair) => {
        const prefix = pair ? `${p}|${other}` : p;
        for (const v of [`${p}${rest}`, `${other}${rest}`, `x${p}${rest}`, rest]) {
          const reference = prefix.split('|').some((q) => new RegExp(`^${q}[0-9a-z]{24}$`).test(v));
          expect(isId(v, prefix), `${v} ${prefix}`).toBe(reference);
          expect(checkId(prefix)(v) === undefined).toBe(reference);
          expect(isId(v), v).toBe(/^[a-z]{1,10}_[0-9a-z]{24}$/.test(v));
        }
      }),
      { numRuns: 500 },
    );
    for (const v of [undefined, null, 42, {}, ['cus_0123456789abcdefghijklmn']]) expect(isId(v)).toBe(false);
    expect(ID_SHAPE.test(CUS)).toBe(true);
  });
});
