// pay openapi: the contract on stdout, as JSON (or YAML with --yaml); --jq filters the JSON.
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import { UsageError } from '../../lib/errors.js';

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const jq = ctx.output?.jq;
  if (ctx.opts.yaml === true && jq) throw new UsageError('--jq filters JSON: it cannot be used with --yaml (drop one)');
  const { openapi, openapiJson, openapiYaml } = await import('../../api/openapi.js');
  if (ctx.opts.yaml === true) return f.io.out(await openapiYaml());
  if (!jq) return f.io.out(`${openapiJson()}\n`);
  const { Printer } = await import('../../io/output.js');
  new Printer(f.io, ctx.output!, []).printValue(openapi);
}
