// The whole command tree: for tests, the completion generator and anything that walks every
// command. The entry (src/cli.ts) builds a lighter one from src/commands/group-index.ts.
import type { Command } from 'commander';
import { allGroups } from './commands/groups.js';
import { createProgram } from './program-core.js';

export function buildProgram(): Command {
  return createProgram(allGroups);
}
