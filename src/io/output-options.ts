// The output options every printing command shares (--json, -o, --fields, --no-header), checked
// and resolved once per command by the dispatcher (src/cmdutil/dispatch.ts) into ctx.output.
// Light on purpose: resolving them loads no printer (chalk, cli-table3 load with output.ts).
import { UsageError } from '../lib/errors.js';
import { parseFieldList } from './fields.js';
import type { IOStreams } from './iostreams.js';

export const OUTPUT_FORMATS = ['table', 'tsv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface OutputFlags {
  json?: boolean;
  output?: string;
  fields?: string;
  header?: boolean;
}

export interface OutputSettings {
  format: OutputFormat;
  fields: string[] | undefined;
  header: boolean;
}

export function resolveOutput(flags: OutputFlags, io: IOStreams): OutputSettings {
  let format: OutputFormat;
  if (flags.json) {
    if (flags.output && flags.output !== 'json') throw new UsageError(`--json conflicts with --output ${flags.output}`);
    format = 'json';
  } else if (flags.output) {
    if (!(OUTPUT_FORMATS as readonly string[]).includes(flags.output)) {
      throw new UsageError(`invalid --output "${flags.output}" (choose from ${OUTPUT_FORMATS.join(', ')})`);
    }
    format = flags.output as OutputFormat;
  } else {
    format = io.stdoutIsTTY ? 'table' : 'tsv';
  }
  let fields: string[] | undefined;
  if (flags.fields !== undefined) {
    try {
      fields = parseFieldList(flags.fields);
    } catch (err) {
      throw new UsageError(`--fields: ${(err as Error).message}`);
    }
    if (fields.length === 0) throw new UsageError('--fields needs at least one field name');
  }
  return { format, fields, header: flags.header !== false };
}
