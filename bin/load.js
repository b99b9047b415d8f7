// Loads a built bundle (dist/cli.cjs, dist/impl.cjs) as a CommonJS module, with the V8 code cache
// the build trained for it (<bundle>.cache, src/scripts/train-cache.mjs): V8 then skips parsing
// and compiling every function the cache holds, which is most of what a command runs.
//
// Nothing is compiled that is not what the build wrote, byte for byte. The build lists a CRC-32
// of each bundle in dist/checksums.txt (CHECKSUMS: `<crc> <name>` lines); a bundle is compiled
// only when its bytes have that CRC. A cache file is a header, the bundle's build id (its first
// line's `/* pay bundle <id> */`, a hash of the bundle), the bundle's CRC and the CRC of V8's data
// (8 hex digits each), then V8's data; it is handed to V8 only when the id and the bundle's CRC
// are this bundle's and V8's data has its CRC. V8 checks a cache's version, flags and source
// length, not its data: damaged data crashes the process (`Fatal error … unreachable code`, exit
// 133) or runs code that is not pay's. CRC-32 (zlib's, ≈ 0.4 ms for the ≈ 1 MB an API command
// reads, with ≈ 1 ms to load node:zlib) finds every damage of up to 32 bits in a row and any
// other but one in 4 billion: this guards against damage, not an attacker (one who can write
// dist/ can write the code). sha256 costs ≈ 3 ms more (node:crypto's load): see `pay help design`.
// A cache that is missing, stale, damaged or refused costs nothing but the compile it would have
// saved: the bundle is compiled from source as Node would (with --debug or PAY_DEBUG, one line
// says which cache was not used and why).
//
// A bundle or cache is read only when it is a regular file of a sane size (a fifo or a device
// would block, or never end). A bundle that is missing, not such a file, without its build id,
// not of the CRC dist/checksums.txt lists (or not listed there), or that does not compile is a
// damaged build: an Error of code PAY_BUILD_DAMAGED, which bin/pay.js and src/cli.ts print as one
// `error:` line, exit 1.
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
const { basename, dirname, join } = require('node:path');
const { Script } = require('node:vm');
// node:module's Module class, without loading node:module's own file (and the ES module loader it
// pulls in): a CommonJS module's constructor is that class.
const Module = module.constructor;

const HEAD = /^\/\* pay bundle ([0-9a-f]{16}) \*\//;
// Where the wrapper starts in a wrapped bundle: after the build id comment.
const HEAD_LENGTH = '/* pay bundle 0123456789abcdef */'.length;
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {\n';
const ID_BYTES = 16;
/** A cache's header: the build id, then the bundle's CRC and V8's data's, 8 hex digits each. */
const CACHE_HEAD = ID_BYTES + 16;
/** The CRC-32 of each bundle, beside them (written by the build, src/scripts/build.mjs). */
const CHECKSUMS = 'checksums.txt';
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

/** The CRC-32 of the bytes as 8 hex digits (node:zlib loaded the first time: only a bundle's load needs it). */
let zlibCrc32;
function crc(bytes) {
  zlibCrc32 ??= require('node:zlib').crc32;
  return zlibCrc32(bytes).toString(16).padStart(8, '0');
}

/** The CRC dist/checksums.txt (beside `file`) lists for the bundle at `file`: its line `<crc> <name>\n`, if there and readable. */
function listedCrc(file) {
  let list;
  try {
    list = readRegular(join(dirname(file), CHECKSUMS))?.toString('latin1');
  } catch {
    return undefined;
  }
  const at = list?.indexOf(` ${basename(file)}\n`) ?? -1;
  if (at < 8 || (at > 8 && list[at - 9] !== '\n')) return undefined;
  const sum = list.slice(at - 8, at);
  return /^[0-9a-f]{8}$/.test(sum) ? sum : undefined;
}

/** Writes dist/checksums.txt for the bundles `names` in `dir` (the build, once the bundles are written). */
function writeChecksums(dir, names) {
  writeFileSync(join(dir, CHECKSUMS), names.map((name) => `${crc(readRegular(join(dir, name)))} ${name}\n`).join(''));
}

/**
 * The cache's V8 data, when the file is a regular file made for this very bundle (its build id and
 * CRC) and its data is whole (of the CRC its header gives); else why it is not used (a string).
 */
function readCache(path, id, sum) {
  let data;
  try {
    data = readRegular(path);
  } catch (err) {
    return err?.code === 'ENOENT' ? '' : 'unreadable'; // no cache: compile from source
  }
  if (data === undefined) return 'not a regular file';
  if (data.length <= CACHE_HEAD) return 'damaged (cut short)';
  const head = data.toString('latin1', 0, CACHE_HEAD);
  if (head.slice(0, ID_BYTES) !== id || head.slice(ID_BYTES, ID_BYTES + 8) !== sum) return 'made for another build';
  const v8 = data.subarray(CACHE_HEAD);
  return crc(v8) === head.slice(ID_BYTES + 8) ? v8 : 'damaged (its CRC does not match)';
}

/** --debug or PAY_DEBUG, as src/cli.ts reads them. */
function debugging() {
  const env = process.env.PAY_DEBUG;
  return process.argv.includes('--debug', 2) || (env !== undefined && env !== '' && env !== '0');
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
  // Every byte as the build wrote it (listed beside it): a byte flipped in the middle would
  // compile, and run code that is not pay's.
  const sum = bytes === undefined ? undefined : crc(bytes);
  if (sum === undefined || sum !== listedCrc(file)) throw damaged(file);
  const source = bytes.toString('utf8');
  const id = HEAD.exec(source)?.[1];
  if (id === undefined || !source.startsWith(WRAPPER, HEAD_LENGTH)) throw damaged(file);
  let cachedData;
  /** The caches not used, and why (said with --debug). */
  const skipped = [];
  if (state.caches) {
    state.kind ??= kindOf(process.argv.slice(2));
    for (const path of [`${file}.${state.kind}.cache`, `${file}.cache`]) {
      const found = readCache(path, id, sum);
      if (typeof found !== 'string') {
        cachedData = found;
        skipped.push([path, '']);
        break;
      }
      if (found !== '') skipped.push([path, found]);
    }
  }
  let script;
  try {
    script = new Script(source, { filename: file, cachedData });
  } catch (err) {
    throw damaged(file, err); // a bundle cut short, or otherwise not what the build wrote
  }
  if (cachedData && script.cachedDataRejected) skipped.at(-1)[1] = 'refused by V8 (made by another Node.js, or with other V8 flags)';
  const mod = new Module(file, module);
  mod.filename = file;
  const cache = cachedData ? (script.cachedDataRejected ? 'refused' : 'used') : 'none';
  const entry = { module: mod, script, id, sum, cache, notUsed: skipped.filter(([, why]) => why !== '') };
  bundles.set(file, entry);
  // With --debug: one line for each cache not used (a damaged one, say), and what was compiled instead.
  if (entry.notUsed.length > 0 && debugging()) {
    const lines = entry.notUsed.map(([path, why]) => `debug: code cache ${path} not used: ${why}`);
    const instead = cache === 'used' ? `${basename(skipped.at(-1)[0])} used instead` : `${basename(file)} compiled from source`;
    process.stderr.write(`${lines.join('\n')}; ${instead}\n`);
  }
  const wrapper = script.runInThisContext();
  wrapper.call(mod.exports, mod.exports, requireFor(mod), mod, file, dirname(file));
  mod.loaded = true;
  return mod.exports;
}

/** What was loaded, whether a cache was used, and the caches not used with why (tests, the build's check). */
function loaded() {
  return [...bundles].map(([file, b]) => ({ file, cache: b.cache, notUsed: b.notUsed }));
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
    const data = b.script.createCachedData();
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${b.id}${b.sum}${crc(data)}`, 'latin1'), data]));
    renameSync(tmp, path);
  }
}

module.exports = { load, loaded, saveCaches, training, kindOf, writeChecksums, DAMAGED };
