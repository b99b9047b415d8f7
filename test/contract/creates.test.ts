// Every create verb declares the kind of object it makes (VerbSpec.creates, an id prefix), equal
// to the id pattern of its operation's answer in the contract; and the client refuses a 2xx whose
// object is of another kind (exit 1, nothing on stdout), whatever the other kind is: a service
// that answers `customers create` with an account made no customer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openapi } from '../../src/api/openapi.js';
import { resolve, successSchema } from '../../src/api/response-fields.js';
import { allGroups } from '../../src/commands/groups.js';
import { EVENT_SUBJECTS } from '../../src/commands/webhooks/index.js';
import { OBJECT_KINDS, pathOf, type RoutedKind } from '../../src/shared/domain.js';
import { EVENT_TYPES } from '../../src/shared/events.js';
import { pay } from '../unit/commands/harness.js';
import { allOperations } from './contract-helpers.js';
import { customerFlags } from '../helpers/fixtures.js';

type Schema = { properties?: Record<string, { pattern?: string }>; allOf?: unknown[] };

/** The id pattern of a schema, its own or one of its allOf parts'. */
const idPattern = (schema: unknown): string | undefined => {
  const s = resolve(schema) as Schema | undefined;
  return s?.properties?.id?.pattern ?? s?.allOf?.map(idPattern).find((p) => p !== undefined);
};

/** The id pattern of an operation's success answer (read as --fields and the replay note read it: successSchema). */
function answerIdPattern(operationId: string): string | undefined {
  return idPattern(successSchema(operationId));
}

const CREATE = ['customers', 'create', ...customerFlags({ '--state': undefined })];

const creates = allGroups.flatMap((g) => g.verbs.filter((v) => v.kind === 'create').map((v) => ({ group: g.name, verb: v })));

describe('create verbs and the kind of object they make', () => {
  it('covers the creates', () => {
    expect(creates.length).toBeGreaterThanOrEqual(14);
  });

  it.each(creates.map((c) => [`pay ${c.group} ${c.verb.name}`, c.verb] as const))('%s declares the prefix its answer has', (_n, verb) => {
    expect(verb.creates, `${verb.operationId} declares no creates`).toMatch(/^[a-z]+_$/);
    expect(answerIdPattern(verb.operationId)).toBe(`^${verb.creates}[0-9a-z]{24}$`);
  });

  it('a create answered with another kind of object is exit 1, one error line, nothing on stdout', async () => {
    const prefixes = [...new Set(creates.map((c) => c.verb.creates!))];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...prefixes.filter((p) => p !== 'cus_')),
        fc.stringMatching(/^[0-9a-z]{24}$/),
        async (other, tail) => {
          const r = await pay(CREATE, {
            respond: () => ({ status: 201, body: { id: `${other}${tail}`, object: 'customer', first_name: 'Ada' } }),
          });
          expect(r.code).toBe(1);
          expect(r.stdout).toBe('');
          expect(r.stderr).toContain(`the service answered 201 with object ${other}${tail} where a new cus_… object was expected`);
          expect(r.stderr.trimEnd().split('\n')[0]).toMatch(/^error: /);
        },
      ),
      { numRuns: 25 },
    );
    // The same answer with the customer's kind is the customer.
    const id = 'cus_0123456789abcdefghijklmn';
    const ok = await pay([...CREATE, '--json'], { respond: () => ({ status: 201, body: { id, object: 'customer', first_name: 'Ada' } }) });
    expect({ code: ok.code, stdout: JSON.parse(ok.stdout) as unknown }).toEqual({
      code: 0,
      stdout: { id, object: 'customer', first_name: 'Ada' },
    });
  });
});

describe("the objects' id prefixes and paths (OBJECT_KINDS, src/shared/domain.ts) are the contract's", () => {
  /** Each object the contract gives an id: its `object` value and its id prefix. */
  const inContract = (): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const schema of Object.values(openapi.components.schemas)) {
      const props = (schema as { properties?: { object?: { const?: unknown }; id?: { pattern?: unknown } } }).properties;
      const object = props?.object?.const;
      const pattern = props?.id?.pattern;
      if (typeof object !== 'string' || typeof pattern !== 'string') continue;
      const prefix = /^\^([a-z]+_)\[0-9a-z\]\{24\}\$$/.exec(pattern)?.[1];
      expect(prefix, `${object}: ${pattern}`).toBeDefined();
      out[object] = prefix!;
    }
    return out;
  };

  it('every object with an id, and only those, with the same prefix', () => {
    expect(Object.fromEntries(Object.entries(OBJECT_KINDS).map(([kind, k]) => [kind, k.prefix]))).toEqual(inContract());
  });

  it('an object with a path is what the contract answers at GET <path>/{id}', () => {
    const routed = (Object.keys(OBJECT_KINDS) as Array<keyof typeof OBJECT_KINDS>).filter((k) => 'path' in OBJECT_KINDS[k]) as RoutedKind[];
    expect(routed.length).toBeGreaterThanOrEqual(8);
    for (const kind of routed) {
      const get = allOperations().find((o) => o.method === 'get' && new RegExp(`^/${pathOf(kind)}/\\{[a-z_]+\\}$`).test(o.path));
      expect(get, kind).toBeDefined();
      expect(answerIdPattern(get!.operation.operationId), kind).toBe(`^${OBJECT_KINDS[kind].prefix}[0-9a-z]{24}$`);
    }
  });

  it("webhooks list --object takes the ids of the objects the event types are about (a feature's: its customer's)", () => {
    const objects = new Set(EVENT_TYPES.map((t) => t.split('.')[0]!));
    const expected = [...objects].map((o) =>
      o === 'kyc' ? 'kyc_' : o === 'feature' ? 'cus_' : OBJECT_KINDS[o as keyof typeof OBJECT_KINDS].prefix,
    );
    expect(EVENT_SUBJECTS.split('|').sort()).toEqual([...new Set(expected)].sort());
  });
});
