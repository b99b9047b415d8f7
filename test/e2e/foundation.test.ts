// The built binary against a recording loopback server: the exact request, stdout, stderr and
// exit code, for the foundation commands and the HTTP rules of contract sections 4 and 6.
import { existsSync, statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { ADA_BODY, customerFlags } from '../helpers/fixtures.js';

const KEY = 'sk_test_Q7mZ2xV9pL4kR8sT1wY6bN3cD5fG0hJ2';
const LIVE_KEY = 'sk_live_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// The country as a user may type it (lower case): sent upper case.
const CUSTOMER_FLAGS = customerFlags({ '--country': 'gb' });
const SEED_BODY = ADA_BODY;
const ACCOUNT = {
  id: 'acc_0123456789abcdefghijklmn',
  object: 'account',
  customer_id: 'cus_0123456789abcdefghijklmn',
  currency: 'USD',
  type: 'checking',
  status: 'active',
  balance: { available: '10.50', pending: '0.00', currency: 'USD' },
  created_at: '2026-11-20T10:00:00.000Z',
};

let server: RecordingServer;
let env: Record<string, string>;

beforeAll(async () => {
  registerSecret(KEY, LIVE_KEY);
  server = await startRecordingServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  server.queue.length = 0;
  server.fallback = { status: 200, body: {} };
});

function envFor(extra: Record<string, string | undefined> = {}): Record<string, string> {
  env = cleanEnv({ PAY_BASE_URL: server.baseUrl, PAY_API_KEY: KEY, PAY_TENANT_ID: 'biz_42', ...extra });
  return env;
}

describe('customers create', () => {
  it('sends the seed body with every contract header and prints the created object', async () => {
    server.queue.push({ status: 201, body: { id: 'cus_0123456789abcdefghijklmn', ...SEED_BODY } });
    const r = await runPay(['customers', 'create', ...CUSTOMER_FLAGS, '--json'], { env: envFor() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'cus_0123456789abcdefghijklmn', ...SEED_BODY });
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/customers');
    expect(req.json).toEqual(SEED_BODY);
    expect(req.headers['api-key']).toBe(KEY);
    expect(req.headers['x-tenant-id']).toBe('biz_42');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^pay-cli\/\d+\.\d+\.\d+/);
    expect(req.headers['idempotency-key']).toMatch(UUID);
  });

  it('uses --idempotency-key when given', async () => {
    server.queue.push({ status: 201, body: { id: 'cus_0123456789abcdefghijklmn' } });
    const r = await runPay(['customers', 'create', ...CUSTOMER_FLAGS, '--idempotency-key', 'seed-ada-1', '--json'], { env: envFor() });
    expect(r.code).toBe(0);
    expect(server.requests[0]!.headers['idempotency-key']).toBe('seed-ada-1');
  });

  it('retries a 503 with the same Idempotency-Key and succeeds on the 201', async () => {
    server.queue.push({ status: 503, headers: { 'retry-after': '0' }, body: { code: 'service_unavailable', status: 503 } });
    server.queue.push({ status: 201, body: { id: 'cus_0123456789abcdefghijklmn', ...SEED_BODY } });
    const r = await runPay(['customers', 'create', ...CUSTOMER_FLAGS, '--json'], { env: envFor() });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    const [a, b] = server.requests;
    expect(a!.headers['idempotency-key']).toMatch(UUID);
    expect(b!.headers['idempotency-key']).toBe(a!.headers['idempotency-key']);
    expect(b!.body).toBe(a!.body);
  });

  it('exits 6 after retries of 5xx and names the idempotency key to retry with', async () => {
    server.fallback = { status: 500, body: { code: 'internal_error', status: 500, detail: 'boom' } };
    const r = await runPay(['customers', 'create', ...CUSTOMER_FLAGS, '--max-retries', '2'], { env: envFor() });
    expect(r.code).toBe(6);
    expect(server.requests).toHaveLength(3);
    const key = server.requests[0]!.headers['idempotency-key'] as string;
    expect(new Set(server.requests.map((q) => q.headers['idempotency-key']))).toEqual(new Set([key]));
    expect(r.stderr).toContain(`idempotency key ${key}`);
    expect(r.stderr).toMatch(/^error: HTTP 500 internal_error: boom after 3 attempts/m);
    expect(r.stdout).toBe('');
  });

  it('with no terminal, a missing field is exit 2 naming the flags, and nothing is sent', async () => {
    const r = await runPay(['customers', 'create', '--first-name', 'Ada', '--email', 'ada@example.com'], { env: envFor() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: missing required flags: --last-name, --phone, --type, --date-of-birth, --address-line1, --city, --country, --postal-code$/m,
    );
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [['--email', 'not-an-email'], /--email "not-an-email" must be an e-mail address/],
    [['--phone', '07700900123'], /--phone "07700900123" must be in international format/],
    [['--date-of-birth', '1990-02-30'], /--date-of-birth "1990-02-30" must be a real date/],
    [['--date-of-birth', '2999-01-01'], /must not be in the future/],
    [['--country', 'XX'], /--country "XX" must be an ISO 3166-1 alpha-2 country code/],
    [['--state', 'US-CA'], /--state "US-CA" must start with the country code GB-/],
  ])('refuses %j before sending (exit 2, one line)', async (bad, message) => {
    const args = [...CUSTOMER_FLAGS];
    args[args.indexOf(bad[0]!) + 1] = bad[1]!;
    const r = await runPay(['customers', 'create', ...args], { env: envFor() });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests).toHaveLength(0);
  });

  it('conflicting output flags or a bad --idempotency-key are exit 2 before the customer is created', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--json', '-o', 'tsv'], /conflicts with --output tsv/],
      [['--idempotency-key', 'bad key\u0001'], /^error: --idempotency-key must be/],
    ];
    for (const [extra, message] of cases) {
      const r = await runPay(['customers', 'create', ...CUSTOMER_FLAGS, ...extra], { env: envFor() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('malformed --data is exit 2 and sends nothing', async () => {
    const r = await runPay(['customers', 'create', '--data', '{"first_name": "Ada",'], { env: envFor() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --data is not valid JSON/);
    expect(server.requests).toHaveLength(0);
  });

  it('--data @- merges under the flags', async () => {
    server.queue.push({ status: 201, body: { id: 'cus_0123456789abcdefghijklmn' } });
    const { first_name: _f, ...rest } = SEED_BODY;
    const r = await runPay(['customers', 'create', '--data', '@-', '--first-name', 'Grace', '--json'], {
      env: envFor(),
      stdin: JSON.stringify({ ...rest, first_name: 'Ada' }),
    });
    expect(r.code).toBe(0);
    expect(server.requests[0]!.json).toEqual({ ...SEED_BODY, first_name: 'Grace' });
  });

  it('shows API field errors one line per field with the flag to fix', async () => {
    server.queue.push({
      status: 422,
      body: {
        status: 422,
        code: 'validation_error',
        detail: '1 field is invalid',
        errors: [{ field: 'address.postal_code', code: 'invalid', message: 'is not a postal code' }],
      },
    });
    const r = await runPay(['customers', 'create', ...CUSTOMER_FLAGS], { env: envFor() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: HTTP 422 validation_error: 1 field is invalid/m);
    expect(r.stderr).toMatch(/^ {2}address\.postal_code: is not a postal code \(--postal-code\)$/m);
  });
});

describe('global flags before the command path', () => {
  it('--json, -o, --fields and --idempotency-key work before the group as after the verb', async () => {
    server.fallback = { status: 200, body: ACCOUNT };
    const json = await runPay(['--json', '--fields', 'id,balance.available', 'accounts', 'get', ACCOUNT.id], { env: envFor() });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ id: ACCOUNT.id, balance: { available: '10.50' } });
    const tsv = await runPay(['-o', 'tsv', '--fields=id', 'accounts', 'get', ACCOUNT.id], { env: envFor() });
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsv.stdout).toBe(`id\n${ACCOUNT.id}\n`);
    server.fallback = { status: 201, body: { id: 'cus_0123456789abcdefghijklmn', ...SEED_BODY } };
    const created = await runPay(['--idempotency-key', 'early-1', '--json', 'customers', 'create', ...CUSTOMER_FLAGS], { env: envFor() });
    expect(created.code, created.stderr).toBe(0);
    expect(server.requests.at(-1)!.headers['idempotency-key']).toBe('early-1');
  });

  it('before a command without the flag: the same usage error as after it', async () => {
    const r = await runPay(['--yes', 'customers', 'list'], { env: envFor() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--yes'/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('HTTP rules and exit codes', () => {
  it('429 with Retry-After is retried; persistent 429 is exit 7', async () => {
    server.queue.push({ status: 429, headers: { 'retry-after': '1' }, body: { code: 'rate_limited', status: 429 } });
    server.queue.push({ status: 200, body: ACCOUNT });
    const started = Date.now();
    const ok = await runPay(['accounts', 'get', ACCOUNT.id, '--json'], { env: envFor() });
    expect(ok.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(server.requests).toHaveLength(2);

    server.requests.length = 0;
    server.fallback = { status: 429, headers: { 'retry-after': '0' }, body: { code: 'rate_limited', status: 429, detail: 'slow down' } };
    const r = await runPay(['accounts', 'get', ACCOUNT.id, '--max-retries', '1'], { env: envFor() });
    expect(r.code).toBe(7);
    expect(server.requests).toHaveLength(2);
    expect(r.stderr).toMatch(/^error: HTTP 429 rate_limited: slow down after 2 attempts/m);
  });

  it('401 is exit 3, names where the key came from (here PAY_API_KEY), never the key', async () => {
    server.fallback = { status: 401, body: { code: 'unauthorized', status: 401 } };
    const r = await runPay(['accounts', 'list'], { env: envFor() });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: HTTP 401 unauthorized: the API key from PAY_API_KEY is missing or invalid/m);
    expect(r.stderr).toMatch(/^hint: check PAY_API_KEY \(it wins over the profile; unset it to use profile "default" \(sandbox\)\)$/m);
    expect(r.stderr).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('404 is exit 4 with the request id', async () => {
    server.fallback = { status: 404, body: { code: 'not_found', status: 404, detail: 'no such customer', request_id: 'req_abc' } };
    const r = await runPay(['customers', 'get', 'cus_0123456789abcdefghijklmn'], { env: envFor() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: HTTP 404 not_found: no such customer \(request req_test\d+\)$/m);
  });

  it('409 is exit 5; 422 idempotency_key_reused is exit 5', async () => {
    server.queue.push({ status: 409, body: { code: 'invalid_state', status: 409, detail: 'account is closed' } });
    const closed = await runPay(['accounts', 'close', ACCOUNT.id, '--yes'], { env: envFor() });
    expect([closed.code, closed.stdout]).toEqual([5, '']);
    expect(closed.stderr).toMatch(/^error: HTTP 409 invalid_state: account is closed/);
    expect(closed.stderr.trim().split('\n')).toHaveLength(1);
    server.queue.push({ status: 422, body: { code: 'idempotency_key_reused', status: 422, detail: 'other body' } });
    const reused = await runPay(['customers', 'create', ...CUSTOMER_FLAGS, '--idempotency-key', 'seed-cus-1'], { env: envFor() });
    expect([reused.code, reused.stdout]).toEqual([5, '']);
    expect(reused.stderr).toMatch(/^error: HTTP 422 idempotency_key_reused: other body/);
    // Says which key, so that the user can tell a re-run from a clash.
    expect(reused.stderr).toContain('seed-cus-1');
  });

  it('a refused connection is exit 6 after retries', async () => {
    const r = await runPay(['accounts', 'list', '--max-retries', '1'], { env: envFor({ PAY_BASE_URL: 'http://127.0.0.1:9/v1/' }) });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^error: GET \/v1\/accounts failed: connection refused after 2 attempts$/m);
  });

  it('refuses non-loopback http:// before any request (exit 2)', async () => {
    const r = await runPay(['accounts', 'list', '--base-url', 'http://api.example.com/v1/'], { env: envFor() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: refusing plain http:\/\/ to api\.example\.com/);
  });

  it('accounts list without a tenant is exit 2 and sends nothing', async () => {
    const r = await runPay(['accounts', 'list'], { env: envFor({ PAY_TENANT_ID: undefined }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: pay accounts list needs a tenant id \(x-tenant-id\)$/m);
    expect(server.requests).toHaveLength(0);
  });

  it('no key configured is exit 3 with a hint to log in', async () => {
    const r = await runPay(['customers', 'list'], { env: envFor({ PAY_API_KEY: undefined }) });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: no API key for profile "default" \(sandbox\)$/m);
    expect(r.stderr).toMatch(/^hint: run: pay login/m);
  });

  it('refuses a sandbox key with --live and a public key as secret key, before sending', async () => {
    const a = await runPay(['customers', 'list', '--live'], { env: envFor() });
    expect(a.code).toBe(3);
    expect(a.stderr).toMatch(/is a sandbox key \(sk_test_…hJ2\)|is a sandbox key \(sk_test_…/);
    const b = await runPay(['customers', 'list'], { env: envFor({ PAY_API_KEY: 'pk_test_abcdefghijklmnopqrstuvwxyz012345' }) });
    expect(b.code).toBe(3);
    expect(b.stderr).toMatch(/public key/);
    expect(server.requests).toHaveLength(0);
  });

  it('unknown flag is exit 2 with one error line', async () => {
    const r = await runPay(['customers', 'list', '--bogus'], { env: envFor() });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '--bogus'\nhint: add --help for usage\n");
  });

  it('--json errors are one JSON object on stderr and stdout stays empty', async () => {
    server.fallback = { status: 404, body: { code: 'not_found', status: 404, detail: 'gone' } };
    const r = await runPay(['customers', 'get', 'cus_0123456789abcdefghijklmn', '--json'], { env: envFor() });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr) as { error: Record<string, unknown> };
    expect(err.error).toMatchObject({ code: 'not_found', exit_code: 4, status: 404 });
  });
});

describe('lists and output', () => {
  const page = (ids: string[], next: string | null) => ({
    status: 200,
    body: { object: 'list', data: ids.map((id) => ({ ...ACCOUNT, id })), has_more: next !== null, next_cursor: next },
  });

  it('prints tsv off a terminal with a header, and --no-header drops it', async () => {
    server.queue.push(page([ACCOUNT.id], null), page([ACCOUNT.id], null));
    const r = await runPay(['accounts', 'list'], { env: envFor() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]!.split('\t')).toEqual(['id', 'customer_id', 'type', 'status', 'balance.available', 'balance.pending', 'created_at']);
    expect(lines[1]).toBe(`${ACCOUNT.id}\t${ACCOUNT.customer_id}\tchecking\tactive\t10.50\t0.00\t2026-11-20T10:00:00.000Z`);
    const n = await runPay(['accounts', 'list', '--no-header', '--fields', 'id,balance.available'], { env: envFor() });
    expect(n.stdout).toBe(`${ACCOUNT.id}\t10.50\n`);
    expect(server.requests[0]!.query).toEqual({ limit: '20' });
  });

  it('--all follows cursors; json is one array; ndjson one object per line', async () => {
    const ids = ['acc_aaaaaaaaaaaaaaaaaaaaaaaa', 'acc_bbbbbbbbbbbbbbbbbbbbbbbb', 'acc_cccccccccccccccccccccccc'];
    server.queue.push(page(ids.slice(0, 2), 'cur_2'), page(ids.slice(2), null));
    const r = await runPay(['accounts', 'list', '--all', '--json'], { env: envFor() });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ id: string }>).map((a) => a.id)).toEqual(ids);
    expect(server.requests.map((q) => q.query.cursor)).toEqual([undefined, 'cur_2']);

    server.queue.push(page(ids.slice(0, 2), 'cur_2'), page(ids.slice(2), null));
    const nd = await runPay(['accounts', 'list', '--all', '-o', 'ndjson', '--fields', 'id,balance.available'], { env: envFor() });
    expect(
      nd.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(ids.map((id) => ({ id, balance: { available: '10.50' } })));
  });

  it('an empty list prints [] with --json, nothing otherwise, a note on stderr, exit 0', async () => {
    server.fallback = page([], null);
    const j = await runPay(['customers', 'list', '--json'], { env: envFor() });
    expect([j.code, j.stdout]).toEqual([0, '[]\n']);
    const t = await runPay(['customers', 'list'], { env: envFor() });
    expect([t.code, t.stdout, t.stderr]).toEqual([0, '', 'No customers found.\n']);
  });

  it('--debug logs requests and responses with the key masked', async () => {
    server.queue.push({ status: 201, body: { id: 'cus_0123456789abcdefghijklmn' } });
    const r = await runPay(['customers', 'create', ...CUSTOMER_FLAGS, '--debug', '--json'], { env: envFor() });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^> POST http:\/\/127\.0\.0\.1:\d+\/v1\/customers$/m);
    expect(r.stderr).toMatch(/^> api-key: sk_test_…0hJ2$/m);
    expect(r.stderr).toMatch(/^< 201 Created/m);
    expect(r.stderr).not.toContain(KEY);
    expect(r.stdout).not.toContain(KEY);
  });
});

describe('profiles and precedence', () => {
  it('login --with-key stores a 0600 file in a 0700 folder and never prints the key', async () => {
    const dir = tempDir('pay-cfg-');
    const e = cleanEnv({ PAY_CONFIG_DIR: dir });
    const r = await runPay(['login', '--with-key', '--tenant', 'biz_1', '--base-url', server.baseUrl], { env: e, stdin: `${KEY}\n` });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^✓ Logged in: profile "default" \(sandbox\), secret key sk_test_…[A-Za-z0-9]{1,4}, tenant biz_1$/m);
    expect(r.stderr + r.stdout).not.toContain(KEY);
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.sandbox.secret_key).toBe(KEY);

    const live = await runPay(['login', '--with-key', '--live', '-p', 'acme'], { env: e, stdin: LIVE_KEY });
    expect(live.code).toBe(0);
    const list = await runPay(['profiles', 'list', '--json'], { env: e });
    const profiles = JSON.parse(list.stdout) as Array<Record<string, any>>;
    expect(profiles.map((p) => [p.name, p.current])).toEqual([
      ['default', true],
      ['acme', false],
    ]);
    expect(list.stdout).not.toContain(KEY);
    expect(list.stdout).not.toContain(LIVE_KEY);
    expect(profiles[1]!.live.secret_key).toMatch(/^sk_live_…[A-Za-z0-9]{4}$/);

    const set = await runPay(['profiles', 'set', 'tenant_id', 'biz_9', '-p', 'acme'], { env: e });
    expect(set.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bad = await runPay(['profiles', 'set', 'base_url', 'http://evil.example.com/v1/'], { env: e });
    expect(bad.code).toBe(2);
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('a key piped to login with the wrong mode is refused (exit 2) and nothing is stored', async () => {
    const dir = tempDir('pay-cfg-');
    const r = await runPay(['login', '--with-key'], { env: cleanEnv({ PAY_CONFIG_DIR: dir }), stdin: LIVE_KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is a live key/);
    expect(r.stderr).not.toContain(LIVE_KEY);
    // A refused login writes nothing: no config.json at all (reading never writes).
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('flag beats env beats profile for the tenant and the base URL', async () => {
    const dir = tempDir('pay-cfg-');
    const e = cleanEnv({ PAY_CONFIG_DIR: dir });
    await runPay(['login', '--with-key', '--tenant', 'from_profile', '--base-url', server.baseUrl], { env: e, stdin: KEY });
    server.fallback = { status: 200, body: { object: 'list', data: [], has_more: false, next_cursor: null } };
    await runPay(['accounts', 'list'], { env: e });
    await runPay(['accounts', 'list'], { env: { ...e, PAY_TENANT_ID: 'from_env' } });
    await runPay(['accounts', 'list', '--tenant', 'from_flag'], { env: { ...e, PAY_TENANT_ID: 'from_env' } });
    expect(server.requests.map((q) => q.headers['x-tenant-id'])).toEqual(['from_profile', 'from_env', 'from_flag']);

    // The base URL: each of three servers gets exactly the requests sent its way.
    const fromEnv = await startRecordingServer({ status: 200, body: { object: 'list', data: [], has_more: false, next_cursor: null } });
    const fromFlag = await startRecordingServer({ status: 200, body: { object: 'list', data: [], has_more: false, next_cursor: null } });
    try {
      server.requests.length = 0;
      expect((await runPay(['accounts', 'list'], { env: { ...e, PAY_BASE_URL: fromEnv.baseUrl } })).code).toBe(0);
      expect(
        (await runPay(['accounts', 'list', '--base-url', fromFlag.baseUrl], { env: { ...e, PAY_BASE_URL: fromEnv.baseUrl } })).code,
      ).toBe(0);
      expect((await runPay(['accounts', 'list'], { env: e })).code).toBe(0);
      expect([server.requests.length, fromEnv.requests.length, fromFlag.requests.length]).toEqual([1, 1, 1]);
    } finally {
      await fromEnv.close();
      await fromFlag.close();
    }
  }, 120_000); // several pay processes: a hang guard, not a timing window
});

describe('pay api', () => {
  it('sends a raw GET with query fields and prints the body', async () => {
    server.queue.push({ status: 200, body: { object: 'list', data: [], has_more: false, next_cursor: null } });
    const r = await runPay(['api', 'get', 'transactions', '-F', 'account_id=acc_0123456789abcdefghijklmn'], { env: envFor() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    expect(server.requests[0]).toMatchObject({
      method: 'GET',
      path: '/v1/transactions',
      query: { account_id: 'acc_0123456789abcdefghijklmn' },
    });
  });

  it('POSTs with an Idempotency-Key and nested -F fields', async () => {
    server.queue.push({ status: 201, body: { id: 'x' } });
    const r = await runPay(['api', 'POST', '/customers', '-F', 'first_name=Ada', '-F', 'address.country=GB'], { env: envFor() });
    expect(r.code).toBe(0);
    expect(server.requests[0]!.json).toEqual({ first_name: 'Ada', address: { country: 'GB' } });
    expect(server.requests[0]!.headers['idempotency-key']).toMatch(UUID);
  });

  it('refuses an absolute URL and an unknown method (exit 2)', async () => {
    expect((await runPay(['api', 'GET', 'https://evil.example.com/x'], { env: envFor() })).code).toBe(2);
    expect((await runPay(['api', 'FETCH', 'customers'], { env: envFor() })).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});
