// `--wait` at its edges, through the built pay against the emulator. SIGTERM or SIGINT while it
// polls, off a terminal: exit 130 at once, stdout empty, and the error names what was created and
// how to check it (before, the process died with 143 and the created id was lost); the emulator
// settles nothing by itself here, and the test signals once the emulator has seen pay poll: no
// timing window. `webhooks resend --wait` with no webhook URL says at once that nothing will deliver it.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PAY_BIN } from '../helpers/run-pay.js';
import { account, customer, ID, startWorld, until, type World } from './groups/helpers.js';

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w?.stop());

it.each(['SIGTERM', 'SIGINT'] as const)('%s during collections create --wait --json: exit 130, the collection named', async (signal) => {
  const cus = await customer(w);
  await w.api('POST', `customers/${cus}/features/collections/activate`);
  const acc = await account(w, cus);
  const mark = w.mark();
  const child = spawn(
    process.execPath,
    [PAY_BIN, 'collections', 'create', '--account', acc, '--amount', '10.00', '--currency', 'USD', '--method', 'card', '--wait', '--json'],
    { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  // Created, and polled at least once: pay is waiting.
  await until('pay to poll the collection', () => w.since(mark, 'GET', /^\/v1\/collections\/col_/).length > 0);
  child.kill(signal);
  const code = await closed;
  clearTimeout(guard);
  expect(code, stderr).toBe(130);
  expect(stdout).toBe('');
  const err = JSON.parse(stderr).error as { code: string; message: string; hint: string; collection?: { id: string } };
  const id = /col_[0-9a-z]{24}/.exec(err.message)?.[0];
  expect(id).toMatch(ID('col_'));
  expect(err.code).toBe('cancelled');
  expect(err.message).toBe(`interrupted while waiting for collection ${id} to settle: the request was accepted, and it is pending`);
  expect(err.hint).toBe(`it may still settle; check with: pay collections get ${id}`);
  expect((await w.api('GET', `collections/${id}`)).status).toBe('pending');
});

it('webhooks resend --wait with no webhook URL: a note at once that it stays pending, then exit 1 at the timeout', async () => {
  const cus = await customer(w);
  const events = await w.api('GET', `webhooks/events?object_id=${cus}`);
  const evt = (events.data as Array<{ id: string }>)[0]!.id;
  const r = await w.pay(['webhooks', 'resend', evt, '--wait', '--wait-timeout', '1']);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0]).toBe(
    `note: event ${evt}: no delivery attempt is scheduled: the service has no webhook URL to send it to, so it stays pending until one is set (the emulator: pay emulator webhook-url <url>, or run pay webhooks listen); waiting up to 1 s`,
  );
  expect(r.stderr).toContain(`error: event ${evt} is still pending after 1 s`);
});
