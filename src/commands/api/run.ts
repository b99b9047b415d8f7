// pay api <METHOD> <path>: a raw request with the profile's credentials (like gh api). The path
// must stay under the base URL (exit 2 before anything is sent); the answer must be JSON (or a 204
// with no body). It prints through the shared Printer: JSON by default, on a terminal or in a pipe
// (-o ndjson: one line, or with --paginate one line per item; --jq: filtered); --paginate prints a
// list's items as one array (every page), or a single object as it is.
import type { CommandContext } from '../../cmdutil/decl.js';
import type { ApiClient, Query, RequestInit } from '../../api/client.js';
import { resolveUnder } from '../../api/url.js';
import { escapeMultiline, escapeText } from '../../io/escape.js';
import { Printer } from '../../io/output.js';
import { ApiError, UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { readData } from '../../verbs/data.js';
import { checkIdempotencyKey, setPath } from '../../verbs/values.js';
import { confirmLiveRun, describeBody, quoteLines } from '../../verbs/steps.js';
import { needsConfirmation } from '../../shared/confirm.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const opts = ctx.opts as {
    data?: string;
    field: string[];
    idempotencyKey?: string;
    include?: boolean;
    paginate?: boolean;
    dryRun?: boolean;
    yes?: boolean;
  };
  const [rawMethod, path] = ctx.args as [string, string];
  const method = rawMethod.toUpperCase() as RequestInit['method'];
  if (!(METHODS as readonly string[]).includes(method)) throw new UsageError(`unknown method "${rawMethod}" (use ${METHODS.join(', ')})`);
  // The client's one URL builder, here before --data is read: a path that leaves the base URL is exit 2.
  const base = new URL(f.settings().baseUrl.value);
  resolveUnder(base, path);
  const fields = parseFields(opts.field);
  const hasBody = method !== 'GET' && method !== 'DELETE';
  if (!hasBody && opts.data !== undefined) throw new UsageError(`--data cannot be sent with ${method}; use -F for query parameters`);
  if (opts.paginate && method !== 'GET') throw new UsageError('--paginate works with GET only');
  if (opts.dryRun && method === 'GET')
    throw new UsageError('--dry-run shows requests that change something (POST, PATCH, PUT, DELETE); a GET changes nothing');
  if (opts.idempotencyKey !== undefined) checkIdempotencyKey(opts.idempotencyKey);

  let body: Record<string, unknown> | undefined;
  let query: Query | undefined;
  if (hasBody) {
    body = opts.data !== undefined ? await readData(opts.data, f.io) : {};
    for (const [k, v] of fields) setPath(body, k, v, '-F');
  } else {
    query = Object.fromEntries(fields);
  }
  const client = await f.client();
  // The question names the URL as sent: the path and its query (the path's own and -F's on a GET or DELETE).
  await confirmRequest(f, method, base, resolveUnder(base, path, query), body, opts.yes === true, client);
  // JSON unless -o ndjson: pay api prints the API's JSON, never a table or TSV of it (it knows
  // no columns: a TSV would be one empty line per item). With no -o, the default is json, on a
  // terminal or not.
  const output = ctx.output!.format === 'ndjson' ? ctx.output! : { ...ctx.output!, format: 'json' as const };
  const printer = new Printer(f.io, output, []);
  let res;
  try {
    res = await client.request({
      method,
      path,
      ...(body !== undefined ? { body } : {}),
      ...(query ? { query } : {}),
      ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}),
      // Any JSON, or nothing (a 204); not a redirect, not HTML.
      expect: 'any',
    });
  } catch (err) {
    // A field error names what sets the field here: -F or --data (pay api has no --first-name).
    if (err instanceof ApiError)
      for (const fe of err.fieldErrors) fe.flag ??= hasBody ? `-F ${fe.field}=…, or in --data` : `-F ${fe.field}=…`;
    throw err;
  }
  if (opts.include) {
    f.io.err(`HTTP ${res.status}\n`);
    for (const [k, v] of Object.entries(res.headers)) f.io.err(`${escapeText(`${k}: ${v}`)}\n`);
    f.io.err('\n');
  }
  if (res.body === undefined) return;
  // A text (non-JSON) body is passed on exactly into a pipe or file; on a terminal it is shown
  // escaped (its line breaks and tabs kept) so that it cannot drive the terminal.
  if (typeof res.body === 'string') {
    if (ctx.output?.jq) throw new UsageError('--jq: the answer is not JSON');
    f.io.out(`${f.io.stdoutIsTTY ? escapeMultiline(res.body) : res.body}\n`);
    return;
  }
  if (opts.paginate && isListPage(res.body)) {
    await printer.printList(client.pages<unknown>(path, query ?? {}, { all: true, first: res, checkFilters: true }), 'items');
    return;
  }
  // Not a list (or no --paginate): the answer as it is.
  printer.printValue(res.body);
}

function isListPage(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Array.isArray((body as { data?: unknown }).data);
}

function parseFields(raw: string[] = []): Array<[string, string]> {
  return raw.map((pair) => {
    const i = pair.indexOf('=');
    if (i <= 0) throw new UsageError(`-F "${pair}" must be key=value`);
    const key = pair.slice(0, i);
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(key)) throw new UsageError(`-F: invalid key "${key}"`);
    return [key, pair.slice(i + 1)];
  });
}

/**
 * Live mode: the one decision (src/shared/confirm.ts) for the operation this request is. The
 * operation is the contract's whose path template the sent path matches exactly (a parameter: one
 * plain segment); a writing request to a path that matches none, or that also matches one the table
 * names, is asked about too. The question names the method, the path and query as sent, what the body moves
 * and the body itself: the very body sent next.
 */
async function confirmRequest(
  f: Factory,
  method: string,
  base: URL,
  url: URL,
  body: Record<string, unknown> | undefined,
  yes: boolean,
  client: ApiClient,
): Promise<void> {
  const mode = f.settings().mode.value;
  if (mode !== 'live' || method === 'GET' || yes || f.dryRun) return;
  const rel = url.pathname.slice(base.pathname.replace(/\/?$/, '/').length);
  const ops = await operationsOf(method, rel);
  const reasons =
    ops.length === 0
      ? [needsConfirmation({ method, operationId: undefined }, mode)]
      : ops.map((id) => needsConfirmation({ method, operationId: id }, mode));
  const why = reasons.find((r) => r !== undefined);
  if (!why) return;
  const moves = describeBody(body);
  const lines = [
    `${why}${ops.length ? ` (${ops.join(', ')})` : ': no operation of the contract has this path'}`,
    ...(body !== undefined ? [`body: ${JSON.stringify(body)}`] : []),
    ...(ops.includes('createFxTrade') ? await quoteLines(f, client, body, yes) : []),
  ];
  await confirmLiveRun(f, `"pay api ${method} ${url.pathname}${url.search}"${moves ? ` ${moves}` : ''}`, false, lines);
}

/** The contract's operations (operationIds) of this method whose path template matches `rel` exactly. */
async function operationsOf(method: string, rel: string): Promise<string[]> {
  const { openapi } = await import('../../api/openapi.js');
  const segments = rel.split('/');
  const out: string[] = [];
  for (const [template, item] of Object.entries(openapi.paths ?? {})) {
    const op = (item as Record<string, { operationId?: string } | undefined>)[method.toLowerCase()];
    if (!op?.operationId) continue;
    const parts = template.replace(/^\//, '').split('/');
    if (parts.length !== segments.length) continue;
    if (parts.every((t, i) => (/^\{[^}]+\}$/.test(t) ? /^[A-Za-z0-9_-]+$/.test(segments[i]!) : t === segments[i])))
      out.push(op.operationId);
  }
  return out;
}
