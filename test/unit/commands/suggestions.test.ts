// One way to guess a mistyped name (src/lib/distance.ts didYouMean(closeNames(…))), the same
// where the entry guesses commands and options: pay trigger's event type, its --override object
// and field, and webhooks listen --events. Generated typos (a letter left out, added or changed, a
// prefix, another case) and unrelated words: each place gives exactly the shared guess, or none,
// in the hint line, then what lists the valid names; nothing is sent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestBodySchema } from '../../../src/api/request-fields.js';
import { OBJECT_OPERATIONS, RECIPES, recipeObjects } from '../../../src/commands/trigger/recipes.js';
import { closeNames, didYouMean } from '../../../src/lib/distance.js';
import { EVENT_TYPES } from '../../../src/shared/events.js';
import { pay } from './harness.js';

const LOWER = 'abcdefghijklmnopqrstuvwxyz_';

/** A typo of `name` (letters from `alphabet`), or an unrelated word. */
const typo = (names: readonly string[], alphabet = LOWER) =>
  fc
    .record({
      name: fc.constantFrom(...names),
      how: fc.constantFrom('delete', 'insert', 'change', 'prefix', 'upper', 'word'),
      at: fc.nat(),
      letter: fc.constantFrom(...alphabet),
      word: fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 12 }).map((a) => a.join('')),
    })
    .map(({ name, how, at, letter, word }) => {
      const i = at % name.length;
      if (how === 'delete') return name.slice(0, i) + name.slice(i + 1);
      if (how === 'insert') return name.slice(0, i) + letter + name.slice(i);
      if (how === 'change') return name.slice(0, i) + letter + name.slice(i + 1);
      if (how === 'prefix') return name.slice(0, i + 1);
      if (how === 'upper') return name.toUpperCase();
      return word;
    })
    .filter((t) => t !== '' && !names.includes(t) && /^[a-z]/i.test(t));

/** The hint: the shared guess (if any), then `tail`. */
const hintFor = (typed: string, names: readonly string[], tail: string, mapped = (n: string) => n): string => {
  const guess = didYouMean(closeNames(typed, names).map(mapped));
  return `hint: ${guess ? `${guess} ` : ''}${tail}`;
};

describe('a mistyped name gets the one shared guess', () => {
  it('pay trigger <event-type> and webhooks listen --events (generated typos)', async () => {
    await fc.assert(
      fc.asyncProperty(typo(EVENT_TYPES, `${LOWER}.`), async (t) => {
        const trigger = await pay(['trigger', t]);
        expect(trigger.code, t).toBe(2);
        expect(trigger.stderr.split('\n')[1], t).toBe(hintFor(t, EVENT_TYPES, `pay trigger --list lists all ${EVENT_TYPES.length}`));
        expect(trigger.requests).toEqual([]);
        const listen = await pay(['webhooks', 'listen', '--port', '0', '--events', `customer.created,${t}`]);
        expect(listen.code, t).toBe(2);
        expect(listen.stderr, t).toBe(
          `error: --events: unknown event type "${t}"\n${hintFor(t, EVENT_TYPES, 'pay webhooks list --help lists every event type (--type)')}\n`,
        );
        expect(listen.requests).toEqual([]);
      }),
      { numRuns: 60, seed: 7 },
    );
  });

  it('pay trigger --override: the object and the field (generated typos)', async () => {
    const objects = recipeObjects(RECIPES['transfer.failed']);
    const fields = Object.keys((requestBodySchema(OBJECT_OPERATIONS.transfer) as { properties: object }).properties);
    await fc.assert(
      fc.asyncProperty(
        typo(objects).filter((t) => !Object.hasOwn(OBJECT_OPERATIONS, t) && /^[a-z][a-z0-9_]*$/.test(t)),
        typo(fields).filter((t) => /^[a-z][a-z0-9_]*$/.test(t)),
        async (object, field) => {
          const o = await pay(['trigger', 'transfer.failed', '--override', `${object}.amount=1`]);
          expect(o.code, object).toBe(2);
          const guess = didYouMean(closeNames(object, objects));
          expect(o.stderr.split('\n')[1] ?? '', object).toBe(guess ? `hint: ${guess}` : '');
          const f = await pay(['trigger', 'transfer.failed', '--override', `transfer.${field}=1`]);
          expect(f.code, field).toBe(2);
          const fieldGuess = didYouMean(closeNames(field, fields).map((n) => `transfer.${n}`));
          expect(f.stderr.split('\n')[1] ?? '', field).toBe(fieldGuess ? `hint: ${fieldGuess}` : '');
          expect([...o.requests, ...f.requests]).toEqual([]);
        },
      ),
      { numRuns: 40, seed: 7 },
    );
  });

  it('a name far from every one gets no guess (listen named the three nearest, however far)', async () => {
    const listen = await pay(['webhooks', 'listen', '--port', '0', '--events', 'zzzzzzzz']);
    expect(listen.stderr).toBe(
      'error: --events: unknown event type "zzzzzzzz"\nhint: pay webhooks list --help lists every event type (--type)\n',
    );
    const trigger = await pay(['trigger', 'zzzzzzzz']);
    expect(trigger.stderr).toBe(`error: unknown event type "zzzzzzzz"\nhint: pay trigger --list lists all ${EVENT_TYPES.length}\n`);
    const override = await pay(['trigger', 'transfer.failed', '--override', 'zzzzzzzz.amount=1']);
    expect(override.stderr).not.toContain('did you mean');
  });

  it('the typos people make: a letter off, a prefix, another case', async () => {
    const hint = async (argv: string[]) => (await pay(argv)).stderr.split('\n')[1];
    expect(await hint(['trigger', 'transfer.faild'])).toBe('hint: did you mean transfer.failed? pay trigger --list lists all 28');
    expect(await hint(['trigger', 'Transfer.Failed'])).toBe('hint: did you mean transfer.failed? pay trigger --list lists all 28');
    expect(await hint(['trigger', 'paymentlink.expired'])).toBe('hint: did you mean payment_link.expired? pay trigger --list lists all 28');
    expect(await hint(['trigger', 'card'])).toMatch(/^hint: did you mean one of card\.\w+, card\.\w+, card\.\w+, card\.\w+, card\.\w+\? /);
    expect(await hint(['webhooks', 'listen', '--events', 'customer.creatd'])).toBe(
      'hint: did you mean customer.created? pay webhooks list --help lists every event type (--type)',
    );
    expect(await hint(['trigger', 'transfer.failed', '--override', 'transfr.amount=1'])).toBe('hint: did you mean transfer?');
    expect(await hint(['trigger', 'transfer.failed', '--override', 'transfer.amout=1'])).toBe('hint: did you mean transfer.amount?');
  });
});
