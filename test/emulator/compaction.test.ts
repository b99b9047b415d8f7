// Incremental compaction under load: with a tiny journal threshold, three-op snapshot
// lines and no time per slice, the emulator compacts again and again, each snapshot written over
// many turns of the event loop while creates, updates, actions, settlements and idempotent
// replays go on. A restart on the data dir must then show exactly what the emulator showed
// before it stopped: every object, every event, every stored response byte for byte, every
// balance.
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App } from '../../src/emulator/app.js';
import { eventOp } from '../../src/emulator/events.js';
import { Idempotency } from '../../src/emulator/idempotency.js';
import { Journal, type JournalOptions } from '../../src/emulator/journal.js';
import { Store } from '../../src/emulator/store.js';
import type { Base, Rec, WebhookEvent } from '../../src/emulator/types.js';
import { admin, client, customerBody, removeTempDirs, start, tempDir, until, type Api, type Emulator } from './helpers.js';

const running: Emulator[] = [];
afterAll(async () => {
  for (const e of running) await e.stop();
  removeTempDirs();
});

/** Waits, a turn of the event loop at a time (a compaction's slice takes one), until `fn()` holds. */
async function turnsUntil(fn: () => boolean): Promise<void> {
  for (let turn = 0; !fn(); turn++) {
    if (turn > 10_000) throw new Error('timed out waiting');
    await new Promise((r) => setImmediate(r));
  }
}

async function boot(dataDir: string, stepGate?: JournalOptions['stepGate']): Promise<Emulator> {
  const emu = await start({
    dataDir,
    settleAfterMs: 30,
    journal: { compactAt: 24 * 1024, overSnapshot: 0, sliceMs: 0, pauseMs: 0, opsPerLine: 3, stepGate },
  });
  running.push(emu);
  return emu;
}

async function listAll(api: Api, path: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | null = null;
  do {
    const r = await api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
    out.push(...r.body.data);
    cursor = r.body.has_more ? r.body.next_cursor : null;
  } while (cursor);
  return out;
}

/** Everything a client can see, and every stored response replayed (raw text). */
async function view(emu: Emulator, keys: Array<{ key: string; path: string; body: unknown }>): Promise<Record<string, unknown>> {
  const api = client(emu, { tenant: emu.tenantId });
  const replays: string[] = [];
  for (const k of keys) {
    const res = await fetch(`${emu.baseUrl}${k.path}`, {
      method: 'POST',
      headers: {
        'api-key': emu.keys.sandbox.secret,
        'x-tenant-id': emu.tenantId,
        'content-type': 'application/json',
        'idempotency-key': k.key,
      },
      body: JSON.stringify(k.body),
    });
    replays.push(`${res.status} ${res.headers.get('idempotent-replayed')} ${await res.text()}`);
  }
  return {
    customers: await listAll(api, 'customers'),
    accounts: await listAll(api, 'accounts'),
    cards: await listAll(api, 'cards'),
    transfers: await listAll(api, 'transfers'),
    transactions: await listAll(api, 'transactions'),
    events: await listAll(api, 'webhooks/events'),
    replays,
  };
}

describe('incremental compaction', () => {
  it('a restart shows exactly what was there, after many compactions made during requests', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    const api = client(emu, { tenant: emu.tenantId });
    const keys: Array<{ key: string; path: string; body: unknown }> = [];
    const post = async (path: string, body: unknown): Promise<any> => {
      const key = `k-${keys.length}`;
      keys.push({ key, path, body });
      const r = await api('POST', path, body, { idem: key });
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      return r.body;
    };

    const cus = await post('customers', customerBody(0));
    // The business rules: collections active, KYC approved (the review settles in 30 ms), then cards.
    await post(`customers/${cus.id}/kyc`, { level: 'basic' });
    await post(`customers/${cus.id}/kyc/documents`, { type: 'passport', country: 'GB', number: '123456789' });
    await post(`customers/${cus.id}/features/collections/activate`, {});
    await until('the KYC review approved', async () => (await api('GET', `customers/${cus.id}`)).body.kyc_status === 'approved');
    await post(`customers/${cus.id}/features/cards/activate`, {});
    const usd = await post('accounts', { customer_id: cus.id, currency: 'USD' });
    const usd2 = await post('accounts', { customer_id: cus.id, currency: 'USD' });
    await post('collections', { account_id: usd.id, amount: '5000.00', currency: 'USD', method: 'card' });
    const card = await post('cards', { customer_id: cus.id, account_id: usd.id, type: 'virtual' });

    // Waves of concurrent work (their requests share loop turns with the compaction's slices),
    // until the journal has compacted at least 4 times in the background (some 10 waves).
    let waves = 0;
    const compactions = async (): Promise<number> => (await admin(emu, 'GET', 'stats')).body.journal.background_compactions;
    for (; waves < 80 && (waves < 8 || (await compactions()) < 4); waves++) {
      const wave = waves;
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 15; i++) {
        const n = wave * 100 + i + 1;
        work.push(
          post('customers', customerBody(n)).then((c) =>
            // Changed right after creation: its stored 201 and its customer.created event must keep the first version.
            i % 3 === 0 ? api('PATCH', `customers/${c.id}`, { first_name: `Changed${n}` }) : undefined,
          ),
        );
      }
      work.push(post('transfers', { source_account_id: usd.id, destination_id: usd2.id, amount: `${wave + 1}.00`, currency: 'USD' }));
      // An action on the card: freeze, then unfreeze (its stored response refers to the card).
      work.push(post(`cards/${card.id}/${wave % 2 === 0 ? 'freeze' : 'unfreeze'}`, {}));
      await Promise.all(work);
    }
    // The transfers settle (30 ms after creation); after that nothing changes by itself.
    await until('no transfer pending', async () =>
      (await listAll(api, 'transfers')).every((t) => (t as { status: string }).status !== 'pending'),
    );

    const stats = (await admin(emu, 'GET', 'stats')).body;
    console.log(
      `${stats.journal.background_compactions} background compactions, longest slice ${stats.journal.longest_compaction_slice_ms} ms`,
    );
    expect(stats.journal.background_compactions).toBeGreaterThanOrEqual(4);

    const before = await view(emu, keys);
    expect((before.customers as unknown[]).length).toBe(1 + waves * 15);
    await emu.stop();
    running.splice(running.indexOf(emu), 1);

    emu = await boot(dir);
    const after = await view(emu, keys);
    expect(after).toEqual(before);
  }, 60_000);
});

// A crash at any step of a background compaction: the data dir is copied (synchronously, so the
// copy is what the file system held at that instant, as after kill -9) right after acknowledged
// writes, at every step; each copy must load with every write acknowledged before it.
describe('incremental compaction, crashed at any step', () => {
  it('every copy of the data dir taken mid-compaction loads with every acknowledged write', async () => {
    const dir = tempDir();
    // A background compaction's first step in each state waits here until a wave was made (and
    // copied) in it: the copies catch every state by construction, not by the scheduler's chance.
    const held: Array<() => void> = [];
    let gated = true;
    let last: string | undefined;
    const emu = await boot(dir, (state, next) => {
      // The first step of each state of each compaction waits for a wave; the others go on.
      if (gated && state !== last) held.push(next);
      else setImmediate(next);
      last = state;
    });
    const api = client(emu, { tenant: emu.tenantId });
    const acknowledged: string[] = [];
    const copies: Array<{ at: string; ids: string[]; files: string[] }> = [];
    const stepOf = (files: string[]): string =>
      files.some((f) => f.endsWith('.tmp'))
        ? files.filter((f) => f.startsWith('journal-')).length > 1
          ? 'catching up'
          : 'snapshot'
        : 'settled';
    const seen = new Set<string>();
    let taken = 0;
    // Waves until the copies have caught every step; after each, a held step goes on.
    for (let wave = 0; seen.size < 3 && wave < 200; wave++) {
      await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const r = await api('POST', 'customers', customerBody(wave * 100 + i));
          expect(r.status).toBe(201);
          acknowledged.push(r.body.id);
          const at = join(tempDir(), 'copy');
          // Files of an older generation are unlinked in the thread pool, maybe during the copy: copy again.
          for (let attempt = 0; ; attempt++) {
            try {
              cpSync(dir, at, { recursive: true });
              break;
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 20) throw err;
              rmSync(at, { recursive: true, force: true });
            }
          }
          rmSync(join(at, 'LOCK'), { force: true });
          const files = readdirSync(at).sort();
          const step = stepOf(files);
          // Every copy of a step not yet loaded, and one in ten of the others.
          if (!seen.has(step) || taken++ % 10 === 0) copies.push({ at, ids: [...acknowledged], files });
          else rmSync(at, { recursive: true, force: true });
          seen.add(step);
        }),
      );
      for (const next of held.splice(0)) next();
    }
    gated = false;
    for (const next of held.splice(0)) next();
    await emu.stop();
    running.splice(running.indexOf(emu), 1);

    // The copies caught each step: a snapshot being written, a new journal being filled, the switch done.
    expect([...new Set(copies.map((c) => stepOf(c.files)))].sort()).toEqual(['catching up', 'settled', 'snapshot']);
    for (const copy of copies) {
      const loaded = await start({ dataDir: copy.at });
      const got = client(loaded, { tenant: loaded.tenantId });
      const missing: string[] = [];
      for (const id of copy.ids) if ((await got('GET', `customers/${id}`)).status !== 200) missing.push(id);
      await loaded.stop();
      expect(missing, `${copy.files.join(' ')}: acknowledged, not loaded`).toEqual([]);
    }
  }, 60_000);
});

// The references' guards. A snapshot written over several turns reads each record when it reaches
// it, so it may only refer to a record unchanged since it began; and what is journaled meanwhile
// is replayed after such a snapshot, so it may only refer to a record put since it began.
describe('references while a snapshot is being written', () => {
  const customer = (name: string): Base =>
    ({ id: 'cus_0123456789abcdefghijklmn', object: 'customer', livemode: false, created_at: '2026-01-01T00:00:00.000Z', name }) as Base;

  it('a stored response or an event refers to its record only if the record is unchanged since the snapshot began', () => {
    const store = new Store();
    const a = customer('a');
    const rec = store.put(undefined, 'customer', 's', a, undefined, JSON.stringify(a));
    const idem = new Idempotency();
    idem.apply('k', { f: 'fp', s: 201, t: 0, b: JSON.stringify(a), r: rec });
    const event = store.put(undefined, 'event', 's', {
      id: 'evt_0123456789abcdefghijklmn',
      object: 'event',
      livemode: false,
      created_at: '2026-01-01T00:00:00.000Z',
      type: 'customer.created',
      data: { object: a },
      delivery: { status: 'pending', attempts: 0, last_response_code: null, last_attempt_at: null, next_attempt_at: null },
    }) as Rec<WebhookEvent>;
    const since = store.seq;
    expect([...idem.ops(since)][0]).toContain('"r":"cus_0123456789abcdefghijklmn"');
    expect(eventOp(store, event, since)).toContain('"d":"cus_0123456789abcdefghijklmn"');

    // Changed after the start, then back to the same JSON (and, for the event, the same object).
    store.put(undefined, 'customer', 's', customer('b'), undefined);
    store.put(undefined, 'customer', 's', a, undefined, JSON.stringify(a));
    expect([...idem.ops(since)][0]).toContain(`"j":${JSON.stringify(a)}`);
    expect(eventOp(store, event, since)).toBeUndefined();
    // A snapshot begun now may refer to it again.
    expect([...idem.ops(store.seq)][0]).toContain('"r":"cus_0123456789abcdefghijklmn"');
    expect(eventOp(store, event, store.seq)).toContain('"d":');
  });

  it("the journal says it is compacting from the snapshot's start to its switch to the new generation", async () => {
    const dir = tempDir();
    const state = new Map<string, string>();
    const j = new Journal(dir, { compactAt: 1, overSnapshot: 0, sliceMs: 0, pauseMs: 0, opsPerLine: 1 });
    j.open(() => {});
    j.snapshotOps = function* () {
      for (const [id, v] of state) yield `{"p":"thing","s":"t","o":{"id":"${id}","v":"${v}"}}`;
    };
    for (let i = 0; i < 50; i++) state.set(`t${i}`, 'x');
    expect(j.compacting).toBe(false);
    const committed = j.commit([`{"p":"thing","s":"t","o":{"id":"t0","v":"y"}}`]);
    // The journal is past its size once this is written: a compaction begins a turn later and
    // takes a turn per line (looked at every turn: it may end before the commit's own sync returns).
    await turnsUntil(() => j.compacting);
    await committed;
    await j.drain();
    expect(j.compacting).toBe(false);
    await j.close();
  });

  it('while compacting, the journal refers only to records put since the snapshot began', async () => {
    const app = new App({
      dataDir: tempDir(),
      settleAfterMs: 1000,
      webhookRetryScale: 1,
      log: () => {},
      journal: { compactAt: 1, overSnapshot: 0, sliceMs: 0, pauseMs: 0, opsPerLine: 1 },
    });
    app.open();
    const older = app.store.put(undefined, 'customer', 's', { ...customer('a'), id: 'cus_00000000000000000000000a' });
    for (let i = 0; i < 20; i++)
      app.store.put(undefined, 'customer', 's', { ...customer('x'), id: `cus_0000000000000000000000${String(i).padStart(2, '0')}` });
    expect(app.refOk(older)).toBe(true);
    const committed = app.journal.commit(['{"c":0}']);
    await turnsUntil(() => app.journal.compacting);
    expect(app.refOk(older)).toBe(false);
    const changed = app.store.put(undefined, 'customer', 's', { ...older.obj, name: 'b' } as Base);
    expect(app.refOk(changed)).toBe(true);
    await committed;
    await app.journal.drain();
    expect(app.journal.compacting).toBe(false);
    expect(app.refOk(older)).toBe(true);
    await app.journal.close();
  });
});
