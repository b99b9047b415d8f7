// The emulator's request log (GET /__emulator/requests, `pay emulator requests`) hides the values of
// secret-named body fields — passwords, PINs, card security codes, one-time codes, tokens, secrets —
// at any depth, in whole JSON, in a body cut at 64 KiB and in a form-encoded one, and in the query;
// other fields are shown as sent. Generated over names, values, nesting and body shapes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReceivedRequest } from '../../src/emulator/request-log.js';

const received = (text: string, truncated = false, query: Record<string, string> = {}): Record<string, unknown> => {
  const r = new ReceivedRequest('POST', '/v1/customers', query, { 'content-type': 'application/json' });
  r.bodyText = text;
  r.bodyTruncated = truncated;
  return r.toJSON();
};

/** Secret field names as APIs spell them. */
const secretName = fc
  .tuple(
    fc.constantFrom('', 'new_', 'old_', 'card_', 'user_', 'client_', 'access_'),
    fc.constantFrom(
      'password',
      'passwd',
      'pwd',
      'pin',
      'cvv',
      'cvv2',
      'cvc',
      'otp',
      'token',
      'secret',
      'api_key',
      'private_key',
      'credential',
    ),
    fc.constantFrom('', '_confirmation', '_hash', '2'),
    fc.boolean(),
  )
  .map(([a, b, c, upper]) => (upper ? `${a}${b}${c}`.toUpperCase() : `${a}${b}${c}`));
/** Values nobody could find by chance elsewhere in the entry. */
const secretValue = fc.stringMatching(/^[A-Za-z0-9!#%&()*+,./:;<=>?@^_{|}~-]{6,24}$/).map((s) => `Zq${s}`);

describe('secret-named body fields are hidden in the request log', () => {
  it('the tester\'s case: {"password":"hunter2"} shows "…", the other fields as sent', () => {
    const j = received(JSON.stringify({ email: 'a@example.com', password: 'hunter2', pin: 1234 }));
    expect(j.body).toEqual({ email: 'a@example.com', password: '…', pin: '…' });
  });

  it('at any depth in whole JSON; a field that is not secret (idempotency_key, account_number, pinned) kept (fast-check)', () => {
    fc.assert(
      fc.property(secretName, secretValue, fc.integer({ min: 0, max: 4 }), fc.boolean(), (name, value, depth, asArray) => {
        let inner: unknown = { [name]: value, idempotency_key: 'k-1', account_number: '12345678', pinned: 'yes' };
        for (let i = 0; i < depth; i++) inner = asArray ? [{ nested: inner }] : { nested: inner };
        const j = received(JSON.stringify({ data: inner }));
        const text = JSON.stringify(j);
        expect(text).not.toContain(value.slice(2));
        expect(text).toContain(`${JSON.stringify(name)}:"…"`);
        expect(text).toContain('"idempotency_key":"k-1"');
        expect(text).toContain('"account_number":"12345678"');
        expect(text).toContain('"pinned":"yes"');
      }),
      { numRuns: 300 },
    );
  });

  it('in a body cut at 64 KiB (not JSON any more), a form-encoded body and the query (fast-check)', () => {
    fc.assert(
      fc.property(secretName, secretValue, (name, value) => {
        const cut = received(`{"email":"a@example.com",${JSON.stringify(name)}: ${JSON.stringify(value)},"note":"${'x'.repeat(20)}`, true);
        expect(JSON.stringify(cut)).not.toContain(value.slice(2));
        expect(cut.body as string).toContain('"email":"a@example.com"');
        const form = received(`email=a%40example.com&${name}=${encodeURIComponent(value)}`);
        expect(JSON.stringify(form)).not.toContain(encodeURIComponent(value).slice(2));
        expect(form.body as string).toContain('email=a%40example.com');
        const query = received('{}', false, { [name]: value });
        expect(JSON.stringify(query)).not.toContain(value.slice(2));
      }),
      { numRuns: 300 },
    );
  });
});
