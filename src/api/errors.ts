// The errors the API client throws when a request fails: the service's refusal (an HTTP error
// answer), an answer that is not the success expected, one too large to read.
import { redact } from '../config/keys.js';
import { ApiError, AuthError, ExitCode, PayError, type FieldError } from '../lib/errors.js';
import { refusalHint } from '../shared/rules.js';
import { RETRY_STATUS } from './answers.js';
import type { RequestInit } from './client.js';
import { httpReason } from './transport.js';
import { printable } from './url.js';

/** What the errors say of the key that was used: where it came from, and what to do about a refused one. */
export interface Credential {
  label: string;
  hint: string | undefined;
}

/** A 2xx (or 3xx) that is not the success expected, or a list that breaks its contract: the service's fault, exit 1. */
export function badResponse(
  secrets: readonly (string | undefined)[],
  what: string,
  status: number,
  problem: string,
  requestId: string | undefined,
  idempotencyKey: string | undefined,
  code: string,
): PayError {
  const refs = [requestId && `request ${printable(requestId)}`, idempotencyKey && `idempotency key ${idempotencyKey}`].filter(Boolean);
  return new PayError(`${what}: ${redact(problem, secrets)}${refs.length ? ` (${refs.join(', ')})` : ''}`, ExitCode.ERROR, code, {
    details: { status, request_id: requestId, idempotency_key: idempotencyKey },
    hint: idempotencyKey
      ? `it may or may not have been done: run it again with --idempotency-key ${idempotencyKey} to get its result without doing it twice`
      : code === 'redirect'
        ? 'pay follows no redirect: check the base URL (pay doctor), or whether a proxy or captive portal answers'
        : 'check the base URL (pay doctor), or whether a proxy or captive portal answers',
  });
}

/** An answer larger than the cap (--max-response-bytes): pay stopped reading it. */
export function tooLarge(what: string, max: number, idempotencyKey: string | undefined): PayError {
  return new PayError(
    `${what}: the answer is larger than ${formatBytes(max)}; pay stopped reading it`,
    ExitCode.ERROR,
    'response_too_large',
    {
      details: { max_response_bytes: max, idempotency_key: idempotencyKey },
      hint: `raise the cap with --max-response-bytes or PAY_MAX_RESPONSE_BYTES${idempotencyKey ? `; run it again with --idempotency-key ${idempotencyKey} to get its result without doing it twice` : ''}`,
    },
  );
}

/** The service's refusal: an HTTP error answer (after retries). */
export function refused(
  credential: Credential,
  secrets: readonly (string | undefined)[],
  init: RequestInit,
  url: URL,
  status: number,
  body: unknown,
  requestId: string | undefined,
  idempotencyKey: string | undefined,
  attempt: number,
  replayed = false,
): ApiError | AuthError {
  const problem = (body && typeof body === 'object' ? body : {}) as {
    code?: string;
    title?: string;
    detail?: string;
    errors?: FieldError[];
    customer_id?: unknown;
    kyc_status?: unknown;
    feature?: unknown;
  };
  const what = problem.detail || problem.title || (typeof body === 'string' && body ? body.slice(0, 200) : httpReason(status));
  // A replayed refusal names its key as the one whose stored answer this is: retrying with it cannot help.
  const keyRef = idempotencyKey && (replayed ? `replayed for idempotency key ${idempotencyKey}` : `idempotency key ${idempotencyKey}`);
  const refs = [requestId && `request ${requestId}`, keyRef].filter(Boolean);
  const suffix = refs.length ? ` (${refs.join(', ')})` : '';
  const code = problem.code ? ` ${problem.code}` : '';
  // replayed: the service answered a stored refusal of this key again (nothing was tried anew).
  const details = {
    status,
    code: problem.code,
    request_id: requestId,
    idempotency_key: idempotencyKey,
    method: init.method,
    path: url.pathname,
    ...(replayed ? { replayed } : {}),
  };
  if (status === 401) {
    return new ApiError(`HTTP 401${code}: the API key from ${credential.label} is missing or invalid${suffix}`, {
      status,
      apiCode: problem.code,
      requestId,
      idempotencyKey,
      details,
      hint: credential.hint ?? 'check the key with pay profiles show, or log in again with pay login',
    });
  }
  const retried = RETRY_STATUS.has(status) ? attempts(attempt) : '';
  return new ApiError(`HTTP ${status}${code}: ${redact(what, secrets)}${retried}${suffix}`, {
    status,
    apiCode: problem.code,
    requestId,
    idempotencyKey,
    details,
    fieldErrors: Array.isArray(problem.errors) ? problem.errors.filter((e) => e && typeof e.field === 'string') : [],
    hint:
      status === 403
        ? `the key from ${credential.label} is not allowed to do this`
        : replayed && idempotencyKey
          ? `the same idempotency key only replays this answer: to try again, send it with a new one (or without --idempotency-key)`
          : (status >= 500 || problem.code === 'idempotency_request_in_progress') && idempotencyKey
            ? `retry safely with --idempotency-key ${idempotencyKey}`
            : // A refusal of the business rules (or a 409 it leads to): what to run (the customers, KYC states and features the answer names, checked).
              status === 422 || status === 409
              ? refusalHint(problem)
              : undefined,
  });
}

export function attempts(n: number): string {
  return n > 1 ? ` after ${n} attempts` : '';
}

function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return n === 1 ? '1 byte' : `${n} bytes`;
}
