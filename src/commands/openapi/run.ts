// pay openapi: the contract, as JSON on stdout.
import type { Command } from 'commander';
import { createIOStreams } from '../../io/iostreams.js';

export async function run(_command: Command): Promise<void> {
  const { openapiJson } = await import('../../api/openapi.js');
  createIOStreams().out(`${openapiJson()}\n`);
}
