// What a create asks for and in which order (src/verbs/ask.ts), over every create and action verb
// of the tree as the verb engine sees it: the owner (cus_) before its accounts (acc_), the currency
// before the amount, every required field asked, a field a value makes needed (a physical card's
// address, mobile money's phone) asked once it is; and looksLike, generated: an e-mail, an id or a
// phone typed into a free-text field is named, a name is not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allGroups } from '../../src/commands/groups.js';
import type { FlagSpec, VerbSpec } from '../../src/cmdutil/spec.js';
import { askingOrder, labelOf, looksLike, neededFields } from '../../src/verbs/ask.js';
import { normalEmail } from '../../src/shared/fields.js';

const asking: Array<[string, VerbSpec]> = allGroups.flatMap((g) =>
  g.verbs.filter((v) => (v.kind === 'create' || v.kind === 'action') && v.body).map((v): [string, VerbSpec] => [`${g.name} ${v.name}`, v]),
);

const at = (order: FlagSpec[], pred: (fl: FlagSpec) => boolean) => order.findIndex(pred);

describe('the asking order of every create and action verb', () => {
  it('there are verbs to check (the four of the issue among them)', () => {
    const names = asking.map(([n]) => n);
    for (const n of ['accounts create', 'transfers send', 'cards issue', 'collections create']) expect(names).toContain(n);
  });

  it.each(asking)('%s: owner first, then its accounts, the currency before the amount; every required field asked', (_name, verb) => {
    const order = askingOrder(verb.flags ?? []);
    const cus = at(order, (fl) => fl.kind === 'id' && (fl.idPrefix ?? '').startsWith('cus_'));
    const acc = at(order, (fl) => fl.kind === 'id' && (fl.idPrefix ?? '').startsWith('acc_'));
    if (cus >= 0 && acc >= 0) expect(cus).toBeLessThan(acc);
    for (const amount of order.filter((fl) => fl.kind === 'amount')) {
      const cur = at(order, (fl) => fl.kind === 'currency');
      if (cur >= 0) expect(cur).toBeLessThan(order.indexOf(amount));
    }
    // Ids before anything else.
    const firstOther = at(order, (fl) => fl.kind !== 'id');
    if (firstOther >= 0) expect(order.slice(firstOther).some((fl) => fl.kind === 'id')).toBe(false);
    for (const fl of verb.flags ?? []) {
      if (fl.required && fl.field && !fl.pathParam && fl.kind !== 'bool') expect(order).toContain(fl);
    }
    // Nothing asked twice, nothing that is not a body field.
    expect(new Set(order).size).toBe(order.length);
    for (const fl of order) expect(fl.field).toBeTruthy();
  });

  it.each(asking)('%s: what a value makes needed is needed once the value is there', (_name, verb) => {
    const flags = verb.flags ?? [];
    const base = neededFields(flags, verb.constraints ?? [], {});
    for (const fl of flags) if (fl.required && fl.field && fl.default === undefined) expect(base.has(fl.field)).toBe(true);
    for (const c of verb.constraints ?? []) {
      if (c.kind !== 'requiredWhen') continue;
      for (const value of c.values) {
        const body: Record<string, unknown> = {};
        let cur = body;
        const parts = c.field.split('.');
        for (const p of parts.slice(0, -1)) cur = cur[p] = {};
        cur[parts[parts.length - 1]!] = value;
        const needed = neededFields(flags, verb.constraints ?? [], body);
        for (const r of c.require) expect(needed.has(r), `${c.field}=${value} needs ${r}`).toBe(true);
      }
    }
  });

  it('labels name the flag that would give the value', () => {
    for (const [, verb] of asking) for (const fl of askingOrder(verb.flags ?? [])) expect(labelOf(fl)).toMatch(/ \(--[a-z0-9-]+\)$/);
  });
});

describe('looksLike: what another field would recognise', () => {
  it('e-mail addresses are named (generated)', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (e) => {
        fc.pre(normalEmail(e).error === undefined && e === e.trim());
        expect(looksLike(e)).toBe('an e-mail address');
      }),
      { seed: 20261129, numRuns: 300 },
    );
  });

  it('ids are named (generated)', () => {
    const id = fc
      .tuple(fc.constantFrom('cus', 'acc', 'ea', 'tr', 'card', 'col'), fc.stringMatching(/^[0-9a-z]{24}$/))
      .map(([p, rest]) => `${p}_${rest}`);
    fc.assert(
      fc.property(id, (v) => {
        expect(looksLike(v)).toBe('an id');
      }),
      { seed: 20261129, numRuns: 200 },
    );
  });

  it('phone numbers in international format are named (a table of writings)', () => {
    for (const v of ['+447700900123', '+1 415 555 0199', '+254 712-345-678', '+33 (1) 23 45 67 89'])
      expect(looksLike(v), v).toBe('a phone number');
  });

  it('names, streets and labels are not (generated)', () => {
    const word = fc.stringMatching(/^[A-Z][a-zà-ÿ'-]{0,15}$/);
    const text = fc.oneof(
      fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
      fc.tuple(fc.integer({ min: 1, max: 9999 }), word).map(([n, w]) => `${n} ${w} St`),
      fc.constantFrom('Rainy day', 'inv-42', 'SW1A 1AA', "O'Brien", 'Jean-Luc', 'Ünal'),
    );
    fc.assert(
      fc.property(text, (v) => {
        expect(looksLike(v)).toBeUndefined();
      }),
      { seed: 20261129, numRuns: 300 },
    );
  });
});
