// Listeners' claims on a mode's webhook URL (events.ts takeUrl/releaseUrl): a give-back never
// restores the URL of a listener that is gone (killed with kill -9, never gave it back), but what
// was there before it, down the chain (round-3 defect E3), while a live listener's URL is restored.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, start, type Emulator } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(async () => {
  await emu.stop();
});

/** A listener: a server on a free loopback port; `kill()` closes it without giving anything back. */
async function listener(): Promise<{ url: string; kill(): Promise<void> }> {
  const server: Server = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    kill: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const take = async (url: string) => (await admin(emu, 'POST', 'webhook-url', { url, listener: true })).body;
const release = async (url: string) => (await admin(emu, 'POST', 'webhook-url', { release: url })).body;
const setByHand = async (url: string | null) => (await admin(emu, 'POST', 'webhook-url', { url })).body;
const current = async () => (await admin(emu, 'GET', 'webhook-url')).body.url as string | null;

describe('give-back past listeners that are gone', () => {
  it('a listen killed, a new one on another port: its give-back restores what was there before the killed one', async () => {
    await setByHand('http://127.0.0.1:3000/hooks');
    const a = await listener();
    const b = await listener();
    expect((await take(a.url)).previous).toBe('http://127.0.0.1:3000/hooks');
    await a.kill();
    expect((await take(b.url)).previous).toBe(a.url);
    expect(await release(b.url)).toMatchObject({ url: 'http://127.0.0.1:3000/hooks', restored: true });
    // The killed one's claim ended with it: its give-back, if it ever came, changes nothing.
    expect(await release(a.url)).toMatchObject({ url: 'http://127.0.0.1:3000/hooks', restored: false });
    await b.kill();
  });

  it('a live listen under the one stopping is restored, as before (overlapping listens)', async () => {
    await setByHand(null);
    const a = await listener();
    const b = await listener();
    await take(a.url);
    await take(b.url);
    expect(await release(b.url)).toMatchObject({ url: a.url, restored: true });
    expect(await release(a.url)).toMatchObject({ url: null, restored: true });
    await a.kill();
    await b.kill();
  });

  it('any interleaving of listens taking, stopping and being killed: a give-back never restores a listener that is gone, and the last leaves the URL from before the first (fast-check)', async () => {
    const U0 = 'http://127.0.0.1:3000/before';
    // Each listener: take at some point, then either stop (give back) or be killed.
    const plan = fc
      .array(fc.boolean(), { minLength: 1, maxLength: 4 })
      .chain((killed) =>
        fc
          .shuffledSubarray(
            killed.flatMap((_, i) => [
              { i, op: 'take' as const },
              { i, op: 'end' as const },
            ]),
            { minLength: killed.length * 2, maxLength: killed.length * 2 },
          )
          .map((ops) => ({ killed, ops })),
      )
      // Each listener takes before it ends.
      .filter(({ ops }) => ops.every((o, k) => o.op === 'take' || ops.slice(0, k).some((p) => p.i === o.i && p.op === 'take')));
    await fc.assert(
      fc.asyncProperty(plan, async ({ killed, ops }) => {
        await setByHand(U0);
        const ls = await Promise.all(killed.map(() => listener()));
        const gone = new Set<string>();
        for (const { i, op } of ops) {
          const l = ls[i]!;
          if (op === 'take') await take(l.url);
          else if (killed[i]) {
            await l.kill();
            gone.add(l.url);
          } else {
            const r = await release(l.url);
            await l.kill();
            if (r.restored) expect(gone.has(r.url as string)).toBe(false);
          }
        }
        // Nothing is left listening: once no listen that is gone holds the URL, it is the one from before the first.
        const now = await current();
        if (!gone.has(now!)) expect(now).toBe(U0);
        else {
          // A killed listen holds it (it took over last, or every listen after it was killed too): documented, fixed by hand.
          expect(killed[ls.findIndex((l) => l.url === now)]).toBe(true);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
