// The help pages the build writes to dist/help/ (src/cmdutil/help-pages.ts), from the whole tree:
// src/scripts/build.mjs bundles this and calls pages() with the package's version.
import { helpPages } from '../cmdutil/help-pages.js';
import { buildProgram } from '../commands/tree.js';

export function pages(version: string): Map<string, string> {
  return helpPages(buildProgram(), version);
}
