// Builds dist/ in two passes, then trains the bundles' V8 code caches.
//
// 1. dist/cli.cjs: the start-up path as ONE CommonJS file: src/cli.ts, commander, the command
//    declarations, and the groups' specs (src/commands/<group>/index.ts, data that `pay <group>
//    --help` needs), each spec evaluated only when argv names its group. CommonJS because Node
//    starts an ES module ~5 ms slower. Every other import() in it becomes a require of dist/impl.cjs.
// 2. dist/impl.cjs: every module the start-up path imports lazily, as ONE CommonJS bundle in which
//    each module is evaluated the first time something imports it (esbuild's lazy module
//    wrappers), so a command pays only for the modules it uses; one file instead of ES module
//    chunks saves the ES loader's per-file resolution, and lets one code cache cover it all.
//    Bundled into it: undici's Agent and request API only (`undici` is aliased to them: the index
//    loads ~110 files, fetch, WebSocket and caches pay never uses, ≈ 60 ms), chalk.
//    Left in node_modules, loaded only when a command needs them: @inquirer/prompts (prompts),
//    jq-wasm (--jq; it reads its .wasm file from its folder) and yaml (--yaml, seed files). Every
//    import() in it becomes a require(): see bin/load.js.
// 3. dist/<bundle>.cache: V8 code caches, written by src/scripts/train-cache.mjs after running a
//    few commands in one process against a stub service; bin/load.js loads each bundle with its
//    cache. Each bundle's first line carries a hash of the bundle, which its cache repeats, and
//    dist/checksums.txt its CRC-32, which its cache repeats too, with the CRC of V8's data.
//
// Each module is in one bundle only: a module of dist/cli.cjs that a pass-2 module imports (the
// group specs, spec.ts, the domain tables) is a require of it from dist/cli.cjs's registry, as one
// of dist/impl.cjs is from dist/more.cjs (one instance of each, one copy to load and cache).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { undiciRefusal } from './undici-version.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** Left in node_modules (see above); every other dependency is bundled where it is used. */
const EXTERNAL = ['@inquirer/prompts', 'jq-wasm', 'yaml'];
for (const d of EXTERNAL) if (!(d in pkg.dependencies)) throw new Error(`build: ${d} is not a dependency`);
// undici is patched as it is bundled (patchUndici): only a version the patches were written for.
{
  const refusal = undiciRefusal(JSON.parse(readFileSync(join(root, 'node_modules', 'undici', 'package.json'), 'utf8')).version);
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    process.exit(1);
  }
}
/** Replaced by a hash of the bundle once it is built (same length, so the source map still fits). */
const PLACEHOLDER = '0'.repeat(16);
const BANNER = `/* pay bundle ${PLACEHOLDER} */`;
/** What bin/load.js finds after the banner of a wrapped bundle (its WRAPPER). */
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {\n';
/**
 * A command's declaration (src/commands/<name>/index.ts): data the start-up bundle holds. Keep in
 * step with DECLARATION in test/unit/architecture.test.ts, which holds them to the start-up rules.
 */
const DECLARATION = /^commands\/[^/]+\/index\.ts$/;

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  minifyWhitespace: true,
  minifySyntax: true,
  define: { __PAY_VERSION__: JSON.stringify(pkg.version) },
  banner: { js: BANNER },
  // Licence comments of bundled packages go to <bundle>.LEGAL.txt: one non-ASCII character in a
  // bundle makes V8 hold all of its source as two bytes per character.
  legalComments: 'external',
  metafile: true,
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

/** A module that stands for `key` of another bundle: its exports, loaded through bin/load.js. */
function stub(bundle, key) {
  return `module.exports = require('../bin/load.js').load(require('node:path').join(__dirname, ${JSON.stringify(bundle)})).load(${JSON.stringify(key)});`;
}

/**
 * Pass 1: an import() of a declaration stays in the bundle (evaluated when first imported); any
 * other import() of pay's own modules becomes a require of that module from the bundle of pass 2
 * that holds it, through bin/load.js (the same loader, and so the same module instances, as
 * everything else).
 */
const lazy = new Set();
const lazyImports = {
  name: 'lazy-imports-to-impl',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import' || args.namespace !== 'file') return undefined;
      const file = resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
      const key = relative(src, file).split('\\').join('/');
      // A declaration, or a module the bundle holds anyway (imported statically too): stays here.
      if (DECLARATION.test(key) || owners.get(`src/${key}`) === CLI) return undefined;
      lazy.add(key.replace(/\.ts$/, ''));
      return { path: key.replace(/\.ts$/, ''), namespace: 'pay-impl' };
    });
    b.onLoad({ filter: /.*/, namespace: 'pay-impl' }, (args) => ({
      // (Before pass 2 is planned, pass 1 runs once only to list what it loads lazily.)
      contents: owners.size === 0 ? 'module.exports = {};' : stub(bundleOf(`src/${args.path}.ts`), args.path),
      loader: 'js',
      resolveDir: dist,
    }));
    b.onResolve({ filter: /^\.\.\/bin\/load\.js$/ }, () => ({ path: '../bin/load.js', external: true }));
  },
};

/** llhttp's WebAssembly files the bundle reads (name in dist → undici's module holding them). */
const wasmFiles = new Map();

/** Replaces text in one of undici's files as it is bundled; the build fails if a text is no longer there. */
function patchUndici(b, file, replacements) {
  const filter = new RegExp(
    `[\\\\/]node_modules[\\\\/]undici[\\\\/]lib[\\\\/]${file.replace(/[/.]/g, (c) => (c === '/' ? '[\\\\/]' : '\\.'))}$`,
  );
  b.onLoad({ filter }, (args) => {
    let text = readFileSync(args.path, 'utf8');
    for (const [from, to] of replacements) {
      if (!text.includes(from)) throw new Error(`build: ${args.path} no longer holds "${from}": update the build's undici plugin`);
      text = text.replace(from, to);
    }
    return { contents: text, loader: 'js' };
  });
}

/**
 * Pass 2: `undici` is its Agent and the request() API on it: what src/api/client.ts uses. An ES
 * module, so that importing any other name from 'undici' fails the build instead of being undefined.
 */
const undiciAgent = {
  name: 'undici-agent-only',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.startsWith(src) || args.importer === '<stdin>' ? { path: 'undici', namespace: 'pay-undici' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'pay-undici' }, () => ({
      contents: [
        "import Agent from 'undici/lib/dispatcher/agent.js';",
        "import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';",
        "import request from 'undici/lib/api/api-request.js';",
        // What undici's index does for every dispatcher (Object.assign(Dispatcher.prototype, api)), for request only.
        'Dispatcher.prototype.request = request;',
        'export { Agent };',
      ].join('\n'),
      loader: 'js',
      resolveDir: root,
    }));
    // dispatcher/client.js: the HTTP/2 client loads node:http2 (and with it node:tls), ≈ 7 ms, at
    // start; pay speaks HTTP/1.1 (undici uses HTTP/2 only when allowH2 is set): load it when a
    // connection needs it. node:http (with its server, client and agent, ≈ 4 M instructions) is
    // loaded for one number, the default maxHeaderSize: Node's --max-http-header-size, 16 KiB
    // unless given on the command line (NODE_OPTIONS or node's own arguments), which then loads it.
    patchUndici(b, 'dispatcher/client.js', [
      ["const connectH2 = require('./client-h2.js')", "let h2; const connectH2 = (...a) => (h2 ??= require('./client-h2.js'))(...a)"],
      [
        "const http = require('node:http')",
        "const http = { get maxHeaderSize () { return process.execArgv.length === 0 && !process.env.NODE_OPTIONS ? 16384 : require('node:http').maxHeaderSize } }",
      ],
    ]);
    // core/util.js loads node:http for one check in destroy(): is the stream an IncomingMessage
    // (node:http's server or client side)? Only a constructor of that name can be one, and only
    // then is node:http loaded to compare.
    patchUndici(b, 'core/util.js', [
      ["const { IncomingMessage } = require('node:http')\n", ''],
      [
        'if (Object.getPrototypeOf(stream).constructor === IncomingMessage) {',
        "if (Object.getPrototypeOf(stream).constructor?.name === 'IncomingMessage' && Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage) {",
      ],
    ]);
    // dispatcher/client-h1.js: llhttp, undici's HTTP parser, is compiled and instantiated the
    // first time a connection opens, through src/lib/v8-flags.ts (shortLivedWasm: V8's wasm
    // tier-up budget raised for this instance only, then put back).
    patchUndici(b, 'dispatcher/client-h1.js', [
      [
        'function lazyllhttp () {',
        `function lazyllhttp () { return require(${JSON.stringify(join(src, 'lib', 'v8-flags.ts'))}).shortLivedWasm(makeLlhttp) }\nfunction makeLlhttp () {`,
      ],
      // undici falls back to llhttp without SIMD when the SIMD one does not compile; a file of the
      // build missing or cut short (its reader below) is no reason to: it is a damaged build.
      [
        "mod = new WebAssembly.Module(require('../llhttp/llhttp_simd-wasm.js'))\n    } catch {\n    }",
        "mod = new WebAssembly.Module(require('../llhttp/llhttp_simd-wasm.js'))\n    } catch (err) {\n      if (err && err.code === 'PAY_BUILD_DAMAGED') throw err\n    }",
      ],
    ]);
    // llhttp as WebAssembly bytes in files of their own (dist/<name>.wasm, written below), read
    // when a connection needs the parser, instead of base64 text in the bundle: read, kept in the
    // code cache and decoded at every start. A file missing, or of another length than the build
    // wrote (empty, cut short), is a damaged build (src/lib/v8-flags.ts reports it), not a parser
    // to compile.
    b.onLoad({ filter: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]llhttp[\\/]llhttp(_simd)?-wasm\.js$/ }, (args) => {
      const name = args.path.endsWith('_simd-wasm.js') ? 'llhttp_simd.wasm' : 'llhttp.wasm';
      wasmFiles.set(name, args.path);
      const size = createRequire(import.meta.url)(args.path).length;
      return {
        contents: [
          "'use strict'",
          'let bytes',
          `const damaged = (cause) => Object.assign(new Error('dist/${name} is missing or damaged', { cause }), { code: 'PAY_BUILD_DAMAGED' })`,
          'function read () {',
          '  let b',
          `  try { b = require('node:fs').readFileSync(require('node:path').join(__dirname, ${JSON.stringify(name)})) } catch (err) { throw damaged(err) }`,
          `  if (b.length !== ${size}) throw damaged()`,
          '  return b',
          '}',
          "Object.defineProperty(module, 'exports', { get: () => (bytes ??= read()) })",
        ].join('\n'),
        loader: 'js',
      };
    });
    // undici calls node:assert as assert(condition) only (its internal invariants); node:assert
    // costs ≈ 1.5 ms to load. The same check, throwing an Error with assert's code.
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: 'assert', namespace: 'pay-assert' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'pay-assert' }, () => ({
      contents: [
        'module.exports = function assert(value, message) {',
        '  if (value) return;',
        '  if (message instanceof Error) throw message;',
        "  throw Object.assign(new Error(message === undefined ? 'undici: an internal check failed' : String(message)), { code: 'ERR_ASSERTION' });",
        '};',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * Pass 2: pay's modules get src/scripts/chalk.mjs for 'chalk': chalk loads the first time a colour
 * is asked for (its colour detection loads node:os and node:tty; its tables of styles are built
 * at load), not when a printer is made for plain text.
 */
const lazyChalk = {
  name: 'chalk-when-coloured',
  setup(b) {
    const facade = join(src, 'scripts', 'chalk.mjs');
    b.onResolve({ filter: /^chalk$/ }, (args) =>
      args.importer.startsWith(src) && args.importer !== facade ? { path: facade } : undefined,
    );
  },
};

/**
 * Pass 2: import() of a package or a built-in becomes a require() (then() keeps it asynchronous):
 * a script compiled from a V8 code cache cannot import() in Node 20 (bin/load.js).
 */
const requireNotImport = {
  name: 'import-to-require',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: args.path, namespace: 'pay-require', pluginData: args.resolveDir } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'pay-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};

/**
 * Wraps the bundle in the function Node wraps a CommonJS module in (bin/load.js compiles the text
 * as it is read), then writes the bundle's hash over the placeholder in its first line. The
 * wrapper opens on the banner's line and closes before the source map's comment, so no line of
 * the code moves and the source map still fits.
 */
function wrapAndStamp(file) {
  let text = readFileSync(file, 'utf8');
  if (!text.startsWith(`${BANNER}\n`)) throw new Error(`build: ${file} does not start with its banner`);
  const mapComment = text.lastIndexOf('\n//# sourceMappingURL=');
  if (mapComment < 0) throw new Error(`build: ${file} has no source map comment`);
  text = `${BANNER}${WRAPPER}${text.slice(BANNER.length + 1, mapComment + 1)}});${text.slice(mapComment)}`;
  const wide = /[^\x00-\x7f]/.exec(text);
  if (wide) throw new Error(`build: ${file} holds a non-ASCII character (${JSON.stringify(text.slice(wide.index - 40, wide.index + 10))})`);
  const id = createHash('sha256').update(text).digest('hex').slice(0, PLACEHOLDER.length);
  writeFileSync(file, text.replace(PLACEHOLDER, id));
}

/** No import() may be left in a bundle (bin/load.js), and cli.cjs requires only built-ins and the loader. */
function check(result, file) {
  const out = result.metafile.outputs[relative(root, file).split('\\').join('/')];
  if (!out) throw new Error(`build: no metafile entry for ${file}`);
  const dynamic = out.imports.filter((i) => i.kind === 'dynamic-import');
  if (dynamic.length) throw new Error(`build: ${file} still imports ${dynamic.map((i) => i.path).join(', ')} with import()`);
}

/**
 * Pass 2 puts every lazily loaded module in one of two bundles, each module in exactly one (so
 * one instance of each, whichever bundle imports it): dist/impl.cjs holds what an API command
 * runs, CORE and what it imports (statically, transitively); dist/more.cjs the rest (the
 * emulator, seed, trigger, the contract, jq, bulk runs, prompts, …). A command that needs nothing
 * of more.cjs never reads it, nor its code cache. An import that crosses from one bundle to the
 * other is a require of the module from the other bundle's registry (stub()), like pass 1's.
 */
const CORE = [
  'cmdutil/dispatch',
  'cmdutil/factory',
  'lib/errors',
  'lib/handle-error',
  'verbs/run',
  'api/client',
  'io/output',
  'commands/api/run',
];
/**
 * Parts of undici its HTTP/1.1 Agent requires only inside functions pay's requests never call
 * (fetch's bodies, HTTP/2). Matched anywhere in the input's name: where node_modules is a link
 * (a worktree, a linked install) esbuild names the real file, `../…/node_modules/undici/…`.
 */
const NOT_CORE = /(?:^|\/)node_modules\/undici\/lib\/(web\/|dispatcher\/client-h2\.js$)/;
/** Modules each bundle holds its own copy of: stateless (a package's require, the assert stand-in, the build's stand-ins in src/scripts/: the bundle's URL, chalk's Chalk). */
const COPIED = /^(pay-require:|pay-assert:|pay-empty:|src\/scripts\/)/;
const IMPL = 'impl.cjs';
const MORE = 'more.cjs';
const CLI = 'cli.cjs';

/** A metafile input's name for an esbuild resolve result: `src/x.ts`, `node_modules/…`, `<namespace>:<path>`. */
const inputOf = (r) => (r.namespace === 'file' ? relative(root, r.path).split('\\').join('/') : `${r.namespace}:${r.path}`);
/** A module's key in its bundle's registry: pay's by their path under src/ (`cmdutil/dispatch`), the others by input name. */
const keyOf = (input) => (input.startsWith('src/') ? input.slice(4).replace(/\.(ts|mjs|js)$/, '') : input);
/** input name → the bundle holding it (none for COPIED modules); filled when pass 2 is planned. */
const owners = new Map();
function bundleOf(input) {
  const owner = owners.get(input);
  if (!owner) throw new Error(`build: no bundle holds ${input}`);
  return owner;
}

/** Pass 2, one bundle: an import of a module the other bundle holds becomes stub(). */
function crossBundle(bundle) {
  return {
    name: 'cross-bundle',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.crossBundle || args.kind === 'entry-point') return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          namespace: args.namespace,
          resolveDir: args.resolveDir,
          pluginData: { crossBundle: true },
        });
        if (r.errors.length > 0 || r.external) return undefined;
        const owner = owners.get(inputOf(r));
        if (owner === undefined || owner === bundle) return undefined;
        // Found here, not when a command runs: a stub of a module its bundle's registry lacks.
        if (!exported.get(owner).has(inputOf(r)))
          throw new Error(`build: ${bundle} imports ${inputOf(r)}, which dist/${owner} does not export`);
        return { path: keyOf(inputOf(r)), namespace: 'pay-bundle', pluginData: owner };
      });
      b.onLoad({ filter: /.*/, namespace: 'pay-bundle' }, (args) => ({
        contents: stub(args.pluginData, args.path),
        loader: 'js',
        resolveDir: dist,
      }));
      b.onResolve({ filter: /^\.\.\/bin\/load\.js$/ }, () => ({ path: '../bin/load.js', external: true }));
    },
  };
}

/**
 * A bundle's registry: each module another bundle loads from it, by key, evaluated on first load.
 * dist/cli.cjs's is its entry: src/cli.ts's exports, and the registry's load().
 */
function registry(bundle, inputs) {
  const spec = (input) => (input.startsWith('src/') ? `./${input.slice(4)}` : input === 'pay-undici:undici' ? 'undici' : join(root, input));
  return {
    contents: [
      'const modules = {',
      ...[...inputs].sort().map((input) => `  ${JSON.stringify(keyOf(input))}: () => require(${JSON.stringify(spec(input))}),`),
      '};',
      ...(bundle === CLI ? ["export * from './cli.ts';"] : []),
      'export function load(key) {',
      '  const m = modules[key];',
      `  if (!m) throw new Error(\`dist/${bundle} has no module \${key}: rebuild (npm run build)\`);`,
      '  return m();',
      '}',
    ].join('\n'),
    resolveDir: src,
    sourcefile: `${bundle.replace('.cjs', '')}-registry.js`,
    loader: 'js',
  };
}

const pass1 = {
  ...common,
  absWorkingDir: root,
  external: Object.keys(pkg.dependencies).filter((d) => d !== 'commander'),
  plugins: [noChildProcess, lazyImports],
};
const pass2 = {
  ...common,
  absWorkingDir: root,
  external: EXTERNAL,
  // import.meta.url in a CommonJS bundle: the bundle's own URL.
  define: { ...common.define, 'import.meta.url': '__pay_bundle.url' },
  inject: [join(src, 'scripts', 'bundle-url.mjs')],
};

rmSync(dist, { recursive: true, force: true });
const cli = join(dist, 'cli.cjs');
// Planning pass 2: what pass 1 loads lazily (lazyImports fills `lazy`; nothing written), then
// all of it as one bundle (nothing written) for the graph: who imports whom.
const cliInputs = (await build({ ...pass1, entryPoints: [join(src, 'cli.ts')], outfile: cli, write: false })).metafile.inputs;
const lazyInputs = [...lazy].map((key) => `src/${key}.ts`);
const graph = (
  await build({
    ...pass2,
    write: false,
    sourcemap: false,
    stdin: { contents: lazyInputs.map((i) => `import(${JSON.stringify(`./${i.slice(4)}`)});`).join('\n'), resolveDir: src, loader: 'js' },
    outfile: join(dist, IMPL),
    plugins: [lazyChalk, undiciAgent, requireNotImport],
  })
).metafile.inputs;
const core = new Set();
for (const queue = CORE.map((key) => `src/${key}.ts`); queue.length > 0;) {
  const input = queue.pop();
  if (core.has(input) || NOT_CORE.test(input)) continue;
  if (!graph[input]) throw new Error(`build: CORE module ${input} is not loaded lazily from src/cli.ts`);
  core.add(input);
  for (const i of graph[input].imports) if (!i.external && i.kind !== 'dynamic-import') queue.push(i.path);
}
for (const input of Object.keys(graph))
  if (!COPIED.test(input) && input !== '<stdin>') owners.set(input, input in cliInputs ? CLI : core.has(input) ? IMPL : MORE);
/** bundle → the inputs it holds that something outside it loads: dist/cli.cjs (lazy) or another bundle. */
const exported = new Map([
  [CLI, new Set()],
  [IMPL, new Set()],
  [MORE, new Set()],
]);
for (const input of lazyInputs) exported.get(bundleOf(input)).add(input);
// What the training (src/scripts/train-cache.mjs) reads from the bundles: the objects' id prefixes
// its stub answers with, the V8 flags pay sets (which it puts back before writing the caches).
for (const input of ['src/shared/domain.ts', 'src/lib/v8-flags.ts']) exported.get(bundleOf(input)).add(input);
// A module one bundle holds that another imports, directly or through a COPIED module (the chalk
// stand-in in dist/more.cjs requires the chalk dist/impl.cjs holds): in its bundle's registry.
for (const [input, { imports }] of Object.entries(graph)) {
  const from = owners.get(input);
  for (const i of imports)
    if (!i.external && owners.has(i.path) && owners.get(i.path) !== from) exported.get(owners.get(i.path)).add(i.path);
}

check(await build({ ...pass1, stdin: registry(CLI, exported.get(CLI)), outfile: cli }), cli);
for (const bundle of [IMPL, MORE]) {
  const file = join(dist, bundle);
  check(
    await build({
      ...pass2,
      stdin: registry(bundle, exported.get(bundle)),
      outfile: file,
      plugins: [crossBundle(bundle), lazyChalk, undiciAgent, requireNotImport],
    }),
    file,
  );
}
for (const bundle of ['cli.cjs', IMPL, MORE]) wrapAndStamp(join(dist, bundle));
// Each bundle's CRC-32, beside them (dist/checksums.txt): bin/load.js compiles none that is not of it.
const loader = createRequire(import.meta.url)(join(root, 'bin', 'load.js'));
loader.writeChecksums(dist, ['cli.cjs', IMPL, MORE]);
/** bin/pay.js's pageSum (the same function: a help page's hash, in its head line). */
function pageSum(b) {
  let h = b.length;
  const end = b.length & ~3;
  for (let i = 0; i < end; i += 4) {
    h = Math.imul(h ^ (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)), 0x9e3779b1);
    h ^= h >>> 15;
  }
  for (let i = end; i < b.length; i++) {
    h = Math.imul(h ^ b[i], 0x9e3779b1);
    h ^= h >>> 15;
  }
  return h >>> 0;
}
// Help pages (src/cmdutil/help-pages.ts): every command's --help and --version as printed where
// stdout is not a terminal, from the whole tree; bin/pay.js prints them without loading the CLI.
{
  const cache = join(root, 'node_modules', '.cache', 'pay-build');
  const helpBundle = join(cache, `help-pages-${process.pid}.mjs`);
  mkdirSync(cache, { recursive: true });
  try {
    await build({
      absWorkingDir: root,
      entryPoints: [join(src, 'scripts', 'help-pages.ts')],
      outfile: helpBundle,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      define: common.define,
      logLevel: 'warning',
    });
    const { pages } = await import(pathToFileURL(helpBundle).href);
    mkdirSync(join(dist, 'help'));
    // Each page after its head line, `pay page <bytes> <sum>` (bin/pay.js: a page empty, cut short
    // or with a byte changed is a damaged build).
    for (const [name, text] of pages(pkg.version)) {
      const bytes = Buffer.from(text);
      writeFileSync(join(dist, 'help', `${name}.txt`), `pay page ${bytes.length} ${pageSum(bytes).toString(16).padStart(8, '0')}\n${text}`);
    }
  } finally {
    rmSync(helpBundle, { force: true });
  }
}
// llhttp's bytes, as undici's modules hold them (a Buffer from base64).
for (const [name, from] of wasmFiles) writeFileSync(join(dist, name), createRequire(import.meta.url)(from));
// The names of the global flags that take a value (src/cmdutil/global-flags.json), for bin/load.js.
{
  const { program, verb } = JSON.parse(readFileSync(join(src, 'cmdutil', 'global-flags.json'), 'utf8'));
  const names = [...program, ...Object.values(verb)].filter((f) => f.value).flatMap((f) => (f.short ? [f.short, f.long] : [f.long]));
  writeFileSync(join(dist, 'value-flags.json'), JSON.stringify(names));
}

// 3. Train the code caches: one process per kind of command (src/scripts/train-cache.mjs KINDS,
// bin/load.js kindOf), then one for all of them, each a fresh V8 like a `pay` process.
// What the commands print is not the build's: shown only when the training fails.
const trainer = join(src, 'scripts', 'train-cache.mjs');
const kinds = JSON.parse(spawnSync(process.execPath, [trainer, '--kinds'], { encoding: 'utf8' }).stdout);
for (const kind of [...kinds, undefined]) {
  const train = spawnSync(process.execPath, [trainer, ...(kind === undefined ? [] : [kind])], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  // A trained command that fails fails the build (its stderr says why): its cache would not hold its path.
  if (train.status !== 0) {
    process.stderr.write(`${train.stderr}build: training the code caches${kind === undefined ? '' : ` (${kind})`} failed\n`);
    process.exitCode = 1;
  }
}
