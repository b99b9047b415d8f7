// Builds dist/ in two passes.
//
// 1. dist/cli.cjs: the start-up path as ONE CommonJS file: src/cli.ts, commander and the command
//    declarations. CommonJS because Node starts an ES module ~5 ms slower, which is most of the
//    cold-start budget (`pay --version` within 1.3x of `node -e 0`). Every `import()` in it is
//    left as an import of the built implementation under dist/impl/.
// 2. dist/impl/: every module the start-up path imports lazily, as ES modules with shared chunks;
//    undici, proper-lockfile, inquirer, chalk and yaml load only there, from node_modules.
//
// Modules both passes reach (small pure ones like spec.ts) are bundled into each; none of them
// holds state, so the copies cannot disagree.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((d) => d !== 'commander');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  external,
  sourcemap: 'linked',
  minifyWhitespace: true,
  minifySyntax: true,
  define: { __PAY_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
};

// commander requires node:child_process for stand-alone executable subcommands, which pay does
// not use; loading it costs ~3 ms of every start. Give commander an empty module instead.
const noChildProcess = {
  name: 'no-child-process-for-commander',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes(`${join('node_modules', 'commander')}`) ? { path: 'child_process', namespace: 'pay-empty' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'pay-empty' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

/** Pass 1 collects the lazily imported source files and points each import at its pass-2 output. */
const lazy = new Set();
const lazyImports = {
  name: 'lazy-imports-to-impl',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const file = resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
      lazy.add(file);
      return { path: `./impl/${relative(src, file).replace(/\.ts$/, '.js')}`, external: true };
    });
  },
};

rmSync(dist, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [join(src, 'cli.ts')],
  outfile: join(dist, 'cli.cjs'),
  format: 'cjs',
  plugins: [noChildProcess, lazyImports],
});
await build({
  ...common,
  entryPoints: [...lazy],
  outdir: join(dist, 'impl'),
  outbase: src,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  splitting: true,
});
