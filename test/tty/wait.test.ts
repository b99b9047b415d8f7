// Waiting on a terminal (tmux): `pay trigger card.activated` and `collections create --wait` show
// a spinner on stderr while the service has not settled, clear it, say what happened, and leave
// stdout (redirected to a file) holding the data only. The emulator settles nothing by itself here
// (10 minutes); the test moves its clock once it has seen the spinner: no timing window.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ttyEmulator } from '../helpers/tty-world.js';
import { describeTty, scratchDir } from './tmux.js';

const tty = ttyEmulator('pay-tty-wait-', { settleAfterMs: 600_000 });
const { emu } = tty;

describeTty('waiting on a terminal (tmux)', () => {
  it('pay trigger card.activated: the objects as they are made, a spinner per wait, cleared; the table on stdout only', async () => {
    const dir = scratchDir('pay-tty-trigger-');
    const p = await tty.payToFile(['trigger', 'card.activated', '-o', 'tsv'], dir, 'out.tsv');
    // KYC: the review waits for the emulator's clock.
    await p.waitFor(/Waiting for KYC verification kyc_[0-9a-z]{24} to be decided \(\d+ s\)/);
    expect(await p.screen()).toMatch(/created customer cus_[0-9a-z]{24}/);
    emu.admin.advance(600);
    // The physical card: inactive until shipped and activated.
    await p.waitFor(/Waiting for the card\.activated event about card_[0-9a-z]{24} \(\d+ s\)/);
    emu.admin.advance(600);
    const { code, screen } = await p.finish();
    expect(code).toBe(0);
    expect(screen).toMatch(/✓ Triggered card\.activated: evt_[0-9a-z]{24}/);
    expect(screen).not.toMatch(/Waiting for/);
    expect(screen).not.toMatch(/⠋|⠙|⠹/);
    const out = readFileSync(join(dir, 'out.tsv'), 'utf8').trim().split('\n');
    expect(out[0]).toBe('object\tid\ttype');
    expect(out.at(-1)).toMatch(/^event\tevt_[0-9a-z]{24}\tcard\.activated$/);
  }, 90_000);

  it('collections create --wait: a spinner until it settles, then exit 0 and the collection on stdout', async () => {
    const api = async (path: string, body: unknown) => {
      const res = await fetch(emu.baseUrl + path, {
        method: 'POST',
        headers: {
          'api-key': emu.keys.sandbox.secret,
          'x-tenant-id': emu.tenantId,
          'content-type': 'application/json',
          'idempotency-key': crypto.randomUUID(),
        },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { id: string };
    };
    const cus = await api('customers', {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: `ada-${Date.now()}@example.com`,
      phone: '+447700900123',
      type: 'individual',
      date_of_birth: '1990-12-10',
      address: { address_line1: '1 Main St', city: 'London', country: 'GB', postal_code: 'SW1A 1AA' },
    });
    const acc = await api('accounts', { customer_id: cus.id, currency: 'USD' });
    await api(`customers/${cus.id}/features/collections/activate`, {}); // the business rules
    const dir = scratchDir('pay-tty-collect-');
    const p = await tty.payToFile(
      ['collections', 'create', '--account', acc.id, '--amount', '10.00', '--currency', 'USD', '--method', 'card', '--wait', '--json'],
      dir,
      'out.json',
    );
    await p.waitFor(/Waiting for collection col_[0-9a-z]{24} to settle \(\d+ s\)/);
    emu.admin.advance(600);
    const { code, screen } = await p.finish();
    expect(code).toBe(0);
    expect(screen).not.toMatch(/Waiting for/);
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))).toMatchObject({
      id: expect.stringMatching(/^col_/),
      status: 'succeeded',
    });
  }, 60_000);
});
