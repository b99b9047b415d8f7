// Runs `pay <argv>` through the real commander tree in-process, every command (resource verbs,
// tooling, the emulator) as the entry runs it, with a fake Factory: buffered streams (terminal or
// pipe is a parameter), a fixed environment, fake signals, and an undici MockAgent that records
// every request and answers from a responder. No child processes.
import { CommanderError } from 'commander';
import { MockAgent } from 'undici';
import { wantsJsonErrors } from '../../../src/argv.js';
import type { Entry } from '../../../src/cmdutil/decl.js';
import { createFactory, type Signals } from '../../../src/cmdutil/factory.js';
import { buildProgram } from '../../../src/commands/tree.js';
import { allGroups } from '../../../src/commands/groups.js';
import { bufferIOStreams } from '../../../src/io/iostreams.js';
import type { Clock } from '../../../src/lib/poll.js';
import { reportError } from '../../../src/lib/handle-error.js';

export const SANDBOX_KEY = 'sk_test_unitunitunitunitunitunit1234';
export const LIVE_KEY = 'sk_live_unitunitunitunitunitunit1234';
export const ORIGIN = 'https://api.example.com';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
}

export type Responder = (req: Recorded) => { status: number; body: unknown; headers?: Record<string, string> };

export interface PayRun {
  code: number;
  stdout: string;
  stderr: string;
  requests: Recorded[];
}

export type BufferIO = ReturnType<typeof bufferIOStreams>;

export interface RunOptions {
  tty?: boolean;
  /** The fake terminal's width in columns (default 120). */
  width?: number;
  env?: Record<string, string>;
  stdin?: string;
  respond?: Responder;
  /** Streams to write to (a test that watches stderr while the command runs); default: fresh buffers. */
  io?: BufferIO;
  /** Where the command hears Ctrl-C and SIGTERM (fakeSignals()); default: the process's. */
  signals?: Signals;
  /** Requests to 127.0.0.1 reach the real network (an in-process emulator or test server on a loopback port). */
  loopback?: boolean;
  /** What waits read the time from and pause with (fakeClock()); default: the machine's. */
  clock?: Clock;
}

/** A clock that moves only when a wait sleeps (at once): `sleeps` lists each pause, `now()` their sum from `start`. */
export function fakeClock(start = 1_700_000_000_000): Clock & { sleeps: number[] } {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

/** Signals a test sends: `emit('SIGINT')` calls the listeners a command registered. */
export function fakeSignals(): Signals & { emit(signal: 'SIGINT' | 'SIGTERM'): void; count(): number } {
  const listeners: Array<{ signal: string; fn: (s: NodeJS.Signals) => void }> = [];
  return {
    on: (signal, fn) => void listeners.push({ signal, fn }),
    off: (signal, fn) => {
      const i = listeners.findIndex((l) => l.signal === signal && l.fn === fn);
      if (i >= 0) listeners.splice(i, 1);
    },
    alone: (fn) => {
      const kept = listeners.splice(0);
      listeners.push({ signal: 'SIGINT', fn }, { signal: 'SIGTERM', fn });
      return () => void listeners.splice(0, listeners.length, ...kept);
    },
    emit: (signal) => {
      for (const l of listeners.filter((x) => x.signal === signal)) l.fn(signal);
    },
    count: () => listeners.length,
  };
}

/** Where each create verb POSTs, and the id prefix of what it makes (VerbSpec.creates). */
const CREATES = allGroups.flatMap((g) =>
  g.verbs
    .filter((v) => v.kind === 'create' && v.creates)
    .map((v) => ({ path: new RegExp(`^${v.path.replace(/\{[^}]+\}/g, '[^/]+')}$`), prefix: v.creates! })),
);

/** An id for what a POST to this path makes: of the create's kind (`cus_…` for customers), else a plain one. */
export function newIdFor(path: string): string {
  const c = CREATES.find((x) => x.path.test(path));
  return c ? `${c.prefix}0123456789abcdefghijklmn` : 'obj_1';
}

/** A Responder for any request (status pending): a POST makes an object of its kind; an object answered for its id. */
export const answerAny: Responder = (req) => ({
  status: req.method === 'POST' ? 201 : 200,
  body:
    req.method === 'GET' && !/_[0-9a-z]{24}/.test(req.path)
      ? { object: 'list', data: [], has_more: false, next_cursor: null }
      : {
          id:
            req.method === 'POST' && newIdFor(req.path) !== 'obj_1'
              ? newIdFor(req.path)
              : (/[a-z]+_[0-9a-z]{24}/.exec(req.path)?.[0] ?? 'obj_1'),
          status: 'pending',
          ...(req.body as object),
        },
});

const echo: Responder = (req) => ({
  status: req.method === 'POST' ? 201 : 200,
  body:
    req.method === 'GET' && !/_[0-9a-z]{24}/.test(req.path)
      ? { object: 'list', data: [], has_more: false, next_cursor: null }
      : { id: req.method === 'POST' ? newIdFor(req.path) : 'obj_1', ...(req.body as object) },
});

export async function pay(argv: string[], opts: RunOptions = {}): Promise<PayRun> {
  const requests: Recorded[] = [];
  const agent = new MockAgent();
  agent.disableNetConnect();
  if (opts.loopback) agent.enableNetConnect(/^127\.0\.0\.1:\d+$/);
  const respond = opts.respond ?? echo;
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((o) => {
      const url = new URL(String(o.path), ORIGIN);
      const headers = Object.fromEntries(
        Object.entries((o.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)]),
      );
      const req: Recorded = {
        method: String(o.method),
        path: url.pathname.replace(/^\/v1\//, ''),
        query: url.searchParams,
        headers,
        body: typeof o.body === 'string' && o.body ? JSON.parse(o.body) : undefined,
      };
      requests.push(req);
      const r = respond(req);
      return {
        statusCode: r.status,
        data: JSON.stringify(r.body),
        responseOptions: { headers: { 'content-type': 'application/json', ...r.headers } },
      };
    })
    .persist();
  const io =
    opts.io ??
    bufferIOStreams({
      tty: opts.tty ?? false,
      ...(opts.width !== undefined ? { width: opts.width } : {}),
      ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
    });
  const env = {
    PAY_API_KEY: SANDBOX_KEY,
    PAY_BASE_URL: `${ORIGIN}/v1/`,
    PAY_CONFIG_DIR: '/nonexistent-pay-unit-test',
    PAY_RETRY_BASE_MS: '1',
    ...opts.env,
  };
  // What src/cli.ts hands the tree, with the fakes in place of the process's streams and network.
  const entry: Entry = {
    factory: (flags) =>
      createFactory({
        io,
        env,
        flags,
        dispatcher: agent,
        groups: async () => allGroups,
        ...(opts.signals ? { signals: opts.signals } : {}),
        ...(opts.clock ? { clock: opts.clock } : {}),
      }),
  };
  const program = buildProgram(entry);
  program.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  const quiet = (cmd: typeof program): void => {
    cmd.exitOverride();
    for (const c of cmd.commands) quiet(c);
  };
  quiet(program);
  let code = 0;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      io.err(`${err.message}\n`);
      code = 2;
    } else {
      // As src/cli.ts: the command's resolved output decides; before it resolved, argv does.
      code = reportError(err, { err: (t) => io.err(t), json: entry.resolved?.jsonErrors ?? wantsJsonErrors(argv), debug: false });
    }
  }
  await agent.close();
  return { code, stdout: io.stdoutText(), stderr: io.stderrText(), requests };
}
