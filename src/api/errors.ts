// The errors the API client throws when a request fails: the service's refusal (an HTTP error
// answer), an answer that is not the success expected, one too large to read, the network. They
// carry what happened (status, problem type and members, idempotency key, replayed, redirect, the
// cap); what to do about it names flags and commands, so the command that ran writes that hint
// (src/cmdutil/hints.ts). The one hint written here is the Factory's, for a refused key.
import { redact } from '../config/keys.js';
import { ApiError, AuthError, ExitCode, PayError, type FieldError } from '../lib/errors.js';
import { RETRY_STATUS } from './answers.js';
import type { RequestInit } from './client.js';
import { httpReason } from './transport.js';
import { printable } from './url.js';

/** What the errors say of the key that was used: where it came from, and what to do about a refused one. */
export interface Credential {
  label: string;
  hint: string | undefined;
}

/** An answer that is not the success expected (code `redirect` for a 3xx, else `bad_response`): the service's fault, exit 1. */
export class BadAnswerError extends PayError {
  constructor(
    message: string,
    code: 'redirect' | 'bad_response',
    readonly idempotencyKey: string | undefined,
    details: Record<string, unknown>,
  ) {
    super(message, ExitCode.ERROR, code, { details });
  }
}

/** An answer larger than the cap (--max-response-bytes): pay stopped reading it. */
export class AnswerTooLargeError extends PayError {
  constructor(
    message: string,
    readonly idempotencyKey: string | undefined,
    details: Record<string, unknown>,
  ) {
    super(message, ExitCode.ERROR, 'response_too_large', { details });
  }
}

/** A 2xx (or 3xx) that is not the success expected, or a list that breaks its contract: the service's fault, exit 1. */
export function badResponse(
  secrets: readonly (string | undefined)[],
  what: string,
  status: number,
  problem: string,
  requestId: string | undefined,
  idempotencyKey: string | undefined,
  code: 'redirect' | 'bad_response',
): BadAnswerError {
  const refs = [requestId && `request ${printable(requestId)}`, idempotencyKey && `idempotency key ${idempotencyKey}`].filter(Boolean);
  return new BadAnswerError(`${what}: ${redact(problem, secrets)}${refs.length ? ` (${refs.join(', ')})` : ''}`, code, idempotencyKey, {
    status,
    request_id: requestId,
    idempotency_key: idempotencyKey,
  });
}

/** An answer larger than the cap (--max-response-bytes): pay stopped reading it. */
export function tooLarge(what: string, max: number, idempotencyKey: string | undefined): AnswerTooLargeError {
  return new AnswerTooLargeError(`${what}: the answer is larger than ${formatBytes(max)}; pay stopped reading it`, idempotencyKey, {
    max_response_bytes: max,
    idempotency_key: idempotencyKey,
  });
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
      problem,
      hint: credential.hint,
    });
  }
  const retried = RETRY_STATUS.has(status) ? attempts(attempt) : '';
  return new ApiError(`HTTP ${status}${code}: ${redact(what, secrets)}${retried}${suffix}`, {
    status,
    apiCode: problem.code,
    requestId,
    idempotencyKey,
    details,
    replayed,
    problem,
    // The flag that sets a field is the command's to name (src/verbs/constraints.ts attachFlags), never the service's.
    fieldErrors: Array.isArray(problem.errors)
      ? problem.errors.filter((e) => e && typeof e.field === 'string').map(({ flag: _flag, ...fe }) => fe)
      : [],
    hint: status === 403 ? `the key from ${credential.label} is not allowed to do this` : undefined,
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
