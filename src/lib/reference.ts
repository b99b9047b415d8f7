// The environment and exit-code tables: printed by `pay help environment` / `pay help exit-codes`
// and checked against the README by a test. Data only.

export const ENVIRONMENT: ReadonlyArray<readonly [variable: string, flag: string, meaning: string]> = [
  ['PAY_PROFILE', '-p, --profile', 'stored profile to use'],
  ['PAY_MODE', '--live', '`live` or `sandbox` (default)'],
  ['PAY_API_KEY', '--api-key', 'secret key override (the flag shows in `ps`; prefer the variable)'],
  ['PAY_TENANT_ID', '--tenant', 'business id, sent as `x-tenant-id`'],
  ['PAY_BASE_URL', '--base-url', 'service address ending in `/v1/`'],
  ['PAY_NO_INPUT=1, or CI set', '--no-input', 'never prompt'],
  ['PAY_TIMEOUT', '--timeout', 'seconds per attempt, default 30'],
  ['PAY_MAX_RETRIES', '--max-retries', 'default 3'],
  ['PAY_MAX_RESPONSE_BYTES', '--max-response-bytes', 'refuse an answer larger than this (bytes, or with KiB, MiB), default 32MiB'],
  ['PAY_DEBUG=1', '--debug', 'log requests and responses to stderr, keys redacted'],
  ['NO_COLOR', '--no-color', 'no colours'],
  ['PAY_PAGER, then PAGER', '--no-pager', 'pager for output longer than the terminal, default `less -FRX`; empty: none'],
  ['PAY_QUIET=1', '--quiet', 'no notes on stderr about the data (more exist, columns hidden)'],
  ['PAY_NAMES=0', '--no-names', 'no names beside ids in tables and views (and no requests to look them up)'],
  ['PAY_TIME', '--time', 'times in tables and views: `local` (the zone of `TZ`, default), `utc`, `relative`'],
  ['COLUMNS', '', 'the width tables fit on a terminal (a positive whole number; anything else is ignored); `--wide` shows every column'],
  ['PAY_WEBHOOK_SECRET', '', 'webhook secret for `pay webhooks verify/listen`'],
  ['PAY_CONFIG_DIR', '', 'where profiles are stored'],
  ['PAY_BULK_GRACE_MS', '', 'with `--from-file`: milliseconds the rows in flight get to finish after SIGINT/SIGTERM/SIGHUP, default 5000'],
];

export const EXIT_CODES: ReadonlyArray<readonly [code: number, meaning: string]> = [
  [0, 'success (an empty list too)'],
  [1, 'any other error, including an API 4xx not listed here'],
  [2, 'usage: unknown flag, bad value, missing field when prompting is impossible, refused URL'],
  [3, 'authentication: no key configured, or 401/403'],
  [4, 'not found (404)'],
  [5, 'conflict: 409, or an idempotency key reused with a different body'],
  [6, 'network failure, timeout, or 5xx after retries'],
  [7, 'rate limited (429) after retries'],
  [130, 'cancelled (Ctrl-C or Ctrl-D at a prompt, an aborted prompt, SIGINT/SIGTERM/SIGHUP during a bulk run or a --wait)'],
];

function plain(s: string): string {
  return s.replace(/`/g, '');
}

export function environmentText(): string {
  const w = Math.max(...ENVIRONMENT.map(([v]) => v.length));
  const f = Math.max(...ENVIRONMENT.map(([, fl]) => fl.length));
  return `${ENVIRONMENT.map(([v, fl, m]) => `  ${v.padEnd(w)}  ${fl.padEnd(f)}  ${plain(m)}`).join('\n')}\n\nPrecedence for every setting: flag, then environment, then the profile, then the default.\n`;
}

export function exitCodesText(): string {
  return `${EXIT_CODES.map(([c, m]) => `  ${String(c).padStart(3)}  ${m}`).join('\n')}\n`;
}
