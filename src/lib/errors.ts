// Typed errors and the one mapping from error to exit code (contract section 6).
// Commands throw these; src/lib/handle-error.ts prints them; only the entry (src/cli.ts) exits.

export const ExitCode = {
  OK: 0,
  ERROR: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  CONFLICT: 5,
  NETWORK: 6,
  RATE_LIMITED: 7,
  CANCELLED: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface FieldError {
  field: string;
  code?: string;
  message: string;
  /** The flag (or argument) that sets this field in the command that failed, when known. */
  flag?: string;
}

export interface PayErrorOptions {
  hint?: string;
  cause?: unknown;
  /** Extra machine-readable fields for the `--json` error object. */
  details?: Record<string, unknown>;
  fieldErrors?: FieldError[];
  /** The command has already said what went wrong on stderr: print nothing more (text mode). */
  quiet?: boolean;
  /**
   * In text mode, these lines instead of `error: <message>`, the field errors and the hint (each
   * escaped, one line each): a command's own report (`invalid: <reason>`). JSON mode prints the
   * error object as always: which one is printed is the entry's choice, never the command's.
   */
  text?: readonly string[];
  /** The entry ends the process once this is reported, whatever is still running (a second Ctrl-C). */
  exitNow?: boolean;
}

export class PayError extends Error {
  readonly exitCode: ExitCode;
  /**
   * What to do about it. Not readonly: the command layer writes the hint of a failed request for
   * the command that ran (src/cmdutil/hints.ts), from the facts the API client's error carries.
   */
  hint: string | undefined;
  readonly details: Record<string, unknown>;
  readonly fieldErrors: FieldError[];
  readonly quiet: boolean;
  readonly text: readonly string[] | undefined;
  readonly exitNow: boolean;
  /** A short machine code for `--json` errors. */
  readonly code: string;

  constructor(message: string, exitCode: ExitCode, code: string, opts: PayErrorOptions = {}) {
    // No stack trace: an expected error is printed as one line, never with its stack (--debug
    // shows its cause's), and capturing one took half the time of a bulk file whose rows fail.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    Error.stackTraceLimit = limit;
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.code = code;
    this.hint = opts.hint;
    this.details = opts.details ?? {};
    this.fieldErrors = opts.fieldErrors ?? [];
    this.quiet = opts.quiet ?? false;
    this.text = opts.text;
    this.exitNow = opts.exitNow ?? false;
  }
}

export class UsageError extends PayError {
  constructor(message: string, opts: PayErrorOptions = {}) {
    super(message, ExitCode.USAGE, 'usage', opts);
  }
}

export class AuthError extends PayError {
  constructor(message: string, opts: PayErrorOptions = {}) {
    super(message, ExitCode.AUTH, 'auth', opts);
  }
}

export class CancelledError extends PayError {
  constructor(message = 'cancelled') {
    super(message, ExitCode.CANCELLED, 'cancelled');
  }
}

export class NetworkError extends PayError {
  /** The request's Idempotency-Key, when it had one: the same key makes a retry safe. */
  readonly idempotencyKey: string | undefined;

  constructor(message: string, opts: PayErrorOptions & { idempotencyKey?: string | undefined } = {}) {
    super(message, ExitCode.NETWORK, 'network', opts);
    this.idempotencyKey = opts.idempotencyKey;
  }
}

/**
 * A dry run reached a request that would change something: the client printed it instead of
 * sending it. The dispatcher ends the command there with exit 0 (src/cmdutil/dispatch.ts).
 */
export class DryRunStop extends PayError {
  constructor() {
    super('dry run: nothing was sent', ExitCode.OK, 'dry_run', { quiet: true });
  }
}

/** An HTTP error answer from the API, after retries. */
export class ApiError extends PayError {
  readonly status: number;
  readonly apiCode: string | undefined;
  readonly requestId: string | undefined;
  readonly idempotencyKey: string | undefined;
  /** The service answered a stored answer of this key again (Idempotent-Replayed): nothing was tried anew. */
  readonly replayed: boolean;
  /** The problem document's members (code, customer_id, kyc_status, feature, …), as the service sent them. */
  readonly problem: Readonly<Record<string, unknown>>;

  constructor(
    message: string,
    init: {
      status: number;
      apiCode?: string | undefined;
      requestId?: string | undefined;
      idempotencyKey?: string | undefined;
      replayed?: boolean;
      problem?: Readonly<Record<string, unknown>>;
    } & PayErrorOptions,
  ) {
    super(message, exitCodeForStatus(init.status, init.apiCode), init.apiCode ?? `http_${init.status}`, init);
    this.status = init.status;
    this.apiCode = init.apiCode;
    this.requestId = init.requestId;
    this.idempotencyKey = init.idempotencyKey;
    this.replayed = init.replayed ?? false;
    this.problem = init.problem ?? {};
  }
}

export function exitCodeForStatus(status: number, apiCode?: string): ExitCode {
  if (status === 401 || status === 403) return ExitCode.AUTH;
  if (status === 404) return ExitCode.NOT_FOUND;
  if (status === 409) return ExitCode.CONFLICT;
  if (status === 422 && apiCode === 'idempotency_key_reused') return ExitCode.CONFLICT;
  if (status === 429) return ExitCode.RATE_LIMITED;
  if (status >= 500) return ExitCode.NETWORK;
  return ExitCode.ERROR;
}

/**
 * A file of pay's build, or a package it loads when needed, missing, empty, cut short or otherwise
 * not what was installed: one `error:` line, exit 1, never a network error or "please report it".
 * bin/load.js throws a plain Error of the same code (for a bundle, or a package a bundle requires);
 * the entry prints either wherever it is in a chain of causes (src/cli.ts), before anything else.
 */
export const BUILD_DAMAGED = 'PAY_BUILD_DAMAGED';

export class BuildDamagedError extends PayError {
  constructor(message: string, cause?: unknown) {
    super(message, ExitCode.ERROR, BUILD_DAMAGED, { cause });
  }
}

/** A file of the build (a bundle, llhttp's WebAssembly, a help page) missing or damaged. */
export function buildDamaged(cause?: unknown): BuildDamagedError {
  return new BuildDamagedError('pay is not built or its build is damaged: run npm run build', cause);
}

/** A package pay loads from node_modules (jq-wasm, yaml, …) missing or damaged: named, with how to get it back. */
export function dependencyDamaged(name: string, cause?: unknown): BuildDamagedError {
  return new BuildDamagedError(`pay's dependency ${name} is missing or damaged: reinstall pay (npm ci)`, cause);
}

/** The damaged-build error in `err` or its causes, if any. */
export function damagedIn(err: unknown): Error | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === BUILD_DAMAGED) return e;
  }
  return undefined;
}
