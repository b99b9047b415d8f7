// RFC 9457 problem details: the one error shape every 4xx and 5xx of the emulator uses.
import { STATUS_CODES } from 'node:http';

export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

/** Titles of the statuses the contract lists (the same words as its problem responses). */
const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

/**
 * The title of a status: the contract's words, else the HTTP reason phrase in the same sentence
 * case (417 `Expectation failed`, 431 `Request header fields too large`); never a bare `Error`.
 */
export function problemTitle(status: number): string {
  const title = TITLES[status];
  if (title) return title;
  const reason = STATUS_CODES[status];
  if (!reason) return status >= 500 ? 'Server error' : 'Client error';
  return reason.charAt(0) + reason.slice(1).toLowerCase();
}

/** Thrown by handlers and the pipeline; turned into an application/problem+json response. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly errors?: FieldProblem[],
    readonly headers?: Record<string, string>,
    /** RFC 9457 extension members (a refusal of the business rules names the customer, its KYC state and the feature). */
    readonly extensions?: Record<string, string>,
  ) {
    super(detail);
  }
}

export function problemBody(p: ApiProblem, requestId: string): string {
  const body: Record<string, unknown> = {
    type: `https://pay.dev/problems/${p.code}`,
    title: problemTitle(p.status),
    status: p.status,
    detail: p.message,
    code: p.code,
    request_id: requestId,
    ...p.extensions,
  };
  if (p.errors) body.errors = p.errors;
  return JSON.stringify(body);
}

export const notFound = (what: string, id: string): ApiProblem => new ApiProblem(404, 'not_found', `no ${what} ${id} here`);

export const invalidState = (detail: string): ApiProblem => new ApiProblem(409, 'invalid_state', detail);

export function validationProblem(errors: FieldProblem[]): ApiProblem {
  const n = errors.length;
  return new ApiProblem(
    422,
    'validation_error',
    n === 1 ? `${errors[0]!.field}: ${errors[0]!.message}` : `${n} fields are invalid`,
    errors,
  );
}

/**
 * A parameter's or body field's name as an error names it (the contract's ProblemFieldError
 * `field`: free text, never empty): a name the client sent empty is `(empty name)`, a control
 * character in it is written `\u0009`, and it is cut at 64 characters (then `…`).
 */
export function fieldName(name: string): string {
  if (name === '') return '(empty name)';
  const cut = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return cut.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export const invalidParameter = (field: string, message: string): ApiProblem =>
  new ApiProblem(400, 'invalid_parameter', `query parameter ${field}: ${message}`, [{ field, code: 'invalid', message }]);
