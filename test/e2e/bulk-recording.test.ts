// Bulk create against a recording server: per-row results, deterministic keys, invalid rows,
// --resume (by content; refused rows under the next attempt's key; another input's results refused), exit codes.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, PAY_BIN, registerSecret, runPay, tempDir } from '../helpers/run-pay.js';

const KEY = 'sk_test_BulkBulkBulkBulkBulkBulkBulk1234';
let server: RecordingServer;
let dir: string;
beforeAll(async () => {
  registerSecret(KEY);
  server = await startRecordingServer({ status: 201, body: { id: 'acc_0123456789abcdefghijklmn' } });
  dir = tempDir('pay-bulk-');
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});
const env = () => cleanEnv({ PAY_BASE_URL: server.baseUrl, PAY_API_KEY: KEY, PAY_TENANT_ID: 'biz_1' });
const CUS = 'cus_0123456789abcdefghijklmn';

describe('accounts create --from-file', () => {
  const csv = `customer_id,currency,nickname\n${CUS},USD,One\n${CUS},USD,"Two, quoted"\ncus_bad,USD,Three\n${CUS},EUR,Four\n`;

  it('creates a row per line, reports the bad row with its line and field, exits 1', async () => {
    const file = join(dir, 'accounts.csv');
    writeFileSync(file, csv);
    const r = await runPay(['accounts', 'create', '--from-file', file, '--type', 'savings', '--concurrency', '2'], { env: env() });
    expect(r.code).toBe(1);
    const results = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .sort((a, b) => a.line - b.line);
    expect(results.map((x) => [x.line, x.status])).toEqual([
      [2, 'created'],
      [3, 'created'],
      [4, 'failed'],
      [5, 'created'],
    ]);
    expect(results[2].error).toMatch(/^customer_id must be an id like cus_/);
    expect(server.requests).toHaveLength(3);
    const bodies = server.requests
      .map((q) => q.json as Record<string, unknown>)
      .sort((a, b) => String(a.nickname).localeCompare(String(b.nickname)));
    expect(bodies).toEqual([
      { customer_id: CUS, currency: 'EUR', nickname: 'Four', type: 'savings' },
      { customer_id: CUS, currency: 'USD', nickname: 'One', type: 'savings' },
      { customer_id: CUS, currency: 'USD', nickname: 'Two, quoted', type: 'savings' },
    ]);
    expect(r.stderr).toMatch(/^accounts create: 4 rows: 3 created, 0 replayed, 0 skipped, 1 failed in /m);
    expect(r.stderr).toMatch(/^error: 1 of 4 rows failed$/m);

    // The same file again: the same keys, so the service replays instead of duplicating.
    const keys = server.requests.map((q) => q.headers['idempotency-key']).sort();
    expect(keys.every((k) => /^bulk_[0-9a-f]{40}$/.test(String(k)))).toBe(true);
    server.requests.length = 0;
    await runPay(['accounts', 'create', '--from-file', file, '--type', 'savings'], { env: env() });
    expect(server.requests.map((q) => q.headers['idempotency-key']).sort()).toEqual(keys);

    // The same file as Excel for Mac writes it (CR alone), and as RFC 4180 does (CRLF): the same
    // rows, the same keys (a CR-only file was once read as a header alone: "0 rows", exit 0).
    for (const end of ['\r', '\r\n']) {
      // The same name (part of the keys' identity) in another folder.
      const folder = join(dir, end === '\r' ? 'cr' : 'crlf');
      mkdirSync(folder, { recursive: true });
      const other = join(folder, 'accounts.csv');
      writeFileSync(other, csv.replace(/\n/g, end));
      server.requests.length = 0;
      const o = await runPay(['accounts', 'create', '--from-file', other, '--type', 'savings'], { env: env() });
      expect({ end, code: o.code }).toEqual({ end, code: 1 });
      expect(o.stderr).toMatch(/^accounts create: 4 rows: 3 created, 0 replayed, 0 skipped, 1 failed in /m);
      expect(server.requests.map((q) => q.headers['idempotency-key']).sort()).toEqual(keys);
    }

    // --resume: rows the results say were created are not sent again.
    const results1 = join(dir, 'results.ndjson');
    writeFileSync(results1, r.stdout);
    server.requests.length = 0;
    const again = await runPay(['accounts', 'create', '--from-file', file, '--type', 'savings', '--resume', results1], { env: env() });
    expect(server.requests).toHaveLength(0);
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).status)
        .sort(),
    ).toEqual(['failed', 'skipped', 'skipped', 'skipped']);
  });

  it('a refused row is marked refused, the hint names --resume, and --resume sends it under the next key only', async () => {
    const file = join(dir, 'refused.ndjson');
    writeFileSync(
      file,
      [`{"customer_id":"${CUS}","currency":"USD","nickname":"A"}`, `{"customer_id":"${CUS}","currency":"USD","nickname":"B"}`].join('\n'),
    );
    server.queue.push({ status: 422, body: { code: 'insufficient_funds', detail: 'not enough money' } });
    const r = await runPay(['accounts', 'create', '--from-file', file, '--concurrency', '1'], { env: env() });
    expect(r.code).toBe(1);
    const results = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .sort((a, b) => a.line - b.line);
    const key = server.requests[0]!.headers['idempotency-key'];
    expect(results[0]).toEqual({
      line: 1,
      status: 'failed',
      error: expect.stringMatching(/^HTTP 422 insufficient_funds: not enough money/),
      code: 'insufficient_funds',
      refused: true,
      idempotency_key: key,
    });
    expect(results[1]).toMatchObject({ line: 2, status: 'created', idempotency_key: server.requests[1]!.headers['idempotency-key'] });
    expect(r.stderr).toMatch(/^hint: 1 row was refused and nothing was created: .* --resume .*refused rows are sent with a new key$/m);
    expect(r.stderr).not.toMatch(/run the same command again/);

    const results1 = join(dir, 'refused-results.ndjson');
    writeFileSync(results1, r.stdout);
    server.requests.length = 0;
    const again = await runPay(['accounts', 'create', '--from-file', file, '--resume', results1], { env: env() });
    expect(again.code).toBe(0);
    expect(server.requests.map((q) => q.headers['idempotency-key'])).toEqual([`${String(key)}_2`]);
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .sort((a, b) => a.line - b.line)
        .map((x) => [x.line, x.status, x.attempt]),
    ).toEqual([
      [1, 'created', 2],
      [2, 'skipped', undefined],
    ]);
  });

  it('--resume with the results of another input (another file name) is refused before anything is sent', async () => {
    const a = join(dir, 'first.ndjson');
    const b = join(dir, 'renamed.ndjson');
    const rows = `{"customer_id":"${CUS}","currency":"USD"}\n`;
    writeFileSync(a, rows);
    writeFileSync(b, rows);
    const r = await runPay(['accounts', 'create', '--from-file', a], { env: env() });
    const results1 = join(dir, 'first-results.ndjson');
    writeFileSync(results1, r.stdout);
    server.requests.length = 0;
    const wrong = await runPay(['accounts', 'create', '--from-file', b, '--resume', results1], { env: env() });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^error: --resume .*first-results\.ndjson: its rows were sent as another input/m);
    expect(wrong.stderr).toMatch(/^hint: .*--batch-id/m);
    expect(server.requests).toHaveLength(0);
    const right = await runPay(['accounts', 'create', '--from-file', b, '--batch-id', 'first.ndjson', '--resume', results1], {
      env: env(),
    });
    expect(right.code).toBe(0);
    expect(JSON.parse(right.stdout).status).toBe('skipped');
    expect(server.requests).toHaveLength(0);
  });

  it('reads NDJSON from stdin; the key depends on --batch-id', async () => {
    const rows = `{"customer_id":"${CUS}","currency":"USD"}\n`;
    await runPay(['accounts', 'create', '--from-file', '-'], { env: env(), stdin: rows });
    await runPay(['accounts', 'create', '--from-file', '-', '--batch-id', 'other'], { env: env(), stdin: rows });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.headers['idempotency-key']).not.toBe(server.requests[1]!.headers['idempotency-key']);
  });

  it('refuses --data with --from-file and a missing file (exit 2, nothing sent)', async () => {
    expect((await runPay(['accounts', 'create', '--from-file', '-', '--data', '{}'], { env: env() })).code).toBe(2);
    const missing = await runPay(['accounts', 'create', '--from-file', join(dir, 'nope.csv')], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: cannot read the input file \(no such file\)$/m);
    expect(server.requests).toHaveLength(0);
  });
});

describe('--resume into the file stdout writes to', () => {
  // Through a real shell: `>>` on a first run creates the file empty, which is not a file `>` emptied.
  // Async: the recording server answers from this process.
  const sh = (script: string) =>
    new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', script], {
        cwd: dir,
        env: { ...env(), PAY: `${process.execPath} ${PAY_BIN}` },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stderr }));
    });

  it('>> on a first run (the file does not exist yet) sends the rows and appends their results', async () => {
    writeFileSync(join(dir, 'first.ndjson'), `{"customer_id":"${CUS}","currency":"USD"}\n`);
    const r = await sh('rm -f first.out; $PAY accounts create --from-file first.ndjson --resume first.out >> first.out');
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'first.out'), 'utf8')).toMatch(/"status":"created"/);
    expect(server.requests).toHaveLength(1);
  });

  it('> empties it before pay reads it: exit 2, nothing sent', async () => {
    writeFileSync(join(dir, 'second.ndjson'), `{"customer_id":"${CUS}","currency":"USD"}\n`);
    const r = await sh('printf "{}\\n" > second.out; $PAY accounts create --from-file second.ndjson --resume second.out > second.out');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --resume second\.out is the file stdout writes to, emptied by the shell's >/);
    expect(server.requests).toHaveLength(0);
  });
});
