// `pay openapi`: declaration only (start-up path); run.ts prints the contract.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const openapi: CommandDecl = {
  name: 'openapi',
  summary: 'Print the API contract (OpenAPI 3.1)',
  description:
    'Print the OpenAPI 3.1 document of the API pay speaks: the contract the commands and the emulator follow. ' +
    'JSON by default, YAML with --yaml; either works as printed with Prism, Spectral, Redocly, swagger-parser and openapi-typescript.',
  options: [{ flags: '--yaml', description: 'print YAML instead of JSON (quoted so YAML 1.1 and 1.2 readers agree)' }],
  // JSON is what it prints anyway: --json is accepted, and --jq filters the document.
  output: { projection: false, formats: ['json'] },
  examples: ['pay openapi > pay-openapi.json', 'pay openapi --yaml > pay-openapi.yaml', 'pay openapi --jq ".paths | keys"'],
  prints: { json: 'the OpenAPI document' },
  run: () => import('./run.js').then((m) => m.run),
};
