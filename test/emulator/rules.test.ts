// The business rules (src/shared/rules.ts) as the emulator enforces them. The matrix is generated
// from the table: every gated route, for a customer in every KYC state with the rule's feature
// active and not (where the state can have it), is refused with the rule's error in every state the
// table does not allow and succeeds in the one it does; the features endpoint agrees with the
// routes (eligible and active ⇔ allowed). Then fast-check drives sequences of KYC steps, feature
// activations, clock moves and gated actions against a model of the KYC state machine and the table.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FEATURES,
  featureDef,
  KYC_STATUSES,
  kycAllows,
  RULE_KEYS,
  RULES,
  type FeatureKey,
  type KycStatus,
  type RuleKey,
} from '../../src/shared/rules.js';
import { client, customerBody, start, type Api, type Emulator, type Res } from './helpers.js';

const SETTLE_S = 60;
let emu: Emulator;
let api: Api;
let bank: string; // a funded USD account of a customer every rule allows
let seq = 0;

beforeAll(async () => {
  emu = await start({ settleAfterMs: SETTLE_S * 1000 });
  api = client(emu);
  const b = await ok(api('POST', 'customers', customerBody(9000)));
  await ok(api('POST', `customers/${b.id}/features/collections/activate`));
  bank = (await ok(api('POST', 'accounts', { customer_id: b.id, currency: 'USD' }))).id;
  await ok(api('POST', 'collections', { account_id: bank, amount: '1000000.00', currency: 'USD', method: 'card' }));
  emu.admin.advance(SETTLE_S + 1);
});
afterAll(() => emu.stop());

async function ok(p: Promise<Res>): Promise<any> {
  const r = await p;
  if (r.status >= 300) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A customer (address in GB) with a funded USD account, an EUR account, external accounts at home (GB) and abroad (US). */
interface Subject {
  id: string;
  usd: string;
  eur: string;
  home: string;
  abroad: string;
  wallet?: string;
}

async function subject(): Promise<Subject> {
  const id = (await ok(api('POST', 'customers', customerBody(++seq)))).id as string;
  const usd = (await ok(api('POST', 'accounts', { customer_id: id, currency: 'USD' }))).id as string;
  const eur = (await ok(api('POST', 'accounts', { customer_id: id, currency: 'EUR' }))).id as string;
  const ea = (country: string) =>
    ok(
      api('POST', 'external-accounts', {
        customer_id: id,
        account_holder_name: 'Ada Lovelace',
        bank_name: 'Example Bank',
        account_number: '12345678',
        country,
        currency: 'USD',
      }),
    );
  const home = (await ea('GB')).id as string;
  const abroad = (await ea('US')).id as string;
  await ok(api('POST', 'transfers', { source_account_id: bank, destination_id: usd, amount: '1000.00', currency: 'USD' }));
  return { id, usd, eur, home, abroad };
}

/** The request each rule gates, for a subject (the 2xx it answers when allowed). */
async function attempt(rule: RuleKey, s: Subject): Promise<Res> {
  switch (rule) {
    case 'accounts.create':
      return api('POST', 'accounts', { customer_id: s.id, currency: 'USD' });
    case 'external_accounts.create':
      return api('POST', 'external-accounts', {
        customer_id: s.id,
        account_holder_name: 'Ada Lovelace',
        bank_name: 'Example Bank',
        account_number: '87654321',
        country: 'GB',
        currency: 'USD',
      });
    case 'transfers.internal':
      return api('POST', 'transfers', { source_account_id: s.usd, destination_id: bank, amount: '1.00', currency: 'USD' });
    case 'transfers.payout':
      return api('POST', 'transfers', { source_account_id: s.usd, destination_id: s.home, amount: '1.00', currency: 'USD' });
    case 'transfers.international':
      return api('POST', 'transfers', { source_account_id: s.usd, destination_id: s.abroad, amount: '1.00', currency: 'USD' });
    case 'cards.issue':
      return api('POST', 'cards', { customer_id: s.id, account_id: s.usd, type: 'virtual' });
    case 'collections.create':
      return api('POST', 'collections', { account_id: s.usd, amount: '1.00', currency: 'USD', method: 'card' });
    case 'wallets.create':
      return api('POST', 'wallets', { customer_id: s.id, asset: 'BTC', network: 'bitcoin' });
    case 'payment_links.create':
      return api('POST', 'payment-links', { wallet_id: s.wallet, amount: '0.001', asset: 'BTC' });
    case 'fx.trade': {
      const q = await ok(api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '1.00' }));
      return api('POST', 'fx/trades', { quote_id: q.id, source_account_id: s.usd, target_account_id: s.eur });
    }
  }
}

const activate = (s: Subject, f: FeatureKey) => api('POST', `customers/${s.id}/features/${f}/activate`);
const startKyc = (s: Subject, level = 'basic') => api('POST', `customers/${s.id}/kyc`, { level });
const submit = (s: Subject, bad: boolean) =>
  api('POST', `customers/${s.id}/kyc/documents`, { type: 'passport', country: 'GB', number: bad ? '12340000' : '123456789' });

/** The refusal the table gives (undefined: allowed). */
function expected(rule: RuleKey, status: string, active: ReadonlySet<string>): string | undefined {
  const r = RULES[rule];
  if (!kycAllows(r.kyc, status)) return 'kyc_required';
  if (r.feature && !active.has(r.feature)) return 'feature_not_active';
  return undefined;
}

function checkAnswer(rule: RuleKey, res: Res, want: string | undefined, s: Subject, what: string, active?: ReadonlySet<string>): void {
  const r = RULES[rule];
  if (want === undefined) {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return;
  }
  expect({ status: res.status, code: res.body.code }, `${what}: ${JSON.stringify(res.body)}`).toEqual({ status: 422, code: want });
  expect(res.body).toMatchObject({ customer_id: s.id, rule, ...(r.feature ? { feature: r.feature } : {}) });
  expect(res.body.errors[0]).toMatchObject({ field: r.field, code: want });
  expect(res.body.detail).toContain(`cannot ${r.action}`);
  // Every broken requirement, not only the first: the KYC need, then the feature, each naming the customer.
  const status = res.body.kyc_status as string;
  const all = [
    ...(kycAllows(r.kyc, status) ? [] : ['kyc_required']),
    ...(r.feature && active && !active.has(r.feature) ? ['feature_not_active'] : []),
  ];
  if (active)
    expect(
      res.body.errors.map((e: any) => e.code),
      what,
    ).toEqual(all);
  for (const e of res.body.errors)
    expect(e, what).toMatchObject({ field: r.field, customer_id: s.id, kyc_status: status, customer_country: 'GB' });
}

interface Case {
  rule: RuleKey;
  status: KycStatus;
  active: boolean;
}

/** Every rule × KYC state × its feature active or not, where a customer can be in that position. */
function matrix(): Case[] {
  const out: Case[] = [];
  for (const rule of RULE_KEYS) {
    const key = RULES[rule].feature;
    const feature = key ? featureDef(key)! : undefined;
    for (const status of KYC_STATUSES) {
      for (const active of feature ? [false, true] : [false]) {
        // A feature is activated only while eligible, and approval is never taken back: a feature that needs
        // approval is active only for an approved customer. Not-rejected features may be active, then rejected.
        if (active && feature!.kyc === 'approved' && status !== 'approved') continue;
        // A payment link needs a wallet of its customer, and a wallet needs approval.
        if (rule === 'payment_links.create' && status !== 'approved') continue;
        out.push({ rule, status, active });
      }
    }
  }
  return out;
}

describe('the rule matrix, generated from the table', () => {
  it('every gated route refuses every state the table does not allow and allows the one it does; the features endpoint agrees', async () => {
    const cases = matrix();
    expect(cases.length).toBeGreaterThan(50);
    const subjects = new Map<Case, Subject>();
    const features = (c: Case): FeatureKey[] => {
      const f = RULES[c.rule].feature;
      if (!c.active || !f) return [];
      return c.rule === 'payment_links.create' ? ['crypto_wallets', f] : [f];
    };
    // 1. Subjects, funded; features that need no approval activated now; verifications that settle with the clock.
    for (const c of cases) {
      const s = await subject();
      subjects.set(c, s);
      for (const f of features(c)) if (featureDef(f)!.kyc === 'not_rejected') await ok(activate(s, f));
      if (c.status === 'approved' || c.status === 'rejected') {
        await ok(startKyc(s));
        await ok(submit(s, c.status === 'rejected'));
      }
    }
    emu.admin.advance(SETTLE_S + 1); // funding settles; verifications are decided
    // 2. Approval-only features; the open states, made after the clock moved.
    for (const c of cases) {
      const s = subjects.get(c)!;
      for (const f of features(c)) if (featureDef(f)!.kyc === 'approved') await ok(activate(s, f));
      if (c.rule === 'payment_links.create') {
        await ok(activate(s, 'crypto_wallets'));
        s.wallet = (await ok(api('POST', 'wallets', { customer_id: s.id, asset: 'BTC', network: 'bitcoin' }))).id;
      }
      if (c.status === 'pending' || c.status === 'in_review') await ok(startKyc(s));
      if (c.status === 'in_review') await ok(submit(s, false));
      expect((await ok(api('GET', `customers/${s.id}`))).kyc_status).toBe(c.status);
      expect((await ok(api('GET', `accounts/${s.usd}`))).balance.available).toBe('1000.00');
    }
    // 3. The gated request, and the features endpoint, per case.
    for (const c of cases) {
      const s = subjects.get(c)!;
      const active = new Set(features(c));
      const want = expected(c.rule, c.status, active);
      checkAnswer(
        c.rule,
        await attempt(c.rule, s),
        want,
        s,
        `${c.rule} with KYC ${c.status}, feature ${c.active ? 'active' : 'not active'}`,
        active,
      );
      const f = RULES[c.rule].feature;
      if (f) {
        const st = await ok(api('GET', `customers/${s.id}/features/${f}`));
        expect(st).toMatchObject({ eligible: kycAllows(featureDef(f)!.kyc, c.status), active: c.active });
        expect(st.eligible && st.active, `${c.rule} ${c.status}: the feature status says what the route did`).toBe(want === undefined);
        expect(st.reasons.length === 0).toBe(st.eligible);
      }
    }
  });

  it('a rule with a feature needs what the feature needs (the table is consistent)', () => {
    for (const r of Object.values(RULES)) if (r.feature) expect(r.kyc, r.key).toBe(featureDef(r.feature)!.kyc);
    expect(FEATURES.map((f) => f.key).sort()).toEqual(
      [...new Set(Object.values(RULES).flatMap((r) => (r.feature ? [r.feature] : [])))].sort(),
    );
  });

  it('GET /features says requires_kyc from the table', async () => {
    const list = await ok(api('GET', 'features?limit=100'));
    expect(list.data.map((f: any) => [f.key, f.requires_kyc])).toEqual(FEATURES.map((f) => [f.key, f.kyc === 'approved']));
  });
});

describe('money never reaches a customer whose KYC was rejected', () => {
  it('an internal transfer, a payout to their external account and an FX trade into their account are refused on the destination field', async () => {
    const from = await subject();
    const to = await subject();
    await ok(activate(from, 'fx'));
    for (const s of [from]) {
      await ok(startKyc(s));
      await ok(submit(s, false));
    }
    await ok(startKyc(to));
    await ok(submit(to, true));
    emu.admin.advance(SETTLE_S + 1);
    expect((await ok(api('GET', `customers/${to.id}`))).kyc_status).toBe('rejected');
    const refusedFor = (res: Res, field: string) => {
      expect({ status: res.status, code: res.body.code, customer_id: res.body.customer_id }).toEqual({
        status: 422,
        code: 'kyc_required',
        customer_id: to.id,
      });
      expect(res.body.errors[0].field).toBe(field);
    };
    const send = (dest: string) =>
      api('POST', 'transfers', { source_account_id: from.usd, destination_id: dest, amount: '1.00', currency: 'USD' });
    refusedFor(await send(to.usd), 'destination_id');
    refusedFor(await send(to.home), 'destination_id');
    const q = await ok(api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '1.00' }));
    refusedFor(
      await api('POST', 'fx/trades', { quote_id: q.id, source_account_id: from.usd, target_account_id: to.eur }),
      'target_account_id',
    );
    // The same to a customer who is not rejected goes through.
    expect((await send(bank)).status).toBe(201);
  });

  it('what only lowers risk stays allowed for a rejected customer: removing an external account, closing an account', async () => {
    const s = await subject();
    await ok(startKyc(s));
    await ok(submit(s, true));
    emu.admin.advance(SETTLE_S + 1);
    expect((await ok(api('GET', `customers/${s.id}`))).kyc_status).toBe('rejected');
    expect((await api('DELETE', `external-accounts/${s.home}`)).status).toBe(200);
    expect((await api('POST', `accounts/${s.eur}/close`)).status).toBe(200);
    // A new verification lifts the "not rejected" rules at once (pending is not rejected).
    expect((await attempt('accounts.create', s)).body.code).toBe('kyc_required');
    await ok(startKyc(s));
    expect((await attempt('accounts.create', s)).status).toBe(201);
  });
});

describe('an approved customer stays approved while an upgrade is open, and after it is rejected', () => {
  it('kyc_status stays approved; the verification shows the upgrade; cards still issue', async () => {
    const s = await subject();
    await ok(startKyc(s));
    await ok(submit(s, false));
    emu.admin.advance(SETTLE_S + 1);
    await ok(activate(s, 'cards'));
    const upgrade = await ok(startKyc(s, 'enhanced'));
    expect(upgrade).toMatchObject({ level: 'enhanced', status: 'pending' });
    expect((await ok(api('GET', `customers/${s.id}`))).kyc_status).toBe('approved');
    expect((await attempt('cards.issue', s)).status).toBe(201);
    await ok(submit(s, true));
    emu.admin.advance(SETTLE_S + 1);
    expect((await ok(api('GET', `customers/${s.id}/kyc`))).status).toBe('rejected');
    expect((await ok(api('GET', `customers/${s.id}`))).kyc_status).toBe('approved');
    expect((await attempt('cards.issue', s)).status).toBe(201);
  });
});

// The model: the customer's KYC state machine as DESIGN.md describes it, and the table.
type Step =
  | { t: 'start'; level: 'basic' | 'enhanced' }
  | { t: 'submit'; bad: boolean }
  | { t: 'advance' }
  | { t: 'activate'; feature: FeatureKey }
  | { t: 'act'; rule: RuleKey }
  | { t: 'check'; feature: FeatureKey }
  /** start (basic), submit, advance: a whole verification, so that sequences reach approval often. */
  | { t: 'verify'; bad: boolean }
  /** activate what the rule names (for a link, a wallet first), then act: so that sequences reach allowed actions often. */
  | { t: 'use'; rule: RuleKey };

interface Model {
  status: KycStatus;
  /** The latest verification: its level and state, and whether a document will reject it. */
  v?: { level: string; status: 'pending' | 'in_review' | 'approved' | 'rejected'; bad: boolean };
  active: Set<string>;
  wallet: boolean;
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ t: fc.constant('start' as const), level: fc.constantFrom('basic' as const, 'enhanced' as const) }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('submit' as const), bad: fc.boolean() }), weight: 2 },
  { arbitrary: fc.constant({ t: 'advance' as const }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('activate' as const), feature: fc.constantFrom(...FEATURES.map((f) => f.key)) }), weight: 3 },
  { arbitrary: fc.record({ t: fc.constant('act' as const), rule: fc.constantFrom(...RULE_KEYS) }), weight: 5 },
  { arbitrary: fc.record({ t: fc.constant('check' as const), feature: fc.constantFrom(...FEATURES.map((f) => f.key)) }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('verify' as const), bad: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('use' as const), rule: fc.constantFrom(...RULE_KEYS) }), weight: 3 },
);

/** The steps a macro stands for. */
function expand(step: Step): Step[] {
  if (step.t === 'verify') return [{ t: 'start', level: 'basic' }, { t: 'submit', bad: step.bad }, { t: 'advance' }];
  if (step.t !== 'use') return [step];
  const feature = RULES[step.rule].feature;
  const wallet: Step[] =
    step.rule === 'payment_links.create'
      ? [
          { t: 'activate', feature: 'crypto_wallets' },
          { t: 'act', rule: 'wallets.create' },
        ]
      : [];
  return [...wallet, ...(feature ? [{ t: 'activate' as const, feature }] : []), { t: 'act', rule: step.rule }];
}

async function run(written: Step[]): Promise<void> {
  const steps = written.flatMap(expand);
  const s = await subject();
  emu.admin.advance(SETTLE_S + 1); // the funding settles (and whatever an earlier run left pending)
  const m: Model = { status: 'not_started', active: new Set(), wallet: false };
  for (const [i, step] of steps.entries()) {
    const what = `step ${i} ${JSON.stringify(step)} (model ${m.status}, ${[...m.active].join('+') || 'no features'})`;
    switch (step.t) {
      case 'start': {
        const r = await startKyc(s, step.level);
        const open = m.v && (m.v.status === 'pending' || m.v.status === 'in_review');
        const upgrade = m.v?.status === 'approved' && m.v.level === 'basic' && step.level === 'enhanced';
        const allowed = !open && (m.v?.status !== 'approved' || upgrade);
        expect(r.status, what).toBe(allowed ? 201 : 409);
        if (allowed) {
          m.v = { level: step.level, status: 'pending', bad: false };
          if (m.status !== 'approved') m.status = 'pending';
        }
        break;
      }
      case 'submit': {
        const r = await submit(s, step.bad);
        const open = m.v && (m.v.status === 'pending' || m.v.status === 'in_review');
        expect(r.status, what).toBe(open ? 201 : 409);
        if (open) {
          m.v!.status = 'in_review';
          m.v!.bad ||= step.bad;
          if (m.status !== 'approved') m.status = 'in_review';
        }
        break;
      }
      case 'advance': {
        emu.admin.advance(SETTLE_S + 1);
        if (m.v?.status === 'in_review') {
          m.v.status = m.v.bad ? 'rejected' : 'approved';
          if (m.status !== 'approved') m.status = m.v.status;
        }
        break;
      }
      case 'activate': {
        const r = await activate(s, step.feature);
        const eligible = kycAllows(featureDef(step.feature)!.kyc, m.status);
        if (m.active.has(step.feature) || eligible) {
          expect(r.status, what).toBe(200);
          m.active.add(step.feature);
        } else {
          expect({ status: r.status, code: r.body.code }, what).toEqual({ status: 422, code: 'feature_not_eligible' });
          expect(r.body).toMatchObject({ customer_id: s.id, feature: step.feature, kyc_status: m.status });
        }
        break;
      }
      case 'act': {
        if (step.rule === 'payment_links.create' && !m.wallet) break; // no wallet of the customer to link to yet
        const want = expected(step.rule, m.status, m.active);
        checkAnswer(step.rule, await attempt(step.rule, s), want, s, what);
        if (step.rule === 'wallets.create' && want === undefined && !m.wallet) {
          s.wallet = (await ok(api('GET', `wallets?customer_id=${s.id}`))).data[0].id;
          m.wallet = true;
        }
        break;
      }
      case 'verify':
      case 'use':
        break; // expanded above
      case 'check': {
        const st = await ok(api('GET', `customers/${s.id}/features/${step.feature}`));
        expect({ eligible: st.eligible, active: st.active }, what).toEqual({
          eligible: kycAllows(featureDef(step.feature)!.kyc, m.status),
          active: m.active.has(step.feature),
        });
        break;
      }
    }
    expect((await ok(api('GET', `customers/${s.id}`))).kyc_status, what).toBe(m.status);
  }
}

describe('sequences of KYC steps, activations, clock moves and gated actions against the model', () => {
  it('the emulator answers every step as the model of the table says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 30 }), (steps) => run(steps)),
      { numRuns: 80 },
    );
  });
});

describe('a refusal names every rule the request breaks, and each customer it is about', () => {
  it("an approved GB sender to a KYC-rejected customer's external account abroad: the feature and the receiver, both; after activating, only the receiver", async () => {
    const from = await subject();
    const to = await subject();
    await ok(startKyc(from));
    await ok(submit(from, false));
    await ok(startKyc(to));
    await ok(submit(to, true));
    emu.admin.advance(SETTLE_S + 1);
    const send = () =>
      api('POST', 'transfers', { source_account_id: from.usd, destination_id: to.abroad, amount: '1.00', currency: 'USD' });
    const first = await send();
    expect(first.status).toBe(422);
    expect(first.body).toMatchObject({ code: 'feature_not_active', customer_id: from.id, rule: 'transfers.international' });
    expect(first.body.errors).toEqual([
      expect.objectContaining({
        field: 'source_account_id',
        code: 'feature_not_active',
        customer_id: from.id,
        feature: 'international_transfers',
        kyc_status: 'approved',
      }),
      expect.objectContaining({
        field: 'destination_id',
        code: 'kyc_required',
        customer_id: to.id,
        kyc_status: 'rejected',
        customer_country: 'GB',
      }),
    ]);
    expect(first.body.detail).toContain(
      `customer ${from.id} cannot send money to an external account abroad: the international_transfers feature is not active`,
    );
    expect(first.body.detail).toContain(`customer ${to.id} cannot receive money: KYC was rejected`);
    await ok(activate(from, 'international_transfers'));
    const second = await send();
    expect(second.body).toMatchObject({ code: 'kyc_required', customer_id: to.id, kyc_status: 'rejected' });
    expect(second.body.errors.map((e: any) => [e.code, e.customer_id])).toEqual([['kyc_required', to.id]]);
  });

  it('a rejected customer with collections active: only the KYC is named (the feature is not), and its full account says how to unblock it', async () => {
    const s = await subject();
    await ok(activate(s, 'collections'));
    await ok(startKyc(s));
    await ok(submit(s, true));
    emu.admin.advance(SETTLE_S + 1);
    const r = await attempt('collections.create', s);
    expect(r.body.errors.map((e: any) => e.code)).toEqual(['kyc_required']);
    const close = await api('POST', `accounts/${s.usd}/close`);
    expect(close.status).toBe(409);
    expect(close.body).toMatchObject({ code: 'account_not_empty', customer_id: s.id, kyc_status: 'rejected', customer_country: 'GB' });
    expect(close.body.detail).toContain(`once a new KYC verification of its holder ${s.id} is started`);
    // And that is true: a new verification lets the money move to another account of theirs, then it closes.
    await ok(startKyc(s));
    const other = (await ok(api('POST', 'accounts', { customer_id: s.id, currency: 'USD' }))).id;
    await ok(api('POST', 'transfers', { source_account_id: s.usd, destination_id: other, amount: '1000.00', currency: 'USD' }));
    emu.admin.advance(SETTLE_S + 1);
    expect((await api('POST', `accounts/${s.usd}/close`)).status).toBe(200);
    // An account of a customer who is not rejected says nothing of KYC.
    const plain = await subject();
    const full = await api('POST', `accounts/${plain.usd}/close`);
    expect(full.body).not.toHaveProperty('customer_id');
  });
});
