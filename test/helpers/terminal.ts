// An in-process terminal for commands run through test/unit/commands/harness.ts: a TTY whose
// stderr is collected as drawn and whose keys the test types.
import { PassThrough, Writable } from 'node:stream';
import { bufferIOStreams } from '../../src/io/iostreams.js';
import { until } from './wait.js';

export interface FakeTerminal {
  io: ReturnType<typeof bufferIOStreams>;
  input: PassThrough;
  drawn: () => string;
}

/** A terminal whose answers the test types: stderr (and the command's err lines) collected as drawn. */
export function fakeTerminal(): FakeTerminal {
  const input = new PassThrough();
  let drawn = '';
  const stderr = new Writable({ write: (c, _e, cb) => ((drawn += String(c)), cb()) });
  const io = { ...bufferIOStreams({ tty: true }), stdin: input, stderr, err: (t: string) => void (drawn += t) };
  return { io, input, drawn: () => drawn };
}

/**
 * Answers the live question with `key` once it is drawn (the prompt's "(y/N)") and returns what
 * was drawn up to it; if the command finishes without asking, what it drew.
 */
export async function answerWhenAsked(t: FakeTerminal, key: string, done: Promise<unknown>): Promise<string> {
  let finished = false;
  void done.finally(() => (finished = true));
  await until('the live question (y/N)', () => /\(y\/N\)/.test(t.drawn()) || finished, { seen: t.drawn });
  if (!/\(y\/N\)/.test(t.drawn())) return t.drawn();
  const question = t.drawn();
  t.input.write(`${key}\r`);
  return question;
}
