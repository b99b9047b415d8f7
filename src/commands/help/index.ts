// `pay help [topic | command…]`: declaration only (start-up path); run.ts prints the topic or help.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const help: CommandDecl = {
  name: 'help',
  args: [{ name: '[topic...]', description: 'environment, exit-codes, rules, simulate, or a command (e.g. customers create)' }],
  summary: 'Show help for a command, or a topic: environment, exit-codes, rules, simulate',
  description:
    'Show help for a command, or one of the topics: environment (variables and flags), exit-codes, rules (what KYC state and ' +
    'features each command needs), simulate (the Sandbox simulation values that make transfers, collections and KYC fail on purpose).',
  examples: ['pay help environment', 'pay help exit-codes', 'pay help rules', 'pay help simulate', 'pay help transfers send'],
  prints: { note: "the topic or the command's help on stdout, as --help shows it. An unknown topic is exit 2." },
  run: () => import('./run.js').then((m) => m.run),
};
