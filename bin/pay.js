#!/usr/bin/env node
// CommonJS on purpose (bin/package.json): the built entry is one CommonJS file, the fastest
// thing Node can start. Its lazily loaded parts are ES modules under dist/impl/.
'use strict';
try {
  require('../dist/cli.cjs');
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('cli.cjs')) {
    process.stderr.write('error: pay is not built; run: npm run build\n');
    process.exitCode = 1;
  } else {
    throw err;
  }
}
