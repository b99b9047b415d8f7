// --wait, for every verb whose object settles later (VerbSpec.wait, src/cmdutil/spec.ts): poll the
// object until its status leaves the spec's `pending` states (0.5 s growing to 2 s, bounded by
// --wait-timeout), a spinner on stderr when it is a terminal; exit 0 in a success state, 1 in a
// failure state (naming the reason) or at the deadline. Every answer waited on must be that object
// with a known status (else exit 1, bad_response): never "transfer undefined".
// `pay trigger` waits for the objects it builds on with the same loop, which is the one poll loop of
// src/lib/poll.ts.
import type { ApiClient } from '../api/client.js';
import { DEFAULT_WAIT_TIMEOUT_S, type WaitSpec } from '../cmdutil/spec.js';
import { escapeText, escapeValue } from '../io/escape.js';
import { getPath } from '../io/fields.js';
import type { IOStreams } from '../io/iostreams.js';
import { ExitCode, PayError, UsageError } from '../lib/errors.js';
import { pollUntil, systemClock, WAIT_PAUSES, type Clock } from '../lib/poll.js';
import { asText } from '../lib/text.js';
import { checkInt, isId } from '../shared/validate.js';

/** --wait-timeout (waitTimeoutOption, src/cmdutil/spec.ts): whole seconds, 1 to a day (default 120); exit 2 for anything else. */
export function waitTimeoutSeconds(raw: unknown, flag = '--wait-timeout'): number {
  if (raw === undefined) return DEFAULT_WAIT_TIMEOUT_S;
  const problem = checkInt(1, 86_400)(asText(raw));
  if (problem) throw new UsageError(`${flag} ${problem}`);
  return Number(raw);
}

export interface WaitOptions {
  timeoutMs: number;
  /** Draws the spinner when its stderr is a terminal. */
  io?: IOStreams | undefined;
  /** Default: the machine's (the Factory's `clock` in commands). */
  clock?: Clock | undefined;
  /**
   * Aborted by Ctrl-C or SIGTERM (the verbs: sendAndPrint): the wait stops at once with exit 130,
   * the error naming what was created or acted on and its last known state, and how to check it.
   */
  signal?: AbortSignal | undefined;
}

type Obj = Record<string, unknown>;

export const nounOfWait = (spec: WaitSpec): string => spec.noun ?? spec.object.replace(/_/g, ' ');
const statusOf = (spec: WaitSpec, obj: unknown): unknown => getPath(obj, spec.statusField ?? 'status');
const known = (spec: WaitSpec): string[] => [...spec.pending, ...spec.success, ...spec.failure];

/** `{field}` in a template, filled from an object's id-like fields (undefined when one is missing or odd). */
function fill(template: string, from: unknown, encode: boolean): string | undefined {
  let missing = false;
  const out = template.replace(/\{([a-z_]+)\}/g, (_, field: string) => {
    const v = getPath(from, field);
    if (!isId(v)) {
      missing = true;
      return '';
    }
    return encode ? encodeURIComponent(v) : v;
  });
  return missing ? undefined : out;
}

function badAnswer(spec: WaitSpec, what: string, problem: string, requestId: string | undefined, obj: unknown): PayError {
  const shown = fill(spec.show, obj, false);
  return new PayError(`${what}: ${problem}`, ExitCode.ERROR, 'bad_response', {
    details: { request_id: requestId },
    ...(shown ? { hint: `see it with: ${shown}` } : {}),
  });
}

/** An answer as the waited-on object: the expected id (or any id of its prefix) and a known status; else a PayError (exit 1). */
function asWaited(spec: WaitSpec, body: unknown, what: string, requestId: string | undefined, id?: string): Obj {
  const o = (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Obj;
  const noun = nounOfWait(spec);
  const oid = o.id;
  const idOk = isId(oid, spec.idPrefix) && (id === undefined || oid === id);
  if (!idOk) {
    const problem =
      id !== undefined && typeof oid === 'string' && oid.startsWith(spec.idPrefix)
        ? `the answer is ${noun} ${escapeValue(oid)}, not ${id}`
        : `the answer has no ${noun} id (${spec.idPrefix}…)`;
    throw badAnswer(spec, what, problem, requestId, id === undefined ? {} : { ...o, id });
  }
  const status = statusOf(spec, o);
  if (!(known(spec) as unknown[]).includes(status)) {
    throw badAnswer(spec, what, `${noun} ${oid} has no known status (${known(spec).join(', ')})`, requestId, o);
  }
  return o;
}

/**
 * Where to poll and what, from the verb's answer: the path, the id every polled answer must have,
 * and the answer itself when it is the object (its status may already be final).
 */
export function waitTarget(spec: WaitSpec, answer: unknown, what: string, requestId?: string): { path: string; id: string; first?: Obj } {
  const idField = spec.idField ?? 'id';
  const first = idField === 'id' ? asWaited(spec, answer, what, requestId) : undefined;
  const id = getPath(answer, idField);
  const path = fill(spec.poll, answer, true);
  if (!isId(id, spec.idPrefix) || path === undefined) {
    throw badAnswer(
      spec,
      what,
      `the answer does not say which ${nounOfWait(spec)} to wait for (${idField}: ${spec.idPrefix}…)`,
      requestId,
      {},
    );
  }
  return { path, id, ...(first ? { first } : {}) };
}

/**
 * Polls until the object is in no pending state (the one poll loop, src/lib/poll.ts: at once, or
 * after 0.5 s when the answer was the object, growing to 2 s); returns it (success or failure: see
 * settled()). A PayError (exit 1, wait_timeout) at the deadline.
 */
export async function waitFor(client: ApiClient, spec: WaitSpec, answer: unknown, opts: WaitOptions, what = 'the answer'): Promise<Obj> {
  const clock = opts.clock ?? systemClock;
  const deadline = clock.now() + opts.timeoutMs;
  const target = waitTarget(spec, answer, what);
  const noun = nounOfWait(spec);
  let current = target.first;
  const base = spec.after === undefined ? undefined : getPath(answer, spec.after);
  // Pending, or settled by an earlier attempt than the one the verb asked for (spec.after).
  const waiting = (o: Obj): boolean => {
    if (isPending(spec, o)) return true;
    if (typeof base !== 'number') return false;
    const n = getPath(o, spec.after!);
    return !(typeof n === 'number' && n > base);
  };
  if (current !== undefined && !waiting(current)) return current;
  // Pending with nothing scheduled to move it (an event and no webhook URL): say so now, not at the timeout.
  if (opts.io && spec.stalled && current !== undefined && getPath(current, spec.stalled.field) === null) {
    opts.io.err(
      `note: ${escapeText(`${noun} ${target.id}: ${spec.stalled.note}`)}; waiting up to ${Math.round(opts.timeoutMs / 1000)} s\n`,
    );
  }
  const done = await pollUntil({
    signal: opts.signal,
    // The first poll comes after a pause when the answer was the object (it just said pending), at once otherwise.
    pauses: { first: current ? 500 : 0, next: WAIT_PAUSES.next },
    clock,
    spinner: opts.io ? { io: opts.io, text: `Waiting for ${noun} ${target.id} to ${spec.until}` } : undefined,
    step: async () => {
      const res = await client.request({ method: 'GET', path: target.path, expect: 'object' });
      current = asWaited(spec, res.body, `GET /${target.path}`, res.requestId, target.id);
      return waiting(current) ? undefined : current;
    },
    deadline: {
      at: deadline,
      error: () => {
        const shown = fill(spec.show, current ?? { id: target.id }, false) ?? fill(spec.show, answer, false);
        return new PayError(
          `${noun} ${target.id} is still ${escapeText(asText(statusOf(spec, current) ?? 'pending'))} after ${Math.round(opts.timeoutMs / 1000)} s`,
          ExitCode.ERROR,
          'wait_timeout',
          {
            details: { [spec.object]: current },
            ...(shown ? { hint: `it may still settle; check with: ${shown}` } : {}),
          },
        );
      },
    },
  });
  if (done !== undefined) return done;
  // Interrupted: the object exists (the service answered); say which, and how it stands, instead of losing it.
  const shown = fill(spec.show, current ?? { id: target.id }, false) ?? fill(spec.show, answer, false);
  const status = escapeText(asText(statusOf(spec, current ?? answer) ?? 'pending'));
  throw new PayError(
    `interrupted while waiting for ${noun} ${target.id} to ${spec.until}: the request was accepted, and it is ${status}`,
    ExitCode.CANCELLED,
    'cancelled',
    {
      details: { [spec.object]: current ?? answer },
      ...(shown ? { hint: `it may still settle; check with: ${shown}` } : {}),
    },
  );
}

const isPending = (spec: WaitSpec, obj: Obj): boolean => spec.pending.includes(statusOf(spec, obj) as string);

/** A settled object in a success state passes; in a failure state it is a PayError (exit 1) naming its reason. */
export function settled(spec: WaitSpec, obj: Obj): Obj {
  const status = asText(statusOf(spec, obj));
  if (spec.success.includes(status)) return obj;
  const noun = nounOfWait(spec);
  const reason = spec.reasonField ? getPath(obj, spec.reasonField) : undefined;
  const why =
    status === 'failed'
      ? `failed: ${reason === undefined || reason === null || reason === '' ? 'no reason given' : escapeText(asText(reason))}`
      : `was ${escapeText(status)}${typeof reason === 'string' && reason ? `: ${escapeText(reason)}` : ''}`;
  const shown = fill(spec.show, obj, false);
  throw new PayError(`${noun} ${asText(obj.id)} ${why}`, ExitCode.ERROR, `${spec.object}_${status}`, {
    details: { [spec.object]: obj },
    ...(shown ? { hint: `see it with: ${shown}` } : {}),
  });
}
