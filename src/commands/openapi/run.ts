// pay openapi: the contract on stdout, as JSON (or YAML with --yaml).
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const { openapiJson, openapiYaml } = await import('../../api/openapi.js');
  f.io.out(ctx.opts.yaml === true ? await openapiYaml() : `${openapiJson()}\n`);
}
