// The parts groups declare alike (src/cmdutil/spec-parts.ts): columns written as one line of text
// read back to the same columns, and a line it cannot read is the declaration's mistake (thrown).
import { describe, expect, it } from 'vitest';
import { allGroups } from '../../../src/commands/groups.js';
import { columns, createVerb, getVerb, groupObject, idArg, listVerb, pickOf, shown } from '../../../src/cmdutil/spec-parts.js';
import { operationHelp } from '../../../src/shared/rules.js';
import { CREATED_RANGE, CREATED_RANGE_CHECK } from '../../../src/cmdutil/spec.js';
import type { Column } from '../../../src/io/output.js';

const text = (c: Column): string =>
  [c.header, c.path, c.priority, c.kind, c.currencyPath && `@${c.currencyPath}`, c.meaning && `~${c.meaning}`]
    .filter((w) => w !== undefined && w !== '')
    .join(' ');

describe('columns as one line of text', () => {
  const tables = allGroups.flatMap((g) => [
    [g.name, g.columns] as const,
    ...g.verbs.flatMap((v) => [
      ...(v.columns ? [[`${g.name} ${v.name}`, v.columns] as const] : []),
      ...(v.arg?.pick ? [[`${g.name} ${v.name} picker`, v.arg.pick.show] as const] : []),
    ]),
  ]);

  it.each(tables)('%s: every table and picker of the tree reads back to itself', (_, cols) => {
    const line = cols.map(text).join(', ');
    expect(shown(line)).toEqual(cols.map((c) => ({ ...c })));
  });

  it.each([
    ['', 'column'],
    ['id 1', 'column'],
    ['ID', 'column'],
    ['ID id 1 kind', 'no such word "kind"'],
    ['ID id 1 money, STATUS status 2 state', 'no such word "state"'],
    ['ID id 1,', 'column'],
    ['ID id -1', 'no such word "-1"'],
    ['ID id 1 @', 'no such word "@"'],
  ])('%j is refused (%s)', (line, message) => {
    expect(() => shown(line)).toThrow(message);
  });

  it('a table column without its priority is refused; a picker row needs none', () => {
    expect(() => columns('ID id 1, STATUS status status')).toThrow('column STATUS: no priority');
    expect(shown('STATUS status status')).toEqual([{ header: 'STATUS', path: 'status', kind: 'status' }]);
  });
});

describe('picker, id argument and the list and get verbs', () => {
  it('one state filters the list and is checked; several are only checked; none is every object', () => {
    expect(pickOf('cards', 'frozen cards', 'LAST4 last4', ['frozen'])).toEqual({
      list: 'cards',
      query: { status: 'frozen' },
      where: { status: ['frozen'] },
      show: [{ header: 'LAST4', path: 'last4' }],
      what: 'frozen cards',
    });
    expect(pickOf('cards', 'cards', 'LAST4 last4', ['active', 'frozen'])).not.toHaveProperty('query');
    expect(pickOf('cards', 'cards', 'LAST4 last4')).toEqual({ list: 'cards', show: [{ header: 'LAST4', path: 'last4' }], what: 'cards' });
  });

  it('idArg, listVerb and getVerb name what the contract names', () => {
    expect(idArg('payment link', 'plink_')).toEqual({ name: '<id>', description: 'payment link id (plink_…)', idPrefix: 'plink_' });
    const list = listVerb('PaymentLink', 'List payment links', ['pay payment-links list'], []);
    expect(list).toMatchObject({ name: 'list', operationId: 'listPaymentLinks', jsonShape: 'an array of PaymentLink objects' });
    expect(list.flags).toEqual([...CREATED_RANGE]);
    expect(list.constraints).toEqual([CREATED_RANGE_CHECK]);
    expect(getVerb('PaymentLink', idArg('payment link', 'plink_'), 'Show one', [])).toMatchObject({
      name: 'get',
      operationId: 'getPaymentLink',
      jsonShape: 'the PaymentLink object',
    });
  });
});

describe('a group object and the create verb', () => {
  // Every group the tree declares through a group object: its name, noun and verbs' operations agree.
  it.each([
    ['transfer', 'tr_', 'transfers', 'Transfer'],
    ['payment link', 'plink_', 'payment-links', 'PaymentLink'],
    ['external account', 'ea_', 'external-accounts', 'ExternalAccount'],
    ['card', 'card_', 'cards', 'Card'],
  ])('%s: the group %s… is %s, its schema %s', (noun, prefix, name, schema) => {
    const o = groupObject(noun, prefix, 'STATUS status status');
    expect([o.name, o.noun, o.schema, o.example]).toEqual([name, noun, schema, `${prefix}0123456789abcdefghijklmn`]);
    const plural = name.replaceAll('-', ' ');
    expect(o.get('Show one', ['x'])).toEqual(
      getVerb(schema, idArg(noun, prefix, pickOf(name, plural, 'STATUS status status')), 'Show one', ['x']),
    );
    expect(o.arg('pending ones', ['pending'])).toEqual(
      idArg(noun, prefix, pickOf(name, 'pending ones', 'STATUS status status', ['pending'])),
    );
    expect(o.list(['y'], [])).toEqual(listVerb(schema, `List ${plural}, newest first`, [`pay ${name} list`, 'y'], []));
    expect(o.list([], [], 'List them').summary).toBe('List them');
    const group = allGroups.find((g) => g.name === name);
    if (group) expect(group.noun).toBe(noun);
  });

  it("createVerb: the verb's own text, then what the business rules ask (the operation's help)", () => {
    const v = createVerb('Transfer', { name: 'send', summary: 's', about: 'About.', examples: ['e'], jsonShape: 'j' });
    expect(v).toMatchObject({ name: 'send', operationId: 'createTransfer', description: `About.\n${operationHelp('createTransfer')}` });
    expect(createVerb('Wallet', { summary: 's', examples: [], jsonShape: 'j' })).toEqual({
      name: 'create',
      summary: 's',
      description: operationHelp('createWallet'),
      examples: [],
      operationId: 'createWallet',
      jsonShape: 'j',
    });
  });
});
