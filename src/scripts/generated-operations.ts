// The generated files that come from the contract alone (src/commands/<group>/operations.ts), apart
// from the command tree's (src/scripts/generated.ts), which reads them: src/scripts/generate.mjs
// writes these first, so the tree is built from current facts.
import * as enums from '../shared/enums.js';
import { operationFiles } from './operation-facts.js';

export function generatedFiles(): { files: Record<string, string>; warnings: string[] } {
  return { files: operationFiles(enums), warnings: [] };
}
