// transfers send --wait: polls until the transfer leaves pending; exit 0 completed, 1 failed or
// cancelled (naming failure_reason); bounded by --wait-timeout; a spinner on terminals only.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/client.js';
import { waitForTransfer } from '../../../src/commands/transfers/send.js';
import { bufferIOStreams } from '../../../src/io/iostreams.js';
import { PayError } from '../../../src/lib/errors.js';
import { pay, type Recorded } from './harness.js';

const ACC = 'acc_0123456789abcdefghijklmn';
const EA = 'ea_0123456789abcdefghijklmn';
const TR = 'tr_0123456789abcdefghijklmn';
const SEND = ['transfers', 'send', '--from', ACC, '--to', EA, '--amount', '1.13', '--currency', 'USD', '--wait'];

/** POST answers pending; the GETs answer the given statuses in turn. */
function settlesAs(...statuses: Array<{ status: string; failure_reason?: string }>) {
  let gets = 0;
  return (req: Recorded) => {
    if (req.method === 'POST') return { status: 201, body: { id: TR, status: 'pending', amount: '1.13', currency: 'USD' } };
    const s = statuses[Math.min(gets++, statuses.length - 1)]!;
    return { status: 200, body: { id: TR, amount: '1.13', currency: 'USD', failure_reason: null, ...s } };
  };
}

describe('transfers send --wait (through the command)', () => {
  it('prints the settled transfer and exits 0 when completed', async () => {
    const r = await pay([...SEND, '--json'], { respond: settlesAs({ status: 'pending' }, { status: 'completed' }) });
    expect(r.code).toBe(0);
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST transfers', `GET transfers/${TR}`, `GET transfers/${TR}`]);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: TR, status: 'completed' });
    expect(r.stderr).toBe('');
  });

  it('exits 1 naming the failure reason when the transfer fails; stdout stays empty', async () => {
    const r = await pay(SEND, { respond: settlesAs({ status: 'failed', failure_reason: 'destination_rejected' }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: transfer ${TR} failed: destination_rejected`);
    expect(r.stderr).toContain(`hint: see it with: pay transfers get ${TR}`);
  });

  it('exits 1 when cancelled; --json errors carry the transfer', async () => {
    const r = await pay([...SEND, '--json'], { respond: settlesAs({ status: 'cancelled' }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'transfer_cancelled', transfer: { id: TR, status: 'cancelled' } } });
  });

  it('without --wait sends once and prints the pending transfer', async () => {
    const r = await pay(
      SEND.filter((a) => a !== '--wait'),
      { respond: settlesAs({ status: 'completed' }) },
    );
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(1);
    expect(r.stdout).toContain('pending');
  });
});

describe('waitForTransfer', () => {
  function fakeClient(statuses: string[]) {
    const paths: string[] = [];
    let i = 0;
    const client = {
      request: async (init: { path: string }) => {
        paths.push(init.path);
        return { body: { id: TR, status: statuses[Math.min(i++, statuses.length - 1)] } };
      },
    } as unknown as ApiClient;
    return { client, paths };
  }

  it('polls at 0.5 s growing to 2 s', async () => {
    const sleeps: number[] = [];
    let t = 0;
    const { client, paths } = fakeClient(['pending', 'pending', 'pending', 'pending', 'pending', 'completed']);
    const final = await waitForTransfer(
      client,
      { id: TR, status: 'pending' },
      { timeoutMs: 120_000, now: () => t, sleep: async (ms) => void (sleeps.push(ms), (t += ms)) },
    );
    expect(final.status).toBe('completed');
    expect(sleeps).toEqual([500, 750, 1125, 1688, 2000, 2000]);
    expect(paths.every((p) => p === `transfers/${TR}`)).toBe(true);
  });

  it('gives up at the deadline with exit 1 and a hint', async () => {
    let t = 0;
    const { client } = fakeClient(['pending']);
    const err = await waitForTransfer(
      client,
      { id: TR, status: 'pending' },
      { timeoutMs: 5000, now: () => t, sleep: async (ms) => void (t += ms) },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayError);
    expect((err as PayError).exitCode).toBe(1);
    expect((err as PayError).message).toBe(`transfer ${TR} is still pending after 5 s`);
    expect(t).toBe(5000);
  });

  it('draws a spinner on a terminal stderr only, and clears it', async () => {
    for (const tty of [true, false]) {
      const io = bufferIOStreams({ tty });
      const { client } = fakeClient(['completed']);
      await waitForTransfer(client, { id: TR, status: 'pending' }, { timeoutMs: 10_000, io, sleep: async () => {} });
      if (tty) {
        expect(io.stderrText()).toMatch(/^\r⠋ Waiting for transfer tr_\w+ to settle \(0 s\)/);
        expect(io.stderrText().endsWith('\r\x1b[2K')).toBe(true);
      } else {
        expect(io.stderrText()).toBe('');
      }
      expect(io.stdoutText()).toBe('');
    }
  });
});
