// The business rules on the CLI side: the help of every command a rule gates names it (from the
// one table), `pay help rules` prints the table, and a refusal's hint says what to run, built only
// from what the answer names that is one of the service's own values (an id of the customer
// shape, a known KYC state and feature): a hostile answer never reaches the terminal raw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FEATURE_KEYS, KYC_STATUSES, refusalHint, RULES, rulesOf } from '../../../src/shared/rules.js';
import { ORIGIN, pay, SANDBOX_KEY } from './harness.js';

const env = { PAY_API_KEY: SANDBOX_KEY, PAY_BASE_URL: `${ORIGIN}/v1/`, PAY_TENANT_ID: 'biz_1' };
const CUS = 'cus_0123456789abcdefghijklmn';
const ACC = 'acc_0123456789abcdefghijklmn';

const refusal = (members: Record<string, unknown>, code: string) => () => ({
  status: 422,
  headers: { 'content-type': 'application/problem+json' },
  body: {
    type: `https://pay.dev/problems/${code}`,
    title: 'Validation failed',
    status: 422,
    code,
    detail: `customer ${CUS} cannot issue a card: KYC must be approved (kyc_status is pending)`,
    request_id: 'req_1',
    errors: [{ field: 'customer_id', code, message: 'KYC must be approved (kyc_status is pending)' }],
    ...members,
  },
});

/** The command line of every verb the rules gate, with the flags its request needs. */
const GATED: Record<string, string[]> = {
  createAccount: ['accounts', 'create', '--customer', CUS, '--currency', 'USD'],
  createExternalAccount: [
    'external-accounts',
    'add',
    '--customer',
    CUS,
    '--account-holder-name',
    'Ada',
    '--bank-name',
    'Bank',
    '--account-number',
    '12345678',
    '--country',
    'GB',
    '--currency',
    'USD',
  ],
  createTransfer: ['transfers', 'send', '--from', ACC, '--to', 'acc_abcdefghijklmnopqrstuvwx', '--amount', '1.00', '--currency', 'USD'],
  createCard: ['cards', 'issue', '--customer', CUS, '--account', ACC, '--type', 'virtual'],
  createCollection: ['collections', 'create', '--account', ACC, '--amount', '1.00', '--currency', 'USD', '--method', 'card'],
  createWallet: ['wallets', 'create', '--customer', CUS, '--asset', 'BTC', '--network', 'bitcoin'],
  createPaymentLink: ['payment-links', 'create', '--wallet', 'wal_0123456789abcdefghijklmn', '--amount', '1', '--asset', 'USDC'],
  createFxTrade: ['fx', 'trade', 'fxq_0123456789abcdefghijklmn', '--from-account', ACC, '--to-account', 'acc_abcdefghijklmnopqrstuvwx'],
};

describe('help names the rule where a user would hit it', () => {
  it('every gated command: its help says what it needs, from the table', async () => {
    const ops = [...new Set(Object.values(RULES).map((r) => r.operationId))];
    expect(Object.keys(GATED).sort()).toEqual(ops.sort());
    for (const [op, argv] of Object.entries(GATED)) {
      const r = await pay(['help', ...argv.slice(0, 2)], { env });
      const help = r.stdout.replace(/\s+/g, ' ');
      for (const rule of rulesOf(op)) {
        expect(help, op).toContain(rule.kyc === 'approved' ? 'KYC approved' : 'KYC not rejected');
        if (rule.feature) expect(help, op).toContain(`pay features activate <customer-id> --feature ${rule.feature}`);
      }
      expect(help).toContain('pay help rules');
    }
    const wallets = (await pay(['help', 'wallets', 'create'], { env })).stdout.replace(/\s+/g, ' ');
    expect(wallets).toContain(
      "Needs the customer's KYC approved and the crypto_wallets feature active (pay features activate <customer-id> --feature crypto_wallets",
    );
  });

  it('pay help rules prints the table; pay features --help lists what each feature gates', async () => {
    const r = await pay(['help', 'rules'], { env });
    expect(r.code).toBe(0);
    for (const rule of Object.values(RULES)) expect(r.stdout).toContain(rule.command);
    for (const f of FEATURE_KEYS) expect(r.stdout).toContain(f);
    const features = await pay(['help', 'features'], { env });
    expect(features.stdout).toContain('cards: KYC approved; gates pay cards issue');
    expect(features.stdout).toContain('international_transfers: KYC approved; gates pay transfers send');
  });
});

describe("a refusal's hint says what to run", () => {
  it('kyc_required for a pending customer: submit a document, then activate the feature; the field line names the flag', async () => {
    const entry = { customer_id: CUS, kyc_status: 'pending', customer_country: 'FR' };
    const r = await pay(GATED.createCard!, {
      env,
      respond: refusal(
        {
          ...entry,
          feature: 'cards',
          rule: 'cards.issue',
          errors: [
            { field: 'customer_id', code: 'kyc_required', message: 'KYC must be approved (kyc_status is pending)', ...entry },
            { field: 'customer_id', code: 'feature_not_active', message: 'the cards feature is not active', ...entry, feature: 'cards' },
          ],
        },
        'kyc_required',
      ),
    });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^error: HTTP 422 kyc_required: customer cus_\w+ cannot issue a card: KYC must be approved \(kyc_status is pending\)/,
    );
    expect(lines).toContain('  customer_id: KYC must be approved (kyc_status is pending) (--customer)');
    expect(lines.at(-1)).toBe(
      `hint: submit a document: pay kyc submit-document ${CUS} --type passport --country FR --number <number>; the review decides after it; then pay features activate ${CUS} --feature cards`,
    );
  });

  it('feature_not_active: activate it (the JSON error carries the hint and the members)', async () => {
    const r = await pay([...GATED.createWallet!, '--json'], {
      env,
      respond: refusal(
        { customer_id: CUS, kyc_status: 'approved', feature: 'crypto_wallets', rule: 'wallets.create' },
        'feature_not_active',
      ),
    });
    expect(r.code).toBe(1);
    const err = JSON.parse(r.stderr).error;
    expect(err).toMatchObject({
      code: 'feature_not_active',
      status: 422,
      hint: `activate it: pay features activate ${CUS} --feature crypto_wallets`,
    });
  });

  it('per KYC state: not started and rejected start a verification, in review waits, and feature_not_eligible says to run it again', () => {
    expect(refusalHint({ code: 'kyc_required', customer_id: CUS, kyc_status: 'not_started' })).toBe(
      `verify the customer: pay kyc verify ${CUS}, then pay kyc submit-document ${CUS} --type passport --country <CC> --number <number>; the review decides after it`,
    );
    expect(refusalHint({ code: 'kyc_required', customer_id: CUS, kyc_status: 'rejected', feature: 'fx' })).toMatch(
      /^the KYC of cus_\w+ was rejected: start a new verification \(pay kyc verify cus_\w+\) and pay kyc submit-document .*; then pay features activate cus_\w+ --feature fx$/,
    );
    expect(refusalHint({ code: 'kyc_required', customer_id: CUS, kyc_status: 'in_review', feature: 'cards' })).toBe(
      `the review is under way: pay kyc status ${CUS} shows when it is decided; then pay features activate ${CUS} --feature cards`,
    );
    expect(refusalHint({ code: 'feature_not_eligible', customer_id: CUS, kyc_status: 'pending', feature: 'cards' })).toMatch(
      /; then run this again$/,
    );
    expect(refusalHint({ code: 'insufficient_funds', customer_id: CUS })).toBeUndefined();
  });

  it('hostile members never reach the hint: only a customer id, a KYC state and a feature of the service (fast-check)', async () => {
    const hostile = fc.oneof(
      fc.string(),
      fc.constantFrom('cus_0123456789abcdefghijklmn\u001b[2J', 'cus_../../x', '\u001b]0;owned\u0007', 'cards; rm -rf /', 'approved\n'),
      fc.integer(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 2 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('kyc_required', 'feature_not_active', 'feature_not_eligible'),
        fc.record({
          customer_id: hostile,
          kyc_status: hostile,
          feature: hostile,
          customer_country: hostile,
          errors: fc.option(
            fc.array(
              fc.record({
                code: fc.constantFrom('kyc_required', 'feature_not_active'),
                customer_id: hostile,
                feature: hostile,
                customer_country: hostile,
              }),
              { maxLength: 3 },
            ),
            { nil: undefined },
          ),
        }),
        async (code, members) => {
          const hint = refusalHint({ code, ...members })!;
          expect(hint).not.toMatch(/[\u0000-\u001f\u007f]/);
          const ids = hint.match(/cus_\S*/g) ?? [];
          for (const id of ids) expect(id.replace(/[,;)]$/, '')).toMatch(/^cus_[0-9a-z]{24}$/);
          if (!(typeof members.customer_id === 'string' && /^cus_[0-9a-z]{24}$/.test(members.customer_id)) && !members.errors?.length)
            expect(hint).toContain('<customer-id>');
          const features = [...hint.matchAll(/--feature (\S+)/g)].map((m) => m[1]);
          for (const f of features) expect([...FEATURE_KEYS, '<feature>']).toContain(f);
          for (const s of [
            members.kyc_status,
            members.feature,
            members.customer_country,
            ...(members.errors ?? []).flatMap((e) => [e.feature, e.customer_country]),
          ])
            if (typeof s === 'string' && s.length > 3 && ![...KYC_STATUSES, ...FEATURE_KEYS].includes(s as never))
              expect(hint).not.toContain(s);
          for (const m of hint.matchAll(/--country (\S+)/g)) expect(m[1]).toMatch(/^([A-Z]{2}|<CC>)$/);
          // Through the whole command: one error line, field lines, one hint line; nothing raw on the terminal.
          const r = await pay(GATED.createCard!, { env, respond: refusal(members, code) });
          expect(r.code).toBe(1);
          expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
          expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(`hint: ${hint}`);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('a refusal that breaks several rules: the hint lists every step, in order', () => {
  const R = 'cus_abcdefghijklmnopqrstuvwx';
  const entry = (code: string, customer_id: string, kyc_status: string, customer_country: string, feature?: string) => ({
    field: 'x',
    code,
    message: 'm',
    customer_id,
    kyc_status,
    customer_country,
    ...(feature ? { feature } : {}),
  });

  it("the tester's case: the sender's feature, then the rejected receiver's KYC in their country; after activating it, only the receiver", () => {
    const both = refusalHint({
      code: 'feature_not_active',
      customer_id: CUS,
      kyc_status: 'approved',
      feature: 'international_transfers',
      errors: [entry('feature_not_active', CUS, 'approved', 'GB', 'international_transfers'), entry('kyc_required', R, 'rejected', 'US')],
    });
    expect(both).toBe(
      `activate it: pay features activate ${CUS} --feature international_transfers; then the KYC of ${R} was rejected: start a new verification (pay kyc verify ${R}) and pay kyc submit-document ${R} --type passport --country US --number <number>`,
    );
  });

  it('a rejected customer whose feature is active: only the KYC (no "then activate" of what is active)', () => {
    const hint = refusalHint({
      code: 'kyc_required',
      customer_id: CUS,
      kyc_status: 'rejected',
      feature: 'collections',
      customer_country: 'DE',
      errors: [entry('kyc_required', CUS, 'rejected', 'DE')],
    })!;
    expect(hint).not.toContain('features activate');
    expect(hint).toContain('--country DE');
  });

  it("a full account whose holder's KYC was rejected: a new verification unblocks it (not a dead end)", () => {
    expect(refusalHint({ code: 'account_not_empty', customer_id: CUS, kyc_status: 'rejected', customer_country: 'GB' })).toBe(
      `its holder's KYC was rejected, so no money moves out: start a new verification (pay kyc verify ${CUS}), then move the money to another account of theirs (pay transfers send); a payout needs the review approved (pay kyc submit-document ${CUS} --type passport --country GB --number <number>)`,
    );
    expect(refusalHint({ code: 'account_not_empty' })).toBeUndefined();
  });

  it('over generated refusals: each entry is one step, each customer KYC before its features, its country filled in, nothing not listed (fast-check)', () => {
    const ids = [CUS, R, 'cus_zyxwvutsrqponmlkjihgfedc'];
    const arb = fc.array(
      fc.record({
        code: fc.constantFrom('kyc_required', 'feature_not_active'),
        customer: fc.constantFrom(...ids),
        status: fc.constantFrom(...KYC_STATUSES),
        country: fc.constantFrom('GB', 'US', 'FR', 'NG'),
        feature: fc.constantFrom(...FEATURE_KEYS),
      }),
      { minLength: 1, maxLength: 5 },
    );
    fc.assert(
      fc.property(arb, (list) => {
        // One customer has one state and country in a refusal.
        const first = new Map(list.map((e) => [e.customer, e] as const).reverse());
        const errors = list.map((e) => {
          const c = first.get(e.customer)!;
          return entry(e.code, e.customer, c.status, c.country, e.code === 'feature_not_active' ? e.feature : undefined);
        });
        const hint = refusalHint({ code: errors[0]!.code, customer_id: errors[0]!.customer_id, errors })!;
        const steps = hint.split('; then ');
        const at = (needle: string) => steps.findIndex((s) => s.includes(needle));
        for (const e of errors) {
          if (e.code === 'feature_not_active') {
            const i = at(`pay features activate ${e.customer_id} --feature ${e.feature}`);
            expect(i, hint).toBeGreaterThanOrEqual(0);
            const kyc = errors.find((k) => k.code === 'kyc_required' && k.customer_id === e.customer_id);
            if (kyc) expect(at(`${kyc.customer_id}`), hint).toBeLessThan(i);
          } else {
            expect(hint).toContain(
              e.kyc_status === 'in_review'
                ? `pay kyc status ${e.customer_id}`
                : `pay kyc submit-document ${e.customer_id} --type passport --country ${e.customer_country}`,
            );
          }
        }
        const activated = [...hint.matchAll(/pay features activate (cus_[0-9a-z]+) --feature ([a-z_]+)/g)].map((m) => `${m[1]} ${m[2]}`);
        expect(new Set(activated)).toEqual(
          new Set(errors.filter((e) => e.code === 'feature_not_active').map((e) => `${e.customer_id} ${e.feature}`)),
        );
        expect(hint).not.toMatch(/<(CC|customer-id|feature)>/);
      }),
      { numRuns: 300 },
    );
  });
});
