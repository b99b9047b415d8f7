// Tenant isolation in the emulator (issue 7, point 6). Two tenants, each in Sandbox and Live, hold
// a full set of objects (customers, KYC, accounts, external accounts, cards, collections,
// transfers, transactions, wallets, payment links, FX quotes and trades, webhook events). Then
// fast-check generates requests over raw HTTP that aim at one scope's objects from somewhere
// else: another tenant with objects of its own, the same tenant with the other mode's key,
// tenants with no objects (random ones, the default one, near misses: other case, a character
// more or less), or a missing, unknown or malformed key (or a public key). Reads by id, list
// filters by id, and writes (PATCH, POST actions, DELETE, creates whose body names the objects,
// some replaying the owner's own Idempotency-Key and body). Every one is 404 not_found (401 for a
// bad key, 403 for a public key); a list answers 200 without any of the objects; no body carries
// the other scope's data beyond what the request itself sent; nothing is created or changed
// anywhere. Then the same templates from the owner's scope do reach the objects (so each 404
// above was isolation, not a malformed request).
//
// Reproduce a failing vector: PAY_FUZZ_SEED=<seed printed in the failure> npm run test:reliability -- tenancy
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { count, pool, record } from './helpers.js';

const RUNS = count(1000, 1000);
const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

let emu: Emulator;
/** The emulator's time stands still unless the test moves it (nothing settles or expires mid-run). */
const T0 = Date.now();

type Mode = 'sandbox' | 'live';
interface Scope {
  name: string;
  tenant: string;
  mode: Mode;
  key: string;
  ids: Record<string, string>;
  /** What the owner sent to create objects (replayed from elsewhere with the same Idempotency-Key). */
  creates: Record<string, { path: string; body: Record<string, unknown>; idem: string }>;
  /** Strings only this scope's objects hold: ids, emails, names, account numbers, addresses. */
  tokens: Set<string>;
  /** The tag its names carry (populate sets it; populateLater uses it). */
  tag?: string;
}

interface Res {
  status: number;
  text: string;
  body: any;
  replayed: boolean;
}

async function call(
  method: string,
  path: string,
  o: { key?: string | null; tenant?: string | null; body?: unknown; idem?: string },
): Promise<Res> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (o.key !== null && o.key !== undefined) headers['api-key'] = o.key;
  if (o.tenant !== null && o.tenant !== undefined) headers['x-tenant-id'] = o.tenant;
  if (method === 'POST') headers['idempotency-key'] = o.idem ?? randomUUID();
  let payload: string | undefined;
  if (o.body !== undefined) {
    payload = JSON.stringify(o.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(emu.baseUrl + path, { method, headers, body: payload });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, text, body, replayed: res.headers.get('idempotent-replayed') === 'true' };
}

async function stats(): Promise<Record<string, Record<string, number>>> {
  return ((await (await fetch(`${emu.url}/__emulator/stats`)).json()) as { scopes: Record<string, Record<string, number>> }).scopes;
}

const scopes: Scope[] = [];

/** Builds one scope's objects; money and state moves that need the clock come in `later`. */
async function populate(s: Scope): Promise<void> {
  const tag = `${s.name}${randomBytes(4).toString('hex')}`;
  const as = (method: string, path: string, body?: unknown, idem?: string) =>
    call(method, path, { key: s.key, tenant: s.tenant, body, ...(idem ? { idem } : {}) });
  const create = async (name: string, path: string, body: Record<string, unknown>): Promise<any> => {
    const idem = randomUUID();
    const r = await as('POST', path, body, idem);
    if (r.status !== 201 && r.status !== 202) throw new Error(`${s.name}: POST ${path} ${r.status} ${r.text}`);
    s.creates[name] = { path, body, idem };
    return r.body;
  };
  const customer = (n: number) => ({
    first_name: `Victim${tag}`,
    last_name: `Owner${n}${tag}`,
    email: `owner${n}.${tag}@example.com`,
    phone: '+447700900123',
    type: 'individual',
    date_of_birth: '1990-12-10',
    address: { address_line1: `${n} ${tag} Street`, city: 'London', country: 'GB', postal_code: 'SW1A 1AA' },
  });
  const c1 = await create('customer', 'customers', customer(1));
  const c2 = await create('customer2', 'customers', customer(2));
  s.ids.cus = c1.id;
  s.ids.cus2 = c2.id;
  s.tokens.add(c1.email).add(c2.email).add(`Owner1${tag}`).add(`Owner2${tag}`).add(`${tag} Street`);
  s.ids.kyc = (await create('kyc', `customers/${c1.id}/kyc`, { level: 'basic' })).id;
  // The business rules: a document that passes (approved once the clock moves), collections and fx now.
  await create('kycDocument', `customers/${c1.id}/kyc/documents`, { type: 'passport', country: 'GB', number: '123456789' });
  for (const f of ['collections', 'fx']) expect((await as('POST', `customers/${c1.id}/features/${f}/activate`)).status).toBe(200);
  const acc = await create('account', 'accounts', { customer_id: c1.id, currency: 'USD', nickname: `main ${tag}` });
  const acc2 = await create('account2', 'accounts', { customer_id: c1.id, currency: 'USD' });
  const accEur = await create('accountEur', 'accounts', { customer_id: c1.id, currency: 'EUR' });
  s.ids.acc = acc.id;
  s.ids.acc2 = acc2.id;
  s.ids.accEur = accEur.id;
  s.tokens.add(acc.account_number).add(acc2.account_number).add(accEur.account_number).add(`main ${tag}`);
  const ea = await create('external', 'external-accounts', {
    customer_id: c1.id,
    account_holder_name: `Holder ${tag}`,
    bank_name: 'Bank of Tests',
    account_number: `99${randomBytes(4).toString('hex')}`,
    country: 'GB',
    currency: 'USD',
  });
  s.ids.ea = ea.id;
  s.tokens.add(`Holder ${tag}`);
  s.ids.col = (
    await create('collection', 'collections', {
      account_id: acc.id,
      amount: '1000.00',
      currency: 'USD',
      method: 'card',
      description: `Funding ${tag}`,
    })
  ).id;
  s.tokens.add(`Funding ${tag}`);
  s.tag = tag;
}

/**
 * After the clock moved (the collection settled, the KYC approved): what the business rules let
 * an approved customer have (a card, a wallet, a payment link), a pending transfer, a trade, an
 * open quote.
 */
async function populateLater(s: Scope): Promise<void> {
  const as = (method: string, path: string, body?: unknown, idem?: string) =>
    call(method, path, { key: s.key, tenant: s.tenant, body, ...(idem ? { idem } : {}) });
  const create = async (name: string, path: string, body: Record<string, unknown>): Promise<any> => {
    const idem = randomUUID();
    const r = await as('POST', path, body, idem);
    if (r.status !== 201) throw new Error(`${s.name}: POST ${path} ${r.status} ${r.text}`);
    s.creates[name] = { path, body, idem };
    return r.body;
  };
  const tag = s.tag!;
  for (const f of ['cards', 'crypto_wallets', 'payment_links']) {
    const r = await as('POST', `customers/${s.ids.cus}/features/${f}/activate`);
    if (r.status !== 200) throw new Error(`${s.name}: activate ${f} ${r.status} ${r.text}`);
  }
  s.ids.card = (
    await create('card', 'cards', { customer_id: s.ids.cus, account_id: s.ids.acc, type: 'virtual', name_on_card: `Card ${tag}` })
  ).id;
  s.tokens.add(`Card ${tag}`);
  const wal = await create('wallet', 'wallets', { customer_id: s.ids.cus, asset: 'BTC', network: 'bitcoin', label: `Wallet ${tag}` });
  s.ids.wal = wal.id;
  s.tokens.add(wal.address).add(`Wallet ${tag}`);
  s.ids.plink = (
    await create('paymentLink', 'payment-links', { wallet_id: wal.id, amount: '0.001', asset: 'BTC', description: `Link ${tag}` })
  ).id;
  s.tokens.add(`Link ${tag}`);
  s.ids.tr = (
    await create('transfer', 'transfers', {
      source_account_id: s.ids.acc,
      destination_id: s.ids.acc2,
      amount: '10.00',
      currency: 'USD',
      reference: `Ref ${s.name}`,
    })
  ).id;
  const q1 = await create('quote', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '50.00' });
  s.ids.fxt = (await create('trade', 'fx/trades', { quote_id: q1.id, source_account_id: s.ids.acc, target_account_id: s.ids.accEur })).id;
  s.ids.fxq = (await create('quote2', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '20.00' })).id;
  s.ids.fxqUsed = q1.id;
  const txns = await as('GET', `transactions?account_id=${s.ids.acc}`);
  s.ids.txn = txns.body.data[0].id;
  const events = await as('GET', 'webhooks/events?limit=100');
  s.ids.evt = events.body.data[0].id;
  for (const e of events.body.data) s.tokens.add(e.id);
  for (const t of txns.body.data) s.tokens.add(t.id);
  for (const v of Object.values(s.ids)) s.tokens.add(v);
}

// ---------------------------------------------------------------------------------------------
// Templates: v = the target scope's ids, o = the caller's own ids (the target's when it has none).

type Ids = Record<string, string>;
interface Template {
  name: string;
  kind: 'read' | 'list' | 'write';
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: (v: Ids, o: Ids) => string;
  body?: (v: Ids, o: Ids) => Record<string, unknown>;
  /** Replays the owner's create with its Idempotency-Key (the body names the owner's objects). */
  replay?: string;
}

const read = (name: string, path: (v: Ids) => string): Template => ({ name, kind: 'read', method: 'GET', path });
const list = (name: string, path: (v: Ids) => string): Template => ({ name, kind: 'list', method: 'GET', path });
const write = (
  name: string,
  method: Template['method'],
  path: (v: Ids, o: Ids) => string,
  body?: (v: Ids, o: Ids) => Record<string, unknown>,
): Template => ({ name, kind: 'write', method, path, ...(body ? { body } : {}) });

const TEMPLATES: Template[] = [
  read('get customer', (v) => `customers/${v.cus}`),
  read('get customer kyc', (v) => `customers/${v.cus}/kyc`),
  read('legacy kyc status', (v) => `kyc/status/${v.cus}`),
  read('get customer feature', (v) => `customers/${v.cus}/features/fx`),
  read('get account', (v) => `accounts/${v.acc}`),
  read('get external account', (v) => `external-accounts/${v.ea}`),
  read('get card', (v) => `cards/${v.card}`),
  read('get collection', (v) => `collections/${v.col}`),
  read('get transfer', (v) => `transfers/${v.tr}`),
  read('get transaction', (v) => `transactions/${v.txn}`),
  read('get wallet', (v) => `wallets/${v.wal}`),
  read('get payment link', (v) => `payment-links/${v.plink}`),
  read('get fx quote', (v) => `fx/quotes/${v.fxq}`),
  read('get fx trade', (v) => `fx/trades/${v.fxt}`),
  read('get webhook event', (v) => `webhooks/events/${v.evt}`),
  list('list customers', () => 'customers'),
  list('list customers by email', (v) => `customers?email=${encodeURIComponent(v.email!)}`),
  list('list accounts by customer', (v) => `accounts?customer_id=${v.cus}`),
  list('list external accounts by customer', (v) => `external-accounts?customer_id=${v.cus}`),
  list('list cards by customer', (v) => `cards?customer_id=${v.cus}`),
  list('list cards by account', (v) => `cards?account_id=${v.acc}`),
  list('list collections by account', (v) => `collections?account_id=${v.acc}`),
  list('list transfers by account', (v) => `transfers?account_id=${v.acc2}`),
  list('list transactions by account', (v) => `transactions?account_id=${v.acc}`),
  list('list wallets by customer', (v) => `wallets?customer_id=${v.cus}`),
  list('list payment links by wallet', (v) => `payment-links?wallet_id=${v.wal}`),
  list('list fx trades by account', (v) => `fx/trades?account_id=${v.accEur}`),
  list('list webhook events', () => 'webhooks/events?limit=100'),
  write(
    'update customer',
    'PATCH',
    (v) => `customers/${v.cus}`,
    () => ({ first_name: 'Mallory' }),
  ),
  write(
    'start kyc',
    'POST',
    (v) => `customers/${v.cus2}/kyc`,
    () => ({ level: 'basic' }),
  ),
  write(
    'submit kyc document',
    'POST',
    (v) => `customers/${v.cus}/kyc/documents`,
    () => ({ type: 'passport', country: 'GB', number: 'X1' }),
  ),
  write(
    'legacy kyc verify',
    'POST',
    () => 'kyc/verify',
    (v) => ({ customer_id: v.cus2, level: 'basic' }),
  ),
  write(
    'legacy kyc document',
    'POST',
    () => 'kyc/documents',
    (v) => ({ customer_id: v.cus, type: 'passport', country: 'GB' }),
  ),
  write('activate feature', 'POST', (v) => `customers/${v.cus}/features/fx/activate`),
  write(
    'open account for customer',
    'POST',
    () => 'accounts',
    (v) => ({ customer_id: v.cus, currency: 'GBP' }),
  ),
  write('close account', 'POST', (v) => `accounts/${v.acc2}/close`),
  write(
    'add external account to customer',
    'POST',
    () => 'external-accounts',
    (v) => ({
      customer_id: v.cus,
      account_holder_name: 'Mallory',
      bank_name: 'Evil Bank',
      account_number: '12345678',
      country: 'GB',
      currency: 'GBP',
    }),
  ),
  write('remove external account', 'DELETE', (v) => `external-accounts/${v.ea}`),
  write(
    'card on their account, own customer',
    'POST',
    () => 'cards',
    (v, o) => ({ customer_id: o.cus, account_id: v.acc, type: 'virtual' }),
  ),
  write(
    'card for their customer',
    'POST',
    () => 'cards',
    (v, o) => ({ customer_id: v.cus, account_id: o.acc === v.acc ? v.acc : o.acc, type: 'virtual' }),
  ),
  write('freeze card', 'POST', (v) => `cards/${v.card}/freeze`),
  write('terminate card', 'POST', (v) => `cards/${v.card}/terminate`),
  write(
    'collect into their account',
    'POST',
    () => 'collections',
    (v) => ({ account_id: v.acc, amount: '5.00', currency: 'USD', method: 'card' }),
  ),
  write(
    'transfer out of their account',
    'POST',
    () => 'transfers',
    (v, o) => ({ source_account_id: v.acc, destination_id: o.acc2 === v.acc2 ? v.acc2 : o.acc2, amount: '1.00', currency: 'USD' }),
  ),
  write(
    'transfer into their account',
    'POST',
    () => 'transfers',
    (v, o) => ({ source_account_id: o.acc === v.acc ? v.acc : o.acc, destination_id: v.acc2, amount: '1.00', currency: 'USD' }),
  ),
  write(
    'transfer to their external account',
    'POST',
    () => 'transfers',
    (v, o) => ({ source_account_id: o.acc === v.acc ? v.acc : o.acc, destination_id: v.ea, amount: '1.00', currency: 'USD' }),
  ),
  write('cancel transfer', 'POST', (v) => `transfers/${v.tr}/cancel`),
  write(
    'wallet for their customer',
    'POST',
    () => 'wallets',
    (v) => ({ customer_id: v.cus, asset: 'ETH', network: 'ethereum' }),
  ),
  write(
    'payment link on their wallet',
    'POST',
    () => 'payment-links',
    (v) => ({ wallet_id: v.wal, amount: '0.5', asset: 'BTC' }),
  ),
  write('disable payment link', 'POST', (v) => `payment-links/${v.plink}/disable`),
  write(
    'trade their quote',
    'POST',
    () => 'fx/trades',
    (v, o) => ({
      quote_id: v.fxq,
      source_account_id: o.acc === v.acc ? v.acc : o.acc,
      target_account_id: o.accEur === v.accEur ? v.accEur : o.accEur,
    }),
  ),
  write(
    'trade own quote from their account',
    'POST',
    () => 'fx/trades',
    (v, o) => ({
      quote_id: o.fxq === v.fxq ? v.fxq : o.fxq,
      source_account_id: v.acc,
      target_account_id: o.accEur === v.accEur ? v.accEur : o.accEur,
    }),
  ),
  write('resend webhook event', 'POST', (v) => `webhooks/events/${v.evt}/resend`),
  // The owner's own creates, replayed from elsewhere with the owner's Idempotency-Key.
  ...['account', 'external', 'card', 'collection', 'wallet', 'paymentLink', 'kyc', 'transfer', 'trade'].map((name): Template => ({
    name: `replay owner's ${name} create (same Idempotency-Key)`,
    kind: 'write',
    method: 'POST',
    path: () => '',
    replay: name,
  })),
];

// ---------------------------------------------------------------------------------------------
// Callers

type Caller =
  | { type: 'scope'; index: number }
  | { type: 'tenant'; tenant: string; mode: Mode }
  | { type: 'near'; how: number; mode: Mode }
  | { type: 'bad-key'; key: string | null }
  | { type: 'public'; mode: Mode };

const callerArb: fc.Arbitrary<Caller> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constant('scope' as const), index: fc.nat(2) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('tenant' as const),
      tenant: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.constant('__default__')),
      mode: fc.constantFrom<Mode>('sandbox', 'live'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ type: fc.constant('near' as const), how: fc.nat(5), mode: fc.constantFrom<Mode>('sandbox', 'live') }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('bad-key' as const),
      key: fc.oneof(
        fc.constant(null),
        fc.constant(''),
        fc.stringMatching(/^sk_(test|live)_[0-9A-Za-z]{32}$/),
        fc.stringMatching(/^[\x21-\x7e]{1,80}$/),
        fc.constantFrom('__own_key_changed__', '__own_key_space__', '__own_key_upper__', '__other_mode_public_as_secret__'),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('public' as const), mode: fc.constantFrom<Mode>('sandbox', 'live') }) },
);

const vectorArb = fc.record({ target: fc.nat(3), template: fc.nat(TEMPLATES.length - 1), caller: callerArb });

interface Resolved {
  key: string | null;
  tenant: string;
  /** The caller's own scope when it is one of the four with objects. */
  own?: Scope;
  expect: 'not-found' | 401 | 403;
  label: string;
}

function resolve(c: Caller, target: Scope): Resolved {
  const keyOf = (mode: Mode) => emu.keys[mode].secret;
  switch (c.type) {
    case 'scope': {
      const others = scopes.filter((s) => s !== target);
      const own = others[c.index]!;
      return { key: own.key, tenant: own.tenant, own, expect: 'not-found', label: `${own.name}` };
    }
    case 'tenant': {
      let tenant = c.tenant === '__default__' ? emu.tenantId : c.tenant;
      if (scopes.some((s) => s.tenant === tenant)) tenant = `${tenant.slice(0, 63)}x`;
      if (tenant === target.tenant) tenant = `${tenant.slice(0, 62)}yz`;
      return { key: keyOf(c.mode), tenant, expect: 'not-found', label: `tenant ${tenant.slice(0, 20)} ${c.mode}` };
    }
    case 'near': {
      const t = target.tenant;
      const forms = [
        t.toUpperCase(),
        `${t}_`,
        t.slice(0, -1),
        `-${t}`,
        t.replace(/[a-z]/, (x) => x.toUpperCase()),
        `${t}${t}`.slice(0, 64),
      ];
      return { key: keyOf(c.mode), tenant: forms[c.how % forms.length]!, expect: 'not-found', label: `near tenant #${c.how} ${c.mode}` };
    }
    case 'bad-key': {
      let key = c.key;
      const own = target.key;
      if (key === '__own_key_changed__') key = own.slice(0, -1) + (own.endsWith('A') ? 'B' : 'A');
      else if (key === '__own_key_space__') key = `${own.slice(0, 10)} ${own.slice(10)}`;
      else if (key === '__own_key_upper__') key = own.toUpperCase();
      else if (key === '__other_mode_public_as_secret__')
        key = emu.keys[target.mode === 'sandbox' ? 'live' : 'sandbox'].public.replace(/^pk_/, 'sk_');
      // A generated key that happens to be a real one is not a bad key.
      if (
        key !== null &&
        [emu.keys.sandbox.secret, emu.keys.live.secret, emu.keys.sandbox.public, emu.keys.live.public].includes(key.trim())
      )
        key = `${key}!`;
      return { key, tenant: target.tenant, expect: 401, label: `bad key ${key === null ? '(none)' : JSON.stringify(key.slice(0, 12))}` };
    }
    case 'public':
      return { key: emu.keys[c.mode].public, tenant: target.tenant, expect: 403, label: `public key ${c.mode}` };
  }
}

/** The request a template makes against `target` from `own` (or the target's ids for both). */
function request(t: Template, target: Scope, own?: Scope): { method: string; path: string; body?: Record<string, unknown>; idem?: string } {
  const v = { ...target.ids, email: [...target.tokens].find((x) => x.includes('@'))! };
  const o = own?.ids ?? v;
  if (t.replay) {
    const c = target.creates[t.replay]!;
    return { method: 'POST', path: c.path, body: c.body, idem: c.idem };
  }
  return { method: t.method, path: t.path(v, o), ...(t.body ? { body: t.body(v, o) } : {}) };
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  emu = await startEmulator({ port: 0, host: '127.0.0.1', settleAfterMs: 1000, now: () => T0 });
  const tenantA = `biz_tenant_a_${randomBytes(5).toString('hex')}`;
  const tenantB = `biz_tenant_b_${randomBytes(5).toString('hex')}`;
  for (const [name, tenant, mode] of [
    ['A-sandbox', tenantA, 'sandbox'],
    ['A-live', tenantA, 'live'],
    ['B-sandbox', tenantB, 'sandbox'],
    ['B-live', tenantB, 'live'],
  ] as const) {
    scopes.push({ name, tenant, mode, key: emu.keys[mode].secret, ids: {}, creates: {}, tokens: new Set() });
  }
  for (const s of scopes) await populate(s);
  emu.admin.advance(120); // the collections settle: the accounts hold money
  for (const s of scopes) await populateLater(s);
}, 60_000);

afterAll(async () => {
  await emu?.stop();
});

describe('tenant isolation', () => {
  it(`${RUNS} generated cross-tenant, cross-mode and bad-key requests: 404/401/403, lists without the objects, no data, nothing changed (seed ${SEED})`, async () => {
    const started = Date.now();
    // What each scope's owner sees, before.
    const snapshot = async () => {
      const out: Record<string, string> = {};
      for (const s of scopes) {
        for (const t of TEMPLATES.filter((x) => x.kind === 'read')) {
          const q = request(t, s);
          out[`${s.name} ${t.name}`] = (await call('GET', q.path, { key: s.key, tenant: s.tenant })).text;
        }
        for (const t of TEMPLATES.filter((x) => x.kind === 'list')) {
          const q = request(t, s);
          out[`${s.name} ${t.name}`] = (await call('GET', q.path, { key: s.key, tenant: s.tenant })).text;
        }
      }
      return out;
    };
    const before = await snapshot();
    const statsBefore = await stats();

    const vectors = fc.sample(vectorArb, { numRuns: RUNS, seed: SEED });
    const failures: string[] = [];
    let leaked = 0;
    const tally = {
      read: 0,
      list: 0,
      write: 0,
      replays: 0,
      cross_tenant: 0,
      cross_mode: 0,
      no_object_tenant: 0,
      bad_key: 0,
      public_key: 0,
    };
    const results = await pool(vectors, 8, async (vec, i) => {
      const target = scopes[vec.target]!;
      const t = TEMPLATES[vec.template]!;
      const who = resolve(vec.caller, target);
      const q = request(t, target, who.own);
      tally[t.kind]++;
      if (t.replay) tally.replays++;
      if (who.expect === 401) tally.bad_key++;
      else if (who.expect === 403) tally.public_key++;
      else if (!who.own) tally.no_object_tenant++;
      else if (who.own.tenant === target.tenant) tally.cross_mode++;
      else tally.cross_tenant++;
      const r = await call(q.method, q.path, {
        key: who.key,
        tenant: who.tenant,
        ...(q.body ? { body: q.body } : {}),
        ...(q.idem ? { idem: q.idem } : {}),
      });
      const problems: string[] = [];
      if (who.expect === 401 || who.expect === 403) {
        if (r.status !== who.expect) problems.push(`status ${r.status}, want ${who.expect}`);
      } else if (t.kind === 'list') {
        if (r.status !== 200 || !Array.isArray(r.body?.data)) problems.push(`status ${r.status}, want 200 with a list`);
      } else if (r.status !== 404 || r.body?.code !== 'not_found')
        problems.push(`status ${r.status} ${r.body?.code ?? ''}, want 404 not_found`);
      // The same key sent twice by the same caller replays the caller's own 404 (fine); the
      // owner's stored answer is a 201.
      if (r.replayed && r.status < 400) problems.push("answered with the owner's stored response (Idempotent-Replayed)");
      // Data: anything of another scope than the caller's that the request did not itself carry.
      const sent = `${q.path} ${JSON.stringify(q.body ?? {})}`;
      const foreign = scopes
        .filter((s) => s !== who.own)
        .flatMap((s) => [...s.tokens].filter((x) => r.text.includes(x) && !sent.includes(x)).map((x) => `${s.name}:${x}`));
      if (foreign.length) {
        leaked++;
        problems.push(`body holds ${foreign.slice(0, 3).join(', ')}`);
      }
      if (problems.length)
        failures.push(`#${i} ${t.name} → ${target.name} as ${who.label}: ${problems.join('; ')} [${r.text.slice(0, 160)}]`);
      return problems.length === 0;
    });

    // Nothing created or changed anywhere, and no new scope.
    const statsAfter = await stats();
    const after = await snapshot();
    const changed = Object.keys(before).filter((k) => before[k] !== after[k]);
    for (const k of changed) failures.push(`owner's view changed: ${k}`);
    if (JSON.stringify(statsAfter) !== JSON.stringify(statsBefore))
      failures.push(`object counts changed: ${JSON.stringify(statsBefore)} → ${JSON.stringify(statsAfter)}`);

    // Control: the same templates from the owner's scope reach the objects.
    const controls = await pool(
      scopes.flatMap((s) => TEMPLATES.map((t) => [s, t] as const)),
      4,
      async ([s, t]) => {
        const q = request(t, s);
        const r = await call(q.method, q.path, {
          key: s.key,
          tenant: s.tenant,
          ...(q.body ? { body: q.body } : {}),
          ...(q.idem ? { idem: q.idem } : {}),
        });
        const ok =
          r.status < 400 || (r.status === 409 && r.body?.code !== undefined) || (r.status === 422 && r.body?.code !== 'validation_error');
        if (!ok) failures.push(`control: ${t.name} by ${s.name} itself: ${r.status} ${r.text.slice(0, 200)}`);
        return ok;
      },
    );

    const passed = results.filter(Boolean).length;
    await record(
      'tenancy.isolation',
      'cross-tenant, cross-mode and bad-key reads and writes against the emulator',
      {
        tried: RUNS,
        passed,
        lost: 0,
        duplicated: 0,
        leaked,
        extra: {
          seed: SEED,
          ...tally,
          owner_view_changes: changed.length,
          owner_controls: controls.length,
          owner_controls_failed: controls.filter((c) => !c).length,
        },
      },
      started,
    );
    expect(failures.slice(0, 40), `seed ${SEED}`).toEqual([]);
    expect(passed).toBe(RUNS);
  }, 300_000);
});
