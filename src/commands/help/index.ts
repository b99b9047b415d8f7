// `pay help [topic | command…]`: declaration only (start-up path); run.ts prints the topic or help.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const help: CommandDecl = {
  name: 'help',
  args: [
    {
      name: '[topic...]',
      description: 'a topic (pay help lists them: environment, formatting, http, rules…) or a command (e.g. customers create)',
    },
  ],
  summary: 'Show help for a command, or a topic of the reference (pay help lists them)',
  description:
    'Show help for a command, or a topic of the reference, wrapped to the terminal: environment, exit-codes, config, formatting, ' +
    'http, money, support, rules, simulate, seed-files, local-emulator, webhook-testing, contract, reliability, choices, ' +
    'dependencies, design. The same topics are man pages (man pay-<topic>). Alone, it prints the root help and the topic list.',
  examples: ['pay help', 'pay help formatting', 'pay help exit-codes', 'pay help rules', 'pay help transfers send'],
  prints: {
    note: "the topic (through the pager when it is longer than the terminal) or the command's help on stdout, as --help shows it. An unknown topic is exit 2.",
  },
  run: () => import('./run.js').then((m) => m.run),
};
