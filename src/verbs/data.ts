// --data <json | @file | @->: a JSON object merged under the flags; a forbidden or over-long key
// or nesting too deep is a usage error naming the key path (src/lib/safe-json.ts).
import type { IOStreams } from '../io/iostreams.js';
import { UsageError } from '../lib/errors.js';
import { readUserFile } from '../lib/read-limited.js';
import { parseJson } from '../lib/safe-json.js';

const MAX_DATA_BYTES = 1024 * 1024;

/**
 * What `--data @file` / `@-` read, once per run (per IOStreams): a create that prompts reads it to
 * know what is missing, shows the summary, then builds the body it sends; a second read could find
 * the file changed (the summary no longer what is sent) or a pipe at its end. Each caller gets its
 * own copy. Inline JSON is not kept (a bulk run passes every row that way).
 */
const readOnce = new WeakMap<IOStreams, Map<string, Record<string, unknown>>>();

export async function readData(spec: string, io: IOStreams): Promise<Record<string, unknown>> {
  if (!spec.startsWith('@')) return readDataNow(spec, io);
  let seen = readOnce.get(io);
  if (!seen) readOnce.set(io, (seen = new Map<string, Record<string, unknown>>()));
  let value = seen.get(spec);
  if (!value) seen.set(spec, (value = await readDataNow(spec, io)));
  return structuredClone(value);
}

async function readDataNow(spec: string, io: IOStreams): Promise<Record<string, unknown>> {
  let text: string;
  let from = '--data';
  if (spec === '@-') {
    from = '--data @- (stdin)';
    text = await readStream(io.stdin);
  } else if (spec.startsWith('@')) {
    const file = spec.slice(1);
    from = `--data @${file}`;
    // Bounded: a huge file is refused by its size, /dev/zero or a pipe after MAX_DATA_BYTES.
    const read = await readUserFile(file, MAX_DATA_BYTES, {
      tooLarge: `${from}: larger than 1 MiB`,
      unreadable: (p) => `${from}: cannot read the file (${p})`,
    });
    text = read.toString('utf8');
  } else {
    text = spec;
  }
  checkDataSize(text, from);
  // Parsed and checked (keys, depth) by the one reader of untrusted JSON: src/lib/safe-json.ts.
  const value = parseJson(text, from);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${from} must be a JSON object ({...})`);
  }
  return value as Record<string, unknown>;
}

/** --data text over 1 MiB is refused (bulk rows are --data too: src/verbs/bulk.ts). */
export function checkDataSize(text: string, from = '--data'): void {
  if (Buffer.byteLength(text) > MAX_DATA_BYTES) throw new UsageError(`${from}: larger than 1 MiB`);
}

export async function readStream(stream: NodeJS.ReadableStream, max = MAX_DATA_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > max) throw new UsageError(`standard input is larger than ${Math.round(max / 1024)} KiB`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
