// The idempotency fingerprint is stored in every journal: its text must never change. The fast
// canonical JSON (sorted copy + JSON.stringify) must write exactly what canonicalJson writes, for
// any JSON body, including the cases it hands back to canonicalJson (keys starting with a digit,
// `__proto__`, unsorted and nested keys, non-ASCII keys, -0).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNDELIVERED_JSON } from '../../src/emulator/events.js';
import { canonicalJson, canonicalJsonFast, fingerprint } from '../../src/emulator/idempotency.js';
import { quotedScope } from '../../src/emulator/store.js';

/** Keys a hostile body may use: digits first (array indexes), __proto__, look-alikes, non-ASCII. */
const key = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('__proto__', 'constructor', 'toJSON', '0', '9', '10', '01', '1a', '-1', '4294967295', 'é', 'Z', 'a', '', ' '),
  fc.nat({ max: 5000 }).map(String),
);
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string(),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 8 }).map((entries) => {
      // Built as JSON text and parsed, as a body is (duplicate keys, __proto__ as an own key).
      const text = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
      return JSON.parse(text) as unknown;
    }),
  ),
})).value;

describe('canonical JSON of a body', () => {
  it('the fast path writes exactly what canonicalJson writes, for any parsed JSON', () => {
    fc.assert(
      fc.property(json, (v) => {
        const parsed = JSON.parse(JSON.stringify(v) ?? 'null') as unknown;
        expect(canonicalJsonFast(parsed)).toBe(canonicalJson(parsed));
      }),
      { numRuns: 3000 },
    );
  });

  it('values JSON.parse never makes still match (an undefined array element, a top-level undefined)', () => {
    expect(canonicalJsonFast([1, undefined, 2])).toBe(canonicalJson([1, undefined, 2]));
    expect(canonicalJsonFast({ a: undefined, b: 1 })).toBe(canonicalJson({ a: undefined, b: 1 }));
    expect(canonicalJsonFast(undefined)).toBe(canonicalJson(undefined));
  });

  it('fingerprints are the ones journals already hold', () => {
    const body = JSON.parse(
      '{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","phone":"+14155550100","type":"individual","gender":"female","date_of_birth":"1990-12-10","address":{"address_line1":"1 Main St","city":"San Francisco","country":"US","postal_code":"94105","state":"US-CA"}}',
    ) as unknown;
    expect(fingerprint('POST', '/v1/customers', body)).toBe('O_YO7QzYYV7Dy5dLu1DYVaYW2W8HPiH4');
    const odd = JSON.parse('{"b":[1,{"z":null,"10":true,"9":false,"__proto__":{"y":"\\u00e9"}}],"a":-0,"é":"x"}') as unknown;
    expect(fingerprint('POST', '/v1/transfers', odd)).toBe('jZbR5iKABpewcy32Qu_rG_bwtQHqMdWD');
  });
});

describe('journal text written without JSON.stringify', () => {
  it("a new event's delivery is the JSON of the object emit() makes", () => {
    const delivery = { status: 'pending', attempts: 0, last_response_code: null, last_attempt_at: null, next_attempt_at: null };
    expect(UNDELIVERED_JSON).toBe(JSON.stringify(delivery));
  });

  it('a quoted scope is JSON.stringify of the scope, also past the memo bound', () => {
    const scopes = fc.sample(fc.string(), 2500).map((t) => `sandbox|${t}`);
    for (const s of [...scopes, ...scopes]) expect(quotedScope(s)).toBe(JSON.stringify(s));
  });
});
