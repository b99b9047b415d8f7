// Names beside ids (#28 item 5), the built bin/pay.js against a real emulator: a table (-o table,
// forced off a terminal) or get view shows an account's nickname and a customer's name beside the
// id, at the cost of at most one GET per distinct object, counted from what the emulator received;
// none with --no-names, PAY_NAMES=0, or any machine format (--json, NDJSON, CSV, TSV, --jq), which
// never carry names. A lookup that fails (404, 500, an answer about another object, a hostile name)
// leaves the id alone or is escaped: the exit code and stderr are those of the command itself.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPay } from '../helpers/run-pay.js';
import { customerBody, fund, ok, startWorld, table, type World } from './groups/helpers.js';

let w: World;
let ops: string;
let pay: string;
let cus: string;
const transfers: string[] = [];
let failed: string;

beforeAll(async () => {
  w = await startWorld();
  cus = (await w.api('POST', 'customers', customerBody({ first_name: 'Ada', last_name: 'Lovelace' }))).id as string;
  ops = (await w.api('POST', 'accounts', { customer_id: cus, currency: 'USD', nickname: 'Operating' })).id as string;
  pay = (await w.api('POST', 'accounts', { customer_id: cus, currency: 'USD', nickname: 'Payroll' })).id as string;
  await fund(w, ops, '1000.00');
  // 20 transfers between the same two accounts, one of them failing (minor units ending in 13).
  for (let i = 1; i <= 19; i++) {
    const t = await w.api('POST', 'transfers', { source_account_id: ops, destination_id: pay, amount: `${i}.00`, currency: 'USD' });
    transfers.push(t.id as string);
  }
  failed = (await w.api('POST', 'transfers', { source_account_id: ops, destination_id: pay, amount: '2.13', currency: 'USD' }))
    .id as string;
  transfers.push(failed);
  await w.settle();
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

/** The GETs of one object the run sent (the lookups), by path. */
function lookups(mark: number): string[] {
  return w
    .since(mark, 'GET')
    .map((r) => r.path)
    .filter((p) => /^\/v1\/(?:accounts|customers|wallets|external-accounts)\/[a-z]+_[0-9a-z]{24}$/.test(p.split('?')[0]!));
}

describe('names beside ids', () => {
  it('transfers list -o table with 20 rows between two accounts: one GET per account, the nickname beside each id', async () => {
    const mark = w.mark();
    const t = table(await w.pay(['transfers', 'list', '--limit', '20', '-o', 'table']));
    expect(t.rows).toHaveLength(20);
    expect(lookups(mark).sort()).toEqual([`/v1/accounts/${ops}`, `/v1/accounts/${pay}`].sort());
    const from = t.header.indexOf('FROM');
    const to = t.header.indexOf('TO');
    for (const row of t.rows) {
      expect(row[from]).toBe(`${ops} (Operating)`);
      expect(row[to]).toBe(`${pay} (Payroll)`);
    }
    // The failure code's meaning is shown whole in an unfitted table.
    expect(t.text).toContain('destination_rejected (receiving bank refused it)');
  });

  it('a get view: the names beside its ids, one GET each; accounts list: the customer name, one GET for many rows', async () => {
    let mark = w.mark();
    const out = ok(await w.pay(['transfers', 'get', failed, '-o', 'table']));
    expect(out).toMatch(new RegExp(`^source_account_id +${ops} \\(Operating\\)$`, 'm'));
    expect(out).toMatch(new RegExp(`^destination_id +${pay} \\(Payroll\\)$`, 'm'));
    expect(out).toMatch(/^id +tr_[0-9a-z]{24}$/m); // the object's own id has no name beside it
    expect(lookups(mark).sort()).toEqual([`/v1/accounts/${ops}`, `/v1/accounts/${pay}`].sort());
    mark = w.mark();
    const t = table(await w.pay(['accounts', 'list', '-o', 'table']));
    expect(t.rows.map((r) => r[t.header.indexOf('CUSTOMER')])).toEqual([`${cus} (Ada Lovelace)`, `${cus} (Ada Lovelace)`]);
    expect(lookups(mark)).toEqual([`/v1/customers/${cus}`]);
  });

  const none: [string, string[], Record<string, string>][] = [
    ['--no-names', ['-o', 'table', '--no-names'], {}],
    ['--no-names before the command', ['-o', 'table'], {}],
    ['PAY_NAMES=0', ['-o', 'table'], { PAY_NAMES: '0' }],
    ['--json', ['--json'], {}],
    ['-o ndjson', ['-o', 'ndjson'], {}],
    ['-o csv', ['-o', 'csv'], {}],
    ['-o tsv', ['-o', 'tsv'], {}],
    ['a pipe (TSV)', [], {}],
    ['--jq', ['--jq', '.[].source_account_id'], {}],
    ['--fields', ['--fields', 'id,source_account_id'], {}],
  ];
  for (const [what, args, env] of none) {
    it(`${what}: no lookup, no name`, async () => {
      const before = what.endsWith('before the command') ? ['--no-names'] : [];
      const mark = w.mark();
      const out = ok(await w.pay([...before, 'transfers', 'list', ...args], { env }));
      expect(out).toContain(ops);
      expect(out).not.toContain('Operating');
      expect(out).not.toContain('Payroll');
      expect(lookups(mark)).toEqual([]);
      for (const verb of [['transfers', 'get', failed, ...args.filter((a) => !a.startsWith('.['))]]) {
        if (args.includes('--jq')) continue;
        const m = w.mark();
        const o = ok(await w.pay([...before, ...verb], { env }));
        expect(o).not.toContain('Operating');
        expect(lookups(m)).toEqual([]);
      }
    });
  }
});

describe('a lookup that fails leaves the id alone', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  const id = (p: string, n: number) => `${p}${String(n).padStart(24, '0')}`;
  const [gone, broken, other, hostile] = [id('acc_', 1), id('acc_', 2), id('acc_', 3), id('cus_', 4)];
  beforeAll(async () => {
    const row = (n: number, from: string, to: string) => ({
      id: id('tr_', n),
      object: 'transfer',
      source_account_id: from,
      destination_id: to,
      destination_type: 'account',
      amount: '1.00',
      currency: 'USD',
      status: 'completed',
      created_at: '2026-11-29T00:00:00Z',
    });
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      seen.push(path);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path === '/v1/transfers')
        return send(200, { data: [row(1, gone, broken), row(2, broken, other), row(3, other, gone)], has_more: false });
      if (path === `/v1/accounts/${gone}`) return send(404, { type: 'about:blank', title: 'Not found', status: 404, code: 'not_found' });
      if (path === `/v1/accounts/${broken}`) return send(500, { type: 'about:blank', title: 'Server error', status: 500 });
      // An answer about another object: not this id's name.
      if (path === `/v1/accounts/${other}`) return send(200, { id: gone, object: 'account', nickname: 'Wrong' });
      if (path === `/v1/accounts/${id('acc_', 5)}`) return send(200, { id: id('acc_', 5), object: 'account', nickname: 'x' });
      if (path === `/v1/customers/${hostile}`)
        return send(200, { id: hostile, object: 'customer', first_name: 'Eve\x1b]0;pwned\x07', last_name: '\u202eevil' });
      if (path === '/v1/accounts')
        return send(200, {
          data: [{ id: id('acc_', 5), object: 'account', customer_id: hostile, currency: 'USD', status: 'active' }],
          has_more: false,
        });
      return send(404, { status: 404 });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
  });
  const env = () => ({ ...w.env, PAY_BASE_URL: base, PAY_MAX_RETRIES: '0' });

  it('404, 500 and an answer about another object: exit 0, nothing on stderr, the ids alone, one GET each', async () => {
    seen.length = 0;
    const r = await runPay(['transfers', 'list', '-o', 'table'], { env: env() });
    const t = table(r);
    expect(t.rows.map((row) => [row[t.header.indexOf('FROM')], row[t.header.indexOf('TO')]])).toEqual([
      [gone, broken],
      [broken, other],
      [other, gone],
    ]);
    expect(seen.filter((p) => p.startsWith('/v1/accounts/')).sort()).toEqual(
      [`/v1/accounts/${gone}`, `/v1/accounts/${broken}`, `/v1/accounts/${other}`].sort(),
    );
  });

  it('a hostile name is escaped like any text from the service', async () => {
    const r = await runPay(['accounts', 'list', '-o', 'table'], { env: env() });
    const t = table(r);
    expect(t.rows[0]![t.header.indexOf('CUSTOMER')]).toBe(`${hostile} (Eve\\x1b]0;pwned\\x07 \\u202eevil)`);
  });
});

describe('only reads look names up, and only for what they show', () => {
  it('transfers send -o table and accounts create -o table: the answer at once, its ids bare, no lookup after the write', async () => {
    let mark = w.mark();
    const sent = ok(await w.pay(['transfers', 'send', '--from', ops, '--to', pay, '--amount', '1.00', '--currency', 'USD', '-o', 'table']));
    expect(sent).toMatch(new RegExp(`^source_account_id +${ops}$`, 'm'));
    expect(sent).not.toContain('Operating');
    expect(lookups(mark)).toEqual([]);
    expect(w.since(mark).map((r) => r.method)).toEqual(['POST']);
    mark = w.mark();
    const made = ok(await w.pay(['accounts', 'create', '--customer', cus, '--currency', 'USD', '-o', 'table']));
    expect(made).toMatch(new RegExp(`^customer_id +${cus}$`, 'm'));
    expect(lookups(mark)).toEqual([]);
  });

  it('a get view with --fields (-o table): only the shown fields are looked up', async () => {
    let mark = w.mark();
    const out = ok(await w.pay(['transfers', 'get', failed, '-o', 'table', '--fields', 'id,status']));
    expect(out).toMatch(/^status +failed$/m);
    expect(lookups(mark)).toEqual([]);
    mark = w.mark();
    const one = ok(await w.pay(['transfers', 'get', failed, '-o', 'table', '--fields', 'id,destination_id']));
    expect(one).toMatch(new RegExp(`^destination_id +${pay} \\(Payroll\\)$`, 'm'));
    expect(lookups(mark)).toEqual([`/v1/accounts/${pay}`]);
  });
});

describe('lookups are bounded: no retry, a short timeout, at most 50 ids, none after the service struggles', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  const id = (p: string, n: number) => `${p}${String(n).padStart(24, '0')}`;
  /** How the service answers a lookup of an account. */
  let answer: 'named' | 'replayed' | '429' | '500' | '503' | 'hang' | 'drop' = 'named';
  /** Rows of the transfer list: each between two accounts of its own. */
  let rowCount = 20;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      seen.push(path);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (path === '/v1/transfers')
        return send(200, {
          data: Array.from({ length: rowCount }, (_, i) => ({
            id: id('tr_', i + 1),
            object: 'transfer',
            source_account_id: id('acc_', 2 * i + 1),
            destination_id: id('acc_', 2 * i + 2),
            destination_type: 'account',
            amount: '1.00',
            currency: 'USD',
            status: 'completed',
            created_at: '2026-11-29T00:00:00Z',
          })),
          has_more: false,
        });
      const acc = /^\/v1\/accounts\/(acc_\d{24})$/.exec(path)?.[1];
      if (!acc) return send(404, { status: 404 });
      if (answer === 'hang') return; // never answered: the lookup's own timeout ends it
      if (answer === 'drop') return req.socket.destroy();
      if (answer === '429') return send(429, { status: 429, code: 'rate_limited' }, { 'retry-after': '1' });
      if (answer === '500' || answer === '503') return send(Number(answer), { status: Number(answer) });
      const headers: Record<string, string> = answer === 'replayed' ? { 'idempotent-replayed': 'true' } : {};
      return send(200, { id: acc, object: 'account', nickname: `Nick ${Number(acc.slice(4))}` }, headers);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });
  // The command's own budget is the default (3 retries, 30 s); backoff is shortened so that a
  // lookup that did retry is seen retrying, not waited for.
  const env = () => ({ ...w.env, PAY_BASE_URL: base, PAY_RETRY_BASE_MS: '1' });
  const accountGets = () => seen.filter((p) => p.startsWith('/v1/accounts/'));

  it('a list of 60 transfers between 120 accounts: 50 lookups, the rest bare ids; exit 0, nothing on stderr', async () => {
    seen.length = 0;
    answer = 'named';
    rowCount = 60;
    const r = await runPay(['transfers', 'list', '--limit', '60', '-o', 'table'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const t = table(r);
    expect(t.rows).toHaveLength(60);
    expect(accountGets()).toHaveLength(50);
    expect(new Set(accountGets()).size).toBe(50);
    const cells = t.rows.flatMap((row) => [row[t.header.indexOf('FROM')]!, row[t.header.indexOf('TO')]!]);
    expect(cells.filter((c) => / \(Nick \d+\)$/.test(c))).toHaveLength(50);
    for (const c of cells) expect(c).toMatch(/^acc_\d{24}(?: \(Nick \d+\))?$/);
  });

  it('a replayed lookup answer (Idempotent-Replayed: true) prints no replay note', async () => {
    seen.length = 0;
    answer = 'replayed';
    rowCount = 2;
    const r = await runPay(['transfers', 'list', '-o', 'table'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`${id('acc_', 1)} (Nick 1)`);
  });

  for (const failure of ['429', '500', '503', 'hang', 'drop'] as const) {
    it(`lookups answered ${failure}: each asked once (no retry), none started after the first failure, ids bare, exit 0, nothing on stderr`, async () => {
      seen.length = 0;
      answer = failure;
      rowCount = 20;
      const r = await runPay(['transfers', 'list', '-o', 'table'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const t = table(r);
      expect(t.rows).toHaveLength(20);
      for (const row of t.rows) expect(row[t.header.indexOf('FROM')]).toMatch(/^acc_\d{24}$/);
      // The lookups in flight when the first failed (NAME_LOOKUPS at a time), each once.
      expect(accountGets().length).toBeGreaterThan(0);
      expect(accountGets().length).toBeLessThanOrEqual(4);
      expect(new Set(accountGets()).size).toBe(accountGets().length);
    }, 20_000);
  }
});
