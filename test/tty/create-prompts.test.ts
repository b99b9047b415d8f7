// Every create asks for what is missing, in a real terminal (tmux) against the emulator (issue 27,
// items 1 and 2): `accounts create`, `transfers send`, `cards issue` and `collections create` run
// with no flags walk from nothing to a created object: ids through the searchable list of the
// right objects (a customer, then that customer's accounts), the currency the account's, the amount
// in it, an enum typo offered as "did you mean …?", optional fields only after "Add optional
// details?", an e-mail typed as a nickname asked about, a summary, one confirmation, then the one
// POST the emulator received. Ctrl-C and Ctrl-D at each step of each walk: exit 130, one line,
// nothing sent. --no-input (and no terminal): exit 2 naming the flags, as before.
import { beforeAll, expect, it } from 'vitest';
import { account, customer, enabledCustomer, fund } from '../e2e/groups/helpers.js';
import { listAfterPrompt, ttyWorld } from '../helpers/tty-world.js';
import { activePrompt, describeTty, linesBeforeExit, type Pane } from './tmux.js';

const tty = ttyWorld('pay-tty-create-');
const { w } = tty;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // One customer with a unique last name (the one the walks type to find), one other, each with accounts.
  ids.customer = await enabledCustomer(w, { last_name: 'Quixotic' });
  ids.other = await customer(w, { last_name: 'Elsewhere' });
  ids.account = await account(w, ids.customer);
  ids.second = await account(w, ids.customer);
  ids.othersAccount = await account(w, ids.other, 'EUR');
  ids.euro = await account(w, ids.customer, 'EUR');
  await fund(w, ids.account, '100.00');
  await w.api('PATCH', `accounts/${ids.second}`, { nickname: 'Savings pot' }).catch(() => undefined);
}, 60_000);

/** The ids of the open list's entries (lines after the prompt line that start with the cursor or two spaces and an id). */
const entries = (screen: string): string[] => listAfterPrompt(screen, /^[❯ ] ([a-z]+_[0-9a-z]{24})\b/);

/** The items of the open choice list (after the prompt line), the cursor's first. */
const choices = (screen: string): string[] => listAfterPrompt(screen, /^[❯ ] (\S.*?)\s*$/);

interface Step {
  /** The start of the prompt's text (after "? "). */
  prompt: string;
  act(p: Pane): Promise<void>;
}

/**
 * At an id list: the entries shown include `offered` and none of `not` (the walks add objects as
 * they run); `typed` narrows them to `chosen`, else the cursor moves to it; Enter takes it.
 */
function pickId(prompt: string, offered: () => string[], not: () => string[], chosen: () => string, typed?: string): Step {
  return {
    prompt,
    async act(p) {
      const screen = await p.waitFor((s) => (activePrompt(s)?.startsWith(`? ${prompt}`) ?? false) && entries(s).length > 0);
      const shown = entries(screen);
      expect(shown).toEqual(expect.arrayContaining(offered()));
      for (const id of not()) expect(shown).not.toContain(id);
      if (typed) {
        await p.type(typed);
        await p.waitFor((s) => entries(s).length === 1 && entries(s)[0] === chosen());
      } else {
        // Move the cursor to it.
        for (let i = 0; entries(await p.screen())[0] !== chosen() && i < 5; i++) {
          const before = await p.screen();
          const at = /^❯ ([a-z]+_[0-9a-z]{24})/m.exec(before)?.[1];
          if (at === chosen()) break;
          await p.keys('Down');
          await p.waitFor((s) => /^❯ ([a-z]+_[0-9a-z]{24})/m.exec(s)?.[1] !== at);
        }
      }
      await p.waitFor((s) => /^❯ ([a-z]+_[0-9a-z]{24})/m.exec(s)?.[1] === chosen());
      await p.keys('Enter');
    },
  };
}

/** At an enum list: a typo first, which the list offers as "did you mean <right>?"; Enter takes it. */
function enumTypo(prompt: string, typo: string, right: string): Step {
  return {
    prompt,
    async act(p) {
      await p.waitForPrompt(prompt);
      await p.type(typo);
      await p.waitFor((s) => choices(s)[0] === `did you mean ${right}?`);
      await p.keys('Enter');
      await p.waitFor((s) => s.split('\n').some((l) => l.startsWith(`✔ ${prompt}`) && l.includes(right)));
    },
  };
}

/** At a text prompt: optionally a wrong answer whose message shows, then the right one. */
function text(prompt: string, answer: string, wrong?: { typed: string; message: string }, expectDefault?: string): Step {
  return {
    prompt,
    async act(p) {
      const screen = await p.waitForPrompt(prompt);
      if (expectDefault !== undefined) expect(activePrompt(screen)).toContain(`(${expectDefault})`);
      if (wrong) {
        await p.type(wrong.typed);
        await p.keys('Enter');
        await p.waitFor((s) => s.split('\n').slice(-3).join('\n').includes(wrong.message));
        await p.keys('C-u');
      }
      if (answer) await p.type(answer);
      await p.keys('Enter');
      await p.waitFor((s) => s.split('\n').some((l) => l.startsWith(`✔ ${prompt}`)));
    },
  };
}

function yesNo(prompt: string, key: 'y' | 'n' | 'Enter'): Step {
  return {
    prompt,
    async act(p) {
      await p.waitForPrompt(prompt);
      if (key === 'Enter') await p.keys('Enter');
      else {
        await p.type(key);
        await p.keys('Enter');
      }
      await p.waitFor((s) => s.split('\n').some((l) => l.startsWith(`✔ ${prompt}`)));
    },
  };
}

interface Walk {
  argv: string[];
  path: string;
  steps: () => Step[];
  body: () => Record<string, unknown>;
  flags: string;
}

const WALKS: Record<string, Walk> = {
  'accounts create': {
    argv: ['accounts', 'create'],
    path: '/v1/accounts',
    flags: '--customer, --currency',
    steps: () => [
      pickId(
        'Owner (cus_…) (--customer)',
        () => [ids.customer!, ids.other!],
        () => [],
        () => ids.customer!,
        'quixo',
      ),
      text('ISO 4217 currency', 'eur', { typed: 'EUX', message: 'did you mean' }),
      yesNo('Add optional details?', 'y'),
      enumTypo('Checking (default) or savings (--type)', 'savngs', 'savings'),
      // An e-mail typed as a nickname is asked about; "no" asks again.
      text('A label for people (--nickname)', 'ada@example.com'),
      yesNo('"ada@example.com" looks like an e-mail address', 'n'),
      text('A label for people (--nickname)', 'Rainy day'),
      yesNo('Create this account?', 'Enter'),
    ],
    body: () => ({ customer_id: ids.customer, currency: 'EUR', type: 'savings', nickname: 'Rainy day' }),
  },
  'transfers send': {
    argv: ['transfers', 'send'],
    path: '/v1/transfers',
    flags: '--from, --to, --amount, --currency',
    steps: () => [
      // No customer named: every active account.
      pickId(
        'Source account (acc_…) (--from)',
        () => [ids.account!, ids.second!, ids.othersAccount!],
        () => [],
        () => ids.account!,
      ),
      // The source is not offered again as the destination; the other customer's account is (any account can receive).
      pickId(
        'Destination (--to)',
        () => [ids.second!, ids.othersAccount!],
        () => [ids.account!],
        () => ids.second!,
      ),
      // The source account's currency, offered: Enter takes it.
      text('ISO 4217 currency of the source account', '', undefined, 'USD'),
      text('Amount in USD (--amount)', '1.50', { typed: '1.505', message: 'at most 2 decimals' }),
      yesNo('Add optional details?', 'Enter'),
      yesNo('Create this transfer?', 'y'),
    ],
    body: () => ({ source_account_id: ids.account, destination_id: ids.second, currency: 'USD', amount: '1.50' }),
  },
  'cards issue': {
    argv: ['cards', 'issue'],
    path: '/v1/cards',
    flags: '--customer, --account, --type',
    steps: () => [
      pickId(
        'Card holder (cus_…) (--customer)',
        () => [ids.customer!, ids.other!],
        () => [],
        () => ids.customer!,
        'Quixotic',
      ),
      // Only that customer's accounts.
      pickId(
        'Account the card spends from (acc_…) (--account)',
        () => [ids.account!, ids.second!, ids.euro!],
        () => [ids.othersAccount!],
        () => ids.account!,
      ),
      enumTypo('Virtual or physical (--type)', 'virtul', 'virtual'),
      yesNo('Add optional details?', 'n'),
      yesNo('Create this card?', 'Enter'),
    ],
    body: () => ({ customer_id: ids.customer, account_id: ids.account, type: 'virtual' }),
  },
  'collections create': {
    argv: ['collections', 'create'],
    path: '/v1/collections',
    flags: '--account, --amount, --currency, --method',
    steps: () => [
      pickId(
        'Account to credit (acc_…) (--account)',
        () => [ids.account!, ids.euro!, ids.othersAccount!],
        () => [],
        () => ids.euro!,
      ),
      text('ISO 4217 currency of the account', '', undefined, 'EUR'),
      text('Amount in EUR (--amount)', '25', { typed: '25.001', message: 'at most 2 decimals' }),
      enumTypo('How the payer pays (--method)', 'crad', 'card'),
      yesNo('Add optional details?', 'Enter'),
      yesNo('Create this collection?', 'Enter'),
    ],
    body: () => ({ account_id: ids.euro, currency: 'EUR', amount: '25.00', method: 'card' }),
  },
};

describeTty('a create asks for what is missing (tmux, emulator)', () => {
  it.each(Object.keys(WALKS))(
    '%s: from nothing to a created object',
    async (name) => {
      const walk = WALKS[name]!;
      const mark = w.mark();
      const p = await tty.pay(walk.argv);
      for (const step of walk.steps()) await step.act(p);
      const { code, screen } = await p.finish();
      expect(code, screen).toBe(0);
      // The summary came before the question, naming the flags and the values sent.
      expect(screen).toMatch(/About to run "pay [a-z]+ [a-z]+" \(POST \/[a-z]+\):/);
      const posts = w.since(mark, 'POST');
      expect(posts, screen).toHaveLength(1);
      expect(posts[0]!.path).toBe(walk.path);
      expect(posts[0]!.body).toEqual(walk.body());
      expect(screen).toMatch(/✓ Created [a-z ]+ [a-z]+_[0-9a-z]{24}/);
    },
    60_000,
  );

  it.each(
    Object.keys(WALKS).flatMap((name) => [
      [name, 'C-c'],
      [name, 'C-d'],
    ]),
  )(
    '%s: %s at each step sends nothing, exit 130, one line',
    async (name, key) => {
      const walk = WALKS[name]!;
      const steps = walk.steps();
      for (let at = 0; at < steps.length; at++) {
        const mark = w.mark();
        const p = await tty.pay(walk.argv);
        for (const step of steps.slice(0, at)) await step.act(p);
        await p.waitForPrompt(steps[at]!.prompt);
        await p.keys(key);
        const { code, screen } = await p.finish();
        expect(code, `${steps[at]!.prompt}\n${screen}`).toBe(130);
        const lines = linesBeforeExit(screen).filter((l) => /^error:/.test(l));
        expect(lines, screen).toEqual([expect.stringMatching(/^error: .*cancel/i)]);
        expect(screen).not.toMatch(/^\s+at |ExitPromptError|node:internal/m);
        expect(w.since(mark, 'POST'), screen).toHaveLength(0);
        await p.kill();
      }
    },
    180_000,
  );

  it('flags given are not asked; --interactive asks the optional fields without the question; --yes skips the confirmation', async () => {
    const mark = w.mark();
    const p = await tty.pay(['accounts', 'create', '--customer', ids.customer!, '--interactive', '--yes']);
    await text('ISO 4217 currency', 'usd').act(p);
    await p.waitForPrompt('Checking (default) or savings (--type)');
    await p.keys('Enter'); // optional: skip
    await text('A label for people (--nickname)', 'Payroll').act(p);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('Owner (cus_');
    expect(screen).not.toContain('Add optional details?');
    expect(screen).not.toContain('Create this account?');
    expect(screen).toContain('About to run "pay accounts create"');
    const posts = w.since(mark, 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({ customer_id: ids.customer, currency: 'USD', nickname: 'Payroll' });
  }, 60_000);

  it('every required flag given: nothing is asked, no summary, no question', async () => {
    const mark = w.mark();
    const p = await tty.pay(['accounts', 'create', '--customer', ids.customer!, '--currency', 'USD']);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(activePrompt(screen)).toBeUndefined();
    expect(screen).not.toContain('About to run');
    expect(w.since(mark, 'POST')).toHaveLength(1);
  });

  it.each(Object.keys(WALKS))('%s --no-input on a terminal: exit 2 naming the flags, nothing asked or sent', async (name) => {
    const walk = WALKS[name]!;
    const mark = w.mark();
    const p = await tty.pay([...walk.argv, '--no-input']);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    expect(screen).toContain(`error: missing required flags: ${walk.flags}`);
    expect(activePrompt(screen)).toBeUndefined();
    expect(w.since(mark)).toHaveLength(0);
  });

  it.each(Object.keys(WALKS))('%s off a terminal: exit 2 naming the flags, nothing sent', async (name) => {
    const walk = WALKS[name]!;
    const mark = w.mark();
    const r = await w.pay(walk.argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: missing required flags: ${walk.flags}`);
    expect(w.since(mark)).toHaveLength(0);
  });
});
