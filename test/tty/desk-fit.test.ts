// Everything fits the terminal (#28 items 6 and 9), in a real terminal (tmux) at 80 and 120
// columns against the emulator: `webhooks get` of an event whose delivery failed with a hostile
// answer (each attempt's time, status, duration, whole URL and the escaped answer), `help rules`
// and `help simulate`, `webhooks listen --forward-to` status lines, and `trigger` (what it created
// said once). The pane is captured with wrapped lines joined (capture-pane -J), so a line the
// terminal had to wrap shows up wider than the pane, and an id it split shows up broken.
import { createServer as createHttpServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { customerBody, type Obj } from '../e2e/groups/helpers.js';
import { ttyWorld } from '../helpers/tty-world.js';
import { describeTty, linesBeforeExit, type Pane } from './tmux.js';
import { freePort } from '../helpers/ports.js';

let app: Server;
let appUrl: string;
let failedEvent: string;
/** The pane run() opened last (its title read, or killed early by a test that runs several). */
let pane: Pane | undefined;
const HOSTILE = 'upstream \x1b[31mdown\x1b[0m\x1b]0;pwned\x07 after 3 retries, see https://status.example.com/incidents/2811\r\n';

// The app the emulator delivers webhooks to, started before the emulator (which is given its URL).
beforeAll(async () => {
  app = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(HOSTILE);
    });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}/hooks/pay?tenant=biz_1`;
});
afterAll(async () => {
  await new Promise((r) => app?.close(r));
});

const tty = ttyWorld('pay-tty-desk-', { emulator: () => ({ webhookUrl: appUrl, webhookRetryScale: 100 }), env: { PAY_PAGER: '' } });
const { w } = tty;

beforeAll(async () => {
  const c = await w.api('POST', 'customers', customerBody());
  await w.settle(1);
  failedEvent = ((await w.api('GET', `webhooks/events?object_id=${c.id as string}`)).data as Obj[])[0]!.id as string;
}, 60_000);

async function run(args: string[], width: number): Promise<string[]> {
  const p = (pane = await tty.pay(args, { width, height: 60 }));
  const { code, screen } = await p.finish();
  expect(code, screen).toBe(0);
  return linesBeforeExit(screen);
}

const fits = (lines: readonly string[], width: number): void => {
  for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(width);
};

describeTty('the support desk fits the terminal (tmux)', () => {
  for (const width of [80, 120]) {
    it(`webhooks get of a failed delivery at ${width} columns: time, status, duration, the whole URL, the answer escaped`, async () => {
      const lines = await run(['webhooks', 'get', failedEvent], width);
      const screen = lines.join('\n');
      const at = lines.indexOf('Delivery attempts (1)');
      expect(at, screen).toBeGreaterThan(0);
      expect(lines[at + 1]).toMatch(/^#1 {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z {2}HTTP 500 {2}\d+ ms(?: {2}| *$)/);
      expect(screen).toMatch(/whd_[0-9a-z]{24}/);
      // The URL is never cut; it fits these widths whole on its line.
      expect(lines).toContain(`    url     ${appUrl}`);
      const answer = lines.slice(lines.findIndex((l) => l.startsWith('    answer  '))).join('\n');
      expect(answer).toContain('\\x1b[31mdown\\x1b[0m\\x1b]0;pwned\\x07');
      expect(await pane!.title()).not.toContain('pwned');
      fits(lines, width);
    });

    it(`help rules and help simulate at ${width} columns: every line fits, nothing split`, async () => {
      const words: Record<string, string[]> = {
        rules: ['international_transfers', 'kyc_rejected', 'feature_not_active'],
        simulate: ['destination_rejected', 'kyc_rejected', 'payment_declined', 'kyc-legacy'],
      };
      for (const topic of ['rules', 'simulate']) {
        const lines = await run(['help', topic], width);
        fits(lines, width);
        // Every word whole: each appears as itself, bounded by spaces or punctuation.
        const text = lines.join(' ');
        for (const word of words[topic]!) expect(text).toMatch(new RegExp(`(^|[\\s"(])${word}([\\s",.:;)]|$)`));
        await pane!.kill();
      }
    });
  }

  it('trigger at 80 columns: what it created is said once (no table after the lines), each id whole', async () => {
    const lines = await run(['trigger', 'customer.created'], 80);
    const screen = lines.join('\n');
    const ids = screen.match(/\bcus_[0-9a-z]{24}\b/g) ?? [];
    expect(ids, screen).toHaveLength(1);
    expect(screen).toMatch(/^ {2}created customer cus_[0-9a-z]{24}$/m);
    expect(screen).toMatch(/^✓ Triggered customer\.created: evt_[0-9a-z]{24}$/m);
    expect(screen).not.toMatch(/^OBJECT\s+ID/m);
    fits(lines, 80);
  });

  it('webhooks listen at 80 columns: its status lines break at spaces, no event id split', async () => {
    const port = await freePort();
    const p = await tty.pay(['webhooks', 'listen', '--port', String(port), '--forward-to', appUrl], { width: 80, height: 60 });
    await p.waitFor('Ctrl-C to stop');
    const c = await w.api('POST', 'customers', customerBody());
    await w.settle(1);
    const lines = (await p.waitFor(/<-- \[500\]/)).split('\n');
    fits(lines, 80);
    const evt = ((await w.api('GET', `webhooks/events?object_id=${c.id as string}`)).data as Obj[])[0]!.id as string;
    expect(lines.filter((l) => l.includes(evt)).length, lines.join('\n')).toBeGreaterThanOrEqual(2);
    expect(lines.join('\n')).toContain(appUrl);
  });
});
