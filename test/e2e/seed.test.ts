// `pay seed` against the emulator with faults: a YAML file of 225 entries across every kind the
// seed supports, applied through 500s/503s (half of them after the write committed) and latency.
// The emulator must end up holding exactly what the file describes, whatever happened on the way:
// a re-run (state file), a re-run without the state file (deterministic keys) and a run killed
// half-way then finished.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, PAY_BIN, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';
import { until } from '../helpers/wait.js';

type Kind =
  | 'customers'
  | 'kyc'
  | 'features'
  | 'accounts'
  | 'external_accounts'
  | 'collections'
  | 'cards'
  | 'wallets'
  | 'payment_links'
  | 'transfers'
  | 'fx_trades';
const N = 20; // customers; 345 entries in all
/** What each customer's objects need switched on (the business rules); approval comes from its kyc entry. */
const FEATURES = ['cards', 'collections', 'crypto_wallets', 'payment_links', 'fx'] as const;
const DOMAIN = 'seed-e2e.example.com';
const RETRIES = ['--max-retries', '10'];
const LONG = { timeoutMs: 180_000 };

/**
 * The seed document: per customer a KYC verification with a document, five feature activations,
 * two accounts, an external account, a funding collection, a card, a wallet, a link, two
 * transfers, an FX trade. Nothing says depends_on for the rules: the seed orders them.
 */
type Group = Record<string, Record<string, unknown>>;
function seedDoc(): Record<Kind, Group> {
  const doc: Record<Kind, Group> = {
    customers: {},
    kyc: {},
    features: {},
    accounts: {},
    external_accounts: {},
    collections: {},
    cards: {},
    wallets: {},
    payment_links: {},
    transfers: {},
    fx_trades: {},
  };
  const pad = (i: number) => String(i).padStart(2, '0');
  for (let i = 0; i < N; i++) {
    const c = `c${pad(i)}`;
    const next = `c${pad((i + 1) % N)}`;
    const cus = `\${customers.${c}.id}`;
    doc.customers[c] = {
      first_name: `First${i}`,
      last_name: `Last${i}`,
      email: `${c}@\${env.SEED_DOMAIN}`,
      phone: `+1415555${String(1000 + i)}`,
      type: i % 5 === 0 ? 'business' : 'individual',
      gender: ['female', 'male', 'non_binary', 'undisclosed'][i % 4],
      date_of_birth: `19${70 + (i % 30)}-0${1 + (i % 9)}-1${i % 10}`,
      address: { address_line1: `${i + 1} Main St`, city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
    };
    doc.kyc[c] = {
      customer_id: cus,
      level: 'basic',
      documents: [{ type: i % 2 ? 'passport' : 'national_id', country: 'US', number: `P${1000 + i}77`, file_name: `${c}.pdf` }],
    };
    for (const f of FEATURES) doc.features[`${c}_${f}`] = { customer_id: cus, feature: f };
    doc.accounts[`${c}_usd`] = { customer_id: cus, currency: 'USD', nickname: `${c} main` };
    doc.accounts[`${c}_eur`] = { customer_id: cus, currency: 'EUR', type: 'savings' };
    doc.external_accounts[c] = {
      customer_id: cus,
      account_holder_name: `First${i} Last${i}`,
      bank_name: 'Example Bank',
      account_number: `9876543${pad(i)}`,
      routing_number: '021000021',
      country: 'US',
      currency: 'USD',
    };
    doc.collections[`fund_${c}`] = {
      account_id: `\${accounts.${c}_usd.id}`,
      amount: '1000.00',
      currency: 'USD',
      method: i % 2 ? 'card' : 'bank_transfer',
      customer_id: cus,
      description: `funding for \${customers.${c}.email}`,
    };
    doc.cards[`${c}_virtual`] = {
      customer_id: cus,
      account_id: `\${accounts.${c}_usd.id}`,
      type: 'virtual',
      name_on_card: `FIRST${i} LAST${i}`,
      spending_limit: { amount: '500.00', interval: 'monthly' },
    };
    if (i % 4 === 0) {
      doc.cards[`${c}_physical`] = {
        customer_id: cus,
        account_id: `\${accounts.${c}_usd.id}`,
        type: 'physical',
        shipping_address: { address_line1: `${i + 1} Main St`, city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
      };
    }
    const btc = i % 2 === 1;
    doc.wallets[c] = btc
      ? { customer_id: cus, asset: 'BTC', network: 'bitcoin', label: `${c} btc` }
      : { customer_id: cus, asset: 'USDC', network: 'polygon' };
    doc.payment_links[c] = {
      wallet_id: `\${wallets.${c}.id}`,
      amount: btc ? '0.0015' : '25.00',
      asset: btc ? 'BTC' : 'USDC',
      description: `link ${i}`,
    };
    doc.transfers[`${c}_out`] = {
      source_account_id: `\${accounts.${c}_usd.id}`,
      destination_id: `\${external_accounts.${c}.id}`,
      amount: '10.00',
      currency: 'USD',
      reference: `out-${i}`,
      depends_on: [`collections.fund_${c}`],
    };
    doc.transfers[`${c}_to_${next}`] = {
      source_account_id: `\${accounts.${c}_usd.id}`,
      destination_id: `\${accounts.${next}_usd.id}`,
      amount: '25.50',
      currency: 'USD',
      description: `from ${c} to ${next}`,
      depends_on: [`collections.fund_${c}`],
    };
    doc.fx_trades[c] = {
      source_currency: 'USD',
      target_currency: 'EUR',
      source_amount: '100.00',
      source_account_id: `\${accounts.${c}_usd.id}`,
      target_account_id: `\${accounts.${c}_eur.id}`,
      depends_on: [`collections.fund_${c}`],
    };
  }
  return doc;
}

const DOC = seedDoc();
const REFS = Object.entries(DOC).flatMap(([kind, group]) => Object.keys(group).map((name) => `${kind}.${name}`));
/** What the emulator must hold after a complete apply (its stats names); one FX quote per trade. */
const EXPECTED: Record<string, number> = {
  customer: N,
  kyc_verification: N,
  account: 2 * N,
  external_account: N,
  collection: N,
  card: N + Math.ceil(N / 4),
  wallet: N,
  payment_link: N,
  transfer: 2 * N,
  fx_trade: N,
  fx_quote: N,
};
const PREFIX: Record<string, string> = {
  customers: 'cus_',
  kyc: 'kyc_',
  features: 'cus_',
  accounts: 'acc_',
  external_accounts: 'ea_',
  collections: 'col_',
  cards: 'card_',
  wallets: 'wal_',
  payment_links: 'plink_',
  transfers: 'tr_',
  fx_trades: 'fxt_',
};

interface Stats {
  objects: Record<string, number>;
  requests: number;
  faults: { failed: number; reset: number };
}

async function stats(emu: Emulator): Promise<Stats> {
  const r = await fetch(`${emu.url}/__emulator/stats`);
  return (await r.json()) as Stats;
}

/** Object counts of the kinds a seed creates. */
async function seedCounts(emu: Emulator): Promise<Record<string, number>> {
  const o = (await stats(emu)).objects;
  return Object.fromEntries(Object.keys(EXPECTED).map((k) => [k, o[k] ?? 0]));
}

/** Requests the emulator received between two stats calls (the second call itself counts one). */
async function requestsDuring(emu: Emulator, fn: () => Promise<void>): Promise<number> {
  const before = (await stats(emu)).requests;
  await fn();
  return (await stats(emu)).requests - before - 1;
}

/**
 * Writes (anything but a GET) the emulator received while fn ran: a re-run reads back every object
 * its state file records (the state file is not trusted), and must write nothing.
 */
async function writesDuring(emu: Emulator, fn: () => Promise<void>): Promise<{ writes: number; reads: number }> {
  const seen = { writes: 0, reads: 0 };
  const push = emu.received.push;
  emu.received.push = (...items) => {
    for (const r of items) {
      if (r.method === 'GET') seen.reads++;
      else seen.writes++;
    }
    return push.apply(emu.received, items);
  };
  try {
    await fn();
  } finally {
    emu.received.push = push;
  }
  return seen;
}

async function startFaulty(): Promise<Emulator> {
  const emu = await startEmulator({ port: 0, failRate: 0.2, latencyMs: [0, 30], settleAfterMs: 100 });
  registerSecret(
    emu.keys.sandbox.secret,
    emu.keys.sandbox.public,
    emu.keys.live.secret,
    emu.keys.live.public,
    emu.webhookSecrets.sandbox,
    emu.webhookSecrets.live,
  );
  return emu;
}

const envFor = (emu: Emulator, extra: Record<string, string> = {}) =>
  cleanEnv({ PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId, SEED_DOMAIN: DOMAIN, ...extra });

/** The whole emulator content is what the file describes: counts per kind and one customer per e-mail. */
async function expectExactly(emu: Emulator): Promise<void> {
  expect(await seedCounts(emu)).toEqual(EXPECTED);
  const list = await runPay(['customers', 'list', '--all', '--json', ...RETRIES], { env: envFor(emu), ...LONG });
  expect(list.code, list.stderr).toBe(0);
  const emails = (JSON.parse(list.stdout) as Array<{ email: string }>).map((c) => c.email).sort();
  expect(emails).toEqual(
    Object.keys(DOC.customers)
      .map((c) => `${c}@${DOMAIN}`)
      .sort(),
  );
}

type Row = { ref: string; id?: string; status: string; error?: string };
function parseNdjson<T = Row>(stdout: string): T[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

let dir: string;
beforeAll(() => {
  dir = tempDir('pay-seed-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('seed apply against a faulty emulator', () => {
  let emu: Emulator;
  let file: string;
  let state: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    emu = await startFaulty();
    file = join(dir, 'sandbox.yaml');
    state = `${file}.state.json`;
    writeFileSync(file, `# e2e seed: ${REFS.length} entries\n${stringify(DOC)}`);
  });
  afterAll(() => emu?.stop());

  it('the file has at least 200 entries over every kind', () => {
    expect(REFS.length).toBeGreaterThanOrEqual(200);
    expect(Object.keys(DOC)).toEqual(Object.keys(PREFIX));
  });

  it('plan and --dry-run before: everything to create, nothing sent', async () => {
    let plan!: Awaited<ReturnType<typeof runPay>>;
    let dry!: Awaited<ReturnType<typeof runPay>>;
    const sent = await requestsDuring(emu, async () => {
      plan = await runPay(['seed', 'plan', file, '-o', 'ndjson'], { env: envFor(emu) });
      dry = await runPay(['seed', 'apply', file, '--dry-run', '--json'], { env: envFor(emu) });
    });
    expect(plan.code, plan.stderr).toBe(0);
    const rows = parseNdjson<{ ref: string; action: string }>(plan.stdout);
    expect(rows.map((r) => r.ref)).toEqual(REFS);
    expect(new Set(rows.map((r) => r.action))).toEqual(new Set(['create']));
    // The documented row: {ref, action, id?, detail}; no status duplicating the action.
    for (const r of rows) expect(Object.keys(r).sort()).toEqual(['action', 'detail', 'ref']);
    expect(plan.stderr).toContain(`plan: ${REFS.length} to create, 0 to update, 0 to replace, 0 already done`);
    expect(dry.code, dry.stderr).toBe(0);
    expect(Object.keys(JSON.parse(dry.stdout))).toEqual(REFS);
    expect(sent).toBe(0);
    expect(existsSync(state)).toBe(false);
    expect(await seedCounts(emu)).toEqual(Object.fromEntries(Object.keys(EXPECTED).map((k) => [k, 0])));
  });

  it('apply creates exactly what the file describes, through injected faults', async () => {
    const t = Date.now();
    const r = await runPay(['seed', 'apply', file, '--json', ...RETRIES], { env: envFor(emu), ...LONG });
    const ms = Date.now() - t;
    expect(r.code, r.stderr).toBe(0);
    ids = JSON.parse(r.stdout) as Record<string, string>;
    expect(Object.keys(ids)).toEqual(REFS);
    for (const [ref, id] of Object.entries(ids)) {
      const kind = ref.split('.')[0]!;
      // A feature activation has no id of its own: the seed names it <customer id>/<feature>.
      const suffix = kind === 'features' ? `/${String(DOC.features[ref.split('.')[1]!]!.feature)}` : '';
      expect(id, ref).toMatch(new RegExp(`^${PREFIX[kind]}[0-9a-z]{24}${suffix}$`));
    }
    expect(new Set(Object.values(ids)).size).toBe(REFS.length);
    expect(r.stderr).toMatch(/^seed: \d+ created, \d+ replayed, 0 updated, 0 replaced, 0 skipped, 0 failed, 0 blocked$/m);
    const s = await stats(emu);
    expect(s.faults.failed).toBeGreaterThan(10); // the faults did happen
    await expectExactly(emu);
    // References resolved to created objects and their fields, ${env.…} included.
    const get = async (args: string[]) => {
      const g = await runPay([...args, '--json', ...RETRIES], { env: envFor(emu), ...LONG });
      expect(g.code, g.stderr).toBe(0);
      return JSON.parse(g.stdout) as Record<string, unknown>;
    };
    const card = await get(['cards', 'get', ids['cards.c00_physical']!]);
    expect(card).toMatchObject({ type: 'physical', customer_id: ids['customers.c00'], account_id: ids['accounts.c00_usd'] });
    expect(card.shipping_address).toMatchObject({ address_line1: '1 Main St', country: 'US', state: 'US-CA' });
    const col = await get(['collections', 'get', ids['collections.fund_c03']!]);
    expect(col).toMatchObject({ account_id: ids['accounts.c03_usd'], status: 'succeeded', description: `funding for c03@${DOMAIN}` });
    const tr = await get(['transfers', 'get', ids['transfers.c03_to_c04']!]);
    expect(tr).toMatchObject({ source_account_id: ids['accounts.c03_usd'], destination_id: ids['accounts.c04_usd'], amount: '25.50' });
    // The business rules' kinds: approved with its document, every feature active, before what needed them.
    const kyc = await get(['kyc', 'status', ids['customers.c03']!]);
    expect(kyc).toMatchObject({ id: ids['kyc.c03'], status: 'approved', level: 'basic' });
    expect(kyc.documents).toEqual([expect.objectContaining({ type: 'passport', number_last4: '0377', status: 'accepted' })]);
    for (const f of FEATURES) {
      const st = await get(['features', 'check', ids['customers.c03']!, '--feature', f]);
      expect(st, f).toMatchObject({ eligible: true, active: true });
      expect(ids[`features.c03_${f}`]).toBe(`${ids['customers.c03']}/${f}`);
    }
    const fx = await get(['fx', 'get-trade', ids['fx_trades.c03']!]);
    expect(fx).toMatchObject({
      source_account_id: ids['accounts.c03_usd'],
      target_account_id: ids['accounts.c03_eur'],
      source_amount: '100.00',
      status: 'completed',
    });
    console.log(`seed apply: ${REFS.length} entries in ${ms} ms through ${s.faults.failed} injected failures`);
  });

  it('plan after: everything already done', async () => {
    const plan = await runPay(['seed', 'plan', file, '--json'], { env: envFor(emu) });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)).toEqual(ids);
    expect(plan.stderr).toContain(`plan: 0 to create, 0 to update, 0 to replace, ${REFS.length} already done`);
  });

  it('apply again: every entry skipped from the state file (each object read back), nothing written', async () => {
    let r!: Awaited<ReturnType<typeof runPay>>;
    const sent = await writesDuring(emu, async () => {
      r = await runPay(['seed', 'apply', file, '-o', 'ndjson', ...RETRIES], { env: envFor(emu), ...LONG });
    });
    expect(r.code, r.stderr).toBe(0);
    const rows = parseNdjson(r.stdout);
    expect(rows.map((x) => x.status)).toEqual(REFS.map(() => 'skipped'));
    expect(Object.fromEntries(rows.map((x) => [x.ref, x.id]))).toEqual(ids);
    expect(sent.writes).toBe(0);
    expect(sent.reads).toBeGreaterThanOrEqual(REFS.length);
    await expectExactly(emu);
  });

  it('apply without the state file: every entry replayed by its key, nothing new', async () => {
    rmSync(state);
    const r = await runPay(['seed', 'apply', file, '-o', 'ndjson', ...RETRIES], { env: envFor(emu), ...LONG });
    expect(r.code, r.stderr).toBe(0);
    const rows = parseNdjson(r.stdout);
    expect(rows.map((x) => x.status)).toEqual(REFS.map(() => 'replayed'));
    expect(Object.fromEntries(rows.map((x) => [x.ref, x.id]))).toEqual(ids);
    await expectExactly(emu);
    expect(existsSync(state)).toBe(true);
  });
});

describe('seed apply after the file is edited: update in place, or replace with --replace', () => {
  let emu: Emulator;
  let file: string;
  let state: string;
  let ids: Record<string, string>;
  /** A small file: one customer (verified, its features on) with two accounts, a card and a link on the spare one, funding and a payout on the main one. */
  const editable = (name: string, city: string, spareCurrency: string) => ({
    customers: {
      [name]: {
        first_name: 'Alice',
        last_name: 'Ng',
        email: `${name}@\${env.SEED_DOMAIN}`,
        phone: '+14155550100',
        type: 'individual',
        date_of_birth: '1990-01-01',
        address: { address_line1: '1 Main St', city, country: 'US', postal_code: '78701', state: 'US-TX' },
      },
    },
    kyc: {
      [name]: { customer_id: `\${customers.${name}.id}`, documents: [{ type: 'passport', country: 'US', number: '123456789' }] },
    },
    features: Object.fromEntries(
      ['cards', 'collections', 'crypto_wallets', 'payment_links'].map((f) => [f, { customer_id: `\${customers.${name}.id}`, feature: f }]),
    ),
    accounts: {
      main: { customer_id: `\${customers.${name}.id}`, currency: 'USD' },
      spare: { customer_id: `\${customers.${name}.id}`, currency: spareCurrency, nickname: 'spare' },
    },
    external_accounts: {
      bank: {
        customer_id: `\${customers.${name}.id}`,
        account_holder_name: 'Alice Ng',
        bank_name: 'Example Bank',
        account_number: '987654300',
        routing_number: '021000021',
        country: 'US',
        currency: 'USD',
      },
    },
    collections: { fund: { account_id: '${accounts.main.id}', amount: '100.00', currency: 'USD', method: 'card' } },
    cards: { spare_card: { customer_id: `\${customers.${name}.id}`, account_id: '${accounts.spare.id}', type: 'virtual' } },
    wallets: { w: { customer_id: `\${customers.${name}.id}`, asset: 'USDC', network: 'polygon' } },
    payment_links: {
      link: { wallet_id: '${wallets.w.id}', amount: '5.00', asset: 'USDC', description: 'top up ${accounts.spare.account_number}' },
    },
    transfers: {
      payout: {
        source_account_id: '${accounts.main.id}',
        destination_id: '${external_accounts.bank.id}',
        amount: '10.00',
        currency: 'USD',
        depends_on: ['collections.fund'],
      },
    },
  });
  const refsOf = (doc: object) => Object.entries(doc).flatMap(([kind, group]) => Object.keys(group as object).map((n) => `${kind}.${n}`));
  const REPLACED = ['accounts.spare', 'cards.spare_card', 'payment_links.link'];
  const get = async (what: string, id: string) => {
    const g = await runPay([what, 'get', id, '--json', ...RETRIES], { env: envFor(emu), ...LONG });
    expect(g.code, g.stderr).toBe(0);
    return JSON.parse(g.stdout) as Record<string, unknown>;
  };
  const pay = (args: string[]) => runPay(args, { env: envFor(emu), ...LONG });

  beforeAll(async () => {
    emu = await startFaulty();
    file = join(dir, 'edited.yaml');
    state = `${file}.state.json`;
    writeFileSync(file, stringify(editable('alice', 'Austin', 'USD')));
  });
  afterAll(() => emu?.stop());

  it('apply, then a customer field edited: plan says update; apply updates the same customer, creates nothing', async () => {
    const first = await pay(['seed', 'apply', file, '--json', ...RETRIES]);
    expect(first.code, first.stderr).toBe(0);
    ids = JSON.parse(first.stdout) as Record<string, string>;
    const before = await seedCounts(emu);

    writeFileSync(file, stringify(editable('alice', 'Dallas', 'USD')));
    const plan = await pay(['seed', 'plan', file, '-o', 'ndjson']);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = parseNdjson<{ ref: string; action: string; id?: string; detail: string }>(plan.stdout);
    expect(Object.fromEntries(planned.map((r) => [r.ref, r.action]))).toEqual({
      ...Object.fromEntries(Object.keys(ids).map((r) => [r, 'skip'])),
      'customers.alice': 'update',
    });
    expect(planned.find((r) => r.ref === 'customers.alice')).toMatchObject({ id: ids['customers.alice'], detail: 'address changed' });
    expect(plan.stderr).toContain(`plan: 0 to create, 1 to update, 0 to replace, ${Object.keys(ids).length - 1} already done`);

    const r = await pay(['seed', 'apply', file, '-o', 'ndjson', ...RETRIES]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseNdjson<{ ref: string; action: string; id: string; status: string }>(r.stdout);
    expect(rows.find((x) => x.ref === 'customers.alice')).toMatchObject({
      action: 'update',
      status: 'updated',
      id: ids['customers.alice'],
    });
    expect(rows.filter((x) => x.ref !== 'customers.alice').every((x) => x.status === 'skipped')).toBe(true);
    expect(Object.fromEntries(rows.map((x) => [x.ref, x.id]))).toEqual(ids);
    expect((await get('customers', ids['customers.alice']!)).address).toMatchObject({ city: 'Dallas', address_line1: '1 Main St' });
    expect(await seedCounts(emu)).toEqual(before);
  });

  it('an account currency edited: plan says replace for it and what refers to it; apply without --replace exits 2 and changes nothing', async () => {
    writeFileSync(file, stringify(editable('alice', 'Dallas', 'EUR')));
    const plan = await pay(['seed', 'plan', file, '-o', 'ndjson']);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = parseNdjson<{ ref: string; action: string; detail: string }>(plan.stdout);
    expect(planned.filter((x) => x.action !== 'skip' && x.action !== 'retire').map((x) => [x.ref, x.action])).toEqual(
      REPLACED.map((ref) => [ref, 'replace']),
    );
    // What apply --replace would retire is listed before it is done.
    expect(planned.filter((x) => x.action === 'retire').map((x) => [x.ref, (x as { id?: string }).id])).toEqual(
      REPLACED.map((ref) => [ref, ids[ref]]),
    );
    expect(planned.find((x) => x.ref === 'accounts.spare')!.detail).toBe(
      `currency changed; an account has no update operation; the old ${ids['accounts.spare']}: closed if its balance is zero`,
    );
    expect(planned.find((x) => x.ref === 'cards.spare_card')!.detail).toMatch(
      /^account_id changed \(follows accounts\.spare\); .*terminated$/,
    );

    const stateBefore = readFileSync(state, 'utf8');
    const countsBefore = await seedCounts(emu);
    let r!: Awaited<ReturnType<typeof runPay>>;
    // The recorded objects are read back first (a tampered state file must stop as a mismatch, not
    // as an edit needing --replace); nothing is written.
    const sent = await writesDuring(emu, async () => {
      r = await pay(['seed', 'apply', file, '--json', ...RETRIES]);
    });
    expect(sent.writes).toBe(0);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const err = (
      JSON.parse(r.stderr) as { error: { message: string; hint: string; replace: Array<{ ref: string; id: string; old: string }> } }
    ).error;
    expect(err.message).toBe(`3 entries changed in a way the API cannot update in place: ${REPLACED.join(', ')}; nothing was sent`);
    expect(err.replace.map((x) => [x.ref, x.id, x.old])).toEqual([
      ['accounts.spare', ids['accounts.spare'], 'closed if its balance is zero'],
      ['cards.spare_card', ids['cards.spare_card'], 'terminated'],
      ['payment_links.link', ids['payment_links.link'], 'disabled if still active'],
    ]);
    expect(err.hint).toContain('--replace');
    const text = await pay(['seed', 'apply', file]);
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(/^error: 3 entries changed in a way the API cannot update in place: /);
    expect(text.stderr).toContain(
      `  cards.spare_card: account_id changed (follows accounts.spare); a card has no update operation; the old ${ids['cards.spare_card']}: terminated`,
    );
    expect(readFileSync(state, 'utf8')).toBe(stateBefore);
    expect(await seedCounts(emu)).toEqual(countsBefore);
  });

  it('apply --replace: a new account, card and link; the old ones closed, terminated, disabled; the rest untouched', async () => {
    const countsBefore = await seedCounts(emu);
    const r = await pay(['seed', 'apply', file, '-o', 'ndjson', '--replace', ...RETRIES]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseNdjson<{ ref: string; action: string; id: string; status: string; old_id?: string; old_status?: string }>(r.stdout);
    const byRef = Object.fromEntries(rows.map((x) => [x.ref, x]));
    for (const ref of REPLACED) {
      expect(byRef[ref], ref).toMatchObject({ action: 'replace', status: 'replaced', old_id: ids[ref] });
      expect(byRef[ref]!.id).not.toBe(ids[ref]);
    }
    expect(byRef['accounts.spare']!.old_status).toBe('closed');
    expect(byRef['cards.spare_card']!.old_status).toBe('terminated');
    expect(byRef['payment_links.link']!.old_status).toBe('disabled');
    for (const x of rows.filter((x) => !REPLACED.includes(x.ref)))
      expect(x, x.ref).toMatchObject({ action: 'skip', status: 'skipped', id: ids[x.ref] });
    expect(r.stderr).toMatch(/^seed: 0 created, 0 replayed, 0 updated, 3 replaced, \d+ skipped, 0 failed, 0 blocked$/m);
    expect(r.stderr).toContain(`old ${ids['accounts.spare']} (accounts.spare): closed`);

    const account = await get('accounts', byRef['accounts.spare']!.id);
    expect(account).toMatchObject({ currency: 'EUR', status: 'active', customer_id: ids['customers.alice'], nickname: 'spare' });
    expect(await get('accounts', ids['accounts.spare']!)).toMatchObject({ currency: 'USD', status: 'closed' });
    expect(await get('cards', byRef['cards.spare_card']!.id)).toMatchObject({ account_id: account.id, status: 'active' });
    expect(await get('cards', ids['cards.spare_card']!)).toMatchObject({ status: 'terminated' });
    expect(await get('payment-links', byRef['payment_links.link']!.id)).toMatchObject({
      description: `top up ${String(account.account_number)}`,
      status: 'active',
    });
    expect(await get('payment-links', ids['payment_links.link']!)).toMatchObject({ status: 'disabled' });
    expect(await seedCounts(emu)).toEqual({
      ...countsBefore,
      account: countsBefore.account! + 1,
      card: countsBefore.card! + 1,
      payment_link: countsBefore.payment_link! + 1,
    });
    ids = Object.fromEntries(rows.map((x) => [x.ref, x.id]));
  });

  it('apply again: nothing to do, nothing written (each recorded object read back)', async () => {
    const countsBefore = await seedCounts(emu);
    let r!: Awaited<ReturnType<typeof runPay>>;
    const sent = await writesDuring(emu, async () => {
      r = await pay(['seed', 'apply', file, '--json', ...RETRIES]);
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(ids);
    expect(sent.writes).toBe(0);
    const plan = await pay(['seed', 'plan', file]);
    expect(plan.stderr).toContain(`plan: 0 to create, 0 to update, 0 to replace, ${Object.keys(ids).length} already done`);
    expect(await seedCounts(emu)).toEqual(countsBefore);
  });

  it('a replacement needs no state file to be found again, and a change back makes a new object, not the retired one', async () => {
    const other = join(dir, 'edited-bob.yaml');
    const otherState = `${other}.state.json`;
    writeFileSync(other, stringify(editable('bob', 'Austin', 'USD')));
    const first = await pay(['seed', 'apply', other, '--json', ...RETRIES]);
    expect(first.code, first.stderr).toBe(0);
    const original = JSON.parse(first.stdout) as Record<string, string>;
    writeFileSync(other, stringify(editable('bob', 'Austin', 'EUR')));
    const replaced = await pay(['seed', 'apply', other, '--json', '--replace', ...RETRIES]);
    expect(replaced.code, replaced.stderr).toBe(0);
    const now = JSON.parse(replaced.stdout) as Record<string, string>;
    const counts = await seedCounts(emu);

    // The state file is lost: every entry, replaced ones included, is found again by its keys.
    rmSync(otherState);
    const again = await pay(['seed', 'apply', other, '-o', 'ndjson', ...RETRIES]);
    expect(again.code, again.stderr).toBe(0);
    const rows = parseNdjson(again.stdout);
    expect(rows.map((x) => x.status)).toEqual(refsOf(editable('bob', 'Austin', 'EUR')).map(() => 'replayed'));
    expect(Object.fromEntries(rows.map((x) => [x.ref, x.id]))).toEqual(now);
    expect(await seedCounts(emu)).toEqual(counts);

    // Back to USD: the first account's key now holds a closed account; a new one is made.
    writeFileSync(other, stringify(editable('bob', 'Austin', 'USD')));
    const back = await pay(['seed', 'apply', other, '--json', '--replace', ...RETRIES]);
    expect(back.code, back.stderr).toBe(0);
    const backIds = JSON.parse(back.stdout) as Record<string, string>;
    for (const ref of REPLACED) expect(new Set([original[ref], now[ref], backIds[ref]]).size, ref).toBe(3);
    expect(await get('accounts', backIds['accounts.spare']!)).toMatchObject({ currency: 'USD', status: 'active' });
    rmSync(otherState);
    const lost = await pay(['seed', 'apply', other, '--json', ...RETRIES]);
    expect(lost.code, lost.stderr).toBe(0);
    expect(JSON.parse(lost.stdout)).toEqual(backIds);
  }, 180_000); // a re-run reads back every recorded object, through injected faults, on a loaded machine
});

describe('seed apply killed half-way, then run again', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startFaulty();
  });
  afterAll(() => emu?.stop());

  /** Starts `pay seed apply` as a child and SIGKILLs it once its state file holds `after` entries; returns that count. */
  async function applyAndKill(file: string, after: number): Promise<number> {
    const state = `${file}.state.json`;
    const acknowledged = (): number => {
      try {
        return Object.keys((JSON.parse(readFileSync(state, 'utf8')) as { entries: object }).entries).length;
      } catch {
        return 0;
      }
    };
    const child = spawn(process.execPath, [PAY_BIN, 'seed', 'apply', file, '--json', '--concurrency', '4', ...RETRIES], {
      env: envFor(emu),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('exit', (code, signal) => r(signal ?? code)));
    await until(`${after} writes acknowledged (or seed apply gone)`, () => acknowledged() >= after || child.exitCode !== null, {
      seen: () => out,
    });
    child.kill('SIGKILL');
    expect(await exited, out).toBe('SIGKILL');
    return acknowledged();
  }

  it('killed twice (among the customers and accounts, then among transfers and trades), then finished: exactly the described objects', async () => {
    const file = join(dir, 'killed.yaml');
    writeFileSync(file, stringify(DOC));
    const partials: string[] = [];
    let done = 0;
    for (const after of [50, 180]) {
      done = await applyAndKill(file, after);
      const partial = await seedCounts(emu);
      expect(done).toBeGreaterThanOrEqual(after);
      expect(done).toBeLessThan(REFS.length);
      expect(Object.entries(partial).some(([k, n]) => n < EXPECTED[k]!)).toBe(true);
      for (const [k, n] of Object.entries(partial)) expect(n, k).toBeLessThanOrEqual(EXPECTED[k]!);
      partials.push(`${done} acknowledged ${JSON.stringify(partial)}`);
    }

    const r = await runPay(['seed', 'apply', file, '-o', 'ndjson', ...RETRIES], { env: envFor(emu), ...LONG });
    expect(r.code, r.stderr).toBe(0);
    const rows = parseNdjson(r.stdout);
    expect(rows.map((x) => x.ref)).toEqual(REFS);
    expect(rows.filter((x) => x.status === 'skipped').length).toBe(done);
    expect(rows.every((x) => ['skipped', 'replayed', 'created'].includes(x.status) && x.id)).toBe(true);
    expect(new Set(rows.map((x) => x.id)).size).toBe(REFS.length);
    await expectExactly(emu);
    console.log(`killed after ${partials.join(', then after ')}; the last run: ${r.stderr.trim().split('\n').pop()}`);
  }, 180_000); // a re-run reads back every recorded object, through injected faults, on a loaded machine
});

describe('bad seed files: exit 2, one line, nothing sent', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startFaulty();
  });
  afterAll(() => emu?.stop());

  const cases: Array<[string, string, RegExp]> = [
    [
      'unknown-kind.yaml',
      'customers:\n  a: {first_name: A}\nplanets:\n  earth: {}\n',
      /^error: .*unknown-kind\.yaml: unknown kind "planets" \(known: customers, kyc, features, accounts, /,
    ],
    [
      'dangling.yaml',
      'accounts:\n  a:\n    customer_id: ${customers.bob.id}\n    currency: USD\n',
      /^error: .*dangling\.yaml: accounts\.a refers to customers\.bob, which the file does not define$/,
    ],
    [
      'cycle.yaml',
      'accounts:\n  a: {customer_id: "${accounts.b.id}", currency: USD}\n  b: {customer_id: "${accounts.a.id}", currency: USD}\n',
      /^error: .*cycle\.yaml: circular references: accounts\.a -> accounts\.b -> accounts\.a$/,
    ],
    ['invalid.yaml', 'customers:\n  a: {first_name: [unclosed\n  b: x: y\n', /^error: .*invalid\.yaml is not valid YAML: /],
  ];
  it.each(cases)('%s', async (name, text, message) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    for (const args of [
      ['seed', 'apply', file],
      ['seed', 'plan', file],
    ]) {
      let r!: Awaited<ReturnType<typeof runPay>>;
      const sent = await requestsDuring(emu, async () => {
        r = await runPay(args, { env: envFor(emu) });
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(message);
      expect(sent).toBe(0);
    }
    expect(existsSync(`${file}.state.json`)).toBe(false);
  });

  it('reads a JSON seed file that starts with a byte order mark', async () => {
    const file = join(dir, 'bom.json');
    writeFileSync(file, `\uFEFF${JSON.stringify({ customers: { alice: DOC.customers.c00 } })}`);
    const r = await runPay(['seed', 'plan', file, '--json'], { env: envFor(emu) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ 'customers.alice': null });
  });
});
