// `pay customers create` follows the rules every create follows (issue 27, src/verbs/ask.ts), in a
// real terminal (tmux) against the emulator: the required fields not given, an enum typo offered as
// "did you mean individual?", the optional ones only after "Add optional details?" (answered No,
// then Yes), a summary, "Create this customer?", then the one POST the emulator received. Ctrl-C and
// Ctrl-D at the gate and at the question: exit 130, one line, and the emulator received nothing.
// --yes skips the question (the summary stays). --interactive where nothing can be asked: exit 2
// saying why, nothing sent. And `features activate` twice: the second ✓ line says it was already
// active, from the status the emulator answered before the activation.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customer } from '../e2e/groups/helpers.js';
import { ADA_BODY, CUSTOMER_REQUIRED_PROMPTS } from '../helpers/fixtures.js';
import { ttyWorld } from '../helpers/tty-world.js';
import { activePrompt, describeTty, linesBeforeExit, type Pane, scratchDir } from './tmux.js';

// The emulator world and panes that talk to it, each with a fresh config folder (test/helpers/tty-world.ts).
const t = ttyWorld('pay-tty-customers-');
const w = t.w;

/** The items of the open choice list (after the active prompt line), the cursor's first. */
function choices(screen: string): string[] {
  const lines = screen.split('\n');
  const at = lines.lastIndexOf(activePrompt(screen) ?? '\u0000');
  const out: string[] = [];
  for (const line of lines.slice(at + 1)) {
    const m = /^[❯ ] (\S.*?)\s*$/.exec(line);
    if (!m) break;
    out.push(m[1]!);
  }
  return out;
}

/** The lines a prompt left once answered (`✔ <label> <answer>`), each cut to its label. */
function answered(screen: string, labels: readonly string[]): string[] {
  return screen
    .split('\n')
    .filter((l) => l.startsWith('✔ '))
    .map((l) => labels.find((label) => l.startsWith(`✔ ${label}`)) ?? l);
}

/** At a list prompt: types `typed`, waits until the list's first item starts with `first`, takes it. */
async function choose(p: Pane, label: string, typed: string, first: string): Promise<void> {
  await p.waitForPrompt(label);
  await p.type(typed);
  await p.waitFor((s) => choices(s)[0]?.startsWith(first) ?? false);
  await p.keys('Enter');
  await p.waitFor((s) => s.split('\n').some((l) => l.startsWith(`✔ ${label}`)));
}

/** The required fields from nothing: a typo at the customer type, corrected by the list's "did you mean". */
async function required(p: Pane): Promise<void> {
  await p.answer('First name', 'Ada');
  await p.answer('Last name', 'Lovelace');
  await p.answer('E-mail', 'ada@example.com');
  await p.answer('Phone', '+447700900123');
  await choose(p, 'Customer type', 'indivdual', 'did you mean individual?');
  await p.answer('Date of birth', '1990-12-10');
  await p.answer('Street', '1 Main St');
  await p.answer('City', 'London');
  await choose(p, 'Country', 'gb', 'GB  ');
  await p.answer('Postal code', 'SW1A 1AA');
}

/** The body of the required fields (ADA_BODY without its optional state). */
const { state: _state, ...requiredAddress } = ADA_BODY.address;
const REQUIRED_BODY = { ...ADA_BODY, address: requiredAddress };

/** Every required flag but --email (the optional ones not given): one question, then the gate. */
const ALL_BUT_EMAIL = [
  ...['--first-name', 'Ada', '--last-name', 'Lovelace', '--phone', '+447700900123', '--type', 'individual'],
  ...['--date-of-birth', '1990-12-10', '--address-line1', '1 Main St', '--city', 'London', '--country', 'GB', '--postal-code', 'SW1A 1AA'],
];
const GATE = 'Add optional details? (--middle-name, --gender, --state)';
const CONFIRM = 'Create this customer?';

describeTty('pay customers create asks as every create does (tmux, emulator)', () => {
  it('from nothing, "Add optional details?" answered No (the default): the required fields, a summary, one question, one POST', async () => {
    const mark = w.mark();
    const p = await t.pay(['customers', 'create']);
    await required(p);
    await p.answer(GATE, ''); // Enter: the default, No
    await p.answer(CONFIRM, ''); // Enter: the default, Yes
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    const labels = [...CUSTOMER_REQUIRED_PROMPTS];
    expect(answered(screen, [...labels, 'Add optional details?', CONFIRM])).toEqual([...labels, 'Add optional details?', CONFIRM]);
    expect(screen).not.toMatch(/^\? (Middle name|Gender|State)/m);
    // The typo was never taken: the list offered the value near it.
    expect(screen).toMatch(/^✔ Customer type .*individual/m);
    // The summary, before the question: the flags and the values sent.
    expect(screen).toContain('About to run "pay customers create" (POST /customers):');
    expect(screen).toMatch(/^ {2}--email +ada@example\.com$/m);
    expect(screen.indexOf('About to run')).toBeLessThan(
      screen.indexOf(`? ${CONFIRM}`) >= 0 ? screen.indexOf(`? ${CONFIRM}`) : screen.indexOf(`✔ ${CONFIRM}`),
    );
    const posts = w.since(mark, 'POST');
    expect(posts, screen).toHaveLength(1);
    expect(posts[0]!.path).toBe('/v1/customers');
    expect(posts[0]!.status).toBe(201);
    expect(posts[0]!.body).toEqual(REQUIRED_BODY);
    expect(screen).toMatch(/✓ Created customer cus_[0-9a-z]{24}/);
  }, 60_000);

  it('from nothing, "Add optional details?" answered Yes: then the middle name, gender and state, and "y" at the question', async () => {
    const mark = w.mark();
    const p = await t.pay(['customers', 'create']);
    await required(p);
    await p.answer(GATE, 'y');
    await p.answer('Middle name', 'King');
    await choose(p, 'Gender', 'female', 'female');
    await choose(p, 'State / subdivision of GB', 'LND', 'GB-LND');
    await p.answer(CONFIRM, 'y');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    const posts = w.since(mark, 'POST');
    expect(posts, screen).toHaveLength(1);
    expect(posts[0]!.body).toEqual({
      ...REQUIRED_BODY,
      middle_name: 'King',
      gender: 'female',
      address: { ...REQUIRED_BODY.address, state: 'GB-LND' },
    });
  }, 60_000);

  it.each([
    ['C-c', 'the gate'],
    ['C-d', 'the gate'],
    ['C-c', 'the question'],
    ['C-d', 'the question'],
  ])(
    '%s at %s: exit 130, one line, the emulator received nothing',
    async (key, at) => {
      const mark = w.mark();
      const p = await t.pay(['customers', 'create', ...ALL_BUT_EMAIL]);
      await p.answer('E-mail', 'ada@example.com');
      await p.waitForPrompt(GATE);
      if (at === 'the question') {
        await p.answer(GATE, 'n');
        await p.waitForPrompt(CONFIRM);
      }
      await p.keys(key);
      const { code, screen } = await p.finish();
      expect(code, screen).toBe(130);
      const errors = linesBeforeExit(screen).filter((l) => /^error:/.test(l));
      expect(errors, screen).toEqual([expect.stringMatching(/^error: .*cancel/i)]);
      expect(screen).not.toMatch(/^\s+at |ExitPromptError|node:internal/m);
      expect(screen).not.toMatch(/✓ Created/);
      // Not only no POST: no request at all (the key is checked locally before the first question).
      expect(w.since(mark), screen).toHaveLength(0);
    },
    60_000,
  );

  it('--data @file is read once: the file changed while the question is open, what is sent is what the summary showed', async () => {
    const mark = w.mark();
    const file = join(scratchDir('pay-tty-data-'), 'customer.json');
    writeFileSync(file, JSON.stringify({ first_name: 'Ada', middle_name: 'King' }));
    const rest = ALL_BUT_EMAIL.slice(2); // --first-name comes from the file
    const p = await t.pay(['customers', 'create', '--data', `@${file}`, ...rest]);
    await p.answer('E-mail', 'ada@example.com');
    await p.answer(GATE.replace('--middle-name, ', ''), 'n');
    await p.waitForPrompt(CONFIRM);
    writeFileSync(file, JSON.stringify({ first_name: 'Mallory', middle_name: 'Changed' }));
    await p.answer(CONFIRM, 'y');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/^ {2}--first-name +Ada$/m);
    const posts = w.since(mark, 'POST');
    expect(posts, screen).toHaveLength(1);
    expect(posts[0]!.body).toEqual({ ...REQUIRED_BODY, middle_name: 'King' });
  }, 60_000);

  it('"n" at the question: exit 2, nothing sent', async () => {
    const mark = w.mark();
    const p = await t.pay(['customers', 'create', ...ALL_BUT_EMAIL]);
    await p.answer('E-mail', 'ada@example.com');
    await p.answer(GATE, 'n');
    await p.answer(CONFIRM, 'n');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    expect(screen).toMatch(/^error: not confirmed; nothing was sent$/m);
    expect(w.since(mark, 'POST')).toHaveLength(0);
  }, 60_000);

  it('--yes skips the question (the summary still shows what is sent)', async () => {
    const mark = w.mark();
    const p = await t.pay(['customers', 'create', ...ALL_BUT_EMAIL, '--yes']);
    await p.answer('E-mail', 'ada@example.com');
    await p.answer(GATE, '');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(screen).toContain('About to run "pay customers create"');
    expect(screen).not.toContain(CONFIRM);
    const posts = w.since(mark, 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual(REQUIRED_BODY);
  }, 60_000);

  it('--interactive: every required flag given, the optional fields are asked without the gate', async () => {
    const mark = w.mark();
    const p = await t.pay(['customers', 'create', ...ALL_BUT_EMAIL, '--email', 'ada@example.com', '--interactive', '--yes'], {});
    await p.answer('Middle name', '');
    await choose(p, 'Gender', 'non', 'non_binary');
    await choose(p, 'State / subdivision of GB', 'LND', 'GB-LND');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('Add optional details?');
    const posts = w.since(mark, 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({ ...REQUIRED_BODY, gender: 'non_binary', address: { ...REQUIRED_BODY.address, state: 'GB-LND' } });
  }, 60_000);

  it('--interactive with --no-input on a terminal: exit 2 saying prompting is off, nothing asked or sent', async () => {
    const mark = w.mark();
    const p = await t.pay(['customers', 'create', '--interactive', '--no-input']);
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    expect(screen).toMatch(/^error: --interactive asks on the terminal, but prompting is off \(--no-input, PAY_NO_INPUT or CI\)$/m);
    expect(activePrompt(screen)).toBeUndefined();
    expect(w.since(mark)).toHaveLength(0);
  });

  it('features activate twice: "Activated", then "was already active" (the emulator answered the same status, unchanged)', async () => {
    const cus = await customer(w);
    const mark = w.mark();
    const first = await t.pay(['features', 'activate', cus, '--feature', 'collections']);
    const one = await first.finish();
    expect(one.code, one.screen).toBe(0);
    expect(one.screen).toContain(`✓ Activated collections for ${cus}`);
    await first.kill();
    const second = await t.pay(['features', 'activate', cus, '--feature', 'collections']);
    const two = await second.finish();
    expect(two.code, two.screen).toBe(0);
    expect(two.screen).toContain(`✓ collections was already active for ${cus}; nothing changed`);
    expect(two.screen).not.toContain('✓ Activated');
    // What the emulator received and answered: each run read the status, then activated; both 200.
    const got = w.since(mark).map((r) => `${r.method} ${r.path} ${r.status}`);
    const status = `/v1/customers/${cus}/features/collections`;
    expect(got).toEqual([`GET ${status} 200`, `POST ${status}/activate 200`, `GET ${status} 200`, `POST ${status}/activate 200`]);
  }, 60_000);
});

describeTty('--interactive with --from-file', () => {
  it.each(['customers', 'accounts'])(
    'pay %s create --from-file --interactive, on a terminal and off one: exit 2, the file not read, nothing sent',
    async (group) => {
      const file = join(scratchDir('pay-tty-bulk-'), 'rows.ndjson');
      writeFileSync(file, '{"first_name":"Ada"}\n');
      const line = /^error: --interactive and --from-file do not go together: a --from-file run takes every field from its rows$/m;
      const mark = w.mark();
      const r = await w.pay([group, 'create', '--from-file', file, '--interactive']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(line);
      expect(r.stdout).toBe('');
      const p = await t.pay([group, 'create', '--from-file', file, '--interactive']);
      const { code, screen } = await p.finish();
      expect(code, screen).toBe(2);
      expect(screen).toMatch(line);
      expect(w.since(mark)).toHaveLength(0);
    },
    60_000,
  );
});

describe('--interactive off a terminal', () => {
  it.each([
    ['customers create, nothing given', ['customers', 'create']],
    ['customers create, every required flag given', ['customers', 'create', ...ALL_BUT_EMAIL, '--email', 'ada@example.com']],
    ['accounts create --currency USD', ['accounts', 'create', '--currency', 'USD']],
  ])('%s --interactive: exit 2 naming why (no terminal), nothing sent', async (_what, argv) => {
    const mark = w.mark();
    const r = await w.pay([...argv, '--interactive']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: --interactive needs a terminal: stdin and stderr are not both terminals$/m);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(w.since(mark)).toHaveLength(0);
  });
});
