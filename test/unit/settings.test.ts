// Precedence (flag > env > profile > default), base URL rules, key checks and masking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSecretKey, maskKey, redact } from '../../src/config/keys.js';
import { normalizeBaseUrl, resolveSettings } from '../../src/config/settings.js';
import { ConfigStore } from '../../src/config/store.js';
import { maskText } from '../../src/emulator/request-log.js';
import { tempDir } from '../helpers/run-pay.js';

async function storeWith(): Promise<ConfigStore> {
  const store = new ConfigStore(tempDir('pay-unit-'));
  await store.saveProfile('default', {
    tenant_id: 'from_profile',
    sandbox: { secret_key: 'sk_test_profileprofileprofile12', base_url: 'https://profile.example.com/v1/' },
    live: { secret_key: 'sk_live_profileprofileprofile12' },
  });
  return store;
}

describe('resolveSettings', () => {
  it('takes flag, then env, then profile, then default, and says where each came from', async () => {
    const store = await storeWith();
    const p = resolveSettings({}, {}, store);
    expect([p.tenant.value, p.tenant.source, p.apiKey.source, p.baseUrl.value]).toEqual([
      'from_profile',
      'profile',
      'profile',
      'https://profile.example.com/v1/',
    ]);
    const e = resolveSettings({}, { PAY_TENANT_ID: 'from_env', PAY_BASE_URL: 'https://env.example.com/v1' }, store);
    expect([e.tenant.value, e.tenant.source, e.baseUrl.value]).toEqual(['from_env', 'env', 'https://env.example.com/v1/']);
    const f = resolveSettings({ tenant: 'from_flag', timeout: '2.5' }, { PAY_TENANT_ID: 'from_env', PAY_TIMEOUT: '9' }, store);
    expect([f.tenant.value, f.tenant.source, f.timeoutMs.value, f.timeoutMs.source]).toEqual(['from_flag', 'flag', 2500, 'flag']);
    const d = resolveSettings({}, {}, new ConfigStore(tempDir('pay-unit-')));
    expect([d.baseUrl.source, d.maxRetries.value, d.timeoutMs.value, d.mode.value]).toEqual(['default', 3, 30_000, 'sandbox']);
  });

  it('--live or PAY_MODE=live selects the live pair; a bad PAY_MODE is a usage error', async () => {
    const store = await storeWith();
    expect(resolveSettings({ live: true }, {}, store).apiKey.value).toBe('sk_live_profileprofileprofile12');
    expect(resolveSettings({}, { PAY_MODE: 'LIVE' }, store).mode.value).toBe('live');
    expect(() => resolveSettings({}, { PAY_MODE: 'prod' }, store)).toThrow(/invalid PAY_MODE "prod"/);
  });

  it('rejects bad numbers and tenant ids', () => {
    expect(() => resolveSettings({ timeout: 'soon' }, {}, undefined)).toThrow(/invalid --timeout "soon"/);
    expect(() => resolveSettings({ maxRetries: '1.5' }, {}, undefined)).toThrow(/whole number/);
    expect(() => resolveSettings({ tenant: 'a b' }, {}, undefined)).toThrow(/invalid tenant id/);
  });
});

describe('normalizeBaseUrl', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com/v1/'],
    ['http://localhost:8787/v1/', 'http://localhost:8787/v1/'],
    ['http://127.5.6.7/v1/', 'http://127.5.6.7/v1/'],
    ['http://[::1]:9/v1/', 'http://[::1]:9/v1/'],
  ])('accepts %s', (raw, want) => expect(normalizeBaseUrl(raw, 'test')).toBe(want));
  it.each([
    ['http://api.example.com/v1/', /refusing plain http/],
    ['http://10.0.0.1/v1/', /refusing plain http/],
    ['http://127.0.0.1.evil.com/v1/', /refusing plain http/],
    ['ftp://x/v1/', /must use https/],
    ['https://api.example.com/v2/', /must end with \/v1\//],
    ['https://u:p@api.example.com/v1/', /credentials/],
    ['not a url', /invalid base URL/],
  ])('refuses %s', (raw, message) => expect(() => normalizeBaseUrl(raw, 'test')).toThrow(message));
});

describe('keys', () => {
  it('masks to the type prefix and at most the last 4 characters', () => {
    expect(maskKey('sk_test_abcdefghijklmnopqrstuvwxyz12')).toBe('sk_test_…yz12');
    expect(maskKey('whsec_c2VjcmV0c2VjcmV0c2VjcmV0')).toBe('whsec_…cmV0');
    expect(maskKey('short')).toBe('…');
    expect(redact('key=sk_test_abcdefghijklmnopqrstuvwxyz12!', ['sk_test_abcdefghijklmnopqrstuvwxyz12'])).toBe('key=sk_test_…yz12!');
  });
  it('redact masks the secrets named and every token shaped like a key or webhook secret, and nothing else (as the emulator log does)', () => {
    const alnum = fc.string({
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')),
      minLength: 12,
      maxLength: 40,
    });
    const secret = fc.oneof(
      fc.tuple(fc.constantFrom('sk', 'rk', 'pk'), fc.constantFrom('test', 'live'), alnum).map(([t, m, r]) => `${t}_${m}_${r}`),
      alnum.map((r) => `whsec_${r}==`),
    );
    // Separators, and word characters a key may be glued to (before it, after it, another key).
    const filler = fc.string({ unit: fc.constantFrom(...' ,:"{}=x_-\n'.split('')), maxLength: 6 });
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, secret), { minLength: 1, maxLength: 4 }), filler, (parts, tail) => {
        const text = parts.map(([f, k]) => `${f}${k}`).join('') + tail;
        const out = redact(text, []);
        for (const [, k] of parts) expect(out).not.toContain(k);
        expect(maskText(text)).toBe(out);
        expect(redact(out, [])).toBe(out);
      }),
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }).filter((t) => !/_(test|live)_|whsec_/.test(t)),
        (t) => {
          expect(redact(t, [])).toBe(t);
        },
      ),
    );
  });

  it('refuses public keys and keys of the other mode', () => {
    expect(() => checkSecretKey('pk_test_abcdefghijklmnop', 'sandbox', 'x')).toThrow(/public key/);
    expect(() => checkSecretKey('sk_live_abcdefghijklmnop', 'sandbox', 'x')).toThrow(/is a live key/);
    expect(() => checkSecretKey('sk_test_abc def', 'sandbox', 'x')).toThrow(/malformed/);
    expect(() => checkSecretKey('sk_test_abcdefghijklmnop', 'sandbox', 'x')).not.toThrow();
  });
});
