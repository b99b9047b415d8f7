// The Sandbox simulation values (src/shared/simulation.ts) act in Sandbox only: in live mode the
// same inputs are ordinary ones (`pay help simulate` says so). Each value, generated over the
// currencies and amounts that carry it, in both modes against one emulator.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAIL_ENDING, HOLD_DIGITS, HOLD_ENDING, REJECT_DOCUMENT_SUFFIX } from '../../src/shared/simulation.js';
import { client, customerBody, fundedAccounts, start, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
const apis: Record<'sandbox' | 'live', Api> = {} as never;
const funded: Record<'sandbox' | 'live', { customer: string; accounts: Record<string, string> }> = {} as never;

beforeAll(async () => {
  emu = await start({ settleAfterMs: 1000 });
  apis.sandbox = client(emu);
  apis.live = client(emu, { key: emu.keys.live.secret });
  for (const mode of ['sandbox', 'live'] as const)
    funded[mode] = await fundedAccounts(emu, apis[mode], { USD: '900000.00', JPY: '90000000' });
});
afterAll(() => emu.stop());

const MODES = ['sandbox', 'live'] as const;
/** An amount of the currency whose minor units end in `ending` (mod 10^digits). */
const amountEnding = (currency: 'USD' | 'JPY', whole: number, ending: number, digits: number): string => {
  const minor = whole * 10 ** digits + ending;
  return currency === 'JPY' ? String(minor) : `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
};

describe('simulation values act in Sandbox only', () => {
  it('a transfer ending in 13 fails in Sandbox and completes in live mode; one ending in 0014 is held in Sandbox only', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('USD' as const, 'JPY' as const), fc.integer({ min: 1, max: 9 }), async (currency, whole) => {
        const outcome: Record<string, string[]> = {};
        for (const mode of MODES) {
          const api = apis[mode];
          const { accounts } = funded[mode];
          const other = (await api('POST', 'accounts', { customer_id: funded[mode].customer, currency })).body.id as string;
          const fail = await api('POST', 'transfers', {
            source_account_id: accounts[currency],
            destination_id: other,
            amount: amountEnding(currency, whole, FAIL_ENDING, 2),
            currency,
          });
          const held = await api('POST', 'transfers', {
            source_account_id: accounts[currency],
            destination_id: other,
            amount: amountEnding(currency, whole, HOLD_ENDING, HOLD_DIGITS),
            currency,
          });
          expect([fail.status, held.status], JSON.stringify([fail.body, held.body])).toEqual([201, 201]);
          emu.admin.advance(60);
          outcome[mode] = [
            (await api('GET', `transfers/${fail.body.id as string}`)).body.status as string,
            (await api('GET', `transfers/${held.body.id as string}`)).body.status as string,
          ];
        }
        expect(outcome).toEqual({ sandbox: ['failed', 'pending'], live: ['completed', 'completed'] });
      }),
      { numRuns: 6 },
    );
  });

  it('a collection ending in 13 fails in Sandbox and succeeds in live mode', async () => {
    const status: Record<string, string> = {};
    for (const mode of MODES) {
      const api = apis[mode];
      const col = await api('POST', 'collections', {
        account_id: funded[mode].accounts.USD,
        amount: '10.13',
        currency: 'USD',
        method: 'card',
      });
      expect(col.status).toBe(201);
      emu.admin.advance(60);
      status[mode] = (await api('GET', `collections/${col.body.id as string}`)).body.status as string;
    }
    expect(status).toEqual({ sandbox: 'failed', live: 'succeeded' });
  });

  it(`a KYC document number ending in ${REJECT_DOCUMENT_SUFFIX} is rejected in Sandbox and approved in live mode`, async () => {
    const status: Record<string, string> = {};
    for (const mode of MODES) {
      const api = apis[mode];
      const cus = (await api('POST', 'customers', customerBody(7))).body.id as string;
      expect((await api('POST', `customers/${cus}/kyc`, { level: 'basic' })).status).toBe(201);
      const doc = await api('POST', `customers/${cus}/kyc/documents`, {
        type: 'passport',
        country: 'GB',
        number: `X123${REJECT_DOCUMENT_SUFFIX}`,
      });
      expect(doc.status).toBe(201);
      emu.admin.advance(120);
      status[mode] = (await api('GET', `customers/${cus}/kyc`)).body.status as string;
    }
    expect(status).toEqual({ sandbox: 'rejected', live: 'approved' });
  });

  it('a transfer is held only when its minor units end in all four digits 0014 (round-3 defect: 0.14 was held)', async () => {
    const { accounts, customer } = funded.sandbox;
    const api = apis.sandbox;
    const others: Record<string, string> = {};
    for (const currency of ['USD', 'JPY'] as const)
      others[currency] = (await api('POST', 'accounts', { customer_id: customer, currency })).body.id as string;
    // Minor units near the hold ending: 14 itself, 14 under each higher digit, and any other.
    const minor = fc.oneof(
      fc.constant(14),
      fc.integer({ min: 0, max: 999 }).map((k) => k * 100 + 14),
      fc.integer({ min: 0, max: 99 }).map((k) => k * 10_000 + 14),
      fc.integer({ min: 1, max: 2_000_000 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('USD' as const, 'JPY' as const), minor, async (currency, m) => {
        const amount = currency === 'JPY' ? String(m) : `${Math.floor(m / 100)}.${String(m % 100).padStart(2, '0')}`;
        const t = await api('POST', 'transfers', {
          source_account_id: accounts[currency],
          destination_id: others[currency],
          amount,
          currency,
        });
        expect(t.status, JSON.stringify(t.body)).toBe(201);
        emu.admin.advance(60);
        await emu.admin.advanced();
        const status = (await api('GET', `transfers/${t.body.id as string}`)).body.status as string;
        // Stated apart from the code: held when the four last digits are 0014 and a digit stands in front of them.
        const held = m >= 10_000 && m % 10_000 === HOLD_ENDING;
        expect(status, `${amount} ${currency}`).toBe(held ? 'pending' : m % 100 === FAIL_ENDING ? 'failed' : 'completed');
      }),
      { numRuns: 25 },
    );
  });
});
