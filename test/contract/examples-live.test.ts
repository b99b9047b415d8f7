// Every example of the contract is real: each operation's request example is sent to the emulator
// (the example ids replaced by the ids of objects the run created, in an order where each request
// makes sense: a transfer from a funded account, a card frozen before it is unfrozen) and must be
// answered with the operation's success status and a body its schema accepts. The run covers every
// operation of the contract as `pay openapi` prints it; a new operation needs its step here.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SUFFIX } from '../../src/api/contract/common.js';
import { SECOND_SUFFIX } from '../../src/api/contract/examples.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FEATURE_KEYS } from '../../src/shared/rules.js';
import { printedContract } from '../helpers/printed-contract.js';
import { validateAgainst } from './contract-helpers.js';
import { exampleIdsIn, exampleRequests, substituteIds, type ExampleRequest } from './examples-helpers.js';

const SETTLE_S = 600;
type Obj = Record<string, any>;

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, settleAfterMs: SETTLE_S * 1000 });
});
afterAll(() => emu?.stop());

const isExampleId = (s: string) => s.endsWith(EXAMPLE_SUFFIX) || s.endsWith(SECOND_SUFFIX);

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json: Obj }> {
  const res = await fetch(`${emu.url}/v1${path}`, {
    method,
    headers: {
      'Api-Key': emu.keys.sandbox.secret,
      'x-tenant-id': emu.tenantId,
      ...(method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: (text ? JSON.parse(text) : {}) as Obj };
}

describe('every request example, sent to the emulator with real ids', () => {
  it('is answered with its success status and a body of its schema, for every operation', async () => {
    const requests = new Map<string, ExampleRequest>(exampleRequests(printedContract().doc).map((r) => [r.operationId, r]));
    /** Example id → the id of the real object standing for it. */
    const ids = new Map<string, string>();
    const done: string[] = [];

    /** Sends one operation's example (ids substituted; `extra` for this request only) and checks the answer. */
    async function send(operationId: string, extra: Record<string, string> = {}): Promise<Obj> {
      const r = requests.get(operationId);
      if (!r) throw new Error(`no operation ${operationId} in the printed contract`);
      const map = new Map([...ids, ...Object.entries(extra)]);
      const path = r.path.replace(/[a-z]+_[0-9a-z]{24}/g, (m) => map.get(m) ?? m);
      const body = substituteIds(r.body, map);
      const unresolved = exampleIdsIn([path, body]).filter(isExampleId);
      expect(unresolved, `${operationId}: example ids no object of the run stands for`).toEqual([]);
      const res = await call(r.method, path, body);
      expect(res.status, `${operationId}: ${r.method} ${path} ${JSON.stringify(body) ?? ''}\n→ ${res.text}`).toBe(Number(r.status));
      expect(validateAgainst(operationId, 'response', r.status, res.json), operationId).toEqual([]);
      // A created object stands for the example's id from now on.
      const exampleId = (r.response as Obj | undefined)?.id;
      if (r.status === '201' && typeof exampleId === 'string' && typeof res.json.id === 'string') ids.set(exampleId, res.json.id);
      done.push(operationId);
      return res.json;
    }

    // Customers, features, KYC (current, then the deprecated shape once the first is approved).
    const customer = await send('createCustomer');
    await send('getCustomer');
    await send('listCustomers');
    await send('updateCustomer');
    await send('listFeatures');
    await send('getCustomerFeature');
    await send('activateCustomerFeature');
    await send('startKycVerification');
    await send('submitKycDocument');
    await send('getKycVerification');
    emu.admin.advance(SETTLE_S);
    await send('legacyKycVerify');
    await send('legacyKycSubmitDocument');
    await send('legacyKycStatus');
    // The business rules: the customer, now approved, gets every feature the examples below need.
    for (const f of FEATURE_KEYS) {
      const r = await call('POST', `/customers/${customer.id}/features/${f}/activate`);
      expect(r.status, r.text).toBe(200);
    }

    // Accounts; a EUR account for the FX trade's target; money in by a collection that settles.
    await send('createAccount');
    await send('getAccount');
    await send('listAccounts');
    const eur = await call('POST', '/accounts', { customer_id: customer.id, currency: 'EUR' });
    expect(eur.status, eur.text).toBe(201);
    ids.set(`acc_${SECOND_SUFFIX}`, eur.json.id as string);
    await send('createCollection');
    await send('getCollection');
    await send('listCollections');
    emu.admin.advance(SETTLE_S);

    // Money out: a transfer to an external account, cancelled while pending.
    await send('createExternalAccount');
    await send('getExternalAccount');
    await send('listExternalAccounts');
    await send('createTransfer');
    await send('getTransfer');
    await send('listTransfers');
    await send('cancelTransfer');

    // Cards through their states.
    await send('createCard');
    await send('getCard');
    await send('listCards');
    await send('freezeCard');
    await send('unfreezeCard');
    await send('terminateCard');

    // Crypto.
    await send('createWallet');
    await send('getWallet');
    await send('listWallets');
    await send('createPaymentLink');
    await send('getPaymentLink');
    await send('listPaymentLinks');
    await send('disablePaymentLink');

    // FX, from the funded USD account to the EUR one.
    await send('getFxRates');
    await send('createFxQuote');
    await send('getFxQuote');
    await send('createFxTrade');
    await send('getFxTrade');
    await send('listFxTrades');

    // The ledger and the events all this made.
    const transactions = await send('listTransactions');
    ids.set(`txn_${EXAMPLE_SUFFIX}`, transactions.data[0].id as string);
    await send('getTransaction');
    const events = await send('listWebhookEvents');
    ids.set(`evt_${EXAMPLE_SUFFIX}`, events.data[0].id as string);
    await send('getWebhookEvent');
    await send('resendWebhookEvent');

    // Endings: the external account (no transfer pending to it now), and an empty account.
    await send('removeExternalAccount');
    const empty = await call('POST', '/accounts', { customer_id: customer.id, currency: 'USD' });
    expect(empty.status, empty.text).toBe(201);
    await send('closeAccount', { [`acc_${EXAMPLE_SUFFIX}`]: empty.json.id as string });

    const missing = [...requests.keys()].filter((id) => !done.includes(id));
    expect(missing, 'operations of the contract this run does not send (add a step)').toEqual([]);
    expect(done).toHaveLength(requests.size);
  }, 60_000);
});
