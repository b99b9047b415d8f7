// Loads a built bundle (dist/cli.cjs, dist/impl.cjs) as a CommonJS module, with the V8 code cache
// the build trained for it (<bundle>.cache, src/scripts/train-cache.mjs): V8 then skips parsing
// and compiling every function the cache holds, which is most of what a command runs.
//
// The cache is used only when it belongs to this bundle: its first 16 bytes are the build id the
// bundle's first line carries (`/* pay bundle <id> */`, a hash of the bundle written by the
// build); V8 itself refuses a cache made by another V8 version, with other V8 flags or for a
// source of another length. A cache that is missing, stale or refused costs nothing but the
// compile it would have saved: the bundle is compiled from source as Node would.
//
// The bundles hold no import() (the build turns each into a require): a script compiled from a
// code cache has no dynamic-import callback in Node 20.
//
// The build writes each bundle already wrapped in the function Node wraps a CommonJS module in
// (WRAPPER, after the build id on the first line), so the source read is compiled as it is: no
// copy of a megabyte of text joined to the wrapper at every start. A bundle without it is wrapped
// here, as Node would.
'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');
const { Script } = require('node:vm');
// node:module's Module class, without loading node:module's own file (and the ES module loader it
// pulls in): a CommonJS module's constructor is that class.
const Module = module.constructor;

const HEAD = /^\/\* pay bundle ([0-9a-f]{16}) \*\//;
// Where the wrapper starts in a wrapped bundle: after the build id comment.
const HEAD_LENGTH = '/* pay bundle 0123456789abcdef */'.length;
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {\n';
const ID_BYTES = 16;

/** file → { module, script, id, cache: 'used' | 'refused' | 'none' } */
const bundles = new Map();

/**
 * The kind of command argv asks for, which picks the code caches: 'help' (help, --help, -h,
 * --version, -v, nothing), 'api' (pay api), else the verb (the second word: list, get, send, …).
 * A kind the build trained has caches of its own, <bundle>.<kind>.cache, holding only what
 * commands of that kind ran (V8 reads a cache whole: the less it holds, the sooner a command
 * starts); any other uses <bundle>.cache, trained on them all. A guess from the words alone (a
 * value flag written before the command can shift them): a wrong one costs speed, never the result.
 */
const VALUE_FLAGS = new Set([
  '-p',
  '--profile',
  '--api-key',
  '--tenant',
  '--base-url',
  '--timeout',
  '--max-retries',
  '--max-response-bytes',
  '-o',
  '--output',
  '--fields',
  '--jq',
  '--idempotency-key',
]);
function kindOf(argv) {
  const words = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--help' || a === '-h' || a === '--version' || a === '-v') return 'help';
    if (!a.startsWith('-') || a === '-') words.push(a);
    else if (VALUE_FLAGS.has(a)) i++;
  }
  if (words.length === 0 || words[0] === 'help') return 'help';
  if (words[0] === 'api') return 'api';
  return words[1] !== undefined && /^[a-z][a-z-]*$/.test(words[1]) ? words[1] : 'other';
}

/** The kind of this process's command (set once, from its argv), and whether caches are read at all. */
const state = { kind: undefined, caches: true };

/** The cache's V8 data, when the file exists and carries the bundle's build id. */
function readCache(path, id) {
  try {
    const data = readFileSync(path);
    return data.length > ID_BYTES && data.toString('latin1', 0, ID_BYTES) === id ? data.subarray(ID_BYTES) : undefined;
  } catch {
    return undefined; // no cache (or unreadable): compile from source
  }
}

function notFound(file, cause) {
  const err = new Error(`Cannot find module '${file}'`, { cause });
  err.code = 'MODULE_NOT_FOUND';
  return err;
}

/**
 * A bundle's require: this loader for '../bin/load.js' (how one bundle loads another's modules:
 * no path to resolve, no package.json read), node's require relative to the bundle for the rest
 * (built-ins, the packages left in node_modules).
 */
function requireFor(mod) {
  mod.paths = Module._nodeModulePaths(dirname(mod.filename));
  let full;
  const req = (id) => (id === '../bin/load.js' ? module.exports : mod.require(id));
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
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    throw err && err.code === 'ENOENT' ? notFound(file, err) : err;
  }
  const id = HEAD.exec(source)?.[1];
  let cachedData;
  if (id && state.caches) {
    state.kind ??= kindOf(process.argv.slice(2));
    cachedData = readCache(`${file}.${state.kind}.cache`, id) ?? readCache(`${file}.cache`, id);
  }
  const wrapped = id !== undefined && source.startsWith(WRAPPER, HEAD_LENGTH);
  const script = new Script(wrapped ? source : Module.wrap(source), { filename: file, cachedData });
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
    writeFileSync(tmp, Buffer.concat([Buffer.from(b.id, 'latin1'), b.script.createCachedData()]));
    renameSync(tmp, path);
  }
}

module.exports = { load, loaded, saveCaches, training, kindOf };
