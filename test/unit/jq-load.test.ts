// --jq when jq's WebAssembly module fails to load (a damaged jq.wasm, a WebAssembly engine that
// refuses it, an instance without what jq needs): one `error: pay's dependency jq-wasm is missing or damaged: …` line and
// exit 1, nothing sent, instead of a promise that never settles (the command hung). A later --jq in
// the same process loads jq again. The failures are injected into WebAssembly.instantiate, which
// src/io/jq.ts calls for jq-wasm; this file loads jq first, so nothing is cached before.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pay } from './commands/harness.js';

/** WebAssembly as this test uses it (the project's lib types have none). */
const Wasm = (
  globalThis as unknown as {
    WebAssembly: { instantiate(...args: unknown[]): Promise<unknown>; CompileError: new (message: string) => Error };
  }
).WebAssembly;

const CUSTOMER = { id: 'cus_0123456789abcdefghijklmn', object: 'customer', email: 'a@example.com' };
const respond = () => ({ status: 200, body: CUSTOMER });

/** The run, or 'hung' after a generous guard (a load that never settles leaves it waiting forever). */
async function settled<T>(run: Promise<T>): Promise<T | 'hung'> {
  let guard: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((r) => (guard = setTimeout(() => r('hung'), 30_000)));
  try {
    return await Promise.race([run, hung]);
  } finally {
    clearTimeout(guard);
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('--jq when jq cannot be loaded', () => {
  it('a failing instantiate (generated: rejected, or an instance jq cannot use) is exit 1 with one error line; the next --jq loads jq', async () => {
    const failures = fc.sample(
      fc.oneof(
        fc.string({ minLength: 1, maxLength: 40 }).map((m) => ({ kind: 'reject' as const, message: m })),
        fc.constant({ kind: 'empty instance' as const, message: '' }),
      ),
      { numRuns: 6, seed: 3 },
    );
    // The empty instance too, whatever the sample drew.
    failures.push({ kind: 'empty instance', message: '' });
    for (const failure of failures) {
      const spy = vi.spyOn(Wasm, 'instantiate');
      if (failure.kind === 'reject') spy.mockRejectedValueOnce(new Wasm.CompileError(failure.message));
      else spy.mockResolvedValueOnce({ instance: { exports: {} }, module: {} });
      const r = await settled(pay(['customers', 'get', 'cus_0123456789abcdefghijklmn', '--jq', '.id'], { respond }));
      expect(r, `${failure.kind}: the command never ended`).not.toBe('hung');
      const done = r as Exclude<typeof r, 'hung'>;
      expect(done.code, done.stderr).toBe(1);
      expect(done.stdout).toBe('');
      const lines = done.stderr.split('\n').filter(Boolean);
      expect(lines, done.stderr).toHaveLength(1);
      expect(lines[0]).toBe("error: pay's dependency jq-wasm is missing or damaged: reinstall pay (npm ci)");
      // The message is shown escaped: no control character reaches the terminal.
      expect(lines[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(done.requests).toEqual([]);
      spy.mockRestore();
    }
    // Nothing failing now: jq loads and runs.
    const ok = await settled(pay(['customers', 'get', 'cus_0123456789abcdefghijklmn', '--jq', '.id'], { respond }));
    expect(ok).not.toBe('hung');
    expect((ok as Exclude<typeof ok, 'hung'>).stderr).toBe('');
    expect(ok).toMatchObject({ code: 0, stdout: 'cus_0123456789abcdefghijklmn\n' });
  });
});
