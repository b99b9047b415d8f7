// An object in a request body that has required fields (an address, a shipping address, a spending
// limit) is sent whole: a verb that can send part of it (a flag for one of its fields) refuses a
// part without the required fields before sending, as the service would after. Checked for every
// verb against its operation's request schema in the contract, so a new object or a new verb
// cannot forget it; and run: each field's flag alone is exit 2 with nothing sent.
import { describe, expect, it } from 'vitest';
import { openapi } from '../../src/api/openapi.js';
import type { Constraint, VerbSpec } from '../../src/cmdutil/spec.js';
import { allGroups } from '../../src/commands/groups.js';
import { pay } from '../unit/commands/harness.js';
import { allOperations } from './contract-helpers.js';

type S = { $ref?: string; type?: unknown; properties?: Record<string, S>; required?: string[]; allOf?: S[]; anyOf?: S[]; oneOf?: S[] };

function resolve(s: S | undefined): S | undefined {
  let n = s;
  for (let i = 0; n?.$ref && i < 8; i++) n = openapi.components.schemas[n.$ref.split('/').pop()!];
  return n;
}

/** Objects with required fields under a request schema: their dotted path, required and all fields. */
function wholeObjects(schema: S | undefined, prefix = ''): Array<{ path: string; required: string[]; fields: string[] }> {
  const s = resolve(schema);
  if (!s) return [];
  const parts = [s, ...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])].map(resolve);
  const out: Array<{ path: string; required: string[]; fields: string[] }> = [];
  for (const part of parts) {
    for (const [name, sub] of Object.entries(part?.properties ?? {})) {
      const r = resolve(sub);
      const obj = r?.properties ? r : [...(r?.anyOf ?? []), ...(r?.oneOf ?? [])].map(resolve).find((x) => x?.properties);
      if (!obj?.properties) continue;
      const path = `${prefix}${name}`;
      if (obj.required?.length)
        out.push({
          path,
          required: obj.required.map((f) => `${path}.${f}`),
          fields: Object.keys(obj.properties).map((f) => `${path}.${f}`),
        });
      out.push(...wholeObjects(obj, `${path}.`));
    }
  }
  return out.filter((o, i) => out.findIndex((x) => x.path === o.path) === i);
}

function requestSchema(operationId: string): S | undefined {
  const op = allOperations().find((o) => o.operation.operationId === operationId)?.operation;
  return op?.requestBody?.content['application/json']?.schema;
}

/** Whether the verb refuses a part of the object without its required fields. */
function guarded(verb: VerbSpec, obj: { path: string; required: string[]; fields: string[] }): boolean {
  const required = new Set(verb.flags?.filter((f) => f.required).map((f) => f.field) ?? []);
  if (obj.required.every((f) => required.has(f))) return true;
  return (verb.constraints ?? []).some(
    (c: Constraint) =>
      (c.kind === 'whole' && c.object === obj.path && obj.required.every((f) => c.require.includes(f))) ||
      // `together` is enough for an object whose every field is required.
      (c.kind === 'together' && obj.fields.every((f) => obj.required.includes(f)) && obj.required.every((f) => c.fields.includes(f))),
  );
}

const cases = allGroups.flatMap((g) =>
  g.verbs
    .filter((v) => v.body && v.operationId)
    .flatMap((verb) => wholeObjects(requestSchema(verb.operationId)).map((obj) => ({ key: `${g.name} ${verb.name}`, g, verb, obj }))),
);

describe('objects sent whole', () => {
  it('the contract has such objects (the check is not vacuous)', () => {
    expect(cases.map((c) => `${c.key}: ${c.obj.path}`)).toEqual(
      expect.arrayContaining([
        'customers update: address',
        'cards issue: shipping_address',
        'cards issue: spending_limit',
        'collections create: mobile_money',
      ]),
    );
  });

  it.each(cases.map((c) => [`${c.key}: ${c.obj.path}`, c] as const))(
    '%s: a part without its required fields is refused',
    async (_n, { g, verb, obj }) => {
      expect(guarded(verb, obj), `${obj.path} needs a 'whole' constraint requiring ${obj.required.join(', ')}`).toBe(true);
      // Run it: each field's flag alone (with what the verb needs otherwise) sends nothing.
      const required = new Set(verb.flags?.filter((f) => f.required).map((f) => f.field) ?? []);
      if (obj.required.every((f) => required.has(f))) return;
      for (const field of obj.fields) {
        const flag = verb.flags?.find((f) => f.field === field);
        if (!flag) continue;
        const others = obj.required.filter((f) => f !== field);
        if (others.length === 0) continue;
        const value =
          flag.kind === 'state'
            ? 'US-TX'
            : flag.kind === 'country'
              ? 'US'
              : flag.kind === 'phone'
                ? '+14155550123'
                : (flag.choices?.[0] ?? 'x');
        const argv = [
          g.name,
          verb.name,
          ...(verb.arg ? ['cus_0123456789abcdefghijklmn'] : []),
          /--[a-z0-9-]+/.exec(flag.flags)![0],
          value,
          '--dry-run',
        ];
        const r = await pay(argv, { env: { PAY_TENANT_ID: 'biz_1' } });
        expect(r.requests, argv.join(' ')).toEqual([]);
        expect(r.code, `${argv.join(' ')}\n${r.stderr}`).toBe(2);
      }
    },
  );
});
