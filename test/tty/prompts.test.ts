// `pay customers create` with no flags, typed into a real pseudo-terminal (tmux): every prompt
// in the contract's order (section 7; the optional fields after "Add optional details?", then the
// summary's question, as every create asks: test/tty/customers-create-prompts.test.ts), each
// validation shown on screen and then corrected, and the one POST that results, read back from a recording server. Ctrl-C at a prompt: one
// line, exit 130, nothing sent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CUSTOMER_REQUIRED_PROMPTS, customerFlags } from '../helpers/fixtures.js';
import { PAY_BIN } from '../helpers/run-pay.js';
import { TTY_KEY as KEY, ttyServer } from '../helpers/tty-world.js';
import { activePrompt, describeTty, linesBeforeExit, scratchDir, type Pane } from './tmux.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CUSTOMER_ID = 'cus_0123456789abcdefghijklmn';

const EXPECTED_BODY = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone: '+447700900123',
  type: 'business',
  date_of_birth: '1990-12-10',
  address: {
    address_line1: '12 St James Square',
    city: 'London',
    country: 'GB',
    postal_code: 'SW1Y 4JH',
    state: 'GB-LND',
  },
};

/** The prompt labels, in the order contract section 7 and src/commands/customers fix: the required fields, then the optional ones. */
const PROMPT_ORDER = [
  ...CUSTOMER_REQUIRED_PROMPTS,
  // The optional fields after every required one, once asked for.
  'Add optional details?',
  'Middle name',
  'Gender',
  'State',
  'Create this customer?',
];

// Each pane gets the server, a sandbox key, a tenant, a fresh config folder; no CI, no PAY_NO_INPUT.
const tty = ttyServer('pay-tty-config-');
const { server } = tty;

/** The items of the active list prompt, and which one the cursor (❯) is on. */
function listItems(screen: string): { items: string[]; active: number } {
  const lines = screen.split('\n');
  const start = lines.lastIndexOf(activePrompt(screen) ?? '');
  const items: string[] = [];
  let active = -1;
  for (const line of lines.slice(start + 1)) {
    const m = /^([❯ ]) (\S.*?)\s*$/.exec(line);
    if (!m) break;
    if (m[1] === '❯') active = items.length;
    items.push(m[2]!);
  }
  return { items, active };
}

/** Moves the cursor of the active list prompt to `item` with the arrow keys, one key at a time, then presses Enter. */
async function pick(p: Pane, label: string, item: string): Promise<void> {
  const screen = await p.waitFor((s) => (activePrompt(s)?.startsWith(`? ${label}`) ?? false) && listItems(s).active >= 0);
  const { items } = listItems(screen);
  const target = items.indexOf(item);
  expect(target, `"${item}" is offered at the ${label} prompt; offered: ${items.join(', ')}`).toBeGreaterThanOrEqual(0);
  for (let active = listItems(screen).active; active !== target;) {
    const next = active + (target > active ? 1 : -1);
    await p.keys(target > active ? 'Down' : 'Up');
    await p.waitFor((s) => listItems(s).active === next);
    active = next;
  }
  await p.keys('Enter');
}

/** Types a wrong answer, checks the validation message on screen, clears the line and types the right one. */
async function answerAfterError(p: Pane, label: string, wrong: string, message: string | RegExp, right: string): Promise<void> {
  await p.answer(label, wrong);
  const screen = await p.waitFor((s) => {
    const tail = s.split('\n').slice(-3).join('\n');
    return typeof message === 'string' ? tail.includes(message) : message.test(tail);
  });
  // Still the same prompt: the wrong value was refused, not taken.
  expect(activePrompt(screen)).toMatch(new RegExp(`^\\? ${label.replace(/[()+.]/g, '\\$&')}`));
  await p.keys('C-u');
  await p.type(right);
  await p.keys('Enter');
}

describeTty('pay customers create: the prompts in a real terminal (tmux)', () => {
  it('asks every field in order (the optional ones after a yes), validates as it goes, and sends one seed-shaped POST', async () => {
    server.queue.push({
      status: 201,
      body: { id: CUSTOMER_ID, object: 'customer', ...EXPECTED_BODY, kyc_status: 'pending', created_at: '2026-11-20T10:00:00.000Z' },
    });
    const futureYear = new Date().getUTCFullYear() + 1;
    const p = await tty.pay(['customers', 'create']);

    await p.answer('First name', 'Ada');
    await p.answer('Last name', 'Lovelace');
    await answerAfterError(p, 'E-mail', 'ada@', 'must be an e-mail address', 'ada@example.com');
    await answerAfterError(p, 'Phone', '447700900123', 'must be in international format', '+447700900123');
    await pick(p, 'Customer type', 'business');
    await answerAfterError(p, 'Date of birth', `${futureYear}-01-01`, 'must not be in the future', '1990-12-10');
    await p.answer('Street', '12 St James Square');
    await p.answer('City', 'London');
    await p.answer('Country', 'gb'); // lower case is accepted and sent upper case
    await p.answer('Postal code', 'SW1Y 4JH');
    await p.answer('Add optional details?', 'y');
    await p.answer('Middle name', ''); // optional: Enter skips it
    await pick(p, 'Gender', 'skip');
    // The state list is GB's: US-CA is not offered; the bare subdivision picks GB-LND.
    await p.waitForPrompt('State / subdivision of GB');
    await p.type('US-CA');
    await p.waitFor((s) => /No results/i.test(s.split('\n').slice(-4).join('\n')));
    await p.keys('C-u');
    await p.type('LND');
    await p.waitFor((s) => listItems(s).items[0]?.startsWith('GB-LND  London, City of') ?? false);
    await p.keys('Enter');
    await p.answer('Create this customer?', '');

    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);

    // Every prompt was asked, once, in the contract's order.
    const answered = screen
      .split('\n')
      .filter((l) => l.startsWith('✔ '))
      .map((l) => PROMPT_ORDER.find((label) => l.startsWith(`✔ ${label}`)) ?? l);
    expect(answered).toEqual(PROMPT_ORDER);
    expect(screen).toContain(`✓ Created customer ${CUSTOMER_ID}`);
    expect(screen).not.toContain(KEY);

    // Exactly one request: the POST, with the body as the seed's section 2 shapes it.
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/customers');
    expect(req.json).toEqual(EXPECTED_BODY);
    expect(req.headers['idempotency-key']).toMatch(UUID);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['api-key']).toBe(KEY);
    expect(req.headers['x-tenant-id']).toBe('biz_1');
  });

  it('country by name, accents aside; after US, the bare VA at the state list gives US-VA', async () => {
    server.queue.push({ status: 201, body: { id: CUSTOMER_ID } });
    const p = await tty.pay([
      'customers',
      'create',
      ...['--first-name', 'Ada', '--last-name', 'Lovelace', '--middle-name', 'King', '--email', 'ada@example.com'],
      ...['--phone', '+14155550123', '--type', 'individual', '--gender', 'female', '--date-of-birth', '1990-12-10'],
      ...['--address-line1', '1 Main St', '--city', 'Richmond', '--postal-code', '23219'],
    ]);
    // Searchable by name: "turkiye" finds Türkiye, "south korea" the common name of KR.
    await p.waitForPrompt('Country');
    await p.type('turkiye');
    await p.waitFor((s) => listItems(s).items[0] === 'TR  Türkiye');
    await p.keys('C-u');
    await p.type('south korea');
    await p.waitFor((s) => listItems(s).items[0] === 'KR  Korea, Republic of (South Korea)');
    await p.keys('C-u');
    await p.type('united states');
    await p.waitFor((s) => listItems(s).items[0] === 'US  United States');
    await p.keys('Enter');
    await p.answer('Add optional details? (--state)', 'y');
    await p.waitForPrompt('State / subdivision of US');
    await p.type('va');
    await p.waitFor((s) => listItems(s).items[0] === 'US-VA  Virginia');
    await p.keys('Enter');
    await p.answer('Create this customer?', '');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect((server.requests[0]!.json as { address: unknown }).address).toEqual({
      address_line1: '1 Main St',
      city: 'Richmond',
      country: 'US',
      postal_code: '23219',
      state: 'US-VA',
    });
  });

  it('a typo at the customer-type list is offered as "did you mean individual?", never taken as itself; usa and virgina find US and US-VA; a phone with spaces is sent in E.164', async () => {
    server.queue.push({ status: 201, body: { id: CUSTOMER_ID } });
    const p = await tty.pay([
      'customers',
      'create',
      ...['--first-name', 'Ada', '--last-name', 'Lovelace', '--middle-name', 'King', '--email', 'ada@example.com'],
      ...['--gender', 'female', '--date-of-birth', '1990-12-10'],
      ...['--address-line1', '1 Main St', '--city', 'Richmond', '--postal-code', '23219'],
    ]);
    await p.answer('Phone', '+1 (415) 555-0199');
    await p.waitForPrompt('Customer type');
    await p.type('indivdual');
    const typed = await p.waitFor((s) => listItems(s).items[0] === 'did you mean individual?');
    // The typo itself is offered only as another value, which pay asks about before using it.
    expect(listItems(typed).items[1]).toBe('indivdual (not in the list: pay asks before using it)');
    await p.keys('Enter');
    await p.waitForPrompt('Country');
    await p.type('usa');
    await p.waitFor((s) => listItems(s).items[0] === 'US  United States');
    await p.keys('Enter');
    await p.answer('Add optional details? (--state)', 'y');
    await p.waitForPrompt('State / subdivision of US');
    await p.type('virgina');
    await p.waitFor((s) => listItems(s).items[0] === 'US-VA  Virginia');
    await p.keys('Enter');
    await p.answer('Create this customer?', '');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.json as { type: string; phone: string; address: { country: string; state: string } };
    expect(body.type).toBe('individual');
    expect(body.phone).toBe('+14155550199');
    expect(body.address).toMatchObject({ country: 'US', state: 'US-VA' });
  });

  it('a country without ISO 3166-2 subdivisions (AQ) asks no state, nor "Add optional details?" for it', async () => {
    server.queue.push({ status: 201, body: { id: CUSTOMER_ID } });
    const p = await tty.pay([
      'customers',
      'create',
      ...['--first-name', 'Ada', '--last-name', 'Lovelace', '--middle-name', 'King', '--email', 'ada@example.com'],
      ...['--phone', '+14155550123', '--type', 'individual', '--gender', 'female', '--date-of-birth', '1990-12-10'],
      ...['--address-line1', '1 Main St', '--city', 'McMurdo', '--postal-code', '00000'],
    ]);
    // Typed and Enter in one burst (as pasted): the answer is what the typed term lists first,
    // not what the list showed before it caught up (AD).
    await p.waitForPrompt('Country');
    await p.type('aq\r');
    await p.answer('Create this customer?', '');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('? State');
    expect(screen).not.toContain('Add optional details?');
    expect((server.requests[0]!.json as { address: unknown }).address).toEqual({
      address_line1: '1 Main St',
      city: 'McMurdo',
      country: 'AQ',
      postal_code: '00000',
    });
  });

  it('Enter alone at an optional choice prompt (Gender) skips the field (contract section 7)', async () => {
    server.queue.push({ status: 201, body: { id: CUSTOMER_ID } });
    const p = await tty.pay(
      // Everything but the postal code (and the optional gender).
      ['customers', 'create', ...customerFlags({ '--postal-code': undefined, '--middle-name': 'King' })],
    );
    // Left to ask: the required postal code, then the optional Gender. At Gender the user
    // presses Enter without choosing anything.
    await p.answer('Postal code', 'SW1A 1AA');
    await p.answer('Add optional details? (--gender)', 'y');
    await p.waitFor((s) => (activePrompt(s)?.startsWith('? Gender') ?? false) && listItems(s).active >= 0);
    await p.keys('Enter');
    await p.answer('Create this customer?', '');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.json).not.toHaveProperty('gender');
  });

  it('every required flag but --email: the e-mail is asked first; an e-mail typed as the middle name is asked about, not taken', async () => {
    server.queue.push({ status: 201, body: { id: CUSTOMER_ID } });
    const given = ['--first-name', 'Ada', '--last-name', 'Lovelace', '--phone', '+447700900123', '--type', 'individual'];
    const address = [
      '--address-line1',
      '1 Main St',
      '--city',
      'London',
      '--country',
      'GB',
      '--postal-code',
      'SW1A 1AA',
      '--state',
      'GB-LND',
    ];
    const p = await tty.pay(['customers', 'create', ...given, '--date-of-birth', '1990-12-10', ...address]);
    await p.answer('E-mail', 'ada@example.com');
    await p.answer('Add optional details? (--middle-name, --gender)', 'y');
    await p.answer('Middle name', 'ada@example.com');
    await p.answer('"ada@example.com" looks like an e-mail address', 'n');
    // Asked again; Enter skips it.
    await p.answer('Middle name', '');
    await p.waitFor((s) => (activePrompt(s)?.startsWith('? Gender') ?? false) && listItems(s).active >= 0);
    await p.keys('Enter');
    await p.answer('Create this customer?', '');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    const asked = screen
      .split('\n')
      .filter((l) => l.startsWith('✔ '))
      .map((l) => l.slice(2, 12));
    expect(asked[0]).toBe('E-mail ada');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.json).toMatchObject({ email: 'ada@example.com' });
    expect(server.requests[0]!.json).not.toHaveProperty('middle_name');
  });

  it.each([
    ['a text prompt (E-mail, half typed)', 'E-mail', 'ada@exa'],
    ['a list prompt (Customer type)', 'Customer type', ''],
  ])('Ctrl-C at %s: one line, exit 130, nothing sent', async (_what, label, typed) => {
    const p = await tty.pay(['customers', 'create', '--first-name', 'Ada', '--last-name', 'Lovelace', '--middle-name', 'King']);
    if (label === 'Customer type') {
      await p.answer('E-mail', 'ada@example.com');
      await p.answer('Phone', '+447700900123');
    }
    await p.waitForPrompt(label);
    if (typed) {
      await p.type(typed);
      await p.waitFor((s) => activePrompt(s)?.includes(typed) ?? false);
    }
    await p.keys('C-c');

    const { code, screen } = await p.finish();
    expect(code, screen).toBe(130);
    const lines = linesBeforeExit(screen);
    // What pay printed after the prompt it was at: one error line, nothing else.
    const promptAt = lines.findIndex((l) => l.startsWith(`? ${label}`));
    expect(promptAt).toBeGreaterThanOrEqual(0);
    const after = lines.slice(promptAt + 1).filter((l) => l.trim() !== '' && !/^[❯ ] \S/.test(l) && !/navigate/.test(l));
    expect(after).toEqual([expect.stringMatching(/^error: \S/)]);
    expect(after[0]).toMatch(/cancel/i);
    expect(screen).not.toMatch(/^\s+at /m);
    expect(screen).not.toMatch(/Error:|ExitPromptError|node:internal/);
    expect(server.requests).toHaveLength(0);
  });

  it('stdout redirected to a file: still prompts (on stderr), and the file gets only the created object', async () => {
    const created = { id: CUSTOMER_ID, ...EXPECTED_BODY };
    server.queue.push({ status: 201, body: created });
    const out = join(scratchDir('pay-tty-out-'), 'customer.json');
    const rest = [
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
      '--middle-name',
      'King',
      '--phone',
      '+447700900123',
      '--type',
      'business',
      '--gender',
      'female',
      '--date-of-birth',
      '1990-12-10',
      '--address-line1',
      '12 St James Square',
      '--city',
      'London',
      '--country',
      'GB',
      '--postal-code',
      'SW1Y 4JH',
      '--state',
      'GB-LND',
    ];
    const p = await tty.start([
      'sh',
      '-c',
      'out=$1; shift; "$@" --json > "$out"; echo "EXIT:$?"',
      'sh',
      out,
      process.execPath,
      PAY_BIN,
      'customers',
      'create',
      ...rest,
    ]);
    await p.answer('E-mail', 'ada@example.com');
    await p.answer('Create this customer?', '');
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(created);
    expect(screen).not.toContain('"first_name"'); // the object went to the file, not the terminal
    expect(server.requests).toHaveLength(1);
    expect((server.requests[0]!.json as { email?: string }).email).toBe('ada@example.com');
  });

  it.each([
    ['PAY_NO_INPUT', '1'],
    ['CI', 'true'],
  ])('%s set in a terminal: no prompt, exit 2 naming the flags, nothing sent', async (name, value) => {
    const p = await tty.pay(['customers', 'create', '--first-name', 'Ada'], { env: { [name]: value } });
    const { code, screen } = await p.finish();
    expect(code, screen).toBe(2);
    expect(screen).not.toMatch(/^\? /m);
    expect(screen).toMatch(/^error: missing required flags: .*--last-name.*--email/m);
    expect(screen).not.toMatch(/--first-name/);
    expect(server.requests).toHaveLength(0);
  });
});
