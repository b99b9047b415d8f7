// Drives real shells for the completion tests: one-shot runs (bash -c, fish -c) and interactive
// sessions in a pseudo-terminal (tmux, one private socket per session, a clean environment).
// A missing shell fails the tests when CI is set (CI installs them: test/setup/ensure-tools.mjs)
// and skips them locally, saying why.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe } from 'vitest';
import { tempDir } from '../helpers/run-pay.js';
import { until } from '../helpers/wait.js';

export const REPO = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
export const COMPLETIONS = join(REPO, 'completions');
export const BASH_SCRIPT = join(COMPLETIONS, 'pay.bash');
export const FISH_SCRIPT = join(COMPLETIONS, 'pay.fish');
export const PROFILES = ['acme', 'default'];

export function hasTool(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/**
 * `describe` that runs when the tools exist; when one is missing it fails under CI and is
 * skipped locally (the title says why).
 */
export function describeWithTools(title: string, tools: string[], body: () => void): void {
  const missing = tools.filter((t) => !hasTool(t));
  if (missing.length === 0) {
    describe(title, body);
    return;
  }
  if (process.env.CI) {
    describe(title, () => {
      beforeAll(() => requireTools(tools));
      body();
    });
    return;
  }
  describe.skip(`${title} (skipped: ${missing.join(', ')} not installed; apt-get install -y ${missing.join(' ')})`, body);
}

/** Throws the CI failure for a missing tool (call at the start of each test or in beforeAll). */
export function requireTools(tools: string[]): void {
  const missing = tools.filter((t) => !hasTool(t));
  if (missing.length) throw new Error(`${missing.join(', ')} not installed (CI must install it: test/setup/ensure-tools.mjs)`);
}

export interface Sandbox {
  /** Folder with a `pay` that runs this checkout's bin/pay.js (put it first on PATH). */
  bin: string;
  /** PAY_CONFIG_DIR holding profiles `default` and `acme`. */
  configDir: string;
  home: string;
  /** A clean environment for the shells: nothing of the developer's. */
  env: Record<string, string>;
}

export function sandbox(): Sandbox {
  const root = tempDir('pay-completion-');
  const bin = join(root, 'bin');
  const configDir = join(root, 'config');
  const home = join(root, 'home');
  for (const d of [bin, configDir, home]) mkdirSync(d, { recursive: true });
  const pay = join(bin, 'pay');
  writeFileSync(pay, `#!/bin/sh\nexec '${process.execPath}' '${join(REPO, 'bin', 'pay.js')}' "$@"\n`);
  chmodSync(pay, 0o755);
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ current_profile: 'acme', profiles: { default: {}, acme: { tenant_id: 'biz_1' } } }));
  const env = {
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    TERM: 'xterm',
    LANG: 'C.UTF-8',
    PAY_CONFIG_DIR: configDir,
  };
  return { bin, configDir, home, env };
}

/** Calls _pay once in a non-interactive bash, as bash would on TAB, and returns COMPREPLY. */
export function bashComplete(sb: Sandbox, words: string[], script = BASH_SCRIPT): string[] {
  const program = 'source "$1" || exit 9; COMP_CWORD=$2; shift 2; COMP_WORDS=("$@"); _pay; (( ${#COMPREPLY[@]} )) && printf "%s\\n" "${COMPREPLY[@]}"; exit 0';
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', program, 'bash', script, String(words.length - 1), ...words], {
    env: sb.env,
    encoding: 'utf8',
    timeout: 15_000,
  });
  return out.split('\n').filter(Boolean);
}

/** "pay cards issue --type " → the words bash would see (a trailing blank is an empty current word). */
export function words(line: string): string[] {
  const w = line.split(/ +/);
  return w[w.length - 1] === '' ? w : w.filter(Boolean);
}

/** fish's own completion of a command line: `complete -C`, lines of `word<TAB>description`. */
export function fishComplete(sb: Sandbox, line: string, script = FISH_SCRIPT): { word: string; description: string }[] {
  const out = execFileSync('fish', ['--no-config', '-c', 'source $argv[1]; or exit 9; complete -C $argv[2]', script, line], {
    env: sb.env,
    encoding: 'utf8',
    timeout: 15_000,
  });
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [word = '', description = ''] = l.split('\t');
      return { word, description };
    });
}

let sessions = 0;

/** An interactive shell in a tmux pseudo-terminal on a private server. */
export class TmuxShell {
  private readonly socket = `pay-completion-${process.pid}-${++sessions}`;

  constructor(
    private readonly sb: Sandbox,
    command: string[],
  ) {
    const env = Object.entries(sb.env).map(([k, v]) => `${k}=${v}`);
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-x', '160', '-y', '40', 'env', '-i', ...env, ...command]);
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', timeout: 10_000, env: { ...this.sb.env, TMUX: '' } });
  }

  /** Keys as tmux send-keys names them (`Tab`, `Enter`, `C-u`); `text` is sent literally. */
  keys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', '0', ...keys]);
  }

  type(text: string): void {
    this.tmux(['send-keys', '-t', '0', '-l', text]);
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', '0']);
  }

  /** The line the cursor is on, and the cursor column. */
  cursorLine(): { text: string; x: number } {
    const [y = '0', x = '0'] = this.tmux(['display-message', '-p', '-t', '0', '#{cursor_y} #{cursor_x}']).trim().split(' ');
    const lines = this.screen().split('\n');
    return { text: lines[Number(y)] ?? '', x: Number(x) };
  }

  /** Waits until the cursor line reads `text` (trailing blanks aside) with the cursor at column `x` (default: just after it). */
  async waitForLine(text: string, x = text.length): Promise<void> {
    let last = { text: '', x: -1 };
    await this.waitFor(() => {
      last = this.cursorLine();
      return last.text.trimEnd() === text.trimEnd() && last.x === x;
    }, `the command line "${text}" (cursor at ${x})`).catch((err: Error) => {
      throw new Error(`${err.message}\nlast cursor line: ${JSON.stringify(last)}`);
    });
  }

  /** Waits until `probe` holds (test/helpers/wait.ts: no timing window); the failure shows the screen. */
  waitFor<T>(probe: () => T | undefined | false, what: string): Promise<T> {
    return until(what, probe, { seen: () => this.screen() });
  }

  /** Runs a set-up line and waits until it has finished (it prints a marker the typed line does not contain). */
  async run(line: string): Promise<void> {
    const marker = `done${sessions}x${Math.random().toString(36).slice(2, 8)}`;
    const half = Math.floor(marker.length / 2);
    this.type(`${line}; echo ${marker.slice(0, half)}''${marker.slice(half)}`);
    this.keys('Enter');
    await this.waitFor(() => this.screen().split('\n').some((l) => l.trim() === marker), `"${line}" to finish`);
    this.type('clear');
    this.keys('Enter');
    await this.waitFor(() => !this.screen().includes(marker), 'the screen to clear');
    // The prompt is drawn after the clear: keys typed before it echo ahead of it (seen under load).
    await this.waitFor(() => this.cursorLine().x > 0, 'the prompt after clear');
  }

  kill(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}
