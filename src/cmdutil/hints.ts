// The hint of a failed request, written for the command that ran (contract section 6). The API
// client's errors carry what happened (status, the problem's type and members, the idempotency
// key, replayed, a redirect, the cap); what to do about it names flags and commands, so it is said
// here, in the words of the command: a retry with --idempotency-key only where the command takes
// that flag, the business rules' next steps (src/shared/rules.ts refusalHint), the base URL to check.
// The dispatcher calls it on every error a command ends with (dispatch.ts).
import { AnswerTooLargeError, BadAnswerError } from '../api/errors.js';
import { ApiError, NetworkError, PayError } from '../lib/errors.js';
import { refusalHint } from '../shared/rules.js';

type ClientError = ApiError | NetworkError | BadAnswerError | AnswerTooLargeError;

function isClientError(e: unknown): e is ClientError {
  return e instanceof ApiError || e instanceof NetworkError || e instanceof BadAnswerError || e instanceof AnswerTooLargeError;
}

/** What to do about a failed request, for a command that takes `flags` (its own and the global ones). */
export function requestHint(e: ClientError, flags: ReadonlySet<string>): string | undefined {
  const key = e.idempotencyKey;
  const again = key && flags.has('--idempotency-key') ? key : undefined;
  if (e instanceof ApiError) {
    if (e.status === 401) return e.hint === undefined ? 'check the key with pay profiles show, or log in again with pay login' : undefined;
    if (e.status === 403) return undefined;
    // A replayed refusal: the key only gets the stored answer again.
    if (e.replayed && key)
      return (
        again && 'the same idempotency key only replays this answer: to try again, send it with a new one (or without --idempotency-key)'
      );
    if ((e.status >= 500 || e.apiCode === 'idempotency_request_in_progress') && key)
      return again && `retry safely with --idempotency-key ${again}`;
    // A refusal of the business rules (or a 409 it leads to): what to run (the customers, KYC states and features the answer names, checked).
    return e.status === 422 || e.status === 409 ? refusalHint(e.problem) : undefined;
  }
  if (e instanceof NetworkError) return again && `retry safely with --idempotency-key ${again}`;
  if (e instanceof AnswerTooLargeError) {
    const cap = 'raise the cap with --max-response-bytes or PAY_MAX_RESPONSE_BYTES';
    return again ? `${cap}; run it again with --idempotency-key ${again} to get its result without doing it twice` : cap;
  }
  if (key)
    return (
      again && `it may or may not have been done: run it again with --idempotency-key ${again} to get its result without doing it twice`
    );
  return e.code === 'redirect'
    ? 'pay follows no redirect: check the base URL (pay doctor), or whether a proxy or captive portal answers'
    : 'check the base URL (pay doctor), or whether a proxy or captive portal answers';
}

/**
 * Adds the hint of the failed request behind `err` (the error itself, or a cause of a command's
 * own error that tells the same failure in its words, as `pay trigger` does) before the hint it
 * already has: `<what to do about the request>; <the command's own hint>`.
 */
export function addRequestHint(err: unknown, flags: ReadonlySet<string>): void {
  if (!(err instanceof PayError)) return;
  let e: unknown = err;
  for (let depth = 0; e instanceof PayError && !isClientError(e) && depth < 8; depth++) e = e.cause;
  if (!isClientError(e)) return;
  const hint = requestHint(e, flags);
  if (hint) err.hint = err.hint ? `${hint}; ${err.hint}` : hint;
}
