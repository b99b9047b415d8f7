// `pay seed apply` in live mode on a terminal (issue 18): it asks like every live money movement,
// listing what would move money, before anything is sent. "n": exit 2, one error line, nothing
// sent; "y": the set is applied with the live key.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { expect, it } from 'vitest';
import { customerBody } from '../e2e/groups/helpers.js';
import { ttyWorld } from '../helpers/tty-world.js';
import { activePrompt, describeTty, linesBeforeExit, scratchDir, type Pane } from './tmux.js';

// The panes send the live key, in live mode.
const tty = ttyWorld('pay-tty-seed-cfg-', { emulator: { settleAfterMs: 20 }, key: 'live', env: { PAY_MODE: 'live' } });
const { w } = tty;

function seedFile(amount: string): string {
  const dir = scratchDir('pay-tty-seed-');
  const file = join(dir, 'live.yaml');
  writeFileSync(
    file,
    stringify({
      customers: { alice: customerBody() },
      features: { collections: { customer_id: '${customers.alice.id}', feature: 'collections' } }, // the business rules
      accounts: {
        a: { customer_id: '${customers.alice.id}', currency: 'USD' },
        b: { customer_id: '${customers.alice.id}', currency: 'USD' },
      },
      collections: { fund: { account_id: '${accounts.a.id}', amount: '50.00', currency: 'USD', method: 'card' } },
      transfers: {
        move: {
          source_account_id: '${accounts.a.id}',
          destination_id: '${accounts.b.id}',
          amount,
          currency: 'USD',
          depends_on: ['collections.fund'],
        },
      },
    }),
  );
  return file;
}

async function confirmation(p: Pane, amount: string): Promise<string> {
  const screen = await p.waitFor((s) => /^\? .*\(y\/N\)/m.test(s));
  expect(screen).toMatch(/LIVE mode, profile "[^"]+": seed apply would send/);
  expect(screen).toContain('collections.fund: moves 50.00 USD');
  expect(screen).toContain(`transfers.move: moves ${amount} USD`);
  const prompt = activePrompt(screen)!;
  expect(prompt).toContain('Apply 2 live changes that move money or retire objects?');
  return prompt;
}

describeTty('seed apply in live mode asks in a real terminal (tmux)', () => {
  it('answering n: exit 2, one line, nothing sent', async () => {
    const mark = w.mark();
    const p = await tty.pay(['seed', 'apply', seedFile('7.00')]);
    await confirmation(p, '7.00');
    expect(w.since(mark)).toEqual([]);
    await p.type('n');
    await p.keys('Enter');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    const errors = linesBeforeExit(screen).filter((l) => l.startsWith('error:'));
    expect(errors).toEqual(['error: not confirmed; nothing was sent']);
    expect(w.since(mark)).toEqual([]);
  });

  it('answering y: the set is applied with the live key', async () => {
    const mark = w.mark();
    const p = await tty.pay(['seed', 'apply', seedFile('8.00')]);
    await confirmation(p, '8.00');
    await p.type('y');
    await p.keys('Enter');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    const transfers = w.since(mark, 'POST', '/v1/transfers');
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.headers['api-key']).toBe(w.emu.keys.live.secret);
    expect((transfers[0]!.body as { amount: string }).amount).toBe('8.00');
  });
});
