// The picker's declarations (arg.pick on each verb, src/cmdutil/spec.ts) against the contract:
// every verb with an id argument can pick it, or the contract has no list of its kind; the list
// named is a GET list operation whose items carry ids of the argument's kind; the filters sent
// are parameters of that operation with allowed values; the states a verb acts on are values of
// the field's enum; the columns shown are fields of the item.
import { describe, expect, it } from 'vitest';
import type { ParameterObject, ResponseObject, Schema } from '../../src/api/contract/types.js';
import { openapi } from '../../src/api/openapi.js';
import { allGroups } from '../../src/commands/groups.js';
import type { VerbSpec } from '../../src/cmdutil/spec.js';
import { allOperations, operationFor, resolve } from './contract-helpers.js';

/** Verbs whose id has no list in the contract (quotes are got one at a time): the argument stays required. */
const NO_LIST = new Set(['fx get-quote', 'fx trade']);

type S = Schema & { properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; allOf?: Schema[]; pattern?: string };

/** The schema at a dotted path of an object schema ($ref and allOf followed), or undefined. */
function at(schema: Schema, path: string): S | undefined {
  let cur: S | undefined = resolve(schema);
  for (const part of path.split('.')) {
    if (!cur) return undefined;
    const props: Record<string, Schema> = Object.assign({}, cur.properties, ...(cur.allOf ?? []).map((s) => (resolve(s) as S).properties));
    const next: Schema | undefined = props[part];
    cur = next ? resolve(next) : undefined;
  }
  return cur;
}

const verbs: Array<{ key: string; verb: VerbSpec }> = allGroups.flatMap((g) =>
  g.verbs.map((verb) => ({ key: `${g.name} ${verb.name}`, verb })),
);
const withIdArg = verbs.filter((v) => v.verb.arg?.idPrefix);

describe('arg.pick against the contract', () => {
  it('every verb with an id argument can pick it, except where the contract has no list of that kind', () => {
    expect(withIdArg.filter((v) => !v.verb.arg!.pick).map((v) => v.key)).toEqual([...NO_LIST]);
    // And indeed: nothing lists quotes.
    expect(allOperations().filter((o) => o.method === 'get' && o.path === '/fx/quotes')).toEqual([]);
    expect(withIdArg.length).toBeGreaterThan(25);
  });

  for (const { key, verb } of withIdArg.filter((v) => v.verb.arg!.pick)) {
    it(`${key}: picks from a list the contract has, with its filters, states and fields`, () => {
      const arg = verb.arg!;
      const pick = arg.pick!;
      const op = operationFor('get', pick.list);
      expect(op, `GET ${pick.list}`).toBeDefined();
      const page = resolve((op!.responses['200'] as ResponseObject).content!['application/json']!.schema) as S;
      const item = at(page, 'data')?.items;
      expect(item, `GET ${pick.list} answers a page with data[]`).toBeDefined();
      // Items carry ids of the argument's kind.
      expect(at(item!, 'id')?.pattern).toBe(`^${arg.idPrefix}[0-9a-z]{24}$`);
      const params = (op!.parameters ?? []).map((p) => resolve(p) as ParameterObject);
      for (const [name, value] of Object.entries(pick.query ?? {})) {
        const param = params.find((p) => p.in === 'query' && p.name === name);
        expect(param, `${pick.list} takes ?${name}`).toBeDefined();
        const allowed = (resolve(param!.schema) as S).enum;
        if (allowed) expect(allowed).toContain(value);
        // A filter sent is also checked on what comes back.
        expect(pick.where?.[name], `${key}: where.${name} repeats the filter`).toContain(value);
      }
      for (const [path, values] of Object.entries(pick.where ?? {})) {
        const field = at(item!, path);
        expect(field, `${pick.list} items have ${path}`).toBeDefined();
        expect(field!.enum, `${path} is an enum`).toBeDefined();
        for (const v of values) expect(field!.enum).toContain(v);
      }
      for (const path of pick.zero ?? []) {
        const field = at(item!, path);
        expect(field, `${pick.list} items have ${path}`).toBeDefined();
        expect(field!.type, `${path} is a decimal string`).toBe('string');
      }
      for (const col of pick.show) {
        expect(at(item!, col.path), `${pick.list} items have ${col.path}`).toBeDefined();
        if (col.currencyPath) expect(at(item!, col.currencyPath), `${pick.list} items have ${col.currencyPath}`).toBeDefined();
      }
      expect(at(item!, 'created_at'), 'entries show the creation time').toBeDefined();
      expect(pick.what).toMatch(/^[A-Za-z ]+$/);
    });
  }

  it('the contract document is the one pay publishes', () => {
    expect(openapi.openapi).toMatch(/^3\.1/);
  });
});
