// Help as a user reads it from the built binary: `pay help <command>` prints what
// `pay <command> --help` prints (examples and the output note included), on stdout, exit 0.
import { describe, expect, it } from 'vitest';
import { runPay } from '../helpers/run-pay.js';

describe('pay help <command>', () => {
  it.each(['transfers send', 'profiles use', 'customers', 'seed'])('pay help %s is the same as --help', async (command) => {
    const path = command.split(' ');
    const [viaHelp, viaFlag] = await Promise.all([runPay(['help', ...path]), runPay([...path, '--help'])]);
    expect(viaHelp.code).toBe(0);
    expect(viaFlag.code).toBe(0);
    expect(viaHelp.stdout).toContain('\nExamples:\n  $ pay ');
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stderr).toBe('');
  });

  it('an unknown topic is exit 2', async () => {
    const r = await runPay(['help', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown help topic or command "nope"/);
  });
});
