// npm run bench: every figure is a ratio measured in one run on this machine (noisy machines
// make absolute numbers meaningless across runs). Sections: node test/bench/run.mjs [name ...]
import { existsSync } from 'node:fs';

const SECTIONS = {
  'cold-start': './cold-start.mjs',
  commands: './commands.mjs',
  emulator: './emulator.mjs',
  transactions: './transactions.mjs',
  tables: './tables.mjs',
  bulk: './bulk.mjs',
  'bulk-memory': './bulk-memory.mjs',
  completion: './completion.mjs',
};

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(SECTIONS);
let failed = false;
for (const name of names) {
  const file = SECTIONS[name];
  if (!file) {
    console.error(`unknown section ${name} (have: ${Object.keys(SECTIONS).join(', ')})`);
    process.exit(2);
  }
  if (!existsSync(new URL(file, import.meta.url))) {
    console.log(`\n## ${name}: not built yet (skipped)`);
    continue;
  }
  console.log(`\n## ${name}`);
  const mod = await import(file);
  const ok = await mod.run();
  if (ok === false) failed = true;
}
process.exitCode = failed ? 1 : 0;
