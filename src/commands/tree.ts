// The whole command tree: for tests, the completion generator and anything that walks every
// command. The entry (src/cli.ts) builds a lighter one from src/commands/group-index.ts. Without an
// entry, commands run with a Factory over the process's streams (as src/cli.ts builds it).
import type { Command } from 'commander';
import { allGroups } from './groups.js';
import type { Entry } from '../cmdutil/decl.js';
import { createFactory } from '../cmdutil/factory.js';
import { createProgram } from './root.js';

export function buildProgram(entry: Entry = { factory: (flags) => createFactory({ flags, groups: async () => allGroups }) }): Command {
  return createProgram(allGroups, entry);
}
