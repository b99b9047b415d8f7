// The neutral model and the script writers, on the real tree and on a small synthetic one.
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { bashScript, buildModel, fishScript, generateCompletions, zshScript } from '../../src/completion/generate.js';
import { commandAt } from '../../src/completion/model.js';
import { buildProgram } from '../../src/commands/tree.js';

describe('completion model of the pay tree', () => {
  const model = buildModel(buildProgram());

  it('has every group and tooling command, no hidden one', () => {
    const root = commandAt(model, '')!;
    const names = root.subcommands.map((s) => s.name);
    for (const n of ['customers', 'kyc', 'kyc-legacy', 'features', 'accounts', 'external-accounts', 'transfers', 'cards', 'collections', 'payment-links', 'wallets', 'fx', 'transactions', 'webhooks']) expect(names).toContain(n);
    for (const n of ['login', 'logout', 'profiles', 'api', 'openapi', 'completion', 'doctor', 'help']) expect(names).toContain(n);
    expect(names.filter((n) => n.startsWith('_'))).toEqual([]);
  });

  it('gives every command a summary and every flag a description', () => {
    expect(model.warnings).toEqual([]);
  });

  it('makes the program options global, without --version and --help', () => {
    const names = model.globalFlags.flatMap((f) => f.names);
    expect(names).toEqual(expect.arrayContaining(['-p', '--profile', '--live', '--api-key', '--tenant', '--base-url', '--no-input', '--timeout', '--max-retries', '--debug', '--no-color']));
    expect(names).not.toContain('--version');
    expect(names).not.toContain('--help');
    const profile = model.globalFlags.find((f) => f.names.includes('--profile'))!;
    expect(profile).toMatchObject({ takesValue: true, dynamic: 'profiles' });
  });

  it('knows the enum values of flags', () => {
    const choices = (path: string, flag: string) => commandAt(model, path)?.flags.find((f) => f.names.includes(flag))?.choices;
    expect(choices('cards issue', '--type')).toEqual(['virtual', 'physical']);
    expect(choices('collections create', '--method')).toEqual(['card', 'bank_transfer', 'mobile_money']);
    expect(choices('accounts create', '--type')).toEqual(['checking', 'savings']);
    expect(choices('customers list', '-o')).toEqual(['table', 'tsv', 'csv', 'json', 'ndjson']);
    // open enums (free text allowed) are suggested too
    expect(choices('customers create', '--type')).toContain('individual');
  });

  it('knows the shells of pay completion', () => {
    expect(commandAt(model, 'completion')?.argumentChoices).toEqual(['bash', 'zsh', 'fish']);
  });

  it('generates the three files', () => {
    expect(Object.keys(generateCompletions().files).sort()).toEqual(['_pay', 'pay.bash', 'pay.fish']);
  });
});

describe('script writers', () => {
  function tiny(): Command {
    const p = new Command('pay').option('-p, --profile <name>', 'profile').option('--live', 'live');
    const g = p.command('things').summary('Things');
    g.command('make').summary("Make a thing (it's new)").addOption(new Option('--kind <k>', 'kind').choices(['a', 'b']));
    p.command('secret', { hidden: true }).summary('Hidden');
    p.addCommand(new Command('__complete').summary('internal'), { hidden: true });
    return p;
  }

  it('leaves hidden commands out of every script', () => {
    const model = buildModel(tiny());
    const [bash, zsh, fish] = [bashScript(model), zshScript(model), fishScript(model)];
    for (const text of [bash, zsh, fish]) {
      expect(text).toContain('things');
      expect(text).not.toContain('secret');
    }
    // __complete appears only as the call for profile names, never as a word offered
    expect(bash).not.toContain("'|__complete'");
    expect(zsh).not.toContain("'__complete:");
    expect(fish).not.toContain('-a __complete');
    expect(commandAt(model, '')!.subcommands.map((s) => s.name)).toEqual(['things']);
  });

  it('starts every script with a generated-file comment and install instructions', () => {
    const model = buildModel(tiny());
    const [bash, zsh, fish] = [bashScript(model), zshScript(model), fishScript(model)];
    expect(bash.split('\n')[0]).toMatch(/^# bash completion for pay/);
    expect(zsh.split('\n')[0]).toBe('#compdef pay');
    expect(zsh.split('\n')[1]).toMatch(/^# zsh completion for pay/);
    expect(fish.split('\n')[0]).toMatch(/^# fish completion for pay/);
    for (const t of [bash, zsh, fish]) {
      expect(t).toMatch(/Generated .*npm run generate/);
      expect(t).toMatch(/Install/);
    }
  });

  it('quotes descriptions for zsh and fish', () => {
    const model = buildModel(tiny());
    expect(zshScript(model)).toContain(`'make:Make a thing (it'\\''s new)'`);
    expect(fishScript(model)).toContain(`-d 'Make a thing (it\\'s new)'`);
  });

  it('refuses words the scripts could not embed safely', () => {
    const p = new Command('pay');
    p.command('x').addOption(new Option('--v <v>', 'v').choices(['ok', '$(rm -rf ~)']));
    expect(() => buildModel(p)).toThrow(/cannot embed safely/);
  });
});
