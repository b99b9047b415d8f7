// Outside attack on the emulator's money edges (an in-process emulator, raw HTTP).
//
// Amounts: generated currencies (every fiat pair) and extreme amounts (the largest one at the
// currency's exponent, near it, powers of ten, one minor unit, random widths) pushed through FX
// quotes (by source and by target amount), FX trades, collections, transfers and the balances
// they build up, settled or not. Properties: never a 5xx; every answer, 2xx or problem, is valid
// against its operation's response schema in the contract (whose Amount patterns allow at most
// 15 digits before the point); every amount-like field of every answer matches the Amount
// pattern (balances: the signed one); a request refused as out_of_range changed nothing.
//
// Removing an external account with pending transfers to it (generated: how many, their amounts,
// whether each is then cancelled or settled): 409 invalid_state while any is pending, with the
// transfers and the source balance untouched; once none is pending, the removal succeeds, and a
// transfer to the removed account is refused. Cancelled money is back on the source account.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSETS, FIAT_CURRENCIES } from '../../src/shared/domain.js';
import { currencyExponent } from '../../src/shared/iso.js';
import { sharedSchemas } from '../../src/api/contract/schemas-shared.js';
import { operationOfRequest, validateAgainst } from '../contract/contract-helpers.js';
import { client, enabledCustomer, start, type Api, type Emulator, type Res } from '../emulator/helpers.js';
import { count, minor, record } from './helpers.js';

const CASES = count(60, 1000);
const PAYOUTS = count(30, 1000);
const AMOUNT = new RegExp(sharedSchemas.Amount!.pattern as string);
const SIGNED = new RegExp(sharedSchemas.SignedAmount!.pattern as string);
const SIGNED_FIELDS = new Set(['available', 'pending', 'balance_after']);
const AMOUNT_FIELDS = new Set(['amount', 'source_amount', 'target_amount', 'fee', ...SIGNED_FIELDS]);
const FIAT = FIAT_CURRENCIES as readonly string[];
const exp = (c: string): number => currencyExponent(c)!;

/** Pending money settles this long after it starts; moving the clock SETTLE_S settles it and leaves a fresh FX quote (60 s) open. */
const SETTLE_AFTER_MS = 10_000;
const SETTLE_S = 20;

let emu: Emulator;
let api: Api;

beforeAll(async () => {
  emu = await start({ settleAfterMs: SETTLE_AFTER_MS });
  api = client(emu, { tenant: emu.tenantId });
}, 30_000);
afterAll(async () => {
  await emu?.stop();
});

/** Every amount-like field (by name) anywhere in a JSON value that breaks its pattern. */
function badAmounts(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => badAmounts(x, `${path}/${i}`));
  if (v === null || typeof v !== 'object') return [];
  const out: string[] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (AMOUNT_FIELDS.has(k) && typeof x === 'string' && !(SIGNED_FIELDS.has(k) ? SIGNED : AMOUNT).test(x)) out.push(`${path}/${k}=${x}`);
    else out.push(...badAmounts(x, `${path}/${k}`));
  }
  return out;
}

interface Checked extends Res {
  problems: string[];
  badAmounts: string[];
}

/** A call whose answer is checked against the contract: no 5xx, valid against its operation's schema, amounts in pattern. */
async function call(method: string, path: string, body?: unknown): Promise<Checked> {
  const r = await api(method, path, body);
  const problems: string[] = [];
  if (r.status >= 500) problems.push(`${method} ${path} → ${r.status}`);
  const op = operationOfRequest(method, `/v1/${path.split('?')[0]}`);
  if (!op) problems.push(`${method} ${path}: no such operation in the contract`);
  else
    for (const e of validateAgainst(op.operation.operationId, 'response', r.status, r.body))
      problems.push(`${method} ${path} → ${r.status}: ${e}`);
  const bad = badAmounts(r.body);
  return { ...r, problems: [...problems, ...bad.map((b) => `${method} ${path} → ${r.status}: amount ${b}`)], badAmounts: bad };
}

/** A decimal string for a currency from a generated shape. */
const amountFor = (shape: { kind: number; digits: string; frac: string }, currency: string): string => {
  const e = exp(currency);
  const frac = (shape.frac + '0'.repeat(e)).slice(0, e);
  const withFrac = (whole: string, f: string): string => (e === 0 ? whole : `${whole}.${f}`);
  switch (shape.kind) {
    case 0: // the largest amount
      return withFrac('9'.repeat(15), '9'.repeat(e));
    case 1: // just under it, or a big round number
      return withFrac(`99999999999999${shape.digits.slice(0, 1) || '8'}`, frac);
    case 2: // a power of ten
      return withFrac(`1${'0'.repeat(shape.digits.length % 15)}`, '0'.repeat(e));
    case 3: // one minor unit
      return e === 0 ? '1' : `0.${'0'.repeat(e - 1)}1`;
    default: {
      const whole = shape.digits.replace(/^0+/, '') || '0';
      const f = whole === '0' && /^0*$/.test(frac) ? `${frac.slice(0, -1)}1` : frac;
      return withFrac(whole, f || '0');
    }
  }
};

const shapeArb = fc.record({
  kind: fc.integer({ min: 0, max: 5 }),
  digits: fc.stringMatching(/^[0-9]{1,15}$/),
  frac: fc.stringMatching(/^[0-9]{0,3}$/),
});

describe('attack: money amounts at the edges', () => {
  it('no answer carries an amount outside the contract; refusals are 422 out_of_range and change nothing', async () => {
    const startedAt = Date.now();
    const customer = await enabledCustomer(emu, api);
    const src: Record<string, string> = {};
    const dst: Record<string, string> = {};
    for (const c of FIAT) {
      src[c] = (await api('POST', 'accounts', { customer_id: customer, currency: c })).body.id;
      dst[c] = (await api('POST', 'accounts', { customer_id: customer, currency: c })).body.id;
    }
    // The defect this class came from: a quote of the largest amount into a weaker currency.
    const big = await call('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'NGN', source_amount: '999999999999999.99' });
    expect(big.problems).toEqual([]);
    expect({ status: big.status, code: big.body.code, field: big.body.errors?.[0]?.code }).toEqual({
      status: 422,
      code: 'validation_error',
      field: 'out_of_range',
    });

    const cases = fc.sample(
      fc.record({
        from: fc.constantFrom(...FIAT),
        to: fc.constantFrom(...FIAT),
        shape: shapeArb,
        bySource: fc.boolean(),
        settle: fc.boolean(),
      }),
      CASES,
    );
    const failures: string[] = [];
    let passed = 0;
    let badAmountAnswers = 0;
    const statuses: Record<string, number> = {};
    for (const k of cases) {
      const to = k.to === k.from ? FIAT[(FIAT.indexOf(k.from) + 1) % FIAT.length]! : k.to;
      const amount = amountFor(k.shape, k.from);
      const answers: Checked[] = [];
      const tally = (what: string, r: Checked): Checked => {
        answers.push(r);
        const key = `${what} ${r.status}${r.body?.errors?.[0]?.code === 'out_of_range' ? ' out_of_range' : ''}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
        return r;
      };
      const caseProblems: string[] = [];

      // A collection: money in (refused, with nothing changed, when the balance could outgrow the largest amount).
      const before = (await api('GET', `accounts/${src[k.from]}`)).body.balance;
      const col = tally(
        'collection',
        await call('POST', 'collections', { account_id: src[k.from], amount, currency: k.from, method: 'card' }),
      );
      if (col.status === 422) {
        const after = (await api('GET', `accounts/${src[k.from]}`)).body.balance;
        if (JSON.stringify(after) !== JSON.stringify(before))
          caseProblems.push(`a refused collection changed the balance: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
      } else if (col.status !== 201) caseProblems.push(`collection ${amount} ${k.from} → ${col.status} ${col.body?.code}`);
      if (k.settle) emu.admin.advance(SETTLE_S);

      // A transfer between two accounts of the currency.
      const tr = tally(
        'transfer',
        await call('POST', 'transfers', { source_account_id: src[k.from], destination_id: dst[k.from], amount, currency: k.from }),
      );
      if (![201, 422].includes(tr.status)) caseProblems.push(`transfer → ${tr.status} ${tr.body?.code}`);

      // A quote by source or target amount, and a trade of it.
      const quoteBody = k.bySource
        ? { source_currency: k.from, target_currency: to, source_amount: amount }
        : { source_currency: to, target_currency: k.from, target_amount: amount };
      const q = tally('quote', await call('POST', 'fx/quotes', quoteBody));
      if (![201, 422].includes(q.status)) caseProblems.push(`quote → ${q.status} ${q.body?.code}`);
      if (q.status === 201) {
        const seller = k.bySource ? k.from : to;
        const buyer = k.bySource ? to : k.from;
        // Fund the seller (may itself be refused near the top), then trade.
        tally(
          'collection',
          await call('POST', 'collections', {
            account_id: src[seller],
            amount: q.body.source_amount,
            currency: seller,
            method: 'bank_transfer',
          }),
        );
        emu.admin.advance(SETTLE_S);
        const tradeBefore = (await api('GET', `accounts/${dst[buyer]}`)).body.balance;
        const t = tally(
          'trade',
          await call('POST', 'fx/trades', { quote_id: q.body.id, source_account_id: src[seller], target_account_id: dst[buyer] }),
        );
        if (![201, 422].includes(t.status)) caseProblems.push(`trade → ${t.status} ${t.body?.code}`);
        if (t.status === 422) {
          const tradeAfter = (await api('GET', `accounts/${dst[buyer]}`)).body.balance;
          if (JSON.stringify(tradeAfter) !== JSON.stringify(tradeBefore)) caseProblems.push('a refused trade changed the target balance');
          const quote = (await api('GET', `fx/quotes/${q.body.id}`)).body;
          if (quote.status !== 'open') caseProblems.push(`a refused trade used the quote (${quote.status})`);
        }
      }
      if (k.settle) emu.admin.advance(SETTLE_S);

      // The balances and transactions all this built.
      for (const acc of [src[k.from]!, dst[k.from]!, src[to]!, dst[to]!]) {
        tally('account', await call('GET', `accounts/${acc}`));
        tally('transactions', await call('GET', `transactions?account_id=${acc}&limit=5`));
      }
      const problems = [...answers.flatMap((a) => a.problems), ...caseProblems];
      badAmountAnswers += answers.filter((a) => a.badAmounts.length > 0).length;
      if (problems.length === 0) passed++;
      else failures.push(`${JSON.stringify({ ...k, to, amount })}: ${problems.slice(0, 3).join('; ')}`);
    }
    const ledger = (await fetch(`${emu.url}/__emulator/ledger?tenant=${emu.tenantId}`).then((r) => r.json())) as { unbalanced: string[] };
    await record(
      'attack.money-amounts',
      'Extreme amounts through quotes, trades, collections, transfers, balances',
      {
        tried: cases.length,
        passed,
        lost: 0,
        duplicated: 0,
        leaked: badAmountAnswers,
        extra: {
          out_of_range_refusals: Object.entries(statuses)
            .filter(([s]) => s.endsWith('out_of_range'))
            .reduce((n, [, v]) => n + v, 0),
          unbalanced_entries: ledger.unbalanced.length,
          quotes: statuses['quote 201'] ?? 0,
          trades: statuses['trade 201'] ?? 0,
          transfers: statuses['transfer 201'] ?? 0,
        },
      },
      startedAt,
    );
    expect(failures.slice(0, 10)).toEqual([]);
    expect(ledger.unbalanced).toEqual([]);
    // The generated cases reached the top: some requests were refused as out of range, others went through.
    expect(Object.keys(statuses).some((s) => s.endsWith('out_of_range'))).toBe(true);
    for (const done of ['collection 201', 'transfer 201', 'quote 201', 'trade 201']) expect(statuses[done], done).toBeGreaterThan(0);
  }, 600_000);

  it('crypto assets keep to the pattern too (payment link of the largest amount, paid twice)', async () => {
    // Wallet balances grow by payment links paid on the admin route: the second one would pass the top.
    const customer = await enabledCustomer(emu, api, 7);
    for (const asset of ASSETS as readonly string[]) {
      const network = { BTC: 'bitcoin', ETH: 'ethereum', USDC: 'ethereum', USDT: 'tron' }[asset]!;
      const w = await call('POST', 'wallets', { customer_id: customer, asset, network });
      expect(w.problems).toEqual([]);
      const e = exp(asset);
      const top = e === 0 ? '9'.repeat(15) : `${'9'.repeat(15)}.${'9'.repeat(e)}`;
      const paid: number[] = [];
      for (let i = 0; i < 2; i++) {
        const link = await call('POST', 'payment-links', { wallet_id: w.body.id, amount: top, asset });
        expect(link.problems).toEqual([]);
        const res = await fetch(`${emu.url}/__emulator/payment-links/${link.body.id}/pay`, { method: 'POST' });
        paid.push(res.status);
      }
      expect(paid).toEqual([200, 422]);
      const wallet = await call('GET', `wallets/${w.body.id}`);
      expect(wallet.problems).toEqual([]);
      expect(wallet.body.balance.available).toBe(top);
    }
  }, 120_000);
});

describe('attack: removing an external account with a payout on its way', () => {
  it('is refused (409) while a transfer to it is pending; cancel returns the money; once settled it can go', async () => {
    const startedAt = Date.now();
    const customer = await enabledCustomer(emu, api, 3);
    const scenarios = fc.sample(
      fc.record({
        currency: fc.constantFrom(...FIAT),
        // Per transfer: its amount in minor units (some end in 13: they fail when settled) and its fate.
        transfers: fc.array(
          fc.record({
            minor: fc.oneof(fc.integer({ min: 1, max: 10_000_000 }), fc.constant(113)),
            fate: fc.constantFrom('cancel', 'settle'),
          }),
          { minLength: 1, maxLength: 3 },
        ),
      }),
      PAYOUTS,
    );
    const failures: string[] = [];
    let passed = 0;
    let moneyLost = 0;
    for (const s of scenarios) {
      const e = exp(s.currency);
      const fmt = (v: bigint): string => {
        const d = v.toString().padStart(e + 1, '0');
        return e === 0 ? d : `${d.slice(0, -e)}.${d.slice(-e)}`;
      };
      const problems: string[] = [];
      const source = (await api('POST', 'accounts', { customer_id: customer, currency: s.currency })).body.id as string;
      const total = s.transfers.reduce((n, t) => n + BigInt(t.minor), 0n);
      // Funded with a round sum (minor units ending in 13 would make the collection fail).
      const funded = (total / 100n + 2n) * 100n;
      await api('POST', 'collections', { account_id: source, amount: fmt(funded), currency: s.currency, method: 'card' });
      emu.admin.advance(SETTLE_S);
      const ea = (
        await api('POST', 'external-accounts', {
          customer_id: customer,
          account_holder_name: 'Ada Lovelace',
          bank_name: 'Bank',
          account_number: '12345678',
          country: 'GB',
          currency: s.currency,
        })
      ).body.id as string;
      const ids: string[] = [];
      for (const t of s.transfers) {
        const r = await call('POST', 'transfers', {
          source_account_id: source,
          destination_id: ea,
          amount: fmt(BigInt(t.minor)),
          currency: s.currency,
        });
        problems.push(...r.problems);
        if (r.status !== 201) problems.push(`transfer → ${r.status} ${r.body?.code}`);
        ids.push(r.body.id);
      }
      // Resolve them in turn (a cancel, or moving the clock, which settles every pending one); the
      // removal is refused while any is pending, and changes nothing then.
      const pending = (): Promise<number> =>
        Promise.all(ids.map((id) => api('GET', `transfers/${id}`))).then((rs) => rs.filter((r) => r.body.status === 'pending').length);
      for (let i = 0; ; i++) {
        const left = await pending();
        const availableBefore = (await api('GET', `accounts/${source}`)).body.balance.available as string;
        const del = await call('DELETE', `external-accounts/${ea}`);
        problems.push(...del.problems);
        if (left === 0) {
          if (del.status !== 200 || del.body.status !== 'removed')
            problems.push(`removal with none pending → ${del.status} ${del.body?.code}`);
          break;
        }
        if (del.status !== 409 || del.body.code !== 'invalid_state')
          problems.push(`removal with ${left} pending → ${del.status} ${del.body?.code}`);
        if ((await api('GET', `external-accounts/${ea}`)).body.status !== 'active')
          problems.push('a refused removal changed the external account');
        if ((await pending()) !== left) problems.push('a refused removal changed a transfer');
        if ((await api('GET', `accounts/${source}`)).body.balance.available !== availableBefore)
          problems.push('a refused removal moved money');
        if (s.transfers[i]?.fate === 'cancel') {
          const c = await call('POST', `transfers/${ids[i]}/cancel`);
          problems.push(...c.problems);
          if (c.status !== 200) problems.push(`cancel → ${c.status} ${c.body?.code}`);
        } else emu.admin.advance(SETTLE_S);
      }
      // The money: every cancelled or failed transfer is back on the source; the completed ones are gone.
      let expected = funded;
      for (let i = 0; i < ids.length; i++) {
        const t = (await api('GET', `transfers/${ids[i]}`)).body;
        if (t.status === 'completed') expected -= minor(t.amount, e);
        else if (!['cancelled', 'failed'].includes(t.status)) problems.push(`transfer ${i} ended ${t.status}`);
      }
      const available = (await api('GET', `accounts/${source}`)).body.balance.available as string;
      if (minor(available, e) !== expected) {
        moneyLost++;
        problems.push(`source holds ${available}, expected ${fmt(expected)}`);
      }
      // A transfer to the removed account is refused.
      const late = await call('POST', 'transfers', {
        source_account_id: source,
        destination_id: ea,
        amount: fmt(1n),
        currency: s.currency,
      });
      problems.push(...late.problems);
      if (late.status !== 409) problems.push(`a transfer to a removed external account → ${late.status}`);
      if (problems.length === 0) passed++;
      else failures.push(`${JSON.stringify(s)}: ${problems.slice(0, 3).join('; ')}`);
    }
    await record(
      'attack.money-payout-removed',
      'Removing an external account with pending payouts',
      {
        tried: scenarios.length,
        passed,
        lost: moneyLost,
        duplicated: 0,
        leaked: 0,
      },
      startedAt,
    );
    expect(failures.slice(0, 10)).toEqual([]);
  }, 600_000);
});
