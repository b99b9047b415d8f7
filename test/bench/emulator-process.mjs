// The benches' emulator: `pay emulator start --port 0 [args]` in a process of its own, with a
// config folder of its own (removed on stop), ready when its banner has the URL, tenant and key.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BIN = new URL('../../bin/pay.js', import.meta.url).pathname;

/** The environment without the developer's PAY_* settings, CI or colour forcing. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAY_') && k !== 'CI' && k !== 'FORCE_COLOR') env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

/** A stop function for a child: SIGTERM, resolved on exit (at once when it has exited). */
export const stopper =
  (child, after = () => {}) =>
  () =>
    new Promise((done) => {
      const finish = () => {
        after();
        done();
      };
      if (child.exitCode !== null || child.signalCode !== null) return finish();
      child.removeAllListeners('exit');
      child.once('exit', finish);
      child.kill('SIGTERM');
    });

/** Starts the emulator (of `bin`, default this checkout's); resolves {url, baseUrl, tenant, key, pid, stop}. */
export function spawnEmulator(args = [], bin = BIN) {
  return new Promise((resolve, reject) => {
    const configDir = mkdtempSync(join(tmpdir(), 'pay-bench-emu-'));
    const child = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: cleanEnv({ PAY_CONFIG_DIR: configDir }),
    });
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the emulator did not start: ${err}`));
    }, 15_000);
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}): ${err}`)));
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const url = /listening on (http:\/\/\S+)/.exec(err)?.[1];
      const tenant = /tenant id\s+(\S+)/.exec(err)?.[1];
      const key = /sandbox secret key\s+(\S+)/.exec(err)?.[1];
      if (!(url && tenant && key && err.includes('Ctrl-C'))) return;
      clearTimeout(timer);
      child.stderr.removeAllListeners('data');
      child.stderr.resume();
      child.removeAllListeners('exit');
      resolve({
        url,
        baseUrl: `${url}/v1/`,
        tenant,
        key,
        pid: child.pid,
        stop: stopper(child, () => rmSync(configDir, { recursive: true, force: true })),
      });
    });
  });
}
