#!/usr/bin/env node
// Makes sure the programs the terminal and shell-completion tests drive are installed:
// tmux (test/tty, test/completions), zsh and fish (test/completions), jq (the README's pipelines,
// run by test/e2e/readme-blocks), man (the man pages an install ships, test/e2e/package). Run by `npm test`
// (the pretest script) before vitest.
//
// When one is missing and this runs as root with apt-get available (a fresh Debian CI machine),
// it runs `apt-get update -qq` once and `apt-get install -y -qq <missing>` non-interactively.
// Otherwise it says why it cannot install and exits 0: the tests that need the tool then fail
// under CI saying it is missing (and are skipped, saying why, outside CI).
// One line on stderr per action; stdout is left alone. No dependencies.
import { spawnSync } from 'node:child_process';

const TOOLS = ['tmux', 'zsh', 'fish', 'jq', 'man'];
// Debian package for each tool (man's is man-db).
const PACKAGES = { tmux: 'tmux', zsh: 'zsh', fish: 'fish', jq: 'jq', man: 'man-db' };

const say = (line) => process.stderr.write(`ensure-tools: ${line}\n`);

function has(tool) {
  return spawnSync('sh', ['-c', 'command -v "$1" >/dev/null 2>&1', 'sh', tool], { stdio: 'ignore' }).status === 0;
}

function run(argv) {
  say(`running: ${argv.join(' ')}`);
  const r = spawnSync(argv[0], argv.slice(1), {
    // apt's output goes to stderr: stdout belongs to the test run.
    stdio: ['ignore', 2, 2],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 15 * 60_000,
  });
  if (r.error) {
    say(`${argv[0]} failed to run: ${r.error.message}`);
    return false;
  }
  if (r.status !== 0) {
    say(`${argv.join(' ')} exited with ${r.status ?? `signal ${r.signal}`}`);
    return false;
  }
  return true;
}

function main() {
  const missing = TOOLS.filter((t) => !has(t));
  if (missing.length === 0) {
    say(`${TOOLS.join(', ')} present`);
    return;
  }
  const packages = missing.map((t) => PACKAGES[t]);
  const hint = `install them (apt-get install -y ${packages.join(' ')}); the tests that need them fail under CI and are skipped otherwise`;
  say(`missing: ${missing.join(', ')}`);

  if (process.platform !== 'linux') {
    say(`not installing: this is ${process.platform}, not Linux; ${hint}`);
    return;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
  if (uid !== 0) {
    say(`not installing: not running as root (uid ${uid}); ${hint}`);
    return;
  }
  if (!has('apt-get')) {
    say(`not installing: apt-get not found; ${hint}`);
    return;
  }
  if (!run(['apt-get', 'update', '-qq'])) {
    say('apt-get update failed; trying the install with the package lists there are');
  }
  run(['apt-get', 'install', '-y', '-qq', ...packages]);

  const still = TOOLS.filter((t) => !has(t));
  if (still.length === 0) say(`installed: ${missing.join(', ')}`);
  else say(`still missing after apt-get: ${still.join(', ')}; ${hint}`);
}

try {
  main();
} catch (err) {
  say(`unexpected problem, nothing installed: ${err instanceof Error ? err.message : String(err)}`);
}
process.exitCode = 0;
