// pay openapi: the contract, as JSON on stdout.
import type { Factory } from '../../cmdutil/factory.js';

export async function run(f: Factory): Promise<void> {
  const { openapiJson } = await import('../../api/openapi.js');
  f.io.out(`${openapiJson()}\n`);
}
