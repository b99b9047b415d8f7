#!/usr/bin/env node
// CommonJS on purpose (bin/package.json): the built entry is one CommonJS file, the fastest
// thing Node can start, loaded with its V8 code cache by ./load.js. What commands run is in two
// more CommonJS bundles, dist/impl.cjs and dist/more.cjs, loaded the same way when needed.
//
// `pay [<command>…] --help` (or -h) and `pay --version` (-v) to a pipe, a file or /dev/null print the page
// the build wrote (dist/help/, src/cmdutil/help-pages.ts: what commander prints there, for every
// command of the tree) without loading the CLI. Anything else, a terminal (commander fits its
// width), a page that is not there, or a write that would block, goes through the CLI.
'use strict';
const { closeSync, constants, fstatSync, openSync, readFileSync, statSync, writeSync } = require('node:fs');
const { join } = require('node:path');
const dist = join(__dirname, '..', 'dist');
const cli = join(dist, 'cli.cjs');

/** The page argv asks for, if it is one of those: its file name (dist/help/<name>.txt). */
function pageOf(argv) {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) return '_version';
  const last = argv[argv.length - 1];
  if (last !== '--help' && last !== '-h') return undefined;
  const words = argv.slice(0, -1);
  if (words.length > 4 || !words.every((w) => /^[a-z][a-z0-9-]*$/.test(w))) return undefined;
  return words.length === 0 ? '_root' : words.join('.');
}

/** A character device other than /dev/null (a terminal, maybe). */
function mayBeTerminal(stats) {
  if (!stats.isCharacterDevice()) return false;
  try {
    return stats.rdev !== statSync('/dev/null').rdev;
  } catch {
    return true;
  }
}

/**
 * Each page the build writes starts with a head line, `pay page <bytes> <sum>`, the length of the
 * page after it and its pageSum (8 hex digits): a page empty, cut short (or longer) or with a byte
 * changed is a damaged build, not a page to print.
 */
const PAGE_HEAD = /^pay page ([0-9]{1,7}) ([0-9a-f]{8})\n/;

/**
 * A 32-bit hash of the page, over little-endian words: each step is a bijection of the state, so
 * a change within one word (a byte, or up to 4 in a row) always shows, any other but for a chance
 * in about 4 billion. src/scripts/build.mjs has the same function (keep them one). Not zlib's
 * CRC-32, as dist/checksums.txt: loading node:zlib costs ≈ 2.5 ms of CPU (`pay --version` takes
 * ≈ 35 ms), and CRC-32 in JavaScript ≈ 0.6 ms for the root page; this ≈ 0.2 ms.
 */
function pageSum(b) {
  let h = b.length;
  const end = b.length & ~3;
  for (let i = 0; i < end; i += 4) {
    h = Math.imul(h ^ (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)), 0x9e3779b1);
    h ^= h >>> 15;
  }
  for (let i = end; i < b.length; i++) {
    h = Math.imul(h ^ b[i], 0x9e3779b1);
    h ^= h >>> 15;
  }
  return h >>> 0;
}
/** Pages the build always writes: one missing is a damaged build (another's name may be no command: the CLI says). */
const ALWAYS = new Set(['_version', '_root']);
const DAMAGED = 'pay is not built or its build is damaged: run npm run build';
class Damaged extends Error {}

/**
 * The page's text, when it is a regular file of a sane size (opened without blocking: a fifo is
 * never waited on); undefined when the CLI must answer; Damaged when the page is not what the build wrote.
 */
function readPage(name) {
  let fd;
  try {
    fd = openSync(join(dist, 'help', `${name}.txt`), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if (err && err.code === 'ENOENT' && ALWAYS.has(name)) throw new Damaged(DAMAGED);
    throw err;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > 1 << 20) return undefined;
    const bytes = readFileSync(fd);
    const head = PAGE_HEAD.exec(bytes.toString('latin1', 0, 34));
    if (!head || bytes.length !== head[0].length + Number(head[1])) throw new Damaged(DAMAGED);
    const page = bytes.subarray(head[0].length);
    if (pageSum(page) !== parseInt(head[2], 16)) throw new Damaged(DAMAGED);
    return page;
  } finally {
    closeSync(fd);
  }
}

/** Prints the page; false when the CLI must answer instead (nothing written then). */
function printPage(name) {
  let bytes;
  try {
    if (mayBeTerminal(fstatSync(1))) return false;
    bytes = readPage(name);
    if (bytes === undefined) return false;
  } catch (err) {
    if (err instanceof Damaged) throw err;
    return false;
  }
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(1, bytes, done, bytes.length - done);
    } catch (err) {
      if (err && err.code === 'EPIPE') return true; // the reader went away: nothing more to say
      if (done === 0) return false;
      process.stdout.write(bytes.subarray(done)); // a pipe that would block: the stream writes the rest
      return true;
    }
  }
  return true;
}

/** One line, exit 1: the build is damaged (a bundle, bin/load.js, a help page, a package it requires). */
function reportDamaged(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = 1;
}

const page = pageOf(process.argv.slice(2));
let printed;
try {
  printed = page !== undefined && printPage(page);
} catch (err) {
  if (!(err instanceof Damaged)) throw err;
  reportDamaged(err.message);
  printed = true;
}
if (!printed) {
  // bin/load.js itself missing, empty or cut short is a damaged build too.
  let loader;
  try {
    loader = require('./load.js');
  } catch {
    loader = undefined;
  }
  if (typeof loader?.load !== 'function') reportDamaged(DAMAGED);
  else {
    try {
      loader.load(cli);
    } catch (err) {
      // dist/cli.cjs missing, empty, cut short, not a file, or a package it requires at start
      // (bin/load.js): one line, exit 1.
      if (err && err.code === 'PAY_BUILD_DAMAGED') reportDamaged(err.message);
      else throw err;
    }
  }
}
