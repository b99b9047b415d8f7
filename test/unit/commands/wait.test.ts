// --wait, one mechanism for every verb whose object settles later (VerbSpec.wait, src/verbs/wait.ts):
// polls until the status leaves the pending states; exit 0 in a success state, 1 in a failure
// state (naming the reason) or at --wait-timeout; every polled answer checked; a spinner on
// terminals only. Through the commands (transfers send, collections create, kyc submit-document,
// webhooks resend), and the loop itself over generated status sequences for every wait spec.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/client.js';
import type { VerbSpec, WaitSpec } from '../../../src/cmdutil/spec.js';
import { allGroups } from '../../../src/commands/groups.js';
import { bufferIOStreams } from '../../../src/io/iostreams.js';
import { PayError } from '../../../src/lib/errors.js';
import { settled, waitFor } from '../../../src/verbs/wait.js';
import { fakeClock, fakeSignals, pay, type Recorded } from './harness.js';

const ACC = 'acc_0123456789abcdefghijklmn';
const EA = 'ea_0123456789abcdefghijklmn';
const TR = 'tr_0123456789abcdefghijklmn';
const CUS = 'cus_0123456789abcdefghijklmn';
const KYC = 'kyc_0123456789abcdefghijklmn';
const SEND = ['transfers', 'send', '--from', ACC, '--to', EA, '--amount', '1.13', '--currency', 'USD', '--wait'];

/** POST answers pending; the GETs answer the given statuses in turn. */
function settlesAs(...statuses: Array<{ status: string; failure_reason?: string }>) {
  let gets = 0;
  return (req: Recorded) => {
    if (req.method === 'POST') return { status: 201, body: { id: TR, status: 'pending', amount: '1.13', currency: 'USD' } };
    const s = statuses[Math.min(gets++, statuses.length - 1)]!;
    return { status: 200, body: { id: TR, amount: '1.13', currency: 'USD', failure_reason: null, ...s } };
  };
}

const waitVerbs: Array<{ name: string; verb: VerbSpec; wait: WaitSpec }> = allGroups.flatMap((g) =>
  g.verbs.flatMap((verb) => (verb.wait ? [{ name: `${g.name} ${verb.name}`, verb, wait: verb.wait }] : [])),
);

describe('which verbs wait', () => {
  it('every create or action whose object starts pending, transfers send among them', () => {
    expect(waitVerbs.map((v) => v.name).sort()).toEqual([
      'cards issue',
      'collections create',
      'kyc submit-document',
      'kyc verify',
      'kyc-legacy submit-document',
      'kyc-legacy verify',
      'transfers send',
      'webhooks resend',
    ]);
    for (const { verb, wait } of waitVerbs) {
      expect(verb.kind === 'create' || verb.kind === 'action').toBe(true);
      // Nothing is both: the sets split the statuses.
      const all = [...wait.pending, ...wait.success, ...wait.failure];
      expect(new Set(all).size).toBe(all.length);
      expect(wait.pending.length * wait.success.length * wait.failure.length).toBeGreaterThan(0);
    }
  });

  it('their help offers --wait and --wait-timeout, and says what each exit means', async () => {
    const { buildProgram } = await import('../../../src/commands/tree.js');
    const program = buildProgram({ factory: () => Promise.reject(new Error('unused')) });
    const create = program.commands.find((c) => c.name() === 'collections')!.commands.find((c) => c.name() === 'create')!;
    const help = create.helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('--wait ');
    expect(help).toContain('exit 0 when succeeded, 1 when failed, at --wait-timeout');
    expect(help).toContain('--wait-timeout <seconds>');
    // In words that read: "wait for it to settle / be decided / activate / be delivered" (never "until it activate").
    for (const { name, wait } of waitVerbs) {
      const [g, v] = name.split(' ');
      const verb = program.commands.find((c) => c.name() === g)!.commands.find((c) => c.name() === v)!;
      const line = verb.helpInformation().replace(/\s+/g, ' ');
      expect(line, name).toContain(`--wait wait for it to ${wait.until}: exit 0 when`);
      // The infinitive: "be decided", "settle" (not "settles", not "activated").
      expect(/^be [a-z]+$/.test(wait.until) || (/^[a-z]+$/.test(wait.until) && !/(s|ed)$/.test(wait.until)), `${name}: ${wait.until}`).toBe(
        true,
      );
    }
  });

  it('--wait-timeout without --wait: exit 2 naming --wait, nothing sent (every verb that waits)', async () => {
    const r = await pay([...SEND.filter((a) => a !== '--wait'), '--wait-timeout', '30'], { respond: settlesAs({ status: 'completed' }) });
    expect(r.code).toBe(2);
    expect(r.requests).toEqual([]);
    expect(r.stderr).toBe(
      'error: --wait-timeout only works with --wait\nhint: add --wait to wait for the transfer to settle, or leave --wait-timeout out\n',
    );
    const kyc = await pay(['kyc', 'verify', CUS, '--wait-timeout', '5']);
    expect(kyc.code).toBe(2);
    expect(kyc.stderr).toContain('error: --wait-timeout only works with --wait');
    expect(kyc.requests).toEqual([]);
    const ok = await pay([...SEND, '--wait-timeout', '30'], { respond: settlesAs({ status: 'completed' }) });
    expect(ok.code, ok.stderr).toBe(0);
  });
});

describe('--wait-timeout, one declaration and one check (the verbs and pay trigger)', () => {
  it('the same help, and the same answer to every value: exit 2 with the same error line before anything is sent, or on', async () => {
    const { buildProgram } = await import('../../../src/commands/tree.js');
    const program = buildProgram({ factory: () => Promise.reject(new Error('unused')) });
    const help = (...path: string[]) => {
      let cmd = program;
      for (const name of path) cmd = cmd.commands.find((c) => c.name() === name)!;
      return cmd.helpInformation().replace(/\s+/g, ' ');
    };
    for (const path of [['transfers', 'send'], ['kyc', 'submit-document'], ['trigger']])
      expect(help(...path), path.join(' ')).toMatch(/--wait-timeout <seconds> [a-z -]+: give up after this many seconds \(default: 120\)/);
    const line = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('error:'));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 8 }),
          fc.integer({ min: -5, max: 90_000 }).map(String),
          fc.constantFrom('1', '86400', '86401', '0', '1.5', ' 5', '5s'),
        ),
        async (value) => {
          if (value.startsWith('-')) return; // a value that reads as a flag is commander's error, not the check's
          const verb = await pay([...SEND, '--wait-timeout', value, '--dry-run']);
          const trigger = await pay(['trigger', 'customer.created', '--wait-timeout', value, '--dry-run']);
          expect(trigger.code, value).toBe(verb.code);
          if (verb.code === 2) {
            expect(line(verb.stderr), value).toMatch(
              /^error: --wait-timeout (must be a whole number from 1 to 86400|was given an empty value)$/,
            );
            expect(line(trigger.stderr), value).toBe(line(verb.stderr));
            expect([...verb.requests, ...trigger.requests]).toEqual([]);
          } else expect(verb.code, `${value}: ${verb.stderr}${trigger.stderr}`).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('transfers send --wait (through the command)', () => {
  it('prints the settled transfer and exits 0 when completed', async () => {
    const r = await pay([...SEND, '--json'], { respond: settlesAs({ status: 'pending' }, { status: 'completed' }) });
    expect(r.code).toBe(0);
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST transfers', `GET transfers/${TR}`, `GET transfers/${TR}`]);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: TR, status: 'completed' });
    expect(r.stderr).toBe('');
  });

  it('exits 1 naming the failure reason when the transfer fails; stdout stays empty', async () => {
    const r = await pay(SEND, { respond: settlesAs({ status: 'failed', failure_reason: 'destination_rejected' }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: transfer ${TR} failed: destination_rejected`);
    expect(r.stderr).toContain(`hint: see it with: pay transfers get ${TR}`);
  });

  it('exits 1 when cancelled; --json errors carry the transfer', async () => {
    const r = await pay([...SEND, '--json'], { respond: settlesAs({ status: 'cancelled' }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'transfer_cancelled', transfer: { id: TR, status: 'cancelled' } } });
  });

  it('without --wait sends once and prints the pending transfer', async () => {
    const r = await pay(
      SEND.filter((a) => a !== '--wait'),
      { respond: settlesAs({ status: 'completed' }) },
    );
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(1);
    expect(r.stdout).toContain('pending');
  });

  it('a bad --wait-timeout is exit 2 before anything is sent; --wait with --from-file too', async () => {
    for (const bad of ['0', '-1', '1.5', 'soon', '86401']) {
      const r = await pay([...SEND, '--wait-timeout', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--wait-timeout');
      expect(r.requests).toHaveLength(0);
    }
    const r = await pay(['collections', 'create', '--from-file', '-', '--wait'], { stdin: '{"account_id":"x"}\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--wait works on one object, not with --from-file');
    expect(r.requests).toHaveLength(0);
  });
});

describe('the other verbs, through the command', () => {
  it('collections create --wait: exit 0 with the succeeded collection; 1 naming payment_declined', async () => {
    const COL = 'col_0123456789abcdefghijklmn';
    const run = (final: Record<string, unknown>) =>
      pay(['collections', 'create', '--account', ACC, '--amount', '10.13', '--currency', 'USD', '--method', 'card', '--wait', '--json'], {
        respond: (req) =>
          req.method === 'POST'
            ? { status: 201, body: { id: COL, status: 'pending' } }
            : { status: 200, body: { id: COL, failure_reason: null, ...final } },
      });
    const good = await run({ status: 'succeeded' });
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ id: COL, status: 'succeeded' });
    const bad = await run({ status: 'failed', failure_reason: 'payment_declined' });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr)).toMatchObject({
      error: { code: 'collection_failed', message: `collection ${COL} failed: payment_declined` },
    });
  });

  it('kyc submit-document --wait polls the verification the document joined and prints it', async () => {
    const DOC = 'doc_0123456789abcdefghijklmn';
    const r = await pay(
      ['kyc', 'submit-document', CUS, '--type', 'passport', '--country', 'GB', '--number', 'X1230000', '--wait', '--json'],
      {
        respond: (req) =>
          req.method === 'POST'
            ? { status: 201, body: { id: DOC, verification_id: KYC, customer_id: CUS, status: 'received' } }
            : { status: 200, body: { id: KYC, customer_id: CUS, status: 'rejected', rejection_reason: 'document_rejected' } },
      },
    );
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`POST customers/${CUS}/kyc/documents`, `GET customers/${CUS}/kyc`]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr)).toMatchObject({
      error: { code: 'kyc_verification_rejected', message: `KYC verification ${KYC} was rejected: document_rejected` },
    });
    // Another verification answering is not the one waited for.
    const other = await pay(['kyc', 'submit-document', CUS, '--type', 'passport', '--country', 'GB', '--wait'], {
      respond: (req) =>
        req.method === 'POST'
          ? { status: 201, body: { id: 'doc_0123456789abcdefghijklmn', verification_id: KYC, customer_id: CUS, status: 'received' } }
          : { status: 200, body: { id: 'kyc_abcdefghijklmnopqrstuvwx', customer_id: CUS, status: 'approved' } },
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`the answer is KYC verification kyc_abcdefghijklmnopqrstuvwx, not ${KYC}`);
  });

  it('webhooks resend --wait reads delivery.status', async () => {
    const EVT = 'evt_0123456789abcdefghijklmn';
    let gets = 0;
    const r = await pay(['webhooks', 'resend', EVT, '--wait', '--json'], {
      respond: (req) => ({
        status: req.method === 'POST' ? 202 : 200,
        body: { id: EVT, type: 'customer.created', delivery: { status: req.method === 'GET' && gets++ > 0 ? 'delivered' : 'pending' } },
      }),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: EVT, delivery: { status: 'delivered' } });
  });
});

describe('waitFor', () => {
  const TRANSFER = waitVerbs.find((v) => v.name === 'transfers send')!.wait;

  function fakeClient(answers: unknown[]) {
    const paths: string[] = [];
    let i = 0;
    const client = {
      request: async (init: { path: string }) => {
        paths.push(init.path);
        return { body: answers[Math.min(i++, answers.length - 1)], requestId: 'req_1' };
      },
    } as unknown as ApiClient;
    return { client, paths };
  }

  it('polls at 0.5 s growing to 2 s', async () => {
    const clock = fakeClock(0);
    const statuses = ['pending', 'pending', 'pending', 'pending', 'pending', 'completed'];
    const { client, paths } = fakeClient(statuses.map((status) => ({ id: TR, status })));
    const final = await waitFor(client, TRANSFER, { id: TR, status: 'pending' }, { timeoutMs: 120_000, clock });
    expect(final.status).toBe('completed');
    expect(clock.sleeps).toEqual([500, 750, 1125, 1688, 2000, 2000]);
    expect(paths.every((p) => p === `transfers/${TR}`)).toBe(true);
  });

  it('gives up at the deadline with exit 1 and a hint', async () => {
    const clock = fakeClock(0);
    const { client } = fakeClient([{ id: TR, status: 'pending' }]);
    const err = await waitFor(client, TRANSFER, { id: TR, status: 'pending' }, { timeoutMs: 5000, clock }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayError);
    expect((err as PayError).exitCode).toBe(1);
    expect((err as PayError).message).toBe(`transfer ${TR} is still pending after 5 s`);
    expect((err as PayError).hint).toBe(`it may still settle; check with: pay transfers get ${TR}`);
    expect(clock.now()).toBe(5000);
  });

  it('draws a spinner on a terminal stderr only, and clears it', async () => {
    for (const tty of [true, false]) {
      const io = bufferIOStreams({ tty });
      const { client } = fakeClient([{ id: TR, status: 'completed' }]);
      await waitFor(client, TRANSFER, { id: TR, status: 'pending' }, { timeoutMs: 10_000, io, clock: fakeClock() });
      if (tty) {
        expect(io.stderrText()).toMatch(/^\r⠋ Waiting for transfer tr_\w+ to settle \(0 s\)/);
        expect(io.stderrText().endsWith('\r\x1b[2K')).toBe(true);
      } else {
        expect(io.stderrText()).toBe('');
      }
      expect(io.stdoutText()).toBe('');
    }
  });

  it('over generated status sequences, for every wait spec: the outcome is the first non-pending answer, or bad_response', async () => {
    type Answer = { status: unknown; wrongId: boolean };
    // An answer: a status of the spec, or something that is none (junk), with the waited-on id or another.
    const answerArb = (spec: WaitSpec): fc.Arbitrary<Answer> =>
      fc.record({
        status: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...spec.pending) },
          { weight: 1, arbitrary: fc.constantFrom(...spec.success) },
          { weight: 1, arbitrary: fc.constantFrom(...spec.failure) },
          {
            weight: 1,
            arbitrary: fc.oneof(
              fc.constant(undefined),
              fc.constant(null),
              fc.string({ maxLength: 12 }),
              fc.integer(),
              fc.constant('\u001b[31mok'),
            ),
          },
        ),
        wrongId: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      });
    const caseArb = fc
      .constantFrom(...waitVerbs)
      .chain((v) => fc.tuple(fc.constant(v.wait), fc.array(answerArb(v.wait), { minLength: 1, maxLength: 8 })));
    await fc.assert(
      fc.asyncProperty(caseArb, async ([spec, seq]) => {
        const statusPath = (spec.statusField ?? 'status').split('.');
        const objectWith = (status: unknown, id: string): Record<string, unknown> => {
          const o: Record<string, unknown> = { id, customer_id: CUS };
          let cur = o;
          for (const k of statusPath.slice(0, -1)) cur = cur[k] = {} as Record<string, unknown>;
          cur[statusPath[statusPath.length - 1]!] = status;
          return o;
        };
        const ID = `${spec.idPrefix}0123456789abcdefghijklmn`;
        const OTHER = `${spec.idPrefix}abcdefghijklmnopqrstuvwx`;
        const answers = seq.map((a) => objectWith(a.status, a.wrongId ? OTHER : ID));
        // The verb's answer: the object itself (pending), or (a KYC document) an object pointing at it.
        const first = spec.idField
          ? { id: 'doc_0123456789abcdefghijklmn', [spec.idField]: ID, customer_id: CUS, status: 'received' }
          : objectWith(spec.pending[0], ID);
        // The reference: the first answer that is bad or not pending decides; all pending, the deadline does.
        const known = [...spec.pending, ...spec.success, ...spec.failure] as unknown[];
        const decides = seq.findIndex((a) => a.wrongId || !known.includes(a.status) || !(spec.pending as unknown[]).includes(a.status));
        const d = seq[decides];
        const expected =
          d === undefined
            ? 'timeout'
            : d.wrongId || !known.includes(d.status)
              ? 'bad_response'
              : (spec.success as unknown[]).includes(d.status)
                ? 'success'
                : `${spec.object}_${String(d.status)}`;
        const clock = fakeClock(0);
        let polls = 0;
        const client = {
          request: async () => ({ body: answers[Math.min(polls++, answers.length - 1)], requestId: 'req_1' }),
        } as unknown as ApiClient;
        // A deadline far beyond the sequence: an all-pending one keeps repeating its last answer until then.
        const outcome = await waitFor(client, spec, first, { timeoutMs: 60_000, clock }).then(
          (obj) => {
            try {
              settled(spec, obj);
              return 'success';
            } catch (err) {
              return (err as PayError).code;
            }
          },
          (err: unknown) => ((err as PayError).code === 'wait_timeout' ? 'timeout' : (err as PayError).code),
        );
        expect(outcome).toBe(expected);
        if (expected === 'timeout') expect(clock.now()).toBe(60_000);
        else expect(polls).toBe(decides + 1);
      }),
      { numRuns: 400 },
    );
  });
});

describe('Ctrl-C or SIGTERM while waiting (off a terminal too)', () => {
  it('stops at once with exit 130, the error naming what was created, its state and how to check it; stdout empty (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('SIGINT' as const, 'SIGTERM' as const), fc.boolean(), async (signal, json) => {
        const signals = fakeSignals();
        let gets = 0;
        const r = await pay([...SEND, ...(json ? ['--json'] : [])], {
          signals,
          clock: fakeClock(),
          respond: (req) => {
            if (req.method === 'POST') return { status: 201, body: { id: TR, status: 'pending', amount: '1.13', currency: 'USD' } };
            // The signal comes while the transfer is still pending.
            if (++gets === 2) signals.emit(signal);
            return { status: 200, body: { id: TR, status: 'pending', amount: '1.13', currency: 'USD', failure_reason: null } };
          },
        });
        expect(r.code).toBe(130);
        expect(r.stdout).toBe('');
        expect(gets).toBe(2);
        expect(signals.count()).toBe(0);
        const message = `interrupted while waiting for transfer ${TR} to settle: the request was accepted, and it is pending`;
        if (json) {
          const err = JSON.parse(r.stderr).error;
          expect(err).toMatchObject({ code: 'cancelled', message, hint: `it may still settle; check with: pay transfers get ${TR}` });
          expect(err.transfer ?? err.details?.transfer).toMatchObject({ id: TR, status: 'pending' });
        } else {
          expect(r.stderr).toBe(`error: ${message}\nhint: it may still settle; check with: pay transfers get ${TR}\n`);
        }
      }),
      { numRuns: 8 },
    );
  });
});

describe('webhooks resend --wait with no webhook URL (nothing scheduled)', () => {
  const EVT = 'evt_0123456789abcdefghijklmn';
  const event = (next: string | null) => ({
    id: EVT,
    object: 'event',
    type: 'customer.created',
    data: {},
    delivery: { status: 'pending', attempts: 0, last_response_code: null, last_attempt_at: null, next_attempt_at: next },
  });

  it('says so at once, then waits as asked; with an attempt scheduled it says nothing', async () => {
    let polls = 0;
    const r = await pay(['webhooks', 'resend', EVT, '--wait', '--wait-timeout', '5'], {
      clock: fakeClock(),
      respond: (req) => {
        if (req.method === 'POST') return { status: 202, body: event(null) };
        polls++;
        return { status: 200, body: event(null) };
      },
    });
    expect(r.code).toBe(1);
    expect(polls).toBeGreaterThan(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `note: event ${EVT}: no delivery attempt is scheduled: the service has no webhook URL to send it to, so it stays pending until one is set (the emulator: pay emulator webhook-url <url>, or run pay webhooks listen); waiting up to 5 s`,
    );
    expect(lines.filter((l) => l.startsWith('note:'))).toHaveLength(1);
    expect(lines.at(-2)).toMatch(/^error: event evt_\w+ is still pending after 5 s$/);
    const scheduled = await pay(['webhooks', 'resend', EVT, '--wait'], {
      clock: fakeClock(),
      respond: (req) =>
        req.method === 'POST'
          ? { status: 202, body: event('2026-11-26T00:00:00.000Z') }
          : {
              status: 200,
              body: { ...event(null), delivery: { ...event(null).delivery, status: 'delivered', attempts: 1, last_response_code: 200 } },
            },
    });
    expect(scheduled.code, scheduled.stderr).toBe(0);
    expect(scheduled.stderr).not.toContain('note:');
  });
});
