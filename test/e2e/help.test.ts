// Help as a user reads it from the built binary: `pay help <command>` prints what
// `pay <command> --help` prints (examples and the output note included), on stdout, exit 0.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, PAY_BIN, runPay, tempDir } from '../helpers/run-pay.js';

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

  it('help and the version printed from the pages the build wrote are what the CLI prints (a pipe, a file, /dev/null)', async () => {
    const dir = tempDir('pay-help-');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) expect(await runPay([flag])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    // The same help, from a page (--help to a pipe), through commander (pay help), and into a file.
    const [page, viaHelp] = await Promise.all([
      runPay(['emulator', 'clock', 'advance', '-h']),
      runPay(['help', 'emulator', 'clock', 'advance']),
    ]);
    expect(page).toEqual({ code: 0, stdout: viaHelp.stdout, stderr: '' });
    const file = join(dir, 'help.txt');
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${PAY_BIN}" customers --help > "${file}"`], {
      env: cleanEnv(),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe((await runPay(['help', 'customers'])).stdout);
    const devNull = spawnSync('sh', ['-c', `"${process.execPath}" "${PAY_BIN}" customers --help > /dev/null`], {
      env: cleanEnv(),
      encoding: 'utf8',
    });
    expect([devNull.status, devNull.stderr]).toEqual([0, '']);
  });

  it('words that name no page (or are not words) go through the CLI: what it prints, its exit code', async () => {
    for (const args of [
      ['customers', 'lst', '--help'],
      ['..', '--help'],
      ['customers', 'get', 'cus_1', '--help'],
      ['--help', '--debug'],
    ]) {
      const [r, viaCli] = await Promise.all([runPay(args), runPay(['--debug', ...args])]);
      expect(r.code, args.join(' ')).toBe(viaCli.code);
      expect(r.stdout, args.join(' ')).toBe(viaCli.stdout);
    }
  });

  it('an unknown topic is exit 2', async () => {
    const r = await runPay(['help', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown help topic or command "nope"/);
  });
});
