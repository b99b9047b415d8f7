// The V8 flags pay sets for itself, at run time, each at the one point where it applies and is
// safe. Both only change when V8 does a piece of background work, never what code computes, and
// each is set once per process. V8 reads a flag at the moment it uses it; a flag unknown to a
// V8 prints an error, so only flags every V8 of Node >= 20 knows are used. (src/scripts/
// train-cache.mjs resets them before it writes the code caches: V8 refuses a cache made under
// other flags; keep its FLAGS_PAY_SETS in step with this file.)
import { setFlagsFromString } from 'node:v8';

let wasmSet = false;
let heapSet = false;

/**
 * Before the first connection (when undici compiles llhttp, its HTTP parser, to WebAssembly).
 * V8 compiles wasm quickly (Liftoff), then recompiles a function that runs long enough with its
 * optimising compiler on a background thread, and Node waits for that compile before the process
 * exits: for llhttp's parser ≈ 100 ms after a one-request command printed its answer, a third of
 * the command. "Long enough" is a budget (--wasm-tiering-budget, default 1.8 M, "roughly bytes
 * executed") that one page of a list used up. 64 times that keeps a command of a few requests on
 * the quickly compiled code, while a long run (a bulk create, --all over many pages) still gets the
 * optimised parser. It applies to wasm compiled after it: llhttp's (and jq's, with --jq).
 */
export function shortLivedWasm(): void {
  if (wasmSet) return;
  wasmSet = true;
  setFlagsFromString(`--wasm-tiering-budget=${64 * 1_800_000}`);
}

/**
 * When a bulk run (--from-file) starts. Rows stream through: each is garbage a moment after it is
 * read, yet V8 grows its young generation to two 16 MB halves by the time a run passes 100,000
 * rows, and promotes what survives the smaller collections into an old generation that grows
 * before a full collection: 97 MB at 100,000 rows and 117-156 MB at 1,000,000 (it varies with how
 * busy the machine is). A growth factor of 1 keeps the young generation at the size it has (1 MB
 * at the start): the peak stays flat (98 MB at 1,000,000 rows) at the same speed. Only for bulk
 * runs: a server or a long --all keeps V8's default. `node --max-semi-space-size` does the same
 * but cannot be set once the heap exists; this flag is read at every collection.
 */
export function streamingHeap(): void {
  if (heapSet) return;
  heapSet = true;
  setFlagsFromString('--semi-space-growth-factor=1');
}
