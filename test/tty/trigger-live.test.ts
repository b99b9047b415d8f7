// `pay --live trigger <type>` on a terminal: what it creates is real, so it says what (the
// objects it creates, and every money request as it will be sent) and asks once, before the first request. "n": exit 2,
// one error line, nothing sent; "y": the objects are made with the live key. Off a terminal the
// same run needs --yes (test/e2e/trigger.test.ts, test/unit/commands/trigger.test.ts).
import { expect, it } from 'vitest';
import { RECIPES, recipeObjects } from '../../src/commands/trigger/recipes.js';
import { ttyWorld } from '../helpers/tty-world.js';
import { activePrompt, describeTty, linesBeforeExit, type Pane } from './tmux.js';

// The panes send the live key.
const tty = ttyWorld('pay-tty-trigger-cfg-', { emulator: { settleAfterMs: 20 }, key: 'live' });
const { w } = tty;

async function question(p: Pane, type: keyof typeof RECIPES): Promise<void> {
  const screen = await p.waitFor((s) => /^\? .*\(y\/N\)/m.test(s));
  expect(screen.replace(/\s+/g, ' ')).toContain(
    `create live objects, all new (nothing existing is used): ${recipeObjects(RECIPES[type]).join(', ')}`,
  );
  const prompt = activePrompt(screen)!;
  expect(prompt).toMatch(new RegExp(`LIVE mode, profile "[^"]+": "pay trigger ${type.replace('.', '\\.')}"\\?`));
}

describeTty('pay --live trigger asks in a real terminal (tmux)', () => {
  it('answering n: exit 2, one line, nothing sent', async () => {
    const mark = w.mark();
    const p = await tty.pay(['--live', 'trigger', 'transfer.completed', '--override', 'transfer.amount=50.00']);
    await question(p, 'transfer.completed');
    // The amount it would send, after the override, and the collection that funds it: not the recipe's 25.00.
    const asked = (await p.waitFor(/move live money/)).replace(/\s+/g, ' ');
    expect(asked).toContain('move live money: transfer 50.00 USD from (the new account) to (the new external account)');
    expect(asked).toContain('move live money: collection 51.00 USD to (the new account)');
    expect(asked).not.toContain('25.00');
    expect(w.since(mark)).toEqual([]);
    await p.type('n');
    await p.keys('Enter');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    expect(linesBeforeExit(screen).filter((l) => l.startsWith('error:'))).toEqual(['error: not confirmed; nothing was sent']);
    expect(w.since(mark)).toEqual([]);
  });

  it('answering y: made with the live key', async () => {
    const mark = w.mark();
    const p = await tty.pay(['--live', 'trigger', 'customer.created']);
    await question(p, 'customer.created');
    await p.type('y');
    await p.keys('Enter');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    const posts = w.since(mark, 'POST', '/v1/customers');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers['api-key']).toBe(w.emu.keys.live.secret);
  });
});
