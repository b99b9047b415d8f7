// pay trigger in process: --list, unknown types (closest names), the override parser over hostile
// paths and values (fast-check), --dry-run, the requests of a run against a fake service (every
// POST with its Idempotency-Key, the events polled by object_id), and answers that are not what
// they claim. The real loop against the emulator is test/e2e/trigger.test.ts.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../src/emulator/index.js';
import { OBJECT_OPERATIONS, RECIPES, recipeObjects, stepObjects, type ObjectName } from '../../../src/commands/trigger/recipes.js';
import { FEATURE_KEYS, rulesOf } from '../../../src/shared/rules.js';
import { applyOverrides, parseOverride, parseOverrides } from '../../../src/commands/trigger/override.js';
import { amountOf, fundingFor, recipeOf } from '../../../src/commands/trigger/run.js';
import { parseAmount } from '../../../src/shared/validate.js';
import { bodyField, requestBodySchema } from '../../../src/api/request-fields.js';
import { PayError, UsageError } from '../../../src/lib/errors.js';
import { EVENT_TYPES } from '../../../src/shared/events.js';
import { amountEndsIn, FAIL_TEXT, HOLD_TEXT } from '../../../src/shared/simulation.js';
import { LIVE_KEY, pay, type Recorded } from './harness.js';

const CUS = 'cus_0123456789abcdefghijklmn';
const EVT = 'evt_0123456789abcdefghijklmn';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the recipes', () => {
  it('one for every event type; each names only objects pay trigger knows, whose create operation has a body in the contract', () => {
    expect(Object.keys(RECIPES).sort()).toEqual([...EVENT_TYPES].sort());
    for (const [type, recipe] of Object.entries(RECIPES)) {
      expect(recipe.creates.length, type).toBeGreaterThan(5);
      expect(recipeObjects(recipe), type).toContain(recipe.subject);
    }
    for (const op of Object.values(OBJECT_OPERATIONS)) expect(requestBodySchema(op), op).toBeDefined();
  });

  it('a feature a recipe activates is one the rules require for what it creates, or its --list line names it', () => {
    // What an operation needs whichever of its rules applies (createTransfer: nothing, at home).
    const required = (op: string): string[] => {
      const rules = rulesOf(op);
      return rules.length === 0 ? [] : FEATURE_KEYS.filter((k) => rules.every((r) => r.feature === k));
    };
    for (const [type, recipe] of Object.entries(RECIPES)) {
      const needed = new Set(recipe.steps.flatMap((step) => stepObjects(step).flatMap((o) => required(OBJECT_OPERATIONS[o]))));
      for (const step of recipe.steps) {
        if (step.do !== 'feature' || needed.has(step.key)) continue;
        expect(recipe.creates, `${type}: activates ${step.key}`).toContain(step.key);
      }
    }
  });

  it('--list names an object by its --override name where the API type would not tell it apart (a second account, a change)', async () => {
    const ops = Object.values(OBJECT_OPERATIONS) as string[];
    // Names that share an operation with another name, or name a change (an update): the API type says nothing about which one.
    const ambiguous = (Object.keys(OBJECT_OPERATIONS) as ObjectName[]).filter(
      (n) => ops.filter((op) => op === OBJECT_OPERATIONS[n]).length > 1 || OBJECT_OPERATIONS[n].startsWith('update'),
    );
    expect(ambiguous).toEqual(expect.arrayContaining(['account', 'target_account', 'customer_update']));
    const rows = JSON.parse((await pay(['trigger', '--list', '--json'])).stdout) as Array<{
      event_type: string;
      creates: string;
      override: ObjectName[];
    }>;
    for (const row of rows)
      for (const name of row.override.filter((n) => ambiguous.includes(n)))
        expect(row.creates, `${row.event_type}: ${name}`).toMatch(new RegExp(`\\b${name}\\b`));
    const fx = rows.find((r) => r.event_type === 'fx_trade.completed')!;
    expect(fx.creates.match(/\btarget_account\b/g)).toHaveLength(1);
  });

  it('pay trigger --list: one line per event type with what it creates; --json names the objects --override may set', async () => {
    const r = await pay(['trigger', '--list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('event_type\tcreates');
    expect(lines.slice(1).map((l) => l.split('\t')[0])).toEqual([...EVENT_TYPES]);
    const j = await pay(['trigger', '--list', '--json']);
    const rows = JSON.parse(j.stdout) as Array<{ event_type: string; creates: string; override: string[] }>;
    expect(rows.find((x) => x.event_type === 'transfer.failed')!.override).toEqual([
      'customer',
      'kyc_verification',
      'kyc_document',
      'account',
      'external_account',
      'collection',
      'transfer',
    ]);
    expect(r.requests).toEqual([]);
  });
});

describe('unknown or missing event types: exit 2, nothing sent', () => {
  it.each([
    ['transfer.faild', 'hint: did you mean transfer.failed? pay'],
    ['Transfer.Failed', 'hint: did you mean transfer.failed? pay'],
    ['card', 'hint: did you mean one of card.'],
    ['paymentlink.expired', 'hint: did you mean payment_link.expired? pay'],
    ['zzz', 'hint: pay trigger --list lists all 28'],
  ])('%s', async (type, hint) => {
    const r = await pay(['trigger', type]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(hint);
    expect(r.requests).toEqual([]);
  });

  it('a type with control characters is shown escaped', async () => {
    const r = await pay(['trigger', 'card\u001b[2J.created']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).toContain('card\\x1b[2J.created');
  });

  it('no type, or a type with --list, or a bad --wait-timeout', async () => {
    expect((await pay(['trigger'])).stderr).toContain('error: missing the event type\nhint: pay trigger --list lists them');
    expect((await pay(['trigger', 'customer.created', '--list'])).code).toBe(2);
    const t = await pay(['trigger', 'customer.created', '--wait-timeout', '0']);
    expect(t.code).toBe(2);
    expect(t.requests).toEqual([]);
  });

  it('a one-letter slip of any event type suggests it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...EVENT_TYPES), fc.nat(), fc.constantFrom('delete', 'swap', 'insert'), (type, at, how) => {
        const i = at % type.length;
        const typo =
          how === 'delete'
            ? type.slice(0, i) + type.slice(i + 1)
            : how === 'insert'
              ? `${type.slice(0, i)}x${type.slice(i)}`
              : `${type.slice(0, i)}${type[i] === 'q' ? 'z' : 'q'}${type.slice(i + 1)}`;
        if ((EVENT_TYPES as readonly string[]).includes(typo)) return;
        let hint = '';
        try {
          recipeOf(typo);
        } catch (err) {
          hint = (err as UsageError).hint ?? '';
        }
        expect(hint, typo).toMatch(/^did you mean /);
        expect(
          hint
            .split('? ')[0]!
            .replace(/^did you mean (one of )?/, '')
            .split(/, | or /),
          typo,
        ).toContain(type);
      }),
    );
  });
});

describe('--override', () => {
  const objects = recipeObjects(RECIPES['transfer.failed']);

  it('reaches the body at its path, as the field type says', () => {
    const o = parseOverrides(
      ['customer.address.city=Paris', 'transfer.amount=5.13', 'customer.first_name=a=b', 'kyc_document.number=X1230000'],
      'transfer.failed',
      RECIPES['transfer.failed'],
    );
    expect(applyOverrides({ address: { city: 'London', country: 'GB' } }, o.get('customer'))).toEqual({
      address: { city: 'Paris', country: 'GB' },
      first_name: 'a=b',
    });
    expect(applyOverrides({ amount: '25.13' }, o.get('transfer'))).toEqual({ amount: '5.13' });
  });

  it('names what is valid: the objects of the event type, the fields of the object, the values of an enum', () => {
    const msg = (raw: string, type = 'transfer.failed') => {
      try {
        parseOverride(raw, type, type === 'transfer.failed' ? objects : recipeObjects(RECIPES[type as 'card.created']));
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as UsageError).message + (((err as UsageError).hint && `\nhint: ${(err as UsageError).hint}`) || '');
      }
      throw new Error(`${raw} was accepted`);
    };
    expect(msg('card.type=virtual')).toContain('creates no card (it creates: customer, kyc_verification');
    expect(msg('transfr.amount=1')).toContain('did you mean transfer?');
    expect(msg('transfer.amout=1')).toContain('did you mean transfer.amount?');
    expect(msg('transfer=1')).toContain('--override transfer needs a field');
    expect(msg('transfer.amount')).toContain('needs the form object.field=value');
    expect(msg('transfer.amount.x=1')).toContain('transfer.amount is a value, not an object with fields');
    expect(msg('transfer.currency=usd')).toContain('is not one of USD, EUR');
    expect(msg('transfer.amount=1,5')).toContain("does not match the contract's pattern");
    expect(msg('card.type=plastic', 'card.created')).toContain('is not one of virtual, physical');
    expect(msg('customer.__proto__.polluted=1')).toContain('"__proto__" is not allowed as a key');
    expect(() => parseOverrides(['customer.email=a@b.co', 'customer.email=c@d.co'], 'transfer.failed', RECIPES['transfer.failed'])).toThrow(
      'given more than once',
    );
    expect(() =>
      parseOverrides(['customer.address={"city":"X"}', 'customer.address.city=Y'], 'transfer.failed', RECIPES['transfer.failed']),
    ).toThrow('given more than once (with customer.address)');
  });

  it('an object the event type does not create is one error, whether pay trigger knows it or not; an object alone lists its fields', () => {
    const known = Object.keys(OBJECT_OPERATIONS);
    fc.assert(
      fc.property(
        fc.constantFrom(...EVENT_TYPES),
        fc.oneof(fc.constantFrom(...known), fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/)),
        fc.constantFrom('', '.amount'),
        (type, object, field) => {
          const creates = recipeObjects(RECIPES[type]);
          let error: unknown;
          try {
            parseOverride(`${object}${field}=1`, type, creates);
          } catch (err) {
            error = err;
          }
          if ((creates as string[]).includes(object)) {
            if (field === '') {
              expect(error).toBeInstanceOf(UsageError);
              const fields = Object.keys(requestBodySchema(OBJECT_OPERATIONS[object as ObjectName])!.properties ?? {});
              expect((error as UsageError).message).toBe(
                `--override ${object} needs a field: ${object}.<field>=value (fields: ${fields.join(', ')})`,
              );
            }
            return;
          }
          expect(error).toBeInstanceOf(UsageError);
          expect((error as UsageError).message).toBe(
            `--override: pay trigger ${type} creates no ${object} (it creates: ${creates.join(', ')})`,
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('over hostile paths and values: a usage error or a value set at that path, never anything else, nothing on any prototype', () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'customer',
        'transfer',
        'address',
        'city',
        'amount',
        'first_name',
        '__proto__',
        'constructor',
        'prototype',
        'spending_limit',
        '',
      ),
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom(
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
        '5.13',
        'true',
        'null',
        '[]',
        '{}',
        '\u001b[2J',
        'x'.repeat(10_001),
      ),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), value, fc.constantFrom(...EVENT_TYPES), (parts, v, type) => {
        const raw = `${parts.join('.')}=${v}`;
        let parsed: ReturnType<typeof parseOverride> | undefined;
        try {
          parsed = parseOverride(raw, type, recipeObjects(RECIPES[type]));
        } catch (err) {
          expect(err).toBeInstanceOf(UsageError);
          expect((err as UsageError).message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
        }
        if (parsed) {
          expect(recipeObjects(RECIPES[type])).toContain(parsed.object);
          expect(bodyField(OBJECT_OPERATIONS[parsed.object], parsed.path).ok).toBe(true);
          const body = applyOverrides({}, [parsed]);
          let cur: unknown = body;
          for (const p of parsed.path) cur = (cur as Record<string, unknown>)[p];
          expect(cur).toEqual(parsed.value);
        }
        expect(({} as Record<string, unknown>).x).toBeUndefined();
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('for every object and every top-level field of its operation, a string field takes a value of its own pattern', () => {
    for (const name of Object.keys(OBJECT_OPERATIONS) as ObjectName[]) {
      const schema = requestBodySchema(OBJECT_OPERATIONS[name])!;
      const fields = Object.keys(schema.properties ?? {});
      expect(fields.length, name).toBeGreaterThan(0);
      for (const field of fields) expect(bodyField(OBJECT_OPERATIONS[name], [field]).ok, `${name}.${field}`).toBe(true);
    }
  });
});

describe('--override values: the creating verb’s own checks, before anything is sent', () => {
  /** Values each verb's own flag refuses (precision and size per currency, ISO 3166-2, e-mail, phone, ids, …). */
  const refused = fc.oneof(
    fc
      .record({
        currency: fc.constantFrom('USD', 'EUR', 'JPY', 'KWD'),
        amount: fc.oneof(
          // one decimal more than the currency has
          fc.tuple(fc.integer({ min: 0, max: 99999 }), fc.integer({ min: 1, max: 9 })).map(([w, d]) => ({ w, d })),
          // 16 digits or more before the point
          fc.bigInt({ min: 10n ** 15n, max: 10n ** 20n }).map((w) => ({ w, d: -1 })),
        ),
      })
      .map(({ currency, amount }) => {
        const e = currency === 'JPY' ? 0 : currency === 'KWD' ? 3 : 2;
        const text = amount.d < 0 ? `${amount.w}.${'0'.repeat(e)}`.replace(/\.$/, '') : `${amount.w}.${'1'.repeat(e)}${amount.d}`;
        return { type: 'transfer.completed', args: [`account.currency=${currency}`, `transfer.amount=${text}`], names: 'transfer.amount' };
      }),
    fc
      .constantFrom('0', '0.00', '000.000')
      .map((a) => ({ type: 'collection.succeeded', args: [`collection.amount=${a}`], names: 'collection.amount' })),
    fc
      .constantFrom('GB-XXX', 'US-ZZ', 'XX-01', 'GB')
      .map((v) => ({ type: 'customer.created', args: [`customer.address.state=${v}`], names: 'customer.address.state' })),
    fc.constantFrom('FR-75C', 'US-VA').map((v) => ({
      type: 'card.created',
      args: ['card.shipping_address={"address_line1":"1 A St","city":"Paris","country":"GB","postal_code":"75001","state":"' + v + '"}'],
      names: 'card.shipping_address.state',
    })),
    fc
      .constantFrom('a@', 'ada at example.com')
      .map((v) => ({ type: 'customer.created', args: [`customer.email=${v}`], names: 'customer.email' })),
    fc.constantFrom('12', '+0').map((v) => ({ type: 'customer.created', args: [`customer.phone=${v}`], names: 'customer.phone' })),
    fc
      .constantFrom('1.001', '99999999999999999')
      .map((v) => ({ type: 'fx_trade.completed', args: [`fx_quote.source_amount=${v}`], names: 'fx_quote.source_amount' })),
  );

  it('a value the verb refuses is exit 2 naming the override, with or without --dry-run, nothing sent', async () => {
    await fc.assert(
      fc.asyncProperty(refused, fc.boolean(), fc.boolean(), async (c, dry, json) => {
        const argv = [
          'trigger',
          c.type,
          ...c.args.flatMap((a) => ['--override', a]),
          ...(dry ? ['--dry-run'] : []),
          ...(json ? ['--json'] : []),
        ];
        const r = await pay(argv);
        expect(r.code, `${argv.join(' ')}\n${r.stderr}`).toBe(2);
        expect(r.requests).toEqual([]);
        expect(r.stdout).toBe('');
        const message = json ? (JSON.parse(r.stderr) as { error: { message: string } }).error.message : r.stderr;
        expect(message).toContain(`--override ${c.names}`);
      }),
      { numRuns: 80 },
    );
  });

  it('the same values refused through the verb itself (one rule): transfers send --amount, customers create --state', async () => {
    const send = await pay([
      'transfers',
      'send',
      '--from',
      'acc_0123456789abcdefghijklmn',
      '--to',
      'ea_0123456789abcdefghijklmn',
      '--amount',
      '5.131',
      '--currency',
      'USD',
    ]);
    expect(send.code).toBe(2);
    const trig = await pay(['trigger', 'transfer.completed', '--override', 'transfer.amount=5.131']);
    expect(trig.code).toBe(2);
    expect(trig.stderr).toBe(`error: --override transfer.amount: USD allows at most 2 decimals (got "5.131")\n`);
    const state = await pay(['trigger', 'customer.created', '--override', 'customer.address.state=GB-XXX']);
    expect(state.code).toBe(2);
    expect(state.requests).toEqual([]);
    expect(state.stderr).toMatch(/^error: --override customer\.address\.state "GB-XXX" is not an ISO 3166-2 subdivision of GB/);
  });

  it('values the verb takes pass, up to the largest amount; the dry run sends nothing and says so', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('0.01', '5.13', '999999999999999.99', '100.14', '25'),
        fc.constantFrom('GB-ENG', 'GB-LND', 'FR-75C'),
        async (amount, state) => {
          const country = state.slice(0, 2);
          const r = await pay([
            'trigger',
            'transfer.completed',
            '--dry-run',
            '--override',
            `transfer.amount=${amount}`,
            '--override',
            `customer.address.country=${country}`,
            '--override',
            `customer.address.state=${state}`,
          ]);
          expect(r.code, r.stderr).toBe(0);
          expect(r.requests).toEqual([]);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('amounts it sends', () => {
  it('defaults end as the simulation value asks, in every currency; funding covers the amount and is never one', () => {
    for (const cur of ['USD', 'JPY', 'KWD', 'EUR']) {
      const e = cur === 'JPY' ? 0 : cur === 'KWD' ? 3 : 2;
      expect(amountEndsIn(amountOf(cur, 2513), e, FAIL_TEXT)).toBe(true);
      expect(amountEndsIn(amountOf(cur, 10014), e, HOLD_TEXT)).toBe(true);
      expect(amountEndsIn(amountOf(cur, 2514), e, HOLD_TEXT)).toBe(false);
      expect(amountEndsIn(amountOf(cur, 14), e, HOLD_TEXT)).toBe(false);
    }
    expect(amountOf('USD', 2500)).toBe('25.00');
    expect(amountOf('JPY', 2513)).toBe('2513');
    expect(amountOf('KWD', 2513)).toBe('2.513');
    fc.assert(
      fc.property(
        fc.constantFrom('USD', 'JPY', 'KWD'),
        fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 14n }), fc.bigInt({ min: 0n, max: 10n ** 6n })),
        fc.boolean(),
        (cur, n, top) => {
          const e = cur === 'JPY' ? 0 : cur === 'KWD' ? 3 : 2;
          // Any amount a transfer may carry, up to the largest (999999999999999 and all the decimals).
          const minor = top ? 10n ** BigInt(15 + e) - 1n - n : n === 0n ? 1n : n;
          const s = minor.toString().padStart(e + 1, '0');
          const amount = e === 0 ? s : `${s.slice(0, -e)}.${s.slice(-e)}`;
          const funded = fundingFor(amount, cur);
          // An amount a collection takes (the verb's own check), that covers the transfer, within
          // what an account may hold, and no simulation value (a collection ending in 13 fails).
          expect(parseAmount(funded, cur)).toEqual({ value: funded });
          const fundedMinor = BigInt(funded.replace('.', ''));
          expect(fundedMinor).toBeGreaterThan(minor - 1n);
          expect(fundedMinor).toBeLessThan(10n ** BigInt(15 + e));
          expect(amountEndsIn(funded, e, FAIL_TEXT)).toBe(false);
          expect(amountEndsIn(funded, e, HOLD_TEXT)).toBe(false);
          if (fundedMinor < 10n ** BigInt(15 + e) - 1n) expect(fundedMinor % 100n).toBe(0n);
        },
      ),
    );
    expect(fundingFor('999999999999999.13', 'USD')).toBe('999999999999999.99');
    expect(fundingFor('25.13', 'USD')).toBe('26.00');
  });
});

describe('what --list says it sends is what a run sends (an in-process emulator)', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, settleAfterMs: 20 });
  });
  afterAll(async () => {
    await emu?.stop();
  });

  // Every recipe whose --list line names an amount of what it is about: that amount is the one sent.
  const priced = EVENT_TYPES.filter((t) => / of (\d+\.\d+)/.test(RECIPES[t].creates));

  it.each(priced)('%s', async (type) => {
    const env = { PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId };
    const r = await pay(['trigger', type, '--json', '--wait-timeout', '60'], { env, loopback: true });
    expect(r.code, r.stderr).toBe(0);
    const { created } = JSON.parse(r.stdout) as { created: Array<{ object: string; id: string }> };
    const subject = RECIPES[type].subject;
    // The last one made of the subject's kind (a transfer's funding collection comes before it).
    const made = created.filter((c) => c.object === subject).at(-1)!;
    const res = await fetch(`${emu.baseUrl}${subject}s/${made.id}`, {
      headers: { 'api-key': emu.keys.sandbox.secret, 'x-tenant-id': emu.tenantId },
    });
    const { amount } = (await res.json()) as { amount: string };
    expect(RECIPES[type].creates).toContain(` of ${amount}`);
  });

  it('a payout sent abroad by --override still makes the event (why international_transfers is activated)', async () => {
    const env = { PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId };
    const r = await pay(['trigger', 'transfer.created', '--override', 'customer.address.country=FR', '--json'], { env, loopback: true });
    expect(r.code, r.stderr).toBe(0);
  });

  it('the largest amount a transfer takes is funded (by the largest an account holds) and sent', async () => {
    const env = { PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: emu.tenantId };
    const r = await pay(
      ['trigger', 'transfer.completed', '--override', 'transfer.amount=999999999999999.99', '--json', '--wait-timeout', '60'],
      {
        env,
        loopback: true,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const { created } = JSON.parse(r.stdout) as { created: Array<{ object: string; id: string }> };
    expect(created.filter((c) => c.object === 'collection')).toHaveLength(1);
    expect(created.filter((c) => c.object === 'transfer')).toHaveLength(1);
  });

  it('covers the simulation values: a failing, a held and an ordinary amount', () => {
    expect(priced).toEqual(expect.arrayContaining(['transfer.failed', 'transfer.cancelled', 'transfer.completed', 'collection.failed']));
  });
});

describe('live mode: what pay trigger creates is real', () => {
  const LIVE = { PAY_API_KEY: LIVE_KEY, PAY_TENANT_ID: 'biz_1' };
  /** Every way pay runs live and cannot ask: off a terminal, --no-input or CI on one. */
  const cannotAsk = fc.constantFrom<{ argv: string[]; tty: boolean; env: Record<string, string> }>(
    { argv: ['--live'], tty: false, env: {} },
    { argv: [], tty: false, env: { PAY_MODE: 'live' } },
    { argv: ['--live', '--no-input'], tty: true, env: {} },
    { argv: ['--live'], tty: true, env: { CI: 'true' } },
    { argv: ['--live'], tty: true, env: { PAY_NO_INPUT: '1' } },
  );

  it('without --yes where no terminal can ask: exit 2 naming what it would create, nothing sent (every event type)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...EVENT_TYPES), cannotAsk, fc.boolean(), async (type, way, json) => {
        const r = await pay([...way.argv, 'trigger', type, ...(json ? ['--json'] : [])], {
          tty: way.tty,
          env: { ...LIVE, ...way.env },
          stdin: '',
        });
        expect(r.code).toBe(2);
        expect(r.requests).toEqual([]);
        expect(r.stdout).toBe('');
        const text = json ? (JSON.parse(r.stderr) as { error: { message: string; hint: string } }).error : undefined;
        const message = text ? `${text.message}\n${text.hint}` : r.stderr;
        expect(message).toContain(`refusing to run "pay trigger ${type}" in live mode without confirmation: pass --yes`);
        expect(message).toContain(
          `nothing was sent; it would: create live objects, all new (nothing existing is used): ${recipeObjects(RECIPES[type]).join(', ')}`,
        );
        if (/transfer|collection|fx_trade/.test(type)) expect(message).toContain('move live money');
        else expect(message).not.toContain('move live money');
      }),
      { numRuns: 60 },
    );
  });

  it('--yes: sent with the live key; a dry run and sandbox mode ask nothing', async () => {
    const respond = (req: Recorded) =>
      req.method === 'POST'
        ? { status: 201, body: { id: CUS, object: 'customer', ...(req.body as object) } }
        : { status: 200, body: { object: 'list', data: [{ id: EVT, type: 'customer.created' }], has_more: false, next_cursor: null } };
    const yes = await pay(['--live', 'trigger', 'customer.created', '--yes', '--json'], { env: LIVE, respond });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST customers', 'GET webhooks/events']);
    expect(yes.requests[0]!.headers['api-key']).toBe(LIVE_KEY);
    const dry = await pay(['--live', 'trigger', 'customer.created', '--dry-run'], { env: LIVE });
    expect(dry.code).toBe(0);
    expect(dry.requests).toEqual([]);
    expect(dry.stdout).toMatch(/^POST https:\/\/api\.example\.com\/v1\/customers\n/);
    const sandbox = await pay(['trigger', 'customer.created', '--json'], { respond });
    expect(sandbox.code).toBe(0);
  });
});

describe('a run against a fake service', () => {
  /** customer.created: POST customers, then the events about the customer. */
  function service(events: unknown) {
    return (req: Recorded) => {
      if (req.method === 'POST' && req.path === 'customers')
        return { status: 201, body: { id: CUS, object: 'customer', created_at: '2026-01-01T00:00:00.000Z', ...(req.body as object) } };
      if (req.method === 'GET' && req.path === 'webhooks/events') return { status: 200, body: events };
      return { status: 404, body: { code: 'not_found' } };
    };
  }

  it('every POST with an Idempotency-Key; the events polled by object_id; --json the documented shape', async () => {
    const r = await pay(['trigger', 'customer.created', '--json'], {
      respond: service({ object: 'list', data: [{ id: EVT, type: 'customer.created' }], has_more: false, next_cursor: null }),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      event_type: 'customer.created',
      created: [{ object: 'customer', id: CUS }],
      events: [{ id: EVT, type: 'customer.created' }],
    });
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST customers', 'GET webhooks/events']);
    expect(r.requests[0]!.headers['idempotency-key']).toMatch(UUID);
    expect(Object.fromEntries(r.requests[1]!.query)).toEqual({ object_id: CUS, limit: '100' });
  });

  it('--jq over the result', async () => {
    const r = await pay(['trigger', 'customer.created', '--jq', '.events[0].id'], {
      respond: service({ object: 'list', data: [{ id: EVT, type: 'customer.created' }], has_more: false, next_cursor: null }),
    });
    expect(r.stdout).toBe(`${EVT}\n`);
  });

  it('an events answer that is not a list of events is exit 1 (bad_response), not a crash', async () => {
    for (const events of [{ data: 'nope' }, { data: [{ id: 'x', type: 1 }] }, { data: [null] }]) {
      const r = await pay(['trigger', 'customer.created', '--json'], { respond: service(events) });
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'bad_response', created: [{ object: 'customer', id: CUS }] } });
    }
  });

  it('a failed step says which and what was created so far', async () => {
    const r = await pay(['trigger', 'customer.updated'], {
      respond: (req) =>
        req.method === 'POST'
          ? { status: 201, body: { id: CUS, object: 'customer' } }
          : {
              status: 422,
              body: { type: 'x', title: 'Validation failed', status: 422, code: 'validation_error', detail: 'first_name is bad' },
            },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: pay trigger customer\.updated: changing the customer: /);
    expect(r.stderr).toContain(`created so far (left in place): customer ${CUS}`);
  });

  it('--dry-run: the first request printed, nothing sent, what would follow said on stderr', async () => {
    const r = await pay(['trigger', 'transfer.failed', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.requests).toEqual([]);
    expect(r.stdout).toMatch(/^POST https:\/\/api\.example\.com\/v1\/customers\n/);
    expect(r.stderr).toContain('dry run: the request above is the first of pay trigger transfer.failed');
    expect(r.stderr).toContain('dry run: nothing was sent');
  });

  it('a step error is still a PayError with the exit code of its cause (a 404 is 4)', async () => {
    const r = await pay(['trigger', 'customer.updated', '--json'], {
      respond: (req) =>
        req.method === 'POST' ? { status: 201, body: { id: CUS, object: 'customer' } } : { status: 404, body: { code: 'not_found' } },
    });
    expect(r.code).toBe(4);
    expect(PayError).toBeDefined();
  });
});
