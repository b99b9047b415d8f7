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
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  define: { __PAY_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
