// Every generated file, from the command tree: the three completion scripts and the README's
// command reference. src/scripts/generate.mjs bundles this and writes (or checks) them.
import { generateCompletions } from '../completion/generate.js';
import { commandReference, spliceReference } from '../docs/reference.js';
import { buildProgram } from '../cmdutil/tree.js';

export function generatedFiles(readme: string): { files: Record<string, string>; warnings: string[] } {
  const program = buildProgram();
  const completions = generateCompletions(program);
  const files: Record<string, string> = {};
  for (const [name, text] of Object.entries(completions.files)) files[`completions/${name}`] = text;
  files['README.md'] = spliceReference(readme, commandReference(buildProgram()));
  return { files, warnings: completions.model.warnings };
}
