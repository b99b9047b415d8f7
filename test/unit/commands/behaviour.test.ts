// Running verbs: deprecation warnings, live-mode confirmation, API field errors naming the flag
// to fix, and what lands on stdout and stderr for people and for pipes.
import { describe, expect, it } from 'vitest';
import { LIVE_KEY, pay, type Recorded } from './harness.js';

const ACC = 'acc_0123456789abcdefghijklmn';
const EA = 'ea_0123456789abcdefghijklmn';
const CUS = 'cus_0123456789abcdefghijklmn';
const LIVE = { PAY_API_KEY: LIVE_KEY };

describe('kyc-legacy', () => {
  it.each([
    [
      ['verify', CUS, '--level', 'enhanced'],
      'pay kyc verify',
      { method: 'POST', path: 'kyc/verify', body: { customer_id: CUS, level: 'enhanced' } },
    ],
    [
      ['submit-document', CUS, '--type', 'passport', '--country', 'gb', '--number', '1234'],
      'pay kyc submit-document',
      { method: 'POST', path: 'kyc/documents', body: { customer_id: CUS, type: 'passport', country: 'GB', number: '1234' } },
    ],
    [['status', CUS], 'pay kyc status', { method: 'GET', path: `kyc/status/${CUS}` }],
  ])('%j warns on stderr naming %s, and calls the deprecated operation', async (args, successor, request) => {
    for (const tty of [false, true]) {
      const r = await pay(['kyc-legacy', ...args], {
        tty,
        respond: (req) => ({
          status: 200,
          // A document for kyc/documents, the verification otherwise (a create answers the kind it makes).
          body: { id: `${req.path === 'kyc/documents' ? 'doc_' : 'kyc_'}0123456789abcdefghijklmn`, status: 'pending', documents: [] },
        }),
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`warning: "pay kyc-legacy ${args[0]}" uses a deprecated API; use "${successor}" instead\n`);
      expect(r.stdout).not.toContain('deprecated');
      expect(r.requests).toHaveLength(1);
      expect(r.requests[0]).toMatchObject(request);
    }
  });

  it('warns even when the input is refused', async () => {
    const r = await pay(['kyc-legacy', 'verify', 'cus_bad']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^warning: .*use "pay kyc verify" instead\nerror: customer-id "cus_bad" must be an id like cus_…/);
  });

  it('pay kyc itself does not warn', async () => {
    const r = await pay(['kyc', 'status', CUS], { respond: () => ({ status: 200, body: { id: 'kyc_1', documents: [] } }) });
    expect(r.stderr).toBe('');
    expect(r.requests[0]).toMatchObject({ method: 'GET', path: `customers/${CUS}/kyc` });
  });
});

describe('live mode confirmation', () => {
  const cases: Array<[string, string[]]> = [
    ['transfers send', ['transfers', 'send', '--from', ACC, '--to', EA, '--amount', '10.50', '--currency', 'USD']],
    ['transfers cancel', ['transfers', 'cancel', 'tr_0123456789abcdefghijklmn']],
    ['fx trade', ['fx', 'trade', 'fxq_0123456789abcdefghijklmn', '--from-account', ACC, '--to-account', 'acc_abcdefghijklmn0123456789']],
    ['cards terminate', ['cards', 'terminate', 'card_0123456789abcdefghijklmn']],
    ['payment-links disable', ['payment-links', 'disable', 'plink_0123456789abcdefghijklmn']],
    ['external-accounts remove', ['external-accounts', 'remove', EA]],
    ['accounts close', ['accounts', 'close', ACC]],
  ];

  it.each(cases)('%s --live without a terminal and without --yes is refused, nothing sent', async (name, argv) => {
    const r = await pay(['--live', ...argv], { env: LIVE });
    expect(r.code).toBe(2);
    expect(r.requests).toEqual([]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: refusing to run "pay ${name}`);
    expect(r.stderr).toContain('in live mode without confirmation: pass --yes');
  });

  it('also refuses with PAY_MODE=live, and names the amount and parties', async () => {
    const r = await pay(cases[0]![1], { env: { ...LIVE, PAY_MODE: 'live' } });
    expect(r.code).toBe(2);
    expect(r.requests).toEqual([]);
    expect(r.stderr).toContain(`"pay transfers send" 10.50 USD from ${ACC} to ${EA}`);
  });

  it('refuses when prompting is off even on a terminal (--no-input)', async () => {
    const r = await pay(['--live', '--no-input', ...cases[0]![1]], { tty: true, env: LIVE });
    expect(r.code).toBe(2);
    expect(r.requests).toEqual([]);
  });

  it('sends with --yes', async () => {
    const r = await pay(['--live', ...cases[0]![1], '--yes'], { env: LIVE });
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.headers['api-key']).toBe(LIVE_KEY);
  });

  it('does not ask in sandbox', async () => {
    const r = await pay(cases[0]![1]);
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(1);
  });
});

describe('found by the reliability suite (fuzz-cli, full counts)', () => {
  it('an API key outside printable ASCII is refused before sending (undici refused the header, and pay retried it 4 times and printed a stack with --debug)', async () => {
    for (const key of ['sk_test_馧Ąxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'sk_test_caf\u00e9xxxxxxxxxxxxxxxxxxxxxxxxxxx', '馧Ą']) {
      const r = await pay(['features', 'list', `--api-key=${key}`, '--debug']);
      expect(r.code).toBe(3);
      expect(r.requests).toEqual([]);
      expect(r.stderr).toMatch(
        /the API key from --api-key is malformed \(it contains spaces, control characters or characters outside ASCII\)/,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('webhooks verify has no --no-header (its own --header would be negated by it): a usage error, not an internal one', async () => {
    const args = [
      'webhooks',
      'verify',
      '--payload',
      '-',
      '--secret',
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      '--header',
      'webhook-id: evt_1',
      '--id',
      'evt_1',
      '--timestamp',
      '1',
      '--signature',
      'v1,AAAA',
    ];
    for (const at of [4, args.length]) {
      const r = await pay([...args.slice(0, at), '--no-header', ...args.slice(at)], { stdin: '{}' });
      expect(r.stderr).not.toMatch(/unexpected/);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/unknown option '--no-header'/);
    }
    const ok = await pay(args, { stdin: '{}' });
    expect(ok.code).toBe(1);
    expect(ok.stderr).toMatch(/^invalid: timestamp is too old/);
  });
});

describe('API validation errors name the flag to fix', () => {
  const problem = (errors: Array<{ field: string; message: string }>) => () => ({
    status: 422,
    body: {
      type: 'https://pay.dev/problems/validation_error',
      title: 'Validation failed',
      status: 422,
      detail: `${errors.length} fields are invalid`,
      code: 'validation_error',
      request_id: 'req_1',
      errors,
    },
    headers: { 'content-type': 'application/problem+json', 'request-id': 'req_1' },
  });

  it("maps body fields back through the verb's flags", async () => {
    const r = await pay(['transfers', 'send', '--from', ACC, '--to', EA, '--amount', '5', '--currency', 'USD'], {
      respond: problem([
        { field: 'source_account_id', message: 'no such account' },
        { field: 'destination_id', message: 'is removed' },
        { field: 'metadata', message: 'unknown field' },
      ]),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: HTTP 422 validation_error: 3 fields are invalid');
    expect(r.stderr).toContain('  source_account_id: no such account (--from)\n');
    expect(r.stderr).toContain('  destination_id: is removed (--to)\n');
    expect(r.stderr).toContain('  metadata: unknown field (--data)\n');
  });

  it('maps nested fields and the positional', async () => {
    const r = await pay(
      [
        'collections',
        'create',
        '--account',
        ACC,
        '--amount',
        '5',
        '--currency',
        'KES',
        '--method',
        'mobile_money',
        '--mobile-phone',
        '+254712345678',
        '--mobile-provider',
        'mtn',
      ],
      {
        respond: problem([{ field: 'mobile_money.provider', message: 'not available in KE' }]),
      },
    );
    expect(r.stderr).toContain('  mobile_money.provider: not available in KE (--mobile-provider)\n');
    const k = await pay(['kyc-legacy', 'verify', CUS], { respond: problem([{ field: 'customer_id', message: 'no such customer' }]) });
    expect(k.stderr).toContain('  customer_id: no such customer (<customer-id>)\n');
  });

  it('carries the flag in --json errors', async () => {
    const r = await pay(['fx', 'quote', '--from', 'USD', '--to', 'EUR', '--amount', '5', '--json'], {
      respond: problem([{ field: 'source_currency', message: 'not supported' }]),
    });
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr) as { error: { errors: Array<{ field: string; flag: string }> } };
    expect(err.error.errors[0]).toMatchObject({ field: 'source_currency', flag: '--from' });
  });
});

describe('output', () => {
  const transfer = {
    id: 'tr_0123456789abcdefghijklmn',
    object: 'transfer',
    source_account_id: ACC,
    destination_id: EA,
    amount: '10.50',
    currency: 'USD',
    status: 'pending',
    created_at: '2026-01-02T03:04:05.678Z',
  };

  it('a create on a terminal: the get view on stdout (every field, nothing hidden), ✓ on stderr', async () => {
    const r = await pay(['transfers', 'send', '--from', ACC, '--to', EA, '--amount', '10.50', '--currency', 'USD'], {
      tty: true,
      respond: () => ({ status: 201, body: transfer }),
    });
    // Each field on its own line, as transfers get shows it; no one-row table, no "Hidden to fit" note.
    for (const key of Object.keys(transfer)) expect(r.stdout).toMatch(new RegExp(`^${key}\\s+\\S`, 'm'));
    expect(r.stdout).toMatch(/^amount\s+10\.50 USD$/m);
    expect(r.stdout).not.toMatch(/^ID\s+FROM/m);
    expect(r.stderr).toBe(`✓ Created transfer ${transfer.id}\n`);
    // Machine formats are unchanged: the object as returned.
    const json = await pay(['transfers', 'send', '--from', ACC, '--to', EA, '--amount', '10.50', '--currency', 'USD', '--json'], {
      tty: true,
      respond: () => ({ status: 201, body: transfer }),
    });
    expect(JSON.parse(json.stdout)).toEqual(transfer);
  });

  it('features activate names the feature and the customer, not the customer as the feature', async () => {
    const status = {
      object: 'feature_status',
      customer_id: CUS,
      feature: 'cards',
      eligible: true,
      active: true,
      reasons: [],
      activated_at: '2026-01-02T03:04:05.678Z',
    };
    // The status read first said inactive: this run activated it.
    const inactive = { ...status, active: false, activated_at: null };
    const r = await pay(['features', 'activate', CUS, '--feature', 'cards'], {
      tty: true,
      respond: (req) => ({ status: 200, body: req.method === 'GET' ? inactive : status }),
    });
    expect(r.stderr).toBe(`✓ Activated cards for ${CUS}\n`);
    expect(r.stdout).toMatch(/^feature\s+cards$/m);
    expect(r.stdout).toMatch(new RegExp(`^customer_id\\s+${CUS}$`, 'm'));
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      `GET customers/${CUS}/features/cards`,
      `POST customers/${CUS}/features/cards/activate`,
    ]);
  });

  it('features activate off a terminal: one request, the activation (no ✓ line to word, so no read first)', async () => {
    const r = await pay(['features', 'activate', CUS, '--feature', 'cards'], {
      respond: () => ({ status: 200, body: { object: 'feature_status', customer_id: CUS, feature: 'cards', active: true } }),
    });
    expect(r.code).toBe(0);
    expect(r.requests.map((q) => q.method)).toEqual(['POST']);
  });

  it.each([
    // Active before: the service answered the same status again (the contract: unchanged when already active).
    [
      'active before',
      () => ({ status: 200, body: { feature: 'cards', customer_id: CUS, active: true } }),
      `✓ cards was already active for ${CUS}; nothing changed\n`,
    ],
    // Not read (the GET failed): only what the activation's answer says, that it is active now.
    [
      'the status not read',
      () => ({ status: 503, body: { type: 'about:blank', title: 'down', status: 503 } }),
      `✓ cards is active for ${CUS}\n`,
    ],
    ['the status not a FeatureStatus', () => ({ status: 200, body: { feature: 'cards' } }), `✓ cards is active for ${CUS}\n`],
  ])('features activate, %s: the ✓ line says what the answers say', async (_what, get, line) => {
    const after = {
      object: 'feature_status',
      customer_id: CUS,
      feature: 'cards',
      eligible: true,
      active: true,
      reasons: [],
      activated_at: '2026-01-02T03:04:05.678Z',
    };
    const r = await pay(['features', 'activate', CUS, '--feature', 'cards'], {
      tty: true,
      env: { PAY_MAX_RETRIES: '0' },
      respond: (req) => (req.method === 'GET' ? get() : { status: 200, body: after }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stderr
        .split('\n')
        .filter((l) => l.startsWith('✓'))
        .join('\n') + '\n',
    ).toBe(line);
    expect(r.requests.filter((q) => q.method === 'POST')).toHaveLength(1);
  });

  it('generated answers: the ✓ line names the object by its id, or by its noun field for the argument, escaped', async () => {
    const { default: fc } = await import('fast-check');
    // Text the service may send: printable, accents, and control characters and escapes.
    const text = fc.string({
      unit: fc.constantFrom('a', 'Z', '9', '_', 'é', ' ', '\u001b', '\u0007', '\n', ']', '\u009b'),
      minLength: 1,
      maxLength: 12,
    });
    await fc.assert(
      fc.asyncProperty(fc.option(text, { nil: undefined }), text, async (id, feature) => {
        const body = { object: 'feature_status', customer_id: CUS, feature, active: true, ...(id !== undefined ? { id } : {}) };
        // The status read first: inactive, so the line is the activation's.
        const r = await pay(['features', 'activate', CUS, '--feature', 'cards'], {
          tty: true,
          respond: (req) => ({ status: 200, body: req.method === 'GET' ? { ...body, active: false } : body }),
        });
        expect(r.code).toBe(0);
        // One line, nothing that drives the terminal.
        expect(r.stderr.endsWith('\n')).toBe(true);
        expect(r.stderr.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        expect(r.stderr.startsWith('✓ Activated ')).toBe(true);
        if (id === undefined) expect(r.stderr).toMatch(new RegExp(` for ${CUS}\\n$`));
        else expect(r.stderr).toMatch(/^✓ Activated feature /);
      }),
      { seed: 27, numRuns: 40 },
    );
  });

  it('an action on a terminal says what happened', async () => {
    const r = await pay(['cards', 'freeze', 'card_0123456789abcdefghijklmn'], {
      tty: true,
      respond: () => ({ status: 200, body: { id: 'card_0123456789abcdefghijklmn', status: 'frozen' } }),
    });
    expect(r.stderr).toBe('✓ Froze card card_0123456789abcdefghijklmn (frozen)\n');
  });

  it('--json prints the object as returned; lists as an array', async () => {
    const one = await pay(['transfers', 'get', transfer.id, '--json'], { respond: () => ({ status: 200, body: transfer }) });
    expect(JSON.parse(one.stdout)).toEqual(transfer);
    const list = await pay(['transfers', 'list', '--status', 'pending', '--json'], {
      respond: () => ({ status: 200, body: { object: 'list', data: [transfer], has_more: false, next_cursor: null } }),
    });
    expect(JSON.parse(list.stdout)).toEqual([transfer]);
    expect(Object.fromEntries(list.requests[0]!.query)).toMatchObject({ status: 'pending' });
  });

  it('fx rates: the rates map in JSON, and one row per currency on a terminal', async () => {
    const rates = { object: 'fx_rates', base: 'USD', rates: { EUR: '0.92', GBP: '0.79' }, as_of: '2026-01-02T03:04:05.000Z' };
    const json = await pay(['fx', 'rates', '--json'], { respond: () => ({ status: 200, body: rates }) });
    expect(JSON.parse(json.stdout)).toEqual(rates);
    const table = await pay(['fx', 'rates'], { tty: true, respond: () => ({ status: 200, body: rates }) });
    expect(table.stdout).toMatch(/rates\.EUR\s+0\.92/);
    expect(table.stdout).toMatch(/rates\.GBP\s+0\.79/);
    expect(table.stderr).toBe('');
  });

  it('webhooks get: the event (payload folded), then each delivery attempt with its full URL and answer, escaped', async () => {
    const event = {
      id: 'evt_0123456789abcdefghijklmn',
      object: 'event',
      type: 'transfer.completed',
      created_at: '2026-01-02T03:04:05.000Z',
      data: { object: { id: transfer.id, status: 'completed', metadata: { order: '42', ref: 'x' } } },
      delivery: { status: 'failed', attempts: 2, last_response_code: 500 },
      attempts: [
        {
          id: 'whd_0123456789abcdefghijklmn',
          attempted_at: '2026-01-02T03:04:06.000Z',
          response_code: 500,
          duration_ms: 12,
          error: null,
          url: 'https://example.com/hook',
          response_excerpt: 'upstream \x1b[31mdown\x1b[0m\n',
        },
        {
          id: 'whd_abcdefghijklmn0123456789',
          attempted_at: '2026-01-02T03:04:11.000Z',
          response_code: null,
          duration_ms: 10000,
          error: 'timeout',
          url: 'https://example.com/hook',
        },
      ],
    };
    const r = await pay(['webhooks', 'get', event.id], { tty: true, respond: () => ({ status: 200, body: event }) });
    expect(r.stdout).toMatch(/type\s+transfer\.completed/);
    expect(r.stdout).toMatch(/data\.object\.status\s+completed/);
    expect(r.stdout).toMatch(/data\.object\.metadata\s+\{2 fields: order, ref\}/);
    expect(r.stdout).toContain('Delivery attempts (2)\n#1  2026-01-02 03:04:06Z  HTTP 500  12 ms  whd_0123456789abcdefghijklmn\n');
    expect(r.stdout).toContain('\n    url     https://example.com/hook\n    answer  upstream \\x1b[31mdown\\x1b[0m\\n\n');
    expect(r.stdout).toContain('#2  2026-01-02 03:04:11Z  no answer (timeout)  10000 ms  whd_abcdefghijklmn0123456789\n');
    expect(r.stdout).not.toContain('\x1b[31m');
    // Each attempt's time is in the view's zone, as the event's own times: one zone on the screen.
    const berlin = await pay(['webhooks', 'get', event.id], {
      tty: true,
      env: { TZ: 'Europe/Berlin' },
      respond: () => ({ status: 200, body: event }),
    });
    expect(berlin.stdout).toMatch(/created_at\s+2026-01-02 04:04:05\n/);
    expect(berlin.stdout).toContain('(times in Europe/Berlin)');
    expect(berlin.stdout).toContain('#1  2026-01-02 04:04:06  HTTP 500');
    expect(berlin.stdout).toContain('#2  2026-01-02 04:04:11  no answer (timeout)');
    const wide = await pay(['webhooks', 'get', event.id, '--wide'], { tty: true, respond: () => ({ status: 200, body: event }) });
    expect(wide.stdout).toMatch(/data\.object\.metadata\.order\s+42/);
    const json = await pay(['webhooks', 'get', event.id, '--json'], { respond: () => ({ status: 200, body: event }) });
    expect(JSON.parse(json.stdout)).toEqual(event);
  });

  it('webhooks list: a row per event with its delivery status', async () => {
    const event = {
      id: 'evt_0123456789abcdefghijklmn',
      type: 'card.frozen',
      created_at: '2026-01-02T03:04:05.000Z',
      delivery: { status: 'delivered', attempts: 1, last_response_code: 200 },
    };
    const r = await pay(['webhooks', 'list', '--status', 'delivered'], {
      respond: (req: Recorded) => ({
        status: 200,
        body: { object: 'list', data: req.path === 'webhooks/events' ? [event] : [], has_more: false, next_cursor: null },
      }),
    });
    expect(r.stdout).toBe(
      'id\ttype\tdelivery.status\tdelivery.attempts\tdelivery.last_response_code\tdelivery.last_attempt_at\tcreated_at\n' +
        'evt_0123456789abcdefghijklmn\tcard.frozen\tdelivered\t1\t200\t\t2026-01-02T03:04:05.000Z\n',
    );
  });

  it('webhooks resend posts to the resend operation', async () => {
    const r = await pay(['webhooks', 'resend', 'evt_0123456789abcdefghijklmn'], {
      respond: () => ({ status: 202, body: { id: 'evt_0123456789abcdefghijklmn' } }),
    });
    expect(r.code).toBe(0);
    expect(r.requests[0]).toMatchObject({ method: 'POST', path: 'webhooks/events/evt_0123456789abcdefghijklmn/resend' });
    expect(r.requests[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('external-accounts remove sends DELETE without a body', async () => {
    const r = await pay(['external-accounts', 'remove', EA], {
      tty: true,
      respond: () => ({ status: 200, body: { id: EA, status: 'removed' } }),
    });
    expect(r.requests[0]).toMatchObject({ method: 'DELETE', path: `external-accounts/${EA}`, body: undefined });
    expect(r.stderr).toBe(`✓ Removed external account ${EA} (removed)\n`);
  });
});
