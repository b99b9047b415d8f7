// Generates the three completion scripts from the commander tree. Used by
// src/scripts/generate.mjs (writes completions/) and test/completions/drift.test.ts.
import type { Command } from 'commander';
import { buildProgram } from '../commands/tree.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { buildModel, type CompletionModel } from './model.js';
import { zshScript } from './zsh.js';
import { SCRIPT_FILES } from '../commands/completion/run.js';

export interface GeneratedCompletions {
  model: CompletionModel;
  /** File name in completions/ → script text. */
  files: Record<string, string>;
}

export function generateCompletions(program: Command = buildProgram()): GeneratedCompletions {
  const model = buildModel(program);
  return {
    model,
    files: {
      [SCRIPT_FILES.bash]: bashScript(model),
      [SCRIPT_FILES.zsh]: zshScript(model),
      [SCRIPT_FILES.fish]: fishScript(model),
    },
  };
}

export { buildModel, bashScript, zshScript, fishScript };
