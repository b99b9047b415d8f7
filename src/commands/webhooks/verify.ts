// pay webhooks verify: checks one delivery's Standard Webhooks signature, offline.
// Prints `valid` (exit 0), or `invalid: <reason>` on stderr (exit 1).
import type { Readable } from 'node:stream';
import { ExitCode, PayError, UsageError } from '../../lib/errors.js';
import { readUserFile } from '../../lib/read-limited.js';
import type { Factory } from '../../cmdutil/factory.js';
import { deliveryHeader, verify } from '../../shared/signature.js';
import type { CommandContext } from '../../cmdutil/decl.js';
import { webhookSecret } from './secret.js';
import { printable } from '../../verbs/values.js';

const MAX_PAYLOAD = 10 * 1024 * 1024;

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const o = ctx.opts;
  // Declared with output (index.ts): resolved by the dispatcher.
  const output = ctx.output!;
  const json = output.format === 'json' || output.format === 'ndjson';
  const headers = deliveryHeaders(o);
  if (typeof o.payload !== 'string' || o.payload === '')
    throw new UsageError('missing required flag --payload (a file, or - for standard input)');
  const secret = webhookSecret(f, o.secret);
  const body = await readPayload(o.payload, f.io.stdin);
  const result = verify(secret, headers, body);
  if (result.ok) {
    if (!json) return f.io.out('valid\n');
    const { Printer } = await import('../../io/output.js');
    new Printer(f.io, output, []).printLine({ valid: true, webhook_id: result.id, timestamp: result.timestamp });
    return;
  }
  // Text mode prints `invalid: <reason>`; --json the error object (with --jq, text: jq's output is text).
  throw new PayError(`invalid: ${result.reason}`, ExitCode.ERROR, 'invalid_signature', { text: [`invalid: ${result.reason}`] });
}

/**
 * --header "name: value" lines, then --id, --timestamp and --signature over them. The headers go
 * by their Standard Webhooks names (webhook-id, …) or their Svix names (svix-id, …), as the
 * libraries read them (deliveryHeader, src/shared/signature.ts).
 */
export function deliveryHeaders(o: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of Array.isArray(o.header) ? (o.header as string[]) : []) {
    const i = line.indexOf(':');
    if (i <= 0) throw new UsageError(`--header "${printable(line)}" must look like "webhook-id: evt_…"`);
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  if (typeof o.id === 'string') headers['webhook-id'] = o.id;
  if (typeof o.timestamp === 'string') headers['webhook-timestamp'] = o.timestamp;
  if (typeof o.signature === 'string') headers['webhook-signature'] = o.signature;
  const missing = (['id', 'timestamp', 'signature'] as const).filter((h) => !deliveryHeader(headers, h)).map((h) => `webhook-${h}`);
  if (missing.length) {
    throw new UsageError(`missing the ${missing.join(', ')} header${missing.length > 1 ? 's' : ''}`, {
      hint: 'pass --header "webhook-id: …" (or "svix-id: …") for each, or --id, --timestamp and --signature',
    });
  }
  return headers;
}

async function readPayload(spec: string, stdin: Readable): Promise<Buffer> {
  if (spec === '-' || spec === '@-') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stdin) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += b.length;
      if (size > MAX_PAYLOAD) throw new UsageError('--payload: standard input is larger than 10 MiB');
      chunks.push(b);
    }
    return Buffer.concat(chunks);
  }
  const file = spec.startsWith('@') ? spec.slice(1) : spec;
  // Bounded like standard input: /dev/zero or a huge file must not fill the memory.
  return readUserFile(file, MAX_PAYLOAD, {
    tooLarge: `--payload ${file}: larger than 10 MiB`,
    unreadable: (p) => `--payload ${file}: cannot read the file (${p})`,
  });
}
