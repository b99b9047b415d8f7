// What an outside tester broke in the pipeline and terminal features (issues 15 and 17), in
// process through the whole tree: every command that prints JSON applies --jq (the overview, bulk
// result lines, webhooks verify's errors, pay openapi), the overview's own --fields, replayed
// refusals with their note, --jq's errors as text, $ENV empty, JSON and raw strings safe on a
// terminal, a partial address refused before sending, counts that agree in number, explicitly
// empty flags refused, a transfer to its own account refused, a list's limit error naming --limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/commands/tree.js';
import { reportError } from '../../../src/lib/handle-error.js';
import { PayError } from '../../../src/lib/errors.js';
import { pickEntries } from '../../../src/verbs/pick.js';
import { accounts } from '../../../src/commands/accounts/index.js';
import { pay, type Recorded, type Responder } from './harness.js';

const CUS = 'cus_0123456789abcdefghijklmn';
const ACC = 'acc_0123456789abcdefghijklmn';
const ACC2 = 'acc_abcdefghijklmn0123456789';
const TENANT = { PAY_TENANT_ID: 'biz_1' };
/** What a terminal must never receive from the data: C0 (but line breaks), DEL, C1, bidi, separators, invisibles. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null });
const problem = (status: number, code: string, detail: string, extra: object = {}) => ({
  type: 'about:blank',
  title: 'Error',
  status,
  code,
  detail,
  ...extra,
});

function customerObj(extra: object = {}) {
  return {
    id: CUS,
    object: 'customer',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    kyc_status: 'approved',
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** The overview's requests; `fail` answers a section's request with a 400 carrying its request id. */
function overviewResponder(fail: readonly string[] = []): Responder {
  return (req: Recorded) => {
    const section = req.path.endsWith('/kyc')
      ? 'kyc'
      : req.path.startsWith('customers/')
        ? 'customer'
        : req.path === 'webhooks/events'
          ? 'failed_deliveries'
          : req.path;
    if (fail.includes(section)) {
      return { status: 400, body: problem(400, 'bad_request', `${section} refused`), headers: { 'request-id': `req_${section}` } };
    }
    switch (section) {
      case 'customer':
        return { status: 200, body: customerObj() };
      case 'kyc':
        return {
          status: 200,
          body: { id: 'kyc_0123456789abcdefghijklmn', object: 'kyc_verification', customer_id: CUS, status: 'approved', level: 'basic' },
        };
      case 'accounts':
        return {
          status: 200,
          body: page([
            {
              id: ACC,
              object: 'account',
              customer_id: CUS,
              currency: 'USD',
              balance: { available: '1.00', pending: '0.00', currency: 'USD' },
            },
          ]),
        };
      default:
        return { status: 200, body: page([]) };
    }
  };
}

describe('every command that prints JSON applies --jq', () => {
  it('customers overview: --jq filters the aggregate; a syntax error is still exit 2 before any request', async () => {
    const r = await pay(['customers', 'overview', CUS, '--jq', '.customer.id'], { env: TENANT, respond: overviewResponder() });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: `${CUS}\n`, stderr: '' });
    const nd = await pay(['customers', 'overview', CUS, '-o', 'ndjson'], { env: TENANT, respond: overviewResponder() });
    expect(nd.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(nd.stdout)).toMatchObject({ customer: { id: CUS }, accounts: [{ id: ACC }] });
    const bad = await pay(['customers', 'overview', CUS, '--jq', '.customer | ('], { env: TENANT, respond: overviewResponder() });
    expect(bad.code).toBe(2);
    expect(bad.requests).toEqual([]);
  });

  it('bulk --from-file: each result line goes through --jq (a row the filter fails on says so; exit 1 at the end)', async () => {
    const rows = [1, 2, 3].map((i) => JSON.stringify({ customer_id: CUS, currency: 'USD', nickname: `n${i}` })).join('\n');
    const r = await pay(['accounts', 'create', '--from-file', '-', '--concurrency', '1', '--jq', '.status'], { env: TENANT, stdin: rows });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('created\ncreated\ncreated\n');
    const failing = await pay(
      ['accounts', 'create', '--from-file', '-', '--concurrency', '1', '--jq', 'if .line == 2 then error("boom") else .line end'],
      { env: TENANT, stdin: rows },
    );
    expect(failing.code).toBe(1);
    expect(failing.stdout).toBe('1\n3\n');
    expect(failing.stderr).toMatch(/^line 2: --jq: boom$/m);
  });

  it('bulk result lines on a terminal: the service text inside them cannot drive it (the JSON is the same data)', async () => {
    const detail = 'refused \u009b31m\u202e here';
    const r = await pay(['accounts', 'create', '--from-file', '-'], {
      tty: true,
      env: TENANT,
      stdin: JSON.stringify({ customer_id: CUS, currency: 'USD' }),
      respond: () => ({ status: 422, body: problem(422, 'validation_error', detail) }),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(UNSAFE);
    expect((JSON.parse(r.stdout) as { error: string }).error).toContain(detail);
  });

  it('webhooks verify: an invalid signature or timestamp is printed in every output mode, --jq included', async () => {
    const modes = [[], ['--json'], ['-o', 'ndjson'], ['--jq', '.valid'], ['--jq', '.', '-o', 'json']];
    const cases = [
      { name: 'timestamp', args: ['--timestamp', '1', '--signature', 'v1,AAAA'] },
      { name: 'signature', args: ['--timestamp', String(Math.floor(Date.now() / 1000)), '--signature', 'v1,AAAA'] },
    ];
    for (const mode of modes) {
      for (const c of cases) {
        const r = await pay(
          ['webhooks', 'verify', '--payload', '-', '--id', 'msg_1', ...c.args, '--secret', 'whsec_c2VjcmV0c2VjcmV0', ...mode],
          {
            stdin: '{}',
          },
        );
        const what = `${c.name} ${mode.join(' ')}`;
        expect(r.code, what).toBe(1);
        expect(r.stdout, what).toBe('');
        if (mode.includes('--json') || (mode[0] === '-o' && mode[1] === 'ndjson'))
          expect(JSON.parse(r.stderr), what).toMatchObject({
            error: { code: 'invalid_signature', message: expect.stringMatching(/^invalid: /) },
          });
        else expect(r.stderr, what).toMatch(/^invalid: \S.*\n$/);
      }
    }
  });

  it('a command report of its own prints as text, or as the JSON error: the entry decides, not the command', () => {
    const err = new PayError('invalid: bad', 1, 'invalid_signature', { text: ['invalid: bad \u001b[31m'] });
    let text = '';
    expect(reportError(err, { err: (t) => (text += t), json: false, debug: false })).toBe(1);
    expect(text).toBe('invalid: bad \\x1b[31m\n');
    let json = '';
    reportError(err, { err: (t) => (json += t), json: true, debug: false });
    expect(JSON.parse(json)).toMatchObject({ error: { code: 'invalid_signature', message: 'invalid: bad' } });
  });

  it('pay openapi --jq filters the document (and is refused with --yaml)', async () => {
    const r = await pay(['openapi', '--jq', '.openapi']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^3\.1\.\d+\n$/);
    const yaml = await pay(['openapi', '--yaml', '--jq', '.']);
    expect(yaml.code).toBe(2);
    expect(yaml.stderr).toMatch(/^error: --jq filters JSON: it cannot be used with --yaml/);
  });
});

describe('customers overview: its own fields, its failures', () => {
  it('bare --fields lists the aggregate, dotted paths included; names are checked against it', async () => {
    const list = await pay(['customers', 'overview', CUS, '--fields'], { env: TENANT });
    expect(list.code).toBe(0);
    expect(list.requests).toEqual([]);
    const names = list.stdout.trim().split('\n');
    for (const n of ['customer', 'customer.email', 'customer.address.city', 'kyc', 'kyc.status', 'accounts', 'cards', 'more', 'errors'])
      expect(names).toContain(n);
    expect(names).not.toContain('email');
    const wrong = await pay(['customers', 'overview', CUS, '--fields', 'id,email', '--json'], { env: TENANT });
    expect(wrong.code).toBe(2);
    expect(wrong.requests).toEqual([]);
    expect(JSON.parse(wrong.stderr).error.message).toMatch(
      /^--fields: unknown fields "id", "email" for pay customers overview \(valid: customer, customer\.id/,
    );
    const picked = await pay(['customers', 'overview', CUS, '--fields', 'customer.email,accounts,more.cards', '--json'], {
      env: TENANT,
      respond: overviewResponder(),
    });
    expect(picked.code).toBe(0);
    expect(JSON.parse(picked.stdout)).toEqual({
      customer: { email: 'ada@example.com' },
      accounts: [expect.objectContaining({ id: ACC })],
      more: { cards: [`pay cards list --customer ${CUS}`] },
    });
  });

  it('a failed section names its request once; the closing error lists the sections in screen order', async () => {
    const r = await pay(['customers', 'overview', CUS, '-o', 'table'], { env: TENANT, respond: overviewResponder(['accounts', 'kyc']) });
    expect(r.code).toBe(1);
    const failed = r.stdout.split('\n').filter((l) => l.includes('failed:'));
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const line of failed) {
      const ids = line.match(/req_[a-z_]+/g) ?? [];
      expect(new Set(ids).size, line).toBe(ids.length);
      expect(line.match(/\(request /g)?.length ?? 0, line).toBeLessThanOrEqual(1);
    }
    // Failed deliveries are matched to the customer through its accounts: without them, not loaded either.
    expect(r.stderr).toMatch(/^error: the overview is incomplete: 4 sections failed \(kyc, accounts, transactions, failed_deliveries\)$/m);
    const json = await pay(['customers', 'overview', CUS, '--json'], { env: TENANT, respond: overviewResponder(['accounts', 'kyc']) });
    expect((JSON.parse(json.stdout) as { errors: Array<{ section: string }> }).errors.map((e) => e.section)).toEqual([
      'kyc',
      'accounts',
      'transactions',
      'failed_deliveries',
    ]);
  });
});

describe('replayed refusals', () => {
  const send = ['transfers', 'send', '--from', ACC, '--to', ACC2, '--amount', '5.00', '--currency', 'USD', '--idempotency-key', 'kfa'];

  it('get the replay note, and the error does not offer the key as a way to retry', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(400, 402, 404, 409, 410, 422), async (status) => {
        const r = await pay(send, {
          respond: () => ({
            status,
            body: problem(status, 'validation_error', 'destination_id: must differ'),
            headers: { 'idempotent-replayed': 'true', 'request-id': 'req_1' },
          }),
        });
        expect(r.code).not.toBe(0);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(
          `note: replayed: idempotency key kfa was used before, so the service answered with what it stored for that first POST: a refusal (HTTP ${status} validation_error), not a new attempt; the state may have changed since, but this key only replays that answer: a new idempotency key is needed to try again\n`,
        );
        expect(r.stderr).toMatch(
          /^error: HTTP \d+ validation_error: destination_id: must differ \(request req_1, replayed for idempotency key kfa\)$/m,
        );
        expect(r.stderr).toMatch(/^hint: the same idempotency key only replays this answer: to try again, send it with a new one/m);
        expect(r.stderr).not.toMatch(/retry (safely )?with --idempotency-key/);
      }),
      { numRuns: 6 },
    );
  });

  it("after pay's own retry (a 5xx, then the replay of what the first attempt did): the note says so, never that a key was reused (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(500, 502, 503, 504), fc.boolean(), fc.boolean(), async (failure, refused, ownKey) => {
        let calls = 0;
        const argv = ['transfers', 'send', '--from', ACC, '--to', ACC2, '--amount', '5.00', '--currency', 'USD'];
        const r = await pay(ownKey ? argv : [...argv, '--idempotency-key', 'kfb'], {
          respond: () =>
            calls++ === 0
              ? { status: failure, body: problem(failure, 'internal_error', 'committed, then failed') }
              : refused
                ? {
                    status: 422,
                    body: problem(422, 'insufficient_funds', 'not enough'),
                    headers: { 'idempotent-replayed': 'true', 'request-id': 'req_2' },
                  }
                : {
                    status: 201,
                    body: { id: 'tr_0123456789abcdefghijklmn', object: 'transfer', status: 'pending', amount: '5.00', currency: 'USD' },
                    headers: { 'idempotent-replayed': 'true', 'request-id': 'req_2' },
                  },
        });
        expect(calls).toBe(2);
        expect(r.code).toBe(refused ? 1 : 0);
        const note = r.stderr.split('\n').find((l) => l.startsWith('note: replayed'))!;
        if (ownKey) {
          expect(note).toMatch(
            /^note: replayed: an earlier attempt of this command reached the service \(pay retried it with the same idempotency key [0-9a-f-]{36}\); this is its answer/,
          );
          expect(note).not.toContain('was used before');
        } else {
          expect(note).toContain(
            'replayed: idempotency key kfb was used before (by an earlier attempt of this command, which pay retried, or an earlier command)',
          );
        }
        if (refused) expect(note).toContain('a refusal (HTTP 422 insufficient_funds)');
        else expect(note).toContain('(tr_0123456789abcdefghijklmn); the object may have changed since');
      }),
      { numRuns: 16 },
    );
  });

  it("a bulk run's summary note names a command that shows such an object, or none", async () => {
    const replayed =
      (id: string): Responder =>
      () => ({ status: 201, body: { id, object: 'x' }, headers: { 'idempotent-replayed': 'true' } });
    const accountsRun = await pay(['accounts', 'create', '--from-file', '-'], {
      env: TENANT,
      stdin: JSON.stringify({ customer_id: CUS, currency: 'USD' }),
      respond: replayed(ACC),
    });
    expect(accountsRun.stderr).toMatch(/^note: 1 row was a replay .*: see it now with pay accounts get <id>$/m);
    // A verification's id is no command's argument: nothing is named rather than a command that fails.
    const kyc = await pay(['kyc', 'verify', CUS, '--from-file', '-'], { stdin: '{}', respond: replayed('kyc_0123456789abcdefghijklmn') });
    expect(kyc.stderr).toMatch(/^note: 1 row was a replay .*the object may have changed since$/m);
  });

  it('a refusal that is not a replay gets no note', async () => {
    const r = await pay(send, { respond: () => ({ status: 422, body: problem(422, 'validation_error', 'no') }) });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('note:');
    expect(r.stderr).toMatch(/\(idempotency key kfa\)$/m);
  });
});

describe('--jq: errors as text, an empty environment, a safe terminal', () => {
  it('--jq with -o other than json is exit 2, and its error is text, not JSON', async () => {
    for (const o of ['ndjson', 'tsv', 'csv', 'table']) {
      const r = await pay(['customers', 'list', '-o', o, '--jq', '.']);
      expect(r.code, o).toBe(2);
      expect(r.stderr, o).toMatch(/^error: --jq filters JSON: it cannot be used with --output /);
    }
  });

  it('$ENV and env are empty', async () => {
    const r = await pay(['customers', 'list', '--jq', '[$ENV, env, ($ENV | length)] | tojson']);
    expect(r.stdout).toBe('[{},{},0]\n');
  });

  it('`input` past the one text says "No more inputs", as jq does', async () => {
    const r = await pay(['customers', 'list', '--jq', 'input']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: --jq: No more inputs/m);
  });

  it('on a terminal: raw strings are one escaped line; JSON (--jq or --json) has no control, bidi or invisible character, and is the same data', async () => {
    const text = fc.string({ unit: 'binary', maxLength: 24 });
    await fc.assert(
      fc.asyncProperty(text, text, async (first, email) => {
        const data = [customerObj({ first_name: first, email })];
        const respond: Responder = () => ({ status: 200, body: page(data) });
        const raw = await pay(['customers', 'list', '--jq', '.[0].first_name'], { tty: true, respond });
        expect(raw.stdout.endsWith('\n')).toBe(true);
        expect(raw.stdout.slice(0, -1)).not.toMatch(/[\n\r\t]/);
        expect(raw.stdout).not.toMatch(UNSAFE);
        for (const args of [['--jq', '.[0]'], ['--json'], ['-o', 'ndjson']]) {
          const r = await pay(['customers', 'list', ...args], { tty: true, respond });
          expect(r.code).toBe(0);
          expect(r.stdout, args.join(' ')).not.toMatch(UNSAFE);
          expect(JSON.parse(r.stdout), args.join(' ')).toEqual(args[0] === '--json' ? data : data[0]);
        }
      }),
      { numRuns: 25 },
    );
    // Into a pipe, the data exactly.
    const c1 = [customerObj({ first_name: 'a\u009bb\tc' })];
    const piped = await pay(['customers', 'list', '--jq', '.[0].first_name'], { respond: () => ({ status: 200, body: page(c1) }) });
    expect(piped.stdout).toBe('a\u009bb\tc\n');
    const tty = await pay(['customers', 'list', '--jq', '.[0].first_name'], {
      tty: true,
      respond: () => ({ status: 200, body: page(c1) }),
    });
    expect(tty.stdout).toBe('a\\x9bb\\tc\n');
    const json = await pay(['customers', 'list', '--jq', '.[0]'], { tty: true, respond: () => ({ status: 200, body: page(c1) }) });
    expect(json.stdout).toContain('"first_name": "a\\u009bb\\tc"');
  });
});

describe('local checks the service would fail', () => {
  const ADDRESS: Array<[string, string]> = [
    ['--address-line1', '1 Main St'],
    ['--city', 'London'],
    ['--country', 'GB'],
    ['--postal-code', 'SW1A 1AA'],
    ['--state', 'GB-MAN'],
  ];

  it('customers update: any part of the address without its required fields is refused before sending (it is replaced whole)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.subarray(ADDRESS, { minLength: 1 }), async (given) => {
        const r = await pay(['customers', 'update', CUS, ...given.flat(), '--dry-run']);
        const whole = ['--address-line1', '--city', '--country', '--postal-code'].every((f) => given.some(([g]) => g === f));
        expect(r.requests).toEqual([]);
        if (whole) expect(r.code, r.stderr).toBe(0);
        else {
          expect(r.code).toBe(2);
          expect(r.stderr).toMatch(/^error: (--[a-z0-9-]+(, )?)+ also needs? (--[a-z0-9-]+(, )?)+ \(the address is sent whole\)$/m);
        }
      }),
      { numRuns: 31 },
    );
    const state = await pay(['customers', 'update', CUS, '--state', 'GB-MAN', '--dry-run']);
    expect(state.stderr).toBe('error: --state also needs --address-line1, --city, --country, --postal-code (the address is sent whole)\n');
  });

  it('cards issue: a shipping state alone is refused too', async () => {
    const r = await pay(['cards', 'issue', '--customer', CUS, '--account', ACC, '--type', 'virtual', '--state', 'US-TX', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --state also needs --address-line1, --city, --country, --postal-code/);
  });

  it('transfers send from an account to itself is refused before sending (a dry run too)', async () => {
    for (const extra of [[], ['--dry-run']]) {
      const r = await pay(['transfers', 'send', '--from', ACC, '--to', ACC, '--amount', '5.00', '--currency', 'USD', ...extra]);
      expect(r.code).toBe(2);
      expect(r.requests).toEqual([]);
      expect(r.stderr).toBe(`error: --from and --to must differ (both are ${ACC})\n`);
    }
  });

  it("a list's limit refused by the service names --limit", async () => {
    const r = await pay(['customers', 'list', '--limit', '50'], {
      respond: () => ({
        status: 400,
        body: problem(400, 'validation_error', 'bad query', { errors: [{ field: 'limit', message: 'too large' }] }),
      }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ {2}limit: too large \(--limit\)$/m);
  });
});

describe('counts agree in number', () => {
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => JSON.stringify({ customer_id: CUS, currency: 'USD', nickname: `r${i}` })).join('\n');

  it('invalid and refused rows: "it" for one, "them" for more', async () => {
    for (const n of [1, 2]) {
      const invalid = await pay(['accounts', 'create', '--from-file', '-'], {
        env: TENANT,
        stdin: `${Array(n).fill('{"currency": 5}').join('\n')}`,
      });
      expect(invalid.code).toBe(1);
      const hint = /^hint: (.*)$/m.exec(invalid.stderr)?.[1] ?? '';
      expect(hint, invalid.stderr).toContain(
        n === 1
          ? '1 row is invalid (its result names the field): fix it;'
          : `${n} rows are invalid (each result names the field): fix them;`,
      );
      const refused = await pay(['accounts', 'create', '--from-file', '-'], {
        env: TENANT,
        stdin: rows(n),
        respond: () => ({ status: 422, body: problem(422, 'validation_error', 'no') }),
      });
      const said = /^hint: (.*)$/m.exec(refused.stderr)?.[1] ?? '';
      expect(said, refused.stderr).toContain(
        n === 1
          ? '1 row was refused and nothing was created: fix what it needs'
          : `${n} rows were refused and nothing was created: fix what they need`,
      );
      const unknown = await pay(['accounts', 'create', '--from-file', '-', '--max-retries', '0'], {
        env: TENANT,
        stdin: rows(n),
        respond: () => ({ status: 503, body: problem(503, 'unavailable', 'down') }),
      });
      const again = /^hint: (.*)$/m.exec(unknown.stderr)?.[1] ?? '';
      expect(again, unknown.stderr).toContain(
        n === 1 ? 'it is sent with the same key (replayed if it did go through)' : 'they are sent with the same key',
      );
    }
  });
});

/** Every leaf command and the flags it takes that have a value, with arguments commander accepts. */
function valueFlags(): Array<{ path: string[]; flag: string; choices: boolean }> {
  const out: Array<{ path: string[]; flag: string; choices: boolean }> = [];
  const walk = (cmd: Command, path: string[]): void => {
    if (cmd.commands.length === 0 && path.length > 0) {
      const args = cmd.registeredArguments.filter((a) => a.required).map((a) => a.argChoices?.[0] ?? 'x');
      const opts: Array<Command['options'][number]> = [];
      for (let c: Command | null = cmd; c; c = c.parent) opts.push(...c.options);
      for (const o of opts)
        if ((o.required || o.optional) && o.long) out.push({ path: [...path, ...args], flag: o.long, choices: Boolean(o.argChoices) });
    }
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(buildProgram(), []);
  return out;
}

describe('an explicitly empty value is refused, never the default', () => {
  const all = valueFlags();

  it('covers the flags that fell back before: --secret, --tenant, --api-key, --profile', () => {
    for (const flag of ['--secret', '--tenant', '--api-key', '--profile', '--base-url', '--idempotency-key'])
      expect(
        all.some((x) => x.flag === flag),
        flag,
      ).toBe(true);
    expect(all.length).toBeGreaterThan(300);
  });

  it('any command, any flag with a value: "" is exit 2 naming the flag, nothing sent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...all), async ({ path, flag, choices }) => {
        const r = await pay([...path, `${flag}=`], { env: TENANT, stdin: '' });
        expect(r.code, `${path.join(' ')} ${flag}=`).toBe(2);
        expect(r.requests).toEqual([]);
        if (!choices) expect(r.stderr, `${path.join(' ')} ${flag}`).toMatch(new RegExp(`${flag} was given an empty value`));
      }),
      { numRuns: 80 },
    );
  });

  it('webhooks verify --secret "" does not verify with the profile secret; --tenant "" is not the profile tenant', async () => {
    const verify = await pay(
      ['webhooks', 'verify', '--payload', '-', '--id', 'm', '--timestamp', '1', '--signature', 'v1,A', '--secret', ''],
      {
        stdin: '{}',
        env: { PAY_WEBHOOK_SECRET: 'whsec_c2VjcmV0c2VjcmV0' },
      },
    );
    expect(verify.stderr).toMatch(/^error: --secret was given an empty value$/m);
    // webhooks listen relies on this refusal (it no longer checks for "" itself): nothing listens.
    for (const flag of ['--secret', '--host']) {
      const listen = await pay(['webhooks', 'listen', '--port', '0', flag, ''], { env: { PAY_WEBHOOK_SECRET: 'whsec_c2VjcmV0c2VjcmV0' } });
      expect(listen.code, flag).toBe(2);
      expect(listen.stderr, flag).toBe(
        `error: ${flag} was given an empty value\nhint: give ${flag} a value, or leave it out to use its default; an empty value is often a shell variable that is not set\n`,
      );
    }
    const tenant = await pay(['accounts', 'list', '--tenant', ''], { env: TENANT });
    expect(tenant.code).toBe(2);
    expect(tenant.requests).toEqual([]);
    expect(tenant.stderr).toMatch(/^error: --tenant was given an empty value$/m);
  });
});

describe('the accounts close picker offers only accounts it can close', () => {
  it('active accounts holding nothing, whatever their currency exponent', () => {
    const pick = accounts.verbs.find((v) => v.name === 'close')!.arg!.pick!;
    const acc = (n: number, available: string, pending: string, status = 'active') => ({
      id: `acc_${String(n).padStart(24, '0')}`,
      status,
      currency: 'USD',
      balance: { available, pending, currency: 'USD' },
      created_at: '2026-01-01T00:00:00.000Z',
    });
    const objects = [
      acc(1, '0.00', '0.00'),
      acc(2, '5.00', '0.00'),
      acc(3, '0.00', '-1.00'),
      acc(4, '0', '0'),
      acc(5, '0.000', '0.000'),
      acc(6, '0.00', '0.00', 'closed'),
      acc(7, '0.01', '0.00'),
    ];
    expect(pickEntries(objects, pick, 'acc_').map((e) => Number(e.id.slice(4)))).toEqual([1, 4, 5]);
  });
});
