// State machines exactly as DESIGN.md: transfers, cards, collections, payment links, KYC (current
// and deprecated), features, FX quotes; invalid transitions are 409 invalid_state. Time moves by
// the admin clock, not by sleeping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, customerBody, enabledCustomer, fundedAccounts, start, type Api, type Emulator } from './helpers.js';

let emu: Emulator;
let api: Api;

beforeAll(async () => {
  emu = await start({ settleAfterMs: 5000 });
  api = client(emu);
});
afterAll(() => emu.stop());

const get = async (path: string) => (await api('GET', path)).body;

describe('transfers', () => {
  it('pending → completed; pending → cancelled; magic 13 → failed; other moves 409', async () => {
    const { customer, accounts } = await fundedAccounts(emu, api, { USD: '100.00' });
    const dest = (await api('POST', 'accounts', { customer_id: customer, currency: 'USD' })).body.id;
    const send = (amount: string) =>
      api('POST', 'transfers', { source_account_id: accounts.USD, destination_id: dest, amount, currency: 'USD' });
    const ok = (await send('10.00')).body;
    const cancel = (await send('5.00')).body;
    const fail = (await send('1.13')).body;
    expect([ok.status, cancel.status, fail.status]).toEqual(['pending', 'pending', 'pending']);

    const cancelled = await api('POST', `transfers/${cancel.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', completed_at: null });
    expect((await api('POST', `transfers/${cancel.id}/cancel`)).body.code).toBe('invalid_state');

    emu.admin.advance(6);
    expect(await get(`transfers/${ok.id}`)).toMatchObject({ status: 'completed', failure_reason: null });
    expect((await get(`transfers/${ok.id}`)).completed_at).toMatch(/Z$/);
    expect(await get(`transfers/${fail.id}`)).toMatchObject({ status: 'failed', failure_reason: 'destination_rejected' });
    expect((await api('POST', `transfers/${ok.id}/cancel`)).status).toBe(409);
    // Cancelled and failed transfers gave the money back (their postings are voided).
    expect((await get(`accounts/${accounts.USD}`)).balance.available).toBe('90.00');
    const voided = (await get(`transactions?account_id=${accounts.USD}&status=voided`)).data;
    expect(voided.map((t: { amount: string }) => t.amount).sort()).toEqual(['1.13', '5.00']);
    const byStatus = (await get(`transfers?account_id=${dest}&status=completed`)).data;
    expect(byStatus.map((t: { id: string }) => t.id)).toEqual([ok.id]);
  });
});

describe('cards', () => {
  it('virtual issued active; physical inactive → active when it settles; freeze/unfreeze/terminate rules', async () => {
    const { customer, accounts } = await fundedAccounts(emu, api, { USD: '0' });
    const virtual = await api('POST', 'cards', {
      customer_id: customer,
      account_id: accounts.USD,
      type: 'virtual',
      spending_limit: { amount: '500.00', interval: 'monthly' },
    });
    expect(virtual.status).toBe(201);
    expect(virtual.body).toMatchObject({ status: 'active', brand: 'visa', type: 'virtual' });
    expect(virtual.body.last4).toMatch(/^\d{4}$/);
    expect(Object.keys(virtual.body)).not.toContain('number');
    const noAddress = await api('POST', 'cards', { customer_id: customer, account_id: accounts.USD, type: 'physical' });
    expect(noAddress.status).toBe(422);
    expect(noAddress.body.errors[0].field).toBe('shipping_address');
    const physical = await api('POST', 'cards', {
      customer_id: customer,
      account_id: accounts.USD,
      type: 'physical',
      shipping_address: { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '73301', state: 'US-TX' },
    });
    expect(physical.body.status).toBe('inactive');
    expect((await api('POST', `cards/${physical.body.id}/freeze`)).body.code).toBe('invalid_state');
    emu.admin.advance(6);
    expect((await get(`cards/${physical.body.id}`)).status).toBe('active');

    const id = virtual.body.id;
    expect((await api('POST', `cards/${id}/unfreeze`)).status).toBe(409);
    expect((await api('POST', `cards/${id}/freeze`)).body.status).toBe('frozen');
    expect((await api('POST', `cards/${id}/freeze`)).status).toBe(409);
    expect((await api('POST', `cards/${id}/unfreeze`)).body.status).toBe('active');
    expect((await api('POST', `cards/${id}/terminate`)).body.status).toBe('terminated');
    for (const verb of ['freeze', 'unfreeze', 'terminate']) {
      const r = await api('POST', `cards/${id}/${verb}`);
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('invalid_state');
    }
    expect((await get(`cards?account_id=${accounts.USD}&status=terminated`)).data.map((c: { id: string }) => c.id)).toEqual([id]);
    // Actions take no body: an unknown field is a 422.
    expect((await api('POST', `cards/${physical.body.id}/freeze`, { reason: 'x' })).status).toBe(422);
  });
});

describe('collections', () => {
  it('pending → succeeded | failed (magic 13); mobile_money needs its details', async () => {
    const { accounts } = await fundedAccounts(emu, api, { KES: '0' });
    const mm = await api('POST', 'collections', { account_id: accounts.KES, amount: '100.00', currency: 'KES', method: 'mobile_money' });
    expect(mm.status).toBe(422);
    expect(mm.body.errors[0]).toMatchObject({ field: 'mobile_money', code: 'required' });
    const good = await api('POST', 'collections', {
      account_id: accounts.KES,
      amount: '100.00',
      currency: 'KES',
      method: 'mobile_money',
      mobile_money: { phone: '+254712345678', provider: 'mpesa' },
    });
    const bad = await api('POST', 'collections', { account_id: accounts.KES, amount: '0.13', currency: 'KES', method: 'card' });
    emu.admin.advance(6);
    expect(await get(`collections/${good.body.id}`)).toMatchObject({ status: 'succeeded' });
    expect(await get(`collections/${bad.body.id}`)).toMatchObject({
      status: 'failed',
      failure_reason: 'payment_declined',
      completed_at: null,
    });
    expect((await get(`accounts/${accounts.KES}`)).balance).toEqual({ available: '100.00', pending: '0.00', currency: 'KES' });
    expect((await get(`collections?account_id=${accounts.KES}&status=failed`)).data).toHaveLength(1);
  });
});

describe('wallets and payment links', () => {
  it('network must suit the asset; links: active → disabled | expired, others final', async () => {
    const customer = await enabledCustomer(emu, api);
    expect((await api('POST', 'wallets', { customer_id: customer, asset: 'BTC', network: 'ethereum' })).body.errors[0].field).toBe(
      'network',
    );
    const wallet = await api('POST', 'wallets', { customer_id: customer, asset: 'USDC', network: 'polygon', label: 'Treasury' });
    expect(wallet.body).toMatchObject({ status: 'active', balance: { available: '0.000000', pending: '0.000000', currency: 'USDC' } });
    expect(wallet.body.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect((await api('POST', 'payment-links', { wallet_id: wallet.body.id, amount: '1.0000001', asset: 'USDC' })).status).toBe(422);
    expect((await api('POST', 'payment-links', { wallet_id: wallet.body.id, amount: '1', asset: 'BTC' })).body.code).toBe(
      'currency_mismatch',
    );
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const soon = await api('POST', 'payment-links', { wallet_id: wallet.body.id, amount: '25.50', asset: 'USDC', expires_at: expiresAt });
    expect(soon.body).toMatchObject({ status: 'active', url: expect.stringContaining(soon.body.id) });
    const other = await api('POST', 'payment-links', { wallet_id: wallet.body.id, amount: '5', asset: 'USDC' });
    expect((await api('POST', `payment-links/${other.body.id}/disable`)).body.status).toBe('disabled');
    expect((await api('POST', `payment-links/${other.body.id}/disable`)).body.code).toBe('invalid_state');
    emu.admin.advance(3601);
    expect((await get(`payment-links/${soon.body.id}`)).status).toBe('expired');
    expect((await api('POST', `payment-links/${soon.body.id}/disable`)).status).toBe(409);
    const past = await api('POST', 'payment-links', {
      wallet_id: wallet.body.id,
      amount: '5',
      asset: 'USDC',
      expires_at: '2020-01-01T00:00:00Z',
    });
    expect(past.body.errors[0]).toMatchObject({ field: 'expires_at' });
  });
});

describe('FX quotes', () => {
  it('expire after 60 s (409 quote_expired) and trade once (409 quote_used)', async () => {
    const { accounts } = await fundedAccounts(emu, api, { USD: '500.00', GBP: '0' });
    const rates = await get('fx/rates?base=USD&symbols=GBP,JPY');
    expect(rates).toMatchObject({ object: 'fx_rates', base: 'USD', rates: { GBP: '0.79', JPY: '151.3' } });
    expect((await api('GET', 'fx/rates?base=XXX')).status).toBe(400);
    const q1 = (await api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'GBP', source_amount: '100.00' })).body;
    expect(Date.parse(q1.expires_at) - Date.parse(q1.created_at)).toBe(60_000);
    emu.admin.advance(61);
    expect((await get(`fx/quotes/${q1.id}`)).status).toBe('expired');
    const late = await api('POST', 'fx/trades', { quote_id: q1.id, source_account_id: accounts.USD, target_account_id: accounts.GBP });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('quote_expired');

    const q2 = (await api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'GBP', source_amount: '100.00' })).body;
    const trade = await api('POST', 'fx/trades', { quote_id: q2.id, source_account_id: accounts.USD, target_account_id: accounts.GBP });
    expect(trade.status).toBe(201);
    expect((await get(`fx/quotes/${q2.id}`)).status).toBe('used');
    const again = await api('POST', 'fx/trades', { quote_id: q2.id, source_account_id: accounts.USD, target_account_id: accounts.GBP });
    expect(again.body.code).toBe('quote_used');
    expect(
      (await api('POST', 'fx/trades', { quote_id: q2.id, source_account_id: accounts.GBP, target_account_id: accounts.USD })).status,
    ).toBe(409);
    expect((await get(`fx/trades?account_id=${accounts.GBP}`)).data.map((t: { id: string }) => t.id)).toEqual([trade.body.id]);
    expect(
      (await api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'GBP', source_amount: '1.00', target_amount: '1.00' }))
        .status,
    ).toBe(422);
    expect((await api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'USD', source_amount: '1.00' })).status).toBe(422);
  });
});

describe('KYC and features', () => {
  it('pending → in_review → approved; kyc_status mirrors it; features need approved KYC', async () => {
    const customer = (await api('POST', 'customers', customerBody())).body.id;
    expect((await api('GET', `customers/${customer}/kyc`)).status).toBe(404);
    expect((await api('POST', `customers/${customer}/kyc/documents`, { type: 'passport', country: 'GB' })).body.code).toBe('invalid_state');
    const cards = await get(`customers/${customer}/features/cards`);
    expect(cards).toMatchObject({ object: 'feature_status', eligible: false, active: false });
    expect((await api('POST', `customers/${customer}/features/cards/activate`)).body.code).toBe('feature_not_eligible');
    const fx = await api('POST', `customers/${customer}/features/fx/activate`);
    expect(fx.body).toMatchObject({ feature: 'fx', eligible: true, active: true });
    expect((await api('GET', `customers/${customer}/features/teleport`)).status).toBe(404);

    const v = await api('POST', `customers/${customer}/kyc`, { level: 'basic' });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({ status: 'pending', documents: [], submitted_at: null });
    expect((await get(`customers/${customer}`)).kyc_status).toBe('pending');
    expect((await api('POST', `customers/${customer}/kyc`, { level: 'basic' })).body.code).toBe('invalid_state');
    const doc = await api('POST', `customers/${customer}/kyc/documents`, { type: 'passport', country: 'GB', number: '123456789' });
    expect(doc.status).toBe(201);
    expect(doc.body).toMatchObject({ object: 'kyc_document', verification_id: v.body.id, number_last4: '6789', status: 'received' });
    expect(JSON.stringify(doc.body)).not.toContain('123456789');
    expect((await get(`customers/${customer}/kyc`)).status).toBe('in_review');
    expect((await get(`customers/${customer}`)).kyc_status).toBe('in_review');
    emu.admin.advance(6);
    const decided = await get(`customers/${customer}/kyc`);
    expect(decided).toMatchObject({ status: 'approved', rejection_reason: null });
    expect(decided.documents[0].status).toBe('accepted');
    expect((await get(`customers/${customer}`)).kyc_status).toBe('approved');
    expect((await api('POST', `customers/${customer}/features/cards/activate`)).body).toMatchObject({
      active: true,
      eligible: true,
      reasons: [],
    });
  });

  it('a document number ending in 0000 rejects; then a new verification may start', async () => {
    const customer = (await api('POST', 'customers', customerBody())).body.id;
    await api('POST', `customers/${customer}/kyc`, { level: 'enhanced' });
    await api('POST', `customers/${customer}/kyc/documents`, { type: 'national_id', country: 'NG', number: 'AB120000' });
    await api('POST', `customers/${customer}/kyc/documents`, { type: 'selfie', country: 'NG' });
    emu.admin.advance(6);
    const v = await get(`customers/${customer}/kyc`);
    expect(v.status).toBe('rejected');
    expect(v.rejection_reason).toBeTruthy();
    expect(v.documents.map((d: { status: string }) => d.status)).toEqual(['rejected', 'accepted']);
    expect((await get(`customers/${customer}`)).kyc_status).toBe('rejected');
    expect((await api('POST', `customers/${customer}/kyc/documents`, { type: 'passport', country: 'NG' })).status).toBe(409);
    expect((await api('POST', `customers/${customer}/kyc`, { level: 'basic' })).status).toBe(201);
  });

  it('deprecated KYC operations serve the same data with Deprecation and Link headers', async () => {
    const customer = (await api('POST', 'customers', customerBody())).body.id;
    const started = await api('POST', 'kyc/verify', { customer_id: customer, level: 'basic' });
    expect(started.status).toBe(201);
    expect(started.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(started.headers.get('link')).toBe(`</v1/customers/${customer}/kyc>; rel="successor-version"`);
    const doc = await api('POST', 'kyc/documents', { customer_id: customer, type: 'passport', country: 'GB', number: '99887766' });
    expect(doc.status).toBe(201);
    expect(doc.headers.get('deprecation')).toMatch(/^@\d+$/);
    const legacy = await api('GET', `kyc/status/${customer}`);
    expect(legacy.headers.get('link')).toBe(`</v1/customers/${customer}/kyc>; rel="successor-version"`);
    const current = await api('GET', `customers/${customer}/kyc`);
    expect(current.headers.get('deprecation')).toBeNull();
    expect(legacy.body).toEqual(current.body);
    expect(legacy.body.documents[0].id).toBe(doc.body.id);
    // Errors of a deprecated operation carry the headers too.
    const missing = await api('GET', 'kyc/status/cus_0123456789abcdefghijklmn');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect((await api('POST', 'kyc/verify', { level: 'basic' })).body.errors[0]).toMatchObject({ field: 'customer_id', code: 'required' });
  });
});
