// An emulator restarted on the same data dir keeps each mode's webhook URL and the listens' claims
// (webhook-file.ts, events.ts restore): a running listen keeps receiving and its give-back still
// restores what it took over (round-3 defect E2). Faults are not kept. A damaged settings file
// stops the start with one message and is left as it is.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkWebhookTarget } from '../../src/shared/validate.js';
import { admin, client, customerBody, removeTempDirs, start, tempDir, until, type Emulator } from './helpers.js';

const running = new Set<Emulator>();
const servers = new Set<Server>();
async function boot(dataDir: string | undefined, o: { port?: number; webhookUrl?: string } = {}): Promise<Emulator> {
  const emu = await start({ dataDir, ...o });
  running.add(emu);
  return emu;
}
async function stop(emu: Emulator): Promise<void> {
  await emu.stop();
  running.delete(emu);
}
afterAll(async () => {
  for (const e of running) await e.stop();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  removeTempDirs();
});

/** A receiver on a free loopback port that records the event ids delivered to it. */
async function receiver(): Promise<{ url: string; got: string[] }> {
  const got: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      try {
        got.push((JSON.parse(body) as { id: string }).id);
      } catch {
        // not an event
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.add(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got };
}

const q = (mode: string) => (mode === 'live' ? '?mode=live' : '');
const take = async (emu: Emulator, url: string, mode = 'sandbox') =>
  (await admin(emu, 'POST', `webhook-url${q(mode)}`, { url, listener: true })).body;
const release = async (emu: Emulator, url: string, mode = 'sandbox') =>
  (await admin(emu, 'POST', `webhook-url${q(mode)}`, { release: url })).body;
const setByHand = async (emu: Emulator, url: string | null, mode = 'sandbox') =>
  (await admin(emu, 'POST', `webhook-url${q(mode)}`, { url })).body;
const current = async (emu: Emulator, mode = 'sandbox') => (await admin(emu, 'GET', `webhook-url${q(mode)}`)).body.url as string | null;

describe('restart on the same data dir', () => {
  it('a running listen keeps receiving, and its give-back still restores what it took over; each mode keeps its own', async () => {
    const dir = tempDir();
    const app = await receiver();
    const listen = await receiver();
    const live = await receiver();
    let emu = await boot(dir);
    await setByHand(emu, app.url);
    await setByHand(emu, live.url, 'live');
    expect((await take(emu, listen.url)).previous).toBe(app.url);
    await stop(emu);

    emu = await boot(dir);
    expect(emu.webhookUrls).toEqual({ sandbox: listen.url, live: live.url });
    expect(await current(emu)).toBe(listen.url);
    expect(await current(emu, 'live')).toBe(live.url);
    const made = await client(emu)('POST', 'customers', customerBody(1));
    expect(made.status).toBe(201);
    const madeLive = await client(emu, { key: emu.keys.live.secret })('POST', 'customers', customerBody(2));
    expect(madeLive.status).toBe(201);
    const events = (await client(emu)('GET', `webhooks/events?object_id=${made.body.id as string}`)).body.data as Array<{ id: string }>;
    await until('every event at the listen', () => events.length > 0 && events.every((e) => listen.got.includes(e.id)));
    await until('a delivery at the Live URL', () => live.got.length > 0);
    expect(app.got).toEqual([]);

    // The listen stops after the restart: the hand-set URL from before it comes back.
    expect(await release(emu, listen.url)).toMatchObject({ url: app.url, restored: true });
    await stop(emu);
    emu = await boot(dir);
    expect(await current(emu)).toBe(app.url);
    expect(await current(emu, 'live')).toBe(live.url);
    await stop(emu);
  });

  it('--webhook-url replaces the saved Sandbox URL and ends its claims; the Live one stays', async () => {
    const dir = tempDir();
    const a = await receiver();
    const b = await receiver();
    const c = await receiver();
    let emu = await boot(dir);
    await take(emu, a.url);
    await take(emu, b.url, 'live');
    await stop(emu);
    emu = await boot(dir, { webhookUrl: c.url });
    expect(emu.webhookUrls).toEqual({ sandbox: c.url, live: b.url });
    // a's claim ended with the URL set by hand: its give-back leaves c.
    expect(await release(emu, a.url)).toMatchObject({ url: c.url, restored: false });
    expect(await release(emu, b.url, 'live')).toMatchObject({ url: null, restored: true });
    await stop(emu);
  });

  it('events made before the restart, pending with no URL, go to the URL set after it', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    const made = await client(emu)('POST', 'customers', customerBody(3));
    await stop(emu);
    const r = await receiver();
    emu = await boot(dir);
    await setByHand(emu, r.url);
    await stop(emu);
    emu = await boot(dir);
    const events = (await client(emu)('GET', `webhooks/events?object_id=${made.body.id as string}`)).body.data as Array<{ id: string }>;
    await until('every event at the receiver', () => events.length > 0 && events.every((e) => r.got.includes(e.id)));

    await stop(emu);
  });

  it('a saved listen URL that names the emulator itself now (restarted on that port): its claim ends, what it took over comes back', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    const hand = await receiver();
    await setByHand(emu, hand.url);
    // A free port, taken by a "listen" now and by the emulator after the restart.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const self = `http://127.0.0.1:${port}/hooks`;
    await take(emu, self);
    await stop(emu);
    emu = await boot(dir, { port });
    // Nothing can listen there now: as for a killed listen, what it took over comes back.
    expect(await current(emu)).toBe(hand.url);
    expect((await admin(emu, 'POST', 'webhook-url', { release: self })).status).toBe(422);
    await stop(emu);
  });

  it('faults are not kept: a restart starts without them', async () => {
    const dir = tempDir();
    let emu = await boot(dir);
    await admin(emu, 'POST', 'faults', { fail_rate: 0.5, reset_rate: 0.1, latency_ms: [1, 2], rate_limit: { per_second: 5, burst: 5 } });
    await stop(emu);
    emu = await boot(dir);
    expect((await admin(emu, 'GET', 'faults')).body).toEqual({ fail_rate: 0, latency_ms: null, reset_rate: 0, rate_limit: null });
    await stop(emu);
  });

  it('reset keeps the URLs and claims (settings, not data), on disk too', async () => {
    const dir = tempDir();
    const a = await receiver();
    let emu = await boot(dir);
    await take(emu, a.url);
    await admin(emu, 'POST', 'reset', {});
    await stop(emu);
    emu = await boot(dir);
    expect(await current(emu)).toBe(a.url);
    expect(await release(emu, a.url)).toMatchObject({ url: null, restored: true });
    await stop(emu);
  });
});

describe('any sequence of takes, give-backs and hand-set URLs', () => {
  it('an emulator restarted after it behaves as one that was not: the same URLs and the same give-backs', async () => {
    const urls = await Promise.all([receiver(), receiver(), receiver(), receiver()]).then((rs) => rs.map((r) => r.url));
    const mode = fc.constantFrom('sandbox', 'live');
    const url = fc.constantFrom(...urls);
    const op = fc.oneof(
      fc.record({ k: fc.constant('take' as const), url, mode }),
      fc.record({ k: fc.constant('release' as const), url, mode }),
      fc.record({ k: fc.constant('set' as const), url: fc.option(url, { nil: null }), mode }),
    );
    const still = await boot(undefined);
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 8 }), fc.shuffledSubarray(urls), async (ops, order) => {
        const dir = tempDir();
        let moved = await boot(dir);
        for (const m of ['sandbox', 'live']) await setByHand(still, null, m);
        const apply = async (emu: Emulator, o: (typeof ops)[number]) =>
          o.k === 'take' ? take(emu, o.url, o.mode) : o.k === 'release' ? release(emu, o.url, o.mode) : setByHand(emu, o.url, o.mode);
        for (const o of ops) expect(await apply(moved, o)).toEqual(await apply(still, o));
        await stop(moved);
        moved = await boot(dir);
        for (const m of ['sandbox', 'live']) {
          expect(await current(moved, m)).toBe(await current(still, m));
          // Every listen stopping, in some order: the same give-backs.
          for (const u of order) expect(await release(moved, u, m)).toEqual(await release(still, u, m));
        }
        await stop(moved);
      }),
      { numRuns: 12 },
    );
    await stop(still);
  });
});

describe('the settings file', () => {
  const valid = (a: string, b: string) => ({
    version: 1,
    sandbox: { url: a, claims: [{ url: a, previous: b }] },
    live: { url: null, claims: [] },
  });

  it('is written 0600, whole, and names what it holds', async () => {
    const dir = tempDir();
    const a = await receiver();
    const emu = await boot(dir);
    await take(emu, a.url);
    const file = join(dir, 'webhooks.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      version: 1,
      sandbox: { url: a.url, claims: [{ url: a.url, previous: null }] },
      live: { url: null, claims: [] },
    });
    const { statSync } = await import('node:fs');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await stop(emu);
  });

  it('keys.json or webhooks.json that is a fifo or a folder: the start is refused naming it, never waiting on it', async () => {
    const cases = [
      { file: 'webhooks.json', message: 'is not an emulator webhook settings file' },
      { file: 'keys.json', message: 'is not an emulator key file' },
    ];
    for (const { file, message } of cases)
      for (const kind of ['fifo', 'folder'] as const) {
        const dir = tempDir();
        const path = join(dir, file);
        // A fifo with no writer: reading it the plain way waits forever (the test's time-out).
        if (kind === 'fifo') execFileSync('mkfifo', [path]);
        else mkdirSync(path);
        await expect(boot(dir), `${file} as a ${kind}`).rejects.toThrow(`${path} ${message}`);
      }
  });

  it('keys.json or webhooks.json that is a symbolic link (to a valid file, dangling, to a folder, to a fifo): refused naming it, the link and what it points at unchanged', async () => {
    // Issue 24 item 12: a link was read through, and a dangling one replaced by a regular file.
    const good = tempDir();
    await (await boot(good)).stop();
    const hooks = { version: 1, sandbox: { url: null, claims: [] }, live: { url: null, claims: [] } };
    writeFileSync(join(good, 'webhooks.json'), JSON.stringify(hooks));
    for (const file of ['keys.json', 'webhooks.json'])
      for (const target of ['valid file', 'dangling', 'folder', 'fifo'] as const) {
        const dir = tempDir();
        const outside = tempDir();
        const to = target === 'valid file' ? join(good, file) : target === 'dangling' ? join(outside, 'gone') : join(outside, target);
        if (target === 'folder') mkdirSync(to);
        if (target === 'fifo') execFileSync('mkfifo', [to]);
        const before = target === 'valid file' ? readFileSync(to, 'utf8') : undefined;
        symlinkSync(to, join(dir, file));
        const err = await boot(dir).then(
          () => undefined,
          (e: Error) => e,
        );
        expect(err?.message, `${file} -> ${target}`).toBe(
          `${join(dir, file)} is a symbolic link; the emulator reads and writes only a regular file there: move the link away (or put the file it points at in its place)`,
        );
        expect(readlinkSync(join(dir, file))).toBe(to);
        if (before !== undefined) expect(readFileSync(to, 'utf8')).toBe(before);
        if (target === 'dangling') expect(existsSync(to)).toBe(false);
      }
  });

  it('keys.json missing beside a journal or snapshot: refused naming them (new keys would hide every record); beside none or an empty journal: new keys', async () => {
    // Issue 24 item 11.
    const dir = tempDir();
    let emu = await boot(dir);
    await client(emu)('POST', 'customers', customerBody(1));
    await emu.stop();
    const keys = readFileSync(join(dir, 'keys.json'));
    const journal0 = readFileSync(join(dir, 'journal-0.jsonl'));
    const variants: Array<{ name: string; make: (d: string) => void; refused?: RegExp }> = [
      {
        name: 'journal-0 with records',
        make: (d) => writeFileSync(join(d, 'journal-0.jsonl'), journal0, { mode: 0o600 }),
        refused: /holds journal-0\.jsonl,/,
      },
      {
        name: 'a generation after a compaction',
        make: (d) => {
          cpSync(dir, d, { recursive: true });
          rmSync(join(d, 'keys.json'));
        },
        refused: /holds journal-1\.jsonl, snapshot-1\.jsonl,/,
      },
      { name: 'an empty journal-0', make: (d) => writeFileSync(join(d, 'journal-0.jsonl'), '', { mode: 0o600 }) },
      { name: 'nothing', make: () => {} },
    ];
    emu = await boot(dir);
    expect((await admin(emu, 'POST', 'compact')).status).toBe(200);
    await emu.stop();
    for (const v of variants) {
      const d = join(tempDir(), 'data');
      mkdirSync(d, { mode: 0o700 });
      v.make(d);
      const before = readdirSync(d).sort();
      const err = await boot(d).then(
        async (e) => {
          await e.stop();
          return undefined;
        },
        (e: Error) => e,
      );
      if (v.refused) {
        expect(err?.message, v.name).toMatch(v.refused);
        expect(err?.message).toMatch(/keys\.json is missing, .*put keys\.json back \(from a backup\), or move those files away/);
        expect(readdirSync(d).sort()).toEqual(before);
      } else {
        expect(err, v.name).toBeUndefined();
        expect(readFileSync(join(d, 'keys.json'))).not.toEqual(keys);
      }
    }
  });

  it('damaged in any field: the start is refused naming the file, which is left as it is; else every URL it restores is a valid target', async () => {
    const a = 'http://127.0.0.1:3001/hooks';
    const b = 'https://example.com/hooks';
    // Any value put anywhere in a valid file (or the file replaced by any text).
    const paths: Array<Array<string | number>> = [
      ['version'],
      ['sandbox'],
      ['sandbox', 'url'],
      ['sandbox', 'claims'],
      ['sandbox', 'claims', 0],
      ['sandbox', 'claims', 0, 'url'],
      ['sandbox', 'claims', 0, 'previous'],
      ['live', 'url'],
      ['live', 'claims'],
    ];
    const hostileUrl = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'http://user:pw@127.0.0.1:1/',
        'http://example.com/',
        'ftp://127.0.0.1/',
        'http://127.0.0.1:0/',
        `https://x/${'a'.repeat(2100)}`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ path: fc.constantFrom(...paths), value: fc.oneof(fc.jsonValue(), hostileUrl) }),
          fc.record({ text: fc.string() }),
        ),
        async (damage) => {
          const dir = tempDir();
          let text: string;
          if ('text' in damage) text = damage.text;
          else {
            const doc = valid(a, b) as unknown as Record<string | number, unknown>;
            let at = doc;
            for (const key of damage.path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
            at[damage.path.at(-1)!] = damage.value;
            text = JSON.stringify(doc);
          }
          const file = join(dir, 'webhooks.json');
          writeFileSync(file, text);
          let emu: Emulator | undefined;
          try {
            emu = await boot(dir);
          } catch (err) {
            expect((err as Error).message).toBe(
              `${file} is not an emulator webhook settings file; move it away (the emulator then starts with no webhook URL)`,
            );
            expect(readFileSync(file, 'utf8')).toBe(text);
            return;
          }
          for (const u of Object.values(emu.webhookUrls)) if (u !== undefined) expect(checkWebhookTarget(u)).toBeUndefined();
          await stop(emu);
        },
      ),
      { numRuns: 60 },
    );
  });
});
