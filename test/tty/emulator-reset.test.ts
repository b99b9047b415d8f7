// `pay emulator reset` on a real terminal (tmux) asks first, default no: "n" (or Enter) keeps every
// object and exits 2 with one line; "y" forgets them. Off a terminal it needs --yes:
// test/e2e/emulator-verbs.test.ts. The emulator runs in this process, the pane's pay talks to it.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { customerBody } from '../e2e/groups/helpers.js';
import { describeTty, linesBeforeExit, Pane, removeScratch, scratchDir } from './tmux.js';

let emu: Emulator;
let pane: Pane | undefined;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterEach(async () => {
  await pane?.kill();
  pane = undefined;
});
afterAll(async () => {
  removeScratch();
  await emu?.stop();
});

const env = (): Record<string, string> => ({ PAY_BASE_URL: emu.baseUrl, PAY_CONFIG_DIR: scratchDir('pay-tty-reset-') });

async function customers(): Promise<number> {
  const res = await fetch(`${emu.baseUrl}customers?limit=100`, { headers: { 'api-key': emu.keys.sandbox.secret } });
  return ((await res.json()) as { data: unknown[] }).data.length;
}

async function aCustomer(): Promise<void> {
  const res = await fetch(`${emu.baseUrl}customers`, {
    method: 'POST',
    headers: { 'api-key': emu.keys.sandbox.secret, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify(customerBody()),
  });
  expect(res.status).toBe(201);
}

const QUESTION = `Reset the emulator at ${'http://127.0.0.1:'}`;

describeTty('emulator reset in a real terminal (tmux)', () => {
  it.each([['n'], ['']])('answering %j keeps everything: exit 2, one error line', async (answer) => {
    await aCustomer();
    const before = await customers();
    const p = (pane = await Pane.pay(['emulator', 'reset'], { env: env() }));
    await p.answer(QUESTION, answer);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    expect(screen).toContain(`Reset the emulator at ${emu.url}? All its data is forgotten`);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    expect(lines.at(-1)).toBe('error: not confirmed; nothing was reset');
    expect(await customers()).toBe(before);
  });

  it('answering y forgets every object', async () => {
    await aCustomer();
    const p = (pane = await Pane.pay(['emulator', 'reset'], { env: env() }));
    await p.answer(QUESTION, 'y');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(screen).toContain(`✓ Emulator reset: ${emu.url} holds no data now`);
    expect(await customers()).toBe(0);
  });
});
