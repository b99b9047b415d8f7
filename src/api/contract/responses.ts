// The shared error responses: every 4xx and 5xx is an RFC 9457 problem (application/problem+json).
import { schemaRef } from './common.js';
import { headerRef } from './parameters.js';
import { RULE_REFUSAL_EXAMPLES } from './rules.js';
import type { ResponseObject } from './types.js';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

interface ProblemSpec {
  status: number;
  title: string;
  /** Known codes for this status, with when they happen. */
  codes: ReadonlyArray<readonly [code: string, when: string]>;
  retryAfter?: boolean;
  /** The answer carries a WWW-Authenticate challenge (401). */
  challenge?: boolean;
  /** A POST's stored 4xx can be replayed. */
  replayable?: boolean;
  errors?: ReadonlyArray<{ field: string; code: string; message: string }>;
  /** More examples by name (besides the first code's): code, detail and extension members. */
  more?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** Component name → problem; the component names are what operations reference. */
export const PROBLEMS: Readonly<Record<string, ProblemSpec>> = {
  BadRequest: {
    status: 400,
    title: 'Bad request',
    replayable: true,
    codes: [
      ['invalid_json', 'the body is not JSON'],
      ['missing_idempotency_key', 'a POST without `Idempotency-Key`'],
      ['invalid_idempotency_key', '`Idempotency-Key` is not 1-255 printable ASCII characters'],
      ['missing_tenant', '`x-tenant-id` missing where required'],
      ['invalid_tenant', '`x-tenant-id` is empty or does not match `^[A-Za-z0-9_-]{1,64}$`'],
      ['invalid_parameter', 'a query parameter is invalid (see `errors`)'],
    ],
  },
  Unauthorized: { status: 401, title: 'Unauthorized', challenge: true, codes: [['unauthorized', '`Api-Key` missing or invalid']] },
  Forbidden: { status: 403, title: 'Forbidden', codes: [['forbidden', 'a public key (`pk_…`) was sent where a secret key is needed']] },
  NotFound: {
    status: 404,
    title: 'Not found',
    replayable: true,
    codes: [
      ['not_found', "no such object here (also: another tenant's or mode's id, a malformed id, or an id in the body that does not exist)"],
      ['route_not_found', 'no such path'],
    ],
  },
  Conflict: {
    status: 409,
    title: 'Conflict',
    replayable: true,
    codes: [
      ['idempotency_request_in_progress', 'a request with this `Idempotency-Key` is still being processed'],
      ['invalid_state', "the object's state does not allow this (e.g. unfreeze a terminated card)"],
      ['account_not_empty', 'closing an account whose available or pending balance is not zero'],
      ['quote_expired', 'the FX quote is past its `expires_at`'],
      ['quote_used', 'the FX quote was already traded'],
    ],
  },
  PayloadTooLarge: { status: 413, title: 'Payload too large', codes: [['payload_too_large', 'the body is over 1 MiB']] },
  UnsupportedMediaType: {
    status: 415,
    title: 'Unsupported media type',
    codes: [['unsupported_media_type', 'a body sent without `Content-Type: application/json`']],
  },
  UnprocessableEntity: {
    status: 422,
    title: 'Validation failed',
    replayable: true,
    codes: [
      ['validation_error', 'the body is invalid; `errors[]` lists each field (dotted path), including unknown fields'],
      ['idempotency_key_reused', 'the `Idempotency-Key` was used with another body'],
      ['insufficient_funds', 'the available balance does not cover the amount'],
      [
        'kyc_required',
        "the business rules need the customer's KYC approved (or, for some actions, not rejected); `customer_id`, `kyc_status` and `rule` name who and which rule, `errors[]` the body field that named them",
      ],
      [
        'feature_not_active',
        'the business rules need a feature active for the customer (`POST /customers/{customer_id}/features/{feature}/activate`); `feature` names it',
      ],
      [
        'feature_not_eligible',
        "activating a feature the customer's KYC state does not allow yet; `customer_id`, `kyc_status` and `feature` say why",
      ],
      ['currency_mismatch', 'the currencies of the request and the accounts differ'],
    ],
    errors: [{ field: 'address.country', code: 'invalid', message: 'must be an ISO 3166-1 alpha-2 code' }],
    more: RULE_REFUSAL_EXAMPLES,
  },
  TooManyRequests: {
    status: 429,
    title: 'Too many requests',
    retryAfter: true,
    codes: [['rate_limited', 'slow down; retry after `Retry-After` seconds']],
  },
  InternalError: {
    status: 500,
    title: 'Internal error',
    codes: [['internal_error', 'a fault on the service side; safe to retry with the same `Idempotency-Key`']],
  },
  ServiceUnavailable: {
    status: 503,
    title: 'Service unavailable',
    retryAfter: true,
    codes: [['service_unavailable', 'the service is temporarily unavailable; retry after `Retry-After` seconds']],
  },
};

function problemResponse(p: ProblemSpec): ResponseObject {
  const [code] = p.codes[0] ?? ['error'];
  const example = {
    type: `https://pay.dev/problems/${code}`,
    title: p.title,
    status: p.status,
    detail: p.errors ? `${p.errors.length} field is invalid` : (p.codes[0]?.[1] ?? p.title),
    code,
    request_id: 'req_0123456789abcdefghijklmn',
    ...(p.errors ? { errors: p.errors } : {}),
  };
  // Several examples: the first code's, then each of `more` (Prism's mock answers the first).
  const examples = p.more
    ? {
        examples: Object.fromEntries<{ summary: string; value: unknown }>([
          [code, { summary: code, value: example }],
          ...Object.entries(p.more).map(([name, m]): [string, { summary: string; value: unknown }] => [
            name,
            {
              summary: name,
              value: {
                type: `https://pay.dev/problems/${String(m.code)}`,
                title: p.title,
                status: p.status,
                request_id: 'req_0123456789abcdefghijklmn',
                ...m,
              },
            },
          ]),
        ]),
      }
    : { example };
  return {
    description: `${p.title}. Codes: ${p.codes.map(([c, when]) => `\`${c}\` (${when})`).join('; ')}.`,
    headers: {
      'Request-Id': headerRef('Request-Id'),
      ...(p.replayable ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
      ...(p.retryAfter ? { 'Retry-After': headerRef('Retry-After') } : {}),
      ...(p.challenge ? { 'WWW-Authenticate': headerRef('WWW-Authenticate') } : {}),
    },
    content: {
      [PROBLEM_MEDIA_TYPE]: { schema: schemaRef('Problem'), ...examples },
    },
  };
}

export const responses: Record<string, ResponseObject> = Object.fromEntries(
  Object.entries(PROBLEMS).map(([name, p]) => [name, problemResponse(p)]),
);

/** Status → component name, for operations listing their errors by status. */
export const PROBLEM_BY_STATUS: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(PROBLEMS).map(([name, p]) => [p.status, name]),
);
