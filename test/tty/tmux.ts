// Drives a command in a real pseudo-terminal: a tmux pane on a private server (its own socket,
// `tmux -S <temp dir>/…sock`, one per pane, so a user's own tmux server is never touched), a
// fixed size (120x40), and a clean environment (the server starts with nothing but PATH, HOME,
// TERM and LANG, so CI, PAY_NO_INPUT and the developer's PAY_* never reach the pane; the pane
// gets exactly the variables it is given on top).
// Keys go in with send-keys, the screen comes back with capture-pane. The pane stays on screen
// after the command ends (a shell sleeps after it, and remain-on-exit), so its last words and
// exit code can be read.
//
// tmux missing: the tests fail when CI is set (CI installs it: test/setup/ensure-tools.mjs)
// and are skipped locally, saying why.
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe } from 'vitest';
import { PAY_BIN } from '../helpers/run-pay.js';
import { until } from '../helpers/wait.js';

const execFileP = promisify(execFile);

export const REPO = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');

export function hasTool(name: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', name], { stdio: 'ignore' }).status === 0;
}

function missingMessage(tool: string): string {
  return `${tool} is not installed: the pseudo-terminal tests need it (CI installs it with test/setup/ensure-tools.mjs; locally: apt-get install -y ${tool})`;
}

/**
 * `describe` for tests that need tmux. Without tmux: under CI every test fails saying tmux is
 * missing (never a silent skip); locally the block is skipped and its title says why.
 */
export function describeTty(title: string, body: () => void): void {
  if (hasTool('tmux')) {
    describe(title, () => {
      // A pane a test replaced without killing (a second run in one test) is killed here, so no
      // tmux server outlives its test file.
      afterAll(async () => {
        for (const pane of [...alive]) await pane.kill();
      });
      body();
    });
  } else if (process.env.CI) {
    describe(title, () => {
      // Each test fails, naming the missing tool.
      beforeEach(() => {
        throw new Error(missingMessage('tmux'));
      });
      body();
    });
  } else {
    describe.skip(`${title} (skipped: ${missingMessage('tmux')})`, body);
  }
}

export interface PaneOptions {
  /** The pane's whole environment, besides PATH, HOME, TERM and LANG (which it may override). */
  env?: Record<string, string>;
  cwd?: string;
  width?: number;
  height?: number;
}

let panes = 0;
/** Panes started and not killed yet. */
const alive = new Set<Pane>();

/** Temp folders a test made (config folders, output files); removeScratch() deletes them. */
const scratch: string[] = [];
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}
export function removeScratch(): void {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export class Pane {
  private constructor(
    /** The private server's socket (inside the pane's temp folder, removed by kill()). */
    readonly socket: string,
    private readonly dir: string,
    private readonly serverEnv: Record<string, string>,
  ) {}

  /**
   * Starts `argv` in a new detached session on a private server. The pane's environment is the
   * server's clean one plus `opts.env`, set with an `env K=V … argv` wrapper; the whole command
   * goes to tmux as one shell-quoted string run by /bin/sh (works on every tmux version, where
   * `new-session -e` needs tmux 3.2 and a command given as several arguments needs 3.0).
   */
  static async start(argv: string[], opts: PaneOptions = {}): Promise<Pane> {
    const dir = mkdtempSync(join(tmpdir(), 'pay-tty-'));
    const home = join(dir, 'home');
    mkdirSync(home);
    const conf = join(dir, 'tmux.conf');
    writeFileSync(
      conf,
      ['set -g default-shell /bin/sh', 'set -g remain-on-exit on', 'set -g status off', 'set -g history-limit 5000', ''].join('\n'),
    );
    // The server (and so every pane) starts from this and nothing else: the `env -i` of the
    // test process's environment (no CI, no PAY_NO_INPUT, no PAY_* of the developer's).
    const serverEnv: Record<string, string> = {
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      // Times in tables are local: UTC unless a test sets TZ.
      TZ: 'UTC',
    };
    const socket = join(dir, `tmux-${++panes}.sock`);
    const pane = new Pane(socket, dir, serverEnv);
    alive.add(pane);
    const vars = Object.entries(opts.env ?? {}).map(([k, v]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new Error(`not a variable name: ${k}`);
      return `${k}=${v}`;
    });
    // The pane's process outlives the command: tmux discards what a pane wrote but had not yet
    // read when its process exits (tmux/tmux#506), which cut a long output and its EXIT line
    // under load. A shell that sleeps after the command keeps the pty open until kill().
    const command = ['env', ...vars, 'sh', '-c', '"$@"; exec sleep 2147483647', 'sh', ...argv].map(shellQuote).join(' ');
    await pane.tmux([
      '-f',
      conf,
      'new-session',
      '-d',
      '-s',
      'pay',
      '-x',
      String(opts.width ?? 120),
      '-y',
      String(opts.height ?? 40),
      '-c',
      opts.cwd ?? REPO,
      command,
    ]);
    return pane;
  }

  /**
   * Runs `node bin/pay.js <args>` in a pane as `sh -c '…; echo "EXIT:$?"'`: the exit code is
   * printed on the screen when pay ends.
   */
  static pay(args: string[], opts: PaneOptions = {}): Promise<Pane> {
    return Pane.start(['sh', '-c', '"$0" "$@"; echo "EXIT:$?"', process.execPath, PAY_BIN, ...args], opts);
  }

  private async tmux(args: string[]): Promise<string> {
    const { stdout } = await execFileP('tmux', ['-S', this.socket, ...args], {
      env: this.serverEnv,
      encoding: 'utf8',
      timeout: 10_000,
    });
    return stdout;
  }

  /** Types text literally (no key names). */
  async type(text: string): Promise<void> {
    await this.tmux(['send-keys', '-t', 'pay', '-l', text]);
  }

  /** Keys as tmux names them: Enter, C-c, C-u, Down, Up, BSpace. */
  async keys(...names: string[]): Promise<void> {
    await this.tmux(['send-keys', '-t', 'pay', ...names]);
  }

  /** The whole pane, scroll-back included, wrapped lines joined, trailing blank lines dropped. */
  async screen(): Promise<string> {
    const text = await this.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', 'pay']);
    return text.replace(/\s+$/, '');
  }

  /** The pane's title (what an OSC 0/2 sequence written to the terminal would change). */
  async title(): Promise<string> {
    return (await this.tmux(['display-message', '-p', '-t', 'pay', '#{pane_title}'])).replace(/\n$/, '');
  }

  /** Waits until the screen contains `what` (test/helpers/wait.ts: no timing window); returns that screen. */
  async waitFor(what: string | RegExp | ((screen: string) => boolean)): Promise<string> {
    const test = typeof what === 'string' ? (s: string) => s.includes(what) : what instanceof RegExp ? (s: string) => what.test(s) : what;
    const label = typeof what === 'function' ? 'a condition' : JSON.stringify(String(what));
    let last = '';
    return until(
      `${label} in the pane`,
      async () => {
        last = await this.screen();
        return test(last) && last;
      },
      { seen: () => last },
    );
  }

  /** Waits for the `EXIT:<code>` line; returns the code and the whole screen (for failure messages). */
  async finish(): Promise<{ code: number; screen: string }> {
    const code = await this.waitForExit();
    return { code, screen: await this.screen() };
  }

  /** Waits for the `EXIT:<code>` line and returns the code. */
  async waitForExit(): Promise<number> {
    const screen = await this.waitFor(/^EXIT:\d+$/m);
    return Number(/^EXIT:(\d+)$/m.exec(screen)![1]);
  }

  /** Waits for a prompt (a line starting `? <label>`), then types the answer and presses Enter. */
  async answer(label: string, text: string): Promise<void> {
    await this.waitForPrompt(label);
    if (text) await this.type(text);
    await this.keys('Enter');
  }

  /** Waits until the active prompt (the last line starting with "? ") begins with `label`. */
  async waitForPrompt(label: string): Promise<string> {
    return this.waitFor((s) => activePrompt(s)?.startsWith(`? ${label}`) ?? false).catch((err: Error) => {
      throw new Error(`prompt "${label}" did not appear: ${err.message}`);
    });
  }

  async kill(): Promise<void> {
    alive.delete(this);
    try {
      await this.tmux(['kill-server']);
    } catch {
      // already gone
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One word for /bin/sh, whatever it holds. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The last prompt line still waiting for an answer ("? …"), if any. */
export function activePrompt(screen: string): string | undefined {
  const lines = screen.split('\n').filter((l) => l.startsWith('? '));
  return lines[lines.length - 1];
}

/** The screen's lines up to (not including) the EXIT line, without trailing blanks. */
export function linesBeforeExit(screen: string): string[] {
  const lines = screen.split('\n').map((l) => l.trimEnd());
  const i = lines.findIndex((l) => /^EXIT:\d+$/.test(l));
  return i < 0 ? lines : lines.slice(0, i);
}
