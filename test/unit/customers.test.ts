// customers create / accounts list: flag parsing apart from running, and running with a fake
// factory where terminal or pipe is a test parameter and an undici MockAgent is the server.
import type { Command } from 'commander';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { customers } from '../../src/commands/customers/index.js';
import { accounts } from '../../src/commands/accounts/index.js';
import { run as createCustomer } from '../../src/commands/customers/create.js';
import { runGeneric } from '../../src/verbs/run.js';
import type { VerbContext } from '../../src/cmdutil/spec.js';
import { bufferIOStreams } from '../../src/io/iostreams.js';
import { createFactory } from '../../src/cmdutil/factory.js';
import { allGroups } from '../../src/commands/groups.js';
import { buildProgram } from '../../src/commands/tree.js';
import { customerFlags } from '../helpers/fixtures.js';

const KEY = 'sk_test_unitunitunitunitunitunit1234';
const FLAGS = customerFlags({ '--state': undefined });

/** Parses argv with the real tree, capturing the options instead of running the action. */
async function parse(argv: string[]): Promise<Record<string, unknown>> {
  const program = buildProgram();
  let opts: Record<string, unknown> = {};
  const target = argv.slice(0, 2).reduce<Command>((cmd, name) => cmd.commands.find((c) => c.name() === name)!, program);
  target.action((...args: unknown[]) => {
    opts = (args.at(-1) as Command).optsWithGlobals();
  });
  await program.parseAsync(argv, { from: 'user' });
  return opts;
}

function harness(tty: boolean, env: Record<string, string> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const io = bufferIOStreams({ tty });
  const f = createFactory({
    io,
    env: { PAY_API_KEY: KEY, PAY_BASE_URL: 'https://api.example.com/v1/', PAY_CONFIG_DIR: '/nonexistent-pay-test', ...env },
    flags: {},
    dispatcher: agent,
    groups: async () => allGroups,
  });
  return { agent, io, f, pool: agent.get('https://api.example.com') };
}

describe('parsing', () => {
  it('maps kebab-case flags to options and keeps global flags', async () => {
    const o = await parse(['customers', 'create', ...FLAGS, '--live', '--json', '--state', 'GB-LND']);
    expect(o).toMatchObject({
      firstName: 'Ada',
      dateOfBirth: '1990-12-10',
      addressLine1: '1 Main St',
      state: 'GB-LND',
      live: true,
      json: true,
    });
  });
  it('accounts list takes filters, --limit and --all', async () => {
    const o = await parse(['accounts', 'list', '--customer', 'cus_0123456789abcdefghijklmn', '--limit', '5', '--all', '-o', 'ndjson']);
    expect(o).toMatchObject({ customer: 'cus_0123456789abcdefghijklmn', limit: '5', all: true, output: 'ndjson' });
  });
  it('refuses an -o format outside the choices', async () => {
    await expect(parse(['accounts', 'list', '-o', 'xml'])).rejects.toThrow(/Allowed choices are table, tsv, csv, json, ndjson/);
  });
});

describe.each([{ tty: false }, { tty: true }])('customers create, terminal: $tty', ({ tty }) => {
  // As the dispatcher resolves them with no output flag: a table on a terminal, TSV in a pipe.
  const output = { format: tty ? ('table' as const) : ('tsv' as const), fields: undefined, header: true };
  const ctx = (opts: Record<string, unknown>): VerbContext => ({
    group: customers,
    verb: customers.verbs[0]!,
    argValue: undefined,
    opts,
    output,
  });

  it('sends the seed body and prints the created customer', async () => {
    const { f, io, pool } = harness(tty, tty ? { CI: '1' } : {});
    let sent: unknown;
    pool.intercept({ path: '/v1/customers', method: 'POST' }).reply(201, (o) => {
      sent = JSON.parse(o.body as string);
      return { id: 'cus_0123456789abcdefghijklmn', first_name: 'Ada', created_at: '2026-11-23T00:00:00.000Z' };
    });
    await createCustomer(
      f,
      ctx({
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        phone: '+447700900123',
        type: 'individual',
        dateOfBirth: '1990-12-10',
        addressLine1: '1 Main St',
        city: 'London',
        country: 'gb',
        postalCode: 'SW1A 1AA',
      }),
    );
    expect(sent).toMatchObject({ first_name: 'Ada', address: { country: 'GB', city: 'London' } });
    if (tty) {
      expect(io.stdoutText()).toMatch(/^id\s+cus_0123456789abcdefghijklmn\nfirst_name\s+Ada\n/);
      expect(io.stderrText()).toBe('✓ Created customer cus_0123456789abcdefghijklmn\n');
    } else {
      expect(io.stdoutText().split('\n')[0]).toBe('id\tfirst_name\tcreated_at');
      expect(io.stderrText()).toBe('');
    }
  });

  it('cannot prompt (CI set or no terminal): exit 2 naming the missing flags, nothing sent', async () => {
    const { f } = harness(tty, { CI: 'true' });
    const err = await createCustomer(f, ctx({ firstName: 'Ada' })).catch((e: unknown) => e);
    expect(err).toMatchObject({
      exitCode: 2,
      message:
        'missing required flags: --last-name, --email, --phone, --type, --date-of-birth, --address-line1, --city, --country, --postal-code',
    });
  });
});

describe('accounts list', () => {
  it('needs a tenant before anything is sent, then sends x-tenant-id', async () => {
    const ctx: VerbContext = {
      group: accounts,
      verb: accounts.verbs.find((v) => v.name === 'list')!,
      argValue: undefined,
      opts: {},
      output: { format: 'tsv', fields: undefined, header: true },
    };
    const none = harness(false);
    await expect(runGeneric(none.f, ctx)).rejects.toMatchObject({ exitCode: 2 });
    const { f, pool, io } = harness(false, { PAY_TENANT_ID: 'biz_1' });
    let tenant: unknown;
    pool.intercept({ path: '/v1/accounts?limit=20', method: 'GET' }).reply(200, (o) => {
      tenant = (o.headers as Record<string, string>)['x-tenant-id'];
      return { object: 'list', data: [], has_more: false, next_cursor: null };
    });
    await runGeneric(f, ctx);
    expect(tenant).toBe('biz_1');
    expect(io.stderrText()).toBe('No accounts found.\n');
  });
});
