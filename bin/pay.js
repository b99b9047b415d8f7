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

/** The page's bytes, when it is a regular file of a sane size (opened without blocking: a fifo is never waited on). */
function readPage(name) {
  const fd = openSync(join(dist, 'help', `${name}.txt`), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    return stats.isFile() && stats.size <= 1 << 20 ? readFileSync(fd) : undefined;
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
  } catch {
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

const page = pageOf(process.argv.slice(2));
if (page === undefined || !printPage(page)) {
  try {
    require('./load.js').load(cli);
  } catch (err) {
    // dist/cli.cjs missing, empty, cut short, not a file (bin/load.js): one line, exit 1.
    if (err && err.code === 'PAY_BUILD_DAMAGED') {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      throw err;
    }
  }
}
