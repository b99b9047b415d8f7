// Persistence: state and keys survive a restart on the same data dir; the journal tolerates a
// torn last line; compaction keeps everything; kill -9 loses no acknowledged write.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, client, customerBody, fundedAccounts, removeTempDirs, start, tempDir, until, type Emulator } from './helpers.js';

const running: Emulator[] = [];
async function boot(dataDir: string): Promise<Emulator> {
  const emu = await start({ dataDir, settleAfterMs: 5000 });
  running.push(emu);
  return emu;
}
async function stop(emu: Emulator): Promise<void> {
  await emu.stop();
  running.splice(running.indexOf(emu), 1);
}
afterAll(async () => {
  for (const e of running) await e.stop();
  removeTempDirs();
});

async function allCustomers(emu: Emulator): Promise<Array<{ id: string; email: string }>> {
  const api = client(emu);
  const out: Array<{ id: string; email: string }> = [];
  let cursor: string | null = null;
  do {
    const r = await api('GET', `customers?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    out.push(...r.body.data);
    cursor = r.body.next_cursor;
  } while (cursor);
  return out;
}

describe('restart on the same data dir', () => {
  it('keeps keys, tenant, objects, balances, pending work, idempotency keys and events', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    let api = client(emu);
    const { accounts, customer } = await fundedAccounts(emu, api, { USD: '100.00' });
    const other = (await api('POST', 'accounts', { customer_id: customer, currency: 'USD' })).body.id;
    const pending = (
      await api(
        'POST',
        'transfers',
        { source_account_id: accounts.USD, destination_id: other, amount: '40.00', currency: 'USD' },
        { idem: 'tr-1' },
      )
    ).body;
    const before = {
      keys: emu.keys,
      tenant: emu.tenantId,
      secret: emu.webhookSecret,
      balance: (await api('GET', `accounts/${accounts.USD}`)).body.balance,
    };
    const events = (await api('GET', 'webhooks/events?limit=100')).body.data.length;
    await stop(emu);

    emu = await boot(dir);
    api = client(emu);
    expect({ keys: emu.keys, tenant: emu.tenantId, secret: emu.webhookSecret }).toEqual({
      keys: before.keys,
      tenant: before.tenant,
      secret: before.secret,
    });
    expect((await api('GET', `customers/${customer}`)).status).toBe(200);
    expect((await api('GET', `accounts/${accounts.USD}`)).body.balance).toEqual(before.balance);
    expect((await api('GET', 'webhooks/events?limit=100')).body.data.length).toBe(events);
    // The idempotency key still replays, and the clock offset (advanced by fundedAccounts) survived.
    const replay = await api(
      'POST',
      'transfers',
      { source_account_id: accounts.USD, destination_id: other, amount: '40.00', currency: 'USD' },
      { idem: 'tr-1' },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(pending.id);
    // Pending work settles after the restart.
    emu.admin.advance(6);
    expect((await api('GET', `transfers/${pending.id}`)).body.status).toBe('completed');
    expect((await api('GET', `accounts/${other}`)).body.balance.available).toBe('40.00');
    // New ids sort after the old ones (newest first still holds).
    const fresh = (await api('POST', 'customers', customerBody(99))).body.id;
    expect((await api('GET', 'customers?limit=1')).body.data[0].id).toBe(fresh);
    expect(fresh > customer).toBe(true);
    await stop(emu);
  });

  it('tolerates a torn last line (a write cut short by a crash) and cuts it off', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await client(emu)('POST', 'customers', customerBody(i))).body.id);
    await stop(emu);
    const journal = join(
      dir,
      readdirSync(dir).find((f) => f.startsWith('journal-'))!,
    );
    const good = statSync(journal).size;
    appendFileSync(journal, '{"ops":[{"p":"customer","s":"sandbox|x","o":{"id":"cus_');
    emu = await boot(dir);
    expect((await allCustomers(emu)).map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(statSync(journal).size).toBe(good);
    await client(emu)('POST', 'customers', customerBody(4));
    await stop(emu);
    emu = await boot(dir);
    expect(await allCustomers(emu)).toHaveLength(4);
    await stop(emu);
  });

  it('refuses a damaged line in the middle, and a data dir another emulator holds', async () => {
    const dir = tempDir();
    const emu = await boot(dir);
    await expect(start({ dataDir: dir })).rejects.toThrow(/in use/);
    await client(emu)('POST', 'customers', customerBody());
    await stop(emu);
    const journal = join(dir, 'journal-0.jsonl');
    writeFileSync(journal, `garbage\n${readFileSync(journal, 'utf8')}`);
    await expect(start({ dataDir: dir })).rejects.toThrow(/line 1 is damaged/);
  });

  it('compaction (snapshot + new journal) keeps everything', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    let api = client(emu);
    const { accounts } = await fundedAccounts(emu, api, { EUR: '12.34' });
    expect((await admin(emu, 'POST', 'compact')).status).toBe(200);
    expect(readdirSync(dir).sort()).toEqual(['LOCK', 'journal-1.jsonl', 'keys.json', 'snapshot-1.jsonl']);
    const after = (await api('POST', 'customers', customerBody(5), { idem: 'after-compact' })).body.id;
    await stop(emu);
    emu = await boot(dir);
    api = client(emu);
    expect((await api('GET', `accounts/${accounts.EUR}`)).body.balance.available).toBe('12.34');
    expect((await api('GET', `customers/${after}`)).status).toBe(200);
    expect((await api('POST', 'customers', customerBody(5), { idem: 'after-compact' })).headers.get('idempotent-replayed')).toBe('true');
    expect((await api('GET', 'transactions')).body.data).toHaveLength(1);
    await stop(emu);
  });
});

describe('stored idempotent responses on disk', () => {
  // A create's stored 201 is journaled as a reference to the record ("r"); a snapshot keeps the
  // reference while the record is unchanged and writes the body ("j") once it has changed. Data
  // dirs written before ("j" everywhere) load as they did.
  it('replay byte-identical bodies after a restart, after an update and compaction, and from the older "j" format', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    let api = client(emu);
    const raw = async (idem: string, n: number) => {
      const res = await fetch(`${emu.url}/v1/customers`, {
        method: 'POST',
        headers: {
          'api-key': emu.keys.sandbox.secret,
          'x-tenant-id': emu.tenantId,
          'content-type': 'application/json',
          'idempotency-key': idem,
        },
        body: JSON.stringify(customerBody(n)),
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
    };
    const a = await raw('ref-a', 1);
    const b = await raw('ref-b', 2);
    expect([a.status, b.status]).toEqual([201, 201]);
    const journal = readFileSync(join(dir, 'journal-0.jsonl'), 'utf8');
    expect(journal).toContain(`"r":"${JSON.parse(a.text).id}"`);
    // The customer.created events refer to their customer ("d") rather than repeating it.
    expect(journal).toContain(`"data":{},"delivery":`);
    expect(journal).toContain(`"d":"${JSON.parse(b.text).id}"`);
    const eventsBefore = (await api('GET', 'webhooks/events?limit=100')).body;
    await stop(emu);

    emu = await boot(dir);
    api = client(emu);
    expect(await raw('ref-a', 1)).toEqual({ ...a, replayed: 'true' });
    expect((await api('GET', 'webhooks/events?limit=100')).body).toEqual(eventsBefore);
    // b changes; its stored 201 must still replay the body as it was.
    expect((await api('PATCH', `customers/${JSON.parse(b.text).id}`, { first_name: 'Changed' })).status).toBe(200);
    expect((await admin(emu, 'POST', 'compact')).status).toBe(200);
    const snapshot = readFileSync(join(dir, 'snapshot-1.jsonl'), 'utf8');
    expect(snapshot).toContain(`"r":"${JSON.parse(a.text).id}"`);
    expect(snapshot).toContain(`"j":${b.text}`);
    // b's customer.created event keeps b as it was when created: in full in the snapshot.
    expect(snapshot).toContain(`"data":{"object":${b.text}}`);
    expect(snapshot).toContain(`"d":"${JSON.parse(a.text).id}"`);
    const eventsAfter = (await client(emu)('GET', 'webhooks/events?limit=100')).body;
    expect(eventsAfter.data.filter((e: { type: string }) => e.type === 'customer.created')).toEqual(eventsBefore.data);
    await stop(emu);

    emu = await boot(dir);
    expect((await client(emu)('GET', 'webhooks/events?limit=100')).body).toEqual(eventsAfter);
    expect(await raw('ref-a', 1)).toEqual({ ...a, replayed: 'true' });
    expect(await raw('ref-b', 2)).toEqual({ ...b, replayed: 'true' });
    await stop(emu);

    // The older format: every stored body inline (and, as then, no header or trailer line).
    const older = readFileSync(join(dir, 'snapshot-1.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('{"ops":[],'))
      .map((l) => `${l}\n`)
      .join('')
      .replace(`"r":"${JSON.parse(a.text).id}"`, `"j":${a.text}`);
    expect(older).not.toContain('"r":"');
    writeFileSync(join(dir, 'snapshot-1.jsonl'), older);
    emu = await boot(dir);
    expect(await raw('ref-a', 1)).toEqual({ ...a, replayed: 'true' });
    expect(await raw('ref-b', 2)).toEqual({ ...b, replayed: 'true' });
    await stop(emu);
  });
});

describe('admin reset', () => {
  it('forgets all data on disk and in memory; keys stay', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    const keys = emu.keys;
    await fundedAccounts(emu, client(emu), { USD: '1.00' });
    await emu.admin.reset();
    expect((await admin(emu, 'GET', 'stats')).body.objects).toEqual({});
    expect((await client(emu)('GET', 'customers')).body.data).toEqual([]);
    const after = (await client(emu)('POST', 'customers', customerBody())).body.id;
    await stop(emu);
    emu = await boot(dir);
    expect(emu.keys).toEqual(keys);
    expect((await allCustomers(emu)).map((c) => c.id)).toEqual([after]);
    await stop(emu);
  });
});

describe('kill -9', () => {
  let bundle: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    // The emulator as plain JS for a child process (no TypeScript loader in node).
    const out = tempDir('pay-emu-bundle-');
    bundle = join(out, 'emulator.mjs');
    await build({
      entryPoints: [new URL('../../src/emulator/index.ts', import.meta.url).pathname],
      outfile: bundle,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
    });
    writeFileSync(
      join(out, 'run.mjs'),
      `import { startEmulator } from './emulator.mjs';
const emu = await startEmulator({ port: 0, dataDir: process.argv[2] });
process.stdout.write(JSON.stringify({ url: emu.baseUrl, key: emu.keys.sandbox.secret }) + '\\n');`,
    );
  });
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('loses no acknowledged write, and idempotent retries after the crash create no duplicates', async () => {
    const dir = tempDir();
    child = spawn(process.execPath, [join(bundle, '..', 'run.mjs'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const info = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      let buf = '';
      child!.stdout!.on('data', (d: Buffer) => {
        buf += d.toString('utf8');
        if (buf.includes('\n')) resolve(JSON.parse(buf.split('\n')[0]!));
      });
      child!.on('exit', (code) => reject(new Error(`emulator exited ${code}`)));
    });

    const acked = new Map<string, string>(); // idempotency key -> customer id
    const sent: Array<{ key: string; body: Record<string, unknown> }> = [];
    let halt = false;
    const worker = async (w: number) => {
      for (let i = 0; !halt; i++) {
        const key = randomUUID();
        const body = customerBody(w * 100_000 + i);
        sent.push({ key, body });
        try {
          const r = await fetch(`${info.url}customers`, {
            method: 'POST',
            headers: { 'api-key': info.key, 'idempotency-key': key, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          if (r.status === 201) acked.set(key, ((await r.json()) as { id: string }).id);
        } catch {
          return; // the server died under us
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    await until('150 writes acknowledged', () => acked.size >= 150);

    child.kill('SIGKILL');
    halt = true;
    await Promise.all(workers);
    await new Promise((r) => (child!.exitCode !== null || child!.signalCode !== null ? r(null) : child!.once('exit', r)));

    const emu = await boot(dir);
    const api = client(emu);
    const present = await allCustomers(emu);
    const ids = new Set(present.map((c) => c.id));
    expect(ids.size).toBe(present.length);
    for (const id of acked.values()) expect(ids.has(id)).toBe(true);

    // Retry everything that was sent (acknowledged or not) with its key: nothing is duplicated.
    for (const { key, body } of sent) {
      const r = await api('POST', 'customers', body, { idem: key });
      expect(r.status).toBe(201);
      if (acked.has(key)) {
        expect(r.headers.get('idempotent-replayed')).toBe('true');
        expect(r.body.id).toBe(acked.get(key));
      }
    }
    const after = await allCustomers(emu);
    expect(after).toHaveLength(sent.length);
    expect(new Set(after.map((c) => c.email)).size).toBe(sent.length);
    await stop(emu);
  });
});
