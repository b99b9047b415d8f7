// The V8 flags pay sets for itself, at run time, each at the one point where it applies and is
// safe. Both only change when V8 does a piece of background work, never what code computes, and
// each is set once per process. V8 reads a flag at the moment it uses it; a flag unknown to a
// V8 prints an error, so only flags every V8 of Node >= 20 knows are used. (src/scripts/
// train-cache.mjs reads FLAGS_PAY_SETS from the built bundle and puts each back to V8's default
// before it writes the code caches: V8 refuses a cache made under other flags.)
import { setFlagsFromString } from 'node:v8';
import { buildDamaged } from './errors.js';

/** Every V8 flag this file sets: the only place they are named. */
export const FLAGS_PAY_SETS = ['wasm-tiering-budget', 'semi-space-growth-factor'] as const;
const [WASM_TIERING_BUDGET, SEMI_SPACE_GROWTH_FACTOR] = FLAGS_PAY_SETS;

let heapSet = false;

/** V8's --wasm-tiering-budget (the same in the V8 of every Node >= 20). */
const TIERING_BUDGET = 1_800_000;

/**
 * Makes llhttp, undici's HTTP parser (the build's undici plugin calls this when undici compiles and
 * instantiates it, at the first connection), with a wasm tier-up budget 64 times V8's default,
 * then puts the default back. V8 compiles wasm quickly (Liftoff), then recompiles a function that
 * runs long enough with its optimising compiler on a background thread, and Node waits for that
 * compile before the process exits: for llhttp's parser ≈ 100 ms after a one-request command
 * printed its answer, a third of the command. "Long enough" is a budget ("roughly bytes executed")
 * that one page of a list used up, given to each function of an instance when it is made. 64 times
 * that keeps a command of a few requests on the quickly compiled code, while a long run (a bulk
 * create, --all over many pages) still gets the optimised parser.
 * Put back at once because V8 refuses the code cache of any script compiled while a flag differs
 * from the one it was made with: node's own built-ins too (node:crypto and its twenty modules,
 * loaded for a POST's Idempotency-Key after the first connection, were compiled from source).
 * A budget given on node's command line is left alone.
 */
export function shortLivedWasm<T>(make: () => T): T {
  if (process.execArgv.some((a) => a.startsWith(`--${WASM_TIERING_BUDGET}`))) return llhttp(make);
  setFlagsFromString(`--${WASM_TIERING_BUDGET}=${64 * TIERING_BUDGET}`);
  try {
    return llhttp(make);
  } finally {
    setFlagsFromString(`--${WASM_TIERING_BUDGET}=${TIERING_BUDGET}`);
  }
}

/**
 * llhttp made from the build's dist/llhttp*.wasm: a file missing, empty or cut short (it does not
 * compile) is a damaged build, never a network error (undici would report it as the connection's).
 */
function llhttp<T>(make: () => T): T {
  try {
    return make();
  } catch (err) {
    throw buildDamaged(err);
  }
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
  setFlagsFromString(`--${SEMI_SPACE_GROWTH_FACTOR}=1`);
}
