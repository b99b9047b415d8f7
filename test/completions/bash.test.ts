// bash completion in a real bash: _pay called as bash calls it on TAB (COMP_WORDS/COMP_CWORD),
// and once interactively in a pseudo-terminal. No bash-completion package is loaded.
import { afterEach, beforeAll, expect, it } from 'vitest';
import { bashComplete, describeWithTools, PROFILES, sandbox, TmuxShell, words, BASH_SCRIPT, type Sandbox } from './shells.js';

const complete = (sb: Sandbox, line: string) => bashComplete(sb, words(line));

describeWithTools('bash completion (bash --norc, no bash-completion)', ['bash'], () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = sandbox();
  });

  it('completes a group from its prefix', () => {
    expect(complete(sb, 'pay cu')).toEqual(['customers']);
  });

  it('lists all groups and tooling commands, and no hidden command', () => {
    const all = complete(sb, 'pay ');
    for (const g of ['customers', 'kyc', 'accounts', 'transfers', 'cards', 'collections', 'webhooks', 'profiles', 'completion', 'doctor']) expect(all).toContain(g);
    expect(all.some((w) => w.startsWith('__'))).toBe(false);
    expect(complete(sb, 'pay __')).toEqual([]);
  });

  it('lists the verbs of a group', () => {
    expect(complete(sb, 'pay customers ')).toEqual(['create', 'list', 'get', 'update', 'overview']);
  });

  it('completes enum values after a flag that takes one, not subcommands', () => {
    expect(complete(sb, 'pay accounts create --type ')).toEqual(['checking', 'savings']);
    expect(complete(sb, 'pay cards issue --type ')).toEqual(['virtual', 'physical']);
    expect(complete(sb, 'pay cards issue --type v')).toEqual(['virtual']);
    expect(complete(sb, 'pay collections create --method ')).toEqual(['card', 'bank_transfer', 'mobile_money']);
  });

  it('completes output formats for -o and --output, also as --output=value', () => {
    expect(complete(sb, 'pay customers list -o ')).toEqual(['table', 'tsv', 'csv', 'json', 'ndjson']);
    expect(complete(sb, 'pay accounts get acc_1 --output nd')).toEqual(['ndjson']);
    // COMP_WORDBREAKS splits --output=js into --output, =, js
    expect(bashComplete(sb, ['pay', 'customers', 'list', '--output', '=', 'js'])).toEqual(['json']);
    expect(bashComplete(sb, ['pay', 'customers', 'list', '--output', '='])).toEqual(['table', 'tsv', 'csv', 'json', 'ndjson']);
  });

  it('offers nothing after a value flag without choices, and skips its value when finding the command', () => {
    expect(complete(sb, 'pay --timeout ')).toEqual([]);
    expect(complete(sb, 'pay --timeout 5 cu')).toEqual(['customers']);
    expect(complete(sb, 'pay --tenant biz_1 customers li')).toEqual(['list']);
  });

  it('completes ISO 3166-1 codes for --country and the subdivisions of that country for --state (pay __complete states)', () => {
    expect(complete(sb, 'pay customers create --country G')).toEqual(expect.arrayContaining(['GB', 'GH', 'GR']));
    expect(complete(sb, 'pay customers create --country G')).not.toContain('US');
    expect(complete(sb, 'pay customers create --country US --state V')).toEqual(['US-VA', 'US-VI', 'US-VT']);
    expect(complete(sb, 'pay customers create --country US --state US-C')).toEqual(['US-CA', 'US-CO', 'US-CT']);
    expect(complete(sb, 'pay customers create --country=ng --state LA')).toEqual(['NG-LA']);
    expect(complete(sb, 'pay cards issue --country GB --state LND')).toEqual(['GB-LND']);
    // No country on the line: the country prefixes of those with subdivisions.
    expect(complete(sb, 'pay customers update --state US')).toEqual(['US-']);
    expect(complete(sb, 'pay customers create --country AQ --state ')).toEqual([]);
  });

  it('completes stored profile names for --profile and -p (through pay __complete profiles)', () => {
    expect(complete(sb, 'pay --profile ')).toEqual(PROFILES);
    expect(complete(sb, 'pay customers list -p a')).toEqual(['acme']);
    expect(complete(sb, 'pay profiles use ')).toEqual(PROFILES);
    expect(complete(sb, 'pay profiles use acme ')).toEqual([]);
  });

  it('offers global flags at any depth, and the flags of the command', () => {
    const flags = complete(sb, 'pay cards issue --');
    for (const f of ['--type', '--customer', '--profile', '--live', '--tenant', '--output', '--help']) expect(flags).toContain(f);
    expect(flags).not.toContain('--version');
    expect(complete(sb, 'pay customers --li')).toEqual(['--live']);
    expect(complete(sb, 'pay -')).toEqual(expect.arrayContaining(['-v', '--version', '-h', '--help', '-p', '--profile', '--live']));
  });

  it('offers nothing for an id, and flags where a command takes no argument', () => {
    expect(complete(sb, 'pay customers get ')).toEqual([]);
    expect(complete(sb, 'pay customers list ')).toContain('--limit');
    expect(complete(sb, 'pay customers list -- ')).toEqual([]);
  });

  it('completes the shells of pay completion', () => {
    expect(complete(sb, 'pay completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(complete(sb, 'pay completion bash ')).toEqual([]);
  });

  it('does not start Node for static words', () => {
    // A pay that fails loudly if it is ever run: static completion must not call it.
    const poisoned: Sandbox = { ...sb, env: { ...sb.env, PATH: '/nonexistent:/usr/bin:/bin' } };
    expect(bashComplete(poisoned, words('pay cards issue --type '))).toEqual(['virtual', 'physical']);
    expect(bashComplete(poisoned, words('pay --profile '))).toEqual([]);
  });
});

describeWithTools('bash completion, interactive (tmux)', ['bash', 'tmux'], () => {
  let shell: TmuxShell | undefined;
  afterEach(() => shell?.kill());

  it('pay cu<TAB> becomes "pay customers "', async () => {
    const sb = sandbox();
    shell = new TmuxShell(sb, ['bash', '--norc', '--noprofile']);
    await shell.run(`PS1='$ '; source '${BASH_SCRIPT}'`);
    shell.type('pay cu');
    shell.keys('Tab');
    await shell.waitForLine('$ pay customers ');
  });

  it('pay customers list --output=<TAB><TAB> lists the formats after the =', async () => {
    const sb = sandbox();
    shell = new TmuxShell(sb, ['bash', '--norc', '--noprofile']);
    await shell.run(`PS1='$ '; source '${BASH_SCRIPT}'`);
    shell.type('pay customers list --output=nd');
    shell.keys('Tab');
    await shell.waitForLine('$ pay customers list --output=ndjson ');
  });
});
