// What the tmux tests (test/tty/*.test.ts) share around their panes (test/tty/tmux.ts): each
// test's panes killed after it, the file's scratch folders removed after the file, and the service
// the panes talk to, started before the file's tests and stopped after: an emulator world
// (test/e2e/groups/helpers.ts: fixtures, marks, settle), a bare emulator, or a recording server
// (test/helpers/recording-server.ts: canned answers, the requests it got). Each pane's environment
// is the service's (base URL, key, tenant) and a fresh config folder, with what the test adds on top.
// A file seeds its objects in its own beforeAll, registered after the call (so run after the start).
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { startWorld, type World } from '../e2e/groups/helpers.js';
import { activePrompt, Pane, removeScratch, scratchDir, type PaneOptions } from '../tty/tmux.js';
import { startRecordingServer, type RecordingServer } from './recording-server.js';
import { PAY_BIN } from './run-pay.js';

/** The sandbox key the recording-server panes send (any well-formed key: the server takes all). */
export const TTY_KEY = 'sk_test_Tq4Wm8Zr2Kx6Pn0Vb3Yh7Jc5Ld9Fs1Ga';

export interface TtyPaneOptions extends PaneOptions {
  /** `env` is the pane's whole environment: no service, no fresh config folder (a login asked where to go). */
  envOnly?: boolean;
}

export interface TtyPanes {
  /** What a pane gets: the service's variables and a fresh PAY_CONFIG_DIR, `extra` over them. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** `pay <args>` in a new pane (Pane.pay) with env() and `opts.env` over it; killed after the test. */
  pay(args: string[], opts?: TtyPaneOptions): Promise<Pane>;
  /** `argv` in a new pane (Pane.start) with env() and `opts.env` over it; killed after the test. */
  start(argv: string[], opts?: TtyPaneOptions): Promise<Pane>;
  /**
   * `pay <args> > <dir>/<out>; echo EXIT:$?` in a new pane run in `dir` (stdout to the file, the
   * terminal keeps stderr); `trapInt`: the shell ignores SIGINT, so it lives on to print the code
   * of a pay interrupted from the terminal.
   */
  payToFile(args: string[], dir: string, out: string, opts?: { trapInt?: boolean }): Promise<Pane>;
}

/**
 * Panes for one test file: `vars()` is what each pane gets besides its fresh PAY_CONFIG_DIR (a
 * scratch folder named `prefix`…); `afterTest` runs after each test's panes are killed.
 */
export function ttyPanes(prefix: string, vars: () => Record<string, string>, afterTest?: () => void): TtyPanes {
  const open: Pane[] = [];
  afterEach(async () => {
    for (const p of open.splice(0)) await p.kill();
    afterTest?.();
  });
  afterAll(() => removeScratch());
  const env = (extra: Record<string, string> = {}) => ({ ...vars(), PAY_CONFIG_DIR: scratchDir(prefix), ...extra });
  const track = (p: Pane): Pane => (open.push(p), p);
  const paneOpts = ({ envOnly, ...opts }: TtyPaneOptions): PaneOptions => ({ ...opts, env: envOnly ? opts.env : env(opts.env) });
  return {
    env,
    pay: async (args, opts = {}) => track(await Pane.pay(args, paneOpts(opts))),
    start: async (argv, opts = {}) => track(await Pane.start(argv, paneOpts(opts))),
    payToFile: async (args, dir, out, opts = {}) =>
      track(
        await Pane.start(
          ['sh', '-c', `${opts.trapInt ? 'trap : INT; ' : ''}"$0" "$@" > "$OUT"; echo "EXIT:$?"`, process.execPath, PAY_BIN, ...args],
          {
            env: env({ OUT: join(dir, out) }),
            cwd: dir,
          },
        ),
      ),
  };
}

/** `get()`, through an object that can be handed out before `get()` has anything to give (at the top of a test file). */
function later<T extends object>(what: string, get: () => T | undefined): T {
  return new Proxy({} as T, {
    get: (_, key) => {
      const it = get();
      if (!it) throw new Error(`${what} is not started yet (use it inside a test or a hook)`);
      const v = Reflect.get(it, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(it) : v;
    },
  });
}

export interface TtyWorld extends TtyPanes {
  /** The emulator world (test/e2e/groups/helpers.ts), usable once the file's tests start. */
  readonly w: World;
}

export interface TtyWorldOptions {
  /** The emulator's options (startWorld's); a function to read them when it starts. */
  emulator?: EmulatorOptions | (() => EmulatorOptions);
  /** The key the panes send: the sandbox one (default) or the live one. */
  key?: 'sandbox' | 'live';
  /** More variables every pane gets (PAY_MODE, PAY_PAGER, TZ). */
  env?: Record<string, string>;
}

/** An emulator world started before the file's tests and stopped after, and panes that talk to it. */
export function ttyWorld(prefix: string, opts: TtyWorldOptions = {}): TtyWorld {
  let world: World | undefined;
  beforeAll(async () => {
    world = await startWorld(typeof opts.emulator === 'function' ? opts.emulator() : opts.emulator);
  });
  afterAll(async () => {
    await world?.stop();
  });
  const w = later('ttyWorld: the emulator', () => world);
  const panes = ttyPanes(prefix, () => ({
    PAY_BASE_URL: w.emu.baseUrl,
    PAY_API_KEY: w.emu.keys[opts.key ?? 'sandbox'].secret,
    PAY_TENANT_ID: w.emu.tenantId,
    ...opts.env,
  }));
  return { ...panes, w };
}

export interface TtyEmulator extends TtyPanes {
  /** The emulator (in this process), usable once the file's tests start. */
  readonly emu: Emulator;
}

/**
 * A bare emulator (startEmulator's `options`, port 0) started before the file's tests and stopped
 * after; its faults cleared after each test; panes with its sandbox key and `tenant` (its own by default).
 */
export function ttyEmulator(prefix: string, options: EmulatorOptions = {}, tenant?: string): TtyEmulator {
  let started: Emulator | undefined;
  beforeAll(async () => {
    started = await startEmulator({ port: 0, ...options });
  });
  afterAll(async () => {
    await started?.stop();
  });
  const emu = later('ttyEmulator: the emulator', () => started);
  const panes = ttyPanes(
    prefix,
    () => ({ PAY_BASE_URL: emu.baseUrl, PAY_API_KEY: emu.keys.sandbox.secret, PAY_TENANT_ID: tenant ?? emu.tenantId }),
    () => started?.admin.setFaults({ latencyMs: null }),
  );
  return { ...panes, emu };
}

export interface TtyServer extends TtyPanes {
  /** The recording server, usable once the file's tests start; its requests and queue emptied after each test. */
  readonly server: RecordingServer;
}

/** A recording server started before the file's tests and closed after; panes with TTY_KEY and tenant biz_1. */
export function ttyServer(prefix: string): TtyServer {
  let started: RecordingServer | undefined;
  beforeAll(async () => {
    started = await startRecordingServer();
  });
  afterAll(async () => {
    await started?.close();
  });
  const server = later('ttyServer: the recording server', () => started);
  const panes = ttyPanes(
    prefix,
    () => ({ PAY_BASE_URL: server.baseUrl, PAY_API_KEY: TTY_KEY, PAY_TENANT_ID: 'biz_1' }),
    () => {
      if (!started) return;
      started.requests.length = 0;
      started.queue.length = 0;
    },
  );
  return { ...panes, server };
}

/**
 * The items of the open list on `screen` (the lines after the active prompt line, test/tty/tmux.ts
 * activePrompt), each as `item` matches it (its first group), up to the first line it does not match.
 */
export function listAfterPrompt(screen: string, item: RegExp): string[] {
  const lines = screen.split('\n');
  const at = lines.lastIndexOf(activePrompt(screen) ?? '\u0000');
  const out: string[] = [];
  for (const line of lines.slice(at + 1)) {
    const m = item.exec(line);
    if (!m) break;
    out.push(m[1]!);
  }
  return out;
}
