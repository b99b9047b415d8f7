// Help pages: what `pay [<command>…] --help` prints where stdout is not a terminal (commander's
// help at its width for anything else, 80), and what `pay --version` prints, for every command of
// the whole tree and each alias. The build writes them to dist/help/ and bin/pay.js prints one
// without loading the CLI (src/scripts/build.mjs, bin/pay.js): help is read, not formatted.
// test/unit/help-pages.test.ts holds each page to what the entry prints through commander.
import type { Command } from 'commander';

/** What a page file is named after: a command's words joined by '.' (words are [a-z0-9-]), the root `_root`. */
export const ROOT_PAGE = '_root';
export const VERSION_PAGE = '_version';
const WORD = /^[a-z][a-z0-9-]*$/;

export function pageName(path: readonly string[]): string {
  return path.length === 0 ? ROOT_PAGE : path.join('.');
}

/** The help `cmd.outputHelp()` writes to a stdout that is not a terminal. */
function helpOf(cmd: Command): string {
  let text = '';
  const saved = cmd.configureOutput();
  cmd.configureOutput({
    ...saved,
    writeOut: (t) => void (text += t),
    // commander's own answers for a stream that is not a terminal (its typings say number).
    getOutHelpWidth: () => undefined as unknown as number,
    getOutHasColors: () => false,
  });
  try {
    cmd.outputHelp();
  } finally {
    cmd.configureOutput(saved);
  }
  return text;
}

/** Page name → text, for the whole tree (src/commands/tree.ts) and `version`. */
export function helpPages(program: Command, version: string): Map<string, string> {
  const pages = new Map<string, string>([[VERSION_PAGE, `${version}\n`]]);
  const walk = (cmd: Command, path: string[]) => {
    const text = helpOf(cmd);
    for (const name of path.length === 0 ? [''] : [cmd.name(), ...cmd.aliases()]) {
      if (path.length > 0 && !WORD.test(name)) continue;
      const at = path.length === 0 ? [] : [...path.slice(0, -1), name];
      pages.set(pageName(at), text);
    }
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return pages;
}
