// The global flags, declared once in global-flags.json (data: the start-up bundle holds it, and
// the build writes the names of those that take a value to dist/value-flags.json for bin/load.js):
// - `program`: the root command's flags, valid at any depth (root.ts registers them, in order);
// - `verb`: the flags the contract lists among the global ones that belong to the verbs that
//   print, confirm or POST (registry.ts and the command declarations register them there), and
//   that src/argv.ts moves after the command when they are written before it.
// test/unit/global-flags.test.ts holds commander's tree, src/argv.ts and bin/load.js to it.
import GLOBAL from './global-flags.json' with { type: 'json' };

export interface FlagDecl {
  short?: string;
  long: string;
  /** `<name>` (required) or `[name]` (optional): the flag takes a value. */
  value?: string;
  description?: string;
}

export const PROGRAM_FLAGS: readonly (FlagDecl & { description: string })[] = GLOBAL.program;
export const VERB_FLAGS: { readonly [K in keyof typeof GLOBAL.verb]: FlagDecl } = GLOBAL.verb;

/** Commander's syntax of a flag: `-p, --profile <name>`. */
export function flagsOf(f: FlagDecl): string {
  return `${f.short ? `${f.short}, ` : ''}${f.long}${f.value ? ` ${f.value}` : ''}`;
}

/** The words that name a flag: `-p` and `--profile`. */
export function namesOf(f: FlagDecl): string[] {
  return f.short ? [f.short, f.long] : [f.long];
}
