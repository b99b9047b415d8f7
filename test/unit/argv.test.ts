import { describe, expect, it } from 'vitest';
import { hoistVerbFlags } from '../../src/argv.js';

describe('verb flags written before the command path', () => {
  it.each([
    [
      ['--json', 'customers', 'list'],
      ['customers', 'list', '--json'],
    ],
    [
      ['-o', 'ndjson', 'customers', 'list', '--limit', '2'],
      ['customers', 'list', '--limit', '2', '-o', 'ndjson'],
    ],
    [
      ['-ojson', '--fields=id,email', 'customers', 'list'],
      ['customers', 'list', '-ojson', '--fields=id,email'],
    ],
    [
      ['--output=tsv', '--fields', 'id', 'accounts', 'list'],
      ['accounts', 'list', '--output=tsv', '--fields', 'id'],
    ],
    [
      ['-p', 'ci', '--yes', '--live', 'accounts', 'close', 'acc_1'],
      ['-p', 'ci', '--live', 'accounts', 'close', 'acc_1', '--yes'],
    ],
    [
      ['--idempotency-key', 'k1', 'api', 'POST', '/customers', '--', '-x'],
      ['api', 'POST', '/customers', '--idempotency-key', 'k1', '--', '-x'],
    ],
  ])('%j → %j', (argv, want) => {
    expect(hoistVerbFlags(argv)).toEqual(want);
  });

  it.each([
    [['customers', 'list', '--json']],
    [['--profile', '--json', 'customers', 'list']],
    [['--tenant', 'biz', 'customers', 'list', '-o', 'json']],
    [['--', '--json']],
    [[]],
  ])('leaves %j alone', (argv) => {
    expect(hoistVerbFlags(argv)).toEqual(argv);
  });
});
