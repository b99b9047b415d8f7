#!/usr/bin/env node
// CommonJS on purpose (bin/package.json): the built entry is one CommonJS file, the fastest
// thing Node can start, loaded with its V8 code cache by ./load.js. Its lazily loaded part is
// one more CommonJS bundle, dist/impl.cjs, loaded the same way when a command runs.
'use strict';
const { join } = require('node:path');
const cli = join(__dirname, '..', 'dist', 'cli.cjs');
try {
  require('./load.js').load(cli);
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes(cli)) {
    process.stderr.write('error: pay is not built; run: npm run build\n');
    process.exitCode = 1;
  } else {
    throw err;
  }
}
