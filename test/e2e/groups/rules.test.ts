// The business rules through the built CLI against the emulator: a refused command is exit 1 with
// one error line naming the customer and what is missing, a field line naming the flag, and a
// hint whose commands, run as printed (the placeholders filled in), make the same command succeed.
// Nothing is created by a refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, approveKyc, customer, fund, json, startWorld, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w?.stop());

/** The hint's commands, in order, as argv (`pay ` dropped; placeholders filled). */
function hintCommands(stderr: string): string[][] {
  const hint = /^hint: (.*)$/m.exec(stderr)?.[1] ?? '';
  return [...hint.matchAll(/pay ([a-z-]+ [a-z-]+ [^;,()]*?)(?=[;,)]|$)/g)].map((m) =>
    m[1]!.trim().replace('<CC>', 'GB').replace('<number>', '123456789').split(/\s+/),
  );
}

describe('a refusal says what to run, and running it is enough', () => {
  it('pay wallets create for a customer not yet verified: kyc_required; the hint verifies, submits, and activates', async () => {
    const cus = await customer(w);
    const create = ['wallets', 'create', '--customer', cus, '--asset', 'BTC', '--network', 'bitcoin'];
    const refused = await w.pay(create);
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^error: HTTP 422 kyc_required: customer ${cus} cannot create a wallet: KYC must be approved \\(kyc_status is not_started\\); the crypto_wallets feature is not active \\(request req_\\w+, idempotency key [0-9a-f-]+\\)$`,
      ),
    );
    expect(lines).toContain('  customer_id: KYC must be approved (kyc_status is not_started) (--customer)');
    expect(lines.at(-1)).toBe(
      `hint: verify the customer: pay kyc verify ${cus}, then pay kyc submit-document ${cus} --type passport --country GB --number <number>; the review decides after it; then pay features activate ${cus} --feature crypto_wallets`,
    );
    expect((await w.api('GET', `wallets?customer_id=${cus}`)).data).toEqual([]);

    const steps = hintCommands(refused.stderr);
    expect(steps.map((s) => s.slice(0, 2).join(' '))).toEqual(['kyc verify', 'kyc submit-document', 'features activate']);
    for (const [i, step] of steps.entries()) {
      // The review decides before the feature can be activated (the emulator's clock moves here).
      if (step[0] === 'features') await w.settle();
      const r = await w.pay(step);
      expect(r.code, `${step.join(' ')}: ${r.stderr}`).toBe(0);
      if (i === 1) expect((await w.api('GET', `customers/${cus}`)).kyc_status).toBe('in_review');
    }
    const wallet = json(await w.pay([...create, '--json']));
    expect(wallet).toMatchObject({ customer_id: cus, asset: 'BTC', status: 'active' });
  });

  it('pay collections create without the feature: feature_not_active on --account; the hint activates it', async () => {
    const cus = await customer(w);
    const acc = await account(w, cus);
    const create = ['collections', 'create', '--account', acc, '--amount', '10.00', '--currency', 'USD', '--method', 'card'];
    const refused = await w.pay(create);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`customer ${cus} cannot collect a payment: the collections feature is not active`);
    expect(refused.stderr).toContain(`  account_id: the collections feature is not active for ${cus} (--account)`);
    expect(refused.stderr.trimEnd().split('\n').at(-1)).toBe(`hint: activate it: pay features activate ${cus} --feature collections`);
    for (const step of hintCommands(refused.stderr)) expect((await w.pay(step)).code).toBe(0);
    expect(json(await w.pay([...create, '--json']))).toMatchObject({ status: 'pending', account_id: acc });
  });

  it("a send that breaks two rules (the sender's feature, the receiver's rejected KYC): both named, every step in the hint, and running them is enough", async () => {
    const sender = await customer(w);
    await approveKyc(w, sender);
    const from = await account(w, sender);
    await fund(w, from, '50.00');
    const receiver = await customer(w, {
      address: { address_line1: '1 Main St', city: 'New York', country: 'US', postal_code: '10001', state: 'US-NY' },
    });
    const ea = await w.api('POST', 'external-accounts', {
      customer_id: receiver,
      account_holder_name: 'Rita Rejected',
      bank_name: 'Example Bank',
      account_number: '12345678',
      country: 'US',
      currency: 'USD',
    });
    // Their external account first: a rejected customer adds none.
    await w.api('POST', `customers/${receiver}/kyc`, { level: 'basic' });
    await w.api('POST', `customers/${receiver}/kyc/documents`, { type: 'passport', country: 'US', number: '12340000' });
    await w.settle();
    const send = ['transfers', 'send', '--from', from, '--to', ea.id as string, '--amount', '5.00', '--currency', 'USD', '--yes'];
    const refused = await w.pay(send);
    expect(refused.code, refused.stderr).toBe(1);
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines[0]).toContain(
      `the international_transfers feature is not active; and customer ${receiver} cannot receive money: KYC was rejected`,
    );
    expect(lines.at(-1)).toBe(
      `hint: activate it: pay features activate ${sender} --feature international_transfers; then the KYC of ${receiver} was rejected: start a new verification (pay kyc verify ${receiver}) and pay kyc submit-document ${receiver} --type passport --country US --number <number>`,
    );
    const steps = hintCommands(refused.stderr);
    expect(steps.map((s) => s.slice(0, 2).join(' '))).toEqual(['features activate', 'kyc verify', 'kyc submit-document']);
    for (const step of steps) {
      const r = await w.pay(step);
      expect(r.code, `${step.join(' ')}: ${r.stderr}`).toBe(0);
    }
    await w.settle();
    const sent = await w.pay([...send, '--json']);
    expect(sent.code, sent.stderr).toBe(0);
  });

  it('closing a full account of a rejected customer: 409 with the way out (a new verification), and it works', async () => {
    const cus = await customer(w);
    const acc = await account(w, cus);
    await fund(w, acc, '20.00');
    await w.api('POST', `customers/${cus}/kyc`, { level: 'basic' });
    await w.api('POST', `customers/${cus}/kyc/documents`, { type: 'passport', country: 'GB', number: '12340000' });
    await w.settle();
    const refused = await w.pay(['accounts', 'close', acc]);
    expect(refused.code, refused.stderr).toBe(5);
    const hint = refused.stderr.trimEnd().split('\n').at(-1)!;
    expect(hint).toBe(
      `hint: its holder's KYC was rejected, so no money moves out: start a new verification (pay kyc verify ${cus}), then move the money to another account of theirs (pay transfers send); a payout needs the review approved (pay kyc submit-document ${cus} --type passport --country GB --number <number>)`,
    );
    expect((await w.pay(['kyc', 'verify', cus])).code).toBe(0);
    const other = await account(w, cus);
    const moved = await w.pay(['transfers', 'send', '--from', acc, '--to', other, '--amount', '20.00', '--currency', 'USD']);
    expect(moved.code, moved.stderr).toBe(0);
    await w.settle();
    expect((await w.pay(['accounts', 'close', acc])).code).toBe(0);
  });

  it('--json (activating a feature the KYC does not allow yet): the error object carries the code and the hint', async () => {
    const cus = await customer(w);
    const r = await w.pay(['features', 'activate', cus, '--feature', 'cards', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr).error;
    expect(err).toMatchObject({
      code: 'feature_not_eligible',
      status: 422,
      hint: `verify the customer: pay kyc verify ${cus}, then pay kyc submit-document ${cus} --type passport --country GB --number <number>; the review decides after it; then run this again`,
    });
  });
});
