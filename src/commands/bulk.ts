// `--from-file` on create verbs: every row of an NDJSON, CSV or JSON-array file (or stdin) is one
// create, validated like --data (the command line's flags apply to every row and win over its
// fields), sent with a per-row deterministic Idempotency-Key, N at a time.
import { basename } from 'node:path';
import { checkInput, countRows, formatFor, openInput, readRows } from '../bulk/input.js';
import { readResume, runBulk } from '../bulk/run.js';
import { progressBar } from '../io/progress.js';
import { PayError, UsageError } from '../lib/errors.js';
import type { Factory } from '../lib/factory.js';
import { checkInt } from '../lib/validate.js';
import { checkConstraints } from './constraints.js';
import { clientNeeds, confirmLive } from './execute.js';
import type { VerbContext } from './spec.js';
import { checkDataSize } from './data.js';
import { buildBody, fillBody, requireFields } from './values.js';

export async function runBulkVerb(f: Factory, ctx: VerbContext): Promise<void> {
  const { verb, group, opts } = ctx;
  const file = String(opts.fromFile);
  const concurrency = Number(opts.concurrency ?? 8);
  const problem = checkInt(1, 256)(String(opts.concurrency ?? 8));
  if (problem) throw new UsageError(`--concurrency ${problem}`);
  if (opts.data !== undefined) throw new UsageError('--from-file and --data cannot be used together: put shared fields in flags');
  if (opts.idempotencyKey !== undefined) throw new UsageError('--from-file derives one Idempotency-Key per row; --idempotency-key cannot be used with it');
  if (opts.batchId !== undefined && !/^[\x21-\x7e]{1,100}$/.test(String(opts.batchId))) throw new UsageError('--batch-id must be 1-100 printable characters');
  const s = f.settings();
  const done = typeof opts.resume === 'string' ? await readResume(opts.resume) : undefined;
  const format = file === '-' ? undefined : formatFor(file);
  const name = file === '-' ? 'standard input' : file;
  // A file with a forbidden key, a bad header or a row too long is refused before any row is sent.
  await checkInput(file, format, name);
  const client = await f.client(clientNeeds(ctx));
  if (verb.confirmLive) await confirmLive(f, ctx, { from_file: file });
  const identity = [s.tenant.value ?? '', s.mode.value, verb.operationId, opts.batchId ?? (file === '-' ? 'stdin' : basename(file))].join('|');
  const flagOpts = { ...opts, fromFile: undefined };
  // Per row, the flags with the row as --data. A prototype instead of a spread of every option
  // per row, and a JSON row's own text instead of re-serialising it (both showed in profiles).
  const rowOpts = (data: string): Record<string, unknown> => Object.assign(Object.create(flagOpts) as Record<string, unknown>, { data });

  const progress = progressBar(f.io, `${group.name} ${verb.name}`);
  if (f.io.stderrIsTTY) void countRows(file, format).then((n) => n !== undefined && progress.total(n));
  const summary = await runBulk({
    client,
    path: verb.path,
    rows: readRows(openInput(file, f.io.stdin), format, name),
    toBody: (value, row) => {
      const finish = (body: Record<string, unknown>) => {
        requireFields(verb, body);
        checkConstraints(verb, body, 'body');
        return body;
      };
      // The row went in as --data; its errors name the row's fields, not --data.
      const rename = (err: unknown): never => {
        if (err instanceof UsageError) throw new UsageError(err.message.replace(/^--data:\s*/, ''));
        throw err;
      };
      if (row.json) {
        // A JSON row is its own --data text, already parsed into `value` (used only here): what
        // buildBody would do without reading and parsing the text again, and without awaiting.
        try {
          checkDataSize(row.text);
          return finish(fillBody(verb, rowOpts(row.text), value));
        } catch (err) {
          return rename(err);
        }
      }
      return buildBody(f, verb, rowOpts(JSON.stringify(value))).then(finish, rename);
    },
    identity,
    concurrency,
    failFast: Boolean(opts.failFast),
    ...(done ? { done } : {}),
    out: f.io.stdout,
    progress,
  });
  const rate = summary.rows / Math.max(0.001, summary.ms / 1000);
  f.io.err(
    `${group.name} ${verb.name}: ${summary.rows} rows: ${summary.created} created, ${summary.replayed} replayed, ${summary.skipped} skipped, ${summary.failed} failed in ${(summary.ms / 1000).toFixed(1)} s (${rate.toFixed(0)}/s)\n`,
  );
  if (summary.failed > 0) {
    throw new PayError(`${summary.failed} of ${summary.rows} rows failed`, 1, 'bulk_failed', {
      hint: 'the per-row results on stdout say why; run the same command again (created rows are replayed, not duplicated) or pass --resume <results file>',
    });
  }
}
