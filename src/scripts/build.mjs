// Bundles src/cli.ts into dist/. The entry chunk holds commander and the command
// declarations only; every action's implementation is a separate chunk loaded with
// await import(), so `pay --version` and `pay --help` never load undici, conf or inquirer.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // commander is bundled into the entry (it is on every start-up path; one file loads faster
  // than its six CommonJS files); everything else stays in node_modules and loads lazily.
  external: Object.keys(pkg.dependencies).filter((d) => d !== 'commander'),
  // commander's CommonJS code requires node built-ins; give the ESM bundle a require().
  banner: { js: "import { createRequire as __payRequire } from 'node:module'; const require = __payRequire(import.meta.url);" },
  minifyWhitespace: true,
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  define: { __PAY_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
