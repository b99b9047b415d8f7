// pay webhooks against the emulator, with `pay webhooks listen --json` as the real receiver: the
// emulator delivers signed events to the listener child (which registers itself, the emulator
// being behind the base URL), which prints each delivery as one NDJSON line; `webhooks list/get`
// then show them delivered; resend re-delivers a failed event, and one already received again
// (marked as a repeat); the listener refuses forged deliveries; `webhooks verify` checks a
// signature offline.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAY_BIN, leakedSecrets, tempDir } from '../../helpers/run-pay.js';
import {
  ID,
  TABLE_TIME,
  apiError,
  customerBody,
  json,
  keyValues,
  ndjson,
  ok,
  startWorld,
  table,
  tsv,
  until,
  type Obj,
  type World,
} from './helpers.js';
import { freePort } from '../../helpers/ports.js';

let w: World;
let port: number;
let hookUrl: string;
let listener: ChildProcessWithoutNullStreams;
let out = '';
let err = '';
let exited: Promise<number | null>;
const ids: Record<string, string> = {};

/** Lines the listener printed on stdout so far, each parsed (each must be one JSON object). */
const printed = (): Obj[] =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Obj);
const event = (id: string): Promise<Obj> => w.api('GET', `webhooks/events/${id}`);
const eventFor = async (type: string, objectId: string): Promise<Obj> =>
  (await w.api('GET', `webhooks/events?type=${type}&limit=100`)).data.find((e: Obj) => e.data.object.id === objectId);

beforeAll(async () => {
  port = await freePort();
  hookUrl = `http://127.0.0.1:${port}/`;
  // Retries far away (5 s × 100): a failed delivery stays failed until the test resends it.
  w = await startWorld({ webhookUrl: hookUrl, webhookRetryScale: 100 });
  listener = spawn(process.execPath, [PAY_BIN, 'webhooks', 'listen', '--port', String(port), '--json'], {
    env: { ...w.env, PAY_WEBHOOK_SECRET: w.emu.webhookSecret },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  listener.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  listener.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  exited = new Promise((r) => listener.once('exit', (code) => r(code)));
  await until('the listener to be ready', () => err.includes('Ctrl-C'));
});
afterAll(async () => {
  if (listener && listener.exitCode === null) listener.kill('SIGKILL');
  await w?.stop();
});

const READY = (): string =>
  `Ready, listening on ${hookUrl} (Ctrl-C to stop)\n` +
  `Registered ${hookUrl} as the webhook URL of the emulator at ${w.emu.url} for Sandbox events (it was ${hookUrl}; given back when this stops); Sandbox events still pending delivery come now.\n`;

describe('pay webhooks listen as the receiver', () => {
  it('starts with its ready lines on stderr and nothing on stdout', () => {
    expect(err).toBe(READY());
    expect(out).toBe('');
  });

  it('prints each delivery as one NDJSON line: {webhook_id, type, repeat, received_at, forward, event: {id, type, created_at, data}}', async () => {
    const c = json(await w.pay(['customers', 'create', '--data', JSON.stringify(customerBody()), '--json']));
    const a = json(await w.pay(['accounts', 'create', '--customer', c.id, '--currency', 'USD', '--json']));
    ids.customer = c.id;
    ids.account = a.id;
    await until('two events at the listener', () => printed().length >= 2);
    const deliveries = printed();
    expect(out.endsWith('\n')).toBe(true);
    expect(deliveries.map((d) => d.type)).toEqual(['customer.created', 'account.created']);
    const lines = deliveries.map((d) => d.event);
    for (const [i, d] of deliveries.entries()) {
      expect(Object.keys(d).sort()).toEqual(['event', 'forward', 'received_at', 'repeat', 'type', 'webhook_id']);
      expect(d).toMatchObject({ webhook_id: lines[i].id, repeat: 1, forward: null });
      expect(Object.keys(lines[i]).sort()).toEqual(['created_at', 'data', 'id', 'type']);
      expect(lines[i].id).toMatch(ID('evt_'));
    }
    expect(lines[0]!.data.object).toEqual(c);
    expect(lines[1]!.data.object).toMatchObject({ id: a.id, object: 'account', customer_id: c.id, status: 'active' });
    ids.evCustomer = lines[0]!.id;
    ids.evAccount = lines[1]!.id;
    expect(err).toBe(READY());
  });

  it('webhooks list shows them delivered (tsv, table, json, ndjson, --type, --status)', async () => {
    await until('delivery to be recorded', async () => (await event(ids.evAccount!)).delivery.status === 'delivered');
    const [t, tb, j, byType, delivered] = await Promise.all([
      w.pay(['webhooks', 'list']),
      w.pay(['webhooks', 'list', '-o', 'table']),
      w.pay(['webhooks', 'list', '--json']),
      w.pay(['webhooks', 'list', '--type', 'account.created', '-o', 'ndjson', '--fields', 'id,delivery.status']),
      w.pay(['webhooks', 'list', '--status', 'delivered', '--no-header', '--fields', 'id']),
    ]);
    const s = tsv(t);
    expect(s.header).toEqual([
      'id',
      'type',
      'delivery.status',
      'delivery.attempts',
      'delivery.last_response_code',
      'delivery.last_attempt_at',
      'created_at',
    ]);
    expect(s.rows.map((r) => [r.id, r.type, r['delivery.status'], r['delivery.attempts'], r['delivery.last_response_code']])).toEqual([
      [ids.evAccount, 'account.created', 'delivered', '1', '200'],
      [ids.evCustomer, 'customer.created', 'delivered', '1', '200'],
    ]);
    const tbl = table(tb);
    expect(tbl.header).toEqual(['ID', 'TYPE', 'DELIVERY', 'ATTEMPTS', 'LAST CODE', 'LAST ATTEMPT', 'CREATED']);
    expect(tbl.rows[0]).toEqual([
      ids.evAccount,
      'account.created',
      'delivered',
      '1',
      '200',
      expect.stringMatching(TABLE_TIME),
      expect.stringMatching(TABLE_TIME),
    ]);
    const list = json(j) as unknown as Obj[];
    expect(list.map((e) => e.id)).toEqual([ids.evAccount, ids.evCustomer]);
    expect(list[1]).toMatchObject({
      object: 'event',
      type: 'customer.created',
      data: { object: { id: ids.customer } },
      delivery: { status: 'delivered', attempts: 1, last_response_code: 200, next_attempt_at: null },
    });
    expect(ndjson(byType)).toEqual([{ id: ids.evAccount, delivery: { status: 'delivered' } }]);
    expect(ok(delivered)).toBe(`${ids.evAccount}\n${ids.evCustomer}\n`);
  }, 120_000); // several pay processes: a hang guard, not a timing window

  it('webhooks get: the event and its attempts (json; each attempt a block with its full URL and the answer)', async () => {
    const [j, t] = await Promise.all([
      w.pay(['webhooks', 'get', ids.evCustomer!, '--json']),
      w.pay(['webhooks', 'get', ids.evCustomer!, '-o', 'table']),
    ]);
    const e = json(j);
    expect(e).toMatchObject({ id: ids.evCustomer, type: 'customer.created', delivery: { status: 'delivered', attempts: 1 } });
    expect(e.attempts).toEqual([
      {
        id: expect.stringMatching(ID('whd_')),
        attempted_at: expect.any(String),
        response_code: 200,
        duration_ms: expect.any(Number),
        error: null,
        url: hookUrl,
        response_excerpt: expect.any(String),
      },
    ]);
    const text = ok(t);
    expect(keyValues(t).get('delivery.status')).toBe('delivered');
    expect(text).toMatch(/^Delivery attempts \(1\)$/m);
    expect(text).toMatch(
      new RegExp(`^#1 {2}\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z {2}HTTP 200 {2}\\d+ ms {2}${e.attempts[0].id}$`, 'm'),
    );
    expect(text).toContain(`\n    url     ${hookUrl}\n`);
    expect(text).toContain(`\n    answer  ${e.attempts[0].response_excerpt}\n`);
  });

  it('resend re-delivers an event whose delivery failed: 202, then delivered and printed by the listener', async () => {
    const dead = await freePort();
    w.emu.admin.setWebhookUrl(`http://127.0.0.1:${dead}/`);
    const wal = json(
      await w.pay([
        'external-accounts',
        'add',
        '--customer',
        ids.customer!,
        '--account-holder-name',
        'Ada Lovelace',
        '--bank-name',
        'Example Bank',
        '--account-number',
        '12345678',
        '--country',
        'GB',
        '--currency',
        'GBP',
        '--json',
      ]),
    );
    const ev = await until('the failed attempt', async () => {
      const e = await eventFor('external_account.created', wal.id);
      return e && e.delivery.attempts >= 1 ? e : undefined;
    });
    expect(ev.delivery).toMatchObject({ status: 'pending', attempts: 1, last_response_code: null, next_attempt_at: expect.any(String) });
    w.emu.admin.setWebhookUrl(hookUrl);

    const m = w.mark();
    const [r] = ndjson(await w.pay(['webhooks', 'resend', ev.id, '-o', 'ndjson']));
    expect(r).toMatchObject({ id: ev.id, object: 'event', type: 'external_account.created', delivery: { status: 'pending' } });
    const reqs = w.since(m);
    expect(reqs.map((q) => `${q.method} ${q.path}`)).toEqual([`POST /v1/webhooks/events/${ev.id}/resend`]);
    expect(reqs[0]!.headers['idempotency-key']).toEqual(expect.any(String));

    await until('the resent event at the listener', () => printed().some((e) => e.webhook_id === ev.id));
    expect(printed().filter((e) => e.webhook_id === ev.id)).toEqual([
      {
        webhook_id: ev.id,
        type: 'external_account.created',
        repeat: 1,
        received_at: expect.any(String),
        forward: null,
        event: { id: ev.id, type: 'external_account.created', created_at: ev.created_at, data: { object: wal } },
      },
    ]);
    const after = await until('delivered', async () => {
      const e = await event(ev.id);
      return e.delivery.status === 'delivered' ? e : undefined;
    });
    expect(after.attempts.map((x: Obj) => [x.response_code, x.url])).toEqual([
      [null, `http://127.0.0.1:${dead}/`],
      [200, hookUrl],
    ]);
    expect(after.attempts[0].error).toEqual(expect.any(String));
    expect(
      ok(
        await w.pay([
          'webhooks',
          'list',
          '--type',
          'external_account.created',
          '--no-header',
          '--fields',
          'delivery.status,delivery.attempts',
        ]),
      ),
    ).toBe('delivered\t2\n');
  });

  it('a resend of an event the listener already received reaches it again, marked as a repeat; delivered', async () => {
    json(await w.pay(['webhooks', 'resend', ids.evAccount!, '--json']));
    const e = await until('the second attempt', async () => {
      const x = await event(ids.evAccount!);
      return x.attempts.length >= 2 ? x : undefined;
    });
    expect(e.attempts[1]).toMatchObject({ response_code: 200, url: hookUrl });
    expect(e.delivery.status).toBe('delivered');
    await until('the repeat at the listener', () => printed().filter((d) => d.webhook_id === ids.evAccount).length === 2);
    expect(
      printed()
        .filter((d) => d.webhook_id === ids.evAccount)
        .map((d) => d.repeat),
    ).toEqual([1, 2]);
    expect(err).not.toContain('duplicate');
  });

  it('the listener refuses a forged delivery (400, a line on stderr, nothing on stdout)', async () => {
    const lines = printed().length;
    const body = JSON.stringify({
      id: 'evt_forgedforgedforgedforged',
      type: 'transfer.completed',
      created_at: new Date().toISOString(),
      data: { object: {} },
    });
    const res = await fetch(hookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forgedforgedforgedforged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
      body,
    });
    expect(res.status).toBe(400);
    await until('the rejection line', () => err.includes('rejected evt_forgedforgedforgedforged'));
    expect(err).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z rejected evt_forgedforgedforgedforged: .+$/m);
    expect(printed()).toHaveLength(lines);
  });

  it('stops on SIGTERM with exit 0, and never printed the webhook secret', async () => {
    listener.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The test set the URL by hand meanwhile (the resend case): the listener leaves it as it is.
    expect(
      err.endsWith(
        `Left the emulator's Sandbox webhook URL as it is (${hookUrl}): it was changed after this listen registered\nStopped.\n`,
      ),
    ).toBe(true);
    expect(leakedSecrets(['webhooks', 'listen'], { PAY_WEBHOOK_SECRET: w.emu.webhookSecret }, out + err)).toEqual([]);
  });
});

describe('pay webhooks verify', () => {
  it('valid for a correctly signed body (text, --json), exit 1 for a tampered one; nothing is sent', async () => {
    const secret = w.emu.webhookSecret;
    const body = JSON.stringify({
      id: 'evt_0123456789abcdefghijklmn',
      type: 'customer.created',
      created_at: new Date().toISOString(),
      data: { object: { id: 'cus_x' } },
    });
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`evt_0123456789abcdefghijklmn.${ts}.${body}`)
      .digest('base64')}`;
    const dir = tempDir('pay-whv-');
    const file = join(dir, 'body.json');
    writeFileSync(file, body);
    const env = { PAY_WEBHOOK_SECRET: secret };
    const headers = [
      '--header',
      'webhook-id: evt_0123456789abcdefghijklmn',
      '--header',
      `webhook-timestamp: ${ts}`,
      '--header',
      `webhook-signature: ${sig}`,
    ];
    const m = w.mark();
    const [good, goodJson, bad] = await Promise.all([
      w.pay(['webhooks', 'verify', '--payload', file, ...headers], { env }),
      w.pay(
        ['webhooks', 'verify', '--payload', '-', '--id', 'evt_0123456789abcdefghijklmn', '--timestamp', ts, '--signature', sig, '--json'],
        { env, stdin: body },
      ),
      w.pay(['webhooks', 'verify', '--payload', '-', ...headers], { env, stdin: body.replace('cus_x', 'cus_y') }),
    ]);
    expect(ok(good)).toBe('valid\n');
    expect(json(goodJson)).toEqual({ valid: true, webhook_id: 'evt_0123456789abcdefghijklmn', timestamp: Number(ts) });
    expect({ code: bad.code, stdout: bad.stdout }).toEqual({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^invalid: .+\n$/);
    expect(w.since(m)).toEqual([]);
  });

  it('an unknown event is exit 4 for get and resend', async () => {
    const [g, r] = await Promise.all([
      w.pay(['webhooks', 'get', 'evt_000000000000000000000000']),
      w.pay(['webhooks', 'resend', 'evt_000000000000000000000000']),
    ]);
    apiError(g, 4, 404, 'not_found');
    apiError(r, 4, 404, 'not_found', true);
  });
});
