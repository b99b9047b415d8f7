// What the in-process `pay seed` tests share (test/unit/seed/*.test.ts): an emulator on a free
// loopback port, a scratch folder for the seed files, pay's environment for the emulator, and a
// clock whose sleeps move the emulator's clock as far (a review is decided when the seed has
// waited for it: no real waiting).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Clock } from '../../src/lib/poll.js';

export interface SeedWorld {
  readonly emu: Emulator;
  readonly dir: string;
  /** PAY_BASE_URL, PAY_API_KEY and PAY_TENANT_ID of the emulator's sandbox. */
  env(): Record<string, string>;
  /** A fresh clock: its sleeps advance the emulator's clock as far. */
  clock(): Clock;
  /** Writes `doc` as YAML to <dir>/<name> and returns the path. */
  write(name: string, doc: unknown): string;
}

/** Starts the emulator (settleAfterMs 1000) and the folder before the file's tests; removes both after. */
export function seedWorld(prefix: string): SeedWorld {
  let emu: Emulator | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, settleAfterMs: 1000 });
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await emu?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const world: SeedWorld = {
    get emu() {
      if (!emu) throw new Error('seedWorld: the emulator is not started yet (use it inside a test)');
      return emu;
    },
    get dir() {
      if (!dir) throw new Error('seedWorld: no folder yet (use it inside a test)');
      return dir;
    },
    env: () => ({ PAY_BASE_URL: world.emu.baseUrl, PAY_API_KEY: world.emu.keys.sandbox.secret, PAY_TENANT_ID: world.emu.tenantId }),
    clock: () => {
      let t = 1_700_000_000_000;
      return {
        now: () => t,
        sleep: async (ms) => {
          t += ms;
          world.emu.admin.advance(ms / 1000);
        },
      };
    },
    write: (name, doc) => {
      const file = join(world.dir, name);
      writeFileSync(file, stringify(doc));
      return file;
    },
  };
  return world;
}

/** The NDJSON rows of a seed run, by their ref (the later of two with one ref wins). */
export function rowsByRef<R extends { ref: string }>(stdout: string, keep: (r: R) => boolean = () => true): Record<string, R> {
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as R)
      .filter(keep)
      .map((r) => [r.ref, r]),
  );
}
