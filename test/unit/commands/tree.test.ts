// The command tree as data: every group in order, every verb documented and mapped to its
// operation in src/api/DESIGN.md; then the registered commander tree matches; then the whole
// tree (tooling commands too) as help shows it: every command described, every command and group
// with at least two examples that parse, every runnable command saying what it prints.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { CommanderError, type Command } from 'commander';
import { hoistVerbFlags } from '../../../src/argv.js';
import { allGroups } from '../../../src/commands/groups.js';
import { confirmClassOf } from '../../../src/shared/confirm.js';
import { specOf } from '../../../src/cmdutil/registry.js';
import { buildProgram } from '../../../src/commands/tree.js';
import { payArgvs } from './shell-words.js';

const ORDER = [
  'customers',
  'kyc',
  'kyc-legacy',
  'features',
  'accounts',
  'external-accounts',
  'transfers',
  'cards',
  'collections',
  'payment-links',
  'wallets',
  'fx',
  'transactions',
  'webhooks',
];

/** The contract's minimum verbs (cli-contract.md section 1). */
const MINIMUM: Record<string, string[]> = {
  customers: ['create', 'list', 'get', 'update'],
  kyc: ['verify', 'submit-document', 'status'],
  'kyc-legacy': ['verify', 'submit-document', 'status'],
  features: ['list', 'check', 'activate'],
  accounts: ['create', 'list', 'get', 'close'],
  'external-accounts': ['add', 'list', 'get', 'remove'],
  transfers: ['send', 'list', 'get', 'cancel'],
  cards: ['issue', 'list', 'get', 'freeze', 'unfreeze', 'terminate'],
  collections: ['create', 'list', 'get'],
  'payment-links': ['create', 'list', 'get', 'disable'],
  wallets: ['create', 'list', 'get'],
  fx: ['rates', 'quote', 'trade', 'trades', 'get-trade'],
  transactions: ['list', 'get'],
  webhooks: ['list', 'get', 'resend', 'listen', 'verify'],
};

/** operationId → "METHOD path" from the table at the end of DESIGN.md. */
function designOperations(): Map<string, string> {
  const text = readFileSync(new URL('../../../src/api/DESIGN.md', import.meta.url), 'utf8');
  const ops = new Map<string, string>();
  for (const line of text.slice(text.indexOf('## Operation ids')).split('\n')) {
    const m = /^\| ([a-zA-Z /]+) \| (.+) \|$/.exec(line);
    if (!m || m[1]!.trim() === 'operationId') continue;
    const ids = m[1]!.split('/').map((s) => s.trim());
    const routes = m[2]!
      .replace(/\((deprecated|\d{3})\)/g, '')
      .split(',')
      .map((s) => s.trim());
    // "POST /cards/{card_id}/freeze, …/unfreeze, …/terminate"
    for (let i = 1; i < routes.length; i++) {
      if (routes[i]!.startsWith('…/')) routes[i] = `${routes[i - 1]!.replace(/\/[^/]+$/, '')}/${routes[i]!.slice(2)}`;
    }
    ids.forEach((id, i) => ops.set(id, routes[i]!));
  }
  return ops;
}

describe('group specs', () => {
  it('lists the 14 groups in the contract order', () => {
    expect(allGroups.map((g) => g.name)).toEqual(ORDER);
  });

  it.each(ORDER)('%s has at least the contract verbs', (name) => {
    const group = allGroups.find((g) => g.name === name)!;
    // A group's tooling commands (webhooks verify, listen) count: the contract names commands, not specs.
    const names = [...group.verbs.map((v) => v.name), ...(group.commands ?? []).map((c) => c.name)];
    expect(names).toEqual(expect.arrayContaining(MINIMUM[name]!));
  });

  const ops = designOperations();
  const verbs = allGroups.flatMap((g) => g.verbs.map((v) => ({ g, v })));

  it.each(verbs.map(({ g, v }) => [`${g.name} ${v.name}`, g, v] as const))(
    '%s: documented and mapped to its DESIGN.md operation',
    (_n, g, v) => {
      expect(v.summary.length).toBeGreaterThan(10);
      expect(v.examples.length).toBeGreaterThanOrEqual(2);
      for (const e of v.examples) expect(e.startsWith(`pay ${g.name} `) || e.startsWith(`cat `)).toBe(true);
      expect(v.jsonShape.length).toBeGreaterThan(5);
      if (v.offline) {
        expect(v.operationId).toBe('');
        return;
      }
      expect(ops.get(v.operationId), v.operationId).toBe(`${v.method} /${v.path}`);
      expect(v.path.startsWith('/')).toBe(false);
      if (v.kind === 'create' || v.kind === 'update') expect(v.body).toBe(true);
      // Each path parameter is filled by the positional or a flag.
      const params = [...v.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const byFlags = (v.flags ?? []).filter((f) => f.pathParam).map((f) => f.pathParam);
      expect(params.length).toBe(byFlags.length + (v.arg && !v.arg.field ? 1 : 0));
    },
  );

  it('maps every DESIGN.md operation to exactly one verb', () => {
    // A composite verb (customers overview) calls operations other verbs own.
    const used = verbs.filter(({ v }) => !v.offline && !v.composite).map(({ v }) => v.operationId);
    expect(new Set(used).size).toBe(used.length);
    expect([...ops.keys()].sort()).toEqual([...used].sort());
  });

  it('gives every money column a currency and every status a colour kind', () => {
    for (const g of allGroups) {
      const cols = [...g.columns, ...g.verbs.flatMap((v) => v.columns ?? [])];
      expect(
        cols.some((c) => c.path === 'id' || c.path === 'key' || c.path === 'customer_id'),
        g.name,
      ).toBe(true);
      for (const c of cols) if (c.path === 'status' || c.path.endsWith('.status')) expect(c.kind, `${g.name} ${c.path}`).toBe('status');
    }
  });
});

describe('commander tree', () => {
  const program = buildProgram();
  const find = (...names: string[]) =>
    names.reduce((cmd, n) => cmd.commands.find((c) => c.name() === n || c.aliases().includes(n))!, program);

  it('registers each group with its verbs and their flags', () => {
    for (const g of allGroups) {
      const cmd = find(g.name);
      expect(cmd, g.name).toBeDefined();
      expect(specOf.get(cmd)?.group).toBe(g);
      for (const v of g.verbs) {
        const vc = find(g.name, v.name);
        expect(specOf.get(vc)?.verb).toBe(v);
        const longs = vc.options.map((o) => o.long);
        for (const f of v.flags ?? []) expect(longs).toContain(/--[a-z0-9-]+/.exec(f.flags)![0]);
        if (v.body) expect(longs).toContain('--data');
        if (confirmClassOf(v.operationId)) expect(longs).toContain('--yes');
        if (v.method === 'POST' && !v.offline) expect(longs).toContain('--idempotency-key');
      }
    }
  });

  it('marks kyc-legacy and each of its verbs deprecated in help', () => {
    expect(find('kyc-legacy').description()).toMatch(/^\[deprecated: use pay kyc\]/);
    for (const name of ['verify', 'submit-document', 'status']) {
      expect(find('kyc-legacy', name).summary()).toMatch(new RegExp(`^\\[deprecated: use pay kyc ${name}\\]`));
    }
  });

  it('accepts the fx aliases a user may type', () => {
    expect(find('fx', 'list-trades').name()).toBe('trades');
    expect(find('fx', 'trade-get').name()).toBe('get-trade');
    expect(find('fx', 'quote-get').name()).toBe('get-quote');
  });
});

// ---------------------------------------------------------------------------------------------
// The whole tree as `--help` shows it

/** What `pay … --help` prints for a command: commander's text, then what addHelpText added. */
function helpOf(cmd: Command): string {
  let text = '';
  cmd.configureOutput({ writeOut: (t) => void (text += t), writeErr: (t) => void (text += t) });
  cmd.outputHelp();
  return text;
}

function examplesIn(help: string): string[] {
  const block = /\nExamples:\n((?: {2}\$ .*\n)+)/.exec(help)?.[1] ?? '';
  return block
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(4));
}

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function everyCommand(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(everyCommand)];
}

/**
 * Parses argv through a fresh whole tree whose actions only record which command ran, as
 * src/cli.ts parses it (verb flags written before the command path hoisted). Commander's errors
 * (unknown option or command, missing or extra argument, a value outside the choices) throw.
 */
async function commandRun(argv: string[]): Promise<Command | undefined> {
  const program = buildProgram();
  let ran: Command | undefined;
  for (const cmd of everyCommand(program)) {
    cmd.configureOutput({ writeOut: () => {}, writeErr: () => {} });
    if (cmd.commands.length === 0 && cmd !== program) cmd.action(() => void (ran = cmd));
  }
  await program.parseAsync(hoistVerbFlags(argv), { from: 'user' });
  return ran;
}

describe('the whole tree, as help shows it', () => {
  const program = buildProgram();
  const all = everyCommand(program);
  const leaves = all.filter((c) => c.commands.length === 0);
  const groups = all.filter((c) => c.commands.length > 0);
  const docs = new Map(all.map((c) => [c, helpOf(c)]));

  it('covers the resource groups and every tooling command', () => {
    const paths = leaves.map(pathOf);
    for (const p of [
      'login',
      'logout',
      'profiles list',
      'profiles show',
      'profiles use',
      'profiles remove',
      'profiles set',
      'api',
      'openapi',
      'emulator start',
      'seed plan',
      'seed apply',
      'doctor',
      'completion',
      'help',
    ]) {
      expect(paths).toContain(p);
    }
    expect(groups.map(pathOf)).toEqual(expect.arrayContaining(['', ...ORDER, 'profiles', 'emulator', 'seed']));
    expect(leaves.length).toBeGreaterThan(60);
  });

  it.each(all.map((c) => [pathOf(c) || '(pay)', c] as const))('%s: described, with at least two examples', (_p, cmd) => {
    expect(cmd.description().trim().length, 'description').toBeGreaterThan(10);
    expect(examplesIn(docs.get(cmd)!).length, docs.get(cmd)).toBeGreaterThanOrEqual(2);
  });

  it.each(leaves.map((c) => [pathOf(c), c] as const))('%s: says what it prints', (_p, cmd) => {
    expect(docs.get(cmd)).toMatch(/\n(JSON output|Output): \S.{10,}/);
  });

  const examples = all.flatMap((cmd) => examplesIn(docs.get(cmd)!).map((e) => [pathOf(cmd) || '(pay)', e, cmd] as const));
  it.each(examples)('%s: example parses: %s', async (_p, example, cmd) => {
    const argvs = payArgvs(example);
    expect(argvs.length, 'a pay command in the example').toBeGreaterThan(0);
    for (const argv of argvs) {
      let ran: Command | undefined;
      try {
        ran = await commandRun(argv);
      } catch (err) {
        expect.fail(`${example}: ${err instanceof CommanderError ? err.message : String(err)}`);
      }
      expect(ran, `${example} runs no command`).toBeDefined();
      // A command's examples run it; a group's, one of its commands.
      expect(
        pathOf(ran!) === pathOf(cmd) || pathOf(ran!).startsWith(pathOf(cmd) ? `${pathOf(cmd)} ` : ''),
        `${example} runs pay ${pathOf(ran!)}`,
      ).toBe(true);
    }
  });

  describe('the checks are not vacuous', () => {
    it('splits shell lines as the shell would', () => {
      expect(payArgvs(`printf %s "$KEY" | pay profiles set secret_key - # stdin`)).toEqual([['profiles', 'set', 'secret_key', '-']]);
      expect(payArgvs(`pay customers update cus_1 --data '{"a": 1}' > out.json 2>&1`)).toEqual([
        ['customers', 'update', 'cus_1', '--data', '{"a": 1}'],
      ]);
      expect(payArgvs('pay completion zsh > "${fpath[1]}/_pay"')).toEqual([['completion', 'zsh']]);
      expect(payArgvs('pay openapi | jq ".paths | keys"')).toEqual([['openapi']]);
    });

    it.each([
      [['customers', 'list', '--no-such-flag'], /unknown option '--no-such-flag'/],
      [['cards', 'issue', '--type', 'plastic'], /argument 'plastic' is invalid/],
      [['profiles', 'use'], /missing required argument 'name'/],
      [['profiles', 'use', 'a', 'b'], /too many arguments/],
      [['customers', 'lst'], /unknown command 'lst'/],
    ])('%j fails to parse', async (argv, message) => {
      await expect(commandRun(argv)).rejects.toThrow(message);
    });

    it('a group alone runs no command', async () => {
      await expect(commandRun(['customers'])).rejects.toThrow(CommanderError);
    });
  });
});
