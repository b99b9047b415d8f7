// fish completion in a real fish: `complete -C` asks fish what it would offer on TAB.
import { beforeAll, expect, it } from 'vitest';
import { describeWithTools, fishComplete, PROFILES, sandbox, type Sandbox } from './shells.js';

describeWithTools('fish completion (fish --no-config, complete -C)', ['fish'], () => {
  let sb: Sandbox;
  const wordsOf = (line: string) => fishComplete(sb, line).map((c) => c.word);
  beforeAll(() => {
    sb = sandbox();
  });

  it('completes a group from its prefix, with its summary', () => {
    expect(fishComplete(sb, 'pay cu')).toEqual([{ word: 'customers', description: 'Create and manage customer profiles' }]);
  });

  it('lists groups and tooling commands, no hidden command and no file names', () => {
    const all = wordsOf('pay ');
    for (const g of ['customers', 'kyc', 'accounts', 'transfers', 'cards', 'collections', 'webhooks', 'profiles', 'completion']) expect(all).toContain(g);
    expect(all.some((w) => w.startsWith('__'))).toBe(false);
    expect(all.every((w) => !w.includes('/'))).toBe(true);
  });

  it('lists the verbs of a group', () => {
    expect(wordsOf('pay customers ').sort()).toEqual(['create', 'get', 'list', 'overview', 'update']);
  });

  it('completes enum values after a flag, not subcommands', () => {
    expect(wordsOf('pay accounts create --type ').sort()).toEqual(['checking', 'savings']);
    expect(wordsOf('pay cards issue --type ').sort()).toEqual(['physical', 'virtual']);
    expect(wordsOf('pay collections create --method ').sort()).toEqual(['bank_transfer', 'card', 'mobile_money']);
    expect(wordsOf('pay customers list -o ').sort()).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv']);
    expect(wordsOf('pay customers list --output=nd')).toEqual(['--output=ndjson']);
  });

  it('completes --state from the --country on the line, with the subdivision names', () => {
    expect(fishComplete(sb, 'pay customers create --country US --state US-V')).toEqual([
      { word: 'US-VA', description: 'Virginia' },
      { word: 'US-VI', description: 'Virgin Islands, U.S.' },
      { word: 'US-VT', description: 'Vermont' },
    ]);
    expect(wordsOf('pay customers create --country GB --state GB-LN')).toEqual(['GB-LND']);
    expect(wordsOf('pay customers create --country ')).toContain('NG');
  });

  it('completes profile names for --profile, -p and pay profiles use', () => {
    expect(wordsOf('pay --profile ').sort()).toEqual(PROFILES);
    expect(wordsOf('pay customers list -p ').sort()).toEqual(PROFILES);
    expect(wordsOf('pay profiles use ').sort()).toEqual(PROFILES);
    expect(wordsOf('pay profiles use acme ')).toEqual([]);
  });

  it('offers global flags at any depth with descriptions, and skips flag values when finding the command', () => {
    const flags = fishComplete(sb, 'pay cards issue --');
    const names = flags.map((f) => f.word);
    for (const f of ['--type', '--customer', '--profile', '--live', '--tenant', '--output', '--help']) expect(names).toContain(f);
    expect(names).not.toContain('--version');
    expect(flags.find((f) => f.word === '--profile')?.description).toMatch(/stored profile/);
    expect(wordsOf('pay --timeout 5 cu')).toEqual(['customers']);
    expect(wordsOf('pay --timeout ')).toEqual([]);
  });

  it('offers nothing for an id', () => {
    expect(wordsOf('pay customers get ')).toEqual([]);
  });

  it('completes the shells of pay completion', () => {
    expect(wordsOf('pay completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
    expect(wordsOf('pay completion bash ')).toEqual([]);
  });
});
