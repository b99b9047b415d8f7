// npm run completions: writes completions/pay.bash, completions/_pay and completions/pay.fish
// from the command tree (src/program.ts → src/completion/). The files are committed and shipped;
// `pay completion <shell>` prints them. test/completions/drift.test.ts fails when they are stale.
//   node src/scripts/gen-completions.mjs            write the files
//   node src/scripts/gen-completions.mjs --check    exit 1 when a file differs (write nothing)
// The generator is TypeScript: it is bundled first (esbuild, packages left external) into
// node_modules/.cache, where the bundle can import commander from this checkout.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../../', import.meta.url));
const check = process.argv.includes('--check');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const cache = join(root, 'node_modules', '.cache', 'pay-gen-completions');
const outfile = join(cache, `generate-${process.pid}.mjs`);

mkdirSync(cache, { recursive: true });
let generated;
try {
  await build({
    absWorkingDir: root,
    entryPoints: ['src/completion/generate.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    define: { __PAY_VERSION__: JSON.stringify(pkg.version) },
    logLevel: 'warning',
  });
  const { generateCompletions } = await import(pathToFileURL(outfile).href);
  generated = generateCompletions();
} finally {
  rmSync(outfile, { force: true });
}

for (const w of generated.model.warnings) process.stderr.write(`warning: ${w}\n`);
const dir = join(root, 'completions');
mkdirSync(dir, { recursive: true });
let stale = 0;
for (const [name, text] of Object.entries(generated.files)) {
  const file = join(dir, name);
  let old;
  try {
    old = readFileSync(file, 'utf8');
  } catch {
    old = undefined;
  }
  if (old === text) continue;
  stale++;
  if (check) process.stderr.write(`completions/${name} is out of date\n`);
  else {
    writeFileSync(file, text);
    process.stderr.write(`wrote completions/${name}\n`);
  }
}
if (check && stale) {
  process.stderr.write('run: npm run completions\n');
  process.exitCode = 1;
} else if (!stale) process.stderr.write(`completions/ is up to date (${generated.model.commands.length} commands)\n`);
