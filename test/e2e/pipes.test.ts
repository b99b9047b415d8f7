// Scripts and pipelines (issue 15), the built pay against a real emulator: --jq prints what jq -r
// prints (the system jq is the oracle), sees every page with --all and refuses a bad filter before
// any request; --fields is checked before sending; -o csv; --dry-run sends nothing (bulk and live
// included); a replayed create says so on stderr; and the README's promises: output flags before
// `pay api`, --paginate on one object, a field error naming the body field, a 401 naming where the
// key came from, times in get views, close suggestions.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAY_BIN, tempDir } from '../helpers/run-pay.js';
import { customer, customerBody, ok, startWorld, TABLE_TIME, type World } from './groups/helpers.js';

let w: World;
const hasJq = spawnSync('sh', ['-c', 'command -v jq'], { stdio: 'ignore' }).status === 0;

beforeAll(async () => {
  w = await startWorld();
  // Text that needs CSV quoting, and a formula (the emulator refuses control characters: the unit tests cover line breaks).
  await customer(w, { first_name: 'Ada, "the first"', last_name: 'Lovelace', address: { ...customerBody().address, city: '=cmd|calc' } });
  for (let i = 0; i < 4; i++) await customer(w);
});
afterAll(() => w?.stop());

describe('--jq', () => {
  const filters = [
    '.[].email',
    '.[0]',
    'map({id, city: .address.city})',
    '[.[] | select(.first_name | test(","))] | length',
    '.[] | .address | keys',
    'map(.created_at) | sort | first',
    '.[].last_name',
    'length',
  ];

  it.skipIf(!hasJq && !process.env.CI).each(filters)('pay customers list --all --jq %j prints what jq -r prints', async (filter) => {
    const json = ok(await w.pay(['customers', 'list', '--all', '--json']));
    const jq = spawnSync('jq', ['-r', filter], { input: json, encoding: 'utf8' });
    expect(jq.status).toBe(0);
    const r = await w.pay(['customers', 'list', '--all', '--jq', filter]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: jq.stdout, stderr: '' });
  });

  it('the filter sees the whole list with --all (every page), and a get as its object', async () => {
    const total = ok(await w.pay(['customers', 'list', '--all', '--limit', '2', '--jq', 'length']));
    expect(Number(total)).toBeGreaterThanOrEqual(5);
    const id = ok(await w.pay(['customers', 'list', '--limit', '1', '--jq', '.[0].id'])).trim();
    expect(ok(await w.pay(['customers', 'get', id, '--jq', '.object']))).toBe('customer\n');
  });

  it('a filter jq refuses is exit 2 naming --jq, before any request', async () => {
    const mark = w.mark();
    const r = await w.pay(['customers', 'list', '--jq', '.[] | select(']);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^error: --jq: syntax error, unexpected end of file at line 1, column \d+$/m);
    const post = await w.pay(['customers', 'create', '--data', JSON.stringify(customerBody()), '--jq', 'nope(1)']);
    expect(post.code).toBe(2);
    expect(post.stderr).toMatch(/^error: --jq: nope\/1 is not defined/m);
    expect(w.since(mark)).toEqual([]);
  });

  it('a filter that fails on the data is exit 1 after what it printed', async () => {
    const r = await w.pay(['customers', 'list', '--jq', '.[0].id, (.[0].first_name | .x)']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^cus_[0-9a-z]{24}\n$/);
    expect(r.stderr).toMatch(/^error: --jq: Cannot index string with string \("x"\)$/m);
  });

  it('works with pay api, before the command too, and with --paginate (the whole array)', async () => {
    expect(ok(await w.pay(['--jq', '.object', 'api', 'GET', 'customers']))).toBe('list\n');
    const n = ok(await w.pay(['api', 'GET', 'customers', '-F', 'limit=2', '--paginate', '--jq', 'length']));
    expect(Number(n)).toBeGreaterThanOrEqual(5);
  });
});

describe('--fields', () => {
  it('an unknown name is exit 2 listing the valid fields, nothing sent; bare --fields lists them', async () => {
    const mark = w.mark();
    const r = await w.pay(['customers', 'list', '--fields', 'bogus', '--json']);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(JSON.parse(r.stderr).error.message).toMatch(/^--fields: unknown field "bogus" for pay customers list \(valid: id, object, /);
    const list = ok(await w.pay(['accounts', 'list', '--fields']));
    expect(list.split('\n')).toEqual(expect.arrayContaining(['id', 'balance.available', 'currency']));
    expect(w.since(mark)).toEqual([]);
  });
});

describe('-o csv', () => {
  it('RFC 4180 with --fields and --no-header; formulas quoted away; a get too', async () => {
    const out = ok(await w.pay(['customers', 'list', '--all', '-o', 'csv', '--fields', 'id,first_name,last_name,address.city']));
    const [head, ...rest] = out.split('\r\n');
    expect(head).toBe('id,first_name,last_name,address.city');
    expect(out).toContain(`,"Ada, ""the first""",Lovelace,'=cmd|calc\r\n`);
    expect(rest.at(-1)).toBe('');
    const bare = ok(await w.pay(['customers', 'list', '--limit', '1', '-o', 'csv', '--fields', 'id', '--no-header']));
    expect(bare).toMatch(/^cus_[0-9a-z]{24}\r\n$/);
    const id = bare.trim();
    const one = ok(await w.pay(['customers', 'get', id, '-o', 'csv', '--fields', 'id,email']));
    expect(one).toMatch(new RegExp(`^id,email\\r\\n${id},\\S+@example\\.com\\r\\n$`));
  });
});

describe('--dry-run', () => {
  it('prints the request (key masked), sends nothing, exit 0; --json prints it as JSON', async () => {
    const mark = w.mark();
    const id = ok(await w.pay(['customers', 'list', '--limit', '1', '--fields', 'id', '--no-header'])).trim();
    const r = await w.pay(['accounts', 'create', '--customer', id, '--currency', 'USD', '--nickname', 'Ops', '--dry-run']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`POST ${w.emu.baseUrl}accounts`);
    expect(lines).toContain(`api-key: sk_test_…${w.emu.keys.sandbox.secret.slice(-4)}`);
    expect(lines).toContain(`x-tenant-id: ${w.emu.tenantId}`);
    expect(lines.some((l) => /^idempotency-key: [0-9a-f-]{36}$/.test(l))).toBe(true);
    expect(r.stdout).toContain(`\n\n{\n  "customer_id": "${id}",\n  "currency": "USD",\n  "nickname": "Ops"\n}\n`);
    expect(r.stderr).toBe('dry run: nothing was sent\n');
    const j = await w.pay([
      'accounts',
      'create',
      '--customer',
      id,
      '--currency',
      'USD',
      '--dry-run',
      '--json',
      '--idempotency-key',
      'my-key-1',
    ]);
    const req = JSON.parse(ok({ ...j, stderr: '' })) as { method: string; url: string; headers: Record<string, string>; body: unknown };
    expect(req).toMatchObject({ method: 'POST', url: `${w.emu.baseUrl}accounts`, body: { customer_id: id, currency: 'USD' } });
    expect(req.headers['idempotency-key']).toBe('my-key-1');
    expect(w.since(mark).filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('live: no confirmation is asked (nothing moves), and nothing is sent', async () => {
    const mark = w.mark();
    const r = await w.pay(['accounts', 'close', 'acc_0123456789abcdefghijklmn', '--live', '--dry-run'], {
      env: { PAY_API_KEY: w.emu.keys.live.secret },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^POST \S+\/accounts\/acc_0123456789abcdefghijklmn\/close\n/);
    expect(r.stdout).toContain(`api-key: sk_live_…${w.emu.keys.live.secret.slice(-4)}`);
    expect(w.since(mark)).toEqual([]);
  });

  it('bulk --from-file: every row, in order; invalid rows on stderr; nothing sent', async () => {
    const mark = w.mark();
    const id = ok(await w.pay(['customers', 'list', '--limit', '1', '--fields', 'id', '--no-header'])).trim();
    const dir = tempDir('pay-pipes-');
    const file = join(dir, 'accounts.ndjson');
    writeFileSync(file, ['EUR', 'XXX', 'GBP'].map((c) => JSON.stringify({ customer_id: id, currency: c })).join('\n'));
    const r = await w.pay(['accounts', 'create', '--from-file', file, '--dry-run', '-o', 'ndjson']);
    expect(r.code).toBe(1);
    const shown = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { body: { currency: string } });
    expect(shown.map((s) => s.body.currency)).toEqual(['EUR', 'GBP']);
    expect(r.stderr).toMatch(/^line 2: currency/m);
    expect(r.stderr).toMatch(/^accounts create: 3 rows: 2 requests shown, 0 skipped, 1 failed; dry run: nothing was sent$/m);
    expect(w.since(mark).filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('pay api: a POST is shown, not sent; --dry-run on a GET is exit 2', async () => {
    const mark = w.mark();
    const r = await w.pay(['api', 'POST', 'customers', '-F', 'first_name=Ada', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^POST \S+\/customers\n/);
    expect(r.stdout).toContain('\n{\n  "first_name": "Ada"\n}\n');
    const get = await w.pay(['api', 'GET', 'customers', '--dry-run']);
    expect(get.code).toBe(2);
    expect(get.stderr).toMatch(/^error: --dry-run shows requests that change something/);
    expect(w.since(mark)).toEqual([]);
  });
});

describe('honest replays', () => {
  it('a replayed create: the same stdout, and a note naming the key and how to see the object now', async () => {
    const args = ['customers', 'create', '--data', JSON.stringify(customerBody()), '--idempotency-key', 'pipes-replay-1', '--json'];
    const first = await w.pay(args);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const again = await w.pay(args);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    const id = (JSON.parse(first.stdout) as { id: string }).id;
    expect(again.stderr).toBe(
      `note: replayed: idempotency key pipes-replay-1 was used before, so the service answered with what it stored for that first POST (${id}); the object may have changed since: see it now with pay customers get ${id}\n`,
    );
  });
});

describe('what an outside tester broke', () => {
  it('--jq streams: `| head -2` ends an endless filter at once, with its first values', async () => {
    const run = (filter: string) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn('sh', ['-c', `"${process.execPath}" "${PAY_BIN}" customers list --jq '${filter}' | head -2`], { env: w.env });
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        // A hang guard only: it ends in well under a second when pay streams.
        const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.on('close', (code) => (clearTimeout(guard), resolve({ code, stdout })));
      });
    expect(await run('repeat(1)')).toEqual({ code: 0, stdout: '1\n1\n' });
    expect(await run('range(1e12) | {n: .}')).toEqual({ code: 0, stdout: '{\n  "n": 0\n' });
  });

  it('--jq with -o ndjson is a usage error in text, not JSON', async () => {
    const r = await w.pay(['customers', 'list', '-o', 'ndjson', '--jq', '.']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --jq filters JSON: it cannot be used with --output ndjson (drop -o, or use -o json)\n');
  });

  it('a prefix or a one-letter typo of a command, a subcommand, an option or a help topic is suggested', async () => {
    const hint = async (args: string[]) => /^hint: (.*)$/m.exec((await w.pay(args)).stderr)?.[1];
    expect(await hint(['cust'])).toBe('did you mean customers? (add --help for usage)');
    expect(await hint(['customers', 'l'])).toBe('did you mean list? (add --help for usage)');
    expect(await hint(['cards', 'fr'])).toBe('did you mean freeze? (add --help for usage)');
    expect(await hint(['customers', 'list', '--al'])).toBe('did you mean --all? (add --help for usage)');
    expect(await hint(['help', 'enviroment'])).toMatch(/^did you mean environment\? /);
    expect(await hint(['help', 'exit-code'])).toMatch(/^did you mean exit-codes\? /);
  });

  it('a value flag before the command that took the command as its value says so', async () => {
    const r = await w.pay(['--fields', 'customers', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: --fields took "customers" as its value, so the command was read from the words after it (unknown command \'list\')\n' +
        'hint: give --fields its own value before the command (pay --fields <value> customers …), or write it after the command\n',
    );
  });

  it('a replayed refusal gets the replay note; the error names the key as a replay, and a new key is needed', async () => {
    const acc = ok(await w.pay(['accounts', 'create', '--customer', await customer(w), '--currency', 'USD', '--jq', '.id'])).trim();
    const args = [
      'transfers',
      'send',
      '--from',
      acc,
      '--to',
      'acc_0123456789abcdefghijklmn',
      '--amount',
      '1.00',
      '--currency',
      'USD',
      '--idempotency-key',
      'pipes-refused-1',
    ];
    const first = await w.pay(args);
    expect(first.code).toBe(4);
    expect(first.stderr).not.toContain('note:');
    const again = await w.pay(args);
    expect(again.code).toBe(4);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      /^note: replayed: idempotency key pipes-refused-1 was used before, so the service answered with what it stored for that first POST: a refusal \(HTTP 404 not_found\), not a new attempt; the state may have changed since, but this key only replays that answer: a new idempotency key is needed to try again$/m,
    );
    expect(again.stderr).toMatch(/^error: HTTP 404 not_found: .*\(request req_\w+, replayed for idempotency key pipes-refused-1\)$/m);
  });

  it("a replayed kyc verify's note names pay kyc status, which works", async () => {
    const cus = await customer(w);
    const args = ['kyc', 'verify', cus, '--idempotency-key', `pipes-kyc-${cus}`, '--json'];
    ok(await w.pay(args));
    const again = await w.pay(args);
    expect(again.code).toBe(0);
    const see = /see it now with (pay .*)$/m.exec(again.stderr)?.[1];
    expect(see).toBe(`pay kyc status ${cus}`);
    const now = await w.pay([...see!.split(' ').slice(1), '--jq', '.customer_id']);
    expect(ok(now)).toBe(`${cus}\n`);
  });
});

describe('the README promises', () => {
  it('pay --json api GET customers works; --paginate on a single object prints it', async () => {
    const list = JSON.parse(ok(await w.pay(['--json', 'api', 'GET', 'customers']))) as { object: string };
    expect(list.object).toBe('list');
    const id = ok(await w.pay(['customers', 'list', '--limit', '1', '--fields', 'id', '--no-header'])).trim();
    const one = JSON.parse(ok(await w.pay(['api', 'GET', `customers/${id}`, '--paginate']))) as { id: string };
    expect(one.id).toBe(id);
  });

  it('a pay api field error names the body field, not a flag pay api does not have', async () => {
    const r = await w.pay(['api', 'POST', 'customers', '-F', 'first_name=Ada']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ {2}email: .* \(-F email=…, or in --data\)$/m);
    expect(r.stderr).not.toMatch(/\(--email\)/);
  });

  it('a refused key is blamed on where it came from', async () => {
    const bad = 'sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const env = await w.pay(['customers', 'list'], { env: { PAY_API_KEY: bad } });
    expect(env.code).toBe(3);
    expect(env.stderr).toMatch(/^error: HTTP 401 unauthorized: the API key from PAY_API_KEY is missing or invalid/m);
    expect(env.stderr).toMatch(/^hint: check PAY_API_KEY/m);
    const flag = await w.pay(['--api-key', bad, 'customers', 'list'], { env: { PAY_API_KEY: undefined } });
    expect(flag.stderr).toMatch(/the API key from --api-key is missing or invalid/);
    const cfg = tempDir('pay-pipes-cfg-');
    const login = await w.pay(['login', '--with-key', '-p', 'acme'], { env: { PAY_API_KEY: undefined, PAY_CONFIG_DIR: cfg }, stdin: bad });
    expect(login.code).toBe(0);
    const prof = await w.pay(['-p', 'acme', 'customers', 'list'], { env: { PAY_API_KEY: undefined, PAY_CONFIG_DIR: cfg } });
    expect(prof.stderr).toMatch(/the API key from profile "acme" \(sandbox\) is missing or invalid/);
    expect(prof.stderr).toMatch(/^hint: check the key with pay profiles show acme, or log in again with pay login -p acme$/m);
  });

  it('every *_at in a get view renders as in tables', async () => {
    const id = ok(await w.pay(['customers', 'list', '--limit', '1', '--fields', 'id', '--no-header'])).trim();
    const out = ok(await w.pay(['customers', 'get', id, '-o', 'table']));
    for (const key of ['created_at', 'updated_at']) {
      const value = new RegExp(`^${key} +(.+?)\\s*$`, 'm').exec(out)?.[1];
      expect(value, key).toMatch(TABLE_TIME);
    }
  });

  it('an unknown command suggests only a close name', async () => {
    const tx = await w.pay(['tx', 'list']);
    expect(tx.code).toBe(2);
    expect(tx.stderr).toBe("error: unknown command 'tx'\nhint: add --help for usage\n");
    const typo = await w.pay(['custmers', 'list']);
    expect(typo.stderr).toBe("error: unknown command 'custmers'\nhint: did you mean customers? (add --help for usage)\n");
  });
});
