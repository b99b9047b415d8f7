// npm run generate: writes the files generated from the contract (src/scripts/generated-operations.ts:
// src/commands/<group>/operations.ts, what each operation says of its verb), then those generated
// from the command tree, which reads them (src/scripts/generated.ts): src/commands/group-index.ts (the groups' heads and loaders, from their specs),
// completions/pay.bash, completions/_pay, completions/pay.fish (shipped; `pay completion <shell>`
// prints them), the help topics' strings (src/docs/topic-texts.ts, from src/docs/topics/*.md), the
// package's docs folder (src/docs/generated/*.md: the topics and the command reference) and man pages
// (src/docs/generated/man/). Tests fail when any is stale; a file in src/docs/generated/ that is no longer generated is
// removed (or named, with --check).
//   node src/scripts/generate.mjs            write the files
//   node src/scripts/generate.mjs --check    exit 1 when a file differs (write nothing)
// The generator is TypeScript: it is bundled first (esbuild, packages left external) into
// node_modules/.cache, where the bundle can import commander from this checkout.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = fileURLToPath(new URL('../../', import.meta.url));
const check = process.argv.includes('--check');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const cache = join(root, 'node_modules', '.cache', 'pay-generate');
const outfile = join(cache, `generate-${process.pid}.mjs`);

mkdirSync(cache, { recursive: true });

/** Bundles one generator entry and returns what its generatedFiles() gives. */
async function run(entry, ...args) {
  try {
    await build({
      absWorkingDir: root,
      entryPoints: [entry],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      define: { __PAY_VERSION__: JSON.stringify(pkg.version) },
      logLevel: 'warning',
    });
    const { generatedFiles } = await import(`${pathToFileURL(outfile).href}?${entry}`);
    return generatedFiles(...args);
  } finally {
    rmSync(outfile, { force: true });
  }
}

let stale = 0;
/** Writes (or, with --check, compares) each file. */
function write(generated) {
  for (const w of generated.warnings) process.stderr.write(`warning: ${w}\n`);
  for (const [name, text] of Object.entries(generated.files)) {
    const file = join(root, name);
    let old;
    try {
      old = readFileSync(file, 'utf8');
    } catch {
      old = undefined;
    }
    if (old === text) continue;
    stale++;
    if (check) process.stderr.write(`${name} is out of date\n`);
    else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      process.stderr.write(`wrote ${name}\n`);
    }
  }
}

write(await run('src/scripts/generated-operations.ts'));
const topicsDir = join(root, 'src', 'docs', 'topics');
const topics = {};
for (const f of readdirSync(topicsDir)) if (f.endsWith('.md')) topics[f.slice(0, -3)] = readFileSync(join(topicsDir, f), 'utf8');
const fromTree = await run('src/scripts/generated.ts', topics, pkg.version);
write(fromTree);
// src/docs/generated/ holds generated files only: one no longer generated is stale.
for (const dir of ['src/docs/generated', 'src/docs/generated/man']) {
  let names;
  try {
    names = readdirSync(join(root, dir), { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => `${dir}/${e.name}`);
  } catch {
    names = [];
  }
  for (const name of names) {
    if (name in fromTree.files) continue;
    stale++;
    if (check) process.stderr.write(`${name} is no longer generated\n`);
    else {
      rmSync(join(root, name));
      process.stderr.write(`removed ${name}\n`);
    }
  }
}
if (check && stale) {
  process.stderr.write('run: npm run generate\n');
  process.exitCode = 1;
} else if (!stale) process.stderr.write('generated files are up to date\n');
