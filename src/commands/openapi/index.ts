// `pay openapi`: declaration only (start-up path); run.ts prints the contract.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const openapi: CommandDecl = {
  name: 'openapi',
  summary: 'Print the API contract (OpenAPI 3.1)',
  description: 'Print the OpenAPI 3.1 document of the API pay speaks: the contract the commands and the emulator follow.',
  examples: ['pay openapi > pay-openapi.json', 'pay openapi | jq ".paths | keys"'],
  prints: { json: 'the OpenAPI document' },
  run: () => import('./run.js').then((m) => m.run),
};
