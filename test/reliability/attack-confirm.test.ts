// A live confirmation is the request (issue 24, item 4). In process (test/unit/commands/harness.ts,
// its fake network):
//   1. the whole command tree, walked: every writing resource verb, run in live mode off a terminal
//      without --yes from its own help example, is refused (exit 2 naming --yes, nothing sent) when
//      the one table (src/shared/confirm.ts) says it moves money or destroys, and goes through
//      otherwise; the same for its --from-file run; `pay api` with every writing method on every
//      path of the contract, and on paths the contract does not describe (asked about);
//   2. on a terminal, for generated amounts, currencies and account ids: the question of
//      `transfers send`, `collections create`, `pay api POST transfers` and `pay trigger
//      transfer.completed --override …` names the amount, the currency and the accounts that are
//      sent, and after "y" the body sent is the one the question showed (fast-check);
//      `pay seed apply` with a money entry of each kind the table names;
//   3. `pay trigger --override <object>.<id field>=<existing id>` is refused for every id field of
//      every object, in every mode, nothing sent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openapi } from '../../src/api/openapi.js';
import { fieldsOf } from '../../src/api/request-fields.js';
import { confirmClassOf, CONFIRMED_OPERATIONS, needsConfirmation } from '../../src/shared/confirm.js';
import { specOf } from '../../src/cmdutil/registry.js';
import type { GroupSpec, VerbSpec } from '../../src/cmdutil/spec.js';
import { buildProgram } from '../../src/commands/tree.js';
import { CUSTOMER_DEFAULTS } from '../../src/commands/trigger/check.js';
import { OBJECT_OPERATIONS, RECIPES, recipeObjects, type ObjectName } from '../../src/commands/trigger/recipes.js';
import { fundingFor } from '../../src/commands/trigger/plan.js';
import { startEmulator } from '../../src/emulator/index.js';
import { EVENT_TYPES } from '../../src/shared/events.js';
import { answerAny, LIVE_KEY, pay, type PayRun, type Recorded } from '../unit/commands/harness.js';
import { payArgvs } from '../unit/commands/shell-words.js';
import { count, record } from './helpers.js';
import { answerWhenAsked, fakeTerminal } from '../helpers/terminal.js';

const LIVE = { PAY_API_KEY: LIVE_KEY, PAY_MODE: 'live', PAY_TENANT_ID: 'biz_1' };
const ID24 = '0123456789abcdefghijklmn';
const dir = mkdtempSync(join(tmpdir(), 'pay-attack-confirm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const writes = (r: PayRun): Recorded[] => r.requests.filter((q) => q.method !== 'GET');

// ---------------------------------------------------------------------------------------------
// 1. The tree

interface VerbRef {
  cmd: Command;
  path: string;
  group: GroupSpec;
  verb: VerbSpec;
}

/** Every resource verb of the registered tree (commander's commands, as a user reaches them). */
function treeVerbs(): VerbRef[] {
  const out: VerbRef[] = [];
  const walk = (cmd: Command, names: string[]): void => {
    const spec = specOf.get(cmd);
    if (spec?.verb && spec.group) out.push({ cmd, path: names.join(' '), group: spec.group, verb: spec.verb });
    for (const c of cmd.commands) walk(c, [...names, c.name()]);
  };
  walk(buildProgram({ factory: () => undefined as never }), []);
  return out;
}

/** The verb's fullest help example that runs it alone (the most words): no --live/--yes/--wait/--from-file, no @file. */
function exampleArgv(ref: VerbRef): string[] | undefined {
  let best: string[] | undefined;
  for (const line of ref.verb.examples) {
    for (const argv of payArgvs(line)) {
      if (argv.slice(0, 2).join(' ') !== ref.path) continue;
      if (argv.some((a) => /^--(live|yes|wait|from-file|dry-run)$/.test(a) || a.startsWith('@') || a.includes('$('))) continue;
      if (!best || argv.length > best.length) best = argv;
    }
  }
  return best;
}

describe('the tree: every writing verb in live mode without a terminal and without --yes', () => {
  const verbs = treeVerbs().filter(({ verb }) => verb.method !== 'GET' && !verb.offline);
  const started = Date.now();
  const tally = { tried: 0, passed: 0, refused: 0, through: 0, bulkRefused: 0, bulkThrough: 0, apiRefused: 0, apiThrough: 0, leaked: 0 };
  const failures: string[] = [];

  it('the tree has the writing verbs the table names, and the table names only operations of the contract', () => {
    const ops = new Set(verbs.map((v) => v.verb.operationId));
    for (const id of Object.keys(CONFIRMED_OPERATIONS)) expect(ops, id).toContain(id);
    expect(verbs.length).toBeGreaterThanOrEqual(20);
    // The decision: sandbox never, a read never, an unknown writing operation always.
    expect(needsConfirmation({ method: 'POST', operationId: 'createTransfer' }, 'sandbox')).toBeUndefined();
    expect(needsConfirmation({ method: 'GET', operationId: undefined }, 'live')).toBeUndefined();
    expect(needsConfirmation({ method: 'DELETE', operationId: undefined }, 'live')).toBe('unknown operation');
  });

  it.each(verbs.map((v) => [v.path, v] as const))('%s', async (_p, ref) => {
    const argv = exampleArgv(ref);
    expect(argv, `${ref.path}: an example that runs it`).toBeDefined();
    const wants = needsConfirmation({ method: ref.verb.method, operationId: ref.verb.operationId }, 'live');
    tally.tried++;
    const r = await pay(argv!, { env: LIVE, respond: answerAny, stdin: '' });
    const problems: string[] = [];
    if (wants) {
      if (r.code !== 2) problems.push(`exit ${r.code}, not 2`);
      if (!r.stderr.includes('pass --yes')) problems.push(`no --yes named: ${r.stderr}`);
      if (writes(r).length > 0) problems.push(`sent ${writes(r).length}`);
      tally.leaked += writes(r).length;
      // Sandbox mode asks nothing: the same line goes through.
      const sandbox = await pay(argv!, { respond: answerAny, stdin: '' });
      if (sandbox.code !== 0 || writes(sandbox).length !== 1) problems.push(`sandbox: exit ${sandbox.code}: ${sandbox.stderr}`);
      // --yes: sent.
      const yes = await pay([...argv!, '--yes'], { env: LIVE, respond: answerAny, stdin: '' });
      if (yes.code !== 0 || writes(yes).length !== 1) problems.push(`--yes: exit ${yes.code}: ${yes.stderr}`);
      if (problems.length === 0) tally.refused++;
    } else {
      if (r.code !== 0) problems.push(`exit ${r.code}: ${r.stderr}`);
      if (writes(r).length !== 1) problems.push(`sent ${writes(r).length}`);
      if (problems.length === 0) tally.through++;
    }
    if (problems.length === 0) tally.passed++;
    else failures.push(`${ref.path}: ${problems.join('; ')}`);
    expect(problems, ref.path).toEqual([]);
  });

  it.each(verbs.filter((v) => v.verb.kind === 'create').map((v) => [v.path, v] as const))('%s --from-file', async (_p, ref) => {
    // The example's flags apply to every row; the file's one row adds nothing.
    const file = join(dir, `${ref.group.name}-${ref.verb.name}.ndjson`);
    writeFileSync(file, '{}\n');
    const argv = [...exampleArgv(ref)!, '--from-file', file];
    const wants = needsConfirmation({ method: ref.verb.method, operationId: ref.verb.operationId }, 'live');
    tally.tried++;
    const r = await pay(argv, { env: LIVE, respond: answerAny, stdin: '' });
    const problems: string[] = [];
    if (wants) {
      if (r.code !== 2 || !r.stderr.includes('pass --yes') || writes(r).length > 0)
        problems.push(`exit ${r.code}, ${writes(r).length} sent: ${r.stderr}`);
      tally.leaked += writes(r).length;
      if (problems.length === 0) tally.bulkRefused++;
    } else {
      if (r.code !== 0 || writes(r).length !== 1) problems.push(`exit ${r.code}, ${writes(r).length} sent: ${r.stderr}`);
      if (problems.length === 0) tally.bulkThrough++;
    }
    if (problems.length === 0) tally.passed++;
    else failures.push(`${ref.path} --from-file: ${problems.join('; ')}`);
    expect(problems, ref.path).toEqual([]);
  });

  /** The contract's writing operations: each method of each path, its parameters filled with ids. */
  const operations = Object.entries(openapi.paths).flatMap(([template, item]) =>
    (['post', 'put', 'patch', 'delete'] as const)
      .map((m) => ({ m, op: (item as Record<string, { operationId?: string } | undefined>)[m] }))
      .filter((x) => x.op?.operationId)
      .map(({ m, op }) => ({
        method: m.toUpperCase(),
        path: template.replace(/^\//, '').replace(/\{[^}]+\}/g, (p) => (p === '{feature}' ? 'fx' : `obj_${ID24}`)),
        operationId: op!.operationId!,
      })),
  );

  it.each(operations.map((o) => [`${o.method} ${o.path}`, o] as const))('pay api %s', async (_n, o) => {
    const wants = needsConfirmation({ method: o.method, operationId: o.operationId }, 'live');
    tally.tried++;
    const r = await pay(['api', o.method, o.path, ...(o.method === 'DELETE' ? [] : ['-F', 'amount=1.00'])], {
      env: LIVE,
      respond: answerAny,
      stdin: '',
    });
    const ok = wants ? r.code === 2 && r.stderr.includes('pass --yes') && r.requests.length === 0 : r.code === 0 && r.requests.length === 1;
    tally.leaked += wants ? r.requests.length : 0;
    if (ok) {
      tally.passed++;
      if (wants) tally.apiRefused++;
      else tally.apiThrough++;
    } else failures.push(`pay api ${o.method} ${o.path}: exit ${r.code}: ${r.stderr}`);
    expect(ok, `${o.method} ${o.path}: exit ${r.code} ${r.stderr}`).toBe(true);
  });

  it('pay api: a writing request to a path the contract does not describe (however it is spelt) is asked about; --yes sends it', async () => {
    const paths = fc.sample(
      fc.oneof(
        fc.constantFrom('transfers/', 'Transfers', 'transfers;x', 'transfer', 'v2/transfers', 'collections/x/y', 'fx/trades/'),
        fc.stringMatching(/^[a-z]{1,10}(\/[a-z0-9_]{1,10}){0,3}$/).filter((p) => !knownPath(p)),
      ),
      { numRuns: count(30, 200), seed: 24 },
    );
    for (const path of paths) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        tally.tried++;
        const r = await pay(['api', method, path], { env: LIVE, respond: answerAny, stdin: '' });
        // The path may be refused by the URL builder (exit 2 too, nothing sent): either way nothing leaves.
        const ok = r.code === 2 && r.requests.length === 0;
        tally.leaked += r.requests.length;
        if (ok) tally.passed++;
        else failures.push(`pay api ${method} ${path}: exit ${r.code}`);
        expect(ok, `${method} ${path}: ${r.stderr}`).toBe(true);
      }
    }
    const yes = await pay(['api', 'POST', 'transfers/', '--yes'], { env: LIVE, respond: answerAny, stdin: '' });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.requests).toHaveLength(1);
  });

  it('pay seed apply: a file with a money entry of each kind the table names is refused; one without goes through', async () => {
    const customer = JSON.stringify({ ...CUSTOMER_DEFAULTS, email: 'ada@example.com' });
    // Entries the plan takes as sendable (seed plan refuses what apply would: a feature not active, a
    // currency that differs, a transfer to its own account): the features, a second USD account and a EUR one.
    const base =
      `customers:\n  ada: ${customer}\n` +
      `features:\n  col: {customer_id: "\${customers.ada.id}", feature: collections}\n  fx: {customer_id: "\${customers.ada.id}", feature: fx}\n` +
      `accounts:\n  usd: {customer_id: "\${customers.ada.id}", currency: USD}\n  usd2: {customer_id: "\${customers.ada.id}", currency: USD}\n` +
      `  eur: {customer_id: "\${customers.ada.id}", currency: EUR}\n`;
    const entries: Record<string, string> = {
      createCollection: `collections:\n  in: {account_id: "\${accounts.usd.id}", amount: "10.00", currency: USD, method: card}\n`,
      createTransfer: `transfers:\n  out: {source_account_id: "\${accounts.usd.id}", destination_id: "\${accounts.usd2.id}", amount: "1.00", currency: USD}\n`,
      createFxTrade: `fx_trades:\n  t: {source_currency: USD, target_currency: EUR, source_amount: "1.00", source_account_id: "\${accounts.usd.id}", target_account_id: "\${accounts.eur.id}"}\n`,
    };
    // Every operation of the table that moves money is one a seed file can hold.
    expect(Object.keys(entries).sort()).toEqual(
      Object.entries(CONFIRMED_OPERATIONS)
        .filter(([, c]) => c === 'moves money')
        .map(([op]) => op)
        .sort(),
    );
    for (const [op, yaml] of [...Object.entries(entries), ['none', '']] as const) {
      const file = join(dir, `seed-${op}.yaml`);
      writeFileSync(file, base + yaml);
      tally.tried++;
      const r = await pay(['seed', 'apply', file], { env: LIVE, respond: answerAny, stdin: '' });
      const ok =
        op === 'none' ? r.code === 0 && writes(r).length === 6 : r.code === 2 && r.stderr.includes('pass --yes') && r.requests.length === 0;
      if (op !== 'none') tally.leaked += r.requests.length;
      if (ok) tally.passed++;
      else failures.push(`seed apply (${op}): exit ${r.code}: ${r.stderr}`);
      expect(ok, `${op}: exit ${r.code}: ${r.stderr}`).toBe(true);
    }
  });

  afterAll(async () => {
    await record(
      'attack.confirm-tree',
      'Every writing verb, --from-file run and pay api operation in live mode off a terminal without --yes',
      {
        tried: tally.tried,
        passed: tally.passed,
        lost: 0,
        duplicated: 0,
        leaked: tally.leaked,
        extra: { ...tally, failures: failures.length },
      },
      started,
    );
  });
});

function knownPath(p: string): boolean {
  const segments = p.split('/');
  return Object.keys(openapi.paths).some((t) => {
    const parts = t.replace(/^\//, '').split('/');
    return parts.length === segments.length && parts.every((x, i) => x.startsWith('{') || x === segments[i]);
  });
}

// ---------------------------------------------------------------------------------------------
// 2. The question is the request

const currencies = fc.constantFrom('USD', 'EUR', 'GBP', 'JPY', 'KWD', 'NGN');
const decimals: Record<string, number> = { USD: 2, EUR: 2, GBP: 2, JPY: 0, KWD: 3, NGN: 2 };
const amountIn = (currency: string) =>
  fc
    .tuple(fc.integer({ min: 1, max: 99_999_999 }), fc.integer({ min: 0, max: 10 ** decimals[currency]! - 1 }))
    .map(([whole, frac]) => (decimals[currency] ? `${whole}.${String(frac).padStart(decimals[currency], '0')}` : String(whole)));
const idOf = (prefix: string) => fc.stringMatching(/^[0-9a-z]{24}$/).map((s) => `${prefix}${s}`);
const money = currencies.chain((currency) => fc.record({ currency: fc.constant(currency), amount: amountIn(currency) }));

describe('on a terminal the question names what is sent, and "y" sends exactly that', () => {
  const started = Date.now();
  const tally = { tried: 0, passed: 0, named: 0, sameBody: 0, declined: 0 };

  async function ask(argv: string[], key: string): Promise<{ question: string; run: PayRun }> {
    const t = fakeTerminal();
    const running = pay(argv, { env: { PAY_API_KEY: LIVE_KEY, PAY_MODE: 'live' }, respond: answerAny, io: t.io });
    const question = await answerWhenAsked(t, key, running);
    return { question, run: await running };
  }

  it('transfers send, collections create and pay api POST transfers: the amount, currency and accounts; y sends that body, n nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        money,
        idOf('acc_'),
        fc.oneof(idOf('acc_'), idOf('ea_')),
        fc.constantFrom('transfers', 'collections', 'api'),
        fc.boolean(),
        async ({ amount, currency }, from, to, how, yes) => {
          tally.tried++;
          const argv =
            how === 'transfers'
              ? ['transfers', 'send', '--from', from, '--to', to, '--amount', amount, '--currency', currency]
              : how === 'collections'
                ? ['collections', 'create', '--account', from, '--amount', amount, '--currency', currency, '--method', 'card']
                : [
                    'api',
                    'POST',
                    'transfers',
                    '-F',
                    `source_account_id=${from}`,
                    '-F',
                    `destination_id=${to}`,
                    '-F',
                    `amount=${amount}`,
                    '-F',
                    `currency=${currency}`,
                  ];
          const { question, run } = await ask(argv, yes ? 'y' : 'n');
          const q = question.replace(/\s+/g, ' ');
          expect(q).toContain(`${amount} ${currency}`);
          expect(q).toContain(from);
          if (how !== 'collections') expect(q).toContain(to);
          if (how === 'api') expect(q).toContain('POST /v1/transfers');
          tally.named++;
          if (!yes) {
            expect(run.code).toBe(2);
            expect(run.requests).toEqual([]);
            tally.declined++;
          } else {
            expect(run.code, run.stderr).toBe(0);
            expect(run.requests).toHaveLength(1);
            const body = run.requests[0]!.body as Record<string, unknown>;
            expect(body.amount).toBe(amount);
            expect(body.currency).toBe(currency);
            expect(how === 'collections' ? body.account_id : body.source_account_id).toBe(from);
            if (how !== 'collections') expect(body.destination_id).toBe(to);
            // Every value the body holds is in the question (api: the body itself is shown).
            if (how === 'api') expect(q).toContain(JSON.stringify(body));
            tally.sameBody++;
          }
          tally.passed++;
        },
      ),
      { numRuns: count(24, 150), seed: 2401 },
    );
  });

  it('--from-file: one question naming the rows and the total per currency; y sends exactly the rows asked about', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(money, idOf('acc_')), { minLength: 1, maxLength: 12 }), async (rows) => {
        tally.tried++;
        const file = join(dir, 'rows.ndjson');
        writeFileSync(
          file,
          rows.map(([m, acc]) => JSON.stringify({ account_id: acc, amount: m.amount, currency: m.currency, method: 'card' })).join('\n'),
        );
        const { question, run } = await ask(['collections', 'create', '--from-file', file, '--concurrency', '1'], 'y');
        const q = question.replace(/\s+/g, ' ');
        expect(q).toContain(`send ${rows.length === 1 ? '1 row' : `${rows.length} rows`}`);
        // The totals, exactly, per currency.
        const totals = new Map<string, bigint>();
        for (const [m] of rows) {
          const e = decimals[m.currency]!;
          const [w, f = ''] = m.amount.split('.');
          totals.set(m.currency, (totals.get(m.currency) ?? 0n) + BigInt(w!) * 10n ** BigInt(e) + BigInt(f.padEnd(e, '0') || '0'));
        }
        for (const [c, minor] of totals) {
          const e = decimals[c]!;
          const s = minor.toString().padStart(e + 1, '0');
          expect(q).toContain(`${e ? `${s.slice(0, -e)}.${s.slice(-e)}` : s} ${c}`);
        }
        expect(run.code, run.stderr).toBe(0);
        const sent = run.requests.map((r) => r.body as Record<string, string>);
        expect(sent.map((b) => `${b.amount} ${b.currency} ${b.account_id}`).sort()).toEqual(
          rows.map(([m, acc]) => `${m.amount} ${m.currency} ${acc}`).sort(),
        );
        tally.sameBody++;
        tally.passed++;
      }),
      { numRuns: count(12, 60), seed: 2402 },
    );
  });

  it('pay trigger transfer.completed --override amount and currency: the question names them (and the funding), y sends them (an in-process emulator)', async () => {
    const emu = await startEmulator({ port: 0, settleAfterMs: 20 });
    try {
      const env = { PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.live.secret, PAY_TENANT_ID: emu.tenantId, PAY_MODE: 'live' };
      const get = async (path: string) =>
        (await (
          await fetch(`${emu.baseUrl}${path}`, { headers: { 'api-key': emu.keys.live.secret, 'x-tenant-id': emu.tenantId } })
        ).json()) as Record<string, unknown>;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('USD', 'EUR', 'GBP'),
          // An amount that is no simulation value (…13 fails, …0014 is held): the transfer completes.
          fc
            .tuple(
              fc.integer({ min: 1, max: 5000 }),
              fc.integer({ min: 0, max: 99 }).filter((c) => c !== 13 && c !== 14),
            )
            .map(([w, c]) => `${w}.${String(c).padStart(2, '0')}`),
          async (currency, sent) => {
            tally.tried++;
            const t = fakeTerminal();
            const running = pay(
              [
                'trigger',
                'transfer.completed',
                '--override',
                `transfer.amount=${sent}`,
                '--override',
                `account.currency=${currency}`,
                '--json',
              ],
              { env, io: t.io, loopback: true },
            );
            const question = (await answerWhenAsked(t, 'y', running)).replace(/\s+/g, ' ');
            const funding = fundingFor(sent, currency);
            expect(question).toContain(
              `move live money: transfer ${sent} ${currency} from (the new account) to (the new external account)`,
            );
            expect(question).toContain(`move live money: collection ${funding} ${currency} to (the new account)`);
            expect(question).not.toContain('25.00');
            const run = await running;
            expect(run.code, run.stderr).toBe(0);
            const { created } = JSON.parse(run.stdout) as { created: Array<{ object: string; id: string }> };
            const transfer = await get(`transfers/${created.find((c) => c.object === 'transfer')!.id}`);
            const collection = await get(`collections/${created.find((c) => c.object === 'collection')!.id}`);
            const account = created.find((c) => c.object === 'account')!.id;
            expect([transfer.amount, transfer.currency, transfer.source_account_id]).toEqual([sent, currency, account]);
            expect([collection.amount, collection.currency, collection.account_id]).toEqual([funding, currency, account]);
            tally.sameBody++;
            tally.passed++;
          },
        ),
        { numRuns: count(4, 20), seed: 2403 },
      );
    } finally {
      await emu.stop();
    }
  });

  it('--from-file - on a terminal: standard input cannot both hold the rows and answer, so it needs --yes; nothing read or sent', async () => {
    const t = fakeTerminal();
    const r = await pay(['collections', 'create', '--from-file', '-'], { env: { PAY_API_KEY: LIVE_KEY, PAY_MODE: 'live' }, io: t.io });
    expect(r.code).toBe(2);
    expect(t.drawn()).toContain('standard input holds the rows, so it cannot answer');
    expect(r.requests).toEqual([]);
  });

  afterAll(async () => {
    await record(
      'attack.confirm-question',
      'The live question holds the generated amount, currency and accounts; after y the body sent is the one shown',
      { tried: tally.tried, passed: tally.passed, lost: 0, duplicated: 0, leaked: 0, extra: tally },
      started,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 3. pay trigger never uses an existing object

describe('pay trigger --override of an id: refused in every mode, nothing sent', () => {
  const started = Date.now();
  let tried = 0;
  let passed = 0;
  const idFields = (Object.keys(OBJECT_OPERATIONS) as ObjectName[]).flatMap((o) =>
    fieldsOf(OBJECT_OPERATIONS[o])
      .filter((f) => f === 'id' || f.endsWith('_id'))
      .map((f) => ({ object: o, field: f })),
  );

  it('every id field of every object pay trigger creates, for every event type that creates it', async () => {
    expect(idFields.map((x) => `${x.object}.${x.field}`)).toEqual(
      expect.arrayContaining(['transfer.source_account_id', 'transfer.destination_id', 'collection.account_id']),
    );
    const cases = EVENT_TYPES.flatMap((type) =>
      idFields.filter((x) => recipeObjects(RECIPES[type]).includes(x.object)).map((x) => ({ type, ...x })),
    );
    // An existing object's id of any kind the field could name (generated: the refusal is by the field, whatever the value).
    const ids = fc.sample(fc.oneof(idOf('acc_'), idOf('ea_'), idOf('cus_'), idOf('fxq_'), idOf('wal_')), {
      numRuns: cases.length,
      seed: 2404,
    });
    for (const [i, c] of cases.entries()) {
      for (const live of [false, true]) {
        tried++;
        const r = await pay(['trigger', c.type, '--override', `${c.object}.${c.field}=${ids[i]}`, ...(live ? ['--yes'] : [])], {
          env: live ? LIVE : {},
          respond: answerAny,
        });
        const ok = r.code === 2 && r.requests.length === 0 && r.stderr.includes('never an existing one');
        if (ok) passed++;
        expect(ok, `${c.type} ${c.object}.${c.field}: exit ${r.code}: ${r.stderr}`).toBe(true);
      }
    }
    expect(tried).toBeGreaterThan(50);
  });

  afterAll(async () => {
    await record(
      'attack.confirm-trigger-ids',
      'pay trigger --override of an id (an existing object) refused in every mode',
      { tried, passed, lost: 0, duplicated: 0, leaked: tried - passed },
      started,
    );
  });
});

// The table and the flag: a verb takes --yes exactly when the table names its operation.
it('--yes is registered on exactly the verbs the table names, and on the creates and actions that prompt (their summary step)', () => {
  const refs = treeVerbs();
  // A create or action with a body and no impl of its own asks for what is missing on a terminal
  // (src/verbs/ask.ts; customers create too, through its impl: asks) and confirms what it filled in: --yes skips that question too.
  const prompts = (v: (typeof refs)[number]['verb']) =>
    (v.kind === 'create' || v.kind === 'action') && v.body === true && (!v.impl || v.asks === true);
  for (const ref of refs) {
    expect(
      ref.cmd.options.some((o) => o.long === '--yes'),
      ref.path,
    ).toBe(confirmClassOf(ref.verb.operationId) !== undefined || prompts(ref.verb));
  }
  // Every operation of the table is a verb of the tree, and each has --yes.
  const confirmed = refs.filter((r) => confirmClassOf(r.verb.operationId) !== undefined);
  expect(confirmed.length).toBe(Object.keys(CONFIRMED_OPERATIONS).length);
  expect(confirmed.every((r) => r.cmd.options.some((o) => o.long === '--yes'))).toBe(true);
});
