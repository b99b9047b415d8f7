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

function notFound(file, cause) {
  const err = new Error(`Cannot find module '${file}'`, { cause });
  err.code = 'MODULE_NOT_FOUND';
  return err;
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
  if (id) {
    try {
      const data = readFileSync(`${file}.cache`);
      if (data.length > ID_BYTES && data.toString('latin1', 0, ID_BYTES) === id) cachedData = data.subarray(ID_BYTES);
    } catch {
      // no cache (or unreadable): compile from source
    }
  }
  const wrapped = id !== undefined && source.startsWith(WRAPPER, HEAD_LENGTH);
  const script = new Script(wrapped ? source : Module.wrap(source), { filename: file, cachedData });
  const mod = new Module(file, module);
  mod.filename = file;
  const entry = { module: mod, script, id, cache: cachedData ? (script.cachedDataRejected ? 'refused' : 'used') : 'none' };
  bundles.set(file, entry);
  const wrapper = script.runInThisContext();
  wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file));
  mod.loaded = true;
  return mod.exports;
}

/** What was loaded and whether its cache was used (tests, the build's check). */
function loaded() {
  return [...bundles].map(([file, b]) => ({ file, cache: b.cache }));
}

/**
 * Writes a code cache for every bundle loaded so far, holding every function compiled in this
 * process: the build's training run calls it after running the commands it trains on. Each file
 * is written whole and renamed into place, so a reader never sees half of one.
 */
function saveCaches() {
  for (const [file, b] of bundles) {
    if (!b.id) continue;
    const tmp = `${file}.cache.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([Buffer.from(b.id, 'latin1'), b.script.createCachedData()]));
    renameSync(tmp, `${file}.cache`);
  }
}

module.exports = { load, loaded, saveCaches };
