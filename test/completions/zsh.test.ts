// zsh completion in a real interactive zsh (zsh -f, compinit, the _pay file on $fpath), typed
// into a pseudo-terminal with tmux; the command line and the listing are read off the screen.
import { afterEach, expect, it } from 'vitest';
import { COMPLETIONS, describeWithTools, sandbox, TmuxShell } from './shells.js';

let shell: TmuxShell | undefined;

async function zsh(): Promise<TmuxShell> {
  shell = new TmuxShell(sandbox(), ['zsh', '-f']);
  await shell.run(`PS1='%% '; fpath=('${COMPLETIONS}' $fpath); autoload -Uz compinit; compinit -u -d "$HOME/.zcompdump"`);
  return shell;
}

/** Types `text`, presses Tab, and returns the screen once `ready` holds for it. */
async function tab(sh: TmuxShell, text: string, ready: (screen: string) => boolean, what: string): Promise<string> {
  sh.type(text);
  sh.keys('Tab');
  return sh.waitFor(() => {
    const s = sh.screen();
    return ready(s) && s;
  }, what);
}

describeWithTools('zsh completion (interactive zsh -f with compinit, tmux)', ['zsh', 'tmux'], () => {
  afterEach(() => shell?.kill());

  it('pay cu<TAB> becomes "pay customers "', async () => {
    const sh = await zsh();
    sh.type('pay cu');
    sh.keys('Tab');
    await sh.waitForLine('% pay customers ');
  });

  it('pay <TAB> lists the groups with their summaries, and no hidden command', async () => {
    const sh = await zsh();
    const screen = await tab(sh, 'pay ', (s) => s.includes('webhooks'), 'the group list');
    expect(screen).toMatch(/customers\s+-- Create and manage customer profiles/);
    expect(screen).toMatch(/cards\s+--/);
    expect(screen).not.toContain('__complete');
  });

  it('pay cards issue --type <TAB> lists virtual and physical', async () => {
    const sh = await zsh();
    const screen = await tab(sh, 'pay cards issue --type ', (s) => s.includes('virtual') && s.includes('physical'), 'the card types');
    expect(screen).not.toMatch(/\bcreate\b/);
  });

  it('pay collections create --method <TAB> lists the methods', async () => {
    const sh = await zsh();
    await tab(sh, 'pay collections create --method ', (s) => ['card', 'bank_transfer', 'mobile_money'].every((m) => s.includes(m)), 'the collection methods');
  });

  it('pay customers create --country US --state V<TAB> lists the US subdivisions starting with V, named', async () => {
    const sh = await zsh();
    // The first Tab puts in what they share (US-V), the second lists them.
    await tab(sh, 'pay customers create --country US --state V', (s) => s.includes('--state US-V'), 'the common prefix');
    sh.keys('Tab');
    const screen = await sh.waitFor(() => {
      const s = sh.screen();
      return s.includes('US-VT') && s.includes('Vermont') && s;
    }, 'the states');
    expect(screen).toContain('US-VA  Virginia');
    expect(screen).not.toContain('US-CA');
  });

  it('pay --profile <TAB> lists the stored profiles', async () => {
    const sh = await zsh();
    await tab(sh, 'pay --profile ', (s) => /\bacme\b/.test(s) && /\bdefault\b/.test(s), 'the profile names');
  });

  it('pay customers list -o <TAB> lists the output formats; --output=nd<TAB> completes after the =', async () => {
    const sh = await zsh();
    await tab(sh, 'pay customers list -o ', (s) => ['table', 'tsv', 'csv', 'json', 'ndjson'].every((m) => s.includes(m)), 'the output formats');
    sh.keys('C-u');
    sh.type('pay customers list --output=nd');
    sh.keys('Tab');
    await sh.waitForLine('% pay customers list --output=ndjson ');
  });

  it('pay customers list -<TAB> lists its flags and the global flags with descriptions', async () => {
    const sh = await zsh();
    const screen = await tab(sh, 'pay customers list -', (s) => s.includes('--limit') && s.includes('--profile'), 'the flags');
    expect(screen).toMatch(/--profile\s+-p\s+-- stored profile to use/);
    expect(screen).toMatch(/--output\s+-o\s+-- output format/);
    expect(screen).not.toContain('--version');
  });

  it('pay profiles use <TAB> lists the profiles; pay completion <TAB> the shells', async () => {
    const sh = await zsh();
    await tab(sh, 'pay profiles use ', (s) => /\bacme\b/.test(s) && /\bdefault\b/.test(s), 'the profile names');
    sh.keys('C-u');
    await tab(sh, 'pay completion ', (s) => /bash\s+fish\s+zsh/.test(s), 'the shells');
  });

  it('also works sourced after compinit: source <(pay completion zsh)', async () => {
    shell = new TmuxShell(sandbox(), ['zsh', '-f']);
    await shell.run(`PS1='%% '; autoload -Uz compinit; compinit -u -d "$HOME/.zcompdump"; source <(pay completion zsh)`);
    shell.type('pay cu');
    shell.keys('Tab');
    await shell.waitForLine('% pay customers ');
  });
});
