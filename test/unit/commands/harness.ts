// Runs `pay <argv>` through the real commander tree in-process, with a fake factory: buffered
// streams (terminal or pipe is a parameter), a fixed environment, and an undici MockAgent that
// records every request and answers from a responder. No sockets, no child processes.
import { CommanderError, type Command } from 'commander';
import { MockAgent } from 'undici';
import { vi } from 'vitest';
import { runVerbWith } from '../../../src/verbs/execute.js';
import { specOf } from '../../../src/cmdutil/registry.js';
import { bufferIOStreams } from '../../../src/io/iostreams.js';
import { createFactory } from '../../../src/cmdutil/factory.js';
import { reportError } from '../../../src/lib/handle-error.js';
import { buildProgram } from '../../../src/program.js';

// The tooling commands (login, emulator, completion, …) belong to other modules, some still being
// written; the resource groups are what these tests exercise.
vi.mock('../../../src/commands/tooling.js', () => ({ registerTooling: () => {} }));

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

export interface RunOptions {
  tty?: boolean;
  env?: Record<string, string>;
  stdin?: string;
  respond?: Responder;
}

const echo: Responder = (req) => ({
  status: req.method === 'POST' ? 201 : 200,
  body:
    req.method === 'GET' && !/_[0-9a-z]{24}/.test(req.path)
      ? { object: 'list', data: [], has_more: false, next_cursor: null }
      : { id: 'obj_1', ...(req.body as object) },
});

export async function pay(argv: string[], opts: RunOptions = {}): Promise<PayRun> {
  const requests: Recorded[] = [];
  const agent = new MockAgent();
  agent.disableNetConnect();
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
  const io = bufferIOStreams({ tty: opts.tty ?? false, ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}) });
  const env = {
    PAY_API_KEY: SANDBOX_KEY,
    PAY_BASE_URL: `${ORIGIN}/v1/`,
    PAY_CONFIG_DIR: '/nonexistent-pay-unit-test',
    PAY_RETRY_BASE_MS: '1',
    ...opts.env,
  };
  const program = buildProgram();
  program.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  for (const group of program.commands) {
    group.exitOverride();
    for (const cmd of group.commands) {
      cmd.exitOverride();
      const spec = specOf.get(cmd);
      if (!spec?.verb) continue;
      const verb = spec.verb;
      cmd.action(async (...args: unknown[]) => {
        const command = args.at(-1) as Command;
        const f = createFactory({ io, env, flags: command.optsWithGlobals(), dispatcher: agent });
        await runVerbWith(f, { group: spec.group, verb, argValue: verb.arg ? (args[0] as string) : undefined, opts: command.opts() });
      });
    }
  }
  let code = 0;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      io.err(`${err.message}\n`);
      code = 2;
    } else {
      code = reportError(err, { err: (t) => io.err(t), json: argv.includes('--json'), debug: false });
    }
  }
  await agent.close();
  return { code, stdout: io.stdoutText(), stderr: io.stderrText(), requests };
}
