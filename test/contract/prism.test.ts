// The contract test through Prism's validating proxy: a run of commands over every group,
// from the built pay, through Prism, to the emulator. Prism checks each request and response
// against the published contract; any violation fails the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { startPrism, type Prism } from '../helpers/prism.js';
import { cleanEnv, registerSecret, runPay } from '../helpers/run-pay.js';

let emu: Emulator;
let prism: Prism;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, settleAfterMs: 0 });
  registerSecret(emu.keys.sandbox.secret, emu.webhookSecret);
  prism = await startPrism(emu.url);
  env = cleanEnv({ PAY_BASE_URL: prism.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId });
}, 90_000);
afterAll(async () => {
  await prism?.stop();
  await emu?.stop();
});

async function pay(args: string[], expectCode = 0): Promise<Record<string, any>> {
  const r = await runPay([...args, '--json'], { env });
  expect(r.code, `pay ${args.join(' ')}\n${r.stderr}`).toBe(expectCode);
  return expectCode === 0 && r.stdout ? (JSON.parse(r.stdout) as Record<string, any>) : {};
}

describe('pay → Prism (validating proxy) → emulator', () => {
  it('a run over every group has no contract violation', async () => {
    const cus = await pay(['customers', 'create', '--first-name', 'Ada', '--last-name', 'Lovelace', '--email', 'ada@example.com', '--phone', '+447700900123', '--type', 'individual', '--date-of-birth', '1990-12-10', '--address-line1', '1 Main St', '--city', 'London', '--country', 'GB', '--postal-code', 'SW1A 1AA', '--state', 'GB-LND']);
    await pay(['customers', 'get', cus.id]);
    await pay(['customers', 'update', cus.id, '--city', 'Bath'], 2);
    await pay(['customers', 'update', cus.id, '--email', 'ada@lovelace.example', '--address-line1', '2 High St', '--city', 'Bath', '--country', 'GB', '--postal-code', 'BA1 1AA']);
    await pay(['customers', 'list', '--limit', '5']);
    await pay(['kyc', 'verify', cus.id]);
    await pay(['kyc', 'submit-document', cus.id, '--type', 'passport', '--country', 'GB', '--number', '123456789']);
    await pay(['kyc', 'status', cus.id]);
    await pay(['kyc-legacy', 'status', cus.id]);
    await pay(['features', 'list']);
    await pay(['features', 'check', cus.id, '--feature', 'cards']);
    const usd = await pay(['accounts', 'create', '--customer', cus.id, '--currency', 'USD']);
    const usd2 = await pay(['accounts', 'create', '--customer', cus.id, '--currency', 'USD']);
    const eur = await pay(['accounts', 'create', '--customer', cus.id, '--currency', 'EUR']);
    await pay(['accounts', 'list', '--customer', cus.id]);
    await pay(['collections', 'create', '--account', usd.id, '--amount', '500.00', '--currency', 'USD', '--method', 'card']);
    await pay(['collections', 'list', '--account', usd.id]);
    await pay(['accounts', 'get', usd.id]);
    const ea = await pay(['external-accounts', 'add', '--customer', cus.id, '--account-holder-name', 'Ada Lovelace', '--bank-name', 'Bank', '--account-number', '12345678', '--country', 'GB', '--currency', 'USD']);
    await pay(['external-accounts', 'list', '--customer', cus.id]);
    const tr = await pay(['transfers', 'send', '--from', usd.id, '--to', usd2.id, '--amount', '10.00', '--currency', 'USD', '--wait']);
    await pay(['transfers', 'get', tr.id]);
    await pay(['transfers', 'list', '--account', usd.id]);
    await pay(['transfers', 'send', '--from', usd.id, '--to', ea.id, '--amount', '99999.00', '--currency', 'USD'], 1);
    const card = await pay(['cards', 'issue', '--customer', cus.id, '--account', usd.id, '--type', 'virtual']);
    await pay(['cards', 'freeze', card.id]);
    await pay(['cards', 'freeze', card.id], 5);
    await pay(['cards', 'unfreeze', card.id]);
    await pay(['cards', 'list', '--customer', cus.id]);
    const wal = await pay(['wallets', 'create', '--customer', cus.id, '--asset', 'USDC', '--network', 'polygon']);
    await pay(['wallets', 'list']);
    const link = await pay(['payment-links', 'create', '--wallet', wal.id, '--amount', '25.00', '--asset', 'USDC']);
    await pay(['payment-links', 'disable', link.id]);
    await pay(['payment-links', 'list']);
    await pay(['fx', 'rates', '--base', 'USD']);
    const quote = await pay(['fx', 'quote', '--from', 'USD', '--to', 'EUR', '--amount', '100.00']);
    await pay(['fx', 'get-quote', quote.id]);
    await pay(['fx', 'trade', quote.id, '--from-account', usd.id, '--to-account', eur.id]);
    await pay(['fx', 'trades']);
    const txns = (await pay(['transactions', 'list', '--account', usd.id])) as unknown as Array<{ id: string }>;
    await pay(['transactions', 'get', txns[0]!.id]);
    const events = (await pay(['webhooks', 'list', '--limit', '3'])) as unknown as Array<{ id: string }>;
    await pay(['webhooks', 'get', events[0]!.id]);
    await pay(['webhooks', 'resend', events[0]!.id]);
    await pay(['customers', 'get', 'cus_000000000000000000000000'], 4);
    await pay(['external-accounts', 'remove', ea.id]);
    await pay(['cards', 'terminate', card.id]);

    expect(prism.violations(), prism.log().slice(-3000)).toEqual([]);
    expect(prism.log()).toMatch(/Request received/);
  }, 180_000);

  it('Prism does catch a request the contract forbids (the check above is not vacuous)', async () => {
    const r = await runPay(['api', 'POST', 'customers', '--data', '{"first_name":"Ada","shoe_size":42}'], { env });
    expect(r.code).not.toBe(0);
    expect(prism.violations().length).toBeGreaterThan(0);
  }, 60_000);
});
