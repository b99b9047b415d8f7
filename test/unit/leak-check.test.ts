// The leak check every e2e run goes through must itself catch a leak.
import { describe, expect, it } from 'vitest';
import { leakedSecrets, registerSecret } from '../helpers/run-pay.js';

describe('leakedSecrets', () => {
  it('finds registered secrets and the env key in output, except for emulator start', () => {
    registerSecret('whsec_registeredSecret123');
    const env = { PAY_API_KEY: 'sk_test_envkeyenvkeyenvkey12' };
    expect(leakedSecrets(['customers', 'list'], env, 'ok sk_test_…ey12')).toEqual([]);
    expect(leakedSecrets(['customers', 'list'], env, 'oops sk_test_envkeyenvkeyenvkey12')).toEqual(['sk_test_envkeyenvkeyenvkey12']);
    expect(leakedSecrets(['webhooks', 'verify'], {}, 'x whsec_registeredSecret123')).toEqual(['whsec_registeredSecret123']);
    expect(leakedSecrets(['emulator', 'start'], env, 'sk_test_envkeyenvkeyenvkey12')).toEqual([]);
  });
});
