// seed plan foresees what apply would refuse (issue 25), against an in-process emulator through the
// harness: every field goes through the verbs' validators at plan time (a state written `TX` is
// sent as `US-TX`, a phone with spaces in E.164, `usa` as `US`; a state no table lists refuses its
// entry), and the business rules the file and the state file show (the currency of the accounts an
// FX trade names after one changed, a card without KYC); apply sends nothing for what the plan
// refuses, says so in the same words, and goes ahead with the rest.
import { describe, expect, it } from 'vitest';
import { pay } from '../commands/harness.js';
import { rowsByRef, seedWorld } from '../../helpers/seed-world.js';

const world = seedWorld('pay-seed-plan-');
const run = (args: string[]) => pay(args, { env: world.env(), loopback: true, clock: world.clock() });
type Row = { ref: string; action?: string; id?: string; status?: string; error?: string; detail?: string };
const rows = (stdout: string) => rowsByRef<Row>(stdout, (r) => r.action !== 'retire');
const write = world.write;
let n = 0;
const person = (address: Record<string, string> = {}) => ({
  first_name: `P${++n}`,
  last_name: 'Ng',
  email: `p${n}@example.com`,
  phone: '+1 415 555 0199',
  type: 'individual',
  date_of_birth: '1990-04-21',
  address: { address_line1: '1 Main St', city: 'Richmond', country: 'US', postal_code: '23219', ...address },
});
const received = (path: string) => world.emu.received.filter((r) => r.method === 'POST' && r.path.endsWith(path)).length;

describe('seed plan refuses what apply would', () => {
  it('normalises fields as the flags do, refuses one no table lists, and apply sends nothing for it', async () => {
    const file = write('fields.yaml', {
      customers: {
        tx: person({ state: 'TX' }),
        named: person({ country: 'usa', state: 'virginia' }),
        bad: person({ state: 'ZZ' }),
        typo: { ...person(), type: 'indivdual' },
      },
      accounts: { bad_usd: { customer_id: '${customers.bad.id}', currency: 'usd' } },
    });
    const plan = await run(['seed', 'plan', file, '-o', 'ndjson']);
    expect(plan.code).toBe(2);
    const p = rows(plan.stdout);
    expect(p['customers.tx']).toMatchObject({ action: 'create' });
    expect(p['customers.named']).toMatchObject({ action: 'create' });
    expect(p['customers.bad']).toMatchObject({
      action: 'refused',
      detail: 'address.state is not an ISO 3166-2 subdivision of US (e.g. US-AK, US-AL, US-AR)',
    });
    expect(p['customers.typo']).toMatchObject({
      action: 'refused',
      detail: 'type is not one of individual, business; did you mean individual?',
    });
    expect(p['accounts.bad_usd']).toMatchObject({ action: 'blocked', detail: 'waits for customers.bad, which is refused' });
    expect(plan.stderr).toContain('2 refused, 1 blocked');
    const error = (JSON.parse(plan.stderr.split('\n').find((l) => l.startsWith('{'))!) as { error: Record<string, unknown> }).error;
    expect(error).toMatchObject({ code: 'seed_plan_refused', message: '2 seed entries would be refused: customers.bad, customers.typo' });
    // As text: one line per refused entry, in the words apply prints.
    const text = await run(['seed', 'plan', file]);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('error: 2 seed entries would be refused; apply sends nothing for them\n');
    expect(text.stderr).toContain('  customers.bad: address.state is not an ISO 3166-2 subdivision of US (e.g. US-AK, US-AL, US-AR)\n');

    const before = received('/customers');
    const apply = await run(['seed', 'apply', file, '-o', 'ndjson']);
    expect(apply.code).toBe(2);
    const a = rows(apply.stdout);
    expect(a['customers.tx']).toMatchObject({ status: 'created' });
    expect(a['customers.named']).toMatchObject({ status: 'created' });
    expect(a['customers.bad']).toMatchObject({
      status: 'failed',
      error: 'address.state is not an ISO 3166-2 subdivision of US (e.g. US-AK, US-AL, US-AR) (seed plan refuses it; nothing was sent)',
    });
    expect(a['accounts.bad_usd']).toMatchObject({ status: 'blocked' });
    // Two customers sent, in the canonical form the flags send.
    expect(received('/customers') - before).toBe(2);
    const sent = world.emu.received.filter((r) => r.method === 'POST' && r.path.endsWith('/customers')).slice(-2);
    const bodies = sent.map((r) => JSON.parse(r.bodyText ?? '{}') as { phone: string; address: Record<string, string> });
    expect(bodies.map((b) => b.address.state).sort()).toEqual(['US-TX', 'US-VA']);
    expect(bodies.map((b) => b.address.country)).toEqual(['US', 'US']);
    expect(bodies.map((b) => b.phone)).toEqual(['+14155550199', '+14155550199']);
  });

  it("an FX trade whose target account changed currency is refused by the plan in the service's words, and apply sends no quote", async () => {
    const cus = '${customers.fx.id}';
    const doc = {
      customers: { fx: person({ state: 'US-VA' }) },
      kyc: { fx: { customer_id: cus, level: 'basic', documents: [{ type: 'passport', country: 'us', number: 'P123456' }] } },
      features: { fx_fx: { customer_id: cus, feature: 'fx' }, fx_col: { customer_id: cus, feature: 'collections' } },
      accounts: { usd: { customer_id: cus, currency: 'USD' }, eur: { customer_id: cus, currency: 'EUR' } },
      collections: {
        fund: { account_id: '${accounts.usd.id}', amount: '1000.00', currency: 'USD', method: 'card', customer_id: cus },
      },
      fx_trades: {
        swap: {
          source_currency: 'USD',
          target_currency: 'EUR',
          source_amount: '100.00',
          source_account_id: '${accounts.usd.id}',
          target_account_id: '${accounts.eur.id}',
          depends_on: ['collections.fund'],
        },
      },
    };
    const file = write('fx.yaml', doc);
    const first = await run(['seed', 'apply', file, '-o', 'ndjson']);
    expect(first.stderr).toContain('0 failed');
    expect(first.code).toBe(0);

    doc.accounts.eur.currency = 'GBP';
    write('fx.yaml', doc);
    const plan = await run(['seed', 'plan', file, '-o', 'ndjson']);
    expect(plan.code).toBe(1);
    const p = rows(plan.stdout);
    expect(p['accounts.eur']).toMatchObject({ action: 'replace' });
    const words = 'the target account holds GBP; the quote buys EUR';
    expect(p['fx_trades.swap']).toMatchObject({ action: 'refused', detail: `currency_mismatch: ${words}` });

    const quotes = received('/fx/quotes');
    const apply = await run(['seed', 'apply', file, '--replace', '-o', 'ndjson']);
    expect(apply.code).toBe(1);
    const a = rows(apply.stdout);
    expect(a['accounts.eur']).toMatchObject({ status: 'replaced' });
    expect(a['fx_trades.swap']).toMatchObject({
      status: 'failed',
      error: `currency_mismatch: ${words} (seed plan refuses it; nothing was sent)`,
    });
    expect(received('/fx/quotes')).toBe(quotes);

    // The same words the service says when the trade is sent anyway.
    const eur = JSON.parse(apply.stdout.split('\n').find((l) => l.includes('"accounts.eur"'))!) as { id: string };
    const usd = JSON.parse(first.stdout.split('\n').find((l) => l.includes('"accounts.usd"'))!) as { id: string };
    const q = await run(['fx', 'quote', '--from', 'USD', '--to', 'EUR', '--amount', '10.00', '--json']);
    const quote = JSON.parse(q.stdout) as { id: string };
    const trade = await run(['fx', 'trade', quote.id, '--from-account', usd.id, '--to-account', eur.id]);
    expect(trade.code).toBe(1);
    expect(trade.stderr).toContain(`currency_mismatch: ${words}`);
  });

  it("a card for a customer the file gives no KYC and no cards feature is refused with the rule's words", async () => {
    const file = write('card.yaml', {
      customers: { nokyc: person() },
      accounts: { usd: { customer_id: '${customers.nokyc.id}', currency: 'USD' } },
      cards: { c: { customer_id: '${customers.nokyc.id}', account_id: '${accounts.usd.id}', type: 'virtual' } },
    });
    const plan = await run(['seed', 'plan', file, '-o', 'ndjson']);
    expect(plan.code).toBe(1);
    expect(rows(plan.stdout)['cards.c']).toMatchObject({
      action: 'refused',
      detail: 'kyc_required: KYC must be approved (kyc_status is not_started)',
    });
    expect(rows(plan.stdout)['accounts.usd']).toMatchObject({ action: 'create' });
  });
});
