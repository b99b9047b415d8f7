// `pay completion <shell>`: declaration only (start-up path); run.ts prints the script.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const completion: CommandDecl = {
  name: 'completion',
  args: [{ name: '<shell>', description: 'bash, zsh or fish' }],
  summary: 'Print the shell completion script',
  description:
    'Print the completion script for bash, zsh or fish. Static words (groups, verbs, flags, enum values) complete without starting Node; profile names call pay __complete.',
  examples: [
    'pay completion bash > ~/.local/share/bash-completion/completions/pay',
    'pay completion zsh > "${fpath[1]}/_pay"',
    'pay completion fish > ~/.config/fish/completions/pay.fish',
  ],
  prints: { note: 'the completion script on stdout. An unknown shell is exit 2.' },
  run: () => import('./run.js').then((m) => m.run),
};
