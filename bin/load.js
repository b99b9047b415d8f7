// Loads a built bundle (dist/cli.cjs, dist/impl.cjs) as a CommonJS module, with the V8 code cache
// the build trained for it (<bundle>.cache, src/scripts/train-cache.mjs): V8 then skips parsing
// and compiling every function the cache holds, which is most of what a command runs.
//
// The cache is used only when it was made for this very bundle: a cache file is the build id the
// bundle's first line carries (`/* pay bundle <id> */`, a hash of the bundle written by the
// build), then the bundle's bytes it was made from, then V8's data; the bytes are compared with
// the bundle's, whole (a memcmp: ≈ 0.03 ms for dist/impl.cjs, where hashing it would load
// node:crypto or node:zlib, ≈ 2 ms). V8 itself refuses a cache made by another V8 version, with
// other V8 flags or for a source of another length, but takes one made for a source of the same
// length: its functions would then run the old code, or parse the new text at the old positions.
// A cache that is missing, stale or refused costs nothing but the compile it would have saved:
// the bundle is compiled from source as Node would.
//
// A bundle or cache is read only when it is a regular file of a sane size (a fifo or a device
// would block, or never end). A bundle that is missing, not such a file, without its build id, or
// that does not compile (cut short) is a damaged build: an Error of code PAY_BUILD_DAMAGED, which
// bin/pay.js and src/cli.ts print as one `error:` line, exit 1.
//
// The bundles hold no import() (the build turns each into a require): a script compiled from a
// code cache has no dynamic-import callback in Node 20.
//
// The build writes each bundle already wrapped in the function Node wraps a CommonJS module in
// (WRAPPER, after the build id on the first line), so the source read is compiled as it is: no
// copy of a megabyte of text joined to the wrapper at every start. A bundle without it is not
// one the build wrote (damaged).
'use strict';
const { closeSync, constants, fstatSync, openSync, readSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');
// node:module's Module class, without loading node:module's own file (and the ES module loader it
// pulls in): a CommonJS module's constructor is that class.
const Module = module.constructor;

const HEAD = /^\/\* pay bundle ([0-9a-f]{16}) \*\//;
// Where the wrapper starts in a wrapped bundle: after the build id comment.
const HEAD_LENGTH = '/* pay bundle 0123456789abcdef */'.length;
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {\n';
const ID_BYTES = 16;
/** Larger than any bundle or cache the build writes (dist/more.cjs ≈ 0.7 MB): anything bigger is not one. */
const MAX_BYTES = 64 * 1024 * 1024;

/** file → { module, script, id, cache: 'used' | 'refused' | 'none' } */
const bundles = new Map();

let valueFlags;
/**
 * Whether `flag` takes a value (-p, --base-url, -o, --jq, …): the build writes their names, from
 * the one declaration of the global flags (src/cmdutil/global-flags.json), to
 * dist/value-flags.json; read when a flag comes before the command's words. Unreadable: none.
 */
function takesValue(flag) {
  if (valueFlags === undefined) {
    try {
      const names = JSON.parse(readRegular(join(__dirname, '..', 'dist', 'value-flags.json')).toString('latin1'));
      valueFlags = new Set(Array.isArray(names) ? names : []);
    } catch {
      valueFlags = new Set(); // none (a damaged build, which loading the bundle reports): a guess without them
    }
  }
  return valueFlags.has(flag);
}

/**
 * The kind of command argv asks for, which picks the code caches: 'help' (help, --help, -h,
 * --version, -v, nothing), 'api' (pay api), else the verb (the second word: list, get, send, …).
 * A kind the build trained has caches of its own, <bundle>.<kind>.cache, holding only what
 * commands of that kind ran (V8 reads a cache whole: the less it holds, the sooner a command
 * starts); any other uses <bundle>.cache, trained on them all. A guess from the words alone (a
 * value flag written before the command can shift them): a wrong one costs speed, never the result.
 */
function kindOf(argv) {
  const words = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--help' || a === '-h' || a === '--version' || a === '-v') return 'help';
    if (!a.startsWith('-') || a === '-') words.push(a);
    else if (takesValue(a)) i++;
  }
  if (words.length === 0 || words[0] === 'help') return 'help';
  if (words[0] === 'api') return 'api';
  return words[1] !== undefined && /^[a-z][a-z-]*$/.test(words[1]) ? words[1] : 'other';
}

/** The kind of this process's command (set once, from its argv), and whether caches are read at all. */
const state = { kind: undefined, caches: true };

/**
 * The bytes of the file at `path` when it is a regular file of at most MAX_BYTES, else undefined
 * (opened without blocking, so a fifo is seen for what it is, never waited on). Throws what
 * opening or reading throws (ENOENT, EACCES, …).
 */
function readRegular(path) {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_BYTES) return undefined;
    const bytes = Buffer.allocUnsafe(stats.size);
    let done = 0;
    for (let n; done < bytes.length && (n = readSync(fd, bytes, done, bytes.length - done, done)) > 0;) done += n;
    return done === bytes.length ? bytes : bytes.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/** The cache's V8 data, when the file is a regular file made for exactly these bundle bytes (its build id, then them). */
function readCache(path, id, bundle) {
  let data;
  try {
    data = readRegular(path);
  } catch {
    return undefined; // no cache (or unreadable): compile from source
  }
  const start = ID_BYTES + bundle.length;
  if (data === undefined || data.length <= start || data.toString('latin1', 0, ID_BYTES) !== id) return undefined;
  return data.subarray(ID_BYTES, start).equals(bundle) ? data.subarray(start) : undefined;
}

const DAMAGED = 'pay is not built or its build is damaged: run npm run build';
function damaged(file, cause) {
  return Object.assign(new Error(DAMAGED, { cause }), { code: 'PAY_BUILD_DAMAGED', file });
}

/**
 * A package left in node_modules (jq-wasm, yaml, …) that will not load: missing, or a file of it
 * missing or cut short. Named, with how to get it back; bin/pay.js and src/cli.ts print it as one
 * `error:` line, exit 1 (src/lib/errors.ts makes the same for what fails later, jq's WebAssembly).
 */
function dependencyDamaged(id, cause) {
  const name = /^(@[^/]+\/)?[^/]+/.exec(id)?.[0] ?? id;
  return Object.assign(new Error(`pay's dependency ${name} is missing or damaged: reinstall pay (npm ci)`, { cause }), {
    code: 'PAY_BUILD_DAMAGED',
  });
}

/** An exports object with no names, or a name that holds nothing. */
function isHollow(exports) {
  const names = Object.keys(exports);
  return names.length === 0 || names.some((name) => exports[name] === undefined);
}

/**
 * A bundle's require: this loader for '../bin/load.js' (how one bundle loads another's modules:
 * no path to resolve, no package.json read), node's require relative to the bundle for the rest
 * (built-ins, the packages left in node_modules: one that fails to load is a damaged install).
 */
function requireFor(mod) {
  mod.paths = Module._nodeModulePaths(dirname(mod.filename));
  let full;
  const req = (id) => {
    if (id === '../bin/load.js') return module.exports;
    if (Module.isBuiltin(id)) return mod.require(id);
    let exports;
    try {
      exports = mod.require(id);
    } catch (err) {
      throw dependencyDamaged(id, err);
    }
    // A package's main file emptied loads as nothing, and one that re-exports from a file emptied
    // has holes: every package pay loads exports something, and nothing undefined.
    if (exports === null || (typeof exports === 'object' && isHollow(exports))) throw dependencyDamaged(id);
    return exports;
  };
  // What Module.createRequire's function has besides calling: made when something asks.
  for (const key of ['resolve', 'cache', 'main', 'extensions']) {
    Object.defineProperty(req, key, { get: () => (full ??= Module.createRequire(mod.filename))[key], enumerable: true });
  }
  return req;
}

/** The exports of the bundle at `file` (an absolute path), loaded once per process. */
function load(file) {
  const known = bundles.get(file);
  if (known) return known.module.exports;
  let bytes;
  try {
    bytes = readRegular(file);
  } catch (err) {
    throw damaged(file, err);
  }
  const source = bytes?.toString('utf8');
  const id = source === undefined ? undefined : HEAD.exec(source)?.[1];
  if (id === undefined || !source.startsWith(WRAPPER, HEAD_LENGTH)) throw damaged(file);
  let cachedData;
  if (state.caches) {
    state.kind ??= kindOf(process.argv.slice(2));
    cachedData = readCache(`${file}.${state.kind}.cache`, id, bytes) ?? readCache(`${file}.cache`, id, bytes);
  }
  let script;
  try {
    script = new Script(source, { filename: file, cachedData });
  } catch (err) {
    throw damaged(file, err); // a bundle cut short, or otherwise not what the build wrote
  }
  const mod = new Module(file, module);
  mod.filename = file;
  const entry = { module: mod, script, id, cache: cachedData ? (script.cachedDataRejected ? 'refused' : 'used') : 'none' };
  bundles.set(file, entry);
  const wrapper = script.runInThisContext();
  wrapper.call(mod.exports, mod.exports, requireFor(mod), mod, file, dirname(file));
  mod.loaded = true;
  return mod.exports;
}

/** What was loaded and whether its cache was used (tests, the build's check). */
function loaded() {
  return [...bundles].map(([file, b]) => ({ file, cache: b.cache }));
}

/**
 * The build's training run: bundles load from source (a cache read would put into the new one
 * functions this process never ran).
 */
function training() {
  state.caches = false;
}

/**
 * Writes a code cache for every bundle loaded so far, holding every function compiled in this
 * process: the build's training run calls it after running the commands it trains on, with the
 * kind they are (<bundle>.<kind>.cache) or none (<bundle>.cache). Each file is written whole and
 * renamed into place, so a reader never sees half of one.
 */
function saveCaches(kind) {
  for (const [file, b] of bundles) {
    if (!b.id) continue;
    const path = kind === undefined ? `${file}.cache` : `${file}.${kind}.cache`;
    const tmp = `${path}.${process.pid}.tmp`;
    // The bytes loaded (the file as its build id says it was: the build writes nothing between).
    const bundle = readRegular(file);
    if (bundle === undefined || HEAD.exec(bundle.toString('latin1', 0, HEAD_LENGTH))?.[1] !== b.id) throw damaged(file);
    writeFileSync(tmp, Buffer.concat([Buffer.from(b.id, 'latin1'), bundle, b.script.createCachedData()]));
    renameSync(tmp, path);
  }
}

module.exports = { load, loaded, saveCaches, training, kindOf, DAMAGED };
