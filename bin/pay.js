#!/usr/bin/env node
import('../dist/cli.js').catch((err) => {
  process.stderr.write(`error: pay is not built (${err.code ?? err.message}); run: npm run build\n`);
  process.exitCode = 1;
});
