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
});
