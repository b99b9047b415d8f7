// The one place that turns an error into stderr text and an exit code (contract section 6).
// Kept free of heavy imports: it is part of the start-up chunk. Every text it prints from an
// error (the service's messages, field errors and hints, file contents quoted in a message, a
// --debug stack) goes through escape.ts: nothing in an error drives the terminal. --json errors
// are JSON.stringify'd as they are.
import { escapeMultiline, escapeText } from './escape.js';
import { BuildDamagedError, damagedIn, ExitCode, PayError, type FieldError } from './errors.js';

export interface ErrorOutput {
  err(text: string): void;
  json: boolean;
  debug: boolean;
}

/** A field error's line: the field, the message, and what sets it in this command, when it has something (set by the command layer: src/verbs/constraints.ts, pay api). */
function fieldLine(e: FieldError): string {
  return `  ${escapeText(e.field)}: ${oneLine(e.message)}${e.flag ? ` (${escapeText(e.flag)})` : ''}`;
}

export function reportError(error: unknown, out: ErrorOutput): number {
  const e = normalize(error);
  if (out.json) {
    const obj: Record<string, unknown> = { code: e.code, message: e.message, exit_code: e.exitCode, ...e.details };
    if (e.hint) obj.hint = e.hint;
    if (e.fieldErrors.length) obj.errors = e.fieldErrors;
    out.err(`${JSON.stringify({ error: dropUndefined(obj) })}\n`);
  } else if (e.text && !e.quiet) {
    for (const line of e.text) out.err(`${oneLine(line)}\n`);
  } else if (!e.quiet) {
    out.err(`error: ${oneLine(e.message)}\n`);
    for (const fe of e.fieldErrors) out.err(`${fieldLine(fe)}\n`);
    if (e.hint) out.err(`hint: ${oneLine(e.hint)}\n`);
  }
  if (out.debug && !(error instanceof PayError) && error instanceof Error && error.stack) out.err(`${escapeMultiline(error.stack)}\n`);
  else if (out.debug && error instanceof PayError && error.cause instanceof Error && error.cause.stack) {
    out.err(`cause: ${escapeMultiline(error.cause.stack)}\n`);
  }
  return e.exitCode;
}

function normalize(error: unknown): PayError {
  // A damaged build, wherever in the causes (bin/load.js's plain Error too): its own line, no "please report it".
  const damaged = damagedIn(error);
  if (damaged) return damaged instanceof PayError ? damaged : new BuildDamagedError(damaged.message, damaged);
  if (error instanceof PayError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new PayError(`unexpected: ${message}`, ExitCode.ERROR, 'internal', {
    hint: 'run again with --debug for details; please report it',
  });
}

/** Everything unsafe is escaped, line breaks too (`\r`, `\n`): a message stays one line and says what it held. */
function oneLine(s: string): string {
  return escapeText(String(s));
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
