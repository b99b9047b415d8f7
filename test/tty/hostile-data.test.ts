// Data never drives the terminal, checked on a real one (tmux): a customer named with an OSC
// window-title sequence, a screen clear and a fake table row; a created object whose id carries
// one (the `✓ Created …` line); an API error whose message carries one; a config file whose
// tenant id carries one (quoted in the error that refuses it). The pane's title must not change, the
// screen is not cleared, the table has exactly its rows, and the sequences are shown as text.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { customerFlags } from '../helpers/fixtures.js';
import { ttyServer } from '../helpers/tty-world.js';
import { describeTty, linesBeforeExit, scratchDir, type Pane } from './tmux.js';

const TITLE = '\x1b]0;pwned\x07';
const TITLE_ST = '\x1b]2;pwned\x1b\\';
const CLEAR = '\x1b[2J\x1b[H';
const FAKE_ROW = '\ncus_fake000000000000000000000  Fake  Row';

const tty = ttyServer('pay-tty-hostile-');
const { server } = tty;

/** Runs to the end and checks the pane title was not changed by anything pay printed. */
async function finishUntitled(p: Pane): Promise<{ code: number; screen: string }> {
  const result = await p.finish();
  expect(await p.title(), result.screen).not.toContain('pwned');
  return result;
}

describeTty('data never drives the terminal (tmux)', () => {
  it('a list table: title sequences, a clear and a fake row in names are shown escaped, one line per customer', async () => {
    const names = [`Ada${TITLE}`, `${CLEAR}Grace`, `Linus${FAKE_ROW}`, `Mallory\u202eevil\u202c${TITLE_ST}`];
    server.queue.push({
      status: 200,
      body: {
        object: 'list',
        data: names.map((n, i) => ({
          id: `cus_${String(i).padStart(24, '0')}`,
          first_name: n,
          last_name: 'X',
          email: 'x@example.com',
          type: 'individual',
          kyc_status: 'pending',
          created_at: '2026-11-20T10:00:00.000Z',
        })),
        has_more: false,
        next_cursor: null,
      },
    });
    // --wide: the escaped names whole (fitted to the pane, the longest would be cut with …).
    const p = await tty.pay(['customers', 'list', '--wide']);
    const { code, screen } = await finishUntitled(p);
    expect(code, screen).toBe(0);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    expect(lines, screen).toHaveLength(names.length + 1);
    expect(lines[0]).toMatch(/^ID\s+FIRST NAME/);
    expect(lines[1]).toContain('Ada\\x1b]0;pwned\\x07');
    expect(lines[2]).toContain('\\x1b[2J\\x1b[HGrace');
    expect(lines[3]).toContain('Linus\\ncus_fake');
    expect(lines[4]).toContain('Mallory\\u202eevil\\u202c\\x1b]2;pwned\\x1b\\');
  });

  it('the ✓ Created line: an id and fields with sequences are shown escaped', async () => {
    server.queue.push({
      status: 201,
      body: { id: `cus_${TITLE}${CLEAR}`, object: 'customer', first_name: `Ada${TITLE_ST}`, kyc_status: 'pending' },
    });
    const p = await tty.pay(['customers', 'create', ...customerFlags({ '--middle-name': 'King', '--gender': 'female' })]);
    const { code, screen } = await finishUntitled(p);
    expect(code, screen).toBe(0);
    expect(screen).toContain('✓ Created customer cus_\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H');
    expect(screen).toContain('Ada\\x1b]2;pwned\\x1b\\');
    expect(server.requests).toHaveLength(1);
  });

  it('an API error: the message and field errors are shown escaped, one line each', async () => {
    server.queue.push({
      status: 422,
      body: {
        code: 'invalid',
        title: 'x',
        detail: `bad${TITLE}${CLEAR}`,
        errors: [{ field: `email${TITLE_ST}`, message: `no${FAKE_ROW}` }],
      },
    });
    const p = await tty.pay(['customers', 'get', 'cus_000000000000000000000000']);
    const { code, screen } = await finishUntitled(p);
    expect(code, screen).toBe(1);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    expect(lines, screen).toHaveLength(2);
    expect(lines[0]).toMatch(/^error: HTTP 422 invalid: bad\\x1b\]0;pwned\\x07\\x1b\[2J\\x1b\[H/);
    expect(lines[1]).toMatch(/^ {2}email\\x1b\]2;pwned\\x1b\\: no\\ncus_fake/);
  });

  it('a config file value quoted in an error (login, a bad tenant id) is shown escaped', async () => {
    const dir = scratchDir('pay-tty-hostile-login-');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ current_profile: 'default', profiles: { default: { tenant_id: `biz${TITLE}` } } }),
      { mode: 0o600 },
    );
    const p = await tty.pay(['login'], { env: { PAY_CONFIG_DIR: dir }, envOnly: true });
    const { code, screen } = await finishUntitled(p);
    expect(code, screen).toBe(2);
    const lines = linesBeforeExit(screen).filter((l) => l.trim() !== '');
    expect(lines).toEqual([expect.stringMatching(/^error: invalid tenant id "biz\\x1b\]0;pwned\\x07"/)]);
  });
});
