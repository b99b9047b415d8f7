// The idempotency fingerprint is stored in every journal: its text must never change. canonicalJson
// (made faster: plain strings quoted without JSON.stringify) must write exactly what its first
// version, kept here as the reference, writes, for any JSON body: strings with quotes, backslashes,
// control characters, lone and paired surrogates; keys starting with a digit, `__proto__`,
// unsorted and nested keys, -0.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNDELIVERED_JSON } from '../../src/emulator/events.js';
import { canonicalJson, fingerprint } from '../../src/emulator/idempotency.js';
import { quotedScope } from '../../src/emulator/store.js';

/** canonicalJson as first written (every stored fingerprint was made by it): the reference. */
function reference(v: unknown): string {
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += ',';
      s += reference(v[i]) ?? '';
    }
    return `${s}]`;
  }
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    let s = '{';
    let first = true;
    for (const k of keys) {
      const x = o[k];
      if (x === undefined) continue;
      if (!first) s += ',';
      first = false;
      s += `${JSON.stringify(k)}:${reference(x)}`;
    }
    return `${s}}`;
  }
  return JSON.stringify(v);
}

/** Strings of any UTF-16 code units (lone surrogates too), or of the characters JSON escapes. */
const text = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\ud800', '\udc00', 'é', 'a') }),
);

/** Keys a hostile body may use: digits first (array indexes), __proto__, look-alikes, non-ASCII. */
const key = fc.oneof(
  fc.string({ maxLength: 8 }),
  text,
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
    text,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 8 }).map((entries) => {
      // Built as JSON text and parsed, as a body is (duplicate keys, __proto__ as an own key).
      const text = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
      return JSON.parse(text) as unknown;
    }),
  ),
})).value;

describe('canonical JSON of a body', () => {
  it('writes exactly what its first version writes, for any parsed JSON', () => {
    fc.assert(
      fc.property(json, (v) => {
        const parsed = JSON.parse(JSON.stringify(v) ?? 'null') as unknown;
        expect(canonicalJson(parsed)).toBe(reference(parsed));
      }),
      { numRuns: 3000 },
    );
  });

  it('any string alone, and values JSON.parse never makes (an undefined array element, a top-level undefined)', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(canonicalJson(s)).toBe(reference(s));
      }),
      { numRuns: 3000 },
    );
    expect(canonicalJson([1, undefined, 2])).toBe(reference([1, undefined, 2]));
    expect(canonicalJson({ a: undefined, b: 1 })).toBe(reference({ a: undefined, b: 1 }));
    expect(canonicalJson(undefined)).toBe(reference(undefined));
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
